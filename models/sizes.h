#pragma once
// The one message for a size a model does not have, built from the model's own list (its
// sizes()), so that the list is written once per model and the CLI's check (models/registry.h)
// and the model's config_for say the same words.
#include <string>
#include <vector>

namespace sb {

// Throws std::invalid_argument "<model>: unknown size 'x' (sizes: a, b, c[, or FORM])", FORM
// the form of the sizes it takes beyond its named ones ("MxNxK"), if any.
[[noreturn]] void throw_unknown_size(const std::string& model, const std::string& size,
                                     const std::vector<std::string>& sizes,
                                     const std::string& other_form = {});

}  // namespace sb
