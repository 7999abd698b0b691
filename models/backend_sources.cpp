#include "models/backend_sources.h"

namespace sb {

CollectorSources collector_sources(Backend& be) {
  const BackendMemory m = be.memory();
  CollectorSources s;
  s.host_tensors = m.host;
  s.device_buffers = m.device;
  s.kernels = be.kernel_log();
  return s;
}

}  // namespace sb
