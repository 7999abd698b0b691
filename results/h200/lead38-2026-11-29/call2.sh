#!/usr/bin/env bash
# lead38's second call (host CPU only): DynUNet small after 3ce2819 (channels-last's instance
# norm over voxel blocks in parallel) and 2912488 (ncdhw transposed convolutions on oneDNN's jit
# kernels): call 1's binary (617a2f8, old) against the new one in the same call, the new one's
# whole ladder with the fp32 ceiling, and its op table for baseline and channels-last.
#   bash build-lead38b/call.sh "$OUT"
set -u
L=build-lead38b
OLD_MODEL=dynunet OLD_STAGES="baseline channels-last compile" OLD_MAX_TIME=10 OLD_LIMIT=35 \
  MODELS=dynunet MAX_TIME_dynunet=20 PEER=0 \
  OPS=1 OPS_MODEL=dynunet OPS_STAGES="baseline channels-last" OPS_TIME=6 NOISE=0 \
  BUNDLE=$L/cpu-server.tar.xz timeout -s INT 150 bash $L/cpu-server.sh run "${1:?out}"
rm -rf "$1/cpu-server" /tmp/cpu-server-bundle
