target_sources(sb_cli PRIVATE cli/app.cpp cli/run_context.cpp cli/progress_line.cpp
               cli/job.cpp cli/cmd_probe.cpp cli/cmd_list.cpp cli/cmd_run.cpp cli/cmd_infer.cpp
               cli/cmd_report.cpp
               cli/cmd_sweep.cpp cli/cmd_merge.cpp
               cli/cmd_compare.cpp cli/cmd_compare_ab.cpp cli/cmd_export_steps.cpp cli/output_lock.cpp cli/output_path.cpp
               cli/stop_signal.cpp cli/threading.cpp cli/cmd_tune.cpp
               cli/cmd_peer.cpp cli/child_process.cpp cli/repeat_run.cpp cli/batch_auto.cpp
               cli/model_flags.cpp)
