#include <iostream>

#include "harness/cli/commands.h"
#include "harness/cli/load_result.h"
#include "harness/cli/option_checks.h"
#include "harness/cli/output_path.h"
#include "reports/report.h"
#include "schema/atomic_file.h"

namespace sb::cli {
namespace {

void write_output(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text;
    return;
  }
  write_text_atomic(path, text);  // a full disk keeps the previous report whole
  std::cerr << "wrote " << path << '\n';
}

}  // namespace

void add_report(CLI::App& app, int& exit_code) {
  struct Options {
    std::vector<std::string> files;
    std::string format = "md";
    std::string output;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "report", "Print the ladder tables of result files (Markdown, CSV or self-contained HTML)");
  cmd->add_option("files", o->files, "stagebench/1 JSON files")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--format,-f", o->format,
                  "md (default, what the terminal shows), csv, html, or summary (one line per "
                  "run: the fastest stage that stands and its claim's verdict)")
      ->check(CLI::IsMember({"md", "markdown", "csv", "html", "summary"}));
  cmd->add_option("-o,--output", o->output, "write to this file instead of standard output")
      ->check(kNonEmpty);
  cmd->callback([o, &exit_code] {
    if (o->output != "-" && !o->output.empty()) check_output(o->output, "-o");
    const ReportFormat format = parse_report_format(o->format);
    std::vector<ReportInput> inputs;
    for (const auto& f : o->files) inputs.push_back({f, load_result_file(f)});
    write_output(o->output, render_report(inputs, format));
    exit_code = 0;
  });
}

}  // namespace sb::cli
