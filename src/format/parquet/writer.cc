#include "format/parquet/writer.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <set>

#include "common/thread_pool.h"
#include "format/parquet/column_writer.h"
#include "format/parquet/metadata.h"
#include "format/parquet/page_map.h"
#include "format/parquet/schema_mapping.h"

namespace lakeindex::parquet {

struct ParquetWriter::Impl {
  std::vector<std::unique_ptr<ColumnChunkWriter>> columns;
  std::vector<bool> cut;      // per column: one of WriteOptions::cut_columns
  std::vector<bool> run_cut;  // per column: one of WriteOptions::run_cut_columns
  size_t rows_in_group = 0;
  // Sink mode: every part goes to the sink as soon as it is complete.
  ObjectWriter* sink = nullptr;
  // In-memory mode: the file so far as a list of parts (the magic, then column chunks), joined
  // once by Finish: appending every chunk to one growing string copied the file again at each
  // regrowth.
  std::vector<std::string> parts;
  std::string tail;   // sink mode: a copy of the tail, once written
  TailParts tail_parts;  // sink mode: how the tail divides
  uint64_t size = 0;  // bytes of the file produced so far
  Status Append(std::string part) {
    size += part.size();
    if (part.empty()) return Status::OK();
    if (sink != nullptr) return sink->Append(part);
    parts.push_back(std::move(part));
    return Status::OK();
  }
  FileMetaData meta;
  // Page indexes of every chunk, written after the last row group: [row group][column]. Only
  // the indexes are kept (not whole EncodedChunks), and nothing when page_index is off: with
  // one row group per BTree leaf page this is per-page memory held to the end of the file.
  struct ChunkIndexes {
    std::optional<OffsetIndex> offset_index;
    std::optional<ColumnIndex> column_index;
  };
  std::vector<std::vector<ChunkIndexes>> indexes;
  std::vector<ColumnStats> stats;  // per column, over the flushed row groups
  bool finished = false;
};

ParquetWriter::ParquetWriter(Schema schema, WriteOptions options)
    : schema_(std::move(schema)), options_(std::move(options)), impl_(std::make_unique<Impl>()) {
  if (options_.portable_encodings) {  // encodings every engine's reader takes (WriteOptions)
    options_.byte_stream_split_floats = false;
    options_.delta_length_strings = false;
  }
}

ParquetWriter::~ParquetWriter() = default;

Result<std::unique_ptr<ParquetWriter>> ParquetWriter::Make(Schema schema, WriteOptions options) {
  return Make(std::move(schema), std::move(options), nullptr);
}

Result<std::unique_ptr<ParquetWriter>> ParquetWriter::Make(Schema schema, WriteOptions options,
                                                           ObjectWriter* sink) {
  if (schema.num_fields() == 0) return Status::InvalidArgument("parquet writer: empty schema");
  std::set<std::string> names;
  for (const Field& f : schema.fields()) {
    if (f.name.empty()) return Status::InvalidArgument("parquet writer: empty column name");
    if (!names.insert(f.name).second) {
      return Status::InvalidArgument("parquet writer: duplicate column name '" + f.name + "'");
    }
  }
  if (options.row_group_rows == 0 || options.page_rows == 0 ||
      options.page_rows > size_t(std::numeric_limits<int32_t>::max())) {
    return Status::InvalidArgument("parquet writer: row_group_rows and page_rows must be > 0");
  }
  for (const auto& [name, rows] : options.column_page_rows) {
    if (rows == 0 || rows > size_t(std::numeric_limits<int32_t>::max())) {
      return Status::InvalidArgument("parquet writer: page rows of column '" + name + "' must be > 0");
    }
  }
  if (!options.field_ids.empty() && options.field_ids.size() != schema.num_fields()) {
    return Status::InvalidArgument("parquet writer: " + std::to_string(options.field_ids.size()) + " field ids for " +
                                   std::to_string(schema.num_fields()) + " columns");
  }
  if (!CodecSupported(options.codec)) {
    return Status::InvalidArgument(std::string("parquet writer: codec ") +
                                   CodecName(options.codec) + " is not supported");
  }
  std::unique_ptr<ParquetWriter> w(new ParquetWriter(std::move(schema), std::move(options)));
  Impl& impl = *w->impl_;
  for (const Field& f : w->schema_.fields()) {
    auto own = std::find_if(w->options_.column_page_rows.begin(), w->options_.column_page_rows.end(),
                            [&](const auto& entry) { return entry.first == f.name; });
    if (own == w->options_.column_page_rows.end()) {
      impl.columns.push_back(ColumnChunkWriter::Make(f, w->options_));
    } else {
      WriteOptions column = w->options_;
      column.page_rows = own->second;
      impl.columns.push_back(ColumnChunkWriter::Make(f, column));
    }
  }
  for (const Field& f : w->schema_.fields()) {
    const std::vector<std::string>& cut = w->options_.cut_columns;
    const std::vector<std::string>& run_cut = w->options_.run_cut_columns;
    impl.cut.push_back(std::find(cut.begin(), cut.end(), f.name) != cut.end());
    impl.run_cut.push_back(std::find(run_cut.begin(), run_cut.end(), f.name) != run_cut.end());
  }
  impl.stats.resize(impl.columns.size());
  impl.sink = sink;
  RETURN_IF_ERROR(impl.Append(std::string(kMagic, 4)));
  SchemaElement root;
  root.name = "schema";
  root.num_children = int32_t(w->schema_.num_fields());
  impl.meta.schema.push_back(root);
  for (const Field& f : w->schema_.fields()) impl.meta.schema.push_back(SchemaElementFor(f));
  for (size_t i = 0; i < w->options_.field_ids.size(); ++i) impl.meta.schema[1 + i].field_id = w->options_.field_ids[i];
  impl.meta.created_by = kCreatedBy;
  for (const auto& [k, v] : w->options_.key_value_metadata) impl.meta.key_value_metadata.push_back({k, v});
  impl.meta.column_orders.assign(w->schema_.num_fields(), ColumnOrder::kTypeDefined);
  return w;
}

Status ParquetWriter::Write(const Batch& batch, size_t offset, size_t count, std::span<const uint32_t> pages,
                            std::span<const uint32_t> runs) {
  RETURN_IF_ERROR(status_);
  if (impl_->finished) return Status::InvalidArgument("parquet writer: Write after Finish");
  if (!(batch.schema() == schema_)) {
    return Status::InvalidArgument("parquet writer: batch schema " + batch.schema().ToString() +
                                   " differs from the file schema " + schema_.ToString());
  }
  if (offset > batch.num_rows() || count > batch.num_rows() - offset) {
    return Status::InvalidArgument("parquet writer: rows [" + std::to_string(offset) + ", +" + std::to_string(count) +
                                   ") of a batch of " + std::to_string(batch.num_rows()));
  }
  // Where each page of `pages` (and of `runs`) ends, as rows of `batch`.
  auto ends_of = [&](std::span<const uint32_t> sizes, const char* what) -> Result<std::vector<size_t>> {
    std::vector<size_t> ends;
    ends.reserve(sizes.size());
    for (uint32_t rows : sizes) {
      if (rows == 0) return Status::InvalidArgument(std::string("parquet writer: a ") + what + " of no rows");
      ends.push_back((ends.empty() ? offset : ends.back()) + rows);
    }
    if (!ends.empty() && ends.back() != offset + count) {
      return Status::InvalidArgument(std::string("parquet writer: ") + what + "s of " +
                                     std::to_string(ends.back() - offset) + " rows for " + std::to_string(count) + " rows");
    }
    return ends;
  };
  ASSIGN_OR_RETURN(const std::vector<size_t> page_ends, ends_of(pages, "page"));
  ASSIGN_OR_RETURN(const std::vector<size_t> run_ends, ends_of(runs, "run"));
  const size_t end = offset + count;
  while (offset < end) {
    size_t n = std::min(end - offset, options_.row_group_rows - impl_->rows_in_group);
    std::vector<Status> appended(impl_->columns.size());
    ParallelFor(options_.column_pool, impl_->columns.size(), [&](size_t c) {
      ColumnChunkWriter& w = *impl_->columns[c];
      size_t at = offset;
      const std::vector<size_t>* ends = impl_->cut[c] ? &page_ends : impl_->run_cut[c] ? &run_ends : nullptr;
      if (ends != nullptr) {  // up to each page end within [offset, offset + n), then end the page
        for (auto e = std::upper_bound(ends->begin(), ends->end(), at); e != ends->end() && *e <= offset + n; ++e) {
          appended[c] = w.Append(batch.column(c), at, *e - at);
          if (appended[c].ok()) appended[c] = w.EndPage();
          if (!appended[c].ok()) return;
          at = *e;
        }
      }
      if (at < offset + n) appended[c] = w.Append(batch.column(c), at, offset + n - at);
    });
    for (Status& st : appended) {
      status_ = std::move(st);
      RETURN_IF_ERROR(status_);
    }
    impl_->rows_in_group += n;
    offset += n;
    if (impl_->rows_in_group == options_.row_group_rows) RETURN_IF_ERROR(FlushRowGroup());
  }
  return Status::OK();
}

Status ParquetWriter::FlushRowGroup() {
  RETURN_IF_ERROR(status_);
  Impl& impl = *impl_;
  if (impl.rows_in_group == 0) return Status::OK();
  RowGroup rg;
  rg.num_rows = int64_t(impl.rows_in_group);
  rg.file_offset = int64_t(impl.size);
  rg.ordinal = int16_t(std::min<size_t>(impl.meta.row_groups.size(), INT16_MAX));
  int64_t compressed = 0;
  std::vector<Impl::ChunkIndexes> indexes(options_.page_index ? impl.columns.size() : 0);
  // The columns' last pages encoded and compressed in parallel (for small row groups that is all
  // of their work), then appended in order.
  std::vector<EncodedChunk> chunks(impl.columns.size());
  std::vector<Status> finished(impl.columns.size());
  ParallelFor(options_.column_pool, impl.columns.size(), [&](size_t c) { finished[c] = impl.columns[c]->Finish(&chunks[c]); });
  for (size_t c = 0; c < impl.columns.size(); ++c) {
    status_ = std::move(finished[c]);
    RETURN_IF_ERROR(status_);
    EncodedChunk chunk = std::move(chunks[c]);
    int64_t base = int64_t(impl.size);
    ColumnChunk cc;
    cc.file_offset = base;
    cc.meta_data = std::move(chunk.meta);
    cc.meta_data->data_page_offset += base;
    if (cc.meta_data->dictionary_page_offset) *cc.meta_data->dictionary_page_offset += base;
    if (chunk.offset_index) {
      for (PageLocation& loc : chunk.offset_index->page_locations) loc.offset += base;
    }
    impl.stats[c].Merge(chunk.stats);
    rg.total_byte_size += cc.meta_data->total_uncompressed_size;
    compressed += cc.meta_data->total_compressed_size;
    status_ = impl.Append(std::move(chunk.dictionary_page));
    if (status_.ok()) status_ = impl.Append(std::move(chunk.data_pages));
    RETURN_IF_ERROR(status_);
    rg.columns.push_back(std::move(cc));
    if (!indexes.empty()) {
      indexes[c].offset_index = std::move(chunk.offset_index);
      indexes[c].column_index = std::move(chunk.column_index);
    }
  }
  rg.total_compressed_size = compressed;
  impl.meta.num_rows += rg.num_rows;
  impl.meta.row_groups.push_back(std::move(rg));
  if (!indexes.empty()) impl.indexes.push_back(std::move(indexes));
  impl.rows_in_group = 0;
  return Status::OK();
}

uint64_t ParquetWriter::bytes_written() const { return impl_->size; }

uint64_t ParquetWriter::rows_written() const { return uint64_t(impl_->meta.num_rows); }

const std::vector<ColumnStats>& ParquetWriter::column_stats() const { return impl_->stats; }

const std::string& ParquetWriter::tail() const { return impl_->tail; }

const ParquetWriter::TailParts& ParquetWriter::tail_parts() const { return impl_->tail_parts; }

const FileMetaData& ParquetWriter::metadata() const { return impl_->meta; }

Result<std::string> ParquetWriter::Finish() {
  if (impl_->sink != nullptr) {
    return Status::InvalidArgument("parquet writer: Finish on a streaming writer (FinishToSink)");
  }
  ASSIGN_OR_RETURN(uint64_t size, WriteTail());
  Impl& impl = *impl_;
  std::string out;
  out.reserve(size);
  for (std::string& part : impl.parts) {
    out.append(part);
    part = std::string();  // release as we go
  }
  impl.parts.clear();
  return out;
}

Result<uint64_t> ParquetWriter::FinishToSink() {
  if (impl_->sink == nullptr) {
    return Status::InvalidArgument("parquet writer: FinishToSink on an in-memory writer (Finish)");
  }
  return WriteTail();
}

Result<uint64_t> ParquetWriter::WriteTail() {
  RETURN_IF_ERROR(FlushRowGroup());
  Impl& impl = *impl_;
  if (impl.finished) return Status::InvalidArgument("parquet writer: Finish called twice");
  impl.finished = true;
  // Page index: all ColumnIndexes, then all OffsetIndexes (the layout other writers use),
  // then the footer, all into `tail` at file offset impl.size.
  std::string tail;
  for (size_t rg = 0; rg < impl.indexes.size(); ++rg) {
    for (size_t c = 0; c < impl.indexes[rg].size(); ++c) {
      const auto& ci = impl.indexes[rg][c].column_index;
      if (!ci) continue;
      ColumnChunk& cc = impl.meta.row_groups[rg].columns[c];
      size_t at = tail.size();
      thrift::SerializeStruct(*ci, &tail);
      cc.column_index_offset = int64_t(impl.size + at);
      cc.column_index_length = int32_t(tail.size() - at);
    }
  }
  const size_t column_index_bytes = tail.size();
  for (size_t rg = 0; rg < impl.indexes.size(); ++rg) {
    for (size_t c = 0; c < impl.indexes[rg].size(); ++c) {
      const auto& oi = impl.indexes[rg][c].offset_index;
      if (!oi) continue;
      ColumnChunk& cc = impl.meta.row_groups[rg].columns[c];
      size_t at = tail.size();
      thrift::SerializeStruct(*oi, &tail);
      cc.offset_index_offset = int64_t(impl.size + at);
      cc.offset_index_length = int32_t(tail.size() - at);
    }
  }
  TailParts parts;
  parts.column_indexes = column_index_bytes;
  parts.offset_indexes = tail.size() - column_index_bytes;
  if (options_.page_map && !impl.indexes.empty()) {
    std::vector<std::vector<const OffsetIndex*>> offset_indexes(impl.indexes.size());
    for (size_t rg = 0; rg < impl.indexes.size(); ++rg) {
      for (const auto& chunk : impl.indexes[rg]) {
        offset_indexes[rg].push_back(chunk.offset_index ? &*chunk.offset_index : nullptr);
      }
    }
    const size_t map_start = tail.size();
    const uint64_t header = AppendPageMap(impl.meta, offset_indexes, uint32_t(options_.page_rows),
                                          impl.size + map_start, &tail);
    parts.page_map_blocks = size_t(header);
    parts.page_map_header = tail.size() - map_start - size_t(header);
  }
  impl.indexes.clear();
  size_t footer_start = tail.size();
  thrift::SerializeStruct(impl.meta, &tail);
  uint32_t footer_len = uint32_t(tail.size() - footer_start);
  char len[4];
  std::memcpy(len, &footer_len, 4);
  tail.append(len, 4);
  tail.append(kMagic, 4);
  if (impl.sink != nullptr) {
    impl.tail = tail;
    impl.tail_parts = parts;
  }
  status_ = impl.Append(std::move(tail));
  RETURN_IF_ERROR(status_);
  return impl.size;
}

Status WriteParquet(ObjectStore* store, std::string_view path, const Batch& batch,
                    const WriteOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<ObjectWriter> sink, store->OpenWriter(path));
  ASSIGN_OR_RETURN(auto writer, ParquetWriter::Make(batch.schema(), options, sink.get()));
  RETURN_IF_ERROR(writer->Write(batch));
  RETURN_IF_ERROR(writer->FinishToSink().status());
  return sink->Close();
}

}  // namespace lakeindex::parquet
