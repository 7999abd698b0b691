// conv3d's held copies on the cpu backend (conv3d.cpp, dynbf40): a data gradient held read-only
// is reordered (at bf16, converted) once for the two backward passes that read it. The passes
// under a hold give the bits they give without one, in either order and at both layouts; a
// tensor rewritten after its release is read anew, not from the copy of its old values.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "models/ops/backend.h"
#include "models/ops/cpu/cpu_backend.h"
#include "tests/ops/op_case.h"

namespace sb::testing {
namespace {

std::vector<float> values(size_t n, unsigned seed) {
  Vec v = random_vec(static_cast<int64_t>(n), seed);
  return {v.begin(), v.end()};
}

TEST(OpsCpuConv, HeldGradientGivesTheUnheldBitsAndIsReadAnewAfterRelease) {
  auto be = make_cpu_backend();
  if (const std::string why = be->unsupported_reason(Precision::bf16); !why.empty())
    GTEST_SKIP() << why;
  for (const Layout3d layout : {Layout3d::ncdhw, Layout3d::ndhwc}) {
    Conv3dShape s;
    s.batch = 1, s.in_channels = 16, s.out_channels = 16, s.d = 5, s.h = 4, s.w = 6;
    s.layout = layout, s.precision = Precision::bf16;
    const std::vector<int64_t> vol = layout == Layout3d::ncdhw
                                         ? std::vector<int64_t>{1, 16, 5, 4, 6}
                                         : std::vector<int64_t>{1, 5, 4, 6, 16};
    const Tensor x = be->upload(values(16 * 120, 1), vol),
                 w = be->upload(values(16 * 16 * 27, 2), std::vector<int64_t>{16, 16, 3, 3, 3});
    Tensor dy = be->upload(values(16 * 120, 3), vol);
    auto passes = [&](bool held) {
      Tensor dx = be->empty(vol), dw = be->empty(std::vector<int64_t>{16, 16, 3, 3, 3});
      if (held) {
        const HeldReadOnly hold(*be, dy);
        be->conv3d_backward_weights(s, x, dy, dw, nullptr);
        be->conv3d_backward_data(s, dy, w, dx);
      } else {
        be->conv3d_backward_weights(s, x, dy, dw, nullptr);
        be->conv3d_backward_data(s, dy, w, dx);
      }
      std::vector<float> out = be->download(dx), more = be->download(dw);
      out.insert(out.end(), more.begin(), more.end());
      return out;
    };
    const std::vector<float> plain = passes(false);
    EXPECT_EQ(passes(true), plain) << (layout == Layout3d::ncdhw ? "ncdhw" : "ndhwc");
    be->write(values(16 * 120, 4), dy);  // released: rewritten, then held again
    const std::vector<float> fresh = passes(false);
    EXPECT_NE(fresh, plain);
    EXPECT_EQ(passes(true), fresh) << "a copy of dy's old values was read";
  }
}

}  // namespace
}  // namespace sb::testing
