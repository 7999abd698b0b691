// Where the files stagebench ships beside its binaries are: in the source tree, or under the
// prefix `cmake --install` or the Debian package put them in (docs/install.md). The lookup is a
// pure function of the executable's path and an existence test, so it is tested without
// installing anything (tests/layout).
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace sb::layout {

// A data folder's path in the source tree, and its place under an installed prefix.
enum class DataDir {
  ReferenceScripts,  // scripts/reference; installed: DATADIR/stagebench/scripts/reference
  Docs,              // docs; installed: DOCDIR/docs (README.md sits in DOCDIR itself)
};

// The installed folders relative to the installed binaries' folder. GNUInstallDirs decides them
// at configure time, and relative paths keep a prefix relocatable (cmake --install --prefix, a
// .deb unpacked elsewhere).
struct Installed {
  std::filesystem::path data_from_bin;  // e.g. ../share/stagebench
  std::filesystem::path doc_from_bin;   // e.g. ../share/doc/stagebench
};

// This build's layout, as CMake configured it (layout/CMakeLists.txt).
Installed installed_layout();

// The folders to look in, in order: the working directory's (the GPU session scripts run from
// the repository root), the installed prefix around `exe`, then every folder above `exe` (a
// build tree inside the source tree: build/harness/stagebench). A prefix comes before the
// folders above it so that an installed binary takes its own version's files even when it is
// installed inside a checkout.
std::vector<std::filesystem::path> candidates(DataDir dir, const std::filesystem::path& exe,
                                              const Installed& layout);

// The first candidate that holds `file`, by `exists`; nullopt when none does.
std::optional<std::filesystem::path> find(
    DataDir dir, const std::filesystem::path& exe, const std::string& file, const Installed& layout,
    const std::function<bool(const std::filesystem::path&)>& exists);

// The same on this machine, for this process: /proc/self/exe, the real filesystem.
std::optional<std::filesystem::path> find(DataDir dir, const std::string& file);

// This process's executable, or an empty path when /proc/self/exe cannot be read.
std::filesystem::path self_exe();

}  // namespace sb::layout
