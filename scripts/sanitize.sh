#!/usr/bin/env bash
# CI's sanitizer run (scripts/test.sh; docs/testing.md): the "asan" preset (GCC, ASan + UBSan,
# -O1, build-asan/) builds the test executables named below, and CTest runs their tests (tiny
# sizes) with the preset's ASAN_OPTIONS/UBSAN_OPTIONS: any report fails the test. Only these
# executables are built: a clean ASan build of everything (the models, the CLI) takes longer on
# CI's 2 cores than the rest of CI together. SB_ASAN_TESTS="a_test b_test" picks others, "all"
# builds everything and runs every test but the `slurm` label.
set -euo pipefail
cd "$(dirname "$0")/.."
# The parsers of users' files (schema, io, DeepFM's table, sweeps, thresholds and reports), the
# runner, statistics, probes, collectors and the op layer (ops_test: every op on the CPU and on
# PoCL). Measured on the 2-core VM: these 266 + 258 tests pass under ASan/UBSan in about 70 s,
# with LeakSanitizer on (detect_leaks=1); leaks inside PoCL's kernel compiler, reported when a
# process is the first to build a kernel here, are suppressed (scripts/lsan-suppressions.txt).
# Left out: the models' and the CLI's tests (sb_models, stagebench): their ASan build adds about
# 15 minutes on 2 cores, which would take CI past its 50-minute budget.
default_tests="schema_test io_test deepfm_data_test reports_test sweep_test slurm_unit_test
  harness_test probes_test probes_opencl_absent_test collectors_test ops_test"
tests=${SB_ASAN_TESTS:-$default_tests}
cmake --preset asan >/dev/null
if [ "$tests" = all ]; then
  cmake --build --preset asan -j "$(nproc)"
  ctest --preset asan -j "$(nproc)" -LE '^slurm$'
else
  # shellcheck disable=SC2086
  cmake --build --preset asan -j "$(nproc)" --target $tests
  labels=$(echo $tests | tr ' ' '|')
  ctest --preset asan -j "$(nproc)" -L "^($labels)\$"
fi
