#!/usr/bin/env bash
# The portable bundle (scripts/gpu-bundle.sh's .gpu/) plus ops_test and gemm_test, built in
# build-portable-tests/ with the portable preset's settings and tests on. Usage: bundle-with-tests.sh REPO
set -euo pipefail
cd "${1:?repo}"
bash scripts/gpu-bundle.sh
cmake --preset portable -B build-portable-tests -DSTAGEBENCH_TESTS=ON >/dev/null
cmake --build build-portable-tests -j "$(nproc)" --target ops_test ${EXTRA_TARGETS:-}
cp build-portable-tests/tests/ops/ops_test .gpu/
for t in ${EXTRA_TARGETS:-}; do f=$(find build-portable-tests -name "$t" -type f -executable | head -1); cp "$f" .gpu/; done
ldd .gpu/ops_test | awk '/=> \//{print $3}' |
  grep -vE '/(libc|libm|libdl|librt|libpthread|ld-linux[^/]*|libgcc_s|libstdc\+\+)\.so' |
  while read -r lib; do [ -f ".gpu/lib/$(basename "$lib")" ] || cp -L "$lib" .gpu/lib/; done
du -sh .gpu
