// BatchSource: a stream of batches of one schema, read from a CSV, Parquet or Arrow IPC file (or
// an Arrow stream, or made in memory), consumed by create/append.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "format/arrow/arrow.h"
#include "format/csv/csv_reader.h"
#include "lakeindex/batch.h"
#include "lakeindex/object_store.h"

namespace lakeindex::table {

class BatchSource {
 public:
  virtual ~BatchSource() = default;
  virtual const Schema& schema() const = 0;
  // Fills *out with up to `max_rows` rows; false at the end.
  virtual Result<bool> Next(size_t max_rows, Batch* out) = 0;
  // Rows in the source if known up front (for progress), else 0.
  virtual uint64_t total_rows() const { return 0; }
  // Rows the source holds decoded at a time anyway (a Parquet file's largest row group), else 0:
  // asking Next for that many costs no more memory, and a whole held piece is handed over without
  // a copy.
  virtual size_t held_rows() const { return 0; }
  // What reading it inferred that the user may not expect (csv::CsvReader::notes), for the front
  // end to show with its route.
  virtual std::vector<csv::CsvNote> notes() const { return {}; }
};

// Opens `key` in `store` by its extension: ".csv" (with `schema` if given, else inferred; written
// in `dialect`, csv_reader.h), ".parquet", or Arrow IPC ".arrow" / ".feather" (the file format)
// or ".arrows" / ".ipc" (the stream format; either is told by its first bytes, and read a
// message at a time)
// — for those `schema`, if given, must match the file's, and a dialect other than the default is
// refused. `display` names the file in errors.
Result<std::unique_ptr<BatchSource>> OpenFileSource(ObjectStore* store, const std::string& key,
                                                    const std::optional<Schema>& schema,
                                                    const std::string& display, const csv::Dialect& dialect = {});

// A file on the local file system as a source (by extension, as OpenFileSource): its directory is
// opened as a local store that the source owns. InvalidArgument for an empty path or a directory,
// and for a damaged file (truncated, or not what its name says): the caller's input, not a table.
Result<std::unique_ptr<BatchSource>> OpenLocalFileSource(const std::string& path, const std::optional<Schema>& schema,
                                                         const csv::Dialect& dialect = {});

// The batches of an Arrow reader (an IPC file, a C stream from Python), in pieces of the rows
// asked for.
std::unique_ptr<BatchSource> ArrowBatchSource(std::unique_ptr<arrow::BatchReader> reader);

// Batches already in memory (tests, the demo).
std::unique_ptr<BatchSource> MemorySource(Schema schema, std::vector<Batch> batches);

}  // namespace lakeindex::table
