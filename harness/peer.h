#pragma once
// `stagebench peer` (docs/method.md, "PyTorch beside the ladder"): how a model's reference script
// (contract/peer_script.h, declared where the model registers) is called, and how its JSON becomes
// the run's reference block (schema/records.h, ReferenceRecord) in a result document.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "contract/peer_script.h"
#include "schema/records.h"

namespace sb {

// The script's arguments after its path: leading, then --size S --device D --runs N
// --peer-json OUT (every script takes these, docs/method.md).
std::vector<std::string> peer_arguments(const PeerScript& script, const std::string& size,
                                        const std::string& device, int runs,
                                        const std::filesystem::path& json_out);

// The script's JSON ({torch, device, timing, work, variants: [{name, median_s, samples,
// peak_bytes, throughput, unit, error, precision, correct, rel_l2}]}) as a reference block:
// seconds become milliseconds, a variant without a median must carry its error. `best` is
// computed here, not taken from the script: the fastest timed variant whose check passed.
// A training model's script may time its inference forward too ("inference": {timing, work,
// variants}): kept as the block's "inference" section, itself a reference block of the same
// form (its own best; torch and device the script's), so that reports set it beside our
// stages' inference figures. Throws std::invalid_argument naming what is wrong.
ReferenceRecord reference_from_script(const nlohmann::json& out, const std::string& script);

// Where the script's work and a run's parameters disagree, one "key: peer X, run Y" each;
// empty when they agree. A key missing on either side is a difference too: equal work that
// cannot be shown is not assumed.
std::vector<std::string> work_differences(const PeerScript& script, const nlohmann::json& work,
                                          const nlohmann::json& run_params);

// PyTorch's best among `variants`: the fastest timed one whose check passed; empty when none.
std::string best_variant(const std::vector<ReferenceVariant>& variants);

// `peer --variants`: the new block holds the variants this call ran, and keeps the earlier
// block's others (same script and work), so that a second call on the same machine adds what
// the first one's deadline cut rather than dropping what it measured. `best` is recomputed over
// all; section "merged" names the variants kept from the earlier block. Throws
// std::invalid_argument when the earlier block came from another script or other work.
ReferenceRecord merge_references(const ReferenceRecord& earlier, ReferenceRecord now);

// Sets the block on every run of `model` and `size` in a stagebench/1 document (replacing an
// earlier peer's) and returns how many; nothing else in the document changes.
size_t add_reference(nlohmann::json& document, const std::string& model, const std::string& size,
                     const ReferenceRecord& reference);

}  // namespace sb
