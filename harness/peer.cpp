#include "harness/peer.h"

#include <algorithm>

#include <cmath>
#include <stdexcept>

namespace sb {
namespace {

using json = nlohmann::json;

std::string text_at(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// A finite number >= 0 at j[key], else unknown; a present value of another kind is an error.
Number non_negative(const json& j, const char* key, const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0)
    throw std::invalid_argument(where + "." + key + ": expected a number >= 0, got " + it->dump());
  return it->get<double>();
}

}  // namespace

std::vector<std::string> peer_arguments(const PeerScript& script, const std::string& size,
                                        const std::string& device, int runs,
                                        const std::filesystem::path& json_out) {
  std::vector<std::string> args = script.leading;
  for (const std::string& a :
       {std::string("--size"), size, std::string("--device"), device, std::string("--runs"),
        std::to_string(runs), std::string("--peer-json"), json_out.string()})
    args.push_back(a);
  return args;
}

ReferenceRecord reference_from_script(const json& out, const std::string& script) {
  if (!out.is_object()) throw std::invalid_argument("the script's JSON is not an object");
  const auto variants = out.find("variants");
  if (variants == out.end() || !variants->is_array() || variants->empty())
    throw std::invalid_argument("the script's JSON has no variants");
  ReferenceRecord r;
  r.torch = text_at(out, "torch");
  r.device = text_at(out, "device");
  r.timing = text_at(out, "timing");
  r.script = script;
  for (size_t i = 0; i < variants->size(); ++i) {
    const json& v = (*variants)[i];
    const std::string where = "variants[" + std::to_string(i) + "]";
    if (!v.is_object() || text_at(v, "name").empty())
      throw std::invalid_argument(where + ": expected an object with a name");
    ReferenceVariant& out_v = r.variants.emplace_back();
    out_v.name = text_at(v, "name");
    if (const Number s = non_negative(v, "median_s", where)) out_v.median_ms = *s * 1e3;
    if (const Number n = non_negative(v, "samples", where)) out_v.samples = std::llround(*n);
    if (const Number b = non_negative(v, "peak_bytes", where))
      out_v.peak_bytes = static_cast<uint64_t>(std::llround(*b));
    out_v.throughput = non_negative(v, "throughput", where);
    if (!text_at(v, "unit").empty()) out_v.throughput_unit = text_at(v, "unit");
    if (!text_at(v, "error").empty()) out_v.error = text_at(v, "error");
    if (!text_at(v, "precision").empty()) out_v.precision = text_at(v, "precision");
    if (const auto c = v.find("correct"); c != v.end() && c->is_boolean())
      out_v.correct = c->get<bool>();
    out_v.rel_l2 = non_negative(v, "rel_l2", where);
    // A variant is either timed or explained: a reader never sees a silent gap.
    if (!out_v.median_ms && !out_v.error)
      throw std::invalid_argument(where + " (" + out_v.name + "): neither median_s nor error");
  }
  if (const auto w = out.find("work"); w != out.end() && w->is_object()) r.work = *w;
  if (const std::string best = best_variant(r.variants); !best.empty()) r.best = best;
  if (const auto inf = out.find("inference"); inf != out.end() && !inf->is_null()) {
    json block = *inf;
    if (block.is_object()) block["torch"] = r.torch, block["device"] = r.device;
    try {
      r.sections["inference"] = reference_from_script(block, script);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("inference: ") + e.what());
    }
  }
  return r;
}

std::string best_variant(const std::vector<ReferenceVariant>& variants) {
  const ReferenceVariant* best = nullptr;
  for (const ReferenceVariant& v : variants)
    if (v.correct.value_or(false) && v.median_ms && (!best || *v.median_ms < *best->median_ms))
      best = &v;
  return best ? best->name : std::string();
}

ReferenceRecord merge_references(const ReferenceRecord& earlier, ReferenceRecord now) {
  if (earlier.script != now.script)
    throw std::invalid_argument("peer --variants: the earlier block came from " + earlier.script +
                                ", not " + now.script);
  if (earlier.work != now.work)
    throw std::invalid_argument("peer --variants: the earlier block timed other work (" +
                                earlier.work.dump() + " against " + now.work.dump() + ")");
  json kept = json::array();
  std::vector<ReferenceVariant> all;
  for (const ReferenceVariant& old : earlier.variants) {
    const auto fresh = std::find_if(now.variants.begin(), now.variants.end(),
                                    [&](const ReferenceVariant& v) { return v.name == old.name; });
    if (fresh != now.variants.end()) {
      all.push_back(*fresh);  // the earlier order, this call's figures
    } else {
      all.push_back(old);
      kept.push_back(old.name);
    }
  }
  for (const ReferenceVariant& v : now.variants)
    if (std::none_of(all.begin(), all.end(),
                     [&](const ReferenceVariant& a) { return a.name == v.name; }))
      all.push_back(v);
  now.variants = std::move(all);
  now.best.reset();
  if (const std::string best = best_variant(now.variants); !best.empty()) now.best = best;
  now.sections["merged"] = {{"kept_from_earlier", kept},
                            {"earlier_timing", earlier.timing},
                            {"earlier_torch", earlier.torch}};
  return now;
}

std::vector<std::string> work_differences(const PeerScript& script, const json& work,
                                          const json& run_params) {
  std::vector<std::string> out;
  auto at = [](const json& j, const std::string& key) -> const json* {
    if (!j.is_object()) return nullptr;
    const auto it = j.find(key);
    return it == j.end() || it->is_null() ? nullptr : &*it;
  };
  for (const WorkKey& k : script.work) {
    const json* peer = at(work, k.work);
    const json* run = at(run_params, k.param);
    bool same = peer && run && *peer == *run;
    if (!same && peer && run && peer->is_number() && run->is_number())
      same = std::fabs(peer->get<double>() - run->get<double>()) <= k.tolerance;
    if (same) continue;
    out.push_back(k.work + ": peer " + (peer ? peer->dump() : "not given") + ", run " +
                  (run ? run->dump() : "not given") +
                  (k.param == k.work ? "" : " (params." + k.param + ")"));
  }
  return out;
}

size_t add_reference(json& document, const std::string& model, const std::string& size,
                     const ReferenceRecord& reference) {
  size_t added = 0;
  if (!document.is_object() || !document.contains("runs") || !document["runs"].is_array()) return 0;
  for (json& run : document["runs"]) {
    if (!run.is_object() || text_at(run, "model") != model || text_at(run, "size") != size)
      continue;
    run["reference"] = reference;
    ++added;
  }
  return added;
}

}  // namespace sb
