#!/usr/bin/env bash
# A third call, written after call 2 and not run (dyn39's device time was spent): call 2 with
# PyTorch's compile-fp32 training step given room. In call 2 the peer spent ~37 s (imports, its
# fp32 reference) before the variant, so a 70 s budget under a 77 s deadline became 40 s, short of
# the ~51 s the compile needs on this host (lead38). Here the compile step's deadline is 130 s.
# About 220 s of device time: bash build-dyn39/call3.sh "$OUT" (timeout_s 230).
set -u
sed -e 's/BUDGET:-160/BUDGET:-220/' -e 's/peer dynunet-peer-compile-fp32 85/peer dynunet-peer-compile-fp32 140/' \
  -e 's/--variant-budget 70/--variant-budget 100/' -e 's/dyn39b/dyn39c/g' \
  "$(dirname "$0")/call2.sh" > /tmp/dyn39-call3.sh
exec bash /tmp/dyn39-call3.sh "$@"
