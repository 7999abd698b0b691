#pragma once
// The runs array of a document, or an empty array when the document has none of the right shape.
#include <nlohmann/json.hpp>

namespace sb {

const nlohmann::json& runs_of(const nlohmann::json& document);

}  // namespace sb
