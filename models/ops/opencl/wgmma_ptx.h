// Text transformations of the wgmma route (issue 27): the OpenCL C helpers whose inline asm is a
// PTX comment carrying its operands, and the patch that turns those comments into Hopper's
// wgmma instructions in the PTX NVIDIA's OpenCL compiler produced. Pure text: no OpenCL here.
#pragma once

#include <string>
#include <vector>

namespace sb::wgmma {

// OpenCL C for the helpers wgmma_gemm.cl calls: sbw_proxy_fence(), sbw_commit(), and for each
// n in `widths` (8 .. 256, a multiple of 8) sbw_mma_n<n>(float* d, ulong da, ulong db),
// sbw_mma_tf32_n<n>(float* d, ulong da, ulong db) (gemm36: m64n<n>k8, tf32 operands),
// sbw_fence_n<n>(float* d), sbw_wait0_n<n>(float* d) and sbw_wait1_n<n>(float* d), d holding the
// n / 2 accumulators of an m64n<n>k16 f32 product. Each is one `asm volatile` whose text is a
// comment "// SBW_<WHAT> ..."; the accumulators are "+f" operands of the fence and waits too, so
// that the compiler moves no access to them across the asynchronous window.
std::string helpers(const std::vector<int>& widths);

struct Patched {
  std::string ptx;
  int mma = 0, fence = 0, commit = 0, wait = 0, proxy_fence = 0, setmaxnreg = 0;
  std::string target_before, version_before;  // the lines as the compiler wrote them
  std::string error;                          // empty when the text was patched
};

// `.target sm_90[, ...]` becomes sm_90a (its other fields kept), `.version` is raised to 8.0
// where it is lower (wgmma's first ISA), and each SBW comment line becomes its instruction:
//   SBW_MMA m64nNk16 {d...}, da, db  -> wgmma.mma_async.sync.aligned.m64nNk16.f32.f16.f16
//                                       {d...}, da, db, 1, 1, 1, 0, 0;  (D += A B, K-major both)
//   SBW_MMA m64nNk8 {d...}, da, db   -> wgmma.mma_async.sync.aligned.m64nNk8.f32.tf32.tf32
//                                       {d...}, da, db, 1, 1, 1;  (tf32: K-major only)
//   SBW_FENCE {d...}                 -> wgmma.fence.sync.aligned;
//   SBW_COMMIT                       -> wgmma.commit_group.sync.aligned;
//   SBW_WAIT n {d...}                -> wgmma.wait_group.sync.aligned n;
//   SBW_PROXY_FENCE                  -> fence.proxy.async.shared::cta;
//   SBW_SETMAXNREG inc|dec n         -> setmaxnreg.inc|dec.sync.aligned.u32 n;  (gemm35: the
//                                       warp-specialized kernel's register shift, sm_90a only)
// maxnreg > 0 adds `.maxnreg maxnreg` to every entry (before its body's opening brace): the
// register cap ptxas allocates under, e.g. 128 so that two 256-item work-groups share an SM.
// An SBW comment that does not parse, or a missing .target line, sets `error`.
Patched patch(const std::string& ptx, int maxnreg = 0);

}  // namespace sb::wgmma
