#pragma once
// Horizontal bar charts as inline SVG (one row per stage, bars per series, error whiskers,
// claim markers, a reference line), so that the HTML report needs no script and no network.
// A stacked chart draws one bar per row with the series as segments end to end (the training
// step's phases); it has no whiskers.
#include <cmath>
#include <string>
#include <vector>

namespace sb {

struct ChartSeries {
  std::string name;
  std::string color;                  // a CSS colour, e.g. "#4477aa"
  std::vector<double> value, lo, hi;  // per label; NaN: no bar / no whisker
};

struct BarChart {
  std::string title;
  std::string axis_label;           // "median time (ms)"
  std::vector<std::string> labels;  // one row per label
  std::vector<ChartSeries> series;
  std::vector<double> markers;  // per label, NaN for none (e.g. the documented claim)
  std::string marker_name;      // legend text for the markers
  double reference = NAN;       // a vertical line, e.g. at 1x
  bool bytes_axis = false;      // tick labels as "108 MB"
  bool stacked = false;         // one bar per row, the series' values end to end
};

// A complete <svg> element. Text is escaped; non-finite or negative values draw no bar.
std::string svg_bar_chart(const BarChart& chart);

// Text safe inside HTML/SVG element content and quoted attribute values.
std::string html_escape(const std::string& text);

}  // namespace sb
