// Oclgrind 21.10 (Debian's) cannot check a kernel for uninitialized values once LLVM has put a
// `freeze` in it (docs/testing.md; scripts/oclgrind-ci.sh builds with -cl-opt-disable for this).
// Here i / c and i % c of the same i: at any optimization level from -O1, LLVM's DivRemPairs
// computes the remainder from the quotient and freezes the operands
// (`%conv.frozen = freeze i32 %conv`). Under `oclgrind-kernel --uninitialized div_rem_freeze.sim`
// the Uninitialized plugin stops at its first instruction ("OCLGRIND FATAL ERROR ... Unsupported
// instruction: freeze"), the work-items never store, and y dumps as 0 0 0 0 0 0 0 0 where it is
// 0 1 2 100 101 102 200 201 (as without --uninitialized, or with --build-options
// -cl-opt-disable); the exit status is 0 all the same. Upstream added freeze to the plugin in
// February 2026 (jrprice/Oclgrind#220, in 26.03.1). This was attention_pool's and
// attention_fused's "wrong values" under Oclgrind (issue 29): their kernels are right.
__kernel void div_rem(int c, __global int* y) {
  const int i = get_global_id(0);
  y[i] = (i / c) * 100 + i % c;
}
