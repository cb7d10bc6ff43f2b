#include "format/parquet/column_reader.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "format/parquet/crc32.h"
#include "format/parquet/encoding.h"

namespace lakeindex::parquet {

namespace {

std::string PageContext(uint64_t offset) { return "page at offset " + std::to_string(offset); }

// Applies a timestamp unit conversion in place.
Status ConvertInt64(int64_t* v, size_t n, ValueConversion conversion) {
  if (conversion == ValueConversion::kMillisToMicros) {
    for (size_t i = 0; i < n; ++i) {
      if (__builtin_mul_overflow(v[i], int64_t(1000), &v[i])) {
        return Status::Corruption("timestamp in milliseconds overflows microseconds");
      }
    }
  } else if (conversion == ValueConversion::kNanosToMicros) {
    // Microseconds hold what a nanosecond timestamp says only when it is whole microseconds: a
    // finer value is refused, never cut.
    for (size_t i = 0; i < n; ++i) {
      if (v[i] % 1000 != 0) {
        return Status::NotSupported("nanosecond timestamp " + FormatTimestamp(v[i] / 1000 - (v[i] < 0 ? 1 : 0)) +
                                    " and " + std::to_string(((v[i] % 1000) + 1000) % 1000) +
                                    " ns has a part finer than the microseconds lakeindex keeps; cast the column to "
                                    "microseconds first (DuckDB: ::TIMESTAMP)");
      }
      v[i] /= 1000;
    }
  }
  return Status::OK();
}

inline bool BitAt(const uint8_t* bits, size_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }

// Appends n rows in one bulk append; `valid` (LSB-first bitmap, nullptr = no NULLs) marks which
// rows take the next value; NULL rows keep their zeroed slot.
template <typename Store, typename ValueAt>
void ScatterFixed(Column* out, const uint8_t* valid, size_t n, ValueAt value_at) {
  Store* dst = out->AppendValues<Store>(n, valid);
  if (valid == nullptr) {
    for (size_t i = 0; i < n; ++i) dst[i] = Store(value_at(i));
    return;
  }
  size_t j = 0;
  for (size_t i = 0; i < n; ++i) {
    if (BitAt(valid, i)) dst[i] = Store(value_at(j++));
  }
}

// Appends decoded fixed-width physical values (P) to the column, converting to its logical type.
template <typename P, typename ValueAt>
void Scatter(const LeafColumn& leaf, Column* out, const uint8_t* valid, size_t n,
             ValueAt value_at) {
  if constexpr (std::is_same_v<P, int32_t>) {
    if (leaf.conversion == ValueConversion::kUint32ToInt64) {
      ScatterFixed<int64_t>(out, valid, n, [&](size_t j) { return int64_t(uint32_t(value_at(j))); });
      return;
    }
    if (leaf.conversion == ValueConversion::kInt32ToInt64) {
      ScatterFixed<int64_t>(out, valid, n, [&](size_t j) { return int64_t(value_at(j)); });
      return;
    }
  }
  ScatterFixed<P>(out, valid, n, value_at);
}

// Definition levels (0 or 1) to an LSB-first validity bitmap of (n + 7) / 8 bytes; returns the
// number of valid rows.
size_t PackLevels(const uint32_t* def, size_t n, uint8_t* bits) {
  size_t valid = 0, i = 0;
  for (; i + 8 <= n; i += 8) {
    uint32_t b = def[i] | def[i + 1] << 1 | def[i + 2] << 2 | def[i + 3] << 3 | def[i + 4] << 4 |
                 def[i + 5] << 5 | def[i + 6] << 6 | def[i + 7] << 7;
    bits[i >> 3] = uint8_t(b);
    valid += size_t(__builtin_popcount(b));
  }
  if (i < n) {
    uint32_t b = 0;
    for (size_t k = 0; i + k < n; ++k) b |= def[i + k] << k;
    bits[i >> 3] = uint8_t(b);
    valid += size_t(__builtin_popcount(b));
  }
  return valid;
}

}  // namespace

Status ParsePageHeaderAt(const uint8_t* data, size_t size, size_t pos, uint64_t file_offset,
                         PageHeader* h, size_t* header_size) {
  if (pos >= size) return Status::Corruption(PageContext(file_offset + pos) + ": no page header");
  Status st = thrift::ParseStruct(data + pos, size - pos, h, header_size, file_offset + pos);
  if (!st.ok()) return st.WithContext(PageContext(file_offset + pos) + ": page header");
  return Status::OK();
}

struct ColumnChunkDecoder::PageBuffers {
  template <typename T>
  using Vec = std::vector<T, internal::DefaultInitAllocator<T>>;  // resize() does not zero
  Vec<uint8_t> page;  // decompressed page
  Vec<uint32_t> def, indices;
  Vec<uint8_t> valid_bits, values;
  std::vector<std::string_view> views;

  // Keeps the memory of ordinary pages, but not that of one huge page for the thread's life.
  void ReleaseIfHuge() {
    constexpr size_t kKeep = size_t(64) << 20;
    if (page.capacity() > kKeep) Vec<uint8_t>().swap(page);
    if (values.capacity() > kKeep) Vec<uint8_t>().swap(values);
    if (def.capacity() * 4 > kKeep) Vec<uint32_t>().swap(def);
    if (indices.capacity() * 4 > kKeep) Vec<uint32_t>().swap(indices);
    if (views.capacity() * sizeof(std::string_view) > kKeep) std::vector<std::string_view>().swap(views);
  }
};

ColumnChunkDecoder::PageBuffers& ColumnChunkDecoder::ThreadPageBuffers() {
  thread_local PageBuffers buffers;
  return buffers;
}

ColumnChunkDecoder::ColumnChunkDecoder(const LeafColumn& leaf, Codec codec,
                                       int64_t max_uncompressed)
    : leaf_(leaf), codec_(codec), max_uncompressed_(max_uncompressed) {}

Status ColumnChunkDecoder::DecodePage(const uint8_t* data, size_t size, size_t* pos,
                                      uint64_t file_offset, int64_t max_rows, Column* out,
                                      int64_t* rows) {
  *rows = 0;
  const uint64_t page_offset = file_offset + *pos;
  PageHeader h;
  size_t header_size = 0;
  RETURN_IF_ERROR(ParsePageHeaderAt(data, size, *pos, file_offset, &h, &header_size));
  auto corrupt = [&](const std::string& m) {
    return Status::Corruption(PageContext(page_offset) + ": " + m);
  };
  size_t payload_at = *pos + header_size;
  size_t compressed = size_t(h.compressed_page_size);
  if (compressed > size - payload_at) {
    return corrupt("compressed_page_size " + std::to_string(compressed) +
                   " runs past the end of the column chunk");
  }
  if (h.uncompressed_page_size > max_uncompressed_) {
    return corrupt("uncompressed_page_size " + std::to_string(h.uncompressed_page_size) +
                   " exceeds the bound " + std::to_string(max_uncompressed_));
  }
  const uint8_t* payload = data + payload_at;
  if (h.crc) {
    uint32_t crc = Crc32(payload, compressed);
    if (crc != uint32_t(*h.crc)) {
      return corrupt("page CRC mismatch (stored " + std::to_string(uint32_t(*h.crc)) +
                     ", computed " + std::to_string(crc) + ")");
    }
  }
  *pos = payload_at + compressed;
  Status st;
  buf_ = &ThreadPageBuffers();  // used only until this call returns (no page decodes another)
  switch (h.type) {
    case PageType::kDictionaryPage:
      st = LoadDictionary(h, payload, compressed);
      break;
    case PageType::kDataPage:
    case PageType::kDataPageV2:
      st = DecodeDataPage(h, payload, compressed, max_rows, out, rows);
      break;
    default:
      break;  // index pages and unknown page types carry no values
  }
  buf_->ReleaseIfHuge();
  buf_ = nullptr;
  if (!st.ok()) return st.WithContext(PageContext(page_offset));
  return Status::OK();
}

Status ColumnChunkDecoder::Inflate(const uint8_t* data, size_t size, size_t uncompressed_size,
                                   const uint8_t** out) {
  if (codec_ == Codec::kUncompressed) {
    if (size != uncompressed_size) {
      return Status::Corruption("uncompressed page of " + std::to_string(size) +
                                " bytes declares uncompressed_page_size " +
                                std::to_string(uncompressed_size));
    }
    *out = data;
    return Status::OK();
  }
  buf_->page.resize(uncompressed_size);  // bounded by the caller (max_uncompressed_)
  RETURN_IF_ERROR(DecompressInto(codec_, data, size, buf_->page.data(), uncompressed_size));
  *out = buf_->page.data();
  return Status::OK();
}

Status ColumnChunkDecoder::LoadDictionary(const PageHeader& h, const uint8_t* payload,
                                          size_t size) {
  if (has_dictionary_) return Status::Corruption("second dictionary page in a column chunk");
  if (!h.dictionary_page_header) return Status::Corruption("dictionary page without its header");
  const DictionaryPageHeader& d = *h.dictionary_page_header;
  if (d.encoding != Encoding::kPlain && d.encoding != Encoding::kPlainDictionary) {
    return Status::NotSupported(std::string("dictionary page encoding ") + EncodingName(d.encoding));
  }
  if (d.num_values < 0) return Status::Corruption("negative dictionary size");
  const uint8_t* bytes;
  size_t len = size_t(h.uncompressed_page_size);
  RETURN_IF_ERROR(Inflate(payload, size, len, &bytes));
  auto dict = std::make_shared<PageDictionary>();
  dict->buf.assign(reinterpret_cast<const char*>(bytes), len);
  const uint8_t* b = reinterpret_cast<const uint8_t*>(dict->buf.data());
  PlainDecoder dec(b, len);
  size_t n = size_t(d.num_values);
  auto too_many = [&](size_t width) -> Status {
    if (n > len / width) {
      return Status::Corruption("dictionary of " + std::to_string(n) + " values exceeds its " +
                                std::to_string(len) + "-byte page");
    }
    return Status::OK();
  };
  switch (leaf_.physical) {
    case PhysicalType::kInt32:
      RETURN_IF_ERROR(too_many(4));
      dict->i32.resize(n);
      RETURN_IF_ERROR(dec.GetFixed(dict->i32.data(), n));
      break;
    case PhysicalType::kInt64:
      RETURN_IF_ERROR(too_many(8));
      dict->i64.resize(n);
      RETURN_IF_ERROR(dec.GetFixed(dict->i64.data(), n));
      RETURN_IF_ERROR(ConvertInt64(dict->i64.data(), n, leaf_.conversion));
      break;
    case PhysicalType::kFloat:
      RETURN_IF_ERROR(too_many(4));
      dict->f32.resize(n);
      RETURN_IF_ERROR(dec.GetFixed(dict->f32.data(), n));
      break;
    case PhysicalType::kDouble:
      RETURN_IF_ERROR(too_many(8));
      dict->f64.resize(n);
      RETURN_IF_ERROR(dec.GetFixed(dict->f64.data(), n));
      break;
    case PhysicalType::kByteArray:
      RETURN_IF_ERROR(too_many(4));
      dict->strings.resize(n);
      RETURN_IF_ERROR(dec.GetByteArrays(dict->strings.data(), n));
      break;
    case PhysicalType::kFixedLenByteArray:
      RETURN_IF_ERROR(too_many(size_t(leaf_.type_length)));
      dict->strings.resize(n);
      for (size_t i = 0; i < size_t(n); ++i) RETURN_IF_ERROR(dec.GetFixedLenByteArray(size_t(leaf_.type_length), &dict->strings[i]));
      break;
    default:
      return Status::NotSupported("dictionary for BOOLEAN columns");
  }
  dict_ = std::move(dict);
  has_dictionary_ = true;
  return Status::OK();
}

Status ColumnChunkDecoder::DecodeDataPage(const PageHeader& h, const uint8_t* payload,
                                          size_t size, int64_t max_rows, Column* out,
                                          int64_t* rows) {
  const size_t first_row = out->length();
  int64_t num_values;
  Encoding encoding;
  const uint8_t* values;
  size_t values_size;
  const uint8_t* levels = nullptr;
  size_t levels_size = 0;
  if (h.type == PageType::kDataPage) {
    if (!h.data_page_header) return Status::Corruption("data page without its header");
    const DataPageHeader& d = *h.data_page_header;
    num_values = d.num_values;
    encoding = d.encoding;
    if (num_values < 0 || num_values > max_rows) {
      return Status::Corruption("page has " + std::to_string(num_values) + " values but " +
                                std::to_string(max_rows) + " rows are left in the chunk");
    }
    size_t len = size_t(h.uncompressed_page_size);
    bool done = false;
    if (!leaf_.nullable) {  // then the page is only values
      RETURN_IF_ERROR(DecompressPlainInto(encoding, payload, size, len, size_t(num_values), out, &done));
    }
    if (done) {
      *rows = num_values;
      return Status::OK();
    }
    const uint8_t* page;
    RETURN_IF_ERROR(Inflate(payload, size, len, &page));
    size_t pos = 0;
    if (leaf_.nullable) {
      if (d.definition_level_encoding != Encoding::kRle) {
        return Status::NotSupported(std::string("definition levels in ") +
                                    EncodingName(d.definition_level_encoding));
      }
      if (len < 4) return Status::Corruption("definition levels truncated");
      uint32_t n;
      std::memcpy(&n, page, 4);
      if (n > len - 4) return Status::Corruption("definition levels run past the page");
      levels = page + 4;
      levels_size = n;
      pos = 4 + size_t(n);
    }
    values = page + pos;
    values_size = len - pos;
  } else {
    if (!h.data_page_header_v2) return Status::Corruption("data page v2 without its header");
    const DataPageHeaderV2& d = *h.data_page_header_v2;
    num_values = d.num_values;
    encoding = d.encoding;
    if (num_values < 0 || num_values > max_rows) {
      return Status::Corruption("page has " + std::to_string(num_values) + " values but " +
                                std::to_string(max_rows) + " rows are left in the chunk");
    }
    int64_t rep = d.repetition_levels_byte_length, def = d.definition_levels_byte_length;
    if (rep < 0 || def < 0 || rep + def > int64_t(size) ||
        rep + def > int64_t(h.uncompressed_page_size)) {
      return Status::Corruption("level lengths exceed the page");
    }
    levels = payload + rep;  // repetition levels (none for flat columns) come first
    levels_size = size_t(def);
    const uint8_t* data = payload + rep + def;
    size_t data_size = size - size_t(rep + def);
    size_t raw_size = size_t(h.uncompressed_page_size - rep - def);
    if (!leaf_.nullable && rep == 0 && def == 0 && d.is_compressed) {
      bool done = false;
      RETURN_IF_ERROR(DecompressPlainInto(encoding, data, data_size, raw_size, size_t(num_values), out, &done));
      if (done) {
        *rows = num_values;
        return CheckDecimals(*out, first_row);
      }
    }
    if (d.is_compressed && codec_ != Codec::kUncompressed && data_size > 0) {
      buf_->page.resize(raw_size);
      RETURN_IF_ERROR(DecompressInto(codec_, data, data_size, buf_->page.data(), raw_size));
      values = buf_->page.data();
      values_size = raw_size;
    } else {
      if (data_size != raw_size) {
        return Status::Corruption("uncompressed data of " + std::to_string(data_size) +
                                  " bytes, header says " + std::to_string(raw_size));
      }
      values = data;
      values_size = data_size;
    }
  }

  size_t n = size_t(num_values);
  const uint8_t* valid = nullptr;  // validity bitmap of the page's rows; nullptr = no NULLs
  size_t k = n;                    // non-NULL values
  if (leaf_.nullable && n > 0) {
    buf_->def.resize(n);
    RETURN_IF_ERROR(RleDecoder(levels, levels_size, 1).Get(buf_->def.data(), n).WithContext("definition levels"));
    buf_->valid_bits.resize((n + 7) / 8);
    k = PackLevels(buf_->def.data(), n, buf_->valid_bits.data());
    if (k != n) valid = buf_->valid_bits.data();
  }
  RETURN_IF_ERROR(DecodeAny(encoding, values, values_size, n, valid, k, out));
  *rows = num_values;
  return CheckDecimals(*out, first_row);
}

Status ColumnChunkDecoder::DecodeAny(Encoding encoding, const uint8_t* values, size_t values_size, size_t n,
                                     const uint8_t* valid, size_t k, Column* out) {
  switch (leaf_.physical) {
    case PhysicalType::kBoolean: return DecodeValues<uint8_t>(encoding, values, values_size, n, valid, k, out);
    case PhysicalType::kInt32: return DecodeValues<int32_t>(encoding, values, values_size, n, valid, k, out);
    case PhysicalType::kInt64: return DecodeValues<int64_t>(encoding, values, values_size, n, valid, k, out);
    case PhysicalType::kFloat: return DecodeValues<float>(encoding, values, values_size, n, valid, k, out);
    case PhysicalType::kDouble: return DecodeValues<double>(encoding, values, values_size, n, valid, k, out);
    case PhysicalType::kByteArray:
    case PhysicalType::kFixedLenByteArray: return DecodeValues<std::string_view>(encoding, values, values_size, n, valid, k, out);
    default: return Status::NotSupported("physical type");
  }
}

Status ColumnChunkDecoder::DecodePlainValues(const uint8_t* values, size_t size, size_t num_rows, const uint8_t* valid,
                                             size_t k, Column* out) {
  const size_t first_row = out->length();
  buf_ = &ThreadPageBuffers();
  Status st = DecodeAny(Encoding::kPlain, values, size, num_rows, valid, k, out);
  if (st.ok()) st = CheckDecimals(*out, first_row);
  buf_->ReleaseIfHuge();
  buf_ = nullptr;
  return st;
}

Status ColumnChunkDecoder::CheckDecimals(const Column& out, size_t first_row) const {
  if (!IsDecimal(leaf_.type) || leaf_.conversion == ValueConversion::kBigEndianToInt64) return Status::OK();
  const int64_t* v = out.data<int64_t>();
  const int64_t limit = Pow10(DecimalPrecision(leaf_.type));  // FitsDecimal's bound, hoisted out of the loop
  bool in_range = true;
  for (size_t i = first_row; i < out.length(); ++i) in_range &= v[i] < limit && v[i] > -limit;
  return in_range ? Status::OK() : Status::Corruption("a value beyond the precision of " + std::string(TypeName(leaf_.type)));
}

Status ColumnChunkDecoder::DecompressPlainInto(Encoding encoding, const uint8_t* data, size_t size,
                                               size_t raw_size, size_t n, Column* out, bool* done) {
  *done = false;
  if (encoding != Encoding::kPlain || codec_ == Codec::kUncompressed || n == 0) return Status::OK();
  uint8_t* dst;
  switch (leaf_.physical) {
    case PhysicalType::kInt32:
      if (leaf_.conversion != ValueConversion::kNone || raw_size != n * 4) return Status::OK();
      dst = reinterpret_cast<uint8_t*>(out->AppendValues<int32_t>(n));
      break;
    case PhysicalType::kFloat:
      if (raw_size != n * 4) return Status::OK();
      dst = reinterpret_cast<uint8_t*>(out->AppendValues<float>(n));
      break;
    case PhysicalType::kInt64:
    case PhysicalType::kDouble:
      if (raw_size != n * 8) return Status::OK();
      dst = reinterpret_cast<uint8_t*>(out->AppendValues<int64_t>(n));
      break;
    default:
      return Status::OK();
  }
  // On an error *out keeps the n rows (see DecodePage).
  RETURN_IF_ERROR(DecompressInto(codec_, data, size, dst, raw_size));
  if (leaf_.physical == PhysicalType::kInt64 && leaf_.conversion != ValueConversion::kNone) {
    RETURN_IF_ERROR(ConvertInt64(reinterpret_cast<int64_t*>(dst), n, leaf_.conversion));
  }
  *done = true;
  return Status::OK();
}

Status ColumnChunkDecoder::AppendByteValues(Column* out, size_t num_values, const uint8_t* valid) {
  if (leaf_.conversion != ValueConversion::kBigEndianToInt64) {
    return out->AppendStrings(buf_->views.data(), num_values, valid);
  }
  // Decimals held as bytes: every value is checked before the rows are appended.
  int64_t* values = Scratch<int64_t>(buf_->views.size());
  for (size_t j = 0; j < buf_->views.size(); ++j) {
    ASSIGN_OR_RETURN(values[j], BigEndianDecimal(buf_->views[j], leaf_.type));
  }
  ScatterFixed<int64_t>(out, valid, num_values, [&](size_t j) { return values[j]; });
  return Status::OK();
}

template <typename P>
P* ColumnChunkDecoder::Scratch(size_t k) {
  buf_->values.resize(k * sizeof(P));
  return reinterpret_cast<P*>(buf_->values.data());
}

template <typename P>
Status ColumnChunkDecoder::DecodeValues(Encoding encoding, const uint8_t* data, size_t size,
                                        size_t num_values, const uint8_t* valid, size_t k,
                                        Column* out) {
  auto unsupported = [&]() {
    return Status::NotSupported(std::string("encoding ") + EncodingName(encoding) + " for this column type");
  };
  auto exceeds = [&]() {
    return Status::Corruption(std::to_string(k) + " " + EncodingName(encoding) + " values exceed the " +
                              std::to_string(size) + "-byte page");
  };

  if (encoding == Encoding::kRleDictionary || encoding == Encoding::kPlainDictionary) {
    if (!has_dictionary_) return Status::Corruption("dictionary-encoded page without a dictionary page");
    size_t dict_size;
    if constexpr (std::is_same_v<P, int32_t>) dict_size = dict_->i32.size();
    else if constexpr (std::is_same_v<P, int64_t>) dict_size = dict_->i64.size();
    else if constexpr (std::is_same_v<P, float>) dict_size = dict_->f32.size();
    else if constexpr (std::is_same_v<P, double>) dict_size = dict_->f64.size();
    else if constexpr (std::is_same_v<P, std::string_view>) dict_size = dict_->strings.size();
    else return unsupported();
    if (k > 0) {
      if (size < 1) return Status::Corruption("dictionary indices missing");
      int bit_width = data[0];
      if (bit_width > 32) return Status::Corruption("dictionary index bit width " + std::to_string(bit_width));
      buf_->indices.resize(k);
      RETURN_IF_ERROR(RleDecoder(data + 1, size - 1, bit_width).Get(buf_->indices.data(), k));
      uint32_t max_index = 0;
      for (size_t i = 0; i < k; ++i) max_index = std::max(max_index, buf_->indices[i]);
      if (max_index >= dict_size) {
        return Status::Corruption("dictionary index " + std::to_string(max_index) +
                                  " out of range (dictionary has " + std::to_string(dict_size) + ")");
      }
    }
    const uint32_t* idx = buf_->indices.data();
    if constexpr (std::is_same_v<P, std::string_view>) {
      buf_->views.resize(k);
      for (size_t j = 0; j < k; ++j) buf_->views[j] = dict_->strings[idx[j]];
      return AppendByteValues(out, num_values, valid);
    } else {
      if constexpr (std::is_same_v<P, int32_t>) Scatter<P>(leaf_, out, valid, num_values, [&](size_t j) { return dict_->i32[idx[j]]; });
      else if constexpr (std::is_same_v<P, int64_t>) Scatter<P>(leaf_, out, valid, num_values, [&](size_t j) { return dict_->i64[idx[j]]; });
      else if constexpr (std::is_same_v<P, float>) Scatter<P>(leaf_, out, valid, num_values, [&](size_t j) { return dict_->f32[idx[j]]; });
      else if constexpr (std::is_same_v<P, double>) Scatter<P>(leaf_, out, valid, num_values, [&](size_t j) { return dict_->f64[idx[j]]; });
      else return unsupported();
      return Status::OK();
    }
  }

  if constexpr (std::is_same_v<P, std::string_view>) {
    std::vector<std::string> owned;
    switch (encoding) {
      case Encoding::kPlain: {
        if (leaf_.physical == PhysicalType::kFixedLenByteArray) {
          const size_t width = size_t(leaf_.type_length);
          if (k > size / width) return exceeds();
          buf_->views.resize(k);
          PlainDecoder dec(data, size);
          for (size_t j = 0; j < k; ++j) RETURN_IF_ERROR(dec.GetFixedLenByteArray(width, &buf_->views[j]));
          break;
        }
        if (k > size / 4) return exceeds();
        buf_->views.resize(k);
        RETURN_IF_ERROR(PlainDecoder(data, size).GetByteArrays(buf_->views.data(), k));
        break;
      }
      case Encoding::kDeltaLengthByteArray:
        buf_->views.clear();
        RETURN_IF_ERROR(DeltaLengthByteArrayDecode(data, size, k, &buf_->views));
        break;
      case Encoding::kDeltaByteArray:
        RETURN_IF_ERROR(DeltaByteArrayDecode(data, size, k, &owned));
        buf_->views.assign(owned.begin(), owned.end());
        break;
      default:
        return unsupported();
    }
    if (buf_->views.size() != k) return Status::Corruption("string decoder returned a wrong count");
    if (leaf_.physical == PhysicalType::kFixedLenByteArray) {
      for (std::string_view v : buf_->views) {
        if (v.size() != size_t(leaf_.type_length)) {
          return Status::Corruption("a FIXED_LEN_BYTE_ARRAY(" + std::to_string(leaf_.type_length) + ") value of " +
                                    std::to_string(v.size()) + " bytes");
        }
      }
    }
    return AppendByteValues(out, num_values, valid);
  } else if constexpr (std::is_same_v<P, uint8_t>) {
    uint8_t* vals = nullptr;
    if (encoding == Encoding::kPlain) {
      if ((k + 7) / 8 > size) return exceeds();
      vals = Scratch<uint8_t>(k);
      RETURN_IF_ERROR(PlainDecoder(data, size).GetBools(vals, k));
    } else if (encoding == Encoding::kRle) {
      if (k > 0) {
        if (size < 4) return Status::Corruption("RLE booleans lack their length");
        uint32_t len;
        std::memcpy(&len, data, 4);
        if (len > size - 4) return Status::Corruption("RLE booleans run past the page");
        buf_->indices.resize(k);
        RETURN_IF_ERROR(RleDecoder(data + 4, len, 1).Get(buf_->indices.data(), k));
        vals = Scratch<uint8_t>(k);
        for (size_t i = 0; i < k; ++i) vals[i] = uint8_t(buf_->indices[i]);
      }
    } else {
      return unsupported();
    }
    Scatter<P>(leaf_, out, valid, num_values, [&](size_t j) { return vals[j]; });
    return Status::OK();
  } else {
    // Without NULLs or a widening conversion the values are decoded straight into the column.
    bool widen = false;
    if constexpr (std::is_same_v<P, int32_t>) widen = leaf_.conversion != ValueConversion::kNone;
    const bool direct = valid == nullptr && !widen;
    switch (encoding) {
      case Encoding::kPlain:
      case Encoding::kByteStreamSplit:
      case Encoding::kDeltaBinaryPacked:
        break;
      default:
        return unsupported();
    }
    if (encoding != Encoding::kDeltaBinaryPacked && k > size / sizeof(P)) return exceeds();
    if constexpr (!std::is_integral_v<P>) {
      if (encoding == Encoding::kDeltaBinaryPacked) return unsupported();
    }
    // DELTA_BINARY_PACKED is decoded before any room is made, so a hostile value count cannot
    // make us allocate more than the decoder accepted.
    std::vector<int64_t> wide;
    if (encoding == Encoding::kDeltaBinaryPacked) {
      if constexpr (std::is_integral_v<P>) {
        // INT32 too is decoded in 64-bit arithmetic and truncated: some writers (DuckDB)
        // compute INT32 deltas in 64 bits, with miniblock bit widths up to 33; modulo 2^32 the
        // result is the same as 32-bit wrapping arithmetic.
        size_t consumed = 0;
        RETURN_IF_ERROR(DeltaBinaryPackedDecode<int64_t>(data, size, k, &wide, &consumed));
        if (wide.size() != k) return Status::Corruption("delta decoder returned a wrong count");
      }
    }
    // On a decoding error below, *out may keep the rows appended here (see the header).
    P* vals = direct ? out->AppendValues<P>(k) : Scratch<P>(k);
    switch (encoding) {
      case Encoding::kPlain:
        RETURN_IF_ERROR(PlainDecoder(data, size).GetFixed(vals, k));
        break;
      case Encoding::kByteStreamSplit:
        RETURN_IF_ERROR(ByteStreamSplitDecode(data, size, k, sizeof(P), reinterpret_cast<uint8_t*>(vals)));
        break;
      default:  // kDeltaBinaryPacked (integers only, checked above)
        if constexpr (std::is_integral_v<P>) {
          for (size_t i = 0; i < k; ++i) vals[i] = P(uint64_t(wide[i]));
        }
        break;
    }
    if constexpr (std::is_same_v<P, int64_t>) RETURN_IF_ERROR(ConvertInt64(vals, k, leaf_.conversion));
    if (!direct) Scatter<P>(leaf_, out, valid, num_values, [&](size_t j) { return vals[j]; });
    return Status::OK();
  }
}

Status DecodeColumnChunk(const uint8_t* data, size_t size, uint64_t file_offset,
                         const LeafColumn& leaf, Codec codec, int64_t total_uncompressed,
                         int64_t num_rows, Column* out, size_t* end) {
  int64_t bound = total_uncompressed > 0 ? std::min(total_uncompressed, kMaxPageBytes) : kMaxPageBytes;
  ColumnChunkDecoder decoder(leaf, codec, bound);
  size_t pos = 0;
  int64_t rows = 0;
  bool sized = !IsBytes(leaf.type);  // string chars reserved for the chunk yet?
  const size_t chars_before = sized ? 0 : out->chars().size();
  while (rows < num_rows) {
    if (pos >= size) {
      return Status::Corruption(PageContext(file_offset + pos) + ": column chunk ends after " +
                                std::to_string(rows) + " of " + std::to_string(num_rows) + " rows");
    }
    int64_t got = 0;
    RETURN_IF_ERROR(decoder.DecodePage(data, size, &pos, file_offset, num_rows - rows, out, &got));
    rows += got;
    if (!sized && got > 0) {
      sized = true;
      // Bounded by what the rest of the chunk could plausibly expand to (like
      // DeltaByteArrayDecode's bound), so a hostile row count cannot reserve gigabytes.
      ReserveCharsLike(out, out->chars().size() - chars_before, uint64_t(rows),
                       uint64_t(num_rows - rows), 256 * uint64_t(size - pos) + (uint64_t(1) << 20));
    }
  }
  if (end != nullptr) *end = pos;
  return Status::OK();
}

void ReserveCharsLike(Column* out, uint64_t sample_chars, uint64_t sample_rows, uint64_t rows,
                      uint64_t limit) {
  if (!IsBytes(out->type()) || sample_rows == 0 || sample_chars == 0 || rows == 0) return;
  const uint64_t max_chars = std::numeric_limits<uint32_t>::max();  // a column's own limit
  double estimate = double(sample_chars) / double(sample_rows) * double(rows) * 1.125;
  uint64_t want = uint64_t(std::min(estimate, double(std::min(limit, max_chars))));
  if (want > max_chars - out->chars().size()) return;
  out->ReserveChars(size_t(want));
}

}  // namespace lakeindex::parquet
