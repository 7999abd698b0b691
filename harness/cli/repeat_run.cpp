#include "harness/cli/repeat_run.h"

#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "harness/cli/child_process.h"
#include "harness/cli/commands.h"
#include "harness/cli/load_result.h"
#include "harness/cli/run_context.h"
#include "harness/cli/stop_signal.h"
#include "harness/repeat_merge.h"
#include "reports/gbench.h"
#include "reports/ladder_table.h"
#include "schema/document.h"

namespace sb::cli {
namespace fs = std::filesystem;

std::vector<std::string> repeat_child_args(const std::vector<std::string>& argv,
                                           const std::string& output) {
  // Options this wrapper sets itself, with the value in the next argument or after '='.
  const std::vector<std::string> dropped = {"--repeat", "-o", "--output", "--format"};
  std::vector<std::string> out;
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    bool drop = false;
    for (const std::string& d : dropped) {
      if (a == d) {
        if (i + 1 >= argv.size()) throw std::invalid_argument(d + " needs a value");
        ++i;
        drop = true;
      } else if (a.rfind(d + "=", 0) == 0 || (d == "-o" && a.size() > 2 && a.rfind("-o", 0) == 0)) {
        drop = true;
      }
      if (drop) break;
    }
    if (!drop) out.push_back(a);
  }
  out.insert(out.end(), {"-o", output, "--format", "json"});
  return out;
}

namespace {

std::string process_file(const std::string& output, int k) {
  return output + ".repeat-" + std::to_string(k) + ".json";
}

// The runs of each process's document, by position (one run per backend).
std::vector<RunRecord> runs_of(const nlohmann::json& doc) {
  std::vector<RunRecord> runs;
  for (const auto& r : doc.at("runs")) runs.push_back(r.get<RunRecord>());
  return runs;
}

nlohmann::json merged_document(const std::vector<nlohmann::json>& docs, int asked) {
  nlohmann::json context = docs.front().at("context");
  context["argv"] = remembered_argv();
  context["repeat"] = {{"processes", asked},
                       {"done", docs.size()},
                       {"method",
                        "processes one after the other, each interleaving the stages in "
                        "rounds; pooled samples, intervals widened to hold every "
                        "process's median (docs/method.md#repeats)"}};
  std::vector<std::vector<RunRecord>> by_process;
  for (const auto& d : docs) by_process.push_back(runs_of(d));
  nlohmann::json runs = nlohmann::json::array();
  for (size_t i = 0; i < by_process.front().size(); ++i) {
    std::vector<RunRecord> same;
    for (size_t p = 0; p < by_process.size(); ++p) {
      if (i >= by_process[p].size())
        throw std::invalid_argument("run --repeat: process " + std::to_string(p + 1) +
                                    " wrote fewer runs than process 1");
      same.push_back(by_process[p][i]);
    }
    RunRecord merged = merge_repeats(same);
    if (static_cast<int>(docs.size()) < asked) merged.complete = false;
    runs.push_back(merged);
  }
  return make_document(context, runs);
}

}  // namespace

int run_repeated(const RepeatPlan& plan) {
  const std::vector<std::string>& argv = remembered_argv();
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("run --repeat: cannot find this binary: " + ec.message());
  std::vector<nlohmann::json> docs;
  std::vector<std::string> files;
  int rc = 0;
  auto write = [&] {
    const nlohmann::json doc = merged_document(docs, plan.processes);
    write_json_atomic(plan.output, plan.format == "gbench" ? gbench_document(doc) : doc);
    return doc;
  };
  // A stop is passed on to the running process (run_child), which saves what it measured; this
  // one waits for it and merges, rather than exiting first and leaving it to measure on alone.
  const StopSignals signals("run");
  for (int k = 1; k <= plan.processes; ++k) {
    if (signals.flag()->load()) {  // between two processes
      if (!docs.empty()) write();
      return kExitStopped;
    }
    const std::string file = process_file(plan.output, k);
    std::vector<std::string> args = {self.string()};
    for (auto& a : repeat_child_args(argv, file)) args.push_back(a);
    if (!plan.quiet)
      std::cerr << "stagebench run --repeat: process " << k << " of " << plan.processes << '\n';
    const ChildResult child = run_child(args, false);
    files.push_back(file);
    if (child.status == kExitStopped && fs::exists(file)) {
      // Interrupted: the process saved what it measured ("complete": false); keep it.
      try {
        docs.push_back(load_result_file(file));
      } catch (const std::exception&) {
      }
    }
    if (child.status != 0 && child.status != kExitFailed) {
      // Bad input is the same for every process: the first says so, and nothing was measured.
      if (child.status == kExitBadInput && docs.empty()) return kExitBadInput;
      std::cerr << "stagebench run --repeat: process " << k << " ended with status " << child.status
                << "; " << plan.output << " holds the " << docs.size()
                << " process(es) before it\n";
      if (!docs.empty()) write();
      return child.status == kExitStopped ? kExitStopped : kExitFailed;
    }
    if (child.status == kExitFailed) rc = kExitFailed;
    docs.push_back(load_result_file(file));
    write();
  }
  const nlohmann::json doc = write();
  for (const auto& f : files) fs::remove(f, ec);
  for (const auto& run : doc.at("runs"))
    if (!run.contains("status") || run["status"].is_null())
      std::cout << ladder_table_text(run) << '\n';
  std::cout << "wrote " << plan.output << " (" << plan.processes << " processes merged)\n";
  return rc;
}

}  // namespace sb::cli
