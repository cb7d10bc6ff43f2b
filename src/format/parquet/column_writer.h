// ColumnChunkWriter: encodes the values of one column of one row group into Parquet pages
// (internal to the Parquet writer). See writer.h for the page layout and statistics rules.
// Thread safety: none.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "format/parquet/metadata.h"
#include "format/parquet/writer.h"
#include "lakeindex/batch.h"

namespace lakeindex::parquet {

// One finished column chunk. Offsets in `meta` and `offset_index` are relative to the start
// of `bytes`; the file writer adds the chunk's file position.
struct EncodedChunk {
  std::string bytes;  // [dictionary page] data pages, each with its header
  ColumnMetaData meta;
  std::optional<OffsetIndex> offset_index;
  std::optional<ColumnIndex> column_index;
};

class ColumnChunkWriter {
 public:
  static std::unique_ptr<ColumnChunkWriter> Make(const Field& field, const WriteOptions& options);
  virtual ~ColumnChunkWriter() = default;

  // Appends rows [offset, offset + count) of `column`, whose type is the field's.
  // InvalidArgument if the field is NOT NULL and a value is NULL.
  virtual Status Append(const Column& column, size_t offset, size_t count) = 0;
  // Ends the chunk into *out and resets the writer for the next row group.
  virtual Status Finish(EncodedChunk* out) = 0;
};

}  // namespace lakeindex::parquet
