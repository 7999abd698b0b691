#pragma once
// The facts of a document's context that readers show (the reports' provenance and HTML header,
// the gbench export, the viewer's context panel), typed as a view: the block itself stays open in
// DocumentRecord::context and is written back as it was read. The CLI's run context
// (harness/cli/run_context.cpp) and the collectors own its shape, so what is missing or
// malformed is unknown here (empty, nullopt), never an error. Readers spell the context's keys
// through this view only.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sb {

struct BuildFacts {
  std::string git, compiler, type;  // "" where not recorded
  std::optional<bool> dirty;        // the checkout had uncommitted changes
};

struct CpuFacts {
  std::string model;
  std::optional<int64_t> logical_cores;
  std::optional<double> mhz;
  std::optional<int64_t> l1d_bytes, l2_bytes, l3_bytes;  // as written: whole bytes
};

struct OpenclDeviceFacts {
  std::string name, platform;
};

// PAPI's events: each event's outcome ("opened" or the error) and its tier ("hardware" where
// not said).
struct PapiEventFacts {
  std::string name, outcome, tier;
  bool opened = false;
};

struct CollectorFacts {
  std::string name, reason;
  std::optional<bool> available;
};

struct ContextRecord {
  bool present = false;  // the block is an object
  std::string host, date;
  std::string executable;  // the command line's first word
  CpuFacts cpu;
  std::optional<double> memory_bytes;
  std::string os_distro;
  std::optional<bool> virtualized;
  BuildFacts build;
  // The timing knobs set in the environment, each value as text (a non-string as its JSON);
  // nullopt: the context does not record them.
  std::optional<std::map<std::string, std::string>> environment;
  std::vector<OpenclDeviceFacts> opencl_devices;
  std::vector<PapiEventFacts> papi_events;  // in name order
  std::vector<CollectorFacts> collectors;
  std::optional<bool> oversubscribed;  // the cores were busy before the run
  std::string threading_note;
};

ContextRecord read_context(const nlohmann::json& context);

}  // namespace sb
