#include "format/csv/csv_writer.h"

#include <string_view>

#include "format/csv/csv_value.h"

namespace lakeindex::csv {

namespace {

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

bool NeedsQuotes(std::string_view text, char delimiter) {
  for (char c : text) {
    if (c == delimiter || c == '"' || c == '\r' || c == '\n') return true;
  }
  // The reader would take a leading BOM of the first header field for a byte order mark.
  return text.substr(0, kUtf8Bom.size()) == kUtf8Bom;
}

// Appends `text` as one field; `force_quotes` is set for the empty string, which unquoted would
// read back as NULL.
void AppendField(std::string_view text, bool force_quotes, char delimiter, std::string* out) {
  if (!force_quotes && !NeedsQuotes(text, delimiter)) {
    out->append(text);
    return;
  }
  out->push_back('"');
  for (char c : text) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

}  // namespace

void WriteCsv(const Batch& batch, bool header, std::string* out, char delimiter) {
  const size_t n = batch.num_columns();
  if (n == 0) return;
  if (header) {
    for (size_t i = 0; i < n; ++i) {
      if (i > 0) out->push_back(delimiter);
      // A name holding a character the reader's delimiter sniffing looks for is quoted, so that
      // the header reads back with this delimiter.
      const std::string& name = batch.schema().field(i).name;
      AppendField(name, name.empty() || name.find_first_of(",;\t|") != std::string::npos, delimiter, out);
    }
    out->push_back('\n');
  }
  std::string value;
  for (size_t row = 0; row < batch.num_rows(); ++row) {
    for (size_t i = 0; i < n; ++i) {
      if (i > 0) out->push_back(delimiter);
      const Column& column = batch.column(i);
      if (column.IsNull(row)) continue;
      if (column.type() == TypeId::kString) {
        std::string_view s = column.GetString(row);
        AppendField(s, s.empty(), delimiter, out);
        continue;
      }
      value.clear();
      AppendFormatted(column, row, &value);
      // An empty binary is quoted, as an empty string is: a bare empty field reads as NULL.
      AppendField(value, value.empty() && column.type() == TypeId::kBinary, delimiter, out);
    }
    out->push_back('\n');
  }
}

}  // namespace lakeindex::csv
