// `stagebench peer MODEL --size S -o RESULT.json`: PyTorch beside the ladder (docs/method.md).
// Runs the model's reference script (scripts/reference/) on this machine, which times PyTorch's
// own variants on the size's shapes, and stores them in RESULT.json's runs of that model and size
// as their "reference" block. The result must exist (a ladder to stand beside): peer adds to it,
// it never makes a result of its own.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <utility>

#include "harness/cli/child_process.h"
#include "harness/cli/commands.h"
#include "harness/cli/load_result.h"
#include "harness/cli/model_flags.h"
#include "harness/cli/option_checks.h"
#include "harness/cli/output_lock.h"
#include "harness/cli/output_path.h"
#include "harness/peer.h"
#include "layout/data_dirs.h"
#include "models/registry.h"
#include "schema/document.h"
#include "schema/user_file.h"

namespace sb::cli {
namespace {

namespace fs = std::filesystem;

struct PeerArgs {
  std::string model, size = "full", device = "cuda", python, scripts, output;
  int runs = 20;
  // Time limits handed to the script (0: its own defaults): the whole peer, one variant's build
  // and compile, a max-autotune variant's. A GPU session's command has a wall-clock limit.
  double deadline_s = 0, variant_budget_s = 0, autotune_budget_s = 0;
  std::vector<std::string> variants;  // --variants: only these, merged into the earlier block
};

// --python, else $STAGEBENCH_PYTHON, else python3 from PATH.
std::string python_of(const PeerArgs& a) {
  if (!a.python.empty()) return a.python;
  const char* env = std::getenv("STAGEBENCH_PYTHON");
  return env && *env ? env : "python3";
}

// --scripts, else the first of layout::candidates holding the script: the working directory's
// scripts/reference, the installed prefix's, the source tree above the build folder's binary.
fs::path scripts_dir(const PeerArgs& a, const std::string& file) {
  if (!a.scripts.empty()) return a.scripts;
  if (auto found = layout::find(layout::DataDir::ReferenceScripts, file)) return *found;
  std::string searched;
  for (const fs::path& c : layout::candidates(layout::DataDir::ReferenceScripts, layout::self_exe(),
                                              layout::installed_layout()))
    searched += (searched.empty() ? "" : ", ") + c.string();
  throw std::invalid_argument("peer: " + file + " not found in " + searched + " (give --scripts)");
}

// Every run of the model and size, with their batch when all agree (the script times the same
// shapes; `run --batch` may have changed the size's).
std::string matching_batch(const nlohmann::json& doc, const PeerArgs& a, size_t& runs) {
  std::string batch;
  runs = 0;
  for (const auto& run : doc["runs"]) {
    if (run.value("model", "") != a.model || run.value("size", "") != a.size) continue;
    ++runs;
    const auto& params = run["params"];
    const std::string b = params.contains("batch") && params["batch"].is_number_integer()
                              ? std::to_string(params["batch"].get<int64_t>())
                              : std::string();
    batch = runs == 1 ? b : (b == batch ? batch : std::string());
  }
  return batch;
}

void require_torch(const std::string& python) {
  const ChildResult r = run_child({python, "-c", "import torch"}, true);
  if (r.status == 0) return;
  std::string why = r.status < 0 ? "could not be started" : r.output;
  while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
  if (const size_t nl = why.rfind('\n'); nl != std::string::npos) why = why.substr(nl + 1);
  throw std::invalid_argument("peer: PyTorch is not available to " + python + " (`" + python +
                              " -c \"import torch\"`: " + why +
                              "); install torch there, or give --python or STAGEBENCH_PYTHON");
}

// The model's reference script as it declared it (models/<name>/entry.cpp); an unknown model, or
// one without a script, is bad input.
PeerScript script_of(const std::string& model) {
  const ModelEntry& entry = find_model(model);
  if (entry.peer) return *entry.peer;
  std::string known;
  for (const ModelEntry& m : model_registry())
    if (m.peer) known += (known.empty() ? "" : ", ") + m.name;
  throw std::invalid_argument("peer: no PyTorch reference script for model '" + model +
                              "' (models with one: " + known + ")");
}

int execute(const PeerArgs& a) {
  for (const std::string& v : a.variants)
    if (v.empty() || v.find_first_of(" \t") != std::string::npos)
      throw std::invalid_argument("peer: --variants names an empty or blank variant ('" + v +
                                  "'); give the script's names, comma-separated");
  const PeerScript script = script_of(a.model);
  const fs::path script_path = scripts_dir(a, script.file) / script.file;
  if (!fs::exists(script_path))
    throw std::invalid_argument("peer: " + script_path.string() + " not found (--scripts)");
  if (!fs::exists(a.output))
    throw std::invalid_argument("peer: " + a.output + " does not exist: peer adds PyTorch's rows " +
                                "to a result; run `stagebench run " + a.model + " --size " +
                                a.size + " -o " + a.output + "` first");
  check_output(a.output, "-o");
  const OutputLock lock(a.output);  // no run, sweep or merge rewrites it meanwhile
  nlohmann::json doc = load_result_file(a.output);
  size_t runs = 0;
  const std::string batch = matching_batch(doc, a, runs);
  if (runs == 0)
    throw std::invalid_argument("peer: " + a.output + " has no run of " + a.model + " size " +
                                a.size);
  // --variants adds to the block already there: read it before the script runs for minutes.
  std::optional<ReferenceRecord> earlier;
  if (!a.variants.empty()) {
    for (const nlohmann::json& run : doc["runs"])
      if (run.value("model", "") == a.model && run.value("size", "") == a.size &&
          run.contains("reference")) {
        std::vector<std::string> problems;
        earlier = read_reference(run["reference"], "reference", problems);
        if (!problems.empty())
          throw std::invalid_argument("peer --variants: the earlier block: " + problems.front());
      }
    if (!earlier)
      throw std::invalid_argument("peer --variants: " + a.output +
                                  " has no PyTorch block to add to; run peer without --variants "
                                  "first");
  }
  const std::string python = python_of(a);
  require_torch(python);

  char tmpl[] = "/tmp/stagebench-peer-XXXXXX";
  const int fd = mkstemp(tmpl);
  if (fd < 0) throw std::runtime_error("peer: cannot create a temporary file in /tmp");
  close(fd);
  const fs::path json_out = tmpl;
  struct Remove {
    fs::path p;
    ~Remove() {
      std::error_code ec;
      fs::remove(p, ec);
    }
  } remove_later{json_out};
  std::vector<std::string> argv{python, script_path.string()};
  for (const std::string& arg : peer_arguments(script, a.size, a.device, a.runs, json_out))
    argv.push_back(arg);
  if (!batch.empty()) argv.insert(argv.end(), {"--batch", batch});
  for (const auto& [flag, value] : {std::pair{"--deadline-s", a.deadline_s},
                                    std::pair{"--variant-budget-s", a.variant_budget_s},
                                    std::pair{"--autotune-budget-s", a.autotune_budget_s}})
    if (value > 0) argv.insert(argv.end(), {flag, std::to_string(value)});
  if (!a.variants.empty()) {
    std::string list;
    for (const std::string& v : a.variants) list += (list.empty() ? "" : ",") + v;
    argv.insert(argv.end(), {"--variants", list});
  }
  std::cerr << "stagebench peer: " << python << ' ' << script_path.string() << " ...\n";
  const ChildResult r = run_child(argv, false);
  if (r.status != 0) {
    std::cerr << "stagebench peer: " << script_path.string() << " exited with status " << r.status
              << "; " << a.output << " is unchanged\n";
    return kExitFailed;
  }
  ReferenceRecord reference;
  try {
    reference = reference_from_script(read_json_file(json_out), "scripts/reference/" + script.file);
  } catch (const std::exception& e) {
    std::cerr << "stagebench peer: " << script.file << " wrote no usable JSON: " << e.what() << "; "
              << a.output << " is unchanged\n";
    return kExitFailed;
  }
  // Equal work or nothing: a peer timed on other shapes is no comparison (harness/peer.h).
  for (const nlohmann::json& run : doc["runs"]) {
    if (run.value("model", "") != a.model || run.value("size", "") != a.size) continue;
    const std::vector<std::string> diff =
        work_differences(script, reference.work, run.value("params", nlohmann::json()));
    if (diff.empty()) continue;
    std::string text;
    for (const std::string& d : diff) text += (text.empty() ? "" : "; ") + d;
    std::cerr << "stagebench peer: PyTorch's work differs from the " << a.model << "/" << a.size
              << "/" << run.value("backend", "?") << " run's: " << text << "; " << a.output
              << " is unchanged\n";
    return kExitFailed;
  }
  if (earlier) reference = merge_references(*earlier, reference);
  add_reference(doc, a.model, a.size, reference);
  const auto problems = validate_document(doc);  // never write what read_document would refuse
  if (!problems.empty())
    throw std::runtime_error("peer: the result would not validate: " + problems.front());
  write_json_atomic(a.output, doc);
  size_t failed = 0;
  for (const ReferenceVariant& v : reference.variants) failed += v.error ? 1 : 0;
  std::cout << "added " << reference.variants.size() << " PyTorch variants (" << failed
            << " failed) to " << runs << (runs == 1 ? " run" : " runs") << " of " << a.output
            << '\n';
  return 0;
}

}  // namespace

void add_peer(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "peer", "Time PyTorch's own variants of a model and add them to a result beside its ladder");
  auto a = std::make_shared<PeerArgs>();
  cmd->add_option("model", a->model,
                  model_names([](const ModelEntry& m) { return m.peer.has_value(); }))
      ->required();
  cmd->add_option("--size", a->size, "tiny, small or full: the run's size")->capture_default_str();
  cmd->add_option("--device", a->device, "Where PyTorch runs")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->capture_default_str();
  cmd->add_option("--python", a->python,
                  "Python with torch (default: $STAGEBENCH_PYTHON, python3)");
  cmd->add_option("--scripts", a->scripts, "Folder of the reference scripts")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--runs", a->runs, "Timed repetitions per variant")
      ->check(kNonNegativeInteger)
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("-o,--output", a->output, "The stagebench result to add the block to")
      ->required();
  cmd->add_option("--deadline", a->deadline_s,
                  "Seconds for the whole script; variants not started by then are left out")
      ->check(kFiniteNumber)
      ->check(CLI::PositiveNumber);
  cmd->add_option("--variant-budget", a->variant_budget_s,
                  "Seconds for one variant's build, compile, warm-up and check")
      ->check(kFiniteNumber)
      ->check(CLI::PositiveNumber);
  cmd->add_option("--autotune-budget", a->autotune_budget_s,
                  "Seconds for a max-autotune variant's compile")
      ->check(kFiniteNumber)
      ->check(CLI::PositiveNumber);
  cmd->add_option("--variants", a->variants,
                  "Run only these variants (the script's names) and keep the others of the "
                  "block already there: a second call adds what a deadline cut")
      ->delimiter(',');
  cmd->callback([a, &exit_code] { exit_code = execute(*a); });
}

}  // namespace sb::cli
