#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "probes/probe.h"

namespace sb {
namespace {

// ocl-icd finds vendors through OCL_ICD_VENDORS; an empty directory means no platform at all.
TEST(OpenCLAbsent, ReportsUnavailableWithReason) {
  char dir_template[] = "/tmp/sb_no_icd_XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  ASSERT_EQ(setenv("OCL_ICD_VENDORS", dir_template, 1), 0);
  OpenCLInfo opencl;
  ASSERT_NO_THROW(opencl = probe_opencl_info(true));
  std::filesystem::remove(dir_template);
  EXPECT_FALSE(opencl.available);
  EXPECT_TRUE(opencl.devices.empty());
  EXPECT_FALSE(opencl.reason.empty());
  const nlohmann::json json = to_json(opencl);
  EXPECT_EQ(json["available"], false);
  EXPECT_TRUE(json["reason"].is_string());
}

}  // namespace
}  // namespace sb
