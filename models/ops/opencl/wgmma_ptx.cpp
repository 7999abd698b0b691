#include "models/ops/opencl/wgmma_ptx.h"

#include <cstdio>
#include <regex>
#include <sstream>

namespace sb::wgmma {
namespace {

// "{%0, %1, ..., %<count - 1>}" from `first`.
std::string operand_list(int first, int count) {
  std::string s = "{";
  for (int i = 0; i < count; ++i) s += (i ? ", %" : "%") + std::to_string(first + i);
  return s + "}";
}

std::string plus_f(int count) {
  std::string s;
  for (int i = 0; i < count; ++i) s += (i ? ", \"+f\"(d[" : "\"+f\"(d[") + std::to_string(i) + "])";
  return s;
}

}  // namespace

std::string helpers(const std::vector<int>& widths) {
  std::string s =
      "inline void sbw_proxy_fence(void) { asm volatile(\"// SBW_PROXY_FENCE\" ::: \"memory\"); }\n"
      "inline void sbw_commit(void) { asm volatile(\"// SBW_COMMIT\" ::: \"memory\"); }\n";
  for (const int n : widths) {
    const int regs = n / 2;
    const std::string ns = std::to_string(n), acc = operand_list(0, regs), f = plus_f(regs);
    s += "inline void sbw_mma_n" + ns +
         "(float* d, ulong da, ulong db) {\n  asm volatile(\"// SBW_MMA m64n" + ns + "k16 " + acc +
         ", %" + std::to_string(regs) + ", %" + std::to_string(regs + 1) + ";\"\n    : " + f +
         "\n    : \"l\"(da), \"l\"(db) : \"memory\");\n}\n";
    // gemm36: the dense tf32 form (k8, 32-bit elements, the same 32 bytes of K a step).
    s += "inline void sbw_mma_tf32_n" + ns +
         "(float* d, ulong da, ulong db) {\n  asm volatile(\"// SBW_MMA m64n" + ns + "k8 " + acc +
         ", %" + std::to_string(regs) + ", %" + std::to_string(regs + 1) + ";\"\n    : " + f +
         "\n    : \"l\"(da), \"l\"(db) : \"memory\");\n}\n";
    s += "inline void sbw_fence_n" + ns + "(float* d) {\n  asm volatile(\"// SBW_FENCE " + acc +
         "\"\n    : " + f + "\n    : : \"memory\");\n}\n";
    for (const int w : {0, 1})
      s += "inline void sbw_wait" + std::to_string(w) + "_n" + ns +
           "(float* d) {\n  asm volatile(\"// SBW_WAIT " + std::to_string(w) + " " + acc +
           "\"\n    : " + f + "\n    : : \"memory\");\n}\n";
  }
  return s;
}

Patched patch(const std::string& ptx, int maxnreg) {
  Patched out;
  static const std::regex target(R"(^(\s*)\.target\s+sm_90(\b[^a].*|)$)");
  static const std::regex version(R"(^\s*\.version\s+(\d+)\.(\d+)\s*$)");
  static const std::regex mma(
      R"(^(\s*)//\s*SBW_MMA\s+(m64n\d+k(16|8))\s+(\{[^}]*\})\s*,\s*(%\w+)\s*,\s*(%\w+)\s*;\s*$)");
  static const std::regex wait(R"(^(\s*)//\s*SBW_WAIT\s+(\d)\b.*$)");
  static const std::regex setmaxnreg(R"(^(\s*)//\s*SBW_SETMAXNREG\s+(inc|dec)\s+(\d+)\s*$)");
  static const std::regex simple(R"(^(\s*)//\s*SBW_(FENCE|COMMIT|PROXY_FENCE)\b.*$)");
  std::istringstream in(ptx);
  std::string line;
  bool have_target = false, in_entry_header = false;
  std::smatch m;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind(".entry", 0) == 0 || line.rfind(".visible .entry", 0) == 0) {
      in_entry_header = true;
    } else if (in_entry_header && line == "{") {
      in_entry_header = false;
      if (maxnreg > 0) out.ptx += ".maxnreg " + std::to_string(maxnreg) + "\n";
    }
    if (std::regex_match(line, m, target)) {
      out.target_before = line;
      line = m[1].str() + ".target sm_90a" + m[2].str();
      have_target = true;
    } else if (std::regex_match(line, m, version)) {
      out.version_before = line;
      if (std::stoi(m[1]) < 8) line = ".version 8.0";
    } else if (line.find("SBW_") != std::string::npos && line.find("//") != std::string::npos) {
      if (std::regex_match(line, m, mma)) {
        // tf32 (k8) takes no transpose operands: both tiles must be K-major, as they are here.
        const bool tf32 = m[3].str() == "8";
        line = m[1].str() + "wgmma.mma_async.sync.aligned." + m[2].str() +
               (tf32 ? ".f32.tf32.tf32 " : ".f32.f16.f16 ") + m[4].str() + ", " + m[5].str() +
               ", " + m[6].str() + (tf32 ? ", 1, 1, 1;" : ", 1, 1, 1, 0, 0;");
        ++out.mma;
      } else if (std::regex_match(line, m, setmaxnreg)) {
        line = m[1].str() + "setmaxnreg." + m[2].str() + ".sync.aligned.u32 " + m[3].str() + ";";
        ++out.setmaxnreg;
      } else if (std::regex_match(line, m, wait)) {
        line = m[1].str() + "wgmma.wait_group.sync.aligned " + m[2].str() + ";";
        ++out.wait;
      } else if (std::regex_match(line, m, simple)) {
        const std::string what = m[2];
        if (what == "FENCE") {
          line = m[1].str() + "wgmma.fence.sync.aligned;";
          ++out.fence;
        } else if (what == "COMMIT") {
          line = m[1].str() + "wgmma.commit_group.sync.aligned;";
          ++out.commit;
        } else {
          line = m[1].str() + "fence.proxy.async.shared::cta;";
          ++out.proxy_fence;
        }
      } else if (out.error.empty()) {
        out.error = "unparsed marker: " + line;
      }
    }
    out.ptx += line;
    out.ptx += '\n';
  }
  if (!have_target && out.error.empty()) out.error = "no `.target sm_90` line in the PTX";
  return out;
}

}  // namespace sb::wgmma
