#pragma once
// One captured sample of a stage drawn as lanes over time (gui/model/timeline.h): the sample,
// each host phase, the device's commands. Hover a span for its name, start and duration. Drawn
// with QPainter rather than QtCharts: thousands of short spans in a lane are rectangles, not
// series.
#include <optional>

#include <QWidget>

#include "gui/model/timeline.h"

namespace sb::viewer {

class TimelineWidget : public QWidget {
  Q_OBJECT

 public:
  explicit TimelineWidget(QWidget* parent = nullptr);
  // nullopt: no timeline for this stage; the widget says how to get one.
  void set_stage(std::optional<TimelineStage> stage, const QString& why_none = {});
  const std::optional<TimelineStage>& stage() const { return stage_; }
  const QString& why_none() const { return why_none_; }
  QSize sizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;  // tooltips

 private:
  // The span under a point, if any: its track and index.
  const TimelineSpan* span_at(const QPoint& at) const;
  double end_us() const;
  QRectF plot() const;

  std::optional<TimelineStage> stage_;
  QString why_none_;
};

}  // namespace sb::viewer
