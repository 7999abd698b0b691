#include "schema/context_record.h"

#include <cmath>

#include "schema/json_member.h"

namespace sb {
namespace {

using json = nlohmann::json;

std::string text(const json& j, const char* key) {
  const json& v = json_member(j, key);
  return v.is_string() ? v.get<std::string>() : std::string();
}

std::optional<bool> flag(const json& j, const char* key) {
  const json& v = json_member(j, key);
  return v.is_boolean() ? std::optional<bool>(v.get<bool>()) : std::nullopt;
}

std::optional<double> number(const json& j, const char* key) {
  const json& v = json_member(j, key);
  if (!v.is_number()) return std::nullopt;
  const double d = v.get<double>();
  return std::isfinite(d) ? std::optional<double>(d) : std::nullopt;
}

// A whole number as written (a count, a size in bytes); a fraction is unknown.
std::optional<int64_t> whole(const json& j, const char* key) {
  const json& v = json_member(j, key);
  if (v.is_number_integer()) return v.get<int64_t>();
  return std::nullopt;
}

}  // namespace

ContextRecord read_context(const json& context) {
  ContextRecord c;
  if (!context.is_object()) return c;
  c.present = true;
  c.host = text(context, "host");
  c.date = text(context, "date");
  const json& argv = json_member(context, "argv");
  if (argv.is_array() && !argv.empty() && argv[0].is_string())
    c.executable = argv[0].get<std::string>();

  const json& cpu = json_member(context, "cpu");
  c.cpu.model = text(cpu, "model");
  c.cpu.logical_cores = whole(cpu, "logical_cores");
  c.cpu.mhz = number(cpu, "mhz");
  c.cpu.l1d_bytes = whole(cpu, "l1d_bytes");
  c.cpu.l2_bytes = whole(cpu, "l2_bytes");
  c.cpu.l3_bytes = whole(cpu, "l3_bytes");
  c.memory_bytes = number(json_member(context, "memory"), "total_bytes");
  const json& os = json_member(context, "os");
  c.os_distro = text(os, "distro");
  c.virtualized = flag(os, "virtualized");

  const json& build = json_member(context, "build");
  c.build.git = text(build, "git");
  c.build.compiler = text(build, "compiler");
  c.build.type = text(build, "type");
  c.build.dirty = flag(build, "git_dirty");

  const json& env = json_member(context, "environment");
  if (env.is_object()) {
    c.environment.emplace();
    for (const auto& [name, value] : env.items())
      (*c.environment)[name] = value.is_string() ? value.get<std::string>() : value.dump();
  }

  for (const json& d : json_member(json_member(context, "opencl"), "devices"))
    c.opencl_devices.push_back({text(d, "name"), text(d, "platform")});

  const json& papi = json_member(context, "papi");
  const json& events = json_member(papi, "events");
  const json& tiers = json_member(papi, "event_tiers");
  if (events.is_object())
    for (const auto& [name, outcome] : events.items()) {
      PapiEventFacts e;
      e.name = name;
      e.outcome = outcome.is_string() ? outcome.get<std::string>() : outcome.dump();
      e.opened = outcome.is_string() && outcome.get<std::string>() == "opened";
      e.tier = text(tiers, name.c_str());
      if (e.tier.empty()) e.tier = "hardware";
      c.papi_events.push_back(std::move(e));
    }

  for (const json& k : json_member(context, "collectors"))
    c.collectors.push_back({text(k, "name"), text(k, "reason"), flag(k, "available")});
  const json& threading = json_member(context, "threading");
  c.oversubscribed = flag(threading, "oversubscribed");
  c.threading_note = text(threading, "note");
  return c;
}

}  // namespace sb
