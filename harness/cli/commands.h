#pragma once
// Each subcommand registers itself on the app and runs from its own file.
#include <CLI/CLI.hpp>

namespace sb::cli {

// Exit codes: 0 success; 1 the command ran but something in it failed (a stage failed);
// 2 bad input (unknown model, stage, size or backend; missing device; unreadable file).
inline constexpr int kExitFailed = 1;
inline constexpr int kExitBadInput = 2;

void add_probe(CLI::App& app, int& exit_code);
void add_list(CLI::App& app, int& exit_code);
void add_run(CLI::App& app, int& exit_code);
void add_infer(CLI::App& app, int& exit_code);
void add_report(CLI::App& app, int& exit_code);
void add_sweep(CLI::App& app, int& exit_code);
void add_merge(CLI::App& app, int& exit_code);
void add_compare(CLI::App& app, int& exit_code);
void add_compare_ab(CLI::App& app, int& exit_code);
void add_export_steps(CLI::App& app, int& exit_code);
void add_trace_renamed(CLI::App& app);  // `trace`, renamed export-steps: exits 2 naming it
void add_tune(CLI::App& app, int& exit_code);
void add_peer(CLI::App& app, int& exit_code);

}  // namespace sb::cli
