#include "format/parquet/column_reader.h"

#include <algorithm>
#include <cstring>

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
    for (size_t i = 0; i < n; ++i) v[i] = v[i] / 1000 - ((v[i] % 1000) < 0 ? 1 : 0);
  }
  return Status::OK();
}

// Appends n rows; def (nullptr = no NULLs) marks which rows take the next value.
template <typename Store, typename ValueAt>
void ScatterFixed(Column* out, const uint32_t* def, size_t n, ValueAt value_at) {
  if (def == nullptr) {
    for (size_t i = 0; i < n; ++i) out->Append<Store>(value_at(i));
    return;
  }
  size_t j = 0;
  for (size_t i = 0; i < n; ++i) {
    if (def[i] != 0) {
      out->Append<Store>(value_at(j++));
    } else {
      out->AppendNull();
    }
  }
}

template <typename ValueAt>
Status ScatterStrings(Column* out, const uint32_t* def, size_t n, ValueAt value_at) {
  size_t j = 0;
  for (size_t i = 0; i < n; ++i) {
    if (def == nullptr || def[i] != 0) {
      RETURN_IF_ERROR(out->AppendString(value_at(j++)));
    } else {
      out->AppendNull();
    }
  }
  return Status::OK();
}

// Appends decoded physical values (P) to the column, converting to its logical type.
template <typename P, typename ValueAt>
Status Scatter(const LeafColumn& leaf, Column* out, const uint32_t* def, size_t n,
               ValueAt value_at) {
  if constexpr (std::is_same_v<P, std::string_view>) {
    return ScatterStrings(out, def, n, value_at);
  } else if constexpr (std::is_same_v<P, int32_t>) {
    if (leaf.conversion == ValueConversion::kUint32ToInt64) {
      ScatterFixed<int64_t>(out, def, n, [&](size_t j) { return int64_t(uint32_t(value_at(j))); });
    } else {
      ScatterFixed<int32_t>(out, def, n, value_at);
    }
    return Status::OK();
  } else {
    ScatterFixed<P>(out, def, n, value_at);
    return Status::OK();
  }
}

template <typename P>
constexpr bool kFixedWidth = std::is_arithmetic_v<P> && !std::is_same_v<P, uint8_t>;

}  // namespace

Status ParsePageHeaderAt(const uint8_t* data, size_t size, size_t pos, uint64_t file_offset,
                         PageHeader* h, size_t* header_size) {
  if (pos >= size) return Status::Corruption(PageContext(file_offset + pos) + ": no page header");
  Status st = thrift::ParseStruct(data + pos, size - pos, h, header_size, file_offset + pos);
  if (!st.ok()) return st.WithContext(PageContext(file_offset + pos) + ": page header");
  return Status::OK();
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
  switch (h.type) {
    case PageType::kDictionaryPage:
      st = LoadDictionary(h, payload, compressed);
      break;
    case PageType::kDataPage:
    case PageType::kDataPageV2:
      st = DecodeDataPage(h, payload, compressed, max_rows, out, rows);
      break;
    default:
      return Status::OK();  // index pages and unknown page types carry no values
  }
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
  RETURN_IF_ERROR(::lakeindex::parquet::Decompress(codec_, data, size, uncompressed_size, &page_buf_));
  *out = reinterpret_cast<const uint8_t*>(page_buf_.data());
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
  dict_buf_.assign(reinterpret_cast<const char*>(bytes), len);
  const uint8_t* b = reinterpret_cast<const uint8_t*>(dict_buf_.data());
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
      dict_i32_.resize(n);
      RETURN_IF_ERROR(dec.GetFixed(dict_i32_.data(), n));
      break;
    case PhysicalType::kInt64:
      RETURN_IF_ERROR(too_many(8));
      dict_i64_.resize(n);
      RETURN_IF_ERROR(dec.GetFixed(dict_i64_.data(), n));
      RETURN_IF_ERROR(ConvertInt64(dict_i64_.data(), n, leaf_.conversion));
      break;
    case PhysicalType::kFloat:
      RETURN_IF_ERROR(too_many(4));
      dict_f32_.resize(n);
      RETURN_IF_ERROR(dec.GetFixed(dict_f32_.data(), n));
      break;
    case PhysicalType::kDouble:
      RETURN_IF_ERROR(too_many(8));
      dict_f64_.resize(n);
      RETURN_IF_ERROR(dec.GetFixed(dict_f64_.data(), n));
      break;
    case PhysicalType::kByteArray:
      RETURN_IF_ERROR(too_many(4));
      dict_strings_.resize(n);
      RETURN_IF_ERROR(dec.GetByteArrays(dict_strings_.data(), n));
      break;
    default:
      return Status::NotSupported("dictionary for BOOLEAN columns");
  }
  has_dictionary_ = true;
  return Status::OK();
}

Status ColumnChunkDecoder::DecodeDataPage(const PageHeader& h, const uint8_t* payload,
                                          size_t size, int64_t max_rows, Column* out,
                                          int64_t* rows) {
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
    const uint8_t* page;
    size_t len = size_t(h.uncompressed_page_size);
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
    if (d.is_compressed && codec_ != Codec::kUncompressed && data_size > 0) {
      RETURN_IF_ERROR(::lakeindex::parquet::Decompress(codec_, data, data_size, raw_size, &page_buf_));
      values = reinterpret_cast<const uint8_t*>(page_buf_.data());
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
  const uint32_t* def_levels = nullptr;
  if (leaf_.nullable && n > 0) {
    def_.resize(n);
    RETURN_IF_ERROR(RleDecoder(levels, levels_size, 1).Get(def_.data(), n).WithContext("definition levels"));
    size_t valid = 0;
    for (size_t i = 0; i < n; ++i) valid += def_[i];
    if (valid != n) def_levels = def_.data();
  }
  Status st;
  switch (leaf_.physical) {
    case PhysicalType::kBoolean: st = DecodeValues<uint8_t>(encoding, values, values_size, n, def_levels, out); break;
    case PhysicalType::kInt32: st = DecodeValues<int32_t>(encoding, values, values_size, n, def_levels, out); break;
    case PhysicalType::kInt64: st = DecodeValues<int64_t>(encoding, values, values_size, n, def_levels, out); break;
    case PhysicalType::kFloat: st = DecodeValues<float>(encoding, values, values_size, n, def_levels, out); break;
    case PhysicalType::kDouble: st = DecodeValues<double>(encoding, values, values_size, n, def_levels, out); break;
    case PhysicalType::kByteArray: st = DecodeValues<std::string_view>(encoding, values, values_size, n, def_levels, out); break;
    default: st = Status::NotSupported("physical type");
  }
  RETURN_IF_ERROR(st);
  *rows = num_values;
  return Status::OK();
}

template <typename P>
Status ColumnChunkDecoder::DecodeValues(Encoding encoding, const uint8_t* data, size_t size,
                                        size_t num_values, const uint32_t* def, Column* out) {
  size_t k = num_values;  // non-NULL values
  if (def != nullptr) {
    k = 0;
    for (size_t i = 0; i < num_values; ++i) k += def[i];
  }
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
    if constexpr (std::is_same_v<P, int32_t>) dict_size = dict_i32_.size();
    else if constexpr (std::is_same_v<P, int64_t>) dict_size = dict_i64_.size();
    else if constexpr (std::is_same_v<P, float>) dict_size = dict_f32_.size();
    else if constexpr (std::is_same_v<P, double>) dict_size = dict_f64_.size();
    else if constexpr (std::is_same_v<P, std::string_view>) dict_size = dict_strings_.size();
    else return unsupported();
    if (k > 0) {
      if (size < 1) return Status::Corruption("dictionary indices missing");
      int bit_width = data[0];
      if (bit_width > 32) return Status::Corruption("dictionary index bit width " + std::to_string(bit_width));
      indices_.resize(k);
      RETURN_IF_ERROR(RleDecoder(data + 1, size - 1, bit_width).Get(indices_.data(), k));
      for (size_t i = 0; i < k; ++i) {
        if (indices_[i] >= dict_size) {
          return Status::Corruption("dictionary index " + std::to_string(indices_[i]) +
                                    " out of range (dictionary has " + std::to_string(dict_size) + ")");
        }
      }
    }
    const uint32_t* idx = indices_.data();
    if constexpr (std::is_same_v<P, int32_t>) return Scatter<P>(leaf_, out, def, num_values, [&](size_t j) { return dict_i32_[idx[j]]; });
    else if constexpr (std::is_same_v<P, int64_t>) return Scatter<P>(leaf_, out, def, num_values, [&](size_t j) { return dict_i64_[idx[j]]; });
    else if constexpr (std::is_same_v<P, float>) return Scatter<P>(leaf_, out, def, num_values, [&](size_t j) { return dict_f32_[idx[j]]; });
    else if constexpr (std::is_same_v<P, double>) return Scatter<P>(leaf_, out, def, num_values, [&](size_t j) { return dict_f64_[idx[j]]; });
    else if constexpr (std::is_same_v<P, std::string_view>) return Scatter<P>(leaf_, out, def, num_values, [&](size_t j) { return dict_strings_[idx[j]]; });
    else return unsupported();
  }

  if constexpr (std::is_same_v<P, std::string_view>) {
    std::vector<std::string_view> views;
    std::vector<std::string> owned;
    switch (encoding) {
      case Encoding::kPlain: {
        if (k > size / 4) return exceeds();
        views.resize(k);
        RETURN_IF_ERROR(PlainDecoder(data, size).GetByteArrays(views.data(), k));
        break;
      }
      case Encoding::kDeltaLengthByteArray:
        RETURN_IF_ERROR(DeltaLengthByteArrayDecode(data, size, k, &views));
        break;
      case Encoding::kDeltaByteArray:
        RETURN_IF_ERROR(DeltaByteArrayDecode(data, size, k, &owned));
        views.assign(owned.begin(), owned.end());
        break;
      default:
        return unsupported();
    }
    if (views.size() != k) return Status::Corruption("string decoder returned a wrong count");
    return Scatter<P>(leaf_, out, def, num_values, [&](size_t j) { return views[j]; });
  } else if constexpr (std::is_same_v<P, uint8_t>) {
    std::vector<uint8_t> vals(0);
    if (encoding == Encoding::kPlain) {
      if ((k + 7) / 8 > size) return exceeds();
      vals.resize(k);
      RETURN_IF_ERROR(PlainDecoder(data, size).GetBools(vals.data(), k));
    } else if (encoding == Encoding::kRle) {
      if (k > 0) {
        if (size < 4) return Status::Corruption("RLE booleans lack their length");
        uint32_t len;
        std::memcpy(&len, data, 4);
        if (len > size - 4) return Status::Corruption("RLE booleans run past the page");
        indices_.resize(k);
        RETURN_IF_ERROR(RleDecoder(data + 4, len, 1).Get(indices_.data(), k));
        vals.assign(indices_.begin(), indices_.begin() + k);
      }
    } else {
      return unsupported();
    }
    return Scatter<P>(leaf_, out, def, num_values, [&](size_t j) { return vals[j]; });
  } else {
    std::vector<P> vals;
    switch (encoding) {
      case Encoding::kPlain:
        if (k > size / sizeof(P)) return exceeds();
        vals.resize(k);
        RETURN_IF_ERROR(PlainDecoder(data, size).GetFixed(vals.data(), k));
        break;
      case Encoding::kByteStreamSplit:
        if (k > size / sizeof(P)) return exceeds();
        vals.resize(k);
        RETURN_IF_ERROR(ByteStreamSplitDecode(data, size, k, sizeof(P), reinterpret_cast<uint8_t*>(vals.data())));
        break;
      case Encoding::kDeltaBinaryPacked:
        if constexpr (std::is_same_v<P, int32_t>) {
          // Decoded in 64-bit arithmetic and truncated: some writers (DuckDB) compute INT32
          // deltas in 64 bits, with miniblock bit widths up to 33; modulo 2^32 the result is
          // the same as 32-bit wrapping arithmetic.
          std::vector<int64_t> wide;
          size_t consumed = 0;
          RETURN_IF_ERROR(DeltaBinaryPackedDecode<int64_t>(data, size, k, &wide, &consumed));
          if (wide.size() != k) return Status::Corruption("delta decoder returned a wrong count");
          vals.resize(k);
          for (size_t i = 0; i < k; ++i) vals[i] = int32_t(uint32_t(uint64_t(wide[i])));
          break;
        } else if constexpr (std::is_integral_v<P>) {
          size_t consumed = 0;
          RETURN_IF_ERROR(DeltaBinaryPackedDecode<P>(data, size, k, &vals, &consumed));
          if (vals.size() != k) return Status::Corruption("delta decoder returned a wrong count");
          break;
        } else {
          return unsupported();
        }
      default:
        return unsupported();
    }
    if constexpr (std::is_same_v<P, int64_t>) RETURN_IF_ERROR(ConvertInt64(vals.data(), k, leaf_.conversion));
    return Scatter<P>(leaf_, out, def, num_values, [&](size_t j) { return vals[j]; });
  }
}

Status DecodeColumnChunk(const uint8_t* data, size_t size, uint64_t file_offset,
                         const LeafColumn& leaf, Codec codec, int64_t total_uncompressed,
                         int64_t num_rows, Column* out) {
  int64_t bound = total_uncompressed > 0 ? std::min(total_uncompressed, kMaxPageBytes) : kMaxPageBytes;
  ColumnChunkDecoder decoder(leaf, codec, bound);
  size_t pos = 0;
  int64_t rows = 0;
  while (rows < num_rows) {
    if (pos >= size) {
      return Status::Corruption(PageContext(file_offset + pos) + ": column chunk ends after " +
                                std::to_string(rows) + " of " + std::to_string(num_rows) + " rows");
    }
    int64_t got = 0;
    RETURN_IF_ERROR(decoder.DecodePage(data, size, &pos, file_offset, num_rows - rows, out, &got));
    rows += got;
  }
  return Status::OK();
}

}  // namespace lakeindex::parquet
