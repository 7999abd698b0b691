# gen.py TREE OUT: the tensor-core attention program text as TREE's host code composes it
# (models/ops/opencl/gemm_mma.cpp before issue 28's shared bodies, attention_mma_source.cpp
# after), preceded by the helpers it is built after. Mirrors the C++ by hand: a check, not a tool.
import os, sys
tree, out = sys.argv[1], sys.argv[2]
def r(n):
    for p in [tree + "/models/ops/opencl/kernels/" + n, tree + "/models/ops/" + n]:
        if os.path.exists(p): return open(p).read()
    raise SystemExit("missing " + n)
src = "".join(r(f) + "\n" for f in ["activation_codes.h", "common.cl", "gemm_mma_nvidia.cl", "gemm_pipelined.cl"])
if not os.path.exists(tree + "/models/ops/opencl/kernels/attention_relative_body.cl"):  # before
    def var(name, b, d=False, f=False):
        return (f"#define FA_NAME {name}\n#define FA_MBLK {b}\n#define FA_DIRECT {int(d)}\n#define FA_FAST {int(f)}\n"
                + r("attention_mma_body.cl") + "\n#undef FA_NAME\n#undef FA_MBLK\n#undef FA_DIRECT\n#undef FA_FAST\n")
    src += (r("attention_mma_nvidia.cl") + "\n" + var("attention_f16_mma", 1) + var("attention_f16_mma_x2", 2)
            + var("attention_f16_direct", 2, True, True) + var("attention_f16_direct_plain", 2, True, False)
            + r("attention_tf32_nvidia.cl") + "\n" + r("attention_relative_nvidia.cl") + "\n"
            + r("attention_relative_tf32_nvidia.cl") + "\n")
else:
    def var(name, b, st, d=False, f=False):
        return (f"#define FA_NAME {name}\n#define FA_MBLK {b}\n#define FA_STAGES {st}\n#define FA_DIRECT {int(d)}\n#define AT_FAST {int(f)}\n"
                + r("attention_mma_body.cl") + "\n#undef FA_NAME\n#undef FA_MBLK\n#undef FA_STAGES\n#undef FA_DIRECT\n#undef AT_FAST\n")
    def rel(name, st, ql):
        return (f"#define RA_NAME {name}\n#define RA_STAGES {st}\n#define RA_QP_LOCAL {int(ql)}\n#define AT_FAST 0\n"
                + r("attention_relative_body.cl") + "\n#undef RA_NAME\n#undef RA_STAGES\n#undef RA_QP_LOCAL\n#undef AT_FAST\n")
    U = "".join("#undef AT_" + x + "\n" for x in "NAME MMA KSTEP EPC BITS TO_BITS FRAG P_IN_LOCAL A_FRAG P_STASH P_FRAG V_PITCH V_ROWS_AT V_ROWS_FRAG HALF_IO".split())
    def prec(t, ks): return r(t) + "\n" + r("attention_pack_body.cl") + "\n" + ks + U
    src += r("attention_mma_nvidia.cl") + "\n" + r("attention_relative_nvidia.cl") + "\n"
    src += prec("attention_f16_nvidia.cl", var("attention_f16_mma", 1, 3) + var("attention_f16_mma_x2", 2, 3)
                + var("attention_f16_direct", 2, 3, True, True) + var("attention_f16_direct_plain", 2, 3, True)
                + rel("rel_attention_f16_mma", 2, False))
    src += prec("attention_tf32_nvidia.cl", var("attention_tf32_mma", 1, 2) + rel("rel_attention_tf32_mma", 1, True))
open(out, "w").write(src)
