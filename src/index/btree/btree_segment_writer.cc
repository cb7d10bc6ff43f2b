#include "index/btree/btree_segment_writer.h"

#include "format/parquet/writer.h"

namespace lakeindex::index::btree {

SegmentWriter::SegmentWriter(ObjectStore* store, std::string uuid, TypeId type, uint32_t page_rows)
    : store_(store), uuid_(std::move(uuid)), type_(type), page_rows_(page_rows), dir_(type), page_values_(type) {
  dir_.page_rows = page_rows;
  if (page_rows == 0 || page_rows > kMaxPageRows) {
    status_ = Status::InvalidArgument("btree: page_rows must be in [1, " + std::to_string(kMaxPageRows) + "], got " +
                                      std::to_string(page_rows));
    return;
  }
  parquet::WriteOptions options;
  options.row_group_rows = page_rows;
  options.page_rows = page_rows;
  options.statistics = false;  // the directory is our statistics
  options.page_index = false;
  // Pages are sorted: zstd alone compresses runs of equal values, and trying a dictionary for
  // every page (one row group each) cost more CPU than the rest of the page write (perf, 10M
  // rows; see docs/btree.md).
  options.dictionary = false;
  options.key_value_metadata = {{kKeyMagic, kMagic},
                                {kKeyFormatVersion, std::to_string(kFormatVersion)},
                                {kKeyValueType, TypeName(type)},
                                {kKeySegment, uuid_}};
  Schema schema({{"value", type, false}, {"row_address", TypeId::kInt64, false}});
  auto sink = store_->OpenWriter(SegmentDataPath(uuid_));
  if (!sink.ok()) {
    status_ = sink.status();
    return;
  }
  data_sink_ = std::move(*sink);
  auto writer = parquet::ParquetWriter::Make(schema, options, data_sink_.get());
  if (!writer.ok()) {
    status_ = writer.status();
    return;
  }
  data_writer_ = std::move(*writer);
}

SegmentWriter::~SegmentWriter() = default;

Status SegmentWriter::Append(std::string_view key, uint64_t address) {
  RETURN_IF_ERROR(status_);
  if (have_last_) {
    const int c = key.compare(last_key_);
    if (c < 0 || (c == 0 && address < last_address_)) {
      status_ = Status::Internal("btree: entries out of order at row " + std::to_string(dir_.num_rows));
      return status_;
    }
  }
  if (page_addresses_.length() == 0) first_key_.assign(key);
  last_key_.assign(key);
  last_address_ = address;
  have_last_ = true;
  Status st = AppendDecodedKey(key, &page_values_);
  if (!st.ok()) return status_ = st;
  page_addresses_.Append<int64_t>(int64_t(address));
  if (page_addresses_.length() == page_rows_) return FlushPage();
  return Status::OK();
}

Status SegmentWriter::AppendAll(SortedStream* stream) {
  SortedEntry e;
  for (;;) {
    ASSIGN_OR_RETURN(bool more, stream->Next(&e));
    if (!more) return Status::OK();
    RETURN_IF_ERROR(Append(e.key, e.address));
  }
}

Status SegmentWriter::FlushPage() {
  const size_t n = page_addresses_.length();
  if (n == 0) return Status::OK();
  Batch batch(data_writer_->schema(), {std::move(page_values_), std::move(page_addresses_)}, n);
  page_values_ = Column(type_);
  page_addresses_ = Column(TypeId::kInt64);
  Status st = data_writer_->Write(batch);
  if (st.ok()) st = data_writer_->FlushRowGroup();
  if (!st.ok()) return status_ = st;
  // Where the page lies (page_lookup's locations): the row group just flushed, its value chunk
  // then its address chunk, back to back.
  const parquet::RowGroup& rg = data_writer_->metadata().row_groups.back();
  PageDirectory::Location at;
  uint64_t end = 0;
  for (size_t c = 0; c < rg.columns.size(); ++c) {
    const parquet::ColumnMetaData& m = *rg.columns[c].meta_data;
    const uint64_t start = uint64_t(m.dictionary_page_offset.value_or(m.data_page_offset));
    if (c == 0) {
      at.offset = start;
    } else if (start != end) {
      return status_ = Status::Internal("btree: page_data chunks are not contiguous");
    }
    end = start + uint64_t(m.total_compressed_size);
    (c == kDataValue ? at.value_codec : at.address_codec) = uint8_t(m.codec);
  }
  if (end - at.offset > uint64_t(INT32_MAX)) return status_ = Status::InvalidArgument("btree: a leaf page of more than 2 GiB");
  at.bytes = uint32_t(end - at.offset);
  dir_.locations.push_back(at);
  dir_.mins.Append(first_key_);
  dir_.maxs.Append(last_key_);
  dir_.rows.push_back(uint32_t(n));
  dir_.num_rows += n;
  return Status::OK();
}

Result<BTreeSegmentInfo> SegmentWriter::Finish(RowSet null_rows) {
  RETURN_IF_ERROR(FlushPage());
  RETURN_IF_ERROR(status_);
  ASSIGN_OR_RETURN(const uint64_t data_bytes, data_writer_->FinishToSink());
  data_writer_.reset();
  RETURN_IF_ERROR(data_sink_->Close());
  data_sink_.reset();
  dir_.data_bytes = data_bytes;
  dir_.null_rows = std::move(null_rows);
  ASSIGN_OR_RETURN(std::string lookup, SerializeLookup(&dir_));
  RETURN_IF_ERROR(store_->Write(SegmentLookupPath(uuid_), lookup));

  BTreeSegmentInfo info;
  info.uuid = uuid_;
  info.type = type_;
  info.page_rows = page_rows_;
  info.num_rows = dir_.num_rows;
  info.null_count = dir_.null_rows.Cardinality();
  info.num_pages = dir_.num_pages();
  if (dir_.num_pages() > 0) {
    ASSIGN_OR_RETURN(Value lo, DecodeKey(type_, dir_.mins[0]));
    ASSIGN_OR_RETURN(Value hi, DecodeKey(type_, dir_.maxs[dir_.num_pages() - 1]));
    info.min = std::move(lo);
    info.max = std::move(hi);
  }
  info.lookup_bytes = lookup.size();
  info.data_bytes = data_bytes;
  return info;
}

}  // namespace lakeindex::index::btree
