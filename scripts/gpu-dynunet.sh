#!/usr/bin/env bash
# The first name of `scripts/gpu.sh dynunet` (docs/scripts.md), kept for the commands that
# results/ cite: DynUNet's session: selftest and training checks, PyTorch's ladder, ours and peer.
d="$(dirname "$0")"; [ -f "$d/gpu.sh" ] || d=scripts; exec bash "$d/gpu.sh" dynunet "$@"
