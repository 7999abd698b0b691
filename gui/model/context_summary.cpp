#include "gui/model/context_summary.h"

#include <QSet>

#include "gui/model/json_values.h"
#include "schema/context_record.h"

namespace sb::viewer {
namespace {

using json = nlohmann::json;

void add_fact(ContextSummary& s, const char* label, const QString& value) {
  if (!value.isEmpty()) s.facts.append({QString::fromLatin1(label), value});
}

QString cpu_text(const CpuFacts& cpu) {
  QString t = display_text(cpu.model);
  if (cpu.logical_cores) t += QStringLiteral(" (%1 logical cores)").arg(*cpu.logical_cores);
  return t;
}

// PAPI's per-event results: "opened" or the error. A hardware event that did not open means the
// machine exposes no PMU (typical of VMs): cycle and instruction counts are unavailable.
void papi_warnings(const std::vector<PapiEventFacts>& events, ContextSummary& s) {
  if (events.empty()) return;
  QStringList hw_failed, sw_failed;
  int hw_total = 0;
  for (const PapiEventFacts& e : events) {
    const QString line = display_text(e.name) + QStringLiteral(": ") + display_text(e.outcome);
    if (e.tier == "hardware") {
      ++hw_total;
      if (!e.opened) hw_failed << line;
    } else if (!e.opened) {
      sw_failed << line;
    }
  }
  if (hw_total > 0 && hw_failed.size() == hw_total)
    s.warnings << QStringLiteral("no hardware PMU: ") + hw_failed.join(QStringLiteral("; "));
  else if (!hw_failed.isEmpty())
    s.warnings << QStringLiteral("hardware events not opened: ") +
                      hw_failed.join(QStringLiteral("; "));
  if (!sw_failed.isEmpty())
    s.warnings << QStringLiteral("software events not opened: ") +
                      sw_failed.join(QStringLiteral("; "));
}

void stage_warnings(const RunRecord& run, ContextSummary& s) {
  if (run.complete == false)
    s.warnings << QStringLiteral("partial snapshot: the run had not finished");
  for (const StageRecord& stage : run.stages) {
    if (stage.status != "invalid" && stage.status != "failed") continue;
    s.warnings << QStringLiteral("stage %1 %2: %3")
                      .arg(display_text(stage.id), display_text(stage.status), text(stage.reason));
  }
}

}  // namespace

ContextSummary summarize_context(const DocumentRecord& document, const RunRecord& run) {
  ContextSummary s;
  const ContextRecord ctx = read_context(document.context);
  add_fact(s, "host", display_text(ctx.host));
  add_fact(s, "date", display_text(ctx.date));
  add_fact(s, "cpu", cpu_text(ctx.cpu));
  add_fact(s, "memory", format_bytes(ctx.memory_bytes));
  add_fact(s, "os",
           display_text(ctx.os_distro) +
               (ctx.virtualized == true ? QStringLiteral(" (virtualized)") : QString()));
  add_fact(s, "build",
           QStringList{display_text(ctx.build.compiler), display_text(ctx.build.type),
                       display_text(ctx.build.git)}
               .join(QLatin1Char(' ')));
  add_fact(s, "run",
           QStringList{display_text(run.model), display_text(run.size), display_text(run.backend),
                       display_text(run.mode)}
               .join(QStringLiteral(" / ")));
  add_fact(s, "device", display_text(run.device));
  const json& params = run.params;
  if (params.is_object()) {
    QStringList p;
    for (auto it = params.begin(); it != params.end(); ++it)
      p << display_text(it.key()) + QLatin1Char('=') + scalar_text(*it);
    add_fact(s, "params", p.join(QStringLiteral(", ")));
  }

  for (const OpenclDeviceFacts& d : ctx.opencl_devices)
    s.devices << display_text(d.name) + QStringLiteral(" (") + display_text(d.platform) +
                     QStringLiteral(")");

  QSet<QString> tiers;
  for (const StageRecord& stage : run.stages)
    for (const auto& [name, c] : stage.counters)
      if (!c.tier.empty() && c.tier != "error") tiers.insert(display_text(c.tier));
  s.tiers = tiers.values();
  s.tiers.sort();

  papi_warnings(ctx.papi_events, s);
  for (const CollectorFacts& c : ctx.collectors)
    if (c.available == false && c.name != "papi")
      s.warnings << QStringLiteral("collector %1 unavailable: %2")
                        .arg(display_text(c.name), display_text(c.reason));
  if (ctx.oversubscribed == true)
    s.warnings << QStringLiteral("busy cores: ") + display_text(ctx.threading_note);
  stage_warnings(run, s);
  return s;
}

QString context_html(const ContextSummary& s) {
  QString html = QStringLiteral("<table>");
  for (const auto& [label, value] : s.facts)
    html += QStringLiteral("<tr><td style='white-space:nowrap'><b>%1</b></td><td>%2</td></tr>")
                .arg(label.toHtmlEscaped(), value.toHtmlEscaped());
  QStringList devices;
  for (const QString& d : s.devices) devices << d.toHtmlEscaped();
  html += QStringLiteral("<tr><td><b>devices</b></td><td>%1</td></tr>")
              .arg(devices.isEmpty() ? QStringLiteral("-") : devices.join(QStringLiteral("<br>")));
  html += QStringLiteral("<tr><td><b>counter tiers</b></td><td>%1</td></tr></table>")
              .arg(s.tiers.isEmpty() ? QStringLiteral("none") : s.tiers.join(QStringLiteral(", ")));
  if (!s.warnings.isEmpty()) {
    html += QStringLiteral("<p><b>Warnings</b></p><ul>");
    for (const QString& w : s.warnings)
      html += QStringLiteral("<li style='color:#a05000'>%1</li>").arg(w.toHtmlEscaped());
    html += QStringLiteral("</ul>");
  }
  return html;
}

}  // namespace sb::viewer
