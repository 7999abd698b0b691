#include "reports/svg_chart.h"

#include <algorithm>
#include <cstdio>

#include "reports/number_format.h"

namespace sb {
namespace {

constexpr double kWidth = 760, kLabelWidth = 180, kRightMargin = 30, kTop = 34, kBottom = 46;
constexpr double kBarHeight = 13, kRowPadding = 10;

std::string px(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

double nice_step(double range) {
  const double raw = range / 5;
  const double magnitude = std::pow(10, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 2.5, 5.0})
    if (raw <= m * magnitude) return m * magnitude;
  return 10 * magnitude;
}

double at(const std::vector<double>& v, size_t i) {
  return i < v.size() ? v[i] : NAN;
}

// A stacked row's length: the sum of its finite, positive segments (0 when none).
double stacked_total(const BarChart& c, size_t row) {
  double sum = 0;
  for (const ChartSeries& s : c.series) {
    const double v = at(s.value, row);
    if (std::isfinite(v) && v > 0) sum += v;
  }
  return sum;
}

double axis_max(const BarChart& c) {
  double top = 0;
  auto take = [&](double v) {
    if (std::isfinite(v)) top = std::max(top, v);
  };
  if (c.stacked) {
    for (size_t r = 0; r < c.labels.size(); ++r) take(stacked_total(c, r));
  } else {
    for (const ChartSeries& s : c.series)
      for (const auto* values : {&s.value, &s.hi})
        std::for_each(values->begin(), values->end(), take);
  }
  std::for_each(c.markers.begin(), c.markers.end(), take);
  take(c.reference);
  if (!(top > 0)) return 1;
  const double step = nice_step(top);
  const double rounded = std::ceil(top / step) * step;
  return std::isfinite(rounded) && rounded > 0 ? rounded : top;
}

std::string shortened(const std::string& label) {
  if (display_width(label) <= 26) return label;
  std::string out;
  size_t width = 0;
  for (const char c : label) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80 && ++width > 25) break;
    out += c;
  }
  return out + "…";
}

// One stacked bar: a segment per series with a positive value, its share of the row in the
// segment's tooltip; "n/a" when no segment is known.
template <typename XOf, typename TickText>
std::string stacked_row(const BarChart& c, size_t r, double y0, const XOf& x_of,
                        const TickText& tick_text) {
  const double total = stacked_total(c, r);
  std::string svg;
  double start = 0;
  bool any = false;
  for (const ChartSeries& s : c.series) {
    const double v = at(s.value, r);
    if (!std::isfinite(v) || v < 0) continue;
    any = true;
    if (v == 0) continue;
    const double x0 = x_of(start), x1 = x_of(start + v);
    start += v;
    svg += "<rect class=\"bar segment\" x=\"" + px(x0) + "\" y=\"" + px(y0 + 1) + "\" width=\"" +
           px(x1 - x0) + "\" height=\"" + px(kBarHeight - 2) + "\" fill=\"" + html_escape(s.color) +
           "\"><title>" +
           html_escape(c.labels[r] + " " + s.name + ": " + tick_text(v) + " (" +
                       (v / total < 0.005 ? "<1" : format_fixed(v / total * 100, 0)) + "%)") +
           "</title></rect>\n";
  }
  if (!any)
    svg += "<text class=\"na\" x=\"" + px(kLabelWidth + 4) + "\" y=\"" + px(y0 + 10) +
           "\">n/a</text>\n";
  return svg;
}

}  // namespace

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        // Control characters are not allowed in HTML text; a space keeps the layout.
        out += (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') ? ' ' : c;
    }
  }
  return out;
}

std::string svg_bar_chart(const BarChart& c) {
  const size_t rows = c.labels.size();
  const size_t n_series = c.stacked ? 1 : std::max<size_t>(c.series.size(), 1);
  const double row_height = n_series * kBarHeight + kRowPadding;
  const double plot_height = std::max(1.0, rows * row_height);
  const double height = kTop + plot_height + kBottom;
  const double plot_width = kWidth - kLabelWidth - kRightMargin;
  const double top = axis_max(c);
  auto x_of = [&](double v) { return kLabelWidth + std::clamp(v / top, 0.0, 1.0) * plot_width; };
  auto tick_text = [&](double v) {
    if (c.bytes_axis) return format_bytes(v);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);  // ticks are round numbers: 0, 20, 0.5, 1e+06
    return std::string(buf);
  };

  std::string svg =
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" role=\"img\" width=\"" +
      px(kWidth) + "\" height=\"" + px(height) + "\" viewBox=\"0 0 " + px(kWidth) + " " +
      px(height) + "\">\n";
  svg += "<title>" + html_escape(c.title) + "</title>\n";
  svg += "<text class=\"chart-title\" x=\"4\" y=\"18\">" + html_escape(c.title) + "</text>\n";

  // Legend, right-aligned in the title row: series swatches (when more than one), the marker.
  double right = kWidth - kRightMargin;
  auto legend = [&](const std::string& name, const auto& shape_at) {
    right -= 14 + 7.0 * display_width(name);
    svg += shape_at(right) + "<text class=\"legend\" x=\"" + px(right + 14) + "\" y=\"18\">" +
           html_escape(name) + "</text>\n";
    right -= 12;
  };
  if (!c.marker_name.empty()) {
    legend(c.marker_name, [](double x) {
      return "<path class=\"marker\" d=\"M" + px(x + 5) + " 9 l5 5 l-5 5 l-5 -5 z\"/>";
    });
  }
  for (size_t k = c.series.size(); c.series.size() > 1 && k-- > 0;) {
    legend(c.series[k].name, [&](double x) {
      return "<rect x=\"" + px(x) + "\" y=\"9\" width=\"10\" height=\"10\" fill=\"" +
             html_escape(c.series[k].color) + "\"/>";
    });
  }

  // Grid and axis.
  const double step = nice_step(top);
  for (int i = 0; i <= 20; ++i) {
    const double v = i * step;
    if (v > top * (1 + 1e-9)) break;
    const double x = x_of(v);
    svg += "<line class=\"grid\" x1=\"" + px(x) + "\" y1=\"" + px(kTop) + "\" x2=\"" + px(x) +
           "\" y2=\"" + px(kTop + plot_height) + "\"/>\n";
    svg += "<text class=\"tick\" x=\"" + px(x) + "\" y=\"" + px(kTop + plot_height + 16) +
           "\" text-anchor=\"middle\">" + html_escape(tick_text(v)) + "</text>\n";
  }
  svg += "<text class=\"axis-label\" x=\"" + px(kLabelWidth + plot_width / 2) + "\" y=\"" +
         px(height - 8) + "\" text-anchor=\"middle\">" + html_escape(c.axis_label) + "</text>\n";

  for (size_t r = 0; r < rows; ++r) {
    const double y0 = kTop + r * row_height + kRowPadding / 2;
    svg += "<text class=\"label\" x=\"" + px(kLabelWidth - 6) + "\" y=\"" +
           px(y0 + n_series * kBarHeight / 2 + 4) + "\" text-anchor=\"end\">" +
           html_escape(shortened(c.labels[r])) + "</text>\n";
    if (c.stacked) {
      svg += stacked_row(c, r, y0, x_of, tick_text);
      continue;
    }
    for (size_t k = 0; k < c.series.size(); ++k) {
      const ChartSeries& s = c.series[k];
      const double y = y0 + k * kBarHeight;
      const double v = at(s.value, r);
      if (!std::isfinite(v)) {
        svg += "<text class=\"na\" x=\"" + px(kLabelWidth + 4) + "\" y=\"" + px(y + 10) +
               "\">n/a</text>\n";
        continue;
      }
      svg += "<rect class=\"bar\" x=\"" + px(kLabelWidth) + "\" y=\"" + px(y + 1) + "\" width=\"" +
             px(x_of(v) - kLabelWidth) + "\" height=\"" + px(kBarHeight - 2) + "\" fill=\"" +
             html_escape(s.color) + "\"><title>" +
             html_escape(c.labels[r] + " " + s.name + ": " + tick_text(v)) + "</title></rect>\n";
      const double lo = at(s.lo, r), hi = at(s.hi, r);
      if (std::isfinite(lo) && std::isfinite(hi)) {
        const double ym = y + kBarHeight / 2;
        svg += "<path class=\"error-bar\" d=\"M" + px(x_of(lo)) + " " + px(ym) + " H" +
               px(x_of(hi)) + " M" + px(x_of(lo)) + " " + px(ym - 4) + " v8 M" + px(x_of(hi)) +
               " " + px(ym - 4) + " v8\"/>\n";
      }
    }
    const double m = at(c.markers, r);
    if (std::isfinite(m)) {
      const double ym = y0 + n_series * kBarHeight / 2;
      svg += "<path class=\"marker\" d=\"M" + px(x_of(m)) + " " + px(ym - 6) +
             " l6 6 l-6 6 l-6 -6 z\"><title>" +
             html_escape(c.labels[r] + " " + c.marker_name + ": " + tick_text(m)) +
             "</title></path>\n";
    }
  }
  if (std::isfinite(c.reference) && c.reference >= 0) {
    const double x = x_of(c.reference);
    svg += "<line class=\"reference\" x1=\"" + px(x) + "\" y1=\"" + px(kTop) + "\" x2=\"" + px(x) +
           "\" y2=\"" + px(kTop + plot_height) + "\"/>\n";
  }
  return svg + "</svg>\n";
}

}  // namespace sb
