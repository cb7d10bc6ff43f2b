#include "format/parquet/value_reader.h"

#include <algorithm>
#include <cstring>

#include "format/parquet/column_reader.h"
#include "format/parquet/encoding.h"

namespace lakeindex::parquet {

size_t FixedValueWidth(const LeafColumn& leaf) {
  switch (leaf.physical) {
    case PhysicalType::kInt32:
    case PhysicalType::kFloat: return 4;
    case PhysicalType::kInt64:
    case PhysicalType::kDouble: return 8;
    case PhysicalType::kFixedLenByteArray: return leaf.type_length > 0 ? size_t(leaf.type_length) : 0;
    default: return 0;
  }
}

uint64_t ValuePagePrefix(bool nullable, size_t width, const PageIndexEntry& entry) {
  if (width == 0 || entry.num_rows <= 0 || entry.compressed_size <= 0) return 0;
  const uint64_t size = uint64_t(entry.compressed_size), rows = uint64_t(entry.num_rows);
  if (!nullable) {
    if (rows > size / width) return 0;
    const uint64_t header = size - rows * width;
    return header >= 2 && header <= kMaxValuePageHeaderBytes ? header : 0;
  }
  // v1: a 4-byte length, then bit-packed runs of up to 504 levels, each with a header byte or two.
  return std::min(size, kValuePageHeaderBytes + 4 + (rows + 7) / 8 + rows / 64 + 8);
}

namespace {

// The validity bitmap of `rows` levels (bit width 1) in data[0, size) into *page; false when
// they do not decode.
bool DecodeLevels(const uint8_t* data, size_t size, size_t rows, ValuePage* page) {
  std::vector<uint32_t> def(rows);
  if (!RleDecoder(data, size, 1).Get(def.data(), rows).ok()) return false;
  page->valid.assign((rows + 7) / 8, 0);
  page->non_null = 0;
  for (size_t i = 0; i < rows; ++i) {
    page->valid[i >> 3] |= uint8_t(def[i] << (i & 7));
    page->non_null += def[i];
  }
  return true;
}

}  // namespace

std::optional<ValuePage> ParseValuePage(const uint8_t* data, size_t size, const LeafColumn& leaf, Codec codec,
                                        const PageIndexEntry& entry) {
  const size_t width = FixedValueWidth(leaf);
  if (width == 0 || entry.num_rows <= 0 || entry.compressed_size <= 0) return std::nullopt;
  PageHeader h;
  size_t header_size = 0;
  if (!ParsePageHeaderAt(data, size, 0, 0, &h, &header_size).ok()) return std::nullopt;
  const uint64_t rows = uint64_t(entry.num_rows);
  // The header and its payload are the OffsetIndex's page, stored uncompressed.
  if (h.compressed_page_size < 0 || h.compressed_page_size != h.uncompressed_page_size ||
      header_size + uint64_t(h.compressed_page_size) != uint64_t(entry.compressed_size)) {
    return std::nullopt;
  }
  const uint64_t payload = uint64_t(h.compressed_page_size);
  ValuePage page;
  if (h.type == PageType::kDataPage && h.data_page_header) {
    const DataPageHeader& d = *h.data_page_header;
    if (codec != Codec::kUncompressed || d.encoding != Encoding::kPlain || uint64_t(d.num_values) != rows ||
        d.num_values < 0) {
      return std::nullopt;
    }
    if (!leaf.nullable) {
      if (payload != rows * width) return std::nullopt;
      page.values_at = header_size;
      page.non_null = size_t(rows);
      return page;
    }
    if (d.definition_level_encoding != Encoding::kRle || payload < 4 || size - header_size < 4) return std::nullopt;
    uint32_t len;
    std::memcpy(&len, data + header_size, 4);
    if (len > payload - 4 || len > size - header_size - 4) return std::nullopt;
    if (!DecodeLevels(data + header_size + 4, len, size_t(rows), &page)) return std::nullopt;
    if (payload - 4 - len != page.non_null * width) return std::nullopt;
    page.values_at = header_size + 4 + len;
    return page;
  }
  if (h.type == PageType::kDataPageV2 && h.data_page_header_v2) {
    const DataPageHeaderV2& d = *h.data_page_header_v2;
    if ((d.is_compressed && codec != Codec::kUncompressed) || d.encoding != Encoding::kPlain ||
        d.num_values < 0 || d.num_rows < 0 || uint64_t(d.num_values) != rows || uint64_t(d.num_rows) != rows ||
        d.repetition_levels_byte_length != 0 || d.definition_levels_byte_length < 0 ||
        uint64_t(d.definition_levels_byte_length) > payload) {
      return std::nullopt;
    }
    const uint64_t def = uint64_t(d.definition_levels_byte_length);
    if (!leaf.nullable) {
      if (def != 0 || d.num_nulls != 0 || payload != rows * width) return std::nullopt;
      page.values_at = header_size;
      page.non_null = size_t(rows);
      return page;
    }
    if (def > size - header_size) return std::nullopt;
    if (!DecodeLevels(data + header_size, size_t(def), size_t(rows), &page)) return std::nullopt;
    if (uint64_t(d.num_nulls) != rows - page.non_null || payload - def != page.non_null * width) return std::nullopt;
    page.values_at = header_size + def;
    return page;
  }
  return std::nullopt;
}

// ParquetReader's per-value reads (declared in reader.h).

size_t ParquetReader::ValueWidth(int rg, int column) const {
  if (!CheckChunk(rg, column).ok()) return 0;
  const LeafColumn& leaf = leaves_[size_t(column)];
  const ColumnMetaData& m = *meta_.row_groups[size_t(rg)].columns[size_t(column)].meta_data;
  if (m.codec != int32_t(Codec::kUncompressed)) return 0;
  for (Encoding e : m.encodings) {
    if (e == Encoding::kPlainDictionary || e == Encoding::kRleDictionary) return 0;
  }
  // An OPTIONAL column's values are read after its levels: on a remote store that is a second
  // round trip, where a whole page costs one.
  if (leaf.nullable && store_->remote()) return 0;
  return FixedValueWidth(leaf);
}

Status ParquetReader::ReadValues(int rg, int column, const PageIndex& index, const std::vector<ValueWant>& wants,
                                 std::vector<std::optional<Column>>* out) const {
  RETURN_IF_ERROR(CheckChunk(rg, column));
  out->assign(wants.size(), std::nullopt);
  const LeafColumn& leaf = leaves_[size_t(column)];
  const size_t width = FixedValueWidth(leaf);
  const ColumnMetaData& m = *meta_.row_groups[size_t(rg)].columns[size_t(column)].meta_data;
  const Codec codec = Codec(uint8_t(m.codec));
  if (width == 0 || m.codec < 0 || m.codec > 7) return Status::OK();
  const std::string where = Where(rg, column);

  // Per want: its page, its first read (the prefix) and, for a REQUIRED column, the reads of its
  // values, planned from the header length the OffsetIndex implies and sent with the prefix.
  struct Plan {
    const PageIndexEntry* entry = nullptr;
    uint64_t prefix = 0;
    size_t prefix_range = 0;
    std::vector<std::pair<uint64_t, uint64_t>> runs;  // [first value, end) of consecutive values
    size_t first_value_range = 0;
    std::optional<ValuePage> page;
  };
  std::vector<Plan> plans(wants.size());
  std::vector<ObjectStore::ByteRange> ranges;
  // Runs of consecutive values for the rows of want k (the non-NULL ones, by value number).
  auto value_runs = [&](size_t k, const ValuePage* page) {
    std::vector<std::pair<uint64_t, uint64_t>> runs;
    size_t row = 0, before = 0;  // non-NULL rows before `row`
    for (uint32_t r : wants[k].rows) {
      if (page != nullptr) {
        for (; row < r; ++row) before += (page->valid[row >> 3] >> (row & 7)) & 1;
        if (!((page->valid[r >> 3] >> (r & 7)) & 1)) continue;
      }
      const uint64_t v = page != nullptr ? before : r;
      if (!runs.empty() && runs.back().second == v) {
        ++runs.back().second;
      } else {
        runs.emplace_back(v, v + 1);
      }
    }
    return runs;
  };
  // Appends the reads of plan's runs to *to.
  auto add_runs = [&](Plan& plan, uint64_t values_at, std::vector<ObjectStore::ByteRange>* to) {
    plan.first_value_range = to->size();
    for (const auto& [b, e] : plan.runs) {
      to->push_back({uint64_t(plan.entry->offset) + values_at + b * width, (e - b) * width});
    }
  };
  for (size_t k = 0; k < wants.size(); ++k) {
    const int p = wants[k].page;
    if (p < 0 || size_t(p) >= index.pages.size()) {
      return Status::InvalidArgument(where + ": no page " + std::to_string(p));
    }
    Plan& plan = plans[k];
    plan.entry = &index.pages[size_t(p)];
    for (size_t i = 0; i < wants[k].rows.size(); ++i) {
      if (int64_t(wants[k].rows[i]) >= plan.entry->num_rows || (i > 0 && wants[k].rows[i] <= wants[k].rows[i - 1])) {
        return Status::InvalidArgument(where + ": page " + std::to_string(p) + " has no row " +
                                       std::to_string(wants[k].rows[i]) + " (or rows out of order)");
      }
    }
    plan.prefix = ValuePagePrefix(leaf.nullable, width, *plan.entry);
    if (plan.prefix == 0 || wants[k].rows.empty()) continue;
    plan.prefix_range = ranges.size();
    ranges.push_back({uint64_t(plan.entry->offset), plan.prefix});
    if (!leaf.nullable) {
      plan.runs = value_runs(k, nullptr);
      add_runs(plan, plan.prefix, &ranges);
    }
  }
  if (ranges.empty()) return Status::OK();
  ASSIGN_OR_RETURN(std::vector<std::string> bytes, store_->ReadRanges(path_, ranges));
  auto check_read = [&](const std::string& got, const ObjectStore::ByteRange& range) -> Status {
    if (got.size() != range.length) {
      return Status::Corruption(where + ": short read at offset " + std::to_string(range.offset));
    }
    return Status::OK();
  };
  // OPTIONAL: the values are read once the levels say where they are.
  std::vector<ObjectStore::ByteRange> second;
  for (size_t k = 0; k < wants.size(); ++k) {
    Plan& plan = plans[k];
    if (plan.prefix == 0 || wants[k].rows.empty()) continue;
    RETURN_IF_ERROR(check_read(bytes[plan.prefix_range], ranges[plan.prefix_range]));
    const std::string& head = bytes[plan.prefix_range];
    plan.page = ParseValuePage(reinterpret_cast<const uint8_t*>(head.data()), head.size(), leaf, codec, *plan.entry);
    if (!plan.page) continue;
    if (leaf.nullable) {
      plan.runs = value_runs(k, &*plan.page);
      add_runs(plan, plan.page->values_at, &second);
    } else if (plan.page->values_at != plan.prefix) {
      plan.page.reset();  // cannot be, as the sizes add up; the whole page then says why
    }
  }
  std::vector<std::string> second_bytes;
  if (!second.empty()) {
    ASSIGN_OR_RETURN(second_bytes, store_->ReadRanges(path_, second));
  }
  const std::vector<std::string>& value_bytes = leaf.nullable ? second_bytes : bytes;
  const std::vector<ObjectStore::ByteRange>& value_ranges = leaf.nullable ? second : ranges;

  int64_t bound = m.total_uncompressed_size > 0 ? std::min(m.total_uncompressed_size, kMaxPageBytes) : kMaxPageBytes;
  ColumnChunkDecoder decoder(leaf, codec, bound);
  std::string values;
  std::vector<uint8_t> valid;
  for (size_t k = 0; k < wants.size(); ++k) {
    Plan& plan = plans[k];
    if (!plan.page) continue;
    values.clear();
    for (size_t i = 0; i < plan.runs.size(); ++i) {
      RETURN_IF_ERROR(check_read(value_bytes[plan.first_value_range + i], value_ranges[plan.first_value_range + i]));
      values += value_bytes[plan.first_value_range + i];
    }
    const size_t n = wants[k].rows.size(), non_null = values.size() / width;
    const uint8_t* bits = nullptr;
    if (non_null != n) {
      valid.assign((n + 7) / 8, 0);
      for (size_t i = 0; i < n; ++i) {
        const uint32_t r = wants[k].rows[i];
        valid[i >> 3] |= uint8_t(((plan.page->valid[r >> 3] >> (r & 7)) & 1) << (i & 7));
      }
      bits = valid.data();
    }
    Column col(leaf.type);
    Status st = decoder.DecodePlainValues(reinterpret_cast<const uint8_t*>(values.data()), values.size(), n, bits,
                                          non_null, &col);
    if (!st.ok()) return st.WithContext("page at offset " + std::to_string(plan.entry->offset)).WithContext(where);
    (*out)[k] = std::move(col);
  }
  return Status::OK();
}

}  // namespace lakeindex::parquet
