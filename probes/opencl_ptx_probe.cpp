// Each probe is a tiny kernel with one asm() statement; the device supports the form when the
// program builds. Operand shapes follow the PTX ISA's mma.sync fragment layouts:
//   m16n8k16 f16:  A 4 x .b32 (8 halves), B 2 x .b32, C/D 4 x .f32
//   m16n8k8 tf32:  A 4 x .b32,            B 2 x .b32, C/D 4 x .f32
//   m16n8k32 s8:   A 4 x .b32 (16 bytes), B 2 x .b32, C/D 4 x .s32
#include "probes/opencl_ptx_probe.h"

#include <string>

namespace sb {

namespace {

constexpr size_t kMaxLoggedChars = 600;

const char* const kTrivialAsmSource = R"CLC(
__kernel void ptx_probe(__global const uint* in, __global uint* out) {
  uint v;
  asm volatile("mov.u32 %0, %1;" : "=r"(v) : "r"(in[get_global_id(0)]));
  out[get_global_id(0)] = v;
}
)CLC";

// An mma.sync kernel: acc_type/acc_constraint describe the C/D fragments (float/"f" or int/"r").
std::string mma_source(const std::string& instruction, const std::string& acc_type,
                       const std::string& acc_constraint) {
  const std::string& t = acc_type;
  const std::string& c = acc_constraint;
  return "__kernel void mma_probe(__global const uint* in, __global " + t +
         "* out) {\n"
         "  const size_t i = get_global_id(0);\n"
         "  uint a0 = in[0], a1 = in[1], a2 = in[2], a3 = in[3], b0 = in[4], b1 = in[5];\n"
         "  " +
         t +
         " c0 = out[4 * i], c1 = out[4 * i + 1], c2 = out[4 * i + 2], c3 = out[4 * i + 3];\n"
         "  " +
         t +
         " d0, d1, d2, d3;\n"
         "  asm volatile(\"" +
         instruction +
         " \"\n"
         "      \"{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\"\n"
         "      : \"=" +
         c + "\"(d0), \"=" + c + "\"(d1), \"=" + c + "\"(d2), \"=" + c +
         "\"(d3)\n"
         "      : \"r\"(a0), \"r\"(a1), \"r\"(a2), \"r\"(a3), \"r\"(b0), \"r\"(b1),\n"
         "        \"" +
         c + "\"(c0), \"" + c + "\"(c1), \"" + c + "\"(c2), \"" + c +
         "\"(c3));\n"
         "  out[4 * i] = d0; out[4 * i + 1] = d1; out[4 * i + 2] = d2; out[4 * i + 3] = d3;\n"
         "}\n";
}

// True when the program builds; otherwise appends "<label>: <error and build log>" to errors.
bool builds(const cl::Context& context, const cl::Device& device, const std::string& source,
            const std::string& label, std::vector<std::string>& errors) {
  cl::Program program;
  try {
    program = cl::Program(context, source);
    program.build({device});
    return true;
  } catch (const cl::Error& error) {
    std::string message = label + ": " + error.what() + " (" + std::to_string(error.err()) + ")";
    try {
      const std::string log = program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device);
      if (!log.empty()) message += ": " + log.substr(0, kMaxLoggedChars);
    } catch (const cl::Error&) {
      // No log to add: the program object itself was not created.
    }
    errors.push_back(message);
    return false;
  }
}

}  // namespace

void probe_nvidia_ptx(const cl::Device& device, OpenCLDeviceInfo& info) {
  cl::Context context;
  try {
    context = cl::Context(device);
  } catch (const cl::Error& error) {
    info.probe_errors.push_back(std::string("ptx probes: cannot create a context: ") +
                                error.what() + " (" + std::to_string(error.err()) + ")");
    return;
  }
  info.ptx_inline = builds(context, device, kTrivialAsmSource, "inline PTX", info.probe_errors);
  if (!info.ptx_inline) return;  // The mma forms need inline PTX; their builds would only fail.
  info.mma_f16 =
      builds(context, device,
             mma_source("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "float", "f"),
             "mma f16 m16n8k16", info.probe_errors);
  info.mma_tf32 =
      builds(context, device,
             mma_source("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", "float", "f"),
             "mma tf32 m16n8k8", info.probe_errors);
  info.mma_s8 = builds(context, device,
                       mma_source("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", "int", "r"),
                       "mma s8 m16n8k32", info.probe_errors);
}

}  // namespace sb
