#!/usr/bin/env bash
# Coverage-guided fuzzing with cargo fuzz (libFuzzer, nightly Rust; rustup and cargo install
# them if missing): each target in fuzz/fuzz_targets runs for SECONDS (default 300; 0 only
# re-minimises) from fuzz/seeds, fuzz/minimised/<target> and the local corpus
# fuzz/corpus/<target>, with overflow checks and debug assertions on (no sanitizer: the engine
# has no unsafe code), a 10 s limit per input (a hang is a failure), new inputs of at most
# 4 kB and a dictionary of the scenario format's keys. New inputs that reach new code go to
# fuzz/corpus/<target>, which git ignores: it grows to thousands of files and megabytes.
# At the end fuzz/minimised/<target> is remade from itself and that corpus: the smallest
# inputs that still reach every edge the seeds do not (libFuzzer's -merge, hit counts
# ignored, else nearly every input counts). Commit fuzz/minimised: it is what the next run
# and `make test` start from. A failing input is left in fuzz/artifacts/<target>.
#   scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-300}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(scenario_parse small_sim)
rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal --no-self-update >/dev/null
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
    mkdir -p "fuzz/corpus/$t" "fuzz/minimised/$t"
    if [ "$seconds" -gt 0 ]; then
        echo "fuzz: $t for ${seconds} s"
        cargo +nightly fuzz run --sanitizer none --debug-assertions "$t" "fuzz/corpus/$t" "fuzz/minimised/$t" fuzz/seeds -- \
            -max_total_time="$seconds" -timeout=10 -max_len=4096 -rss_limit_mb=2048 -dict="$dict" -print_final_stats=1
    fi
    # The merge keeps what its first directory holds, the seeds (committed apart), and adds
    # an input only for an edge nothing before it reaches, smallest inputs first.
    out=fuzz/target/minimised-$t
    rm -rf "$out" && mkdir -p "$out" && cp fuzz/seeds/* "$out"
    cargo +nightly fuzz run --sanitizer none --debug-assertions "$t" "$out" "fuzz/minimised/$t" "fuzz/corpus/$t" -- \
        -merge=1 -use_counters=0 -timeout=10 -rss_limit_mb=2048 >"$out.log" 2>&1 || { tail -20 "$out.log" >&2; exit 1; }
    for f in fuzz/seeds/*; do rm -f "$out/${f##*/}"; done
    rm -rf "fuzz/minimised/$t" && mv "$out" "fuzz/minimised/$t"
    echo "fuzz: $t minimised to $(ls "fuzz/minimised/$t" | wc -l) inputs (+ $(ls fuzz/seeds | wc -l) seeds)," \
        "from $(ls "fuzz/corpus/$t" | wc -l) in fuzz/corpus/$t"
done
