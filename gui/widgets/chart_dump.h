#pragma once
// What a chart shows, as text, and what it could not fit. The viewer's charts are checked the
// way its tables are (hotspot's golden dumps): chart_dump() writes the title, every axis (its
// title, range and tick labels as drawn) and every series (its name and values), and golden
// files pin it (tests/gui/golden/), so a change in what a chart shows is a reviewed diff.
// elided_texts() lists the texts a laid-out chart drew shortened ("..."): axis labels and
// titles, legend entries, the title. The tests require none at the default window size.
#include <QString>
#include <QStringList>

namespace QtCharts {
class QChart;
class QChartView;
}  // namespace QtCharts

namespace sb::viewer {

QString chart_dump(const QtCharts::QChart& chart);

// Needs the view shown and laid out (QApplication::processEvents after show()).
QStringList elided_texts(const QtCharts::QChartView& view);

}  // namespace sb::viewer
