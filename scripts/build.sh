#!/usr/bin/env bash
# Configures and builds stagebench (Release, Ninja) into build/.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)"
