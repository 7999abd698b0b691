// The wgmma variants' table (opencl_backend_impl.h, gemm34): ids that the programs and kernels are
// keyed by, the original two reachable by their widths (gemm_batched_mma.cpp's split products name
// them so), every variant's ring within an sm_90 work-group's local memory, and a register cap
// only where it lets two work-groups share an SM; the pipeline variants' names, rings, and which
// of them the program for a device before sm_90 leaves out. No device needed.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>

#include "models/ops/opencl/opencl_backend_impl.h"

namespace sb {
namespace {

TEST(WgmmaVariants, IdsAreUniqueAndTheOriginalTwoAreTheirWidths) {
  std::set<int> ids;
  int originals = 0;
  for (const WgmmaVariant& v : kWgmmaVariants) {
    EXPECT_TRUE(ids.insert(v.id).second) << v.name;
    EXPECT_TRUE(v.bn == 128 || v.bn == 256) << v.name;
    if (v.id == v.bn) ++originals;
    EXPECT_GE(v.ahead(), 1) << v.name << ": the ring must keep a K tile in flight";
  }
  EXPECT_EQ(originals, 2);
}

TEST(WgmmaVariants, RingsFitAWorkGroupAndCapsAllowTwoAnSm) {
  constexpr int kMaxLocal = 227 * 1024;    // sm_90's largest work-group allocation
  constexpr int kSmLocal = 228 * 1024;     // an SM's, shared by its work-groups
  constexpr int kReservedPerGroup = 1024;  // the driver's own per work-group
  constexpr int kSmRegisters = 65536, kThreads = 256;
  for (const WgmmaVariant& v : kWgmmaVariants) {
    // gemm_wgmma.cl: WG_STAGES x (128 + WG_BN) rows of 64 halves, and 64 spare 16-byte chunks
    // to reach a 1024-byte boundary.
    const int bytes = v.stages * (128 + v.bn) * 64 * 2 + 64 * 16;
    EXPECT_LE(bytes, kMaxLocal) << v.name;
    if (v.ws) {
      // gemm35: 384 items under the cap, and setmaxnreg's split (gemm_wgmma_ws.cl: the producer's
      // 128 items at 40, the consumers' 256 at 232) within the SM's registers; one an SM.
      EXPECT_EQ(v.threads(), 384) << v.name;
      EXPECT_LE(v.threads() * v.maxnreg, kSmRegisters) << v.name;
      EXPECT_EQ(v.maxnreg % 8, 0) << v.name << ": setmaxnreg counts in 8s";
      EXPECT_LE(128 * 40 + 256 * 232, kSmRegisters);
      EXPECT_GE(v.ahead(), 2) << v.name;
    } else if (v.maxnreg > 0) {
      EXPECT_EQ(v.threads(), kThreads) << v.name;
      EXPECT_LE(2 * (bytes + kReservedPerGroup), kSmLocal) << v.name << ": capped for 2 an SM";
      EXPECT_LE(2 * kThreads * v.maxnreg, kSmRegisters) << v.name;
    }
    if (v.persist) {
      EXPECT_TRUE(v.ws) << v.name;
    }
  }
}

TEST(WgmmaVariants, TilesNameTheirVariants) {
  const std::vector<PipeTile> tiles = wgmma_tiles();
  const std::vector<WgmmaVariant> built = wgmma_variants();
  ASSERT_EQ(tiles.size(), built.size());
  // The knob is read once per process; unset in tests, it is on: every variant is a candidate.
  EXPECT_EQ(tiles.size(), std::size(kWgmmaVariants));
  for (size_t i = 0; i < tiles.size(); ++i) {
    EXPECT_TRUE(tiles[i].wgmma);
    EXPECT_EQ(tiles[i].id, built[i].id);
    EXPECT_EQ(tiles[i].bn, built[i].bn);
  }
}

// gemm36: the tf32 variants are the warp-specialized f16 ones on fp32 operands, and a persistent
// variant's other calls go to a built, non-persistent variant of its own precision.
TEST(WgmmaVariants, Tf32VariantsAreWarpSpecializedAndFallBackWithinTheirPrecision) {
  int tf32 = 0;
  for (const WgmmaVariant& v : kWgmmaVariants) {
    EXPECT_EQ(wgmma_is_tf32(v.id), v.tf32) << v.name;
    EXPECT_EQ(std::string(v.name).rfind(v.tf32 ? "wgmma_tf32_" : "wgmma_f16_", 0), 0u) << v.name;
    if (!v.tf32) continue;
    ++tf32;
    EXPECT_TRUE(v.ws) << v.name << ": only the warp-specialized kernels have a tf32 form";
    EXPECT_NE(v.id, v.bn) << v.name << ": the ids that are widths name the f16 originals";
  }
  EXPECT_EQ(tf32, 3);
  EXPECT_TRUE(wgmma_is_tf32(kWgmmaTf32Fallback));
  EXPECT_FALSE(wgmma_is_tf32(kWgmmaF16Fallback));
  EXPECT_FALSE(wgmma_plain_only(kWgmmaTf32Fallback));
  EXPECT_FALSE(wgmma_plain_only(kWgmmaF16Fallback));
}

TEST(PipeRing, ThreeByDefaultFourOnRequestElseRefused) {
  EXPECT_EQ(parse_pipe_ring(nullptr), 3);
  EXPECT_EQ(parse_pipe_ring(""), 3);
  EXPECT_EQ(parse_pipe_ring("3"), 3);
  EXPECT_EQ(parse_pipe_ring("4"), 4);
  EXPECT_THROW(parse_pipe_ring("5"), std::invalid_argument);
  EXPECT_THROW(parse_pipe_ring("on"), std::invalid_argument);
}

// mma37: the mma.sync pipeline's kernels are named apart (STAGEBENCH_PIPE_ONLY and the program
// find them by name), and the f16 forms' rings fit a work-group's local memory: a ring of 4 for
// the spread and pair forms (gemm_pipe_body.cl), of K tiles of 128 bytes a row.
TEST(PipeVariants, NamesAreDistinctAndTheF16FormsRingsFit) {
  constexpr int kMaxLocal = 227 * 1024;
  std::set<std::string> names;
  for (const char* kind : {"f16", "tf32", "s8"})
    for (const PipeTile t : kPipeTiles) EXPECT_TRUE(names.insert(pipe_kernel_name(kind, t)).second);
  EXPECT_TRUE(names.contains("gemm_f16_pipe_256_db"));  // the old default keeps its name
  for (const PipeTile t : kPipeTilesF16) {
    const std::string name = pipe_kernel_name("f16", t);
    EXPECT_TRUE(names.insert(name).second) << name;
    EXPECT_FALSE(t.wgmma) << name;
    EXPECT_TRUE(t.double_buffered) << name << ": the new loops are the double-buffered one's";
    EXPECT_TRUE(!t.spread || t.fast) << name << ": the spread copies are the set-up ones";
    // mma38: the steady loop is the spread loop's part (PIPE_CLEAN needs PIPE_SPREAD), and a
    // weave puts an item's A_PER + B_PER copies of a tile after three k steps' 4 rows of mma
    // (the kernel's #error checks it too, and that PIPE_CLEAN 3 has one B pair a row).
    EXPECT_TRUE(t.clean == 0 || t.spread) << name;
    EXPECT_TRUE(t.clean < 2 || (128 + t.bn) * 8 / t.threads() == 3 * 4) << name;
    EXPECT_GE(t.raster, 0) << name;
    // mma39: the bulk forms' rows are padded to 144 bytes, with an mbarrier (two for bulk 2) a slot
    const int ring = t.ring ? t.ring : t.pair || t.spread || t.bulk ? 4 : 3;
    const int row_bytes = t.bulk && !t.packed ? 144 : 128;
    EXPECT_LE(ring * ((128 + t.bn) * row_bytes + 16), kMaxLocal) << name;
    EXPECT_TRUE(t.bulk == 0 || (!t.spread && !t.pair && !t.fast && t.clean == 0)) << name;
    EXPECT_TRUE(!t.packed || (t.bulk > 0 && t.bn % 128 == 0)) << name;  // 128-row blocks
    EXPECT_EQ(t.threads(), 2 * t.bn / 64 * 32) << name;
  }
  EXPECT_TRUE(names.contains("gemm_f16_pipe_256_spread_db"));
  EXPECT_TRUE(names.contains("gemm_f16_pipe_256_spread_wv_r8_db"));
  EXPECT_TRUE(names.contains("gemm_f16_pipe_256_spread_wl_db"));
  // mma40: of mma39's packed forms, the one in bands of 8 tile rows (the others in the probe)
  EXPECT_TRUE(names.contains("gemm_f16_pipe_256_r8_bulk2_pk_db"));
  EXPECT_FALSE(names.contains("gemm_f16_pipe_256_bulk_pk_db"));
  EXPECT_FALSE(names.contains("gemm_f16_pipe_256_bulk2_pk_db"));
  EXPECT_EQ(pipe_kernel_name("f16", PipeTile{256, true, false, 0, false, false, false, 0, 0, 1, 3}),
            "gemm_f16_pipe_256_bulk_ring3_db");  // the probe's name for its ring of 3
}

// The NVIDIA program for a device before sm_90 (A100, L4: mma.sync is their path) has none of
// the bulk-copy variants, and the sm_90 PTX their helpers hold (which its compiler would refuse
// for the whole program) stands only inside the PIPE_HAS_BULK block, which it does not define;
// the program for sm_90 defines it and has every variant.
TEST(PipeVariants, BulkCopyFormsOnlyInTheProgramForSm90) {
  const std::string before = mma_program_source(false), hopper = mma_program_source(true);
  const std::string define = "#define PIPE_HAS_BULK 1";
  EXPECT_EQ(before.find(define), std::string::npos);
  EXPECT_NE(hopper.find(define), std::string::npos);
  const size_t open = before.find("#ifdef PIPE_HAS_BULK"),
               close = before.find("#endif  // PIPE_HAS_BULK");
  ASSERT_NE(open, std::string::npos);
  ASSERT_NE(close, std::string::npos);
  for (const char* sm90_only : {"\"cp.async.bulk.", "expect_tx.shared", "try_wait.parity"}) {
    size_t seen = 0;
    for (size_t at = before.find(sm90_only); at != std::string::npos;
         at = before.find(sm90_only, at + 1), ++seen)
      EXPECT_TRUE(at > open && at < close) << sm90_only << " outside the guard at " << at;
    EXPECT_GT(seen, 0u) << sm90_only << ": the helpers' PTX is not where the test looks";
  }
  const auto defines = [](const std::string& source, const std::string& kernel) {
    return source.find("#define PIPE_NAME " + kernel + "\n") != std::string::npos;
  };
  for (const PipeTile t : kPipeTilesF16) {
    const std::string name = pipe_kernel_name("f16", t);
    EXPECT_EQ(defines(before, name), t.bulk == 0) << name;
    EXPECT_TRUE(defines(hopper, name)) << name;
  }
  EXPECT_TRUE(defines(before, "gemm_f16_pipe_256_db"));
}

}  // namespace
}  // namespace sb
