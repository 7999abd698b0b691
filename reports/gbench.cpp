#include "reports/gbench.h"

#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "schema/context_record.h"

namespace sb {
namespace {

// v[a][b]... when every step exists, else null.
const nlohmann::json& at_path(const nlohmann::json& v, std::initializer_list<const char*> path) {
  static const nlohmann::json null_value;
  const nlohmann::json* cur = &v;
  for (const char* k : path) {
    if (!cur->is_object()) return null_value;
    const auto it = cur->find(k);
    if (it == cur->end()) return null_value;
    cur = &*it;
  }
  return *cur;
}

nlohmann::json caches(const CpuFacts& cpu) {
  nlohmann::json out = nlohmann::json::array();
  const struct {
    std::optional<int64_t> size;
    const char* type;
    int level;
  } levels[] = {
      {cpu.l1d_bytes, "Data", 1}, {cpu.l2_bytes, "Unified", 2}, {cpu.l3_bytes, "Unified", 3}};
  for (const auto& l : levels) {
    if (!l.size) continue;
    out.push_back({{"type", l.type}, {"level", l.level}, {"size", *l.size}, {"num_sharing", 0}});
  }
  return out;
}

nlohmann::json gbench_context(const nlohmann::json& context) {
  const ContextRecord ctx = read_context(context);
  nlohmann::json out = {
      {"date", ctx.date},
      {"host_name", ctx.host},
      {"executable", ctx.executable.empty() ? std::string("stagebench") : ctx.executable},
      {"num_cpus", ctx.cpu.logical_cores.value_or(0)},
      {"mhz_per_cpu", ctx.cpu.mhz ? std::lround(*ctx.cpu.mhz) : 0L},
      {"cpu_scaling_enabled", false},
      {"caches", caches(ctx.cpu)},
      {"load_avg", nlohmann::json::array()},
      {"library_build_type", ctx.build.type == "Debug" ? "debug" : "release"},
      {"json_schema_version", 1},
      {"stagebench_schema", ctx.present ? "stagebench/1" : ""}};
  return out;
}

bool timed_stage(const StageRecord& stage) {
  return (stage.status == "ok" || stage.status == "invalid") && stage.time.median_ms.has_value();
}

std::string label_or_unknown(const std::string& s) {
  return s.empty() ? "?" : s;
}

// "model/size/backend" with "/batch:B" when B != 1.
std::string base_name(const RunRecord& run) {
  std::string name = label_or_unknown(run.model) + "/" + label_or_unknown(run.size) + "/" +
                     label_or_unknown(run.backend);
  const auto& batch = at_path(run.params, {"batch"});
  if (batch.is_number_integer() && batch.get<int64_t>() != 1)
    name += "/batch:" + std::to_string(batch.get<int64_t>());
  return name;
}

void put_number(nlohmann::json& out, const char* key, const Number& v) {
  if (v && std::isfinite(*v)) out[key] = *v;
}

void put_number(nlohmann::json& out, const char* key, const Bytes& v) {
  if (v) out[key] = *v;
}

nlohmann::json benchmark(const std::string& name, size_t family, size_t instance,
                         const StageRecord& stage) {
  const double median = *stage.time.median_ms;
  const auto cpu_ns = stage.counters.find("os::cpu_time_ns");
  const double cpu_ms =
      cpu_ns != stage.counters.end() && cpu_ns->second.value ? *cpu_ns->second.value / 1e6 : median;
  nlohmann::json b = {{"name", name},
                      {"family_index", family},
                      {"per_family_instance_index", instance},
                      {"run_name", name},
                      {"run_type", "iteration"},
                      {"repetitions", 1},
                      {"repetition_index", 0},
                      {"threads", 1},
                      {"iterations", stage.time.samples},
                      {"real_time", median},
                      {"cpu_time", cpu_ms},
                      {"time_unit", "ms"}};
  put_number(b, "items_per_second", stage.throughput.items_per_s);
  // User counters, as Google Benchmark writes them: numbers beside the standard keys.
  put_number(b, "speedup_vs_baseline", stage.speedup.vs_baseline);
  if (stage.speedup.ci95) {
    put_number(b, "speedup_ci95_lo", (*stage.speedup.ci95)[0]);
    put_number(b, "speedup_ci95_hi", (*stage.speedup.ci95)[1]);
  }
  put_number(b, "speedup_vs_previous", stage.speedup.vs_previous);
  put_number(b, "claimed_speedup", stage.claim.speedup);
  put_number(b, "cv", stage.time.cv);
  put_number(b, "p10_ms", stage.time.p10_ms);
  put_number(b, "p90_ms", stage.time.p90_ms);
  put_number(b, "gflops", stage.throughput.gflops);
  put_number(b, "gbytes_per_s", stage.throughput.gbytes_per_s);
  put_number(b, "host_peak_bytes", stage.memory.host_peak_bytes);
  put_number(b, "device_peak_bytes", stage.memory.device_peak_bytes);
  put_number(b, "cosine", stage.correctness.cosine);
  if (stage.status != "ok") b["label"] = "invalid" + (stage.reason ? ": " + *stage.reason : "");
  return b;
}

}  // namespace

nlohmann::json gbench_document(const nlohmann::json& doc) {
  // Read leniently: the caller validated, and what is malformed is left out or unknown.
  std::vector<std::string> ignored;
  return gbench_from_records(read_document_record(doc, ignored));
}

nlohmann::json gbench_from_records(const DocumentRecord& doc) {
  std::vector<std::pair<size_t, const RunRecord*>> complete;  // index in runs, run
  for (size_t i = 0; i < doc.runs.size(); ++i) {
    // "complete" may be absent or null (unknown: kept); only an explicit false is left out.
    if (doc.runs[i].complete == false) continue;
    complete.emplace_back(i, &doc.runs[i]);
  }
  std::map<std::string, size_t> uses;
  for (const auto& [index, run] : complete) ++uses[base_name(*run)];

  nlohmann::json benchmarks = nlohmann::json::array();
  size_t family = 0;
  for (const auto& [index, run] : complete) {
    std::string base = base_name(*run);
    if (uses[base] > 1) base += "/run:" + std::to_string(index);
    for (const StageRecord& stage : run->stages) {
      if (!timed_stage(stage)) continue;
      benchmarks.push_back(benchmark(base + "/" + label_or_unknown(stage.id), family++, 0, stage));
    }
  }
  return {{"context", gbench_context(doc.context)}, {"benchmarks", benchmarks}};
}

}  // namespace sb
