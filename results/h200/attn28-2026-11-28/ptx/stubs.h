// Only for compiling the NVIDIA attention program with clang's nvptx target (ptx/compare.sh):
// its OpenCL header lacks the half load/store builtins there.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#define vload_half(i, p) ((float)((__global const half*)(p))[i])
#define vload_half4(i, p) ((float4)(vload_half(4*(i),p), vload_half(4*(i)+1,p), vload_half(4*(i)+2,p), vload_half(4*(i)+3,p)))
#define vstore_half_rte(v, i, p) (((__global half*)(p))[i] = (half)(v))
