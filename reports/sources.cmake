target_sources(sb_reports PRIVATE ladder_table.cpp)
