// The text table of a query result (`--format table`), built as the batches come: every row, or
// on a terminal a preview as DuckDB's CLI renderer draws one — the first and last rows with a "·"
// row between, columns fitted to the terminal's width, and a footer saying what was left out.
#pragma once

#include <cstddef>
#include <deque>
#include <string>

#include "lakeindex/batch.h"

namespace lakeindex::cli {

// The width of the terminal on file descriptor `fd` (TIOCGWINSZ), else $COLUMNS, else 80.
size_t TerminalWidth(int fd);

class TablePrinter {
 public:
  // `max_rows`: at most this many rows shown, the first half and the last half (0: every row);
  // only those rows are kept, so a preview of any result takes memory for `max_rows` rows.
  // `width`: the line width to fit (0: none); values that are not numbers are cut with "…", and
  // columns that still do not fit are left out, from the right.
  // `max_value_width`: longer values are cut with "…" (bytes that are not UTF-8, and controls,
  // are shown as \xHH, as DuckDB shows a BLOB).
  TablePrinter(Schema schema, size_t max_rows, size_t width, size_t max_value_width = 40);
  Status Add(const Batch& batch);
  // The aligned header, rule and rows, without a footer.
  std::string Table() const;
  // The table and its footer: "(N rows)", or what the preview left out and how to see it.
  std::string Finish() const;

 private:
  // The table, and how many columns it shows.
  std::string Render(size_t* shown_columns) const;

  Schema schema_;
  size_t head_rows_, tail_rows_, width_, max_value_width_;
  Batch head_;               // the first head_rows_ rows
  std::deque<Batch> tail_;   // at least the last tail_rows_ rows after the head (when there are)
  size_t tail_kept_ = 0;     // rows in tail_
  size_t total_ = 0;
};

}  // namespace lakeindex::cli
