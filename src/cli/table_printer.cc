#include "cli/table_printer.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <vector>

#include "common/text.h"

namespace lakeindex::cli {

namespace {
// A cell for people: NULL as "NULL"; bytes that are not UTF-8, and controls, as \xHH.
std::string CellText(const Column& c, size_t row) {
  if (c.IsNull(row)) return "NULL";
  if (c.type() == TypeId::kString) return EscapeBytes(c.GetString(row), /*controls=*/true);
  return c.GetValue(row).ToString();
}

// Counts UTF-8 code points, which is what a terminal column roughly shows.
size_t DisplayWidth(const std::string& s) {
  size_t w = 0;
  for (unsigned char ch : s) w += (ch & 0xC0) != 0x80;
  return w;
}

// `text` in at most `width` (>= 1) columns: cut at a code point, "…" last.
std::string Cut(std::string text, size_t width) {
  if (DisplayWidth(text) <= width) return text;
  size_t points = 0, at = 0;
  for (; at < text.size(); ++at) {
    if ((static_cast<unsigned char>(text[at]) & 0xC0) != 0x80 && points++ == width - 1) break;
  }
  text.resize(at);
  return text + "\xe2\x80\xa6";
}

constexpr size_t kSeparator = 2;  // spaces between columns
constexpr size_t kNarrowest = 8;  // a column cut to fit the terminal keeps at least this (or its header)
}  // namespace

size_t TerminalWidth(int fd) {
  struct winsize ws {};
  if (::ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  if (const char* columns = std::getenv("COLUMNS")) {
    const long n = std::strtol(columns, nullptr, 10);
    if (n > 0) return size_t(n);
  }
  return 80;
}

TablePrinter::TablePrinter(Schema schema, size_t max_rows, size_t width, size_t max_value_width)
    : schema_(std::move(schema)),
      head_rows_(max_rows == 0 ? std::numeric_limits<size_t>::max() : max_rows / 2 + max_rows % 2),
      tail_rows_(max_rows / 2),
      width_(width),
      max_value_width_(std::max<size_t>(max_value_width, 1)),
      head_(schema_) {}

Status TablePrinter::Add(const Batch& batch) {
  const size_t n = batch.num_rows();
  total_ += n;
  const size_t take = std::min(n, head_rows_ - head_.num_rows());
  if (take > 0) RETURN_IF_ERROR(head_.Append(take == n ? batch : batch.Slice(0, take)));
  const size_t rest = n - take;
  if (rest == 0 || tail_rows_ == 0) return Status::OK();
  if (rest >= tail_rows_) {
    tail_.clear();
    tail_.push_back(batch.Slice(n - tail_rows_, tail_rows_));
    tail_kept_ = tail_rows_;
    return Status::OK();
  }
  tail_.push_back(batch.Slice(take, rest));
  tail_kept_ += rest;
  while (tail_kept_ - tail_.front().num_rows() >= tail_rows_) {
    tail_kept_ -= tail_.front().num_rows();
    tail_.pop_front();
  }
  return Status::OK();
}

std::string TablePrinter::Render(size_t* shown_columns) const {
  const size_t ncols = schema_.num_fields();
  const bool cut_rows = total_ > head_.num_rows() + std::min(tail_kept_, tail_rows_);
  // The rows shown, as cells; an empty row stands for the rows left out.
  std::vector<std::vector<std::string>> rows;
  auto add_rows = [&](const Batch& b, size_t from) {
    for (size_t r = from; r < b.num_rows(); ++r) {
      std::vector<std::string> cells;
      for (size_t c = 0; c < ncols; ++c) {
        std::string text = CellText(b.column(c), r);
        for (char& ch : text) {
          if (ch == '\n' || ch == '\r' || ch == '\t') ch = ' ';
        }
        cells.push_back(Cut(std::move(text), max_value_width_));
      }
      rows.push_back(std::move(cells));
    }
  };
  add_rows(head_, 0);
  if (cut_rows) rows.emplace_back();
  size_t skip = tail_kept_ > tail_rows_ ? tail_kept_ - tail_rows_ : 0;
  for (const Batch& b : tail_) {
    const size_t from = std::min(skip, b.num_rows());
    skip -= from;
    add_rows(b, from);
  }
  std::vector<size_t> width(ncols), narrowest(ncols);
  for (size_t c = 0; c < ncols; ++c) {
    const size_t header = DisplayWidth(schema_.field(c).name);
    width[c] = header;
    for (const auto& row : rows) {
      if (!row.empty()) width[c] = std::max(width[c], DisplayWidth(row[c]));
    }
    // A number cut would read as another number: numeric columns are left out whole, not cut.
    narrowest[c] = IsNumeric(schema_.field(c).type) ? width[c]
                                                     : std::min(width[c], std::max(kNarrowest, std::min<size_t>(header, 20)));
  }
  // Fitting the terminal: the widest columns that are not numbers are cut first, down to their
  // narrowest; then the columns on the right that still do not fit are left out.
  size_t shown = ncols;
  if (width_ > 0 && ncols > 0) {
    auto line = [&] {
      size_t w = kSeparator * (shown - 1);
      for (size_t c = 0; c < shown; ++c) w += width[c];
      return w;
    };
    size_t total = line();
    while (total > width_) {
      size_t widest = ncols;
      for (size_t c = 0; c < ncols; ++c) {
        if (width[c] > narrowest[c] && (widest == ncols || width[c] > width[widest])) widest = c;
      }
      if (widest == ncols) break;
      --width[widest];
      --total;
    }
    while (shown > 1 && line() > width_) --shown;
    if (line() > width_) width[0] = std::max<size_t>(1, width_);
  }
  *shown_columns = shown;
  std::string out;
  auto pad = [&](const std::string& s, size_t w, bool right) {
    const std::string text = Cut(s, w);
    std::string fill(w - DisplayWidth(text), ' ');
    out += right ? fill + text : text + fill;
  };
  auto end_line = [&] { out += '\n'; };
  for (size_t c = 0; c < shown; ++c) {
    if (c) out += "  ";
    pad(schema_.field(c).name, width[c], false);
  }
  end_line();
  for (size_t c = 0; c < shown; ++c) {
    if (c) out += "  ";
    out += std::string(width[c], '-');
  }
  out += '\n';
  for (const auto& row : rows) {
    for (size_t c = 0; c < shown; ++c) {
      if (c) out += "  ";
      if (row.empty()) {  // DuckDB's row of dots for the rows left out
        const size_t left = (width[c] - 1) / 2;
        out += std::string(left, ' ') + "\xc2\xb7" + std::string(width[c] - 1 - left, ' ');
      } else {
        pad(row[c], width[c], IsNumeric(schema_.field(c).type));
      }
    }
    end_line();
  }
  return out;
}

std::string TablePrinter::Table() const {
  size_t shown = 0;
  return Render(&shown);
}

std::string TablePrinter::Finish() const {
  size_t shown_columns = 0;
  std::string out = Render(&shown_columns);
  const size_t shown_rows = std::min(total_, head_.num_rows() + std::min(tail_kept_, tail_rows_));
  const std::string rows = std::to_string(total_) + (total_ == 1 ? " row" : " rows");
  const bool cut_rows = shown_rows < total_, cut_columns = shown_columns < schema_.num_fields();
  if (!cut_rows && !cut_columns) return out + "(" + rows + ")\n";
  out += "(" + rows;
  if (cut_rows) out += ", " + std::to_string(shown_rows) + " shown";
  if (cut_columns) {
    out += "; " + std::to_string(schema_.num_fields()) + " columns, " + std::to_string(shown_columns) + " shown";
  }
  out += ": ";
  if (cut_rows) out += "--max-rows 0 shows every row";
  if (cut_rows && cut_columns) out += ", ";
  if (cut_columns) out += "--select picks the columns";
  return out + ")\n";
}

}  // namespace lakeindex::cli
