#!/usr/bin/env bash
# The first name of `scripts/gpu.sh tune` (docs/scripts.md), kept for the commands that
# results/ cite: stage 0 with CLBlast's defaults, stagebench tune, stage 0 tuned.
d="$(dirname "$0")"; [ -f "$d/gpu.sh" ] || d=scripts; exec bash "$d/gpu.sh" tune "$@"
