// The tensor-core attention kernels' program text (attention_mma_source.h): each family's one
// body (masked, relative, and the masked kernel's packing pass) instantiated per precision after
// that precision's row of the macro table, as pipe_variant does for the GEMM's precisions.
#include "models/ops/opencl/attention_mma_source.h"

#include "models/ops/opencl/kernel_sources.h"

namespace sb {
namespace {

// The masked attention kernel (kernels/attention_mma_body.cl) with `blocks` 16-query blocks a
// warp, a cp.async ring of `stages`, K and V read in place (direct) or packed first, and the
// one-instruction conversions and exp2 (fast) or not; inside a precision's section.
std::string attention_variant(const char* name, int blocks, int stages, bool direct = false,
                              bool fast = false) {
  return std::string("#define FA_NAME ") + name + "\n#define FA_MBLK " + std::to_string(blocks) +
         "\n#define FA_STAGES " + std::to_string(stages) + "\n#define FA_DIRECT " +
         (direct ? "1" : "0") + "\n#define AT_FAST " + (fast ? "1" : "0") + "\n" +
         std::string(embedded_cl_source("attention_mma_body.cl")) +
         "\n#undef FA_NAME\n#undef FA_MBLK\n#undef FA_STAGES\n#undef FA_DIRECT\n#undef AT_FAST\n";
}

// The relative attention kernel (kernels/attention_relative_body.cl): `stages` 2, one ring of
// two for K, band and V; 1, single tiles loaded as two commit groups. qp_local keeps (Q + v)'s
// fragments in local memory instead of registers.
std::string rel_attention_variant(const char* name, int stages, bool qp_local) {
  return std::string("#define RA_NAME ") + name + "\n#define RA_STAGES " + std::to_string(stages) +
         "\n#define RA_QP_LOCAL " + (qp_local ? "1" : "0") + "\n#define AT_FAST 0\n" +
         std::string(embedded_cl_source("attention_relative_body.cl")) +
         "\n#undef RA_NAME\n#undef RA_STAGES\n#undef RA_QP_LOCAL\n#undef AT_FAST\n";
}

// One precision's attention kernels: its row of the table (kernels/attention_<p>_nvidia.cl,
// the AT_ names the bodies use), its packing kernel, then `kernels` (the bodies' instances).
std::string attention_precision(const char* table, const std::string& kernels) {
  return std::string(embedded_cl_source(table)) + "\n" +
         std::string(embedded_cl_source("attention_pack_body.cl")) + "\n" + kernels +
         "#undef AT_NAME\n#undef AT_MMA\n#undef AT_KSTEP\n#undef AT_EPC\n#undef AT_BITS\n"
         "#undef AT_TO_BITS\n#undef AT_FRAG\n#undef AT_P_IN_LOCAL\n"
         "#undef AT_A_FRAG\n#undef AT_P_STASH\n#undef AT_P_FRAG\n#undef AT_V_PITCH\n"
         "#undef AT_V_ROWS_AT\n#undef AT_V_ROWS_FRAG\n#undef AT_HALF_IO\n";
}

}  // namespace

// f16's tiles are half the bytes of tf32's: its rings hold one more stage.
std::string attention_mma_source() {
  return std::string(embedded_cl_source("attention_mma_nvidia.cl")) + "\n" +
         std::string(embedded_cl_source("attention_relative_nvidia.cl")) + "\n" +
         attention_precision("attention_f16_nvidia.cl",
                             attention_variant("attention_f16_mma", 1, 3) +
                                 attention_variant("attention_f16_mma_x2", 2, 3) +
                                 attention_variant("attention_f16_direct", 2, 3, true, true) +
                                 attention_variant("attention_f16_direct_plain", 2, 3, true) +
                                 rel_attention_variant("rel_attention_f16_mma", 2, false)) +
         attention_precision("attention_tf32_nvidia.cl",
                             attention_variant("attention_tf32_mma", 1, 2) +
                                 rel_attention_variant("rel_attention_tf32_mma", 1, true));
}

}  // namespace sb
