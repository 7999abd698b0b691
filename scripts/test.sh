#!/usr/bin/env bash
# Installs, builds and runs the whole test suite (CTest), then the sanitizer run (ASan + UBSan,
# scripts/sanitize.sh) and the bounded fuzz runs (scripts/fuzz-ci.sh); docs/testing.md.
# STAGEBENCH_SANITIZE=0 skips the last two. Exit status is the first failure's.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
ctest --preset release -j "$(nproc)"
if [ "${STAGEBENCH_SANITIZE:-1}" != 0 ]; then
  bash scripts/sanitize.sh
  bash scripts/fuzz-ci.sh
fi
