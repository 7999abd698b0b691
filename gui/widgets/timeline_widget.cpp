#include "gui/widgets/timeline_widget.h"

#include <algorithm>
#include <cmath>

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

namespace sb::viewer {
namespace {

constexpr int kLabelWidth = 150;
constexpr int kLaneHeight = 20;
constexpr int kAxisHeight = 22;

// The reports' phase colours (reports/report_html.cpp), and one colour per kernel name.
QColor colour_of(const TimelineTrack& track, const TimelineSpan& span) {
  if (track.name == QLatin1String("sample")) return QColor(0x99, 0x99, 0x99);
  if (track.device) {
    const uint h = qHash(span.name);
    return QColor::fromHsv(static_cast<int>(h % 360), 110, 200);
  }
  static const std::pair<const char*, QColor> kPhases[] = {
      {"data", QColor(0xbb, 0xbb, 0xbb)},     {"h2d", QColor(0xdd, 0xaa, 0x33)},
      {"forward", QColor(0x44, 0x77, 0xaa)},  {"loss", QColor(0x88, 0x66, 0xaa)},
      {"backward", QColor(0xcc, 0x66, 0x77)}, {"optimizer", QColor(0x44, 0xaa, 0x77)}};
  for (const auto& [name, colour] : kPhases)
    if (span.name == QLatin1String(name)) return colour;
  return QColor(0x77, 0x99, 0xbb);
}

// A round tick step for `span` microseconds over about `ticks` ticks.
double tick_step(double span, int ticks) {
  const double raw = span / std::max(1, ticks);
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * power >= raw) return m * power;
  return 10 * power;
}

QString time_label(double us, double step) {
  if (step >= 1000) return QStringLiteral("%1 ms").arg(us / 1000, 0, 'g', 4);
  return QStringLiteral("%1 us").arg(us, 0, 'g', 4);
}

}  // namespace

TimelineWidget::TimelineWidget(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setMinimumHeight(kAxisHeight + 3 * kLaneHeight);
}

void TimelineWidget::set_stage(std::optional<TimelineStage> stage, const QString& why_none) {
  stage_ = std::move(stage);
  why_none_ = why_none;
  setMinimumHeight(sizeHint().height());  // every lane, whatever the splitter gives the rest
  updateGeometry();
  update();
}

QSize TimelineWidget::sizeHint() const {
  const int lanes = stage_ ? static_cast<int>(stage_->tracks.size()) : 2;
  return {800, kAxisHeight + lanes * kLaneHeight + 8};
}

double TimelineWidget::end_us() const {
  double end = stage_ ? stage_->sample_us : 0;
  if (stage_)
    for (const TimelineTrack& t : stage_->tracks)
      for (const TimelineSpan& s : t.spans) end = std::max(end, s.start_us + s.dur_us);
  return std::max(end, 1.0);
}

QRectF TimelineWidget::plot() const {
  return QRectF(kLabelWidth, kAxisHeight, std::max(10, width() - kLabelWidth - 8),
                height() - kAxisHeight);
}

void TimelineWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  if (!stage_) {
    p.setPen(palette().color(QPalette::Disabled, QPalette::Text));
    p.drawText(rect().adjusted(8, 0, -8, 0), Qt::AlignVCenter | Qt::TextWordWrap, why_none_);
    return;
  }
  const QRectF area = plot();
  const double end = end_us();
  const double scale = area.width() / end;
  // The time axis: round ticks from the sample's start.
  const double step = tick_step(end, std::max(2, static_cast<int>(area.width() / 110)));
  p.setPen(palette().color(QPalette::Mid));
  for (double t = 0; t <= end + step * 1e-9; t += step) {
    const double x = area.left() + t * scale;
    p.drawLine(QPointF(x, area.top() - 4), QPointF(x, height()));
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRectF(x + 2, 2, 100, kAxisHeight - 6), Qt::AlignLeft | Qt::AlignVCenter,
               time_label(t, step));
    p.setPen(palette().color(QPalette::Mid));
  }
  int lane = 0;
  for (const TimelineTrack& track : stage_->tracks) {
    const double y = area.top() + lane * kLaneHeight;
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRectF(4, y, kLabelWidth - 8, kLaneHeight), Qt::AlignRight | Qt::AlignVCenter,
               track.name);
    for (const TimelineSpan& s : track.spans) {
      // At least a pixel wide: a 2 us kernel in a 10 ms sample still shows.
      const QRectF r(area.left() + s.start_us * scale, y + 3, std::max(1.0, s.dur_us * scale),
                     kLaneHeight - 6);
      p.fillRect(r, colour_of(track, s));
    }
    ++lane;
  }
}

const TimelineSpan* TimelineWidget::span_at(const QPoint& at) const {
  if (!stage_) return nullptr;
  const QRectF area = plot();
  const int lane = static_cast<int>(std::floor((at.y() - area.top()) / kLaneHeight));
  if (lane < 0 || lane >= static_cast<int>(stage_->tracks.size()) || at.x() < area.left())
    return nullptr;
  const double scale = area.width() / end_us();
  const double us = (at.x() - area.left()) / scale;
  const double slack = 2 / scale;  // two pixels either side, for spans drawn one pixel wide
  const TimelineSpan* best = nullptr;
  for (const TimelineSpan& s : stage_->tracks[static_cast<size_t>(lane)].spans)
    if (us >= s.start_us - slack && us <= s.start_us + s.dur_us + slack) best = &s;
  return best;
}

bool TimelineWidget::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    const auto* help = static_cast<QHelpEvent*>(e);
    if (const TimelineSpan* s = span_at(help->pos()))
      QToolTip::showText(help->globalPos(),
                         QStringLiteral("%1\n%2 us at %3 us")
                             .arg(s->name)
                             .arg(s->dur_us, 0, 'f', 1)
                             .arg(s->start_us, 0, 'f', 1),
                         this);
    else
      QToolTip::hideText();
    return true;
  }
  return QWidget::event(e);
}

}  // namespace sb::viewer
