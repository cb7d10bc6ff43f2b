// RFC 4180 record splitting: bytes -> records of fields, with no knowledge of types.
//
// Accepted syntax (a superset of RFC 4180, chosen to read what spreadsheets and DuckDB write):
//  * fields are separated by `delimiter`; records end in LF or CRLF; the final record may lack
//    its line end;
//  * a field that starts with '"' (or the quote character given) is quoted: it ends at the next
//    lone quote, "" stands for one '"' (or, with an escape character given, the escape before a
//    quote or itself stands for that character), and delimiters, CR and LF inside it are data. After the closing quote only a delimiter, a
//    line end or the end of input may follow;
//  * a '"' inside an unquoted field is an ordinary character (lenient, like Python's csv);
//  * a CR is stripped only when it directly precedes the LF (or the end of input) that ends an
//    unquoted last field; anywhere else it is data;
//  * input with no LF at all but some CR has CR line ends (classic Mac files; DuckDB reads them
//    too): every CR outside quotes ends a record.
// Line numbers count physical lines (line ends), 1-based, so quoted newlines advance them.
// Thread safety: none; one tokenizer per thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lakeindex/status.h"

namespace lakeindex::csv {

struct CsvField {
  // Field contents with quotes removed and "" unescaped. Empty for an empty field.
  std::string_view text;
  // True when the field was written in quotes; tells "" (empty string) from an empty field (NULL).
  bool quoted = false;
  // Physical line (1-based) on which the field starts.
  size_t line = 0;
};

// The fields of one record. Storage is kept between records so that splitting a record does not
// allocate once the widest record has been seen.
class CsvRecord {
 public:
  size_t size() const { return size_; }
  const CsvField& operator[](size_t i) const { return fields_[i]; }
  size_t line() const { return line_; }  // physical line (1-based) on which the record starts

  // A line with nothing on it: one empty unquoted field.
  bool IsBlank() const { return size_ == 1 && fields_[0].text.empty() && !fields_[0].quoted; }

 private:
  friend class CsvTokenizer;
  void Add(std::string_view text, bool quoted, size_t line) {
    if (size_ == fields_.size()) fields_.resize(fields_.size() * 2 + 8);
    fields_[size_++] = CsvField{text, quoted, line};
  }

  std::vector<CsvField> fields_;
  size_t size_ = 0;
  size_t line_ = 0;
};

class CsvTokenizer {
 public:
  // Where the tokenizer stands; lets a caller rewind (e.g. after sampling rows for inference).
  struct Position {
    size_t offset = 0;
    size_t line = 1;
  };

  // `data` and `name` must outlive the tokenizer. `name` prefixes error messages. `quote` opens
  // and closes a quoted field; inside one, `escape` before the quote or itself stands for that
  // character (0: the quote itself, so "" is one '"', RFC 4180's way).
  CsvTokenizer(const uint8_t* data, size_t size, char delimiter, std::string_view name, char quote = '"',
               char escape = 0);

  // Splits the next record into `*record`. Returns false (and leaves *record empty) at the end of
  // input. Views in *record stay valid until the next call. Errors (InvalidArgument): an
  // unterminated quoted field, a character after a closing quote.
  Result<bool> Next(CsvRecord* record);

  Position Tell() const { return {pos_, line_}; }
  // REQUIRES: `p` came from Tell() of this tokenizer.
  void Seek(Position p) {
    pos_ = p.offset;
    line_ = p.line;
  }
  bool AtEnd() const { return pos_ >= size_; }

 private:
  // Escaped fields are unescaped into scratch_; their views are fixed up once the record is
  // complete because scratch_ may reallocate while it grows.
  struct PendingEscape {
    size_t field;
    size_t offset;
    size_t length;
  };

  Status Error(size_t line, std::string_view what) const;

  const char* data_;
  size_t size_;
  char delimiter_;
  char quote_;
  char escape_;  // == quote_ for RFC 4180's doubled quotes
  char line_end_ = '\n';  // '\r' for input with CR line ends only
  std::string_view name_;
  size_t pos_ = 0;
  size_t line_ = 1;
  std::string scratch_;
  std::vector<PendingEscape> pending_;
};

}  // namespace lakeindex::csv
