#include "models/sizes.h"

#include <stdexcept>

namespace sb {

void throw_unknown_size(const std::string& model, const std::string& size,
                        const std::vector<std::string>& sizes, const std::string& other_form) {
  std::string known;
  for (const auto& s : sizes) known += (known.empty() ? "" : ", ") + s;
  if (!other_form.empty()) known += ", or " + other_form;
  throw std::invalid_argument(model + ": unknown size '" + size + "' (sizes: " + known + ")");
}

}  // namespace sb
