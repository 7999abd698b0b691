/* The integer codes the kernels take for an activation (sb::Act), and the flags that say which
   of a kernel's tensors hold f16 bits: one definition for C++ (op_types.h, the OpenCL backend's
   host code) and OpenCL C (embedded ahead of kernels/common.cl: kernel_sources.h's
   cl_common_source). Plain macros and C comments, so that both languages read it. */
#ifndef SB_ACTIVATION_CODES_H
#define SB_ACTIVATION_CODES_H

#define SB_ACT_NONE 0
#define SB_ACT_RELU 1
#define SB_ACT_GELU 2 /* sigmoid(1.702 v) v */
#define SB_ACT_SOFTPLUS 3
#define SB_ACT_GELU_ERF 4   /* 0.5 v (1 + erf(v / sqrt 2)), exact */
#define SB_ACT_LEAKY_RELU 5 /* slope 0.01 */
#define SB_ACT_SIGMOID 6

/* A kernel's `halves` argument (issue 27: a half-precision stage keeps its activations in f16):
   which of its tensors hold f16 bits. */
#define ACT_HALF_X 1
#define ACT_HALF_RESIDUAL 2
#define ACT_HALF_Y 4
/* Or-ed into the pipelined GEMMs' act argument: y holds half bits (kernels/gemm_pipelined.cl). */
#define EPI_HALF_OUT 256

#endif
