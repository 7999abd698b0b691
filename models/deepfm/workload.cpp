#include "models/deepfm/workload.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "instrument/host_ranges.h"
#include "models/backend_sources.h"
#include "models/deepfm/checkpoint.h"
#include "models/deepfm/counts.h"
#include "models/io/weight_source.h"
#include "schema/summaries.h"

namespace sb::deepfm {
namespace {

// Steps timed phase by phase for the summaries (untimed by the runner).
constexpr int kPhaseSteps = 9;  // enough for a 95% interval of a phase's ratio

}  // namespace

// What one stage holds: its own trainer (parameters, gradients, moments, activations), its
// batch sequence, and its device batch when it is preallocated.
struct DeepFmWorkload::StageRun {
  Switches sw;
  std::unique_ptr<Trainer> trainer;
  std::unique_ptr<BatchSource> source;
  // The prefetch loader's slots in the backend's staging memory (pinned where it has any); the
  // workers offset each batch's field codes in place, so a step writes straight from them.
  // Declared before the loader: its workers stop before the memory goes.
  std::vector<std::unique_ptr<HostStaging>> staging;
  std::vector<BatchBuffers> slots;
  std::unique_ptr<PrefetchLoader> loader;
  Batch host;                // the synchronous path's batch memory
  std::vector<int32_t> ids;  // the step's field codes, offset into the concatenated table
  DeviceBatch device;        // preallocated (batched-transfer) or made per step
  int64_t next = 0;          // the next step's batch
  Table cleaned;             // data phase: the last pass's output
  StepResult last;
};

namespace {

constexpr int kLoaderWorkers = 3, kLoaderDepth = 3;

// One slot of batch_size rows: fields, outcome, direction, type, laid out in one block.
BatchBuffers carve(HostStaging& s, int64_t b) {
  std::byte* p = s.bytes().data();
  const auto n = static_cast<size_t>(b);
  auto* fields = reinterpret_cast<int32_t*>(p);
  auto* outcome = reinterpret_cast<float*>(fields + n * kFields);
  auto* direction = reinterpret_cast<int32_t*>(outcome + n * kOutcomes);
  auto* type = direction + n;
  return {{fields, n * kFields}, {outcome, n * kOutcomes}, {direction, n}, {type, n}};
}

}  // namespace

DeepFmWorkload::DeepFmWorkload(const WorkloadOptions& options, std::unique_ptr<Backend> backend)
    : options_(options),
      config_(config_for(options.size, options.batch)),
      backend_(std::move(backend)) {
  // A checkpoint's own configuration and vocabularies (checkpoint.h); else the size's.
  std::optional<Checkpoint> ck;
  if (!options.weights.empty()) {
    ck = config_from_checkpoint(config_, options.weights);
    config_ = ck->config;
  }
  if (options.dropout) {
    if (!(*options.dropout >= 0.f && *options.dropout < 1.f))
      throw std::invalid_argument("deepfm: dropout " + std::to_string(*options.dropout) +
                                  " is outside [0, 1)");
    config_.dropout = *options.dropout;
  }
  if (options.data.empty()) {
    TableSpec spec = table_spec(options.size, options.seed);
    // The synthetic table draws the checkpoint's vocabularies, so that every row fits.
    if (ck) spec.vocab = {ck->rows[0] - 1, ck->rows[1] - 1, ck->rows[2] - 1, ck->rows[3] - 1};
    table_ = generate_table(spec);
  } else {
    table_ = read_tsv(options.data);
  }
  dataset_ = preprocess(table_, Cleaning::regex, options.seed);
  if (dataset_.train.rows < config_.batch)
    throw std::invalid_argument("deepfm: the training split of " + table_.source + " has " +
                                std::to_string(dataset_.train.rows) +
                                " rows, fewer than one batch of " + std::to_string(config_.batch));
  Cardinality card;
  for (int f = 0; f < 4; ++f) card[f] = dataset_.train.cardinality[f];
  if (ck) {
    // The table's codes index the checkpoint's rows: a field with more values than the table
    // has rows would read past it.
    for (int f = 0; f < 4; ++f)
      if (card[f] > ck->rows[f])
        throw std::invalid_argument("deepfm: the " + std::string(kColumnNames[f]) + " column of " +
                                    table_.source + " encodes " + std::to_string(card[f]) +
                                    " classes (its values and the unknown one), " +
                                    "but the checkpoint's " + std::string(kColumnNames[f]) +
                                    "_emb.weight has " + std::to_string(ck->rows[f]) + " rows");
    card = ck->rows;
  }
  model_rows_ = card;
  offsets_ = table_offsets(card);
  if (options.weights.empty()) {
    params_ = std::make_unique<Params>(Params::random(config_, card, options.seed));
  } else {
    SafetensorsWeights source(weights_file(options.weights));
    params_ = std::make_unique<Params>(Params::load(config_, card, source));
  }
  runs_.resize(kStageCount);
}

DeepFmWorkload::~DeepFmWorkload() = default;

Precision DeepFmWorkload::reduced_precision() const {
  return backend_->name() == "cpu" ? Precision::bf16 : Precision::f16;
}

// Empty when a GEMM with transposes runs at p here: asked of the op itself on a 1 x 1 x 1
// product, so that the answer is the backend's, not a guess from its name.
std::string DeepFmWorkload::precision_gap(Precision p) const {
  if (const std::string why = backend_->unsupported_reason(p); !why.empty()) return why;
  try {
    Backend& be = *backend_;
    const std::vector<float> one{1.f};
    Tensor a = be.upload(one, {1, 1}), b = be.upload(one, {1, 1}), c = be.empty({1, 1});
    GemmBatch g;
    g.m = g.n = g.k = 1, g.lda = g.ldb = g.ldc = 1, g.trans_a = true;
    g.a_offsets = g.b_offsets = g.c_offsets = {0};
    g.precision = p;
    be.gemm_batched(g, a, b, c);
    be.synchronize();
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

// Where amp cannot run, the stages above it go on without it (in fp32), as a ladder does.
Switches DeepFmWorkload::switches(size_t stage) const {
  if (!amp_gap_) amp_gap_ = precision_gap(reduced_precision());
  Switches sw = switches_for(stage, reduced_precision());
  if (!amp_gap_->empty()) sw.precision = Precision::f32, sw.loss_scaling = false;
  return sw;
}

std::string DeepFmWorkload::skip_reason(size_t stage) const {
  if (stage == kBatchedTransfer && backend_->name() == "cpu")
    return "the cpu backend computes in host memory: there is nothing to transfer";
  if (stage == kAmp) {
    switches(stage);  // asks the backend once
    if (!amp_gap_->empty())
      return std::string("no ") + precision_name(reduced_precision()) +
             " GEMM here (the stages above run in fp32): " + *amp_gap_;
  }
  return {};
}

void DeepFmWorkload::prepare(size_t stage) {
  auto r = std::make_unique<StageRun>();
  r->sw = switches(stage);
  if (!is_data_phase(stage)) {
    r->trainer = std::make_unique<Trainer>(*backend_, config_, *params_, dataset_.type_weights,
                                           r->sw, options_.seed);
    BatchOptions bo;
    bo.batch_size = config_.batch;
    bo.seed = options_.seed;
    r->source = std::make_unique<BatchSource>(dataset_.train, bo);
    r->host = Batch(config_.batch);
    if (r->sw.prefetch) {
      const int64_t b = config_.batch;
      const size_t bytes = static_cast<size_t>(b) * (kFields + kOutcomes + 2) * 4;
      for (int slot = 0; slot <= kLoaderDepth; ++slot) {
        r->staging.push_back(backend_->host_staging(bytes));
        r->slots.push_back(carve(*r->staging.back(), b));
      }
      LoaderOptions lo;
      lo.workers = kLoaderWorkers;
      lo.depth = kLoaderDepth;
      StageRun* run = r.get();
      lo.after_fill = [run, offsets = offsets_](const BatchView& v, int slot) {
        std::span<int32_t> f = run->slots.at(static_cast<size_t>(slot)).fields;
        for (size_t i = 0; i < static_cast<size_t>(v.size) * kFields; ++i) f[i] += offsets[i % 4];
      };
      r->loader = std::make_unique<PrefetchLoader>(
          dataset_.train, bo, lo,
          [run](int slot, int64_t) { return run->slots.at(static_cast<size_t>(slot)); });
    }
    if (r->sw.batched_transfer) {
      const int64_t b = config_.batch;
      r->device = {backend_->empty({b, 4}, DType::i32), backend_->empty({b, kOutcomes}),
                   backend_->empty({b}, DType::i32), backend_->empty({b}, DType::i32)};
    }
  }
  runs_[stage] = std::move(r);
}

StepResult DeepFmWorkload::step(StageRun& r, PhaseTimes* times) {
  Backend& be = *backend_;
  StepPhases phases(be, times);
  // Data: the step's batch (assembled now, or taken ready from the workers), its field codes
  // offset into the one concatenated table.
  PrefetchLoader::Ready ready;
  BatchView view;
  if (r.loader) {
    ready = r.loader->next();
    view = *ready;
  } else {
    view = r.source->fill(r.next, r.host.buffers());
  }
  ++r.next;
  std::span<const int32_t> ids = view.fields;  // the loader's workers offset them already
  if (!r.loader) {
    r.ids.assign(view.fields.begin(), view.fields.end());
    for (size_t i = 0; i < r.ids.size(); ++i) r.ids[i] += offsets_[i % 4];
    ids = r.ids;
  }
  const int64_t b = view.size;
  phases.end("data", &PhaseTimes::data);
  // Host to device: per tensor, blocking, into new tensors (as .to(device) is), or
  // non-blocking writes into the preallocated batch.
  DeviceBatch fresh;
  DeviceBatch& d = r.sw.batched_transfer ? r.device : fresh;
  if (r.sw.batched_transfer) {
    be.write_ids(ids, d.ids, false);
    be.write(view.outcome, d.outcome, false);
    be.write_ids(view.direction, d.direction, false);
    be.write_ids(view.type, d.type, false);
  } else {
    d.ids = be.upload_ids(ids, {b, 4});
    d.outcome = be.upload(view.outcome, {b, kOutcomes});
    d.direction = be.upload_ids(view.direction, {b});
    d.type = be.upload_ids(view.type, {b});
  }
  phases.end("h2d", &PhaseTimes::h2d);
  r.trainer->forward_model(d);
  phases.end("forward", &PhaseTimes::forward);
  r.trainer->losses(d);
  phases.end_part("loss", &PhaseTimes::forward, &PhaseTimes::loss);
  r.trainer->backward(d);
  phases.end("backward", &PhaseTimes::backward);
  StepResult res = r.trainer->update();
  // The host batch may be reused once the device has read it: the update's loss read-back
  // synchronized, and the non-blocking writes were queued before the step's kernels.
  be.synchronize();
  phases.end("optimizer", &PhaseTimes::optimizer);
  return res;
}

void DeepFmWorkload::run(size_t stage) {
  StageRun& r = *runs_.at(stage);
  if (is_data_phase(stage)) {
    r.cleaned = clean_table(table_, stage == kLiteralStrings ? Cleaning::literal : Cleaning::regex);
    return;
  }
  r.last = step(r, nullptr);
}

std::vector<float> DeepFmWorkload::output(size_t stage) {
  StageRun& r = *runs_.at(stage);
  if (!is_data_phase(stage)) return {};
  // The encoding the cleaned table gives, as numbers: equal cleaning gives equal encodings.
  const Dataset d = split_and_encode(r.cleaned, options_.seed);
  std::vector<float> out;
  for (const Encoded* e : {&d.train, &d.test}) {
    for (int32_t v : e->fields) out.push_back(static_cast<float>(v) + 1.f);
    for (int32_t v : e->type) out.push_back(static_cast<float>(v) + 1.f);
  }
  return out;
}

TrainTrace DeepFmWorkload::train(size_t stage, int64_t steps) {
  StageRun& r = *runs_.at(stage);
  r.trainer->reset();
  // The check's batches come from a fresh synchronous source: steps 0, 1, ... for every stage.
  BatchOptions bo = r.source->options();
  StageRun check;
  check.sw = r.sw;
  check.sw.prefetch = false;
  check.trainer = std::move(r.trainer);
  check.source = std::make_unique<BatchSource>(dataset_.train, bo);
  check.host = Batch(config_.batch);
  check.device = r.device;
  TrainTrace t;
  task_losses_.clear();
  try {
    for (int64_t s = 0; s < steps; ++s) {
      const StepResult res = step(check, nullptr);
      t.loss.push_back(res.loss);
      task_losses_.insert(task_losses_.end(), res.task_loss.begin(), res.task_loss.end());
    }
    t.params = check.trainer->parameters();
  } catch (...) {
    r.trainer = std::move(check.trainer);
    throw;
  }
  r.trainer = std::move(check.trainer);
  return t;
}

std::optional<TrainTrace> DeepFmWorkload::train_trace(size_t stage) {
  if (is_data_phase(stage)) return std::nullopt;
  return train(stage, config_.check_steps);
}

WorkCounts DeepFmWorkload::counts(size_t stage) const {
  WorkCounts w;
  if (is_data_phase(stage)) {
    w.items = static_cast<double>(table_.rows.size());
    w.item_name = "rows";
    for (const auto& row : table_.rows)
      for (const auto& v : row) w.bytes += 2.0 * static_cast<double>(v.size());
    return w;
  }
  const StepCounts c = step_counts(config_, model_rows_);
  w.flops = c.flops;
  w.bytes = c.bytes;
  w.items = static_cast<double>(config_.batch);
  w.item_name = "samples";
  const Precision p = switches(stage).precision;
  w.precision = p == Precision::f32 ? "fp32" : precision_name(p);
  return w;
}

CollectorSources DeepFmWorkload::sources() {
  return collector_sources(*backend_);
}

nlohmann::json DeepFmWorkload::params() const {
  const Config& c = config_;
  nlohmann::json p = {{"batch", c.batch},
                      {"embed", c.embed},
                      {"hidden", c.hidden},
                      {"deep_layers", c.layers},
                      {"heads", c.heads},
                      {"dropout", c.dropout},
                      {"lr", c.lr},
                      {"weight_decay", c.weight_decay},
                      {"check_steps", c.check_steps},
                      {"parameters", params_->count()},
                      {"table", table_.source},
                      {"table_rows", static_cast<int64_t>(table_.rows.size())},
                      {"train_rows", dataset_.train.rows},
                      {"test_rows", dataset_.test.rows}};
  // A checkpoint's own widths and where they came from (not written for the sizes, whose
  // documents stay as they were).
  if (!options_.weights.empty()) {
    p["configuration"] = c.source;
    p["ff"] = c.ff_width();
    p["deep_widths"] = c.deep_widths;
    p["vocab"] = model_rows_;
  }
  return p;
}

nlohmann::json DeepFmWorkload::summaries(size_t stage) {
  StageRun& r = *runs_.at(stage);
  nlohmann::json s = nlohmann::json::object();
  if (is_data_phase(stage)) {
    s["cleaning"] = stage == kLiteralStrings ? "literal" : "regex (PCRE2)";
    s["rows"] = static_cast<int64_t>(table_.rows.size());
    return s;
  }
  // Phases: a few more steps, each phase ended by a synchronization so that its device work
  // is inside it. The syncs add a little; the timed steps had none but the loss read-back.
  write_step_phases(
      s, kPhaseSteps, [&](PhaseTimes& t) { step(r, &t); }, /*with_samples=*/true);
  write_memory_split(s, r.trainer->memory());
  s[summary::kLastLoss.key] = r.last.loss;
  if (r.sw.loss_scaling) {
    s[summary::kLossScale.key] = r.trainer->loss_scale();
    s[summary::kSkippedSteps.key] = r.trainer->skipped_steps();
  }
  s[summary::kSteps.key] = r.trainer->steps();
  if (r.loader)
    s["loader"] = {{"workers", kLoaderWorkers},
                   {"depth", kLoaderDepth},
                   {"staging", r.staging.front()->kind()}};
  if (r.sw.autotune) {
    nlohmann::json choices = nlohmann::json::object();
    for (const auto& [key, kernel] : backend_->autotune_choices()) choices[key] = kernel;
    s["autotune_choices"] = choices;
  }
  return s;
}

void DeepFmWorkload::release(size_t stage) {
  runs_.at(stage).reset();
}

}  // namespace sb::deepfm
