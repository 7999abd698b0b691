#pragma once
// Writing an output file so that it is either the old file or the whole new one: the text goes
// to a temporary file in the same directory, is fsynced, then renamed over the path. A full disk
// or a kill part way leaves the previous file intact and no truncated output behind.
#include <filesystem>
#include <string_view>

namespace sb {

// Throws std::runtime_error naming the path (and the failing step) when any step fails; the
// temporary file is removed then.
void write_text_atomic(const std::filesystem::path& path, std::string_view text);

}  // namespace sb
