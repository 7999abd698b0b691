#include "models/enformer/infer.h"

#include <cmath>
#include <stdexcept>

#include "models/enformer/workload.h"
#include "models/io/npy.h"
#include "models/io/safetensors.h"
#include "models/io/weights_export.h"

namespace sb::enformer {
namespace {

TensorData read_input(const std::filesystem::path& path) {
  const std::string ext = path.extension().string();
  if (ext == ".npy") return read_npy(path);
  if (ext != ".safetensors")
    throw std::invalid_argument("input " + path.string() +
                                ": expected a .npy or .safetensors file");
  const SafetensorsFile f = SafetensorsFile::open(path);
  const auto names = f.names();
  if (f.contains("input")) return f.read("input");
  if (names.size() == 1) return f.read(names.front());
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  throw std::invalid_argument("input " + path.string() +
                              ": several tensors and none named 'input' (" + list + ")");
}

// One-hot [B, L, 4] from a one-hot array or from base indices 0..3 (A, C, G, T; anything else,
// such as N, becomes an all-zero row).
std::vector<float> to_one_hot(const TensorData& t, const std::string& what, int64_t& batch,
                              int64_t& length) {
  const auto& s = t.shape;
  if ((s.size() == 3 || s.size() == 2) && s.back() == 4) {  // tokens never have length 4
    batch = s.size() == 3 ? s[0] : 1;
    length = s[s.size() - 2];
    // NaN or Inf ran through the whole model, and only the check of its output caught it (exit 1,
    // "the output is not finite") as if the forward had failed.
    for (size_t i = 0; i < t.values.size(); ++i)
      if (!std::isfinite(t.values[i]))
        throw std::invalid_argument("input " + what + ": value " + std::to_string(t.values[i]) +
                                    " at " + std::to_string(i) + " is not finite");
    return t.values;
  }
  if (s.size() == 1 || s.size() == 2) {
    batch = s.size() == 2 ? s[0] : 1;
    length = s.back();
    std::vector<float> x(static_cast<size_t>(batch * length * 4), 0.f);
    for (int64_t i = 0; i < batch * length; ++i) {
      const float v = t.values[i];
      if (v >= 0 && v <= 3 && v == static_cast<float>(static_cast<int>(v)))
        x[i * 4 + static_cast<int>(v)] = 1.f;
    }
    return x;
  }
  throw std::invalid_argument("input " + what + ": shape " + shape_to_string(s) +
                              " is neither one-hot [B,L,4] / [L,4] nor tokens [B,L] / [L]");
}

// An input of no sequence or no base reached the model, which failed on a shape of its own
// ("empty: shape [2,0,-1] has a negative dimension") that named neither the file nor the cause.
std::vector<float> checked_one_hot(const TensorData& t, const std::string& what, int64_t& batch,
                                   int64_t& length) {
  std::vector<float> x = to_one_hot(t, what, batch, length);
  if (batch < 1 || length < 1)
    throw std::invalid_argument("input " + what + ": shape " + shape_to_string(t.shape) +
                                " holds " + std::to_string(batch) + " sequences of " +
                                std::to_string(length) + " bp; each needs at least one base");
  return x;
}

// The named size a run without --size takes: the one of this length, else "checkpoint" (with
// weights, whose shapes say everything a size would).
std::string size_for(const InferRequest& r, int64_t length) {
  if (!r.size.empty()) return r.size;
  for (const auto& s : sizes())
    if (config_for(s).input_bp == length) return s;
  if (!r.weights.empty()) return "checkpoint";
  throw std::invalid_argument("input " + r.input.string() + ": length " + std::to_string(length) +
                              " bp matches no Enformer size (tiny 4096, small 32768, full "
                              "196608); give --size to run that size's seeded weights at this "
                              "length, or --weights");
}

TensorData host(Backend& be, const Tensor& t) {
  return {"F32", t.shape(), be.download(t)};
}

}  // namespace

InferSummary run_inference(const InferRequest& r, std::unique_ptr<Backend> backend) {
  if (r.output.extension() != ".safetensors")
    throw std::invalid_argument("output " + r.output.string() +
                                ": must be a .safetensors file (it holds several heads)");
  const TensorData in = read_input(r.input);
  InferSummary sum;
  const std::vector<float> one_hot = checked_one_hot(in, r.input.string(), sum.batch, sum.length);
  sum.size = size_for(r, sum.length);
  const size_t stage = stage_index(r.stage);
  sum.stage = ladder()[stage].id;

  WorkloadOptions o;
  o.size = sum.size == "checkpoint" ? "full" : sum.size;  // full's conventions, the shapes' sizes
  o.seed = r.seed;
  o.weights = r.weights;
  o.batch = sum.batch;
  o.overrides = {sum.length, r.target};
  EnformerWorkload w(o, std::move(backend));
  sum.config = describe(w.config());
  const std::string skip = w.skip_reason(stage);
  if (!skip.empty())
    throw std::invalid_argument("stage '" + sum.stage + "' does not apply on " +
                                w.backend().name() + ": " + skip);
  if (!r.export_weights.empty())
    export_weights(r.export_weights, param_specs(w.config()), w.parameters(), "enformer", sum.size);
  Backend& be = w.backend();
  const Tensor x = be.upload(one_hot, {sum.batch, sum.length, 4});
  const Outputs out = w.forward(stage, x);
  const std::vector<std::pair<std::string, TensorData>> tensors = {
      {"embeddings", host(be, out.embeddings)},
      {"human", host(be, out.human)},
      {"mouse", host(be, out.mouse)}};
  sum.non_finite = first_non_finite(tensors);
  write_safetensors(r.output, tensors, "F32",
                    {{"model", "enformer"},
                     {"size", sum.size},
                     {"stage", sum.stage},
                     {"backend", be.name()},
                     {"device", be.device()}});
  return sum;
}

}  // namespace sb::enformer
