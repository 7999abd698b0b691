#include "schema/records.h"

#include <cmath>
#include <set>
#include <stdexcept>

namespace sb {

Number finite_or_unknown(double v) {
  return std::isfinite(v) ? Number(v) : std::nullopt;
}

namespace {

using json = nlohmann::json;

json number_json(const Number& v) {
  return v && std::isfinite(*v) ? json(*v) : json(nullptr);
}
json text_json(const Text& t) {
  return t ? json(*t) : json(nullptr);
}
json bytes_json(const Bytes& b) {
  return b ? json(*b) : json(nullptr);
}
json bool_json(const std::optional<bool>& b) {
  return b ? json(*b) : json(nullptr);
}

// Walks one object, reading typed fields and naming every problem by its path. Absent keys
// are problems only where `required` says so; a present key of the wrong type always is.
class Reader {
 public:
  Reader(const json& j, std::string where, std::vector<std::string>& problems)
      : j_(j), where_(std::move(where)), problems_(problems) {
    if (!j_.is_object()) add(where_, std::string("expected an object, got ") + j_.type_name());
  }

  bool ok() const { return j_.is_object(); }
  const json* find(const char* key) const {
    if (!j_.is_object()) return nullptr;
    const auto it = j_.find(key);
    return it == j_.end() ? nullptr : &*it;
  }
  std::string path(const char* key) const { return where_ + "." + key; }

  void number(const char* key, Number& out) {
    const json* v = present(key, false);
    if (!v || v->is_null()) return;
    if (v->is_number()) {
      out = v->get<double>();
    } else {
      wrong(key, "a number or null", *v);
    }
  }
  void count(const char* key, int64_t& out) {
    Number n;
    number(key, n);
    if (!n) return;
    if (!(*n >= 0 && *n <= 9e15 && std::floor(*n) == *n)) {
      add(path(key), "expected a whole count >= 0, got " + find(key)->dump());
    } else {
      out = static_cast<int64_t>(*n);
    }
  }
  void bytes(const char* key, Bytes& out) {
    Number n;
    number(key, n);
    if (!n) return;
    if (!(*n >= 0 && *n <= 1.8e19 && std::floor(*n) == *n)) {
      add(path(key), "expected a whole byte count >= 0, got " + find(key)->dump());
    } else {
      out = static_cast<uint64_t>(*n);
    }
  }
  void string(const char* key, std::string& out, bool required) {
    const json* v = present(key, required);
    if (!v) return;
    if (v->is_string()) {
      out = v->get<std::string>();
    } else {
      wrong(key, "a string", *v);
    }
  }
  void text(const char* key, Text& out) {
    const json* v = present(key, false);
    if (!v || v->is_null()) return;
    if (v->is_string()) {
      out = v->get<std::string>();
    } else {
      wrong(key, "a string or null", *v);
    }
  }
  void boolean(const char* key, std::optional<bool>& out) {
    const json* v = present(key, false);
    if (!v || v->is_null()) return;
    if (v->is_boolean()) {
      out = v->get<bool>();
    } else {
      wrong(key, "a boolean or null", *v);
    }
  }
  void strings(const char* key, std::vector<std::string>& out) {
    const json* v = present(key, false);
    if (!v || v->is_null()) return;
    if (!v->is_array()) return wrong(key, "an array of strings", *v);
    for (size_t i = 0; i < v->size(); ++i) {
      const json& e = (*v)[i];
      if (e.is_string()) {
        out.push_back(e.get<std::string>());
      } else {
        add(path(key) + "[" + std::to_string(i) + "]",
            std::string("expected a string, got ") + e.type_name());
      }
    }
  }
  void numbers(const char* key, std::optional<std::vector<double>>& out) {
    const json* v = present(key, false);
    if (!v) return;
    if (!v->is_array()) return wrong(key, "an array of numbers", *v);
    out.emplace();
    for (size_t i = 0; i < v->size(); ++i) {
      const json& e = (*v)[i];
      if (e.is_number()) {
        out->push_back(e.get<double>());
      } else {
        add(path(key) + "[" + std::to_string(i) + "]",
            std::string("expected a number, got ") + e.type_name());
      }
    }
  }
  // An object-or-null block: a Reader over it when it is an object.
  std::optional<Reader> block(const char* key, bool required = false) {
    const json* v = present(key, required);
    if (!v || v->is_null()) return std::nullopt;
    if (!v->is_object()) {
      wrong(key, required ? "an object" : "an object or null", *v);
      return std::nullopt;
    }
    return Reader(*v, path(key), problems_);
  }
  // An open block kept as JSON: an object (or null, unless required) of any content.
  void open(const char* key, json& out, bool required = false) {
    const json* v = present(key, required);
    if (!v) return;
    if (v->is_object() || (!required && v->is_null())) {
      out = *v;
    } else {
      wrong(key, required ? "an object" : "an object or null", *v);
    }
  }
  // Each member of an object-or-null block, with a Reader over it.
  template <typename F>
  void members(const char* key, F each) {
    const json* v = present(key, false);
    if (!v || v->is_null()) return;
    if (!v->is_object()) return wrong(key, "an object or null", *v);
    for (const auto& [name, value] : v->items()) {
      Reader m(value, path(key) + "." + name, problems_);
      each(name, m);
    }
  }
  // Keys this reader was not told about, kept verbatim.
  void rest(std::map<std::string, json>& out, const std::set<std::string>& known) const {
    if (!j_.is_object()) return;
    for (const auto& [k, v] : j_.items())
      if (!known.count(k)) out[k] = v;
  }
  void add(const std::string& where, const std::string& what) {
    problems_.push_back(where + ": " + what);
  }

 private:
  const json* present(const char* key, bool required) {
    const json* v = find(key);
    if (!v && required && ok()) add(path(key), "missing");
    return v;
  }
  void wrong(const char* key, const char* expected, const json& v) {
    add(path(key), std::string("expected ") + expected + ", got " + v.type_name());
  }

  const json& j_;
  std::string where_;
  std::vector<std::string>& problems_;
};

const std::set<std::string> kStageKeys = {
    "id",          "title",     "claim",      "status",    "reason",   "reasons",
    "time",        "speedup",   "throughput", "memory",    "counters", "opencl",
    "correctness", "summaries", "samples_ms", "precision", "gemm_path"};
const std::set<std::string> kRunKeys = {"model",  "size",     "backend",  "device", "mode",
                                        "params", "complete", "status",   "reason", "ceilings",
                                        "job",    "stages",   "reference"};
const std::set<std::string> kReferenceKeys = {"name",   "torch",    "device", "script",
                                              "timing", "variants", "best",   "work"};

void read_time(Reader& r, TimeRecord& t) {
  r.number("median_ms", t.median_ms);
  r.number("mean_ms", t.mean_ms);
  r.number("stddev_ms", t.stddev_ms);
  r.number("min_ms", t.min_ms);
  r.number("max_ms", t.max_ms);
  r.number("p10_ms", t.p10_ms);
  r.number("p90_ms", t.p90_ms);
  r.number("cv", t.cv);
  r.count("samples", t.samples);
  r.text("stop_reason", t.stop_reason);
}

void read_ci95(Reader& r, SpeedupRecord& sp) {
  const json* v = r.find("ci95");
  if (!v || v->is_null()) return;
  auto ok = [](const json& e) { return e.is_number() || e.is_null(); };
  if (!v->is_array() || v->size() != 2 || !ok((*v)[0]) || !ok((*v)[1])) {
    r.add(r.path("ci95"), std::string("expected [lo, hi] or null, got ") + v->dump());
    return;
  }
  sp.ci95.emplace();
  for (size_t i = 0; i < 2; ++i)
    if ((*v)[i].is_number()) (*sp.ci95)[i] = (*v)[i].get<double>();
}

void read_memory(Reader& r, MemoryRecord& m) {
  r.bytes("host_peak_bytes", m.host_peak_bytes);
  r.bytes("host_tensor_peak_bytes", m.host_tensor_peak_bytes);
  r.bytes("device_peak_bytes", m.device_peak_bytes);
  r.boolean("rss_reset", m.rss_reset);
}

void read_correctness(Reader& r, CorrectnessRecord& c) {
  r.number("cosine", c.cosine);
  r.number("max_abs", c.max_abs);
  r.number("rel_l2", c.rel_l2);
  r.number("tolerance", c.tolerance);
  r.number("rel_l2_tolerance", c.rel_l2_tolerance);
  r.string("basis", c.basis, false);
  r.number("loss_max_rel", c.loss_max_rel);
  r.number("loss_tolerance", c.loss_tolerance);
  r.boolean("pass", c.pass);
}

const std::set<std::string> kStatuses = {"ok", "skipped", "failed", "invalid"};

}  // namespace

StageRecord read_stage(const json& j, const std::string& where,
                       std::vector<std::string>& problems) {
  StageRecord s;
  Reader r(j, where, problems);
  if (!r.ok()) return s;
  r.string("id", s.id, true);
  r.string("title", s.title, false);
  s.status.clear();
  r.string("status", s.status, true);
  if (r.find("status") && r.find("status")->is_string() && !kStatuses.count(s.status)) {
    r.add(r.path("status"), "'" + s.status + "' is not one of ok, skipped, failed, invalid");
  }
  r.text("reason", s.reason);
  r.text("precision", s.precision);
  r.text("gemm_path", s.gemm_path);
  r.strings("reasons", s.reasons);
  if (auto c = r.block("claim")) {
    c->string("source", s.claim.source, false);
    c->string("text", s.claim.text, false);
    c->number("speedup", s.claim.speedup);
    if (auto pt = c->block("pytorch")) {
      pt->strings("variants", s.claim.pytorch);
      pt->text("none", s.claim.pytorch_none);
    }
    if (auto ph = c->block("phase")) {
      ph->text("name", s.claim.phase);
      std::optional<std::vector<double>> range;
      ph->numbers("speedup", range);
      if (range && range->size() == 2) {
        s.claim.phase_speedup_lo = (*range)[0];
        s.claim.phase_speedup_hi = (*range)[1];
      }
    }
  }
  if (auto t = r.block("time")) read_time(*t, s.time);
  if (auto sp = r.block("speedup")) {
    sp->text("baseline", s.speedup.baseline);
    sp->number("vs_baseline", s.speedup.vs_baseline);
    read_ci95(*sp, s.speedup);
    sp->number("ci95_coverage", s.speedup.ci95_coverage);
    sp->number("vs_previous", s.speedup.vs_previous);
  }
  if (auto tp = r.block("throughput")) {
    tp->number("items_per_s", s.throughput.items_per_s);
    tp->text("item_name", s.throughput.item_name);
    tp->number("gflops", s.throughput.gflops);
    tp->number("gbytes_per_s", s.throughput.gbytes_per_s);
    tp->number("roofline_frac", s.throughput.roofline_frac);
    tp->text("ceiling_precision", s.throughput.ceiling_precision);
  }
  if (auto m = r.block("memory")) read_memory(*m, s.memory);
  r.members("counters", [&](const std::string& name, Reader& c) {
    if (!c.ok()) return;
    CounterRecord& counter = s.counters[name];
    c.number("value", counter.value);
    c.number("per_item", counter.per_item);
    c.string("tier", counter.tier, false);
    c.text("scope", counter.scope);
    c.text("error", counter.error);
  });
  r.open("opencl", s.opencl);
  if (auto c = r.block("correctness")) read_correctness(*c, s.correctness);
  r.open("summaries", s.summaries);
  r.numbers("samples_ms", s.samples_ms);
  // Wall times: a negative one was taken into the median, intervals and speedups as measured.
  if (s.samples_ms)
    for (size_t i = 0; i < s.samples_ms->size(); ++i)
      if (!((*s.samples_ms)[i] >= 0))
        r.add(r.path("samples_ms") + "[" + std::to_string(i) + "]",
              "a wall time cannot be negative, got " + nlohmann::json((*s.samples_ms)[i]).dump());
  r.rest(s.sections, kStageKeys);
  return s;
}

RunRecord read_run(const json& j, const std::string& where, std::vector<std::string>& problems) {
  RunRecord run;
  Reader r(j, where, problems);
  if (!r.ok()) return run;
  r.string("model", run.model, true);
  r.string("size", run.size, true);
  r.string("backend", run.backend, true);
  r.string("device", run.device, true);
  run.mode.clear();
  r.string("mode", run.mode, true);
  if (r.find("mode") && r.find("mode")->is_string() && run.mode != "inference" &&
      run.mode != "train") {
    r.add(r.path("mode"), "'" + run.mode + "' is not inference or train");
  }
  r.open("params", run.params, true);
  r.boolean("complete", run.complete);
  r.text("status", run.status);
  r.text("reason", run.reason);
  if (auto c = r.block("ceilings")) {
    CeilingsRecord& ceilings = run.ceilings.emplace();
    c->number("gemm_fp32_gflops", ceilings.gemm_fp32_gflops);
    c->number("stream_gbytes_per_s", ceilings.stream_gbytes_per_s);
    // Numbers by precision (members() would want an object for each: a run with --ceiling
    // once wrote a document that every reader then refused).
    if (const json* given = c->find("gemm_gflops_given"); given && !given->is_null()) {
      if (!given->is_object()) {
        c->add(c->path("gemm_gflops_given"),
               std::string("expected an object or null, got ") + given->type_name());
      } else {
        for (const auto& [name, v] : given->items()) {
          if (v.is_number())
            ceilings.gemm_gflops_given[name] = v.get<double>();
          else
            c->add(c->path("gemm_gflops_given") + "." + name,
                   std::string("expected a number, got ") + v.type_name());
        }
      }
    }
    c->string("method", ceilings.method, false);
  }
  if (auto t = r.block("job")) {
    JobTag& tag = run.job.emplace();
    t->string("key", tag.key, false);
    t->count("index", tag.index);
    t->string("origin", tag.origin, false);
  }
  const json* stages = r.find("stages");
  if (!stages) {
    r.add(r.path("stages"), "missing");
  } else if (!stages->is_array()) {
    r.add(r.path("stages"), std::string("expected an array, got ") + stages->type_name());
  } else {
    for (size_t i = 0; i < stages->size(); ++i)
      run.stages.push_back(
          read_stage((*stages)[i], r.path("stages") + "[" + std::to_string(i) + "]", problems));
  }
  if (const json* ref = r.find("reference"); ref && !ref->is_null())
    run.reference = read_reference(*ref, r.path("reference"), problems);
  r.rest(run.sections, kRunKeys);
  return run;
}

ReferenceRecord read_reference(const json& j, const std::string& where,
                               std::vector<std::string>& problems) {
  ReferenceRecord ref;
  Reader r(j, where, problems);
  if (!r.ok()) return ref;
  r.string("name", ref.name, false);
  r.string("torch", ref.torch, false);
  r.string("device", ref.device, false);
  r.string("script", ref.script, false);
  r.string("timing", ref.timing, false);
  r.text("best", ref.best);
  if (const json* work = r.find("work"); work && !work->is_null()) {
    if (work->is_object())
      ref.work = *work;
    else
      r.add(r.path("work"), std::string("expected an object, got ") + work->type_name());
  }
  const json* variants = r.find("variants");
  if (!variants) {
    r.add(r.path("variants"), "missing");
  } else if (!variants->is_array()) {
    r.add(r.path("variants"), std::string("expected an array, got ") + variants->type_name());
  } else {
    for (size_t i = 0; i < variants->size(); ++i) {
      Reader v((*variants)[i], r.path("variants") + "[" + std::to_string(i) + "]", problems);
      if (!v.ok()) continue;
      ReferenceVariant& out = ref.variants.emplace_back();
      v.string("name", out.name, true);
      v.number("median_ms", out.median_ms);
      v.count("samples", out.samples);
      v.bytes("peak_bytes", out.peak_bytes);
      v.number("throughput", out.throughput);
      v.text("throughput_unit", out.throughput_unit);
      v.text("error", out.error);
      v.text("precision", out.precision);
      v.boolean("correct", out.correct);
      v.number("rel_l2", out.rel_l2);
    }
  }
  r.rest(ref.sections, kReferenceKeys);
  return ref;
}

DocumentRecord read_document_record(const json& document, std::vector<std::string>& problems) {
  DocumentRecord d;
  if (!document.is_object()) {
    problems.push_back(std::string("document: expected a JSON object, got ") +
                       document.type_name());
    return d;
  }
  const auto schema = document.find("schema");
  if (schema == document.end()) {
    problems.push_back("schema: missing (expected \"" + std::string(kSchema) + "\")");
  } else if (!schema->is_string() || schema->get<std::string>() != kSchema) {
    problems.push_back("schema: unsupported " + schema->dump() + " (expected \"" + kSchema + "\")");
  }
  auto need = [&](const char* key, bool (json::*is)() const noexcept, const char* expected) {
    const auto it = document.find(key);
    if (it == document.end()) {
      problems.push_back(std::string("document.") + key + ": missing");
    } else if (!((*it).*is)()) {
      problems.push_back(std::string("document.") + key + ": expected " + expected + ", got " +
                         it->type_name());
    } else {
      return true;
    }
    return false;
  };
  if (need("context", &json::is_object, "an object")) d.context = document.at("context");
  if (need("runs", &json::is_array, "an array")) {
    const json& runs = document.at("runs");
    d.runs.reserve(runs.size());
    for (size_t i = 0; i < runs.size(); ++i)
      d.runs.push_back(read_run(runs[i], "runs[" + std::to_string(i) + "]", problems));
  }
  for (const auto& [k, v] : document.items())
    if (k != "schema" && k != "context" && k != "runs") d.sections[k] = v;
  return d;
}

OpenclRecord read_opencl(const StageRecord& s) {
  OpenclRecord out;
  std::vector<std::string> ignored;  // the collector's block is open: what is malformed is unknown
  Reader r(s.opencl, "opencl", ignored);
  if (!r.ok()) return out;
  out.present = true;
  r.number("h2d_bytes", out.h2d_bytes);
  r.number("d2h_bytes", out.d2h_bytes);
  const json* kernels = r.find("kernels");
  if (!kernels || !kernels->is_array()) return out;
  for (size_t i = 0; i < kernels->size(); ++i) {
    Reader k((*kernels)[i], "opencl.kernels[" + std::to_string(i) + "]", ignored);
    if (!k.ok()) continue;
    KernelRecord& kernel = out.kernels.emplace_back();
    k.string("name", kernel.name, false);
    k.number("launches", kernel.launches);
    k.number("total_ns", kernel.total_ns);
  }
  return out;
}

void to_json(json& j, const StageRecord& s) {
  const auto& t = s.time;
  json ci95 = nullptr;
  if (s.speedup.ci95) ci95 = {number_json((*s.speedup.ci95)[0]), number_json((*s.speedup.ci95)[1])};
  json counters = json::object();
  for (const auto& [name, c] : s.counters) {
    json& out = counters[name];
    out = {
        {"value", number_json(c.value)}, {"per_item", number_json(c.per_item)}, {"tier", c.tier}};
    if (c.scope) out["scope"] = *c.scope;
    if (c.error) out["error"] = *c.error;
  }
  j = {{"id", s.id},
       {"title", s.title},
       {"claim",
        {{"source", s.claim.source},
         {"text", s.claim.text},
         {"speedup", number_json(s.claim.speedup)},
         {"pytorch",
          s.claim.pytorch.empty() && !s.claim.pytorch_none
              ? json(nullptr)
              : json{{"variants", s.claim.pytorch}, {"none", text_json(s.claim.pytorch_none)}}},
         {"phase", !s.claim.phase ? json(nullptr)
                                  : json{{"name", *s.claim.phase},
                                         {"speedup",
                                          {number_json(s.claim.phase_speedup_lo),
                                           number_json(s.claim.phase_speedup_hi)}}}}}},
       {"status", s.status},
       {"reason", text_json(s.reason)},
       {"precision", text_json(s.precision)},
       {"gemm_path", text_json(s.gemm_path)},
       {"reasons", s.reasons},
       {"time",
        {{"median_ms", number_json(t.median_ms)},
         {"mean_ms", number_json(t.mean_ms)},
         {"stddev_ms", number_json(t.stddev_ms)},
         {"min_ms", number_json(t.min_ms)},
         {"max_ms", number_json(t.max_ms)},
         {"p10_ms", number_json(t.p10_ms)},
         {"p90_ms", number_json(t.p90_ms)},
         {"cv", number_json(t.cv)},
         {"samples", t.samples},
         {"stop_reason", text_json(t.stop_reason)}}},
       {"speedup",
        {{"baseline", text_json(s.speedup.baseline)},
         {"vs_baseline", number_json(s.speedup.vs_baseline)},
         {"ci95", ci95},
         {"ci95_coverage", number_json(s.speedup.ci95_coverage)},
         {"vs_previous", number_json(s.speedup.vs_previous)}}},
       {"throughput",
        {{"items_per_s", number_json(s.throughput.items_per_s)},
         {"item_name", text_json(s.throughput.item_name)},
         {"gflops", number_json(s.throughput.gflops)},
         {"gbytes_per_s", number_json(s.throughput.gbytes_per_s)},
         {"roofline_frac", number_json(s.throughput.roofline_frac)},
         {"ceiling_precision", text_json(s.throughput.ceiling_precision)}}},
       {"memory",
        {{"host_peak_bytes", bytes_json(s.memory.host_peak_bytes)},
         {"host_tensor_peak_bytes", bytes_json(s.memory.host_tensor_peak_bytes)},
         {"device_peak_bytes", bytes_json(s.memory.device_peak_bytes)},
         {"rss_reset", bool_json(s.memory.rss_reset)}}},
       {"counters", counters},
       {"opencl", s.opencl},
       {"correctness",
        {{"cosine", number_json(s.correctness.cosine)},
         {"max_abs", number_json(s.correctness.max_abs)},
         {"rel_l2", number_json(s.correctness.rel_l2)},
         {"tolerance", number_json(s.correctness.tolerance)},
         {"rel_l2_tolerance", number_json(s.correctness.rel_l2_tolerance)},
         {"basis", s.correctness.basis},
         {"loss_max_rel", number_json(s.correctness.loss_max_rel)},
         {"loss_tolerance", number_json(s.correctness.loss_tolerance)},
         {"pass", bool_json(s.correctness.pass)}}}};
  if (!s.summaries.is_null()) j["summaries"] = s.summaries;
  if (s.samples_ms) j["samples_ms"] = *s.samples_ms;
  for (const auto& [k, v] : s.sections) j[k] = v;
}

void to_json(json& j, const RunRecord& r) {
  j = {{"model", r.model},   {"size", r.size}, {"backend", r.backend},
       {"device", r.device}, {"mode", r.mode}, {"params", r.params}};
  if (r.complete) j["complete"] = *r.complete;
  if (r.status) j["status"] = *r.status;
  if (r.status) j["reason"] = text_json(r.reason);
  if (r.ceilings) {
    j["ceilings"] = {{"gemm_fp32_gflops", number_json(r.ceilings->gemm_fp32_gflops)},
                     {"stream_gbytes_per_s", number_json(r.ceilings->stream_gbytes_per_s)},
                     {"gemm_gflops_given", r.ceilings->gemm_gflops_given},
                     {"method", r.ceilings->method}};
  }
  if (r.job) j["job"] = {{"key", r.job->key}, {"index", r.job->index}, {"origin", r.job->origin}};
  j["stages"] = r.stages;
  if (r.reference) j["reference"] = *r.reference;
  for (const auto& [k, v] : r.sections) j[k] = v;
}

void to_json(json& j, const ReferenceRecord& r) {
  json variants = json::array();
  for (const ReferenceVariant& v : r.variants)
    variants.push_back({{"name", v.name},
                        {"median_ms", number_json(v.median_ms)},
                        {"samples", v.samples},
                        {"peak_bytes", bytes_json(v.peak_bytes)},
                        {"throughput", number_json(v.throughput)},
                        {"throughput_unit", text_json(v.throughput_unit)},
                        {"error", text_json(v.error)},
                        {"precision", text_json(v.precision)},
                        {"correct", bool_json(v.correct)},
                        {"rel_l2", number_json(v.rel_l2)}});
  j = {{"name", r.name},
       {"torch", r.torch},
       {"device", r.device},
       {"script", r.script},
       {"timing", r.timing},
       {"variants", variants},
       {"best", text_json(r.best)},
       {"work", r.work.is_object() ? r.work : json()}};
  for (const auto& [k, v] : r.sections) j[k] = v;
}

void to_json(json& j, const DocumentRecord& d) {
  j = {{"schema", d.schema},
       {"context", d.context.is_null() ? json::object() : d.context},
       {"runs", d.runs}};
  for (const auto& [k, v] : d.sections) j[k] = v;
}

namespace {

template <typename Record, typename Read>
void read_strict(const json& j, Record& out, Read read, const char* what) {
  std::vector<std::string> problems;
  out = read(j, what, problems);
  if (!problems.empty()) throw std::invalid_argument(problems.front());
}

}  // namespace

void from_json(const json& j, StageRecord& s) {
  read_strict(j, s, read_stage, "stage");
}
void from_json(const json& j, RunRecord& r) {
  read_strict(j, r, read_run, "run");
}

}  // namespace sb
