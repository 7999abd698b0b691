#!/usr/bin/env bash
# Configures and builds stagebench (Release, Ninja) into build/: every target, or only the
# targets named as arguments (the main job builds `stagebench` alone: it needs no tests).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" ${1:+--target "$@"}
