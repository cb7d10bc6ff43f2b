#include "format/csv/csv_reader.h"

#include <algorithm>
#include <limits>
#include <unordered_set>
#include <utility>

#include "format/csv/csv_value.h"

namespace lakeindex::csv {

namespace {

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
// At most this many rows are reserved up front per batch; columns grow beyond it as needed.
constexpr size_t kReserveRows = 65536;
// Values quoted in error messages are cut to this many bytes.
constexpr size_t kMaxQuotedValue = 64;

std::string_view StripBom(std::string_view text) {
  if (text.substr(0, kUtf8Bom.size()) == kUtf8Bom) text.remove_prefix(kUtf8Bom.size());
  return text;
}

std::string Abbreviate(std::string_view value) {
  if (value.size() <= kMaxQuotedValue) return std::string(value);
  return std::string(value.substr(0, kMaxQuotedValue)) + "...";
}

}  // namespace

CsvReader::CsvReader(std::string owned, std::string_view text, std::string name, char delimiter)
    : owned_(std::move(owned)),
      name_(std::move(name)),
      text_(StripBom(owned_.empty() ? text : std::string_view(owned_))),
      tokenizer_(reinterpret_cast<const uint8_t*>(text_.data()), text_.size(), delimiter, name_) {}

Result<char> DetectDelimiter(std::string_view text, const std::string& name) {
  const std::string_view header = text.substr(0, text.find('\n'));
  if (header.find(',') != std::string_view::npos) return ',';
  std::string found;
  for (char c : {';', '\t', '|'}) {
    if (header.find(c) != std::string_view::npos) found.push_back(c);
  }
  if (found.empty()) return ',';  // one column
  if (found.size() == 1) return found[0];
  std::string names;
  for (char c : found) names += std::string(names.empty() ? "" : " and ") + (c == '\t' ? "TAB" : std::string("'") + c + "'");
  return Status::InvalidArgument(name + ": cannot tell the delimiter: the header line has " + names +
                                 " but no ','; name it with --delimiter");
}

Result<std::unique_ptr<CsvReader>> CsvReader::Open(ObjectStore* store, std::string path,
                                                   const ReadOptions& options) {
  ASSIGN_OR_RETURN(std::string bytes, store->Read(path));
  char delimiter = options.delimiter;
  if (delimiter == 0) {
    ASSIGN_OR_RETURN(delimiter, DetectDelimiter(bytes, path));
  }
  std::unique_ptr<CsvReader> reader(new CsvReader(std::move(bytes), std::string_view(), std::move(path), delimiter));
  RETURN_IF_ERROR(reader->Init(options));
  return reader;
}

Result<std::unique_ptr<CsvReader>> CsvReader::OpenBuffer(std::string_view text, std::string name,
                                                         const ReadOptions& options) {
  char delimiter = options.delimiter;
  if (delimiter == 0) {
    ASSIGN_OR_RETURN(delimiter, DetectDelimiter(text, name));
  }
  std::unique_ptr<CsvReader> reader(new CsvReader(std::string{}, text, std::move(name), delimiter));
  RETURN_IF_ERROR(reader->Init(options));
  return reader;
}

Status CsvReader::Init(const ReadOptions& options) {
  if (options.delimiter == '"' || options.delimiter == '\n' || options.delimiter == '\r') {
    return Status::InvalidArgument(name_ + ": the delimiter cannot be a quote, CR or LF");
  }
  ASSIGN_OR_RETURN(bool has_header, tokenizer_.Next(&record_));
  if (!has_header) {
    return Status::InvalidArgument(name_ +
                                   ": empty file (a header line with column names is required)");
  }
  std::vector<std::string> names;
  names.reserve(record_.size());
  for (size_t i = 0; i < record_.size(); ++i) names.emplace_back(record_[i].text);

  if (options.schema.has_value()) {
    const Schema& schema = *options.schema;
    if (schema.num_fields() == 0)
      return Status::InvalidArgument(name_ + ": the schema has no fields");
    if (names.size() != schema.num_fields()) {
      return Status::InvalidArgument(name_ + ": line 1: the header has " +
                                     std::to_string(names.size()) + " columns but the schema has " +
                                     std::to_string(schema.num_fields()));
    }
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] != schema.field(i).name) {
        return Status::InvalidArgument(name_ + ": line 1: header column " + std::to_string(i + 1) +
                                       " is '" + Abbreviate(names[i]) +
                                       "' but the schema expects '" + schema.field(i).name + "'");
      }
    }
    schema_ = schema;
    return Status::OK();
  }
  return InferSchema(names, options.infer_rows);
}

Status CsvReader::InferSchema(const std::vector<std::string>& names, size_t infer_rows) {
  std::unordered_set<std::string_view> seen;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i].empty()) {
      return Status::InvalidArgument(name_ + ": line 1: header column " + std::to_string(i + 1) +
                                     " has no name");
    }
    if (!seen.insert(names[i]).second) {
      return Status::InvalidArgument(name_ + ": line 1: duplicate column name '" +
                                     Abbreviate(names[i]) + "'");
    }
  }
  std::vector<TypeInference> inference(names.size());
  const CsvTokenizer::Position data_start = tokenizer_.Tell();
  size_t rows = 0;
  while (rows < infer_rows) {
    ASSIGN_OR_RETURN(bool more, tokenizer_.Next(&record_));
    if (!more) break;
    if (names.size() > 1 && record_.IsBlank()) continue;
    ++rows;
    // A record of the wrong width is reported, with its line, by Next().
    if (record_.size() != names.size()) continue;
    for (size_t i = 0; i < names.size(); ++i) {
      const CsvField& f = record_[i];
      if (!f.text.empty()) inference[i].Observe(f.text);
    }
  }
  tokenizer_.Seek(data_start);
  for (size_t i = 0; i < names.size(); ++i) {
    schema_.AddField(Field{names[i], inference[i].Type(), /*nullable=*/true});
  }
  inferred_ = true;
  infer_rows_ = infer_rows;
  return Status::OK();
}

Status CsvReader::FieldError(size_t column, const CsvField& field, std::string_view what) const {
  return Status::InvalidArgument(name_ + ": line " + std::to_string(field.line) + ", column '" +
                                 schema_.field(column).name + "': " + std::string(what));
}

Status CsvReader::AppendRecord(Batch* out) {
  const size_t n = schema_.num_fields();
  for (size_t i = 0; i < n; ++i) {
    const CsvField& f = record_[i];
    Column& column = out->mutable_column(i);
    const TypeId type = column.type();
    if (f.text.empty() && (!f.quoted || type != TypeId::kString)) {
      if (!schema_.field(i).nullable)
        return FieldError(i, f, "NULL (empty field) in a NOT NULL column");
      column.AppendNull();
      continue;
    }
    if (type == TypeId::kString) {
      Status st = column.AppendString(f.text);
      if (!st.ok()) return FieldError(i, f, st.message());
      continue;
    }
    if (!AppendParsed(f.text, &column)) {
      std::string what = "cannot parse '" + Abbreviate(f.text) + "' as " + TypeName(type);
      if (inferred_) {
        what += " (the type was inferred from the first " + std::to_string(infer_rows_) +
                " rows; pass a schema to choose another)";
      }
      return FieldError(i, f, what);
    }
  }
  return Status::OK();
}

Result<bool> CsvReader::Next(size_t max_rows, Batch* out) {
  if (!error_.ok()) return error_;
  if (max_rows == 0) return Status::InvalidArgument("CsvReader::Next: max_rows must be positive");
  *out = Batch(schema_);
  const size_t n = schema_.num_fields();
  // A record of n fields takes at least n bytes, which bounds the rows left.
  const size_t rows_left_bound = (text_.size() - tokenizer_.Tell().offset) / n + 1;
  const size_t reserve = std::min({max_rows, rows_left_bound, kReserveRows});
  for (size_t i = 0; i < n; ++i) out->mutable_column(i).Reserve(reserve);
  size_t rows = 0;
  while (rows < max_rows) {
    Result<bool> more = tokenizer_.Next(&record_);
    if (!more.ok()) {
      error_ = more.status();
      return error_;
    }
    if (!*more) break;
    if (n > 1 && record_.IsBlank()) continue;
    if (record_.size() != n) {
      error_ = Status::InvalidArgument(name_ + ": line " + std::to_string(record_.line()) +
                                       ": expected " + std::to_string(n) + " fields, found " +
                                       std::to_string(record_.size()));
      return error_;
    }
    error_ = AppendRecord(out);
    if (!error_.ok()) return error_;
    ++rows;
  }
  error_ = out->Seal();
  if (!error_.ok()) return error_;
  return rows > 0;
}

Result<Batch> ReadCsv(std::string_view text, const ReadOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<CsvReader> reader,
                   CsvReader::OpenBuffer(text, "<input>", options));
  Batch batch;
  ASSIGN_OR_RETURN(bool any, reader->Next(std::numeric_limits<size_t>::max(), &batch));
  (void)any;  // with no rows, `batch` is already the empty batch of the schema
  return batch;
}

}  // namespace lakeindex::csv
