#include "models/geneformer/calibration.h"

#include <algorithm>

namespace sb::geneformer {

Calibration calibrate(const Config& c, const Params& params, Backend& be, const Switches& sw,
                      const CalibrationSet& set) {
  Switches fp32 = sw;
  fp32.precision = Precision::f32;
  fp32.attention = Precision::f32;
  fp32.calibrated = false;
  Model model(c, params, be, fp32);
  Calibration out;
  model.observe_inputs([&](const std::string& site, const Tensor& x) {
    const std::vector<float> v = be.download(x);  // download synchronizes: x is complete
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    auto it = out.ranges.find(site);
    if (it == out.ranges.end()) {
      out.ranges.emplace(site, std::make_pair(*lo, *hi));
    } else {
      it->second.first = std::min(it->second.first, *lo);
      it->second.second = std::max(it->second.second, *hi);
    }
  });
  const int64_t batch = set.batch > 0 ? set.batch : c.batch;
  for (int64_t i = 0; i < set.batches; ++i) {
    const Cells cells = synthetic_cells(c, batch, set.seed + static_cast<uint64_t>(i));
    model.forward(upload(be, cells), /*all_layers=*/true);  // every layer an int8 model has
  }
  be.synchronize();
  out.record = {{"method", "min-max of each linear layer's input over the calibration set"},
                {"weights", "symmetric int8 per output channel (max |w| / 127)"},
                {"activations", "per tensor, static range from calibration"},
                {"batches", set.batches},
                {"cells", set.batches * batch},
                {"tokens", c.tokens},
                {"seed", set.seed},
                {"layers_calibrated", out.ranges.size()}};
  return out;
}

}  // namespace sb::geneformer
