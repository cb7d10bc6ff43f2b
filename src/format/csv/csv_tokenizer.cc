#include "format/csv/csv_tokenizer.h"

#include <algorithm>
#include <cstring>

namespace lakeindex::csv {

CsvTokenizer::CsvTokenizer(const uint8_t* data, size_t size, char delimiter, std::string_view name, char quote,
                           char escape)
    : data_(reinterpret_cast<const char*>(data)),
      size_(size),
      delimiter_(delimiter),
      quote_(quote),
      escape_(escape == 0 ? quote : escape),
      name_(name) {
  if (size > 0 && std::memchr(data, '\n', size) == nullptr && std::memchr(data, '\r', size) != nullptr) {
    line_end_ = '\r';
  }
}

Status CsvTokenizer::Error(size_t line, std::string_view what) const {
  return Status::InvalidArgument(std::string(name_) + ": line " + std::to_string(line) + ": " +
                                 std::string(what));
}

Result<bool> CsvTokenizer::Next(CsvRecord* record) {
  record->size_ = 0;
  if (pos_ >= size_) return false;
  record->line_ = line_;
  scratch_.clear();
  pending_.clear();

  const char* const end = data_ + size_;
  const char* p = data_ + pos_;
  const char delim = delimiter_;
  const char nl = line_end_;
  const char quote_char = quote_;
  const char esc = escape_;
  while (true) {
    const size_t field_line = line_;
    if (p < end && *p == quote_char) {
      // Quoted field: find the closing quote, skipping escaped quotes ("" pairs, or the escape
      // character before a quote or itself) and counting embedded newlines.
      const char* start = p + 1;
      const char* q = start;
      bool escaped = false;
      const char* close = nullptr;
      if (esc == quote_char) {
        while (true) {
          const void* hit = std::memchr(q, quote_char, size_t(end - q));
          if (hit == nullptr) break;
          const char* quote = static_cast<const char*>(hit);
          line_ += size_t(std::count(q, quote, nl));
          if (quote + 1 < end && quote[1] == quote_char) {
            escaped = true;
            q = quote + 2;
            continue;
          }
          close = quote;
          break;
        }
      } else {
        for (; q < end; ++q) {
          if (*q == nl) ++line_;
          if (*q == esc && q + 1 < end && (q[1] == quote_char || q[1] == esc)) {
            escaped = true;
            ++q;
          } else if (*q == quote_char) {
            close = q;
            break;
          }
        }
      }
      if (close == nullptr) {
        return Error(field_line, "unterminated quoted field (the quote opened here is never closed)");
      }
      if (escaped) {
        size_t at = scratch_.size();
        for (const char* c = start; c < close; ++c) {
          if (*c == esc && c + 1 < close && (c[1] == quote_char || c[1] == esc)) ++c;  // the escaped character
          scratch_.push_back(*c);
        }
        pending_.push_back({record->size_, at, scratch_.size() - at});
      }
      record->Add(std::string_view(start, size_t(close - start)), true, field_line);
      p = close + 1;
      if (p == end) break;
      if (*p == delim) {
        ++p;
        continue;
      }
      if (*p == nl) {
        ++p;
        ++line_;
        break;
      }
      if (*p == '\r' && p + 1 == end) {
        ++p;
        break;
      }
      if (*p == '\r' && p[1] == '\n') {
        p += 2;
        ++line_;
        break;
      }
      return Error(line_, "unexpected character after the closing quote of field " +
                              std::to_string(record->size_) +
                              (esc == quote_char ? std::string(" (a quote inside a quoted field must be doubled)")
                                                 : std::string(" (a quote inside a quoted field must follow the escape '") +
                                                       esc + "')"));
    }

    // Unquoted field: runs to the next delimiter or line end.
    const char* start = p;
    while (p < end && *p != delim && *p != nl) ++p;
    if (p < end && *p == delim) {
      record->Add(std::string_view(start, size_t(p - start)), false, field_line);
      ++p;
      continue;
    }
    const char* stop = p;
    if (nl == '\n' && stop > start && stop[-1] == '\r') --stop;  // CRLF, or a CR before the end of input
    record->Add(std::string_view(start, size_t(stop - start)), false, field_line);
    if (p < end) {  // at the line end
      ++p;
      ++line_;
    }
    break;
  }
  pos_ = size_t(p - data_);
  for (const PendingEscape& e : pending_) {
    record->fields_[e.field].text = std::string_view(scratch_.data() + e.offset, e.length);
  }
  return true;
}

}  // namespace lakeindex::csv
