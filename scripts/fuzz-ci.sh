#!/usr/bin/env bash
# CI's fuzzing (scripts/test.sh; docs/testing.md): builds every libFuzzer target (the "fuzz"
# preset: clang, ASan, UBSan) into build-fuzz/, replays each target's corpus in fuzz/corpus/TARGET
# (seeds and the regression inputs of past findings), then fuzzes it for FUZZ_SECONDS (default
# 20) from there. Any crash, sanitizer report, leak, timeout or escaping exception fails it.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-20}
bash scripts/setup.sh --fuzz  # clang and libFuzzer: not in the README's commands' set-up
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$(nproc)"
status=0
for dir in fuzz/corpus/*/; do
  target=$(basename "$dir")
  scratch=$(mktemp -d)
  mkdir -p "build-fuzz/findings/$target"
  # The scratch directory first: libFuzzer adds what it finds to the first, the repository's
  # corpus stays as committed.
  if "build-fuzz/fuzz/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="build-fuzz/findings/$target/" "$scratch" "$dir" \
      >"build-fuzz/findings/$target.log" 2>&1; then
    echo "fuzz-ci: $target ok: $(grep -Eo 'Done [0-9]+ runs in [0-9]+ second' \
      "build-fuzz/findings/$target.log" | tail -1)"
  else
    echo "fuzz-ci: $target FAILED (build-fuzz/findings/$target.log):" >&2
    tail -40 "build-fuzz/findings/$target.log" >&2
    status=1
  fi
  rm -rf "$scratch"
done
exit $status
