// ParquetWriter: writes Batches as a Parquet file (flat schema), either in memory (Finish returns
// the file) or streamed to an ObjectWriter sink (FinishToSink): each row group's bytes go to the
// sink when the row group is flushed, so memory is bounded by one row group plus the file's
// metadata. Both modes produce byte-identical files for the same input.
//
// File layout: "PAR1", row groups (per column: [dictionary page] data pages v1), then every
// ColumnIndex, then every OffsetIndex, then (WriteOptions::page_map) the page map, then the
// FileMetaData footer, its 4-byte LE length and "PAR1". Data pages carry RLE definition levels (OPTIONAL columns only), PLAIN or
// RLE_DICTIONARY values (or, by option, DELTA_BINARY_PACKED, BYTE_STREAM_SPLIT and
// DELTA_LENGTH_BYTE_ARRAY), page statistics and (by default) a CRC-32 of the page bytes.
// Statistics follow parquet-format: signed order for integers/dates/timestamps, unsigned
// bytewise for strings, false < true for booleans; for FLOAT/DOUBLE NaN is never a bound
// (nan_count is written; a page whose non-null values are all NaN has no min/max, and then the
// column chunk gets no ColumnIndex), a zero min is written as -0.0 and a zero max as +0.0.
// Strings in statistics are not truncated. column_orders is TYPE_ORDER for every column.
// created_by is "lakeindex version 0.1.0".
//
// Thread safety: none; one writer per thread.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "format/parquet/compression.h"
#include "format/parquet/metadata.h"
#include "lakeindex/batch.h"
#include "lakeindex/column_stats.h"
#include "lakeindex/object_store.h"
#include "lakeindex/status.h"
#include "lakeindex/types.h"

namespace lakeindex {
class ThreadPool;
}

namespace lakeindex::parquet {

inline constexpr char kCreatedBy[] = "lakeindex version 0.1.0";

struct WriteOptions {
  Codec codec = Codec::kZstd;
  int zstd_level = 1;
  // If set, the zstd level of columns of fixed-width values (all types but strings). Layout files
  // use -1: a negative level skips zstd's Huffman coding of literals, which on 64-row pages of
  // numbers costs half the compression time and gains under 1% (strings keep `zstd_level`:
  // there the Huffman stage is most of the gain).
  std::optional<int> fixed_width_zstd_level;
  // With kZstd: each string column chunk's first page is also compressed with kZstdFastHuffman
  // (near-fastest matching, Huffman-coded literals), and the chunk keeps that setting when it
  // comes out at most 1/16 larger than at `zstd_level`. Text with few repeats (names, ids,
  // hashes) gets there, and is compressed in half the time; repetitive text keeps the level.
  bool fast_string_zstd = true;
  // Rows per row group; Write() cuts a row group whenever this many rows are buffered.
  size_t row_group_rows = size_t(1) << 20;
  // Rows per data page (every column cuts pages at the same rows, so page boundaries line up
  // across columns, but for column_page_rows). A dictionary-encoded page may also end early when
  // the dictionary falls back to PLAIN.
  size_t page_rows = 8192;
  // Rows per data page of the named columns instead of page_rows (names not in the schema are
  // ignored). Layout files give the weight column a page per block: only samples read it, and
  // they read a block's weights whole.
  std::vector<std::pair<std::string, size_t>> column_page_rows;
  // Columns whose pages also end where Write's `pages` say (names not in the schema are
  // ignored). Layout files cut their layout columns' pages at the boundaries of the cells of
  // their space-filling curve, so that a page holds whole cells and its bounds stay tight.
  std::vector<std::string> cut_columns;
  // Columns whose pages also end where Write's `runs` say (names not in the schema are ignored).
  // Layout files by region cut their weights' pages at the end of each weight slice's run, so
  // that a page never mixes slices (its bounds let a sample skip the slices above it) and holds
  // the run whole (a page per run, not per cell: page headers, index entries and zstd frames of
  // small pages were a third of the weights' bytes).
  std::vector<std::string> run_cut_columns;
  // Dictionary-encode strings and integers (int32/int64/date/timestamp) when it pays: the
  // dictionary is dropped if the first page has more than half distinct values, and the chunk
  // falls back to PLAIN for later pages once the dictionary exceeds 1 MiB.
  bool dictionary = true;
  // Pages that are not dictionary-encoded store integers (int32, int64, date, timestamp) as
  // DELTA_BINARY_PACKED and floats and doubles as BYTE_STREAM_SPLIT instead of PLAIN. Both
  // shrink small pages of numbers without an entropy coder: deltas are bit-packed to the
  // page's range, and the split puts the bytes that neighbouring values share (sign, exponent,
  // leading mantissa) into runs the codec's matcher finds. Layout files use both.
  bool delta_integers = false;
  bool byte_stream_split_floats = false;
  // Pages of strings that are not dictionary-encoded as DELTA_LENGTH_BYTE_ARRAY instead of PLAIN:
  // the lengths bit-packed, the bytes back to back, so that the codec sees text only (on 64-row
  // pages of names, 14% fewer bytes after zstd than PLAIN's four length bytes a value). Layout
  // files use it.
  bool delta_length_strings = false;
  // Files every engine reads right with its default settings: only encodings every vectorized
  // Parquet reader takes (no BYTE_STREAM_SPLIT and no DELTA_LENGTH_BYTE_ARRAY, which Iceberg
  // 1.10's vectorized reader, Spark's default, and Spark's own Parquet reader refuse; the two
  // options above then stay off), and no min/max of uuid columns (Iceberg Java compares uuids as
  // signed longs, apache/iceberg#14216, and skipped row groups holding the value). Tables that
  // keep Iceberg metadata set it (table::ChooseEncodings).
  bool portable_encodings = false;
  bool statistics = true;   // page header + column chunk statistics
  bool page_index = true;   // ColumnIndex + OffsetIndex
  // With page_index: the columns whose pages' min/max go into a ColumnIndex (empty = all).
  // Every column keeps its OffsetIndex (where each page is). Layout files index only the layout
  // columns: the others are unordered there, their page bounds prune nothing and were half of
  // the page index that every cold open reads.
  std::vector<std::string> column_index_columns;
  // Statistics in every data page header too (needs `statistics`). Readers that use the page
  // index never read them; with many small pages they are a third of the page overhead.
  bool page_header_statistics = true;
  bool page_crc = true;     // PageHeader.crc
  // With page_index: a page map (page_map.h) after the OffsetIndexes, so that a lookup locates its
  // pages by reading a block of it instead of every OffsetIndex. Engines never see it. Table
  // files have one (table.h).
  bool page_map = false;
  // A column chunk whose first page does not shrink by at least 1/8 under `codec` is stored
  // UNCOMPRESSED (Parquet's codec is per column chunk): compressing random doubles or hashes
  // costs time, most of all in many small pages, and saves nothing.
  bool skip_incompressible = true;
  // With skip_incompressible: the largest ratio of the first page's compressed to uncompressed
  // size at which the chunk stays compressed.
  double incompressible_above = 7.0 / 8;
  std::vector<std::pair<std::string, std::string>> key_value_metadata;
  // Parquet field ids, one per column (empty: none). Iceberg readers resolve the columns of its
  // position delete files by them.
  std::vector<int32_t> field_ids;
  // If set, Write encodes the columns in parallel on this pool (the caller's thread takes part,
  // so a writer running on the pool itself is safe). Layout files, written several at a time,
  // use it so that the threads done with their files help with the last ones.
  ThreadPool* column_pool = nullptr;
};

class ColumnChunkWriter;

class ParquetWriter {
 public:
  // InvalidArgument for an empty schema, empty or duplicate column names, zero row/page sizes
  // or an unsupported codec.
  static Result<std::unique_ptr<ParquetWriter>> Make(Schema schema, WriteOptions options = {});
  // Streams the file to `sink` (the magic is appended at once; a sink error is returned).
  // REQUIRES: sink outlives the writer. The writer never closes the sink: after FinishToSink the
  // caller closes it to publish the object, or drops it to abandon the object.
  static Result<std::unique_ptr<ParquetWriter>> Make(Schema schema, WriteOptions options,
                                                     ObjectWriter* sink);
  ~ParquetWriter();

  // REQUIRES: batch.schema() == schema (InvalidArgument otherwise). Errors are sticky.
  Status Write(const Batch& batch) { return Write(batch, 0, batch.num_rows()); }
  // Rows [offset, offset + count) of `batch` (InvalidArgument when out of range). `pages`, if
  // not empty, are the row counts of consecutive pages of those rows (positive, summing to
  // count; InvalidArgument otherwise): the WriteOptions::cut_columns end a page after each, as
  // well as at their page rows and at the end of a row group. `runs`, likewise, for the
  // WriteOptions::run_cut_columns.
  Status Write(const Batch& batch, size_t offset, size_t count, std::span<const uint32_t> pages = {},
               std::span<const uint32_t> runs = {});
  // Ends the current row group now (no-op when it is empty).
  Status FlushRowGroup();
  // Flushes, writes page indexes and the footer and returns the whole file. The writer
  // cannot be used afterwards. InvalidArgument on a writer made with a sink.
  Result<std::string> Finish();
  // Sink mode: flushes, appends page indexes and the footer to the sink and returns the file's
  // size. The writer cannot be used afterwards. InvalidArgument on an in-memory writer.
  Result<uint64_t> FinishToSink();
  // Bytes of the file produced so far (row groups flushed; the whole file after finishing).
  uint64_t bytes_written() const;
  // Rows in the row groups flushed so far, and the statistics of each column over them (as
  // ComputeColumnStats gives them, whatever WriteOptions::statistics says): what a file's
  // description needs without a second pass over its rows.
  uint64_t rows_written() const;
  const std::vector<ColumnStats>& column_stats() const;
  // Sink mode, after FinishToSink: the file's tail (page indexes and footer, what a reader's
  // TailOffset finds), which starts at bytes_written() - tail().size(). Empty otherwise.
  const std::string& tail() const;
  // Sink mode, after FinishToSink: how tail() divides: its leading ColumnIndexes (page
  // statistics), then the OffsetIndexes, then the page map's blocks and header (page_map.h; both
  // 0 without WriteOptions::page_map), then the footer with its length and magic. A table records
  // the split so that an open reads only the page map's header and the footer
  // (reader.h, OpenOptions::offset_index_offset and page_map).
  struct TailParts {
    size_t column_indexes = 0, offset_indexes = 0, page_map_blocks = 0, page_map_header = 0;
  };
  const TailParts& tail_parts() const;
  // The file's metadata so far: every row group flushed (with its column chunks' offsets, sizes
  // and codecs), as the footer will hold it.
  const FileMetaData& metadata() const;

  const Schema& schema() const { return schema_; }

 private:
  ParquetWriter(Schema schema, WriteOptions options);
  // Appends page indexes and the footer; returns the file size.
  Result<uint64_t> WriteTail();

  struct Impl;
  Schema schema_;
  WriteOptions options_;
  std::unique_ptr<Impl> impl_;
  Status status_;  // sticky
};

// Writes `batch` as one Parquet file at `path`, streamed through store->OpenWriter.
Status WriteParquet(ObjectStore* store, std::string_view path, const Batch& batch,
                    const WriteOptions& options = {});

}  // namespace lakeindex::parquet
