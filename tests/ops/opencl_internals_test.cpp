// What only the OpenCL backend has: device selection, its precisions and kernel limits, the
// caching allocator, the kernel log, fp16 conversion, the wgmma knob, and the training ops' own
// paths. The convolutions' paths are in opencl_conv_internals_test.cpp, gemm_batched's in
// opencl_gemm_batched_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <regex>
#include <set>
#include <string>

#include <unistd.h>

#include "models/ops/dropout_hash.h"
#include "models/ops/opencl/attention_mma_source.h"
#include "models/ops/opencl/device_select.h"
#include "models/ops/opencl/kernel_sources.h"
#include "models/ops/opencl/opencl_backend.h"
#include "models/ops/opencl/opencl_backend_impl.h"
#include "models/ops/opencl/weight_convert.h"
#include "tests/ops/op_case.h"
#include "tests/ops/opencl_fixture.h"
#include "tests/ops/test_backends.h"

namespace sb::testing {
namespace {

TEST(OpsOpenCLDevices, UnknownFilterThrowsNamingIt) {
  try {
    make_opencl_backend("no-such-device");
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-device"), std::string::npos) << e.what();
  }
}

// STAGEBENCH_CL_EVENTS=off: the same results with no event behind any command, so the kernel
// log stays empty; a value other than on or off fails the backend naming it.
TEST(OpsOpenCLEvents, OffComputesTheSameAndRecordsNothing) {
  ::setenv("STAGEBENCH_CL_EVENTS", "off", 1);
  std::unique_ptr<Backend> be;
  try {
    be = make_opencl_backend("");
  } catch (const std::exception& e) {
    ::unsetenv("STAGEBENCH_CL_EVENTS");
    GTEST_SKIP() << "no OpenCL device: " << e.what();
  }
  Tensor x = be->upload(std::vector<float>{1, -2, 3}, {3}), y = be->empty({3});
  be->activation(x, Act::relu, y);
  EXPECT_EQ(be->download(y), (std::vector<float>{1, 0, 3}));
  ASSERT_NE(be->kernel_log(), nullptr);
  be->kernel_log()->drain();
  EXPECT_TRUE(be->kernel_log()->kernels().empty());
  ::setenv("STAGEBENCH_CL_EVENTS", "sometimes", 1);
  try {
    make_opencl_backend("");
    ADD_FAILURE() << "sometimes accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("STAGEBENCH_CL_EVENTS=sometimes"), std::string::npos);
  }
  ::unsetenv("STAGEBENCH_CL_EVENTS");
}

TEST(OpsOpenCLSources, AFolderReplacesTheEmbeddedFilesItHolds) {
  const std::string embedded(compiled_in_cl_source("gemm_pack.cl"));
  // One folder a process: test binaries of other builds may run this test at the same time.
  const auto dir = std::filesystem::temp_directory_path() /
                   ("sb_cl_source_override_test." + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "gemm_pack.cl") << "// replaced";
  ::setenv("STAGEBENCH_CL_SOURCE_DIR", dir.c_str(), 1);
  EXPECT_EQ(embedded_cl_source("gemm_pack.cl"), "// replaced");
  EXPECT_EQ(embedded_cl_source("common.cl"), compiled_in_cl_source("common.cl"));  // not there
  EXPECT_THROW(embedded_cl_source("no_such.cl"), std::invalid_argument);
  ::unsetenv("STAGEBENCH_CL_SOURCE_DIR");
  EXPECT_EQ(embedded_cl_source("gemm_pack.cl"), embedded);
  std::filesystem::remove_all(dir);
}

// STAGEBENCH_CL_BINARIES: the first op builds the portable program, whose binary lands in the
// folder under the program's name (on NVIDIA, the PTX that ptxas -v reads; docs/method.md).
TEST(OpsOpenCLSources, ProgramBinariesAreWrittenWhereAsked) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("sb_cl_binaries_test." + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  // The caller's own setting (a device run collecting every program's PTX) comes back after.
  const char* outer = std::getenv("STAGEBENCH_CL_BINARIES");
  const std::string kept = outer ? outer : "";
  const auto restore = [&] {
    if (outer)
      ::setenv("STAGEBENCH_CL_BINARIES", kept.c_str(), 1);
    else
      ::unsetenv("STAGEBENCH_CL_BINARIES");
  };
  ::setenv("STAGEBENCH_CL_BINARIES", dir.c_str(), 1);
  std::unique_ptr<Backend> be;
  try {
    be = make_opencl_backend("");
  } catch (const std::exception& e) {
    restore();
    GTEST_SKIP() << "no OpenCL device: " << e.what();
  }
  Tensor x = be->upload(Vec{1, 2, 3, 4}, {4});
  be->add(x, x, x);
  EXPECT_EQ(be->download(x), (Vec{2, 4, 6, 8}));
  restore();
  const auto bin = dir / "portable.bin";
  ASSERT_TRUE(std::filesystem::exists(bin));
  EXPECT_GT(std::filesystem::file_size(bin), 0u);
  std::filesystem::remove_all(dir);
}

// The tensor-core attention kernels are one body a family instantiated per precision's row of
// a macro table (kernels/attention_{f16,tf32}_nvidia.cl). Only NVIDIA's compiler builds them, so
// here the text is checked: both rows define the same names, every name the bodies take from
// a row is in it, each is undefined after its precision's kernels (no row leaks into the next),
// and each kernel the host launches is instantiated once.
std::set<std::string> matches(const std::string& text, const std::string& pattern) {
  std::set<std::string> found;
  const std::regex re(pattern);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
       ++it)
    found.insert((*it)[1].str());
  return found;
}

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(OpsOpenCLSources, AttentionPrecisionsShareOneBodyAFamily) {
  const std::string f16(embedded_cl_source("attention_f16_nvidia.cl"));
  const std::string tf32(embedded_cl_source("attention_tf32_nvidia.cl"));
  const std::set<std::string> row = matches(f16, R"(#define (AT_\w+))");
  EXPECT_EQ(row, matches(tf32, R"(#define (AT_\w+))"));
  EXPECT_GT(row.size(), 10u);
  std::set<std::string> used;
  for (const char* body :
       {"attention_mma_body.cl", "attention_relative_body.cl", "attention_pack_body.cl"})
    for (const std::string& name :
         matches(std::string(embedded_cl_source(body)), R"(\b(AT_[A-Z0-9_]+))"))
      used.insert(name);
  used.erase("AT_FAST");  // each instance's, not a precision's
  for (const std::string& name : used) EXPECT_TRUE(row.count(name)) << name << " is in no row";
  const std::string program = attention_mma_source();
  for (const std::string& name : row)
    EXPECT_EQ(occurrences(program, "#undef " + name + "\n"), 2u) << name;
  for (const char* kernel : {"attention_f16_mma", "attention_f16_mma_x2", "attention_f16_direct",
                             "attention_f16_direct_plain", "attention_tf32_mma"})
    EXPECT_EQ(occurrences(program, std::string("#define FA_NAME ") + kernel + "\n"), 1u) << kernel;
  for (const char* kernel : {"rel_attention_f16_mma", "rel_attention_tf32_mma"})
    EXPECT_EQ(occurrences(program, std::string("#define RA_NAME ") + kernel + "\n"), 1u) << kernel;
  EXPECT_EQ(occurrences(program, "attention_pack_, AT_NAME)"), 2u);  // attention_pack_f16, _tf32
}

TEST(OpsOpenCLHalf, RoundsToNearestEven) {
  EXPECT_EQ(float_to_half_bits(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half_bits(-2.0f), 0xc000);
  EXPECT_EQ(float_to_half_bits(0.1f), 0x2e66);
  EXPECT_EQ(float_to_half_bits(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_half_bits(65520.0f), 0x7c00);                      // ties up to inf
  EXPECT_EQ(float_to_half_bits(1.0f + std::ldexp(1.0f, -11)), 0x3c00);  // tie -> even
  EXPECT_EQ(float_to_half_bits(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  EXPECT_EQ(float_to_half_bits(std::ldexp(1.0f, -24)), 0x0001);      // smallest subnormal
  EXPECT_EQ(float_to_half_bits(std::ldexp(1.0f, -25)), 0x0000);      // tie -> even (0)
  EXPECT_EQ(float_to_half_bits(3 * std::ldexp(1.0f, -25)), 0x0002);  // 1.5 units -> 2
  EXPECT_EQ(float_to_half_bits(std::ldexp(1.0f, -14)), 0x0400);      // smallest normal
  EXPECT_EQ(float_to_half_bits(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(float_to_half_bits(std::nanf("")) & 0x7c00, 0x7c00);
  EXPECT_NE(float_to_half_bits(std::nanf("")) & 0x03ff, 0);
  for (float v : {1.0f, -0.5f, 0.1f, 65504.0f, std::ldexp(3.0f, -24)})
    EXPECT_NEAR(half_bits_to_float(float_to_half_bits(v)), v, std::fabs(v) * 1e-3);
}

TEST_F(OpsOpenCL, PrecisionsAndKernelLimits) {
  EXPECT_EQ(be->name(), "opencl");
  EXPECT_EQ(be->unsupported_reason(Precision::f32), "");
  EXPECT_EQ(be->unsupported_reason(Precision::f16), "");
  EXPECT_EQ(be->unsupported_reason(Precision::int8), "");
  EXPECT_EQ(be->unsupported_reason(Precision::bf16), "use fp16 on OpenCL");
  if (!be->has_mma()) {
    EXPECT_NE(be->unsupported_reason(Precision::tf32), "");
  }
  EXPECT_THROW(be->prepare_weight(Vec(6), 2, 3, Precision::bf16), std::invalid_argument);
  // A valid call beyond the kernels: the widest fused attention is 128 wide.
  AttentionShape s;
  s.batch = 1, s.n = 4, s.heads = 1, s.dh = 129, s.ld_q = s.ld_k = s.ld_v = s.ld_out = 129;
  Tensor x = be->empty({1, 4, 129}), out = be->empty({1, 4, 129});
  try {
    be->attention_fused(s, x, x, x, nullptr, out);
    FAIL() << "expected std::invalid_argument for dh 129";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("dh = 129"), std::string::npos) << e.what();
  }
}

// The fused attention kernels' local memory: the compiler reports at least what the host
// reckons (local_bytes(), its __local arrays) and may add its own (NVIDIA adds 16 bytes), never
// more than kCompilerLocalSlack, which the program's choice of variants allows for; and the
// kernel chosen for every head width fits the device.
TEST_F(OpsOpenCL, FusedAttentionKernelsDeclareTheLocalMemoryTheHostReckons) {
  const std::vector<std::string> built = be->portable_kernel_names();
  const uint64_t limit = be->kernel_local_mem_limit();
  int checked = 0;
  for (const FusedAttentionKernel& k : kFusedAttentionKernels) {
    if (std::find(built.begin(), built.end(), k.name) == built.end()) continue;
    const uint64_t reported = be->kernel_local_mem_bytes(k.name);
    EXPECT_GE(reported, k.local_bytes()) << k.name;
    EXPECT_LE(reported, k.local_bytes() + kCompilerLocalSlack) << k.name;
    ++checked;
  }
  EXPECT_GT(checked, 3);
  for (int64_t dh : {1, 16, 17, 32, 48, 64, 100, 128}) {
    const std::string chosen = be->fused_attention_choice(dh);
    ASSERT_FALSE(chosen.empty()) << "dh " << dh;
    EXPECT_LE(be->kernel_local_mem_bytes(chosen), limit) << chosen << " for dh " << dh;
  }
}

// A device with OpenCL's minimum 32 KiB of local memory (Oclgrind's) runs dh 128 on a kernel
// that fits it; the first dh-128 kernel declares 49,216 bytes, and Oclgrind refused its launch.
TEST(OpsOpenCLLocalMemory, HeadsOf128RunOnAKernelThatFits32KiB) {
  ::setenv("STAGEBENCH_CL_LOCAL_MEM_LIMIT", "32768", 1);
  std::unique_ptr<Backend> made;
  try {
    made = make_opencl_backend("");
  } catch (const std::exception& e) {
    ::unsetenv("STAGEBENCH_CL_LOCAL_MEM_LIMIT");
    GTEST_SKIP() << "no OpenCL device: " << e.what();
  }
  ::unsetenv("STAGEBENCH_CL_LOCAL_MEM_LIMIT");
  auto* be = static_cast<OpenCLBackend*>(made.get());
  const int64_t n = 5, dh = 128;
  AttentionShape s;
  s.batch = 1, s.n = n, s.heads = 1, s.dh = dh, s.scale = 0.1f;
  s.ld_q = s.ld_k = s.ld_v = s.ld_out = dh;
  const Vec qkv = random_vec(n * dh, 60);
  const Tensor x = be->upload(qkv, {1, n, dh});
  Tensor out = be->empty({1, n, dh});
  be->attention_fused(s, x, x, x, nullptr, out);
  EXPECT_EQ(compare({"out", be->download(out), attention_ref(s, qkv, qkv, qkv, {})}), "");
  int launched = 0;
  be->kernel_log()->drain();
  for (const auto& [name, totals] : be->kernel_log()->kernels()) {
    if (name.rfind("attention_fused", 0) != 0) continue;
    EXPECT_LE(be->kernel_local_mem_bytes(name), 32768u) << name;
    ++launched;
  }
  EXPECT_EQ(launched, 1);
}

TEST_F(OpsOpenCL, FreedBuffersServeTheNextAllocationOfTheirSize) {
  const uint64_t before = be->memory().device->live();
  {
    const Tensor t = be->upload(random_vec(37, 1), {37});
    const Tensor h = be->empty({3, 5}, DType::f16);
    EXPECT_EQ(be->memory().device->live(), before + 37 * 4 + 30);
  }
  EXPECT_EQ(be->memory().device->live(), before);
  const uint64_t pooled = be->pooled_bytes();
  EXPECT_GE(pooled, 37u * 4 + 30);
  const Tensor again = be->empty({37});
  EXPECT_EQ(be->pooled_bytes(), pooled - 37 * 4);
}

TEST_F(OpsOpenCL, KernelLogTimesLaunchesAndTransfers) {
  KernelLog* log = be->kernel_log();
  ASSERT_NE(log, nullptr);
  log->clear();
  const Tensor x = be->upload(random_vec(8 * 16, 34), {8, 16});
  const Weight w = be->prepare_weight(random_vec(16 * 16, 35), 16, 16, Precision::f32);
  Tensor y = be->empty({8, 16});
  be->linear(x, w, y);
  be->softmax_rows(y);
  be->softmax_rows(y);
  be->synchronize();
  log->drain();
  const auto& kernels = log->kernels();
  ASSERT_TRUE(kernels.count("softmax_rows"));
  EXPECT_EQ(kernels.at("softmax_rows").launches, 2u);
  EXPECT_GT(kernels.at("softmax_rows").total_ns, 0u);
  ASSERT_TRUE(kernels.count("clblast_gemm"));
  EXPECT_EQ(kernels.at("clblast_gemm").launches, 1u);
  EXPECT_EQ(log->h2d_bytes(), (8 * 16 + 16 * 16) * 4u);
  be->download(y);
  EXPECT_EQ(log->d2h_bytes(), 8 * 16 * 4u);
}

// The wgmma path (issue 27) is offered only to a device with NVIDIA's tensor cores and compute
// capability 9.0: PoCL (CI's device) never takes it. An f16 linear there runs the portable
// kernel and logs no tensor-core GEMM, so its stage's gemm_path stays null.
TEST_F(OpsOpenCL, DevicesWithoutNvidiaTensorCoresNeverPickWgmma) {
  if (be->has_mma()) GTEST_SKIP() << "an NVIDIA device: the wgmma choice is checked on the GPU";
  EXPECT_FALSE(be->has_wgmma());
  EXPECT_EQ(be->gemm_paths(), "");
  KernelLog* log = be->kernel_log();
  log->clear();
  const Tensor x = be->upload(random_vec(130 * 64, 36), {130, 64});
  const Weight w = be->prepare_weight(random_vec(72 * 64, 37), 72, 64, Precision::f16);
  Tensor y = be->empty({130, 72});
  be->linear(x, w, y);
  be->synchronize();
  log->drain();
  EXPECT_TRUE(log->gemms().empty());
  ASSERT_FALSE(log->kernels().empty());
  for (const auto& [name, totals] : log->kernels())
    EXPECT_EQ(name.find("wgmma"), std::string::npos);
}

// STAGEBENCH_WGMMA is read when the backend is made: a value it does not know is bad input
// before anything runs, and off is recorded where there was a choice to make (NVIDIA's
// tensor cores), nothing where there was none (PoCL).
TEST(OpsOpenCLWgmmaKnob, UnknownValueFailsTheBackendAndOffIsAccepted) {
  ::setenv("STAGEBENCH_WGMMA", "maybe", 1);
  bool threw = false;
  try {
    make_opencl_backend("");
  } catch (const std::invalid_argument& e) {
    threw = std::string(e.what()).find("STAGEBENCH_WGMMA=maybe") != std::string::npos;
  } catch (const std::exception& e) {
    ::unsetenv("STAGEBENCH_WGMMA");
    GTEST_SKIP() << "no OpenCL device: " << e.what();
  }
  EXPECT_TRUE(threw);
  ::setenv("STAGEBENCH_WGMMA", "off", 1);
  std::unique_ptr<Backend> made = make_opencl_backend("");
  ::unsetenv("STAGEBENCH_WGMMA");
  auto* off = static_cast<OpenCLBackend*>(made.get());
  EXPECT_FALSE(off->has_wgmma());
  if (off->has_mma())  // conv3d's path follows (conv3d_igemm.cpp)
    EXPECT_EQ(
        off->gemm_paths().rfind("fp16: mma.sync (wgmma off: STAGEBENCH_WGMMA=off); conv3d: ", 0),
        0u)
        << off->gemm_paths();
  else
    EXPECT_EQ(off->gemm_paths(), "");
}

// Training ops: what the op table does not pin down on this backend.

TEST_F(OpsOpenCL, WritesCountAsTransfersAndQueuedWritesLand) {
  KernelLog* log = be->kernel_log();
  log->clear();
  Tensor t = be->empty({2, 3});
  const Vec a = {1, 2, 3, 4, 5, 6};
  be->write(a, t);
  EXPECT_EQ(be->download(t), a);
  const Vec b = {6, 5, 4, 3, 2, 1};
  be->write(b, t, /*blocking=*/false);
  be->synchronize();
  EXPECT_EQ(be->download(t), b);
  Tensor ids = be->empty({4}, DType::i32);
  const std::vector<int32_t> ih = {3, 0, 2, 1};
  be->write_ids(ih, ids);
  EXPECT_EQ(log->h2d_bytes(), (6 + 6 + 4) * 4u);
}

TEST_F(OpsOpenCL, DropoutMaskIsTheSharedHash) {
  const int64_t n = 70000;
  const Vec xh(n, 1.f);
  const Tensor x = be->upload(xh, {n});
  Tensor y = be->empty({n});
  const DropoutKey key{0.3f, 0x123456789abcdefull, 77};
  be->dropout(x, key, y);
  const Vec got = be->download(y);
  const uint32_t k = dropout_key32(key), threshold = dropout_threshold(key.p);
  int64_t mismatches = 0, kept = 0;
  for (int64_t i = 0; i < n; ++i) {
    const bool keep = dropout_keep(k, threshold, static_cast<uint64_t>(i));
    kept += keep;
    mismatches += got[i] != (keep ? dropout_scale(key.p) : 0.f);
  }
  EXPECT_EQ(mismatches, 0);
  EXPECT_NEAR(static_cast<double>(kept) / n, 0.7, 0.01);
}

TEST_F(OpsOpenCL, TrainingReductionsRepeatBitForBit) {
  // Many chunks for sum_squares, repeated ids for embedding_backward, repeated columns for
  // scatter_add_cols: the same bits on every run.
  const int64_t n = 300001;
  const Vec xh = random_vec(n, 63);
  const Tensor x = be->upload(xh, {n});
  Tensor out = be->empty({3});
  be->fill(out, 0.f);
  be->sum_squares(x, out, 1);
  double want = 0;
  for (float v : xh) want += static_cast<double>(v) * v;
  const Vec first = be->download(out);
  EXPECT_NEAR(first[1], want, want * 1e-6);
  EXPECT_EQ(first[0], 0.f);
  be->sum_squares(x, out, 1);
  EXPECT_EQ(be->download(out), first);

  const int64_t vocab = 5, dim = 3, tokens = 400;
  std::vector<int32_t> ih(tokens);
  for (int64_t t = 0; t < tokens; ++t) ih[t] = static_cast<int32_t>((t * 7) % vocab);
  const Tensor ids = be->upload_ids(ih, {4, tokens / 4});
  const Vec dyh = random_vec(tokens * dim, 64);
  const Tensor dy = be->upload(dyh, {4, tokens / 4, dim});
  Tensor dtable = be->empty({vocab, dim});
  be->fill(dtable, 1.f);
  be->embedding_backward(dy, ids, dtable);
  Vec serial(vocab * dim, 1.f);  // the serial loop's order
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t d = 0; d < dim; ++d) serial[ih[t] * dim + d] += dyh[t * dim + d];
  EXPECT_EQ(be->download(dtable), serial);

  const std::vector<int64_t> index = {2, 0, 2, 2, 1};
  const Vec yh = random_vec(3 * 5, 65);
  const Tensor yt = be->upload(yh, {3, 5});
  Tensor xt = be->upload(Vec(3 * 4, 0.5f), {3, 4});
  be->scatter_add_cols(yt, index, xt);
  Vec xs(3 * 4, 0.5f);
  for (int64_t r = 0; r < 3; ++r)
    for (size_t j = 0; j < index.size(); ++j) xs[r * 4 + index[j]] += yh[r * 5 + j];
  EXPECT_EQ(be->download(xt), xs);
}

// NVIDIA only from here: the inline-PTX tensor-core kernels.

TEST_F(OpsOpenCL, CalibratedInt8TensorCoresClipOutsideTheRange) {
  if (!be->has_mma()) GTEST_SKIP() << be->device() << " has no mma.sync path";
  const int64_t m = 70, n = 67, k = 45;  // off the 128 x 128 tiles and the 32-wide K steps
  const Vec xh = random_vec(m * k, 46), wh = random_vec(n * k, 47), bh = random_vec(n, 48);
  const Tensor x = be->upload(xh, {m, k}), bias = be->upload(bh, {n});
  Weight w = be->prepare_weight(wh, n, k, Precision::int8);
  w.input_lo = -1.f, w.input_hi = 1.f;  // the range random_vec draws from
  Tensor y = be->empty({m, n});
  be->linear(x, w, y, {&bias, Act::none, nullptr});
  const DVec want = linear_ref(xh, wh, m, n, k, &bh, Act::none, nullptr);
  EXPECT_EQ(compare({"y", be->download(y), want, Precision::int8, 2e-2}), "");
  // A range of a tenth clips the inputs: the product must move far from the unclipped one.
  w.input_lo = -0.1f, w.input_hi = 0.1f;
  be->linear(x, w, y, {&bias, Act::none, nullptr});
  EXPECT_NE(compare({"y", be->download(y), want, Precision::int8, 0.2}), "");
}

// fp16 and tf32 flash attention over packed QKV rows: n off the 64-query and 64-key tiles,
// the second cell padded.
TEST_F(OpsOpenCL, AttentionOnTensorCoresFp16AndTf32) {
  if (!be->has_mma()) GTEST_SKIP() << be->device() << " has no mma.sync path";
  const int64_t batch = 2, n = 150, heads = 2, dh = 64, d = heads * dh;
  const Vec qkv = random_vec(batch * n * 3 * d, 49);
  Vec bias(batch * n, 0.f);
  for (int64_t j = 100; j < n; ++j) bias[n + j] = kMaskedLogit;
  const Tensor packed = be->upload(qkv, {batch, n, 3 * d}), key_bias = be->upload(bias, {batch, n});
  for (const auto& [p, tolerance] : {std::pair{Precision::f16, 5e-3}, {Precision::tf32, 2e-3}}) {
    AttentionShape s{batch, n, heads, dh, 0.125f, 3 * d, 3 * d, 3 * d, d, 0, d, 2 * d, p};
    Tensor out = be->empty({batch, n, d});
    be->attention_fused(s, packed, packed, packed, &key_bias, out);
    const DVec want = attention_ref(s, qkv, qkv, qkv, bias);
    EXPECT_EQ(compare({"out", be->download(out), want, p, tolerance}), "") << precision_name(p);
  }
}

// The key tiles past an item's last unmasked key are skipped (STAGEBENCH_ATTENTION_TRIM, on by
// default): the second cell keeps 90 of 300 keys, so 3 of its 5 tiles go. Their weights are
// exactly 0, so the output must equal the untrimmed kernel's bit for bit, in both precisions.
TEST_F(OpsOpenCL, AttentionSkipsTheKeyTilesTheMaskRemovesBitForBit) {
  if (!be->has_mma()) GTEST_SKIP() << be->device() << " has no mma.sync path";
  const int64_t batch = 2, n = 300, heads = 2, dh = 64, d = heads * dh;
  const Vec qkv = random_vec(batch * n * 3 * d, 50);
  Vec bias(batch * n, 0.f);
  for (int64_t j = 90; j < n; ++j) bias[n + j] = kMaskedLogit;
  const Tensor packed = be->upload(qkv, {batch, n, 3 * d}), key_bias = be->upload(bias, {batch, n});
  for (const auto& [p, tolerance] : {std::pair{Precision::f16, 5e-3}, {Precision::tf32, 2e-3}}) {
    AttentionShape s{batch, n, heads, dh, 0.125f, 3 * d, 3 * d, 3 * d, d, 0, d, 2 * d, p};
    Tensor trimmed = be->empty({batch, n, d}), full = be->empty({batch, n, d});
    be->attention_fused(s, packed, packed, packed, &key_bias, trimmed);
    setenv("STAGEBENCH_ATTENTION_TRIM", "off", 1);
    be->attention_fused(s, packed, packed, packed, &key_bias, full);
    unsetenv("STAGEBENCH_ATTENTION_TRIM");
    EXPECT_EQ(be->download(trimmed), be->download(full)) << precision_name(p);
    const DVec want = attention_ref(s, qkv, qkv, qkv, bias);
    EXPECT_EQ(compare({"out", be->download(trimmed), want, p, tolerance}), "") << precision_name(p);
  }
}

// Enformer's relative attention on fp16 and tf32 tensor cores: n off the 64-query and 64-key
// tiles (the relative band then reaches past both ends of rel_k), a narrow and the widest value
// size.
TEST_F(OpsOpenCL, RelativeAttentionOnTensorCoresFp16AndTf32) {
  if (!be->has_mma()) GTEST_SKIP() << be->device() << " has no mma.sync path";
  for (const auto& [p, dv] : {std::pair{Precision::f16, int64_t{48}},
                              {Precision::f16, 192},
                              {Precision::tf32, 48},
                              {Precision::tf32, 192}}) {
    RelAttentionInputs in({2, 150, 2, 64, dv, p});
    for (float& x : in.q) x *= 0.125f;  // scaled by dk^-1/2, as the model does
    const auto& s = in.s;
    const int64_t hk = s.heads * s.dk, hv = s.heads * s.dv;
    Tensor out = be->empty({s.batch, s.n, hv});
    be->rel_attention_fused(
        s, be->upload(in.q, {s.batch, s.n, hk}), be->upload(in.k, {s.batch, s.n, hk}),
        be->upload(in.v, {s.batch, s.n, hv}), be->upload(in.rel_k, {2 * s.n - 1, hk}),
        be->upload(in.content_bias, {hk}), be->upload(in.pos_bias, {hk}), out);
    EXPECT_EQ(compare({"out", be->download(out), in.reference(), p, 1e-2}), "")
        << precision_name(p) << ", dv " << dv;
  }
}

// conv1d on the tensor cores reads its input in place (no im2col columns; int8 quantizes it by
// its own range): sequences of 150
// (rows across 128-row tiles, sequence ends inside them) and of 7 (shorter than the rows one item
// steps over), with and without an input transform (tf32 without one reads the fp32 input
// itself).
TEST_F(OpsOpenCL, Conv1dIsAnImplicitGemmOnTensorCores) {
  if (!be->has_mma()) GTEST_SKIP() << be->device() << " has no mma.sync path";
  for (const int64_t len : {150, 7}) {
    const int64_t batch = 2, c = 128, n = 72, m = batch * len;
    const int k = 5;
    const Vec x = random_vec(m * c, 50), w = random_vec(n * k * c, 51, -0.2f, 0.2f);
    const Vec scale = random_vec(c, 52, 0.5f, 1.5f), shift = random_vec(c, 53),
              b = random_vec(n, 54);
    const Tensor xt = be->upload(x, {batch, len, c}), st = be->upload(scale, {c}),
                 ht = be->upload(shift, {c}), bt = be->upload(b, {n});
    for (const Precision p : {Precision::f16, Precision::tf32, Precision::int8})
      for (const bool transformed : {false, true}) {
        const Weight weight = be->prepare_weight(w, n, k * c, p);  // int8: uncalibrated
        EXPECT_FALSE(be->conv1d_gathers_columns(k, weight, c)) << precision_name(p);
        EXPECT_TRUE(be->conv1d_gathers_columns(k, weight, 4)) << "4 channels: not a K tile";
        InputTransform t;
        if (transformed) t = {&st, &ht, Act::gelu};
        Tensor y = be->empty({batch, len, n});
        be->conv1d(xt, k, weight, y, {&bt, Act::relu, nullptr}, t);
        const DVec want = conv1d_ref(x, batch, len, c, k, w, n, transformed ? &scale : nullptr,
                                     transformed ? &shift : nullptr,
                                     transformed ? Act::gelu : Act::none, &b, Act::relu, nullptr);
        EXPECT_EQ(compare({"y", be->download(y), want, p, p == Precision::int8 ? 3e-2 : 1e-2}), "")
            << precision_name(p) << (transformed ? ", transformed" : "") << ", length " << len;
      }
  }
}

}  // namespace
}  // namespace sb::testing
