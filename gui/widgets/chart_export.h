#pragma once
// Saving a chart view as PNG or (when built with QtSvg) SVG, chosen by the file's suffix.
#include <QString>
#include <QtCharts/QChartView>

namespace sb::viewer {

bool svg_export_available();
// Throws std::runtime_error naming the file when it cannot be written.
void export_chart(QtCharts::QChartView& view, const QString& path);
// Asks for a file name and exports; reports a failure in a message box.
void export_chart_interactively(QtCharts::QChartView& view);

}  // namespace sb::viewer
