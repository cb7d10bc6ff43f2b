#include "format/parquet/reader.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "format/parquet/column_reader.h"
#include "format/parquet/compression.h"

namespace lakeindex::parquet {

namespace {

// Rows per row group we accept (Column positions and string offsets are 32-bit friendly).
constexpr int64_t kMaxRowGroupRows = std::numeric_limits<int32_t>::max();

// Whether legacy Statistics.min/max (always signed order) are valid bounds for this column.
bool LegacyOrderMatches(const LeafColumn& leaf) {
  switch (leaf.physical) {
    case PhysicalType::kBoolean:
    case PhysicalType::kInt64:
    case PhysicalType::kFloat:
    case PhysicalType::kDouble:
      return true;
    case PhysicalType::kInt32:
      return leaf.conversion != ValueConversion::kUint32ToInt64;
    default:
      return false;
  }
}

ColumnStatistics StatsFrom(const Statistics& s, const LeafColumn& leaf, ColumnOrder order) {
  ColumnStatistics out;
  if (s.null_count && *s.null_count >= 0) out.null_count = *s.null_count;
  bool is_float = leaf.physical == PhysicalType::kFloat || leaf.physical == PhysicalType::kDouble;
  bool typed_ok = order == ColumnOrder::kTypeDefined || (order == ColumnOrder::kIeee754Total && is_float);
  if (typed_ok && (s.min_value || s.max_value)) {
    if (s.min_value) out.min = DecodeStatValue(leaf, *s.min_value);
    if (s.max_value) out.max = DecodeStatValue(leaf, *s.max_value);
  } else if (LegacyOrderMatches(leaf)) {
    if (s.min) out.min = DecodeStatValue(leaf, *s.min);
    if (s.max) out.max = DecodeStatValue(leaf, *s.max);
  }
  return out;
}

bool AddOverflows(uint64_t a, uint64_t b, uint64_t limit) { return a > limit || b > limit - a; }

// Rows worth reserving up front for `rows` rows stored in `bytes` bytes: all of them, unless
// the ratio is implausible (a hostile footer), in which case the column grows as pages decode.
size_t ReserveRows(int64_t rows, uint64_t bytes) {
  uint64_t plausible = bytes * 64 + (uint64_t(1) << 16);
  return size_t(std::min<uint64_t>(uint64_t(rows), plausible));
}

// Length of the footer that the last kFooterTailSize bytes (`end`) of a file of `file_size`
// bytes announce, checked against the file.
Result<uint32_t> FooterLength(const uint8_t* end, uint64_t file_size, const std::string& path) {
  if (std::memcmp(end + 4, "PARE", 4) == 0) {
    return Status::NotSupported("parquet file '" + path + "': encrypted footer not supported");
  }
  if (std::memcmp(end + 4, kMagic, 4) != 0) {
    return Status::Corruption("parquet file '" + path + "': bad magic at offset " + std::to_string(file_size - 4));
  }
  uint32_t footer_len;
  std::memcpy(&footer_len, end, 4);
  if (footer_len > file_size - 4 - kFooterTailSize) {
    return Status::Corruption("parquet file '" + path + "': footer length " + std::to_string(footer_len) +
                              " at offset " + std::to_string(file_size - kFooterTailSize) + " exceeds the file");
  }
  return footer_len;
}

// See TailOffset(): the smallest page-index offset that lies before the footer, else the footer.
uint64_t TailStart(const FileMetaData& meta, uint64_t footer_start) {
  uint64_t start = footer_start;
  auto consider = [&](const std::optional<int64_t>& off) {
    if (off && *off >= 4 && uint64_t(*off) < start) start = uint64_t(*off);
  };
  for (const RowGroup& g : meta.row_groups) {
    for (const ColumnChunk& cc : g.columns) {
      consider(cc.column_index_offset);
      consider(cc.offset_index_offset);
    }
  }
  return start;
}

}  // namespace

void FillPageBounds(PageIndex* index) {
  index->bounds.clear();
  if (!index->has_statistics || index->stats.size() != index->pages.size()) return;
  std::optional<TypeId> type;
  for (const PageStatistics& s : index->stats) {
    for (const std::optional<Value>* v : {&s.min, &s.max}) {
      if (!*v || (*v)->is_null()) continue;
      if (type && *type != (*v)->type()) return;  // mixed: left to the general evaluator
      type = (*v)->type();
    }
  }
  if (!type) return;
  const bool floating = *type == TypeId::kFloat || *type == TypeId::kDouble;
  const bool integer = *type == TypeId::kInt32 || *type == TypeId::kInt64 || *type == TypeId::kDate ||
                       *type == TypeId::kTimestamp || *type == TypeId::kTimestampTz || *type == TypeId::kTimestampNs;
  if (!floating && !integer) return;
  index->bounds.resize(index->stats.size());
  for (size_t p = 0; p < index->stats.size(); ++p) {
    const PageStatistics& s = index->stats[p];
    PageIndex::Bound& b = index->bounds[p];
    if (!s.null_count) continue;  // no statistics: kUnknown
    if (s.null_page) {
      b.state = PageIndex::Bound::kNullPage;
    } else if (s.min && s.max && !s.min->is_null() && !s.max->is_null()) {
      b.state = PageIndex::Bound::kBounded;
      if (floating) {
        b.min_d = s.min->double_value();
        b.max_d = s.max->double_value();
      } else {
        b.min_i = s.min->int_value();
        b.max_i = s.max->int_value();
      }
    }
  }
}

Result<uint64_t> TailOffset(const uint8_t* data, size_t size, std::string_view path) {
  std::string where(path);
  if (size < 4 + kFooterTailSize) return Status::Corruption("parquet file '" + where + "': too small");
  ASSIGN_OR_RETURN(uint32_t footer_len, FooterLength(data + size - kFooterTailSize, size, where));
  const uint64_t footer_start = size - kFooterTailSize - footer_len;
  FileMetaData meta;
  Status st = thrift::ParseStruct(data + footer_start, footer_len, &meta, nullptr, footer_start);
  if (!st.ok()) return st.WithContext("parquet file '" + where + "': footer");
  return TailStart(meta, footer_start);
}

Status ParquetReader::Error(const std::string& message) const {
  return Status::Corruption("parquet file '" + path_ + "': " + message);
}

std::string ParquetReader::Where(int rg, int column) const {
  return "parquet file '" + path_ + "' column '" + leaves_[size_t(column)].name + "' row group " +
         std::to_string(rg);
}

Result<std::unique_ptr<ParquetReader>> ParquetReader::Open(ObjectStore* store, std::string path) {
  return Open(store, std::move(path), OpenOptions{});
}

Result<std::unique_ptr<ParquetReader>> ParquetReader::Open(ObjectStore* store, std::string path,
                                                           const OpenOptions& options) {
  std::unique_ptr<ParquetReader> r(new ParquetReader(store, std::move(path)));
  RETURN_IF_ERROR(r->Init(options));
  return r;
}

Status ParquetReader::Init(const OpenOptions& options) {
  cache_ = options.cache != nullptr ? options.cache : LruCache::Default();
  cache_owner_ = LruCache::NewOwnerId();
  cache_pages_ = options.cache_pages;
  if (options.file_size) {
    file_size_ = *options.file_size;
  } else {
    ASSIGN_OR_RETURN(file_size_, store_->Size(path_));
  }
  if (file_size_ < 4 + kFooterTailSize) {
    return Error("file of " + std::to_string(file_size_) + " bytes is too small to be Parquet");
  }
  if (options.tail_offset) {
    const uint64_t tail_start = *options.tail_offset;
    if (tail_start < 4 || tail_start > file_size_ - kFooterTailSize) {
      return Error("tail offset " + std::to_string(tail_start) + " lies outside the file of " +
                   std::to_string(file_size_) + " bytes");
    }
    tail_offset_ = tail_start;
    if (options.offset_index_offset) {  // the ColumnIndexes [tail_start, OffsetIndexes) wait
      const uint64_t oi = *options.offset_index_offset;
      if (oi < tail_start || oi > file_size_ - kFooterTailSize) {
        return Error("offset index offset " + std::to_string(oi) + " lies outside the tail [" +
                     std::to_string(tail_start) + ", " + std::to_string(file_size_) + ")");
      }
      column_indexes_.active = true;
      column_indexes_.begin = tail_start;
      column_indexes_.end = oi;
      column_indexes_.check = options.check_column_indexes;
      tail_offset_ = oi;
      if (options.page_map) {  // the OffsetIndexes [oi, blocks) wait too, and the blocks
        const auto [blocks, header] = *options.page_map;
        if (blocks < oi || header < blocks || header > file_size_ - kFooterTailSize) {
          return Error("page map [" + std::to_string(blocks) + ", " + std::to_string(header) +
                       ") lies outside the tail [" + std::to_string(oi) + ", " + std::to_string(file_size_) + ")");
        }
        offset_indexes_.active = true;
        offset_indexes_.begin = oi;
        offset_indexes_.end = blocks;
        offset_indexes_.check = options.check_offset_indexes;
        tail_offset_ = header;
      }
    }
    ASSIGN_OR_RETURN(tail_, store_->ReadRange(path_, tail_offset_, file_size_ - tail_offset_));
    if (tail_.size() != file_size_ - tail_offset_) return Error("short read of the tail");
    const auto* data = reinterpret_cast<const uint8_t*>(tail_.data());
    if (options.check_tail) RETURN_IF_ERROR(options.check_tail(data, tail_.size()));
    ASSIGN_OR_RETURN(uint32_t footer_len, FooterLength(data + tail_.size() - kFooterTailSize, file_size_, path_));
    footer_start_ = file_size_ - kFooterTailSize - footer_len;
    if (footer_start_ < tail_offset_) return Error("footer starts before the tail");
    RETURN_IF_ERROR(ParseFooter(data + (footer_start_ - tail_offset_), footer_len));
    if (TailStart(meta_, footer_start_) != tail_start) return Error("page index lies outside the tail");
    if (options.page_map) {
      ASSIGN_OR_RETURN(PageMap map, ParsePageMapHeader(data, size_t(footer_start_ - tail_offset_), meta_,
                                                       options.page_map->blocks_offset, tail_offset_, path_));
      page_map_ = std::make_unique<PageMap>(std::move(map));
    }
    if (column_indexes_.active) return CheckIndexRegions();
    return Status::OK();
  }
  ASSIGN_OR_RETURN(std::string tail, store_->ReadRange(path_, file_size_ - kFooterTailSize, kFooterTailSize));
  if (tail.size() != kFooterTailSize) return Error("short read of the footer tail");
  ASSIGN_OR_RETURN(uint32_t footer_len,
                   FooterLength(reinterpret_cast<const uint8_t*>(tail.data()), file_size_, path_));
  footer_start_ = file_size_ - kFooterTailSize - footer_len;
  ASSIGN_OR_RETURN(std::string footer, store_->ReadRange(path_, footer_start_, footer_len));
  if (footer.size() != footer_len) return Error("short read of the footer");
  return ParseFooter(reinterpret_cast<const uint8_t*>(footer.data()), footer.size());
}

Status ParquetReader::CheckIndexRegions() const {
  auto outside = [&](size_t rg, size_t c, const char* what, int64_t off, int32_t len, uint64_t begin, uint64_t end) {
    return Error("row group " + std::to_string(rg) + " column '" + leaves_[c].name + "': " + what + " [" +
                 std::to_string(off) + ", +" + std::to_string(len) + ") lies outside [" + std::to_string(begin) +
                 ", " + std::to_string(end) + ")");
  };
  for (size_t rg = 0; rg < meta_.row_groups.size(); ++rg) {
    for (size_t c = 0; c < leaves_.size(); ++c) {
      const ColumnChunk& cc = meta_.row_groups[rg].columns[c];
      if (cc.column_index_offset && cc.column_index_length) {
        const int64_t off = *cc.column_index_offset;
        const int32_t len = *cc.column_index_length;
        if (off < int64_t(column_indexes_.begin) || len <= 0 ||
            AddOverflows(uint64_t(off), uint64_t(len), column_indexes_.end)) {
          return outside(rg, c, "column index", off, len, column_indexes_.begin, column_indexes_.end);
        }
      }
      if (!cc.offset_index_offset || !cc.offset_index_length) continue;
      const int64_t off = *cc.offset_index_offset;
      const int32_t len = *cc.offset_index_length;
      if (offset_indexes_.active) {
        if (off < int64_t(offset_indexes_.begin) || len <= 0 || AddOverflows(uint64_t(off), uint64_t(len), offset_indexes_.end)) {
          return outside(rg, c, "offset index", off, len, offset_indexes_.begin, offset_indexes_.end);
        }
      } else if (off < int64_t(tail_offset_)) {
        return outside(rg, c, "offset index", off, len, tail_offset_, footer_start_);
      }
    }
  }
  return Status::OK();
}

Status ParquetReader::LoadIndexRegions(bool with_column_indexes) const {
  const LazyRegion &ci = column_indexes_, &oi = offset_indexes_;
  std::unique_lock<std::mutex> ci_lock(ci.mu, std::defer_lock), oi_lock(oi.mu, std::defer_lock);
  if (with_column_indexes) ci_lock.lock();  // always before oi's: no other order is taken
  oi_lock.lock();
  const bool need_ci = with_column_indexes && ci.active && !ci.bytes;
  const bool need_oi = oi.active && !oi.bytes;
  if (!need_ci && !need_oi) return Status::OK();
  // Page statistics come with page locations: both regions, back to back, in one request.
  const uint64_t begin = need_ci ? ci.begin : oi.begin, end = need_oi ? oi.end : ci.end;
  if (need_ci && need_oi && ci.end != oi.begin) return Error("the column and offset indexes are not back to back");
  ASSIGN_OR_RETURN(std::string bytes, store_->ReadRange(path_, begin, end - begin));
  if (bytes.size() != end - begin) {
    return Error(std::string("short read of the ") + (need_ci ? "column indexes" : "offset indexes"));
  }
  for (const LazyRegion* region : {&ci, &oi}) {
    if (region == &ci ? !need_ci : !need_oi) continue;
    std::string part = bytes.substr(size_t(region->begin - begin), size_t(region->end - region->begin));
    region->read += part.size();
    if (region->check) RETURN_IF_ERROR(region->check(reinterpret_cast<const uint8_t*>(part.data()), part.size()));
    region->bytes = std::make_shared<const std::string>(std::move(part));
  }
  return Status::OK();
}

Result<std::shared_ptr<const std::string>> ParquetReader::Region(const LazyRegion& region) const {
  RETURN_IF_ERROR(LoadIndexRegions(&region == &column_indexes_));
  std::lock_guard<std::mutex> lock(region.mu);
  return region.bytes;
}

Status ParquetReader::LoadColumnIndexes() const {
  if (!column_indexes_.active) return Status::OK();
  return LoadIndexRegions(/*with_column_indexes=*/true);
}

Status ParquetReader::ParseFooter(const uint8_t* footer, size_t size) {
  Status st = thrift::ParseStruct(footer, size, &meta_, nullptr, footer_start_);
  if (!st.ok()) return st.WithContext("parquet file '" + path_ + "': footer");
  if (meta_.encrypted) {
    return Status::NotSupported("parquet file '" + path_ + "': encrypted columns not supported");
  }

  // Schema: a root group whose children are all primitive leaves.
  if (meta_.schema.empty()) return Error("footer has an empty schema");
  std::vector<Field> fields;
  for (size_t i = 1; i < meta_.schema.size(); ++i) {
    const SchemaElement& e = meta_.schema[i];
    if (e.num_children || !e.type) {
      return Status::NotSupported("parquet file '" + path_ + "': column '" + e.name +
                                  "': nested group not supported");
    }
    Result<LeafColumn> leaf = ResolveLeaf(e);
    if (!leaf.ok()) return leaf.status().WithContext("parquet file '" + path_ + "'");
    fields.push_back(Field{leaf->name, leaf->type, leaf->nullable});
    leaves_.push_back(std::move(*leaf));
  }
  const SchemaElement& root = meta_.schema[0];
  if (root.num_children && size_t(*root.num_children) != leaves_.size()) {
    return Error("schema root declares " + std::to_string(*root.num_children) + " children but " +
                 std::to_string(leaves_.size()) + " follow");
  }
  schema_ = Schema(std::move(fields));
  if (!meta_.column_orders.empty() && meta_.column_orders.size() != leaves_.size()) {
    meta_.column_orders.clear();  // inconsistent: treat as absent
  }

  for (size_t rg = 0; rg < meta_.row_groups.size(); ++rg) {
    const RowGroup& g = meta_.row_groups[rg];
    std::string where = "row group " + std::to_string(rg);
    if (g.num_rows < 0 || g.num_rows > kMaxRowGroupRows) {
      return Error(where + " has " + std::to_string(g.num_rows) + " rows");
    }
    num_rows_ += g.num_rows;
    if (g.columns.size() != leaves_.size()) {
      return Error(where + " has " + std::to_string(g.columns.size()) + " column chunks for " +
                   std::to_string(leaves_.size()) + " columns");
    }
    for (size_t c = 0; c < g.columns.size(); ++c) {
      const ColumnChunk& cc = g.columns[c];
      std::string at = where + " column '" + leaves_[c].name + "'";
      if (cc.encrypted) {
        return Status::NotSupported("parquet file '" + path_ + "': " + at + ": encrypted column not supported");
      }
      if (cc.file_path) {
        return Status::NotSupported("parquet file '" + path_ + "': " + at + ": data in another file not supported");
      }
      if (!cc.meta_data) return Error(at + " lacks its ColumnMetaData");
      const ColumnMetaData& m = *cc.meta_data;
      if (m.type != leaves_[c].physical) return Error(at + ": chunk type differs from the schema");
      if (m.num_values != g.num_rows) {
        return Error(at + " has " + std::to_string(m.num_values) + " values for " +
                     std::to_string(g.num_rows) + " rows");
      }
    }
  }
  for (const KeyValue& kv : meta_.key_value_metadata) {
    key_value_metadata_.emplace_back(kv.key, kv.value.value_or(""));
  }
  return Status::OK();
}

ColumnStatistics ParquetReader::column_statistics(int rg, int column) const {
  if (rg < 0 || rg >= num_row_groups() || column < 0 || size_t(column) >= leaves_.size()) return {};
  const ColumnMetaData& m = *meta_.row_groups[size_t(rg)].columns[size_t(column)].meta_data;
  if (!m.statistics) return {};
  ColumnOrder order = meta_.column_orders.empty() ? ColumnOrder::kTypeDefined
                                                  : meta_.column_orders[size_t(column)];
  return StatsFrom(*m.statistics, leaves_[size_t(column)], order);
}

Status ParquetReader::CheckChunk(int rg, int column) const {
  if (rg < 0 || rg >= num_row_groups()) {
    return Status::InvalidArgument("parquet file '" + path_ + "': no row group " + std::to_string(rg));
  }
  if (column < 0 || size_t(column) >= leaves_.size()) {
    return Status::InvalidArgument("parquet file '" + path_ + "': no column " + std::to_string(column));
  }
  return Status::OK();
}

Result<std::pair<uint64_t, uint64_t>> ParquetReader::ChunkRange(int rg, int column) const {
  const ColumnMetaData& m = *meta_.row_groups[size_t(rg)].columns[size_t(column)].meta_data;
  const int64_t start = m.chunk_start();
  int64_t len = m.total_compressed_size;
  if (start < 4 || len < 0 || AddOverflows(uint64_t(start), uint64_t(len), footer_start_)) {
    return Status::Corruption(Where(rg, column) + ": column chunk [" + std::to_string(start) +
                              ", +" + std::to_string(len) + ") lies outside the data region");
  }
  return std::make_pair(uint64_t(start), uint64_t(len));
}

Status ParquetReader::ReadChunkInto(int rg, int column, Column* out) const {
  int64_t rows = row_group_num_rows(rg);
  if (rows == 0) return Status::OK();
  ASSIGN_OR_RETURN(auto range, ChunkRange(rg, column));
  const ColumnMetaData& m = *meta_.row_groups[size_t(rg)].columns[size_t(column)].meta_data;
  if (m.codec < 0 || m.codec > 7) {
    return Status::NotSupported(Where(rg, column) + ": compression codec " + std::to_string(m.codec) +
                                " not supported");
  }
  ASSIGN_OR_RETURN(std::string bytes, store_->ReadRange(path_, range.first, range.second));
  if (bytes.size() != range.second) return Status::Corruption(Where(rg, column) + ": short read");
  Status st = DecodeColumnChunk(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(),
                                range.first, leaves_[size_t(column)], Codec(uint8_t(m.codec)),
                                m.total_uncompressed_size, rows, out);
  if (!st.ok()) return st.WithContext(Where(rg, column));
  return Status::OK();
}

Result<std::vector<int>> ParquetReader::ResolveColumns(const std::vector<int>& columns) const {
  std::vector<int> out = columns;
  if (out.empty()) {
    for (size_t i = 0; i < leaves_.size(); ++i) out.push_back(int(i));
  }
  std::vector<bool> seen(leaves_.size(), false);
  for (int c : out) {
    if (c < 0 || size_t(c) >= leaves_.size()) {
      return Status::InvalidArgument("parquet file '" + path_ + "': no column " + std::to_string(c));
    }
    if (seen[size_t(c)]) {
      return Status::InvalidArgument("parquet file '" + path_ + "': column " + std::to_string(c) + " listed twice");
    }
    seen[size_t(c)] = true;
  }
  return out;
}

Result<Batch> ParquetReader::ReadRowGroup(int rg, const std::vector<int>& columns) const {
  if (rg < 0 || rg >= num_row_groups()) {
    return Status::InvalidArgument("parquet file '" + path_ + "': no row group " + std::to_string(rg));
  }
  ASSIGN_OR_RETURN(std::vector<int> cols, ResolveColumns(columns));
  std::vector<Field> fields;
  std::vector<Column> out;
  for (int c : cols) {
    fields.push_back(schema_.field(size_t(c)));
    out.emplace_back(leaves_[size_t(c)].type);
    const ColumnMetaData& m = *meta_.row_groups[size_t(rg)].columns[size_t(c)].meta_data;
    out.back().Reserve(ReserveRows(row_group_num_rows(rg), uint64_t(std::max<int64_t>(0, m.total_compressed_size))));
    RETURN_IF_ERROR(ReadChunkInto(rg, c, &out.back()));
  }
  return Batch(Schema(std::move(fields)), std::move(out), size_t(row_group_num_rows(rg)));
}

Result<Batch> ParquetReader::ReadAll(const std::vector<int>& columns) const {
  ASSIGN_OR_RETURN(std::vector<int> cols, ResolveColumns(columns));
  std::vector<Field> fields;
  std::vector<Column> out;
  for (int c : cols) {
    fields.push_back(schema_.field(size_t(c)));
    out.emplace_back(leaves_[size_t(c)].type);
    uint64_t bytes = 0;
    for (const RowGroup& g : meta_.row_groups) {
      bytes += uint64_t(std::clamp<int64_t>(g.columns[size_t(c)].meta_data->total_compressed_size, 0, int64_t(1) << 40));
    }
    out.back().Reserve(ReserveRows(num_rows_, bytes));
    uint64_t rows_read = 0, bytes_read = 0;
    for (int rg = 0; rg < num_row_groups(); ++rg) {
      RETURN_IF_ERROR(ReadChunkInto(rg, c, &out.back()));
      rows_read += uint64_t(row_group_num_rows(rg));
      bytes_read += uint64_t(std::clamp<int64_t>(meta_.row_groups[size_t(rg)].columns[size_t(c)].meta_data->total_compressed_size, 0, int64_t(1) << 40));
      if (rg == 0 && uint64_t(num_rows_) > rows_read) {
        // The first chunk tells the characters per row: reserve for the rest of the file.
        ReserveCharsLike(&out.back(), out.back().chars().size(), rows_read, uint64_t(num_rows_) - rows_read,
                         256 * (bytes - bytes_read) + (uint64_t(1) << 20));
      }
    }
  }
  return Batch(Schema(std::move(fields)), std::move(out), size_t(num_rows_));
}

Result<PageIndex> ParquetReader::ReadPageIndex(int rg, int column) const {
  ASSIGN_OR_RETURN(std::shared_ptr<const PageIndex> index, CachedPageIndex(rg, column));
  return *index;
}

std::optional<LruCache::Key> ParquetReader::CacheKey(CacheItem item, int rg, int column, int page) const {
  // item: 4 bits | row group: 24 | column: 16 | page: 20.
  if (rg < 0 || rg >= (1 << 24) || column < 0 || column >= (1 << 16) || page < 0 || page >= (1 << 20)) return std::nullopt;
  return LruCache::Key{cache_owner_, uint64_t(item) << 60 | uint64_t(rg) << 36 | uint64_t(column) << 20 | uint64_t(page)};
}

namespace {
size_t PageIndexCharge(const PageIndex& index) {
  size_t bytes = sizeof(PageIndex) + index.pages.capacity() * sizeof(PageIndexEntry) +
                 index.stats.capacity() * sizeof(PageStatistics);
  for (const PageStatistics& e : index.stats) {
    if (e.min && e.min->type() == TypeId::kString && !e.min->is_null()) bytes += e.min->string_value().capacity();
    if (e.max && e.max->type() == TypeId::kString && !e.max->is_null()) bytes += e.max->string_value().capacity();
  }
  return bytes;
}

size_t ColumnCharge(const Column& c) {
  return sizeof(Column) + c.MemoryBytes();
}
}  // namespace

Result<std::shared_ptr<const PageIndex>> ParquetReader::CachedPageIndex(int rg, int column, bool statistics) const {
  RETURN_IF_ERROR(CheckChunk(rg, column));
  auto load = [&]() -> Result<std::pair<std::shared_ptr<const PageIndex>, size_t>> {
    ASSIGN_OR_RETURN(PageIndex index, LoadPageIndex(rg, column, statistics));
    index.row_ends.reserve(index.pages.size());
    for (const PageIndexEntry& e : index.pages) {
      index.row_ends.push_back(e.first_row_index + e.num_rows);
      index.total_bytes += uint64_t(e.compressed_size);
    }
    const size_t n = index.pages.size();
    if (n > 0) {
      const int64_t first = index.pages[0].num_rows;
      bool uniform = first > 0 && index.pages[n - 1].num_rows <= first;
      for (size_t i = 0; uniform && i + 1 < n; ++i) uniform = index.pages[i].num_rows == first;
      if (uniform) index.uniform_rows = first;
    }
    FillPageBounds(&index);
    const size_t charge = PageIndexCharge(index) + index.row_ends.capacity() * sizeof(int64_t) +
                          index.bounds.capacity() * sizeof(PageIndex::Bound);
    return std::make_pair(std::make_shared<const PageIndex>(std::move(index)), charge);
  };
  std::optional<LruCache::Key> full = CacheKey(CacheItem::kPageIndex, rg, column, 0);
  if (!full) {
    ASSIGN_OR_RETURN(auto loaded, load());
    return loaded.first;
  }
  if (statistics) return cache_->GetOrLoadAs<PageIndex>(*full, load);
  // Locations only: the full index serves as well when it is already held.
  if (auto held = cache_->LookupAs<PageIndex>(*full)) return held;
  return cache_->GetOrLoadAs<PageIndex>(*CacheKey(CacheItem::kPageLocations, rg, column, 0), load);
}

Result<PageIndex> ParquetReader::LoadPageIndex(int rg, int column, bool statistics) const {
  const ColumnChunk& cc = meta_.row_groups[size_t(rg)].columns[size_t(column)];
  if (!cc.offset_index_offset || !cc.offset_index_length) return ScanPageHeaders(rg, column);
  const std::string where = Where(rg, column);
  auto read_struct = [&](int64_t off, int32_t len, const char* what, auto* out) -> Status {
    if (off < 4 || len <= 0 || AddOverflows(uint64_t(off), uint64_t(len), footer_start_)) {
      return Status::Corruption(where + ": " + what + " [" + std::to_string(off) + ", +" +
                                std::to_string(len) + ") lies outside the file");
    }
    std::string bytes;
    std::shared_ptr<const std::string> region;
    std::string_view view;
    if (!tail_.empty() && uint64_t(off) >= tail_offset_) {
      view = std::string_view(tail_).substr(size_t(uint64_t(off) - tail_offset_), size_t(len));  // in range: footer_start_ bound
    } else if (column_indexes_.Holds(uint64_t(off)) || offset_indexes_.Holds(uint64_t(off))) {  // CheckIndexRegions
      const LazyRegion& lazy = column_indexes_.Holds(uint64_t(off)) ? column_indexes_ : offset_indexes_;
      ASSIGN_OR_RETURN(region, Region(lazy));
      view = std::string_view(*region).substr(size_t(uint64_t(off) - lazy.begin), size_t(len));
    } else {
      ASSIGN_OR_RETURN(bytes, store_->ReadRange(path_, uint64_t(off), uint64_t(len)));
      view = bytes;
    }
    if (view.size() != size_t(len)) return Status::Corruption(where + ": short read of the " + what);
    Status st = thrift::ParseStruct(reinterpret_cast<const uint8_t*>(view.data()), view.size(),
                                    out, nullptr, uint64_t(off));
    if (!st.ok()) return st.WithContext(where + ": " + what);
    return Status::OK();
  };
  // Statistics wanted: the ColumnIndexes are read with the OffsetIndexes (one request).
  if (statistics && cc.column_index_offset) RETURN_IF_ERROR(LoadColumnIndexes());
  OffsetIndex oi;
  RETURN_IF_ERROR(read_struct(*cc.offset_index_offset, *cc.offset_index_length, "offset index", &oi));
  ASSIGN_OR_RETURN(auto range, ChunkRange(rg, column));
  const int64_t rows = row_group_num_rows(rg);
  PageIndex index;
  const auto& locs = oi.page_locations;
  index.pages.reserve(locs.size());
  for (size_t i = 0; i < locs.size(); ++i) {
    const PageLocation& l = locs[i];
    int64_t next_first = i + 1 < locs.size() ? locs[i + 1].first_row_index : rows;
    bool bad_rows = (i == 0 ? l.first_row_index != 0 : false) || l.first_row_index < 0 ||
                    next_first <= l.first_row_index || next_first > rows;
    bool bad_range = l.offset < int64_t(range.first) || l.compressed_page_size <= 0 ||
                     AddOverflows(uint64_t(l.offset), uint64_t(l.compressed_page_size),
                                  range.first + range.second);
    if (bad_rows || bad_range) {
      return Status::Corruption(where + ": offset index entry " + std::to_string(i) +
                                " (offset " + std::to_string(l.offset) + ", first row " +
                                std::to_string(l.first_row_index) + ") is inconsistent");
    }
    PageIndexEntry e;
    e.first_row_index = l.first_row_index;
    e.num_rows = next_first - l.first_row_index;
    e.offset = l.offset;
    e.compressed_size = l.compressed_page_size;
    index.pages.push_back(std::move(e));
  }
  if (rows > 0 && index.pages.empty()) return Status::Corruption(where + ": empty offset index");

  if (statistics && cc.column_index_offset && cc.column_index_length) {
    ColumnIndex ci;
    RETURN_IF_ERROR(read_struct(*cc.column_index_offset, *cc.column_index_length, "column index", &ci));
    if (ci.null_pages.size() != index.pages.size()) {
      return Status::Corruption(where + ": column index has " + std::to_string(ci.null_pages.size()) +
                                " pages, offset index " + std::to_string(index.pages.size()));
    }
    const LeafColumn& leaf = leaves_[size_t(column)];
    ColumnOrder order = meta_.column_orders.empty() ? ColumnOrder::kTypeDefined
                                                    : meta_.column_orders[size_t(column)];
    bool is_float = leaf.physical == PhysicalType::kFloat || leaf.physical == PhysicalType::kDouble;
    bool order_ok = order == ColumnOrder::kTypeDefined || (order == ColumnOrder::kIeee754Total && is_float);
    index.stats.resize(index.pages.size());
    for (size_t i = 0; i < index.pages.size(); ++i) {
      PageStatistics& e = index.stats[i];
      e.null_page = ci.null_pages[i];
      if (ci.null_counts) e.null_count = (*ci.null_counts)[i];
      if (!e.null_page && order_ok) {
        e.min = DecodeStatValue(leaf, ci.min_values[i]);
        e.max = DecodeStatValue(leaf, ci.max_values[i]);
      }
    }
    index.has_statistics = true;
  }
  return index;
}

Result<PageIndex> ParquetReader::ScanPageHeaders(int rg, int column) const {
  const std::string where = Where(rg, column);
  PageIndex index;
  const int64_t rows = row_group_num_rows(rg);
  if (rows == 0) return index;
  ASSIGN_OR_RETURN(auto range, ChunkRange(rg, column));
  ASSIGN_OR_RETURN(std::string bytes, store_->ReadRange(path_, range.first, range.second));
  if (bytes.size() != range.second) return Status::Corruption(where + ": short read");
  const uint8_t* data = reinterpret_cast<const uint8_t*>(bytes.data());
  const LeafColumn& leaf = leaves_[size_t(column)];
  ColumnOrder order = meta_.column_orders.empty() ? ColumnOrder::kTypeDefined
                                                  : meta_.column_orders[size_t(column)];
  size_t pos = 0;
  int64_t seen = 0;
  index.has_statistics = true;
  while (seen < rows) {
    PageHeader h;
    size_t header_size = 0;
    Status st = ParsePageHeaderAt(data, bytes.size(), pos, range.first, &h, &header_size);
    if (!st.ok()) return st.WithContext(where);
    uint64_t page_offset = range.first + pos;
    if (uint64_t(h.compressed_page_size) > bytes.size() - pos - header_size) {
      return Status::Corruption(where + ": page at offset " + std::to_string(page_offset) +
                                " runs past the column chunk");
    }
    size_t page_size = header_size + size_t(h.compressed_page_size);
    pos += page_size;
    int64_t page_rows = -1;
    const Statistics* stats = nullptr;
    if (h.type == PageType::kDataPage && h.data_page_header) {
      page_rows = h.data_page_header->num_values;
      if (h.data_page_header->statistics) stats = &*h.data_page_header->statistics;
    } else if (h.type == PageType::kDataPageV2 && h.data_page_header_v2) {
      page_rows = h.data_page_header_v2->num_rows;
      if (h.data_page_header_v2->statistics) stats = &*h.data_page_header_v2->statistics;
    } else if (h.type == PageType::kDataPage || h.type == PageType::kDataPageV2) {
      return Status::Corruption(where + ": page at offset " + std::to_string(page_offset) + " lacks its header");
    } else {
      continue;  // dictionary / index page
    }
    if (page_rows < 0 || page_rows > rows - seen) {
      return Status::Corruption(where + ": page at offset " + std::to_string(page_offset) +
                                " has " + std::to_string(page_rows) + " rows, " +
                                std::to_string(rows - seen) + " left");
    }
    if (page_size > size_t(std::numeric_limits<int32_t>::max())) {
      return Status::Corruption(where + ": page at offset " + std::to_string(page_offset) + " is too large");
    }
    PageIndexEntry e;
    e.first_row_index = seen;
    e.num_rows = page_rows;
    e.offset = int64_t(page_offset);
    e.compressed_size = int32_t(page_size);
    PageStatistics& ps = index.stats.emplace_back();
    if (stats != nullptr) {
      ColumnStatistics cs = StatsFrom(*stats, leaf, order);
      ps.min = std::move(cs.min);
      ps.max = std::move(cs.max);
      ps.null_count = cs.null_count;
      ps.null_page = ps.null_count && *ps.null_count == page_rows;
    } else {
      index.has_statistics = false;
    }
    index.pages.push_back(e);
    seen += page_rows;
    if (pos >= bytes.size() && seen < rows) {
      return Status::Corruption(where + ": column chunk ends after " + std::to_string(seen) +
                                " of " + std::to_string(rows) + " rows");
    }
  }
  return index;
}

Result<Column> ParquetReader::ReadPage(int rg, int column, int page) const {
  ASSIGN_OR_RETURN(std::vector<Column> pages, ReadPages(rg, column, {page}, ObjectStore::ReadHint{}));
  return std::move(pages[0]);
}

namespace {
// Cached for chunks whose leading pages hold no dictionary.
const std::shared_ptr<const PageDictionary>& NoDictionary() {
  static const auto* none = new std::shared_ptr<const PageDictionary>(std::make_shared<const PageDictionary>());
  return *none;
}
}  // namespace

Result<std::optional<std::pair<uint64_t, uint64_t>>> ParquetReader::DictionaryRange(int rg, int column) const {
  ASSIGN_OR_RETURN(auto range, ChunkRange(rg, column));
  uint64_t first;
  if (page_map_ && page_map_->Slot(rg, column) >= 0) {  // the footer's first data page: the map's blocks check it
    first = uint64_t(meta_.row_groups[size_t(rg)].columns[size_t(column)].meta_data->data_page_offset);
    if (first > range.first + range.second) {
      return Status::Corruption(Where(rg, column) + ": first data page at " + std::to_string(first) + " lies past the chunk");
    }
  } else {
    ASSIGN_OR_RETURN(std::shared_ptr<const PageIndex> index, CachedPageIndex(rg, column, false));
    first = index->pages.empty() ? range.first : uint64_t(index->pages[0].offset);
  }
  if (range.first >= first) return std::optional<std::pair<uint64_t, uint64_t>>();
  return std::optional<std::pair<uint64_t, uint64_t>>(std::make_pair(range.first, first - range.first));
}

Result<std::shared_ptr<const PageDictionary>> ParquetReader::CachedDictionary(int rg, int column,
                                                                              const std::string* head) const {
  ASSIGN_OR_RETURN(auto range, DictionaryRange(rg, column));
  if (!range) return std::shared_ptr<const PageDictionary>();
  auto load = [&]() -> Result<std::pair<std::shared_ptr<const PageDictionary>, size_t>> {
    const std::string where = Where(rg, column);
    const ColumnMetaData& m = *meta_.row_groups[size_t(rg)].columns[size_t(column)].meta_data;
    int64_t bound = m.total_uncompressed_size > 0 ? std::min(m.total_uncompressed_size, kMaxPageBytes) : kMaxPageBytes;
    ColumnChunkDecoder decoder(leaves_[size_t(column)], Codec(uint8_t(m.codec)), bound);
    // The pages before the first data page: the dictionary page (and any index pages, skipped).
    std::string read;
    if (head == nullptr) {
      ASSIGN_OR_RETURN(read, store_->ReadRange(path_, range->first, range->second));
      head = &read;
    }
    if (head->size() != range->second) return Status::Corruption(where + ": short read");
    Column none(leaves_[size_t(column)].type);
    size_t pos = 0;
    while (pos < head->size()) {
      int64_t got = 0;
      Status st = decoder.DecodePage(reinterpret_cast<const uint8_t*>(head->data()), head->size(), &pos,
                                     range->first, 0, &none, &got);
      if (!st.ok()) return st.WithContext(where);
    }
    std::shared_ptr<const PageDictionary> dict = decoder.dictionary();
    if (dict == nullptr) dict = NoDictionary();  // e.g. only an index page: the bytes are read once
    const size_t charge = dict->MemoryBytes();
    return std::make_pair(std::move(dict), charge);
  };
  std::optional<LruCache::Key> key = CacheKey(CacheItem::kDictionary, rg, column, 0);
  if (!key) {
    ASSIGN_OR_RETURN(auto loaded, load());
    return loaded.first;
  }
  return cache_->GetOrLoadAs<PageDictionary>(*key, load);
}

namespace {
// The decoded pages of a read that did not go through the cache.
struct LoosePages {
  std::vector<std::shared_ptr<const Column>> pages;
};

// Runs of the pages at positions `missing` of `pages` no more than hint.max_hole bytes apart, each
// one ranged read (the holes read and dropped) of at most hint.max_range bytes (a larger page is
// a run of its own).
std::vector<ParquetReader::PageRun> PlanRuns(const PageIndex& index, const std::vector<int>& pages,
                                             const std::vector<size_t>& missing, const ObjectStore::ReadHint& hint) {
  std::vector<ParquetReader::PageRun> runs;
  for (size_t i = 0; i < missing.size();) {
    const PageIndexEntry& head = index.pages[size_t(pages[missing[i]])];
    const uint64_t begin = uint64_t(head.offset);
    uint64_t end = begin + uint64_t(head.compressed_size);
    size_t stop = i + 1;
    while (stop < missing.size()) {
      const PageIndexEntry& next = index.pages[size_t(pages[missing[stop]])];
      if (uint64_t(next.offset) < end || uint64_t(next.offset) - end > hint.max_hole) break;
      const uint64_t next_end = uint64_t(next.offset) + uint64_t(next.compressed_size);
      if (next_end - begin > hint.max_range) break;
      end = next_end;
      ++stop;
    }
    runs.push_back({i, stop, begin, end - begin});
    i = stop;
  }
  return runs;
}
}  // namespace

// ChunkPages: the decoded data pages of one column chunk held by the cache, by page number (null
// = not decoded). Pages are only ever added, so a page stays valid as long as the table does; the
// cache charges the table for every page added and drops the whole table when it is evicted. It
// keeps the chunk's page locations alive, and is charged for them too.
size_t ParquetReader::MemoryBytes() const {
  // A parsed column chunk's metadata (path, encodings, statistics, offsets) is a few hundred bytes.
  size_t lazy = 0;
  for (const LazyRegion* region : {&column_indexes_, &offset_indexes_}) {
    std::lock_guard<std::mutex> lock(region->mu);
    if (region->bytes) lazy += region->bytes->capacity();
  }
  {
    std::lock_guard<std::mutex> lock(map_mu_);
    for (const auto& [at, block] : map_blocks_) lazy += 64 + block->capacity() * sizeof(uint32_t);
  }
  return sizeof(*this) + tail_.capacity() + lazy + meta_.row_groups.size() * leaves_.size() * 256;
}

size_t ParquetReader::ChunkPages::MemoryBytes() const {
  return sizeof(*this) + pages.capacity() * sizeof(pages[0]) + sizeof(PageIndex) +
         locations->pages.capacity() * sizeof(PageIndexEntry) + locations->row_ends.capacity() * sizeof(int64_t);
}

Result<std::shared_ptr<const ParquetReader::ChunkPages>> ParquetReader::SharedChunk(int rg, int column) const {
  auto make = [&](bool cached) -> Result<std::pair<std::shared_ptr<const ChunkPages>, size_t>> {
    std::shared_ptr<ChunkPages> table;
    if (std::shared_ptr<PageIndex> skeleton = MapSkeleton(rg, column)) {  // located as takes need it
      PageIndex* unlocated = skeleton.get();
      table = std::make_shared<ChunkPages>(std::move(skeleton), cached);
      table->unlocated = unlocated;
      table->located.resize(unlocated->pages.size());
    } else {
      ASSIGN_OR_RETURN(std::shared_ptr<const PageIndex> locations, CachedPageIndex(rg, column, false));
      table = std::make_shared<ChunkPages>(std::move(locations), cached);
    }
    const size_t charge = table->MemoryBytes();
    return std::make_pair(std::shared_ptr<const ChunkPages>(std::move(table)), charge);
  };
  RETURN_IF_ERROR(CheckChunk(rg, column));
  std::optional<LruCache::Key> key;
  if (cache_pages_) key = CacheKey(CacheItem::kChunkPages, rg, column, 0);
  if (!key) {
    ASSIGN_OR_RETURN(auto made, make(false));
    return made.first;
  }
  return cache_->GetOrLoadAs<ChunkPages>(*key, [&] { return make(true); });
}

Result<uint64_t> ParquetReader::UncachedPageBytes(const ChunkPages& chunk, int rg, int column,
                                                  const std::vector<int>& pages) const {
  RETURN_IF_ERROR(LocatePages(chunk, rg, column, pages));
  const PageIndex& index = *chunk.locations;
  std::lock_guard<std::mutex> lock(chunk.mu);
  uint64_t bytes = 0;
  for (int p : pages) {
    if (p < 0 || size_t(p) >= index.pages.size()) return Status::InvalidArgument(Where(rg, column) + ": no page " + std::to_string(p));
    if (!chunk.cached || !chunk.pages[size_t(p)]) bytes += uint64_t(index.pages[size_t(p)].compressed_size);
  }
  return bytes;
}

Result<ParquetReader::ReadCost> ParquetReader::PagesReadCost(const ChunkPages& chunk, int rg, int column,
                                                             const std::vector<int>& pages,
                                                             const ObjectStore::ReadHint& hint) const {
  RETURN_IF_ERROR(LocatePages(chunk, rg, column, pages));
  const PageIndex& index = *chunk.locations;
  std::vector<size_t> missing;  // positions in `pages`, as ReadPagesShared finds them
  {
    std::lock_guard<std::mutex> lock(chunk.mu);
    for (size_t k = 0; k < pages.size(); ++k) {
      const int p = pages[k];
      if (p < 0 || size_t(p) >= index.pages.size() || (k > 0 && p <= pages[k - 1])) {
        return Status::InvalidArgument(Where(rg, column) + ": no page " + std::to_string(p) + " (or pages out of order)");
      }
      if (!chunk.cached || !chunk.pages[size_t(p)]) missing.push_back(k);
    }
  }
  ReadCost cost;
  if (missing.empty()) return cost;
  for (const PageRun& run : PlanRuns(index, pages, missing, hint)) {
    cost.bytes += run.length;
    ++cost.requests;
  }
  ASSIGN_OR_RETURN(auto head, UncachedDictionaryRange(rg, column));
  if (head) {
    cost.bytes += head->second;
    ++cost.requests;
  }
  return cost;
}

Result<std::vector<Column>> ParquetReader::ReadPages(int rg, int column, const std::vector<int>& pages,
                                                    const ObjectStore::ReadHint& hint) const {
  ASSIGN_OR_RETURN(PageSpan span, ReadPagesShared(rg, column, pages, hint));
  std::vector<Column> out;
  out.reserve(span.pages.size());
  for (const Column* p : span.pages) out.push_back(*p);
  return out;
}


Result<ParquetReader::PageSpan> ParquetReader::ReadPagesShared(int rg, int column, const std::vector<int>& pages,
                                                               const ObjectStore::ReadHint& hint, uint64_t* loaded) const {
  ASSIGN_OR_RETURN(std::shared_ptr<const ChunkPages> chunk, SharedChunk(rg, column));
  return ReadPagesShared(chunk, rg, column, pages, hint, loaded);
}

Result<ParquetReader::PageSpan> ParquetReader::ReadPagesShared(const std::shared_ptr<const ChunkPages>& shared, int rg,
                                                               int column, const std::vector<int>& pages,
                                                               const ObjectStore::ReadHint& hint,
                                                               uint64_t* loaded) const {
  RETURN_IF_ERROR(LocatePages(*shared, rg, column, pages));
  const PageIndex& index = *shared->locations;
  for (size_t k = 0; k < pages.size(); ++k) {
    if (pages[k] < 0 || size_t(pages[k]) >= index.pages.size() || (k > 0 && pages[k] <= pages[k - 1])) {
      return Status::InvalidArgument(Where(rg, column) + ": no page " + std::to_string(pages[k]) + " (or pages out of order)");
    }
  }
  PageSpan out;
  out.pages.resize(pages.size());
  if (pages.empty()) return out;
  // The chunk's table of cached pages; those it holds are shared, the rest are read below.
  const ChunkPages* chunk = shared->cached ? shared.get() : nullptr;
  if (chunk) out.owner = shared;
  std::vector<size_t> missing;  // positions in `pages`
  if (chunk) {
    std::lock_guard<std::mutex> lock(chunk->mu);
    for (size_t k = 0; k < pages.size(); ++k) {
      out.pages[k] = chunk->pages[size_t(pages[k])].get();
      if (out.pages[k] == nullptr) missing.push_back(k);
    }
  } else {
    for (size_t k = 0; k < pages.size(); ++k) missing.push_back(k);
  }
  if (missing.empty()) return out;
  if (loaded != nullptr) *loaded += missing.size();
  std::vector<PageRun> runs = PlanRuns(index, pages, missing, hint);
  std::vector<ObjectStore::ByteRange> ranges;
  for (const PageRun& run : runs) ranges.push_back({run.offset, run.length});
  // The dictionary, when it is to be read too, in the same request batch (the last range).
  ASSIGN_OR_RETURN(auto head, UncachedDictionaryRange(rg, column));
  if (head) ranges.push_back({head->first, head->second});
  ASSIGN_OR_RETURN(std::vector<std::string> run_bytes, store_->ReadRanges(path_, ranges));
  RETURN_IF_ERROR(DecodeRuns(shared, rg, column, pages, missing, runs, run_bytes, head ? &run_bytes.back() : nullptr, &out));
  return out;
}

Result<std::optional<std::pair<uint64_t, uint64_t>>> ParquetReader::UncachedDictionaryRange(int rg, int column) const {
  std::optional<LruCache::Key> key = CacheKey(CacheItem::kDictionary, rg, column, 0);
  if (key && cache_->Contains(*key)) return std::optional<std::pair<uint64_t, uint64_t>>();
  return DictionaryRange(rg, column);
}

Status ParquetReader::DecodeRuns(const std::shared_ptr<const ChunkPages>& shared, int rg, int column,
                                 const std::vector<int>& pages, const std::vector<size_t>& missing,
                                 const std::vector<PageRun>& runs, const std::vector<std::string>& run_bytes,
                                 const std::string* head, PageSpan* out) const {
  const PageIndex& index = *shared->locations;
  const ChunkPages* chunk = shared->cached ? shared.get() : nullptr;
  const std::string where = Where(rg, column);
  const LeafColumn& leaf = leaves_[size_t(column)];
  const ColumnMetaData& m = *meta_.row_groups[size_t(rg)].columns[size_t(column)].meta_data;
  if (m.codec < 0 || m.codec > 7) {
    return Status::NotSupported(where + ": compression codec " + std::to_string(m.codec) + " not supported");
  }
  int64_t bound = m.total_uncompressed_size > 0 ? std::min(m.total_uncompressed_size, kMaxPageBytes) : kMaxPageBytes;
  ColumnChunkDecoder decoder(leaf, Codec(uint8_t(m.codec)), bound);
  ASSIGN_OR_RETURN(std::shared_ptr<const PageDictionary> dict, CachedDictionary(rg, column, head));
  if (dict != nullptr && dict != NoDictionary()) decoder.UseDictionary(std::move(dict));
  auto loose = chunk ? nullptr : std::make_shared<LoosePages>();
  size_t added = 0;  // bytes added to the chunk's table
  for (size_t r = 0; r < runs.size(); ++r) {
    const std::string& bytes = run_bytes[r];
    const uint64_t begin = runs[r].offset;
    if (bytes.size() != runs[r].length) return Status::Corruption(where + ": short read");
    for (size_t i = runs[r].first; i < runs[r].stop; ++i) {
      const size_t k = missing[i];
      const PageIndexEntry& e = index.pages[size_t(pages[k])];
      auto col = std::make_shared<Column>(leaf.type);
      size_t pos = size_t(uint64_t(e.offset) - begin);
      int64_t got = 0;
      Status st = decoder.DecodePage(reinterpret_cast<const uint8_t*>(bytes.data()), pos + size_t(e.compressed_size),
                                     &pos, begin, e.num_rows, col.get(), &got);
      if (!st.ok()) return st.WithContext(where);
      if (got != e.num_rows) {
        return Status::Corruption(where + ": page at offset " + std::to_string(e.offset) + " holds " +
                                  std::to_string(got) + " rows, the page index says " + std::to_string(e.num_rows));
      }
      if (chunk) {
        // Another thread may have decoded the same page meanwhile: keep the first copy.
        std::lock_guard<std::mutex> lock(chunk->mu);
        auto& slot = chunk->pages[size_t(pages[k])];
        if (!slot) {
          added += ColumnCharge(*col);
          slot = std::move(col);
        }
        out->pages[k] = slot.get();
      } else {
        out->pages[k] = col.get();
        loose->pages.push_back(std::move(col));
      }
    }
  }
  if (chunk) {
    if (added > 0) cache_->AddCharge(*CacheKey(CacheItem::kChunkPages, rg, column, 0), added);
  } else {
    out->owner = std::move(loose);
  }
  return Status::OK();
}

uint64_t ParquetReader::ChunkBytes(int rg, int column) const {
  if (CheckChunk(rg, column).ok()) {
    auto range = ChunkRange(rg, column);
    if (range.ok()) return range->second;
  }
  return 0;
}

Status ParquetReader::LoadPages(const std::vector<ChunkWant>& wanted, const ObjectStore::ReadHint& hint) const {
  struct Load {
    const ChunkWant* want;
    std::shared_ptr<const ChunkPages> chunk;
    std::vector<size_t> missing;
    std::vector<PageRun> runs;
    size_t first_range = 0;            // its ranges in the one ReadRanges: the runs, then the head
    std::optional<size_t> head_range;  // the dictionary's
  };
  std::vector<Load> loads;
  std::vector<ObjectStore::ByteRange> ranges;
  for (const ChunkWant& want : wanted) {
    Load load{&want, nullptr, {}, {}, 0, std::nullopt};
    ASSIGN_OR_RETURN(load.chunk, SharedChunk(want.rg, want.column));
    if (!load.chunk->cached) continue;  // nowhere to keep them
    RETURN_IF_ERROR(LocatePages(*load.chunk, want.rg, want.column, want.pages));
    const PageIndex& index = *load.chunk->locations;
    {
      std::lock_guard<std::mutex> lock(load.chunk->mu);
      for (size_t k = 0; k < want.pages.size(); ++k) {
        const int p = want.pages[k];
        if (p < 0 || size_t(p) >= index.pages.size() || (k > 0 && p <= want.pages[k - 1])) {
          return Status::InvalidArgument(Where(want.rg, want.column) + ": no page " + std::to_string(p) +
                                         " (or pages out of order)");
        }
        if (!load.chunk->pages[size_t(p)]) load.missing.push_back(k);
      }
    }
    if (load.missing.empty()) continue;
    load.runs = PlanRuns(index, want.pages, load.missing, hint);
    load.first_range = ranges.size();
    for (const PageRun& run : load.runs) ranges.push_back({run.offset, run.length});
    ASSIGN_OR_RETURN(auto head, UncachedDictionaryRange(want.rg, want.column));
    if (head) {
      load.head_range = ranges.size();
      ranges.push_back({head->first, head->second});
    }
    loads.push_back(std::move(load));
  }
  if (loads.empty()) return Status::OK();
  ASSIGN_OR_RETURN(std::vector<std::string> bytes, store_->ReadRanges(path_, ranges));
  for (Load& load : loads) {
    const ChunkWant& want = *load.want;
    std::vector<std::string> run_bytes(std::make_move_iterator(bytes.begin() + std::ptrdiff_t(load.first_range)),
                                       std::make_move_iterator(bytes.begin() + std::ptrdiff_t(load.first_range + load.runs.size())));
    PageSpan span;
    span.pages.resize(want.pages.size());
    RETURN_IF_ERROR(DecodeRuns(load.chunk, want.rg, want.column, want.pages, load.missing, load.runs, run_bytes,
                               load.head_range ? &bytes[*load.head_range] : nullptr, &span));
  }
  return Status::OK();
}

}  // namespace lakeindex::parquet
