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
#include "lakeindex/column_stats.h"

namespace lakeindex::parquet {

// One finished column chunk: the bytes `dictionary_page` + `data_pages` (kept apart so that
// neither is copied to join them). Offsets in `meta` and `offset_index` are relative to the
// start of `dictionary_page`; the file writer adds the chunk's file position.
struct EncodedChunk {
  std::string dictionary_page;  // header + payload, or empty
  std::string data_pages;       // every data page, each with its header
  size_t size() const { return dictionary_page.size() + data_pages.size(); }
  ColumnMetaData meta;
  std::optional<OffsetIndex> offset_index;
  std::optional<ColumnIndex> column_index;
  // The chunk's values as ComputeColumnStats describes them (kept whatever
  // WriteOptions::statistics says).
  ColumnStats stats;
};

class ColumnChunkWriter {
 public:
  static std::unique_ptr<ColumnChunkWriter> Make(const Field& field, const WriteOptions& options);
  virtual ~ColumnChunkWriter() = default;

  // Appends rows [offset, offset + count) of `column`, whose type is the field's.
  // InvalidArgument if the field is NOT NULL and a value is NULL.
  virtual Status Append(const Column& column, size_t offset, size_t count) = 0;
  // Ends the current data page now (no-op when it holds no rows).
  virtual Status EndPage() = 0;
  // Ends the chunk into *out and resets the writer for the next row group.
  virtual Status Finish(EncodedChunk* out) = 0;
};

}  // namespace lakeindex::parquet
