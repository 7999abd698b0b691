#pragma once
// What the collectors read from a backend: its host tensors, device buffers and kernel log.
// It lives with the models, not the op layer, so that the ops never see the collectors.
#include "contract/collector_sources.h"
#include "models/ops/backend.h"

namespace sb {

CollectorSources collector_sources(Backend& be);

}  // namespace sb
