#pragma once
// The captured samples of `run --timeline` (collectors/timeline_collector.h) as Chrome's
// trace-event JSON (the "JSON Object Format" of the Trace Event Format, which Perfetto and
// chrome://tracing open): one process per run (model/size/backend), and in it a track of the
// captured samples named by stage, a track per host phase (data, h2d, forward, loss, backward,
// optimizer) and a track of the device's commands. Every event is a complete event ("ph": "X")
// with its stage in args.
//
// Clocks: the host's times are steady_clock, the device's are its profiling clock, whose epoch
// OpenCL leaves open. Each stage's device events are placed so that the earliest QUEUED
// timestamp of the sample falls on the sample's host start: QUEUED is taken on the host when a
// command is enqueued, which the sample does first, so this is early by at most the host time
// before the first enqueue. Durations and the gaps between device events are the device's own.
#include <vector>

#include <nlohmann/json.hpp>

#include "collectors/timeline_collector.h"

namespace sb {

nlohmann::json chrome_trace(const std::vector<StageTimeline>& stages);

}  // namespace sb
