#pragma once
// The table as a tab-separated file: a header line naming the seven columns (in any order), then
// one row per line, every value non-empty. Lines end in "\n" or "\r\n"; blank lines at the end of
// the file are ignored.
#include <filesystem>

#include "models/deepfm/data/table.h"

namespace sb::deepfm {

// Writes the header and rows in kColumnNames order. Throws std::runtime_error if the file cannot
// be written, std::invalid_argument for a value holding a tab or a line break.
void write_tsv(const Table& table, const std::filesystem::path& path);

// Throws std::invalid_argument, and nothing else, for a table the pipeline cannot use; the message
// is "<file>: <problem>" or "<file>: line <n>: <problem>" (1-based):
//   not there, not a regular file (a directory, a FIFO), unreadable, empty;
//   a header missing a column (named), naming an unknown or repeated column;
//   a row with the wrong number of fields (how many, and how many expected);
//   an empty value (and its column);
//   an effect_direction, effect_type or outcome label that is not one of the class names in
//   table.h (raw or with '_' for ' ');
//   fewer than kMinRows data rows: too small to split 80/20 with a non-empty test split.
// The rows keep their raw text (no cleaning).
Table read_tsv(const std::filesystem::path& path);

}  // namespace sb::deepfm
