#include <gtest/gtest.h>

#include "probes/probe.h"

namespace sb {
namespace {

// Compile probes only run on NVIDIA, so this never builds a program here.
TEST(OpenCLProbe, DevicesAreDescribed) {
  OpenCLInfo opencl;
  ASSERT_NO_THROW(opencl = probe_opencl_info(true));
  EXPECT_EQ(opencl.available, !opencl.devices.empty());
  if (!opencl.available) {
    EXPECT_FALSE(opencl.reason.empty());
  }
  for (const auto& device : opencl.devices) {
    EXPECT_FALSE(device.name.empty());
    EXPECT_FALSE(device.platform.empty());
    EXPECT_GT(device.timer_resolution_ns, 0u);
    EXPECT_GT(device.compute_units, 0u);
    EXPECT_GE(device.global_mem_bytes, device.max_alloc_bytes);
    if (!device.is_nvidia) {
      EXPECT_FALSE(device.ptx_inline);
    }
  }
}

OpenCLDeviceInfo fake_device(int platform, int index, std::string platform_name, std::string name,
                             std::string type) {
  OpenCLDeviceInfo device;
  device.platform_index = platform;
  device.device_index = index;
  device.platform = std::move(platform_name);
  device.name = std::move(name);
  device.type = std::move(type);
  return device;
}

TEST(SelectOpenCLDevice, FiltersByDefaultIndexAndName) {
  const std::vector<OpenCLDeviceInfo> devices = {
      fake_device(0, 0, "Portable Computing Language", "pthread-skylake", "cpu"),
      fake_device(1, 0, "NVIDIA CUDA", "NVIDIA H100 80GB HBM3", "gpu"),
      fake_device(1, 1, "NVIDIA CUDA", "NVIDIA H200", "gpu")};
  EXPECT_EQ(select_opencl_device(devices, ""), &devices[1]);
  EXPECT_EQ(select_opencl_device(devices, "1:1"), &devices[2]);
  EXPECT_EQ(select_opencl_device(devices, "0:0"), &devices[0]);
  EXPECT_EQ(select_opencl_device(devices, "2:0"), nullptr);
  EXPECT_EQ(select_opencl_device(devices, "h200"), &devices[2]);
  EXPECT_EQ(select_opencl_device(devices, "portable"), &devices[0]);
  EXPECT_EQ(select_opencl_device(devices, "AMD"), nullptr);
  EXPECT_EQ(select_opencl_device({}, ""), nullptr);
  const std::vector<OpenCLDeviceInfo> cpu_only = {devices[0]};
  EXPECT_EQ(select_opencl_device(cpu_only, ""), &cpu_only[0]);
}

}  // namespace
}  // namespace sb

#ifdef STAGEBENCH_HAVE_OPENCL
#include "probes/opencl_select.h"

namespace sb {
namespace {

TEST(SelectClDevice, ReturnsTheProbedDeviceOrThrows) {
  const OpenCLInfo opencl = probe_opencl_info(false);
  EXPECT_THROW(select_cl_device("no-such-device-anywhere"), std::runtime_error);
  if (!opencl.available) GTEST_SKIP() << opencl.reason;
  const OpenCLDeviceInfo* expected = select_opencl_device(opencl.devices, "");
  ASSERT_NE(expected, nullptr);
  EXPECT_EQ(select_cl_device("").getInfo<CL_DEVICE_NAME>(), expected->name);
  EXPECT_EQ(select_cl_device("0:0").getInfo<CL_DEVICE_NAME>(), opencl.devices[0].name);
}

}  // namespace
}  // namespace sb
#endif
