#!/usr/bin/env bash
# Installs, builds and runs the whole test suite (CTest). Exit status is the suite's.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
ctest --preset release -j "$(nproc)"
