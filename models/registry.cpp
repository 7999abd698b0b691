#include "models/registry.h"

#include <map>
#include <stdexcept>

#include "models/ops/cpu/cpu_backend.h"
#include "models/ops/slow_op_fault.h"
#include "models/sizes.h"
#ifdef STAGEBENCH_HAVE_OPENCL
#include "models/ops/opencl/opencl_backend.h"
#endif

namespace sb {

// Each model's declaration, in its own folder (models/<name>/entry.cpp).
ModelEntry enformer_entry();
ModelEntry geneformer_entry();
ModelEntry deepfm_entry();
ModelEntry dynunet_entry();
ModelEntry gemm_entry();

namespace {

// The models, one line each: called, not constructed statically, so that no registration is
// lost when the linker drops an object nothing references (a static library's).
std::deque<ModelEntry>& registry_storage() {
  static std::deque<ModelEntry> models;
  return models;
}

void add_entry(ModelEntry entry);

std::deque<ModelEntry>& built_registry() {
  static const bool built = [] {
    add_entry(enformer_entry());
    add_entry(geneformer_entry());
    add_entry(deepfm_entry());
    add_entry(dynunet_entry());
    add_entry(gemm_entry());
    return true;
  }();
  (void)built;
  return registry_storage();
}

std::string joined_names(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return out;
}

bool declares_option(const ModelEntry& m, const std::string& option) {
  for (const OptionSpec& o : m.options)
    if (o.name == option) return true;
  return false;
}

}  // namespace

const std::deque<ModelEntry>& model_registry() {
  return built_registry();
}

std::string foreign_option(const ModelEntry& m, const OptionValues& given) {
  for (const auto& [name, value] : given) {
    if (declares_option(m, name)) continue;
    for (const ModelEntry& owner : model_registry()) {
      if (!declares_option(owner, name)) continue;
      std::vector<std::string> theirs;
      for (const OptionSpec& o : owner.options)
        if (o.scope.run) theirs.push_back(o.name);
      return m.name + ": " + joined_names(theirs) + (theirs.size() == 1 ? " applies" : " apply") +
             " to " + owner.name + " only" + owner.options_note;
    }
    return m.name + ": unknown option '" + name + "'";
  }
  return {};
}

namespace {

void add_entry(ModelEntry entry) {
  std::deque<ModelEntry>& models = registry_storage();
  for (const ModelEntry& m : models) {
    if (m.name == entry.name)
      throw std::invalid_argument("register_model: model '" + entry.name + "' is registered");
    for (const OptionSpec& mine : entry.options)
      for (const OptionSpec& theirs : m.options)
        if (mine.name == theirs.name && (mine.type != theirs.type || mine.param != theirs.param))
          throw std::invalid_argument("register_model: " + entry.name + "'s option '" + mine.name +
                                      "' differs from " + m.name + "'s");
  }
  // Other models' options are refused before the model's own checks, in the same words for
  // every model.
  const std::string name = entry.name;
  const auto refuse = [name](const WorkloadRequest& r) {
    if (const std::string why = foreign_option(find_model(name), r.options); !why.empty())
      throw std::invalid_argument(why);
  };
  entry.check = [refuse, check = std::move(entry.check)](const WorkloadRequest& r) {
    refuse(r);
    if (check) check(r);
  };
  entry.make = [refuse, make = std::move(entry.make)](const WorkloadRequest& r,
                                                      std::unique_ptr<Backend> backend) {
    refuse(r);
    return make(r, std::move(backend));
  };
  models.push_back(std::move(entry));
}

}  // namespace

void register_model(ModelEntry entry) {
  built_registry();  // the built-in models first
  add_entry(std::move(entry));
}

std::vector<OptionSpec> declared_options() {
  std::map<std::string, OptionSpec> all;
  for (const ModelEntry& m : model_registry())
    for (const OptionSpec& o : m.options) all.emplace(o.name, o);
  std::vector<OptionSpec> out;
  for (auto& [name, spec] : all) out.push_back(spec);
  return out;
}

const ModelEntry& find_model(const std::string& name) {
  std::string known;
  for (const auto& m : model_registry()) {
    if (m.name == name) return m;
    known += (known.empty() ? "" : ", ") + m.name;
  }
  throw std::invalid_argument("unknown model '" + name + "' (models: " + known + ")");
}

void check_size(const ModelEntry& m, const std::string& size) {
  for (const auto& s : m.sizes)
    if (s == size) return;
  if (m.other_sizes.accepts && m.other_sizes.accepts(size)) return;
  throw_unknown_size(m.name, size, m.sizes, m.other_sizes.accepts ? m.other_sizes.form : "");
}

std::vector<size_t> resolve_stages(const ModelEntry& m, const std::vector<std::string>& ids) {
  const auto& ladder = m.ladder();
  std::vector<size_t> out;
  if (ids.empty()) {
    for (size_t i = 0; i < ladder.size(); ++i) out.push_back(i);
    return out;
  }
  for (const auto& id : ids) out.push_back(find_stage(ladder, id, m.name));
  return out;
}

std::vector<std::string> backend_names() {
#ifdef STAGEBENCH_HAVE_OPENCL
  return {"cpu", "opencl"};
#else
  return {"cpu"};
#endif
}

std::unique_ptr<Backend> make_backend(const std::string& name, const std::string& device) {
  // A bad STAGEBENCH_SLOW_OP threw at the op's first call, inside a stage: every stage failed
  // (exit 1) as if measured. Read here, it is bad input before anything runs, as
  // STAGEBENCH_FAULT is.
  slow_op_fault();
  if (name == "cpu") return make_cpu_backend();
#ifdef STAGEBENCH_HAVE_OPENCL
  if (name == "opencl") return make_opencl_backend(device);
#else
  if (name == "opencl")
    throw std::invalid_argument(
        "backend 'opencl': this build has no OpenCL (rebuild with "
        "ocl-icd-opencl-dev and libclblast-dev installed)");
#endif
  throw std::invalid_argument("unknown backend '" + name + "' (cpu, opencl, all)");
}

LibraryTuneReport tune_library(const LibraryTuneOptions& options) {
#ifdef STAGEBENCH_HAVE_OPENCL
  return tune_opencl_library(options);
#else
  (void)options;
  throw std::invalid_argument("tune: this build has no OpenCL, whose CLBlast it tunes");
#endif
}

}  // namespace sb
