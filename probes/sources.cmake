target_sources(sb_probes PRIVATE
  build_probe.cpp
  cpu_probe.cpp
  device_filter.cpp
  memory_os_probe.cpp
  opencl_probe.cpp
  papi_init.cpp
  papi_probe.cpp
  probe_json.cpp
  probe_text.cpp
  text_file.cpp
  cpu_load.cpp)
if(STAGEBENCH_OPENCL)
  target_sources(sb_probes PRIVATE opencl_ptx_probe.cpp opencl_select.cpp)
endif()
