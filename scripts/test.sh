#!/usr/bin/env bash
# The README's test command: installs, builds and runs the whole test suite (CTest). The slower
# passes, the sanitizer run (ASan + UBSan, scripts/sanitize.sh) and the bounded fuzz runs
# (scripts/fuzz-ci.sh), follow it in .ci/run; STAGEBENCH_SANITIZE=1 runs them here too
# (docs/testing.md). Exit status is the first failure's.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
# The op table in the Oclgrind pass's configuration is that pass's first step in .ci/run.
ctest --preset release -j "$(nproc)" -LE oclgrind_precheck
if [ "${STAGEBENCH_SANITIZE:-0}" != 0 ]; then
  bash scripts/sanitize.sh
  bash scripts/fuzz-ci.sh
fi
