// Bad calls of the 3-D volume ops' fronts (fronts_volume.cpp, fronts_conv3d.cpp,
// fronts_conv_transpose3d.cpp), run on every backend by op_fronts_test.cpp.
#include "tests/ops/bad_call.h"

namespace sb::testing {

void add_volume_bad_calls(std::vector<BadCall>& c) {
  auto add = [&](std::string name, Op op, std::string says, std::function<void(Backend&)> f) {
    c.push_back({std::move(name), op, std::move(says), std::move(f)});
  };
  add("instance_norm_count", Op::instance_norm,
      "input [2,3,5] is not batch 2 x channels 4 x voxels (>= 1)", [](Backend& be) {
        Tensor y = zeros(be, {2, 3, 5});
        be.instance_norm(zeros(be, {2, 3, 5}), Layout3d::ncdhw, 2, 4, zeros(be, {4}),
                         zeros(be, {4}), 1e-5f, y);
      });
  add("instance_norm_short_beta", Op::instance_norm, "beta [2] is not [C]", [](Backend& be) {
    Tensor y = zeros(be, {2, 3, 5});
    be.instance_norm(zeros(be, {2, 3, 5}), Layout3d::ndhwc, 2, 3, zeros(be, {3}), zeros(be, {2}),
                     1e-5f, y);
  });
  add("instance_norm_eps", Op::instance_norm, "eps = -1.000000 must be >= 0", [](Backend& be) {
    Tensor y = zeros(be, {2, 3, 5});
    be.instance_norm(zeros(be, {2, 3, 5}), Layout3d::ncdhw, 2, 3, zeros(be, {3}), zeros(be, {3}),
                     -1.f, y);
  });
  add("instance_norm_layout", Op::instance_norm, "unknown layout 7", [](Backend& be) {
    Tensor y = zeros(be, {2, 3, 5});
    be.instance_norm(zeros(be, {2, 3, 5}), static_cast<Layout3d>(7), 2, 3, zeros(be, {3}),
                     zeros(be, {3}), 1e-5f, y);
  });
  add("instance_norm_backward_dgamma_is_dbeta", Op::instance_norm_backward,
      "dbeta must not be dgamma", [](Backend& be) {
        Tensor dx = zeros(be, {2, 3, 5}), dg = zeros(be, {3});
        be.instance_norm_backward(zeros(be, {2, 3, 5}), Layout3d::ncdhw, 2, 3, zeros(be, {3}),
                                  1e-5f, zeros(be, {2, 3, 5}), dx, dg, dg);
      });
  add("instance_norm_backward_dx_is_x", Op::instance_norm_backward, "dx must not be the input",
      [](Backend& be) {
        Tensor x = zeros(be, {2, 3, 5}), dg = zeros(be, {3}), db = zeros(be, {3});
        be.instance_norm_backward(x, Layout3d::ndhwc, 2, 3, zeros(be, {3}), 1e-5f,
                                  zeros(be, {2, 3, 5}), x, dg, db);
      });
  add("instance_norm_backward_batch", Op::instance_norm_backward,
      "batch 0 and channels 3 must be >= 1", [](Backend& be) {
        Tensor dx = zeros(be, {2, 3, 5}), dg = zeros(be, {3}), db = zeros(be, {3});
        be.instance_norm_backward(zeros(be, {2, 3, 5}), Layout3d::ncdhw, 0, 3, zeros(be, {3}),
                                  1e-5f, zeros(be, {2, 3, 5}), dx, dg, db);
      });
  add("concat_axis1_channels", Op::concat_axis1, "does not hold 5 channels", [](Backend& be) {
    const Tensor a = zeros(be, {2, 2, 3}), b = zeros(be, {2, 3, 3});
    const Tensor* xs[] = {&a, &b};
    Tensor y = zeros(be, {2, 6, 3});
    be.concat_axis1(xs, 2, 3, y);
  });
  add("concat_axis1_not_divisible", Op::concat_axis1, "input 1 [7] is not outer 2 x C x inner 3",
      [](Backend& be) {
        const Tensor a = zeros(be, {2, 2, 3}), b = zeros(be, {7});
        const Tensor* xs[] = {&a, &b};
        Tensor y = zeros(be, {2, 6, 3});
        be.concat_axis1(xs, 2, 3, y);
      });
  add("concat_axis1_output_is_input", Op::concat_axis1, "must not be input 0", [](Backend& be) {
    Tensor a = zeros(be, {2, 2, 3});
    const Tensor* xs[] = {&a};
    be.concat_axis1(xs, 2, 3, a);
  });
  add("slice_axis1_outside", Op::slice_axis1, "channels [3, 5) are outside the 4", [](Backend& be) {
    Tensor y = zeros(be, {2, 2, 3});
    be.slice_axis1(zeros(be, {2, 4, 3}), 2, 3, 3, y);
  });
  add("slice_axis1_inner", Op::slice_axis1, "outer 2 and inner 0 must be >= 1", [](Backend& be) {
    Tensor y = zeros(be, {2, 2, 3});
    be.slice_axis1(zeros(be, {2, 4, 3}), 2, 0, 0, y);
  });
  add("soft_dice_loss_smooth", Op::soft_dice_loss, "smooth = 0.000000 must be > 0",
      [](Backend& be) {
        Tensor loss = zeros(be, {1}), d = zeros(be, {2, 3, 4});
        be.soft_dice_loss(zeros(be, {2, 3, 4}), zeros(be, {2, 3, 4}), Layout3d::ncdhw, 2, 3, 0.f,
                          1.f, loss, 0, d);
      });
  add("soft_dice_loss_slot", Op::soft_dice_loss, "slot 1 is outside loss [1]", [](Backend& be) {
    Tensor loss = zeros(be, {1}), d = zeros(be, {2, 3, 4});
    be.soft_dice_loss(zeros(be, {2, 3, 4}), zeros(be, {2, 3, 4}), Layout3d::ndhwc, 2, 3, 1e-5f, 1.f,
                      loss, 1, d);
  });
  add("soft_dice_loss_targets", Op::soft_dice_loss, "targets [2,3,3] is not the logits' size",
      [](Backend& be) {
        Tensor loss = zeros(be, {1}), d = zeros(be, {2, 3, 4});
        be.soft_dice_loss(zeros(be, {2, 3, 4}), zeros(be, {2, 3, 3}), Layout3d::ncdhw, 2, 3, 1e-5f,
                          1.f, loss, 0, d);
      });
  add("soft_dice_loss_dlogits_is_targets", Op::soft_dice_loss, "dlogits must not be the targets",
      [](Backend& be) {
        Tensor loss = zeros(be, {1}), t = zeros(be, {2, 3, 4});
        be.soft_dice_loss(zeros(be, {2, 3, 4}), t, Layout3d::ncdhw, 2, 3, 1e-5f, 1.f, loss, 0, t);
      });
  // conv3d: N 2, 3 -> 4 channels, 5x4x6 input, k3 s2 p1 -> 3x2x3 output.
  auto conv = [](Layout3d layout = Layout3d::ncdhw) {
    Conv3dShape s;
    s.batch = 2, s.in_channels = 3, s.out_channels = 4, s.d = 5, s.h = 4, s.w = 6;
    s.kernel = 3, s.stride = 2, s.padding = 1, s.layout = layout;
    return s;
  };
  // 1x1x1 kernel, 3 -> 3 channels: the output has the input's shape.
  auto pointwise = [conv] {
    Conv3dShape s = conv();
    s.out_channels = 3, s.kernel = 1, s.stride = 1, s.padding = 0;
    return s;
  };
  add("conv3d_output_size", Op::conv3d, "output [2,4,3,2,4] is not [N, C, d, h, w] = [2,4,3,2,3]",
      [conv](Backend& be) {
        Tensor y = zeros(be, {2, 4, 3, 2, 4});
        be.conv3d(conv(), zeros(be, {2, 3, 5, 4, 6}), zeros(be, {4, 3, 3, 3, 3}), nullptr, y);
      });
  add("conv3d_layout", Op::conv3d, "input [2,3,5,4,6] is not [N, d, h, w, C] = [2,5,4,6,3]",
      [conv](Backend& be) {
        Tensor y = zeros(be, {2, 3, 2, 3, 4});
        be.conv3d(conv(Layout3d::ndhwc), zeros(be, {2, 3, 5, 4, 6}), zeros(be, {4, 3, 3, 3, 3}),
                  nullptr, y);
      });
  add("conv3d_weight_order", Op::conv3d,
      "weight [3,4,3,3,3] is not [out, in, k, k, k] = [4,3,3,3,3]", [conv](Backend& be) {
        Tensor y = zeros(be, {2, 4, 3, 2, 3});
        be.conv3d(conv(), zeros(be, {2, 3, 5, 4, 6}), zeros(be, {3, 4, 3, 3, 3}), nullptr, y);
      });
  add("conv3d_bias", Op::conv3d, "bias [3] is not [out]", [conv](Backend& be) {
    Tensor y = zeros(be, {2, 4, 3, 2, 3});
    const Tensor b = zeros(be, {3});
    be.conv3d(conv(), zeros(be, {2, 3, 5, 4, 6}), zeros(be, {4, 3, 3, 3, 3}), &b, y);
  });
  add("conv3d_padding_negative", Op::conv3d, "padding = -1 must be in [0, kernel = 3)",
      [conv](Backend& be) {
        Conv3dShape s = conv();
        s.padding = -1;
        Tensor y = zeros(be, {2, 4, 2, 1, 2});
        be.conv3d(s, zeros(be, {2, 3, 5, 4, 6}), zeros(be, {4, 3, 3, 3, 3}), nullptr, y);
      });
  add("conv3d_stride", Op::conv3d, "stride = 0 must be positive", [conv](Backend& be) {
    Conv3dShape s = conv();
    s.stride = 0;
    Tensor y = zeros(be, {2, 4, 3, 2, 3});
    be.conv3d(s, zeros(be, {2, 3, 5, 4, 6}), zeros(be, {4, 3, 3, 3, 3}), nullptr, y);
  });
  add("conv3d_kernel_larger_than_input", Op::conv3d,
      "input size 5x4x6 with padding 0 is smaller than kernel 5", [conv](Backend& be) {
        Conv3dShape s = conv();
        s.kernel = 5, s.padding = 0;
        Tensor y = zeros(be, {2, 4, 1, 1, 1});
        be.conv3d(s, zeros(be, {2, 3, 5, 4, 6}), zeros(be, {4, 3, 5, 5, 5}), nullptr, y);
      });
  add("conv3d_output_is_input", Op::conv3d, "the output must not be the input",
      [pointwise](Backend& be) {
        Tensor x = zeros(be, {2, 3, 5, 4, 6});
        be.conv3d(pointwise(), x, zeros(be, {3, 3, 1, 1, 1}), nullptr, x);
      });
  add("conv3d_backward_data_dy", Op::conv3d_backward_data,
      "dy [2,4,3,2,3] is not [N, d, h, w, C] = [2,3,2,3,4]", [conv](Backend& be) {
        Tensor dx = zeros(be, {2, 5, 4, 6, 3});
        be.conv3d_backward_data(conv(Layout3d::ndhwc), zeros(be, {2, 4, 3, 2, 3}),
                                zeros(be, {4, 3, 3, 3, 3}), dx);
      });
  add("conv3d_backward_data_dx_is_dy", Op::conv3d_backward_data, "dx must not be dy",
      [pointwise](Backend& be) {
        Tensor d = zeros(be, {2, 3, 5, 4, 6});
        be.conv3d_backward_data(pointwise(), d, zeros(be, {3, 3, 1, 1, 1}), d);
      });
  add("conv3d_backward_weights_dw", Op::conv3d_backward_weights,
      "dw [4,3,3,3] is not [out, in, k, k, k] = [4,3,3,3,3]", [conv](Backend& be) {
        Tensor dw = zeros(be, {4, 3, 3, 3});
        be.conv3d_backward_weights(conv(), zeros(be, {2, 3, 5, 4, 6}), zeros(be, {2, 4, 3, 2, 3}),
                                   dw, nullptr);
      });
  add("conv3d_backward_weights_dbias", Op::conv3d_backward_weights, "dbias [3] is not [out]",
      [conv](Backend& be) {
        Tensor dw = zeros(be, {4, 3, 3, 3, 3}), db = zeros(be, {3});
        be.conv3d_backward_weights(conv(), zeros(be, {2, 3, 5, 4, 6}), zeros(be, {2, 4, 3, 2, 3}),
                                   dw, &db);
      });
  add("conv3d_backward_weights_dbias_is_dy", Op::conv3d_backward_weights, "dbias must not be dy",
      [conv](Backend& be) {
        Conv3dShape s = conv();
        s.batch = 1, s.d = s.h = s.w = 1, s.kernel = 1, s.stride = 1, s.padding = 0;
        Tensor dw = zeros(be, {4, 3, 1, 1, 1}), dy = zeros(be, {1, 4, 1, 1, 1});
        be.conv3d_backward_weights(s, zeros(be, {1, 3, 1, 1, 1}), dy, dw, &dy);
      });
  // conv_transpose3d: N 2, 3 -> 2 channels, 2x3x4 input, k2 s2 p0 -> 4x6x8 output.
  auto convt = [](Layout3d layout = Layout3d::ncdhw) {
    Conv3dShape s;
    s.batch = 2, s.in_channels = 3, s.out_channels = 2, s.d = 2, s.h = 3, s.w = 4;
    s.kernel = 2, s.stride = 2, s.padding = 0, s.layout = layout;
    return s;
  };
  add("conv_transpose3d_output_size", Op::conv_transpose3d,
      "the output [2,2,4,6,7] is not [N, C, d, h, w] = [2,2,4,6,8]", [convt](Backend& be) {
        Tensor y = zeros(be, {2, 2, 4, 6, 7});
        be.conv_transpose3d(convt(), zeros(be, {2, 3, 2, 3, 4}), zeros(be, {3, 2, 2, 2, 2}),
                            nullptr, y);
      });
  add("conv_transpose3d_layout", Op::conv_transpose3d,
      "input [2,3,2,3,4] is not [N, d, h, w, C] = [2,2,3,4,3]", [convt](Backend& be) {
        Tensor y = zeros(be, {2, 4, 6, 8, 2});
        be.conv_transpose3d(convt(Layout3d::ndhwc), zeros(be, {2, 3, 2, 3, 4}),
                            zeros(be, {3, 2, 2, 2, 2}), nullptr, y);
      });
  add("conv_transpose3d_weight_order", Op::conv_transpose3d,
      "weight [2,3,2,2,2] is not [in, out, k, k, k] = [3,2,2,2,2]", [convt](Backend& be) {
        Tensor y = zeros(be, {2, 2, 4, 6, 8});
        be.conv_transpose3d(convt(), zeros(be, {2, 3, 2, 3, 4}), zeros(be, {2, 3, 2, 2, 2}),
                            nullptr, y);
      });
  add("conv_transpose3d_bias", Op::conv_transpose3d, "bias [3] is not [out]", [convt](Backend& be) {
    Tensor y = zeros(be, {2, 2, 4, 6, 8});
    const Tensor b = zeros(be, {3});
    be.conv_transpose3d(convt(), zeros(be, {2, 3, 2, 3, 4}), zeros(be, {3, 2, 2, 2, 2}), &b, y);
  });
  add("conv_transpose3d_padding", Op::conv_transpose3d, "padding = 2 must be in [0, kernel = 2)",
      [convt](Backend& be) {
        Conv3dShape s = convt();
        s.padding = 2;
        Tensor y = zeros(be, {2, 2, 4, 6, 8});
        be.conv_transpose3d(s, zeros(be, {2, 3, 2, 3, 4}), zeros(be, {3, 2, 2, 2, 2}), nullptr, y);
      });
  add("conv_transpose3d_stride", Op::conv_transpose3d, "stride = 0 must be positive",
      [convt](Backend& be) {
        Conv3dShape s = convt();
        s.stride = 0;
        Tensor y = zeros(be, {2, 2, 4, 6, 8});
        be.conv_transpose3d(s, zeros(be, {2, 3, 2, 3, 4}), zeros(be, {3, 2, 2, 2, 2}), nullptr, y);
      });
  add("conv_transpose3d_output_is_weight", Op::conv_transpose3d,
      "the output must not be the weight", [convt](Backend& be) {
        Conv3dShape s = convt();
        s.in_channels = 2, s.d = s.h = s.w = 1;  // y [2,2,2,2,2] = w's shape
        Tensor w = zeros(be, {2, 2, 2, 2, 2});
        be.conv_transpose3d(s, zeros(be, {2, 2, 1, 1, 1}), w, nullptr, w);
      });
  add("conv_transpose3d_backward_data_dy", Op::conv_transpose3d_backward_data,
      "dy [2,2,4,6,8] is not [N, d, h, w, C] = [2,4,6,8,2]", [convt](Backend& be) {
        Tensor dx = zeros(be, {2, 2, 3, 4, 3});
        be.conv_transpose3d_backward_data(convt(Layout3d::ndhwc), zeros(be, {2, 2, 4, 6, 8}),
                                          zeros(be, {3, 2, 2, 2, 2}), dx);
      });
  add("conv_transpose3d_backward_data_channels", Op::conv_transpose3d_backward_data,
      "channels in = 0, out = 2 must be positive", [convt](Backend& be) {
        Conv3dShape s = convt();
        s.in_channels = 0;
        Tensor dx = zeros(be, {2, 0, 2, 3, 4});
        be.conv_transpose3d_backward_data(s, zeros(be, {2, 2, 4, 6, 8}), zeros(be, {0, 2, 2, 2, 2}),
                                          dx);
      });
  add("conv_transpose3d_backward_weights_dbias", Op::conv_transpose3d_backward_weights,
      "dbias [3] is not [out]", [convt](Backend& be) {
        Tensor dw = zeros(be, {3, 2, 2, 2, 2}), db = zeros(be, {3});
        be.conv_transpose3d_backward_weights(convt(), zeros(be, {2, 3, 2, 3, 4}),
                                             zeros(be, {2, 2, 4, 6, 8}), dw, &db);
      });
  add("conv_transpose3d_backward_weights_dbias_is_dw", Op::conv_transpose3d_backward_weights,
      "dbias must not be dw", [convt](Backend& be) {
        Conv3dShape s = convt();
        s.in_channels = 1, s.out_channels = 1, s.kernel = 1, s.stride = 1;  // dw [1,1,1,1,1]
        Tensor dw = zeros(be, {1, 1, 1, 1, 1});
        be.conv_transpose3d_backward_weights(s, zeros(be, {2, 1, 2, 3, 4}),
                                             zeros(be, {2, 1, 2, 3, 4}), dw, &dw);
      });
}

}  // namespace sb::testing
