// Reads CSV (RFC 4180, see csv_tokenizer.h for the accepted syntax) into typed Batches.
//
// The first line is the header (column names) unless Dialect::header says or sniffs otherwise. A leading UTF-8 byte order mark
// is skipped. Field values follow csv_value.h. NULLs:
//  * an empty unquoted field is NULL, and so is one equal to Dialect::null_string;
//  * "" (quoted, empty) is the empty value in a string or binary column and NULL in any other;
//  * a NULL in a NOT NULL field of the schema is an error.
// The delimiter is ',' unless ReadOptions says otherwise or the header line has no ',' and one of
// ';', TAB, '|' outside quotes (DetectDelimiter).
// Blank lines are skipped when there are two or more columns (they cannot be a record); with one
// column a blank line is a NULL row, which is what WriteCsv writes for one.
//
// Errors are InvalidArgument with the file name, the physical line (1-based; the header is
// line 1) and the column, e.g.
//   "data.csv: line 7, column 'qty': cannot parse 'x1' as int64".
// Once Next() has failed, every later call returns the same error.
// Thread safety: none; use one reader per thread.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "format/csv/csv_tokenizer.h"
#include "format/csv/csv_value.h"
#include "lakeindex/batch.h"
#include "lakeindex/object_store.h"
#include "lakeindex/status.h"
#include "lakeindex/types.h"

namespace lakeindex::csv {

// How a CSV file is written (the command line's --delimiter, --quote, --escape, --header /
// --no-header, --null).
struct Dialect {
  // Any byte but the quote, CR and LF; 0: from the header line — ',' when it has one, else the
  // one of ';', TAB and '|' it has (several: InvalidArgument naming them), else ',' (one column).
  char delimiter = 0;
  char quote = '"';
  // Inside quotes, this before the quote or itself stands for that character; 0: the quote
  // (RFC 4180: "" is one '"').
  char escape = 0;
  // The first line holds the column names (true) or is a record (false; the columns are then
  // named column0, column1, ... as DuckDB names them — zero-padded to the widest number, column00
  // with 10 to 100 columns — or by the schema). Unset: sniffed — a
  // record when every value on it fits the type its column has in the lines below and some column
  // is not a string (with a schema: when its values are not the schema's names but fit its
  // types), else the header.
  std::optional<bool> header;
  // An unquoted field equal to this is NULL too (an empty unquoted field always is).
  std::optional<std::string> null_string;
  // Dates and numbers written otherwise (csv_value.h ValueSyntax: DuckDB's `dateformat` and
  // `thousands`), in inference and in declared date and number columns alike.
  std::string date_format;
  char thousands = 0;
};

// What inference did that the user may not expect: `message` names the file and the column; the
// value syntax in `reads_them` would read its values (the front end names its option for it).
struct CsvNote {
  std::string message;
  ValueSyntax reads_them;
};

struct ReadOptions : Dialect {
  // When set, the header names must equal the schema's field names, in order, and values are
  // parsed as the schema's types. When unset, each column gets the narrowest of
  // bool < int64 < double < date < timestamp < string that holds its first `infer_rows` values
  // (an all-NULL column is a string column; an integer beyond int64 makes a double column).
  // A later row that does not fit the inferred type is an error naming its line.
  std::optional<Schema> schema;
  size_t infer_rows = 10000;
};

// The delimiter ReadOptions::delimiter = 0 picks for `text` (the header line's bytes outside
// double quotes decide; WriteCsv quotes a name holding any of them).
Result<char> DetectDelimiter(std::string_view text, const std::string& name);

class CsvReader {
 public:
  // Reads the whole object `path` from `store` (once) and parses its header.
  static Result<std::unique_ptr<CsvReader>> Open(ObjectStore* store, std::string path,
                                                 const ReadOptions& options);
  // Reads CSV from `text`, which must outlive the reader. `name` stands for the file in errors.
  static Result<std::unique_ptr<CsvReader>> OpenBuffer(std::string_view text, std::string name,
                                                       const ReadOptions& options);

  CsvReader(const CsvReader&) = delete;
  CsvReader& operator=(const CsvReader&) = delete;

  // The given schema, or the inferred one (all fields nullable). A header field with no name
  // (pandas' to_csv writes its index so) names its column as --no-header would (column0, ...;
  // with a suffix _1, _2, ... when that name is taken, as DuckDB's read_csv), or takes the
  // schema's name at its place.
  const Schema& schema() const { return schema_; }

  // What inference did that the user may not expect, one line each naming the file and column:
  // a column read as strings though its values look like dates in another order or numbers with
  // thousands separators (TypeInference::Lookalike). Front ends show them with their route
  // (Dialect::date_format / thousands, or declaring the column's type). Empty with a schema.
  const std::vector<CsvNote>& notes() const { return notes_; }

  // Replaces *out with the next 1..max_rows rows and returns true, or returns false (with *out
  // empty) when no rows are left. REQUIRES: max_rows > 0.
  Result<bool> Next(size_t max_rows, Batch* out);

 private:
  // Reads `owned` when it is non-empty (the bytes of a store object), else the caller's `text`.
  CsvReader(std::string owned, std::string_view text, std::string name, const Dialect& dialect);

  Status Init(const ReadOptions& options);
  // The types of the columns `names` from the records from the tokenizer's position on (which it
  // returns to).
  // `lookalikes`, when given, gets TypeInference::Lookalike (and the syntax that reads them) of
  // each column; `empties`, when given, how many of the records sampled had each column empty or
  // NULL.
  Result<std::vector<TypeId>> InferTypes(size_t columns, size_t infer_rows,
                                         std::vector<CsvNote>* lookalikes = nullptr,
                                         std::vector<size_t>* empties = nullptr);
  // Names the header's unnamed columns (see schema()).
  static void NameUnnamed(std::vector<std::string>* names);
  Status CheckNames(const std::vector<std::string>& names) const;
  // True when `record` (of the schema's width) holds a value of each column's type or NULL.
  bool FitsTypes(const CsvRecord& record, const std::vector<TypeId>& types) const;
  bool IsNull(const CsvField& f) const {
    return !f.quoted && (f.text.empty() || (null_string_ && f.text == *null_string_));
  }
  Status AppendRecord(Batch* out);
  Status FieldError(size_t column, const CsvField& field, std::string_view what) const;

  std::string owned_;  // the object's bytes when opened from a store
  std::string name_;
  std::string_view text_;  // the CSV after any byte order mark; views owned_ or the caller's text
  CsvTokenizer tokenizer_;
  Schema schema_;
  CsvRecord record_;
  Status error_;           // sticky
  std::vector<CsvNote> notes_;
  ValueSyntax syntax_;
  std::optional<std::string> null_string_;
  bool inferred_ = false;  // errors then explain where the type came from
  size_t infer_rows_ = 0;
};

// The name of column `i` (0-based) of `count` when the file does not name it: "column" and `i`
// zero-padded to the digits of count - 1, as DuckDB's read_csv (column0..column9, column00..column10).
std::string DefaultColumnName(size_t i, size_t count);

// Reads all of `text` into one Batch (tests and small inputs). Errors name the file "<input>".
Result<Batch> ReadCsv(std::string_view text, const ReadOptions& options);

}  // namespace lakeindex::csv
