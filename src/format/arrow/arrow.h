// Results as Apache Arrow, the columnar format other engines take without copies:
//  * the C data interface and C stream interface (ArrowSchema, ArrowArray, ArrowArrayStream,
//    from https://arrow.apache.org/docs/format/CDataInterface.html and CStreamInterface.html),
//    which Python's `__arrow_c_stream__` hands to pyarrow, Polars or DuckDB;
//  * the IPC streaming format (`query --format arrow`): a Schema message, a RecordBatch message
//    per batch, and the end-of-stream marker (https://arrow.apache.org/docs/format/Columnar.html);
//    and, read back (ipc_reader.cc), the IPC stream and file formats.
//
// Types map one to one: bool -> boolean ("b"), int32 -> int32 ("i"), int64 -> int64 ("l"),
// float -> float32 ("f"), double -> float64 ("g"), string -> utf8 ("u"), binary -> binary ("z"),
// uuid -> fixed_size_binary(16) ("w:16") with the `arrow.uuid` extension metadata, date -> date32
// in days ("tdD"), timestamp -> timestamp in microseconds without a time zone ("tsu:"),
// timestamptz -> "tsu:UTC", timestamp_ns -> "tsn:". Fields are nullable unless the schema says
// NOT NULL. Exported arrays share the Batch's values and string offsets and characters (already
// Arrow's layout); validity, booleans and uuids (16 bytes a row) are written as new buffers.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lakeindex/batch.h"
#include "lakeindex/status.h"
#include "lakeindex/types.h"

extern "C" {
// The C data interface's structs, exactly as the specification declares them (ABI-stable).
#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
  const char* format;
  const char* name;
  const char* metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary;
  void (*release)(struct ArrowSchema*);
  void* private_data;
};

struct ArrowArray {
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary;
  void (*release)(struct ArrowArray*);
  void* private_data;
};

#endif  // ARROW_C_DATA_INTERFACE

#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE

struct ArrowArrayStream {
  int (*get_schema)(struct ArrowArrayStream*, struct ArrowSchema* out);
  int (*get_next)(struct ArrowArrayStream*, struct ArrowArray* out);
  const char* (*get_last_error)(struct ArrowArrayStream*);
  void (*release)(struct ArrowArrayStream*);
  void* private_data;
};

#endif  // ARROW_C_STREAM_INTERFACE
}

namespace lakeindex::arrow {

// The Arrow format string of a column type ("l", "u", "tsu:", "d:10,2" (128-bit), ...).
std::string FormatOf(TypeId type);

// `schema` as a struct ("+s") ArrowSchema with one child per field. `out` is owned by the caller
// until it calls out->release.
void ExportSchema(const Schema& schema, ArrowSchema* out);
// `batch` as a struct array (one child per column, no validity of its own). The array holds the
// batch (moved in) until released. InvalidArgument when a string column holds more than 2 GiB of
// characters (utf8's 32-bit offsets).
Status ExportBatch(Batch batch, ArrowArray* out);

// A producer of a stream's batches: false at the end.
using NextBatch = std::function<Result<bool>(Batch*)>;
// A C stream over `next`'s batches with `schema`; get_next calls `next` (in the consumer's
// thread), an error's message is kept for get_last_error and its code mapped to errno values
// (EINVAL, ENOENT, EIO, ENOSYS, ...). `next` lives until the stream is released.
void ExportStream(Schema schema, NextBatch next, ArrowArrayStream* out);

// Record batches read one at a time, as Batches (an Arrow C stream, an IPC stream or file).
class BatchReader {
 public:
  virtual ~BatchReader() = default;
  virtual const Schema& schema() const = 0;
  // The next record batch; false at the end.
  virtual Result<bool> Next(Batch* out) = 0;
};

// Batches from another producer's C stream (pyarrow, Polars, DuckDB, lakeindex itself), copied
// into Columns. Types: boolean; int8, int16, int32, uint8, uint16 -> int32; int64, uint32 ->
// int64; float32, float64; utf8, large_utf8 -> string; binary, large_binary, fixed_size_binary ->
// binary (`arrow.uuid` -> uuid); date32, date64 (whole days) -> date; timestamps in s, ms or µs
// -> timestamp, in ns -> timestamp_ns, and with a time zone (any: their UTC instants; ns then only
// whole microseconds) -> timestamptz. Other types (uint64, float16, decimals, dictionaries,
// nested) are NotSupported naming the column; a field without the nullable flag is NOT NULL
// (InvalidArgument if it holds NULLs). Takes the stream over (moves it out
// of *stream, which is left released) and releases it when destroyed.
class StreamImporter : public BatchReader {
 public:
  static Result<std::unique_ptr<StreamImporter>> Make(ArrowArrayStream* stream);
  ~StreamImporter() override;
  StreamImporter(const StreamImporter&) = delete;
  StreamImporter& operator=(const StreamImporter&) = delete;

  const Schema& schema() const override { return schema_; }
  // The next record batch as a Batch; false at the end. An error of the producer is IOError with
  // its get_last_error message.
  Result<bool> Next(Batch* out) override;

 private:
  StreamImporter() = default;
  ArrowArrayStream stream_{};
  Schema schema_;
  std::vector<std::string> formats_;
};

// The IPC streaming format, written a message at a time into a string the caller drains
// (CLI: to stdout or an output file). Buffers are 8-byte aligned, uncompressed, little-endian.
class IpcStreamWriter {
 public:
  explicit IpcStreamWriter(Schema schema);
  // Appends the Schema message (first call only) and `batch` as a RecordBatch message to *out.
  Status Write(const Batch& batch, std::string* out);
  // Appends the Schema message if no batch was written, then the end-of-stream marker.
  void Finish(std::string* out);

 private:
  void WriteSchema(std::string* out);
  Schema schema_;
  bool schema_written_ = false;
};

// Reads Arrow's IPC formats: the stream (`query --format arrow`, pyarrow's `new_stream`,
// apache-arrow's `tableToIPC(t, "stream")`) and the file (`ARROW1` magic; Feather v2; its
// record batches found through its footer), with the column types StreamImporter takes. One
// message is held at a time, fetched as ranges of the `size` bytes (`fetch(offset, length)`).
// Uncompressed bodies only (LZ4/ZSTD buffer compression and dictionary batches are
// NotSupported); every message, buffer and offset is checked against the bytes, so a malformed
// or truncated file is Corruption naming `name` and the byte where it breaks, never a read past
// its end.
using Fetch = std::function<Result<std::string>(uint64_t offset, uint64_t length)>;
Result<std::unique_ptr<BatchReader>> OpenIpc(Fetch fetch, uint64_t size, std::string name);
// The same over bytes in memory.
Result<std::unique_ptr<BatchReader>> OpenIpc(std::string bytes, std::string name);

namespace internal {
// Shared by the C stream importer and the IPC reader (arrow.cc).
// The column type a C data interface format (and extension metadata) maps to, or NotSupported.
Result<TypeId> ImportedType(const std::string& format, const char* metadata, const std::string& name);
// Bytes per value of a decimal format: "d:p,s" is 128-bit, "d:p,s,bits" says.
int64_t DecimalWidth(const std::string& format);
// Column `name` of `type` from the array `a` of format `format` (its buffers trusted to be as
// long as the format says: the IPC reader checks them first).
Result<Column> ImportColumn(const ArrowArray& a, const std::string& format, TypeId type, const std::string& name);
// The C data interface's metadata encoding of key/value pairs.
std::string EncodeMetadata(const std::vector<std::pair<std::string, std::string>>& pairs);
}  // namespace internal

}  // namespace lakeindex::arrow
