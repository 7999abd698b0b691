#include <gtest/gtest.h>

#include "probes/probe.h"

namespace sb {
namespace {

TEST(ProbeContext, HasEveryBlock) {
  const nlohmann::json context = probe_context({{"perf::TASK-CLOCK"}, false});
  for (const char* key : {"cpu", "memory", "os", "build", "papi", "opencl"}) {
    EXPECT_TRUE(context.contains(key)) << key;
  }
  EXPECT_TRUE(context["opencl"].contains("available"));
  EXPECT_TRUE(context["opencl"]["devices"].is_array());
  EXPECT_TRUE(context["papi"].contains("available"));
}

TEST(CpuProbe, FindsCoresAndModel) {
  const CpuInfo cpu = probe_cpu();
  EXPECT_GE(cpu.logical_cores, 1);
  EXPECT_GE(cpu.physical_cores, 1);
  EXPECT_LE(cpu.physical_cores, cpu.logical_cores);
  EXPECT_FALSE(cpu.model.empty());
  for (const auto& flag : cpu.flags) {
    EXPECT_TRUE(cpu.has(flag));
    EXPECT_NE(std::find(kCpuFlagsThatMatter.begin(), kCpuFlagsThatMatter.end(), flag),
              kCpuFlagsThatMatter.end())
        << flag;
  }
  EXPECT_FALSE(cpu.has("not_a_flag"));
}

TEST(MemoryProbe, AvailableIsAtMostTotal) {
  const MemoryInfo memory = probe_memory();
  EXPECT_GT(memory.total_bytes, 0u);
  EXPECT_LE(memory.available_bytes, memory.total_bytes);
}

TEST(OsProbe, NamesKernel) {
  const OsInfo os = probe_os();
  EXPECT_NE(os.kernel.find("Linux"), std::string::npos);
  EXPECT_FALSE(os.distro.empty());
  if (!os.hypervisor.empty()) {
    EXPECT_TRUE(os.virtualized);
  }
}

TEST(BuildProbe, HasGitAndCompiler) {
  const nlohmann::json build = to_json(probe_build());
  EXPECT_FALSE(build["git"].get<std::string>().empty());
  EXPECT_FALSE(build["compiler"].get<std::string>().empty());
  EXPECT_FALSE(build["type"].get<std::string>().empty());
  EXPECT_EQ(build["version"], "0.1.0");
}

}  // namespace
}  // namespace sb
