#pragma once
// stagebench/1 -> Google Benchmark's JSON (the shape `--benchmark_format=json` writes), so that
// dashboards built for it (github-action-benchmark's "googlecpp", Bencher's "cpp_google") read
// stagebench results. docs/sweeps.md, "Google Benchmark JSON", lists the mapping.
#include <string>

#include <nlohmann/json.hpp>

#include "schema/records.h"

namespace sb {

// {"context": {date, host_name, executable, num_cpus, mhz_per_cpu, caches, library_build_type,
// ...}, "benchmarks": [...]}: one benchmark per measured stage (status ok or invalid) of every
// complete run, named "model/size/backend/stage" ("/batch:B" after the backend when the batch
// is not 1; "/run:I", I its index in "runs", when two runs would share a name). Skipped and failed
// stages, and partial runs ("complete": false), are left out: they have no time to chart.
// Runs and stages come from schema's records; the context's keys (host, cpu, build, argv) are
// the harness's open block.
nlohmann::json gbench_from_records(const DocumentRecord& stagebench_document);
// The same on a document's JSON, read into records leniently (one name, so it can be passed as
// a function).
nlohmann::json gbench_document(const nlohmann::json& stagebench_document);

}  // namespace sb
