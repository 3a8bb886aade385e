#!/usr/bin/env bash
# Builds htsim at the commit dcsim is compared with, and the comparison driver, into
# build/htsim: `benchmarks/htsim/build.sh [HTSIM_GIT]`, where HTSIM_GIT is a clone or bare
# repository of Broadcom/csg-htsim (default: cloned from GitHub). htsim's own makefiles and
# flags build its library (-O3) and fat-tree objects (-O2); the driver gets the same -O2.
set -euo pipefail
COMMIT=841d9e7be46bb968eece766aa4b6c044c7799f67
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/build/htsim
repo=${1:-}
mkdir -p "$out"
if [ -z "$repo" ]; then
  repo=$out/csg-htsim.git
  [ -d "$repo" ] || git clone --bare https://github.com/Broadcom/csg-htsim "$repo"
fi
rm -rf "$out/src" && mkdir -p "$out/src"
# Only sim/: the repository's experiment data is large and not needed.
git -C "$repo" archive "$COMMIT" sim | tar -x -C "$out/src"
trap 'echo "error: building htsim failed; see $out/build.log" >&2' ERR
make -C "$out/src/sim" -j2 libhtsim.a > "$out/build.log" 2>&1
make -C "$out/src/sim/datacenter" -j2 firstfit.o fat_tree_topology.o fat_tree_switch.o connection_matrix.o >> "$out/build.log" 2>&1
trap - ERR
cd "$out/src/sim/datacenter"
g++ -I.. -I. -Wall -std=c++11 -O2 -c "$root/benchmarks/htsim/htsim_cmp.cpp" -o "$out/htsim_cmp.o"
g++ -O2 "$out/htsim_cmp.o" firstfit.o fat_tree_topology.o fat_tree_switch.o connection_matrix.o -L.. -lhtsim -o "$out/htsim_cmp"
echo "built $out/htsim_cmp (htsim $COMMIT)"
