#pragma once
// Joins stagebench/1 documents (the shards of a sweep) into one (docs/sweeps.md, "Merging").
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sb {

struct MergeInput {
  std::string name;  // the file, for messages and "merged_from"
  nlohmann::json document;
};

// A run's identity: its sweep job key (run.job.key) when it has one, otherwise
// "model/size/backend/mode/" + a hash of its device and params.
std::string run_key(const nlohmann::json& run);

// The merged document: "context" is the first input's, "contexts" every input's (in input order),
// "merged_from" the inputs' names; each run gets "merged_from": the index of its input.
// Runs are ordered by `key_order` (the sweep's job keys in expansion order) when it is non-empty,
// and a run whose key is not in it is an error; otherwise by model, size, backend, batch, params
// and key. A key in two runs is an error naming both places. Keys of `key_order` that no input
// has are reported in `missing` (when given). Throws std::invalid_argument.
nlohmann::json merge_documents(const std::vector<MergeInput>& inputs,
                               const std::vector<std::string>& key_order,
                               std::vector<std::string>* missing = nullptr);

}  // namespace sb
