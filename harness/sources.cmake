target_sources(sb_harness PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/stopping.cpp
  ${CMAKE_CURRENT_LIST_DIR}/correctness.cpp
  ${CMAKE_CURRENT_LIST_DIR}/stage_report.cpp
  ${CMAKE_CURRENT_LIST_DIR}/runner.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sweep_config.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sweep_progress.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sweep_runner.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sweep_merge.cpp
  ${CMAKE_CURRENT_LIST_DIR}/journal.cpp
  ${CMAKE_CURRENT_LIST_DIR}/journal_match.cpp
  ${CMAKE_CURRENT_LIST_DIR}/slurm_config.cpp
  ${CMAKE_CURRENT_LIST_DIR}/slurm_script.cpp
  ${CMAKE_CURRENT_LIST_DIR}/slurm_commands.cpp
  ${CMAKE_CURRENT_LIST_DIR}/slurm_submit.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sweep_status.cpp
  ${CMAKE_CURRENT_LIST_DIR}/peer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/repeat_merge.cpp)
