#include "table/batch_source.h"

#include <algorithm>
#include <filesystem>
#include <future>

#include "format/arrow/arrow.h"
#include "format/csv/csv_reader.h"
#include "format/parquet/reader.h"

namespace lakeindex::table {

namespace {

class CsvSource : public BatchSource {
 public:
  explicit CsvSource(std::unique_ptr<csv::CsvReader> reader) : reader_(std::move(reader)) {}
  const Schema& schema() const override { return reader_->schema(); }
  Result<bool> Next(size_t max_rows, Batch* out) override { return reader_->Next(max_rows, out); }
  std::vector<csv::CsvNote> notes() const override { return reader_->notes(); }

 private:
  std::unique_ptr<csv::CsvReader> reader_;
};

// Reads one row group at a time and hands it out in slices of at most max_rows. The next row group
// is read and decoded on another thread while the caller works on this one: a load from Parquet
// (create, append) then decodes the source while it encodes the table's files, on two cores
// instead of one. One row group is read ahead at most, so memory stays two row groups.
class ParquetSource : public BatchSource {
 public:
  ParquetSource(std::unique_ptr<parquet::ParquetReader> reader, Schema schema)
      : reader_(std::move(reader)), schema_(std::move(schema)) {
    for (size_t c = 0; c < schema_.num_fields(); ++c) columns_.push_back(int(c));
  }
  // The read ahead uses reader_: it ends first.
  ~ParquetSource() override {
    if (ahead_.valid()) ahead_.wait();
  }
  const Schema& schema() const override { return schema_; }
  uint64_t total_rows() const override { return uint64_t(reader_->num_rows()); }
  size_t held_rows() const override {
    int64_t most = 0;
    for (const parquet::RowGroup& rg : reader_->metadata().row_groups) most = std::max(most, rg.num_rows);
    return size_t(most);
  }

  Result<bool> Next(size_t max_rows, Batch* out) override {
    while (offset_ >= current_.num_rows()) {
      if (next_group_ >= reader_->num_row_groups()) return false;
      Result<Batch> group = ahead_.valid() ? ahead_.get() : reader_->ReadRowGroup(next_group_, columns_);
      ++next_group_;
      if (!group.ok()) return group.status();
      current_ = std::move(*group);
      offset_ = 0;
      if (next_group_ < reader_->num_row_groups()) {
        ahead_ = std::async(std::launch::async, [this, g = next_group_] { return reader_->ReadRowGroup(g, columns_); });
      }
    }
    size_t take = std::min(max_rows, current_.num_rows() - offset_);
    // The whole row group moved out, else a slice copied. The file's own nullability may differ
    // from the requested schema; values are what count.
    Batch piece;
    if (offset_ == 0 && take == current_.num_rows()) {
      piece = std::move(current_);
      current_ = Batch();
    } else {
      piece = current_.Slice(offset_, take);
    }
    *out = Batch(schema_, std::move(piece.columns()), take);
    offset_ += take;
    return true;
  }

 private:
  std::unique_ptr<parquet::ParquetReader> reader_;
  Schema schema_;
  std::vector<int> columns_;
  Batch current_;
  size_t offset_ = 0;
  int next_group_ = 0;
  std::future<Result<Batch>> ahead_;  // row group next_group_, being read (if valid)
};

class VectorSource : public BatchSource {
 public:
  VectorSource(Schema schema, std::vector<Batch> batches) : schema_(std::move(schema)), batches_(std::move(batches)) {}
  const Schema& schema() const override { return schema_; }
  Result<bool> Next(size_t max_rows, Batch* out) override {
    while (index_ < batches_.size() && offset_ >= batches_[index_].num_rows()) {
      ++index_;
      offset_ = 0;
    }
    if (index_ >= batches_.size()) return false;
    size_t take = std::min(max_rows, batches_[index_].num_rows() - offset_);
    *out = batches_[index_].Slice(offset_, take);
    offset_ += take;
    return true;
  }

 private:
  Schema schema_;
  std::vector<Batch> batches_;
  size_t index_ = 0;
  size_t offset_ = 0;
};

// The batches of an Arrow reader, in pieces of at most the rows asked for.
class ArrowSource : public BatchSource {
 public:
  explicit ArrowSource(std::unique_ptr<arrow::BatchReader> reader) : reader_(std::move(reader)) {}
  const Schema& schema() const override { return reader_->schema(); }
  Result<bool> Next(size_t max_rows, Batch* out) override {
    while (offset_ >= pending_.num_rows()) {
      ASSIGN_OR_RETURN(bool more, reader_->Next(&pending_));
      if (!more) return false;
      offset_ = 0;
    }
    const size_t n = std::min(max_rows, pending_.num_rows() - offset_);
    if (offset_ == 0 && n == pending_.num_rows()) {
      *out = std::move(pending_);
      pending_ = Batch();
    } else {
      *out = pending_.Slice(offset_, n);
      offset_ += n;
    }
    return true;
  }

 private:
  std::unique_ptr<arrow::BatchReader> reader_;
  Batch pending_;
  size_t offset_ = 0;
};

// Whether `file` has the columns `want` names, in order and of its types.
Status CheckSchema(const Schema& file, const Schema& want, const std::string& display) {
  bool same = file.num_fields() == want.num_fields();
  for (size_t i = 0; same && i < file.num_fields(); ++i) {
    same = file.field(i).name == want.field(i).name && file.field(i).type == want.field(i).type;
  }
  if (!same) {
    return Status::InvalidArgument(display + ": schema mismatch: expected (" + want.ToString() + ") but the file has (" +
                                   file.ToString() + ")");
  }
  return Status::OK();
}

std::string Extension(const std::string& key) {
  size_t dot = key.rfind('.');
  if (dot == std::string::npos) return "";
  std::string ext = key.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return ext;
}

}  // namespace

Result<std::unique_ptr<BatchSource>> OpenFileSource(ObjectStore* store, const std::string& key,
                                                    const std::optional<Schema>& schema, const std::string& display,
                                                    const csv::Dialect& dialect) {
  std::string ext = Extension(key);
  const csv::Dialect plain;
  if (ext != "csv" && (dialect.delimiter != plain.delimiter || dialect.quote != plain.quote || dialect.escape != plain.escape ||
                       dialect.header.has_value() || dialect.null_string.has_value() ||
                       !dialect.date_format.empty() || dialect.thousands != 0)) {
    return Status::InvalidArgument(display + ": these options are for CSV files").About("csv");
  }
  if (ext == "csv") {
    csv::ReadOptions options;
    static_cast<csv::Dialect&>(options) = dialect;
    options.schema = schema;
    auto reader = csv::CsvReader::Open(store, key, options);
    if (!reader.ok()) return reader.status();
    return std::unique_ptr<BatchSource>(new CsvSource(std::move(*reader)));
  }
  if (ext == "parquet") {
    auto reader = parquet::ParquetReader::Open(store, key);
    if (!reader.ok()) return reader.status();
    Schema file_schema = (*reader)->schema();
    if (schema) {
      RETURN_IF_ERROR(CheckSchema(file_schema, *schema, display));
      file_schema = *schema;
    }
    return std::unique_ptr<BatchSource>(new ParquetSource(std::move(*reader), std::move(file_schema)));
  }
  if (ext == "arrow" || ext == "arrows" || ext == "feather" || ext == "ipc") {
    // A message at a time, as ranges of the object.
    ASSIGN_OR_RETURN(uint64_t size, store->Size(key));
    auto fetch = [store, key](uint64_t offset, uint64_t length) { return store->ReadRange(key, offset, length); };
    ASSIGN_OR_RETURN(std::unique_ptr<arrow::BatchReader> reader, arrow::OpenIpc(fetch, size, display));
    if (schema) RETURN_IF_ERROR(CheckSchema(reader->schema(), *schema, display));
    return ArrowBatchSource(std::move(reader));
  }
  return Status::InvalidArgument(display + ": expected a .csv, .parquet or Arrow IPC (.arrow, .arrows, .feather) file");
}

namespace {

// A damaged input file (truncated, not what its name says) is the caller's to mend: an
// InvalidArgument naming it, not the Corruption that means a table's damage.
Status InputFileError(const Status& status, const std::string& path) {
  if (!status.IsCorruption()) return status;
  const std::string& m = status.message();
  return Status::InvalidArgument(m.find(path) != std::string::npos ? m : "'" + path + "': " + m);
}

// A source that owns the store its file is read from.
class LocalFileSource : public BatchSource {
 public:
  LocalFileSource(std::unique_ptr<ObjectStore> store, std::unique_ptr<BatchSource> source, std::string path)
      : store_(std::move(store)), source_(std::move(source)), path_(std::move(path)) {}
  const Schema& schema() const override { return source_->schema(); }
  Result<bool> Next(size_t max_rows, Batch* out) override {
    Result<bool> more = source_->Next(max_rows, out);
    if (!more.ok()) return InputFileError(more.status(), path_);
    return more;
  }
  uint64_t total_rows() const override { return source_->total_rows(); }
  size_t held_rows() const override { return source_->held_rows(); }
  std::vector<csv::CsvNote> notes() const override { return source_->notes(); }

 private:
  std::unique_ptr<ObjectStore> store_;  // outlives source_ (declared first)
  std::unique_ptr<BatchSource> source_;
  std::string path_;  // as the caller named it
};

}  // namespace

Result<std::unique_ptr<BatchSource>> OpenLocalFileSource(const std::string& path, const std::optional<Schema>& schema,
                                                         const csv::Dialect& dialect) {
  if (path.empty()) return Status::InvalidArgument("empty file path");
  std::filesystem::path p = std::filesystem::absolute(path).lexically_normal();
  if (!p.has_filename()) return Status::InvalidArgument("'" + path + "' is a directory, not a file");
  ASSIGN_OR_RETURN(std::unique_ptr<ObjectStore> store, OpenLocalStore(p.parent_path().string()));
  Result<std::unique_ptr<BatchSource>> source = OpenFileSource(store.get(), p.filename().string(), schema, path, dialect);
  if (!source.ok()) return InputFileError(source.status(), path);
  return std::unique_ptr<BatchSource>(new LocalFileSource(std::move(store), std::move(*source), path));
}

std::unique_ptr<BatchSource> ArrowBatchSource(std::unique_ptr<arrow::BatchReader> reader) {
  return std::make_unique<ArrowSource>(std::move(reader));
}

std::unique_ptr<BatchSource> MemorySource(Schema schema, std::vector<Batch> batches) {
  return std::make_unique<VectorSource>(std::move(schema), std::move(batches));
}

}  // namespace lakeindex::table
