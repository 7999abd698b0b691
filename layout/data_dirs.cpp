#include "layout/data_dirs.h"

namespace sb::layout {

namespace fs = std::filesystem;

namespace {

fs::path source_path(DataDir dir) {
  return dir == DataDir::ReferenceScripts ? fs::path("scripts") / "reference" : fs::path("docs");
}

fs::path installed_path(DataDir dir, const Installed& layout) {
  return dir == DataDir::ReferenceScripts ? layout.data_from_bin / "scripts" / "reference"
                                          : layout.doc_from_bin / "docs";
}

}  // namespace

Installed installed_layout() {
  return {STAGEBENCH_DATA_FROM_BIN, STAGEBENCH_DOC_FROM_BIN};
}

std::vector<fs::path> candidates(DataDir dir, const fs::path& exe, const Installed& layout) {
  const fs::path rel = source_path(dir);
  std::vector<fs::path> out{rel};
  if (exe.empty()) return out;
  const fs::path bin = exe.parent_path();
  // lexically_normal: an error message names /usr/share/..., not /usr/bin/../share/...
  out.push_back((bin / installed_path(dir, layout)).lexically_normal());
  for (fs::path d = bin; d.has_relative_path(); d = d.parent_path()) out.push_back(d / rel);
  return out;
}

std::optional<fs::path> find(DataDir dir, const fs::path& exe, const std::string& file,
                             const Installed& layout,
                             const std::function<bool(const fs::path&)>& exists) {
  for (const fs::path& c : candidates(dir, exe, layout))
    if (exists(c / file)) return c;
  return std::nullopt;
}

std::optional<fs::path> find(DataDir dir, const std::string& file) {
  return find(dir, self_exe(), file, installed_layout(), [](const fs::path& p) {
    std::error_code ec;
    return fs::exists(p, ec);
  });
}

fs::path self_exe() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe;
}

}  // namespace sb::layout
