#include "models/dynunet/workload.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "instrument/host_ranges.h"
#include "models/backend_sources.h"
#include "models/dynunet/checkpoint.h"
#include "models/dynunet/counts.h"
#include "models/dynunet/graph_replay.h"
#include "models/dynunet/volume_loader.h"
#include "models/dynunet/volumes.h"
#include "models/io/weight_source.h"
#include "models/ops/knobs.h"
#include "schema/summaries.h"

namespace sb::dynunet {
namespace {

constexpr int kPhaseSteps = 3;  // steps timed phase by phase for the summaries
constexpr int kLoaderWorkers = 2, kLoaderSlots = 3;
// The inference measurement: a warm-up pass, then passes until both bounds are met or the
// cap is reached. The median is what the table shows.
constexpr int kInferMinReps = 5, kInferMaxReps = 50;
constexpr double kInferMinMs = 1000;

}  // namespace

// What one stage holds: its network (parameters, gradients, moments, activations), the batch's
// device tensors, and the loader with its staging slots when the stage prefetches.
struct DynUnetWorkload::StageRun {
  Switches sw;
  std::unique_ptr<Network> net;
  std::vector<std::unique_ptr<HostStaging>> staging;  // before the loader: outlives its workers
  std::unique_ptr<VolumeLoader> loader;
  std::vector<float> image, mask;  // the synchronous path's host batch
  Tensor d_image, d_mask;
  int64_t next = 0;
  StepLoss last;
  std::unique_ptr<LaunchList> replay;  // the graph-replay stage's forward; goes first
};

DynUnetWorkload::DynUnetWorkload(const WorkloadOptions& options, std::unique_ptr<Backend> backend)
    : options_(options),
      config_(config_for(options.size, options.batch)),
      backend_(std::move(backend)) {
  if (options.lr > 0) config_.lr = options.lr;
  if (options.weights.empty()) {
    params_ = std::make_unique<Params>(Params::random(config_, options.seed));
  } else {
    // The checkpoint's own levels, widths, kernels, strides and channels (checkpoint.h).
    config_ = config_from_checkpoint(config_, options.weights);
    SafetensorsWeights source(weights_file(options.weights), {"backbone."});
    params_ = std::make_unique<Params>(Params::load(config_, source));
  }
  runs_.resize(kStageCount);
}

DynUnetWorkload::~DynUnetWorkload() = default;

// bf16 on the CPU (oneDNN, where the ISA has it) and on OpenCL where its convolutions take it
// (NVIDIA: bf16 tensor cores, tf32 for the calls the 2-byte kernels cannot take), as PyTorch's
// autocast; else tf32 (fp32's range too, so no loss scaling either).
// STAGEBENCH_DYNUNET_REDUCED=tf32 keeps OpenCL at tf32, to time the two in one session.
Precision DynUnetWorkload::reduced_precision() const {
  if (backend_->name() == "cpu") return Precision::bf16;
  if (read_knob("STAGEBENCH_DYNUNET_REDUCED", false, {{"bf16", false}, {"tf32", true}}))
    return Precision::tf32;
  if (!bf16_gap_) bf16_gap_ = precision_gap(Precision::bf16);
  return bf16_gap_->empty() ? Precision::bf16 : Precision::tf32;
}

// Empty when a convolution's three passes run at p here: asked of the ops themselves on a
// one-voxel problem, so the answer is the backend's, not a guess from its name. Eight channels,
// so that 2-byte kernels, which need a multiple of 8, are among those asked.
std::string DynUnetWorkload::precision_gap(Precision p) const {
  try {
    Backend& be = *backend_;
    Conv3dShape s;
    s.in_channels = s.out_channels = 8, s.d = s.h = s.w = 1, s.kernel = 1, s.padding = 0;
    s.precision = p;
    const std::vector<float> ones(64, 1.f);
    const std::vector<int64_t> v{1, 8, 1, 1, 1}, wv{8, 8, 1, 1, 1};
    Tensor x = be.upload({ones.data(), 8}, v), w = be.upload(ones, wv), y = be.empty(v),
           dw = be.empty(wv);
    be.conv3d(s, x, w, nullptr, y);
    be.conv3d_backward_data(s, y, w, x);
    be.conv3d_backward_weights(s, x, y, dw, nullptr);
    be.synchronize();
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

// replay35: empty when a 3^3 convolution and a k2 s2 transposed one as the graph-replay stage
// runs them (its precision and layout, 8 and 16 channels) record into a launch list here, else
// the recording's refusal: on NVIDIA the bf16 implicit GEMMs are kernels of our own; elsewhere
// the products go to CLBlast (unless STAGEBENCH_F32_GEMM=portable puts them on gemm_general),
// whose calls a list cannot hold. Run once eagerly first, so that the recording sees no
// first-call autotuning.
std::string DynUnetWorkload::replay_gap(const Switches& sw) const {
  try {
    Backend& be = *backend_;
    const bool last = sw.layout == Layout3d::ndhwc;
    const auto vol = [last](int64_t c, int64_t e) {
      return last ? std::vector<int64_t>{1, e, e, e, c} : std::vector<int64_t>{1, c, e, e, e};
    };
    Conv3dShape s;  // 8 -> 8 channels, 4^3, 3^3 'same'
    s.in_channels = s.out_channels = 8, s.d = s.h = s.w = 4, s.kernel = 3, s.padding = 1;
    s.precision = sw.precision, s.layout = sw.layout;
    Conv3dShape t;  // 16 -> 8 channels, 2^3 -> 4^3, as network.cpp's conv_shape(transposed)
    t.in_channels = 16, t.out_channels = 8, t.d = t.h = t.w = 2, t.kernel = t.stride = 2;
    t.padding = 0, t.layout = sw.layout;
    if (sw.precision == Precision::bf16) t.precision = sw.precision;
    Tensor x = be.upload(std::vector<float>(8 * 64, 1.f), vol(8, 4)),
           w = be.upload(std::vector<float>(8 * 8 * 27, 0.01f), {8, 8, 3, 3, 3}),
           y = be.empty(vol(8, 4)), xt = be.upload(std::vector<float>(16 * 8, 1.f), vol(16, 2)),
           wt = be.upload(std::vector<float>(16 * 8 * 8, 0.01f), {16, 8, 2, 2, 2});
    const auto forward = [&] {
      be.conv3d(s, x, w, nullptr, y);
      be.conv_transpose3d(t, xt, wt, nullptr, x);
    };
    forward();
    record_launches(be, forward);
    be.synchronize();
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

// Where the reduced precision cannot run, the stages above it go on without it (in fp32).
Switches DynUnetWorkload::switches(size_t stage) const {
  if (!precision_gap_) precision_gap_ = precision_gap(reduced_precision());
  Switches sw = switches_for(stage, reduced_precision());
  if (!precision_gap_->empty()) sw.precision = Precision::f32;
  return sw;
}

std::string DynUnetWorkload::skip_reason(size_t stage) const {
  if (stage == kMixedPrecision) {
    switches(stage);  // asks the backend once
    if (!precision_gap_->empty())
      return std::string("no ") + precision_name(reduced_precision()) +
             " convolution here (the stages above run in fp32): " + *precision_gap_;
  }
  if (stage == kGraphReplay) {
    // The backend's own reason first (the cpu backend launches nothing; an OpenCL device
    // before 2.1 has no clCloneKernel), then the step's, from a recording of two convolutions
    // as the stage runs them (replay_gap).
    if (std::string why = backend_->launch_recording_unsupported(); !why.empty()) return why;
    if (!replay_gap_) replay_gap_ = replay_gap(switches(stage));
    if (!replay_gap_->empty()) return "recording the forward's convolutions: " + *replay_gap_;
  }
  return {};
}

void DynUnetWorkload::prepare(size_t stage) {
  auto r = std::make_unique<StageRun>();
  r->sw = switches(stage);
  r->net = std::make_unique<Network>(*backend_, config_, *params_, r->sw);
  const int64_t n = config_.batch * config_.voxels();
  const std::vector<int64_t> shape = r->net->input_shape();
  r->d_image = backend_->empty(shape);
  r->d_mask = backend_->empty(shape);
  if (r->sw.prefetch) {
    std::vector<VolumeLoader::Slot> slots;
    for (int s = 0; s < kLoaderSlots; ++s) {
      r->staging.push_back(backend_->host_staging(static_cast<size_t>(2 * n) * sizeof(float)));
      auto* f = reinterpret_cast<float*>(r->staging.back()->bytes().data());
      slots.push_back({{f, static_cast<size_t>(n)}, {f + n, static_cast<size_t>(n)}});
    }
    r->loader = std::make_unique<VolumeLoader>(options_.seed, config_.batch, config_.patch,
                                               std::move(slots), kLoaderWorkers);
  } else {
    r->image.resize(static_cast<size_t>(n));
    r->mask.resize(static_cast<size_t>(n));
  }
  runs_[stage] = std::move(r);
}

StepLoss DynUnetWorkload::step(StageRun& r, PhaseTimes* times, std::vector<float>* grads) {
  Backend& be = *backend_;
  StepPhases phases(be, times);
  int slot = -1;
  std::span<const float> image = r.image, mask = r.mask;
  if (r.loader) {
    slot = r.loader->next();
    image = r.loader->slot(slot).image;
    mask = r.loader->slot(slot).mask;
  } else {
    make_volumes(options_.seed, r.next * config_.batch, config_.batch, config_.patch, r.image,
                 r.mask);
  }
  ++r.next;
  phases.end("data", &PhaseTimes::data);
  // From the loader's (page-locked) slots the copies are queued; the update's loss read-back
  // synchronizes before the slot goes back to the workers.
  be.write(image, r.d_image, !r.loader);
  be.write(mask, r.d_mask, !r.loader);
  phases.end("h2d", &PhaseTimes::h2d);
  r.net->forward(r.d_image, r.d_mask);
  phases.end("forward", &PhaseTimes::forward);
  r.net->backward();
  phases.end("backward", &PhaseTimes::backward);
  if (grads) *grads = r.net->gradients();
  StepLoss loss = r.net->update();
  be.synchronize();
  if (r.loader) r.loader->release(slot);
  phases.end("optimizer", &PhaseTimes::optimizer);
  return loss;
}

void DynUnetWorkload::run(size_t stage) {
  StageRun& r = *runs_.at(stage);
  r.last = step(r, nullptr);
}

std::vector<float> DynUnetWorkload::output(size_t) {
  return {};  // training stages are checked by their trace
}

TrainTrace DynUnetWorkload::train(size_t stage, int64_t steps,
                                  std::vector<float>* step0_gradients) {
  StageRun& r = *runs_.at(stage);
  r.net->reset();
  // The check's batches: 0, 1, ... made synchronously, for every stage alike.
  StageRun check;
  check.sw = r.sw;
  check.net = std::move(r.net);
  check.d_image = r.d_image;
  check.d_mask = r.d_mask;
  check.image.resize(static_cast<size_t>(config_.batch * config_.voxels()));
  check.mask.resize(check.image.size());
  TrainTrace t;
  loss_parts_.clear();
  try {
    for (int64_t s = 0; s < steps; ++s) {
      const StepLoss l = step(check, nullptr, s == 0 ? step0_gradients : nullptr);
      t.loss.push_back(l.total());
      loss_parts_.push_back(l);
    }
    t.params = check.net->parameters();
  } catch (...) {
    r.net = std::move(check.net);
    throw;
  }
  r.net = std::move(check.net);
  return t;
}

std::optional<TrainTrace> DynUnetWorkload::train_trace(size_t stage) {
  return train(stage, config_.check_steps);
}

std::vector<float> DynUnetWorkload::infer(size_t stage) {
  StageRun& r = *runs_.at(stage);
  std::vector<float> image(static_cast<size_t>(config_.batch * config_.voxels())), mask(image);
  make_volumes(options_.seed, 0, config_.batch, config_.patch, image, mask);
  backend_->write(image, r.d_image);
  return logits_ncdhw(r, backend_->download(r.net->infer(r.d_image)));
}

// Channels-last logits of several channels back to [N, C, P, P, P], so that every stage's
// inference reads alike (one channel is the same bytes in either layout).
std::vector<float> DynUnetWorkload::logits_ncdhw(const StageRun& r,
                                                 std::vector<float> logits) const {
  const int64_t channels = config_.out_channels, voxels = config_.voxels();
  if (r.sw.layout == Layout3d::ndhwc && channels > 1) {
    std::vector<float> ncdhw(logits.size());
    for (int64_t b = 0; b < config_.batch; ++b)
      for (int64_t v = 0; v < voxels; ++v)
        for (int64_t ch = 0; ch < channels; ++ch)
          ncdhw[static_cast<size_t>((b * channels + ch) * voxels + v)] =
              logits[static_cast<size_t>((b * voxels + v) * channels + ch)];
    logits = std::move(ncdhw);
  }
  return logits;
}

// replay35: one forward of batch 0 recorded (after infer() has run it eagerly, so that every
// per-shape choice is made), then checked on new contents: replayed on batch 1 against the
// eager forward of batch 1 (bit for bit: the same kernels on the same buffers; a launch the
// list missed would leave batch 0's values behind), and on batch 0 again against stage 0's
// logits (the stage's tolerance). Then timed beside the eager forward, also with the device
// events off, as the runner's timed samples are (they are on while summaries run).
PassTimes DynUnetWorkload::replay_inference(size_t stage, nlohmann::json& s) {
  StageRun& r = *runs_.at(stage);
  Backend& be = *backend_;
  std::vector<float> image(static_cast<size_t>(config_.batch * config_.voxels())), mask(image);
  const auto write_batch = [&](int64_t b) {
    make_volumes(options_.seed, b * config_.batch, config_.batch, config_.patch, image, mask);
    be.write(image, r.d_image);
  };
  const auto logits = [&] { return logits_ncdhw(r, be.download(r.net->logits())); };
  write_batch(1);
  r.net->infer(r.d_image);
  const std::vector<float> eager1 = logits();
  infer(stage);  // batch 0, eagerly
  r.replay.reset();
  r.replay = record_launches(be, [&] { r.net->infer(r.d_image); });
  write_batch(1);
  r.replay->replay();
  const Tolerance& tol = ladder()[stage].tolerance;
  nlohmann::json g = {{"launches", r.replay->launches()},
                      {"how", r.replay->how()},
                      {"vs_eager", compare_logits(logits(), eager1, tol)}};
  write_batch(0);
  r.replay->replay();
  if (!baseline_logits_.empty()) g["vs_baseline"] = compare_logits(logits(), baseline_logits_, tol);
  const PassBounds bounds{kInferMinReps, kInferMaxReps, kInferMinMs};
  const auto eager_pass = [&] { r.net->infer(r.d_image); };
  const auto replay_pass = [&] { r.replay->replay(); };
  const auto figures = [](const PassTimes& t) {
    return nlohmann::json{{"median_ms", median_ms(t.ms)},
                          {"host_median_ms", median_ms(t.host_ms)},
                          {"samples", static_cast<int64_t>(t.ms.size())}};
  };
  const PassTimes eager_on = time_passes(be, eager_pass, bounds);
  const PassTimes replay_on = time_passes(be, replay_pass, bounds);
  g["events_on"] = {{"eager", figures(eager_on)}, {"replay", figures(replay_on)}};
  if (KernelLog* log = be.kernel_log()) {
    const bool was = log->recording();
    log->set_recording(false);
    const PassTimes eager_off = time_passes(be, eager_pass, bounds);
    const PassTimes replay_off = time_passes(be, replay_pass, bounds);
    log->set_recording(was);
    g["events_off"] = {{"eager", figures(eager_off)}, {"replay", figures(replay_off)}};
  }
  s["graph_replay"] = g;
  return replay_on;
}

WorkCounts DynUnetWorkload::counts(size_t stage) const {
  const PassCounts c = step_counts(config_);
  WorkCounts w;
  w.flops = c.flops;
  w.bytes = c.bytes;
  w.items = static_cast<double>(config_.batch);
  w.item_name = "volumes";
  const Precision p = switches(stage).precision;
  w.precision = p == Precision::f32 ? "fp32" : precision_name(p);
  return w;
}

CollectorSources DynUnetWorkload::sources() {
  return collector_sources(*backend_);
}

nlohmann::json DynUnetWorkload::params() const {
  const Config& c = config_;
  const PassCounts f = forward_counts(c);
  nlohmann::json p = {{"batch", c.batch},
                      {"patch", c.patch},
                      {"filters", c.filters},
                      {"lr", c.lr},
                      {"weight_decay", c.weight_decay},
                      {"check_steps", c.check_steps},
                      {"parameters", params_->count()},
                      {"forward_gflops", f.flops / 1e9},
                      {"weights", options_.weights.empty() ? "seeded" : options_.weights.string()}};
  // A checkpoint's own structure and where it came from (not written for the sizes, whose
  // documents stay as they were).
  if (!options_.weights.empty()) {
    p["configuration"] = c.source;
    p["kernels"] = c.kernels;
    p["strides"] = c.strides;
    p["in_channels"] = c.in_channels;
    p["out_channels"] = c.out_channels;
  }
  return p;
}

nlohmann::json DynUnetWorkload::summaries(size_t stage) {
  StageRun& r = *runs_.at(stage);
  Backend& be = *backend_;
  nlohmann::json s = nlohmann::json::object();
  // Stage 0's logits and the graph-replay stage's recording and its check come first: after
  // the runner's training checks every stage holds the same parameters (the initial ones, then
  // the same steps on the same batches), which the phases' steps below train further.
  std::vector<double> ms;  // the inference passes' times
  if (stage == kGraphReplay) ms = replay_inference(stage, s).ms;
  if (stage == kBaseline) baseline_logits_ = infer(stage);
  write_step_phases(
      s, kPhaseSteps, [&](PhaseTimes& t) { step(r, &t); }, /*with_samples=*/false);
  write_memory_split(s, r.net->memory());
  s[summary::kLastLoss.key] = r.last.total();
  s["last_dice"] = r.last.dice;
  s[summary::kSteps.key] = r.net->steps();
  s["conv_precision"] = precision_name(r.sw.precision);
  if (r.sw.checkpoint) {
    // The recomputed forwards, named apart: the stage's GFLOP/s and share of the roofline stay
    // the model's work (step_counts) over its time; executed x that rate / model is its HFU.
    const double model = step_counts(config_).flops,
                 executed = model + recompute_counts(config_).flops;
    s["executed_flops"] = {{"model_gflop", model / 1e9},
                           {"executed_gflop", executed / 1e9},
                           {"ratio", executed / model},
                           {"what", "each block's forward run again in backward"}};
  }
  if (r.loader) s["loader"] = {{"workers", kLoaderWorkers}, {"slots", kLoaderSlots}};
  // Inference on the stage's switches: the forward alone on a resident batch, synchronized
  // (the graph-replay stage: its recorded forward replayed).
  if (stage != kGraphReplay) {
    infer(stage);  // warm-up (and the input in place)
    ms = time_passes(be, [&] { r.net->infer(r.d_image); },
                     {kInferMinReps, kInferMaxReps, kInferMinMs})
             .ms;
  }
  const double med = median_ms(ms);
  nlohmann::json inf = {
      {summary::kInferenceMedianMs.key, med},
      {summary::kInferenceMinMs.key, *std::min_element(ms.begin(), ms.end())},
      {summary::kInferenceSamples.key, static_cast<int64_t>(ms.size())},
      {summary::kInferenceFps.key, med > 0 ? 1e3 * static_cast<double>(config_.batch) / med : 0.0},
      {summary::kInferenceGflops.key, forward_counts(config_).flops / 1e9}};
  if (const auto claim = inference_claim(stage))
    inf[summary::kInferenceClaimedSpeedup.key] = *claim;
  s[summary::kInference.key] = inf;
  return s;
}

void DynUnetWorkload::release(size_t stage) {
  runs_.at(stage).reset();
}

}  // namespace sb::dynunet
