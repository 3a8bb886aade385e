#!/usr/bin/env bash
# The programs the tests drive besides Python packages, from Debian's packages:
#   chromium + chromium-driver  render the HTML report headless (tests/python/test_report_browser.py)
#   tshark                      reads back the pcap files dcsim writes
#   rustfmt, clippy             the Rust toolchain's linters (rustup components)
# Installs whichever is missing; does nothing when all are there.
set -euo pipefail

for component in rustfmt clippy; do
    if ! cargo "${component/rustfmt/fmt}" --version >/dev/null 2>&1; then
        rustup component add "$component"
    fi
done

missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
command -v tshark >/dev/null 2>&1 || missing+=(tshark)
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "error: the tests need ${missing[*]} (Debian package names); install them and rerun" >&2
    exit 2
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    sudo="sudo"
fi
echo "installing ${missing[*]} from Debian's packages" >&2
# Through env, since sudo drops the environment: tshark's set-up must not stop to ask.
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
