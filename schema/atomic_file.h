#pragma once
// Writing an output file so that it is either the old file or the whole new one: the bytes go
// to a temporary file in the same directory, are fsynced, then renamed over the path. A full
// disk or a kill part way leaves the previous file intact and no truncated output behind. The
// one atomic writer of every output: result JSON, reports, compare tables, npy and safetensors.
#include <filesystem>
#include <functional>
#include <ostream>
#include <string_view>

namespace sb {

// Runs `write` on a stream over the temporary file (large tensors are streamed, not held twice).
// Throws std::runtime_error naming the path (and the failing step) when any step fails, or
// rethrows what `write` threw; the temporary file is removed then.
void write_stream_atomic(const std::filesystem::path& path,
                         const std::function<void(std::ostream&)>& write);

void write_text_atomic(const std::filesystem::path& path, std::string_view text);

}  // namespace sb
