#pragma once
// Reading a file a user named (a result, a sweep config, a thresholds file, a journal). Only
// regular files are read: a FIFO would block until some writer appears (forever, in a CI job)
// and a device may never end, so both are refused up front with a message naming the path.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace sb {

// The whole file as bytes. Throws std::invalid_argument naming the path for a missing file or
// one that is not a regular file (FIFO, socket, device, directory), and std::runtime_error for
// a read that fails part way.
std::string read_user_file(const std::filesystem::path& path);

// read_user_file, then parse_json_text (depth limit, out-of-range numbers, positions), every
// problem a std::invalid_argument naming the path.
nlohmann::json read_json_file(const std::filesystem::path& path);

// Whether two paths name one file: the same inode where both exist (a hard link, "./x" and "x"),
// else the same absolute path once "." and ".." and symbolic links are resolved. Used to refuse
// an output that would replace an input.
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

}  // namespace sb
