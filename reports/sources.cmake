target_sources(sb_reports PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/number_format.cpp
  ${CMAKE_CURRENT_LIST_DIR}/text_table.cpp
  ${CMAKE_CURRENT_LIST_DIR}/runs_of.cpp
  ${CMAKE_CURRENT_LIST_DIR}/stage_row.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ladder_table.cpp
  ${CMAKE_CURRENT_LIST_DIR}/train_phases.cpp
  ${CMAKE_CURRENT_LIST_DIR}/svg_chart.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report_csv.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report_html.cpp
  ${CMAKE_CURRENT_LIST_DIR}/verdict.cpp
  ${CMAKE_CURRENT_LIST_DIR}/mann_whitney.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sample_verdict.cpp
  ${CMAKE_CURRENT_LIST_DIR}/thresholds.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compare.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compare_render.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gbench.cpp)
