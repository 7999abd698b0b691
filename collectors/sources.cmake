target_sources(sb_collectors PRIVATE
  collectors.cpp
  memory_collector.cpp
  opencl_collector.cpp
  papi_collector.cpp
  rusage_collector.cpp
  timeline_collector.cpp
  timeline_trace.cpp)
