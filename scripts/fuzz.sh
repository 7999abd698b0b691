#!/usr/bin/env bash
# Runs one libFuzzer target (fuzz/; docs/testing.md) for SECONDS from its seeds in
# fuzz/corpus/TARGET: scripts/fuzz.sh fuzz_npy 600. Builds the "fuzz" preset (clang, ASan,
# UBSan) into build-fuzz/ first. What it learns goes to build-fuzz/corpus/TARGET (kept between
# runs, never the repository); a crash is written to build-fuzz/findings/TARGET/ and exits non-zero.
# Extra arguments go to libFuzzer (e.g. -jobs=2, -max_len=65536). A finding becomes a seed:
# copy it into fuzz/corpus/TARGET/ (regression-*) once the parser is fixed, and add a gtest.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
  echo "usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]" >&2
  echo "targets: $(ls fuzz/corpus | tr '\n' ' ')" >&2
  exit 2
fi
target=$1 seconds=$2
shift 2
if [ ! -d "fuzz/corpus/$target" ]; then
  echo "fuzz.sh: no target '$target' (fuzz/corpus/$target missing)" >&2
  exit 2
fi
bash scripts/setup.sh --fuzz  # clang and libFuzzer: not in the README's commands' set-up
[ -f build-fuzz/build.ninja ] || cmake --preset fuzz >/dev/null
cmake --build build-fuzz --target "$target" -j "$(nproc)" >/dev/null
mkdir -p "build-fuzz/corpus/$target" "build-fuzz/findings/$target"
exec "build-fuzz/fuzz/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="build-fuzz/findings/$target/" "$@" \
  "build-fuzz/corpus/$target" "fuzz/corpus/$target"
