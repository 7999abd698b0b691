#include "harness/sweep_merge.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <tuple>

#include "schema/document.h"

namespace sb {
namespace {

std::string hex_hash(const std::string& text) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a, as job keys
  for (const unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string text_of(const nlohmann::json& run, const char* key) {
  const auto it = run.find(key);
  return it != run.end() && it->is_string() ? it->get<std::string>() : std::string();
}

struct Placed {
  std::string key;
  size_t input = 0;
  size_t position = 0;  // in its input's runs
  nlohmann::json run;
};

std::string where(const std::vector<MergeInput>& inputs, const Placed& p) {
  return inputs[p.input].name + " runs[" + std::to_string(p.position) + "]";
}

// model, size, backend, batch (as a number), params, key.
auto sort_tuple(const Placed& p) {
  const nlohmann::json& params = p.run.contains("params") ? p.run["params"] : nlohmann::json();
  const int64_t batch =
      params.is_object() && params.contains("batch") && params["batch"].is_number_integer()
          ? params["batch"].get<int64_t>()
          : 0;
  return std::make_tuple(text_of(p.run, "model"), text_of(p.run, "size"), text_of(p.run, "backend"),
                         batch, params.dump(), p.key);
}

}  // namespace

std::string run_key(const nlohmann::json& run) {
  if (run.contains("job") && run["job"].is_object() && run["job"].contains("key") &&
      run["job"]["key"].is_string()) {
    return run["job"]["key"].get<std::string>();
  }
  const nlohmann::json identity = {{"device", run.contains("device") ? run["device"] : nullptr},
                                   {"params", run.contains("params") ? run["params"] : nullptr}};
  return text_of(run, "model") + "/" + text_of(run, "size") + "/" + text_of(run, "backend") + "/" +
         text_of(run, "mode") + "/" + hex_hash(identity.dump());
}

nlohmann::json merge_documents(const std::vector<MergeInput>& inputs,
                               const std::vector<std::string>& key_order,
                               std::vector<std::string>* missing) {
  if (inputs.empty()) throw std::invalid_argument("merge: no input documents");
  std::map<std::string, size_t> order;
  for (size_t i = 0; i < key_order.size(); ++i) order.emplace(key_order[i], i);

  std::vector<Placed> placed;
  std::map<std::string, size_t> seen;  // key -> index in placed
  for (size_t d = 0; d < inputs.size(); ++d) {
    const auto problems = validate_document(inputs[d].document);
    if (!problems.empty()) throw std::invalid_argument(inputs[d].name + ": " + problems.front());
    const auto& runs = inputs[d].document["runs"];
    for (size_t r = 0; r < runs.size(); ++r) {
      Placed p{run_key(runs[r]), d, r, runs[r]};
      if (!order.empty() && !order.count(p.key)) {
        throw std::invalid_argument(where(inputs, p) + " (" + p.key +
                                    ") is not a job of the sweep given with --config");
      }
      const auto [it, fresh] = seen.emplace(p.key, placed.size());
      if (!fresh) {
        throw std::invalid_argument("duplicate run " + p.key + ": " +
                                    where(inputs, placed[it->second]) + " and " + where(inputs, p) +
                                    " (was a shard merged twice?)");
      }
      p.run["merged_from"] = d;
      placed.push_back(std::move(p));
    }
  }

  if (!order.empty()) {
    std::sort(placed.begin(), placed.end(),
              [&](const Placed& a, const Placed& b) { return order[a.key] < order[b.key]; });
    if (missing) {
      for (const auto& key : key_order)
        if (!seen.count(key)) missing->push_back(key);
    }
  } else {
    std::sort(placed.begin(), placed.end(),
              [](const Placed& a, const Placed& b) { return sort_tuple(a) < sort_tuple(b); });
  }

  nlohmann::json runs = nlohmann::json::array();
  for (auto& p : placed) runs.push_back(std::move(p.run));
  nlohmann::json doc = make_document(inputs.front().document["context"], runs);
  doc["contexts"] = nlohmann::json::array();
  doc["merged_from"] = nlohmann::json::array();
  for (const auto& in : inputs) {
    doc["contexts"].push_back(in.document["context"]);
    doc["merged_from"].push_back(in.name);
  }
  return doc;
}

}  // namespace sb
