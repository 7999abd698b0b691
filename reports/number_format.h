#pragma once
// How the reports write numbers: "-" for unknown (NaN), fixed or three significant digits for
// people, the shortest round-trip form for machines (CSV, JSON).
#include <string>

namespace sb {

std::string format_fixed(double v, int decimals);  // "-" when v is NaN or infinite
std::string format_significant(double v);          // about three significant digits
std::string format_bytes(double bytes);            // "812 KB", "108 MB", "3.76 GB"
std::string format_percent_change(double ratio);   // 1.22 -> "+22%"
std::string format_round_trip(double v);           // shortest exact form; "" when NaN

// Columns a string takes in a terminal: UTF-8 continuation bytes take none.
size_t display_width(const std::string& s);

}  // namespace sb
