#!/usr/bin/env bash
# Coverage-guided fuzzing with cargo fuzz (libFuzzer, nightly Rust; rustup and cargo install
# them if missing): each target in fuzz/fuzz_targets runs for SECONDS (default 300) from the
# seeds and its corpus, with overflow checks and debug assertions on (no sanitizer: the engine
# has no unsafe code), a 10 s limit per input (a hang is a failure), new inputs of at most
# 4 kB (the corpora stay small enough to keep in the repository) and a dictionary of the
# scenario format's keys. New inputs that reach
# new code are kept in fuzz/corpus/<target>, minimised at the end: commit them, and
# `make test` replays them. A failing input is left in fuzz/artifacts/<target>.
#   scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-300}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(scenario_parse small_sim)
rustup toolchain install nightly --profile minimal --no-self-update >/dev/null
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked --version 0.13.2
# libFuzzer's dictionary: every key of the scenario schema, and the format's punctuation.
dict=fuzz/target/scenario.dict
mkdir -p fuzz/target
python3 - "$dict" <<'PY'
import json, sys
keys = set()
def walk(node):
    if isinstance(node, dict):
        keys.update(node.get("properties", {}))
        for v in node.values():
            walk(v)
    elif isinstance(node, list):
        for v in node:
            walk(v)
walk(json.load(open("schema/scenario.schema.json")))
tokens = sorted(keys) + ["[[flows]]", "[[queries]]", "[[udp]]", "[[workloads]]", "[topology]", "[sim]", "[tcp]", " = ", "true", "nan", "inf"]
with open(sys.argv[1], "w") as out:
    out.writelines(json.dumps(t) + "\n" for t in tokens)
PY
for t in "${targets[@]}"; do
    mkdir -p "fuzz/corpus/$t"
    echo "fuzz: $t for ${seconds} s"
    cargo +nightly fuzz run --sanitizer none --debug-assertions "$t" "fuzz/corpus/$t" fuzz/seeds -- \
        -max_total_time="$seconds" -timeout=10 -max_len=4096 -rss_limit_mb=2048 -dict="$dict" -print_final_stats=1
    cargo +nightly fuzz cmin --sanitizer none --debug-assertions "$t" "fuzz/corpus/$t" -- -dict="$dict" >/dev/null 2>&1
    echo "fuzz: $t corpus now $(ls "fuzz/corpus/$t" | wc -l) inputs"
done
