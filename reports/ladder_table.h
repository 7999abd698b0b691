#pragma once
// The per-stage ladder table the documents show (seed 000's "Time, Memory, Speedup,
// Correctness" plus claimed versus measured), rendered from one stagebench/1 run object.
#include <string>

#include <nlohmann/json.hpp>

namespace sb {

// "confirmed" when the claim lies inside the measured 95% interval, "below claim" when the whole
// interval is under it, "above claim" when over it; "" when there is no claim or no interval.
std::string claim_verdict(const nlohmann::json& stage);

std::string ladder_table_text(const nlohmann::json& run);

}  // namespace sb
