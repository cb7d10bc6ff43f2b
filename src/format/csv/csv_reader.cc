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

std::string DefaultColumnName(size_t i, size_t count) {
  const std::string number = std::to_string(i), widest = std::to_string(count == 0 ? 0 : count - 1);
  return "column" + std::string(widest.size() > number.size() ? widest.size() - number.size() : 0, '0') + number;
}

CsvReader::CsvReader(std::string owned, std::string_view text, std::string name, const Dialect& dialect)
    : owned_(std::move(owned)),
      name_(std::move(name)),
      text_(StripBom(owned_.empty() ? text : std::string_view(owned_))),
      tokenizer_(reinterpret_cast<const uint8_t*>(text_.data()), text_.size(), dialect.delimiter, name_, dialect.quote,
                 dialect.escape),
      null_string_(dialect.null_string) {
  syntax_.date_format = dialect.date_format;
  syntax_.thousands = dialect.thousands;
}

Result<char> DetectDelimiter(std::string_view text, const std::string& name) {
  // The header line's characters outside double quotes (a quoted name may hold any of them).
  std::string header;
  bool quoted = false;
  for (size_t i = 0; i < text.size() && (quoted || text[i] != '\n'); ++i) {
    if (text[i] == '"') {
      quoted = !quoted;
    } else if (!quoted) {
      header.push_back(text[i]);
    }
  }
  if (header.find(',') != std::string::npos) return ',';
  std::string found;
  for (char c : {';', '\t', '|'}) {
    if (header.find(c) != std::string::npos) found.push_back(c);
  }
  if (found.empty()) return ',';  // one column
  if (found.size() == 1) return found[0];
  std::string names;
  for (char c : found) names += std::string(names.empty() ? "" : " and ") + (c == '\t' ? "TAB" : std::string("'") + c + "'");
  return Status::InvalidArgument(name + ": cannot tell the delimiter: the header line has " + names +
                                 " but no ','; name it").About("delimiter");
}

namespace {

// The dialect once its delimiter is known: usable characters, the delimiter unlike the others.
Status CheckDialect(const Dialect& d, const std::string& name) {
  auto special = [](char c) { return c == '\n' || c == '\r' || c == 0; };
  const char escape = d.escape == 0 ? d.quote : d.escape;
  if (special(d.delimiter) || special(d.quote) || special(escape) || d.delimiter == d.quote || d.delimiter == escape) {
    return Status::InvalidArgument(name + ": the delimiter, quote and escape must be different characters, none a CR or LF");
  }
  if (d.thousands != 0 && (std::string_view("0123456789.+-eE").find(d.thousands) != std::string_view::npos ||
                           special(d.thousands) || d.thousands == d.quote)) {
    return Status::InvalidArgument(std::string("the thousands separator cannot be '") + d.thousands +
                                   "' (a digit, sign, point, exponent or the quote)").About("thousands");
  }
  return Status::OK();
}

}  // namespace

Result<std::unique_ptr<CsvReader>> CsvReader::Open(ObjectStore* store, std::string path,
                                                   const ReadOptions& options) {
  ASSIGN_OR_RETURN(std::string bytes, store->Read(path));
  Dialect dialect = options;
  if (dialect.delimiter == 0) {
    ASSIGN_OR_RETURN(dialect.delimiter, DetectDelimiter(bytes, path));
  }
  RETURN_IF_ERROR(CheckDialect(dialect, path));
  std::unique_ptr<CsvReader> reader(new CsvReader(std::move(bytes), std::string_view(), std::move(path), dialect));
  RETURN_IF_ERROR(reader->Init(options));
  return reader;
}

Result<std::unique_ptr<CsvReader>> CsvReader::OpenBuffer(std::string_view text, std::string name,
                                                         const ReadOptions& options) {
  Dialect dialect = options;
  if (dialect.delimiter == 0) {
    ASSIGN_OR_RETURN(dialect.delimiter, DetectDelimiter(text, name));
  }
  RETURN_IF_ERROR(CheckDialect(dialect, name));
  std::unique_ptr<CsvReader> reader(new CsvReader(std::string{}, text, std::move(name), dialect));
  RETURN_IF_ERROR(reader->Init(options));
  return reader;
}

Status CsvReader::Init(const ReadOptions& options) {
  const CsvTokenizer::Position start = tokenizer_.Tell();
  ASSIGN_OR_RETURN(bool any, tokenizer_.Next(&record_));
  if (!any) {
    if (options.header.value_or(true) || !options.schema) {
      if (!options.header.value_or(true)) {
        return Status::InvalidArgument(name_ + ": empty file (without a header line the columns come from the first "
                                       "record)").About("header");
      }
      return Status::InvalidArgument(name_ + ": empty file (a header line with column names is required)");
    }
  }
  std::vector<std::string> first;
  first.reserve(record_.size());
  for (size_t i = 0; i < record_.size(); ++i) first.emplace_back(record_[i].text);

  if (options.schema.has_value()) {
    const Schema& schema = *options.schema;
    if (schema.num_fields() == 0) return Status::InvalidArgument(name_ + ": the schema has no fields");
    std::vector<TypeId> types;
    std::vector<std::string> names;
    for (const Field& f : schema.fields()) {
      types.push_back(f.type);
      names.push_back(f.name);
    }
    bool header = options.header.value_or(true);
    auto same_names = [&] {
      for (size_t i = 0; i < first.size(); ++i) {
        if (!first[i].empty() && first[i] != names[i]) return false;
      }
      return first.size() == names.size();
    };
    if (!options.header.has_value() && any && !same_names() && record_.size() == names.size() &&
        FitsTypes(record_, types)) {
      header = false;  // sniffed: the first line is a record of the schema's types
    }
    schema_ = schema;
    if (!header) {
      tokenizer_.Seek(start);
      return Status::OK();
    }
    if (first.size() != schema.num_fields()) {
      return Status::InvalidArgument(name_ + ": line 1: the header has " + std::to_string(first.size()) +
                                     " columns but the schema has " + std::to_string(schema.num_fields()));
    }
    for (size_t i = 0; i < first.size(); ++i) {
      if (first[i] != schema.field(i).name && !first[i].empty()) {
        return Status::InvalidArgument(name_ + ": line 1: header column " + std::to_string(i + 1) + " is '" +
                                       Abbreviate(first[i]) + "' but the schema expects '" + schema.field(i).name +
                                       "'" + (options.header.has_value() ? "" : " (and its values are not a record of the schema's types)"));
      }
    }
    return Status::OK();
  }

  // Without a schema: the types from the lines after the first, then the first line's part.
  const CsvTokenizer::Position after_first = tokenizer_.Tell();
  std::vector<CsvNote> lookalikes;
  std::vector<size_t> empties;
  ASSIGN_OR_RETURN(std::vector<TypeId> types, InferTypes(first.size(), options.infer_rows, &lookalikes, &empties));
  bool header = options.header.value_or(true);
  if (!options.header.has_value()) {
    const bool typed = std::any_of(types.begin(), types.end(), [](TypeId t) { return t != TypeId::kString; });
    tokenizer_.Seek(start);
    ASSIGN_OR_RETURN(bool again, tokenizer_.Next(&record_));
    (void)again;
    header = !(typed && FitsTypes(record_, types));
    // pandas' to_csv: an unnamed index column, integers never empty below a header whose only empty
    // field is its own. When every other column is text, the header fits the types as a record (the
    // empty field a NULL), as DuckDB reads it; pandas reads it as the header, and so do we.
    const bool pandas_index = types[0] == TypeId::kInt64 && empties[0] == 0 && first.size() > 1 &&
                              first[0].empty() &&
                              std::none_of(first.begin() + 1, first.end(), [](const std::string& s) { return s.empty(); });
    if (pandas_index) header = true;
  }
  std::vector<std::string> names = first;
  if (!header) {
    // The first line is data: name the columns, and let it count in the types.
    for (size_t i = 0; i < names.size(); ++i) names[i] = DefaultColumnName(i, names.size());
    tokenizer_.Seek(start);
    ASSIGN_OR_RETURN(types, InferTypes(first.size(), options.infer_rows, &lookalikes));
  } else {
    NameUnnamed(&names);
    RETURN_IF_ERROR(CheckNames(names));
    tokenizer_.Seek(after_first);
  }
  for (size_t i = 0; i < names.size(); ++i) {
    schema_.AddField(Field{names[i], types[i], /*nullable=*/true});
    if (!lookalikes[i].message.empty()) {
      notes_.push_back(CsvNote{name_ + ": column '" + names[i] + "' is read as string: its values look like " +
                                   lookalikes[i].message,
                               lookalikes[i].reads_them});
    }
  }
  inferred_ = true;
  infer_rows_ = options.infer_rows;
  return Status::OK();
}

void CsvReader::NameUnnamed(std::vector<std::string>* names) {
  std::unordered_set<std::string> taken(names->begin(), names->end());
  for (size_t i = 0; i < names->size(); ++i) {
    if (!(*names)[i].empty()) continue;
    const std::string base = DefaultColumnName(i, names->size());
    std::string name = base;
    for (size_t k = 1; taken.count(name) > 0; ++k) name = base + "_" + std::to_string(k);
    taken.insert(name);
    (*names)[i] = name;
  }
}

Status CsvReader::CheckNames(const std::vector<std::string>& names) const {
  std::unordered_set<std::string_view> seen;
  for (size_t i = 0; i < names.size(); ++i) {
    if (!seen.insert(names[i]).second) {
      return Status::InvalidArgument(name_ + ": line 1: duplicate column name '" + Abbreviate(names[i]) + "'");
    }
  }
  return Status::OK();
}

Result<std::vector<TypeId>> CsvReader::InferTypes(size_t columns, size_t infer_rows,
                                                  std::vector<CsvNote>* lookalikes, std::vector<size_t>* empties) {
  if (empties != nullptr) empties->assign(columns, 0);
  std::vector<TypeInference> inference(columns, TypeInference(&syntax_));
  const CsvTokenizer::Position data_start = tokenizer_.Tell();
  size_t rows = 0;
  while (rows < infer_rows) {
    ASSIGN_OR_RETURN(bool more, tokenizer_.Next(&record_));
    if (!more) break;
    if (columns > 1 && record_.IsBlank()) continue;
    ++rows;
    // A record of the wrong width is reported, with its line, by Next().
    if (record_.size() != columns) continue;
    for (size_t i = 0; i < columns; ++i) {
      const CsvField& f = record_[i];
      if (!f.text.empty() && !IsNull(f)) {
        inference[i].Observe(f.text);
      } else if (empties != nullptr) {
        ++(*empties)[i];
      }
    }
  }
  tokenizer_.Seek(data_start);
  std::vector<TypeId> types;
  for (const TypeInference& t : inference) types.push_back(t.Type());
  if (lookalikes != nullptr) {
    lookalikes->clear();
    for (const TypeInference& t : inference) lookalikes->push_back(CsvNote{t.Lookalike(), t.LookalikeSyntax()});
  }
  return types;
}

bool CsvReader::FitsTypes(const CsvRecord& record, const std::vector<TypeId>& types) const {
  if (record.size() != types.size()) return false;
  for (size_t i = 0; i < types.size(); ++i) {
    const CsvField& f = record[i];
    if (IsNull(f) || types[i] == TypeId::kString) continue;
    if (f.text.empty()) continue;  // "" is NULL outside strings, empty in binaries
    Column probe(types[i]);
    if (!AppendParsed(f.text, &probe, syntax_)) return false;
  }
  return true;
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
    // "" is the empty value of a string or binary column, NULL in others.
    const bool text_like = type == TypeId::kString || type == TypeId::kBinary;
    if (IsNull(f) || (f.text.empty() && !text_like)) {
      if (!schema_.field(i).nullable)
        return FieldError(i, f, f.text.empty() ? "NULL (empty field) in a NOT NULL column" : "NULL in a NOT NULL column");
      column.AppendNull();
      continue;
    }
    if (type == TypeId::kString) {
      Status st = column.AppendString(f.text);
      if (!st.ok()) return FieldError(i, f, st.message());
      continue;
    }
    if (!AppendParsed(f.text, &column, syntax_)) {
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
