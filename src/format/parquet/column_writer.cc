#include "format/parquet/column_writer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include "format/parquet/crc32.h"
#include "format/parquet/dictionary_builder.h"
#include "format/parquet/encoding.h"
#include "format/parquet/schema_mapping.h"

namespace lakeindex::parquet {

namespace {

// A dictionary larger than this (PLAIN-encoded bytes) stops growing: later pages are PLAIN.
constexpr size_t kMaxDictionaryBytes = size_t(1) << 20;
// Whether a dictionary pays is decided on the chunk's first max(page_rows, this) values, so that
// small pages do not decide on a handful of values.
constexpr size_t kDictionaryProbeValues = 1024;

void AppendVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(char(uint8_t(v) | 0x80));
    v >>= 7;
  }
  out->push_back(char(uint8_t(v)));
}

// Page assembly shared by every physical type: definition levels, compression, CRC, header,
// offset index and chunk totals.
class ChunkWriterBase : public ColumnChunkWriter {
 protected:
  ChunkWriterBase(const Field& field, const WriteOptions& options)
      : field_(field), options_(options), nullable_(field.nullable) {
    def_bits_.assign((options_.page_rows + 7) / 8, 0);
  }

  // Marks rows [page_rows_, page_rows_ + n) valid in the definition-level bitmap.
  void MarkAllValid(size_t n) {
    for (size_t i = page_rows_; i < page_rows_ + n; ++i) def_bits_[i >> 3] |= uint8_t(1u << (i & 7));
  }
  void MarkValid(size_t row_in_page) { def_bits_[row_in_page >> 3] |= uint8_t(1u << (row_in_page & 7)); }

  Status CheckNotNull(const Column& column, size_t offset, size_t count) const {
    if (nullable_ || column.null_count() == 0) return Status::OK();
    for (size_t i = offset; i < offset + count; ++i) {
      if (column.IsNull(i)) {
        return Status::InvalidArgument("column '" + field_.name + "' is NOT NULL but row " +
                                       std::to_string(i) + " of the batch is NULL");
      }
    }
    return Status::OK();
  }

  // Definition levels of the current page: RLE/bit-packed hybrid, bit width 1, with the
  // 4-byte length prefix of data page v1. The validity bitmap *is* a bit-packed run.
  void EncodeLevels(std::string* body) const {
    if (!nullable_) return;
    std::string levels;
    if (page_nulls_ == 0 || page_nulls_ == page_rows_) {
      AppendVarint(uint64_t(page_rows_) << 1, &levels);
      levels.push_back(page_nulls_ == 0 ? 1 : 0);
    } else {
      size_t groups = (page_rows_ + 7) / 8;
      AppendVarint((uint64_t(groups) << 1) | 1, &levels);
      levels.append(reinterpret_cast<const char*>(def_bits_.data()), groups);
    }
    uint32_t len = uint32_t(levels.size());
    char prefix[4];
    std::memcpy(prefix, &len, 4);
    body->append(prefix, 4);
    body->append(levels);
  }

  // Compresses `body`, completes `header` (sizes, CRC) and appends header + payload to *dest.
  Status EmitPage(PageHeader header, const std::string& body, std::string* dest) {
    if (body.size() > size_t(std::numeric_limits<int32_t>::max())) {
      return Status::InvalidArgument("column '" + field_.name + "': a page exceeds 2 GiB");
    }
    const bool first = !codec_decided_;
    if (first) RETURN_IF_ERROR(DecideCodec(body, &compressed_));  // the page compressed as decided
    const std::string* payload = &body;
    if (codec_ != Codec::kUncompressed) {
      if (!first) {
        compressed_.clear();
        RETURN_IF_ERROR(Compress(codec_, reinterpret_cast<const uint8_t*>(body.data()), body.size(),
                                 &compressed_, zstd_));
      }
      payload = &compressed_;
    }
    if (payload->size() > size_t(std::numeric_limits<int32_t>::max())) {
      return Status::InvalidArgument("column '" + field_.name + "': a page exceeds 2 GiB");
    }
    header.uncompressed_page_size = int32_t(body.size());
    header.compressed_page_size = int32_t(payload->size());
    if (options_.page_crc) {
      header.crc = int32_t(Crc32(reinterpret_cast<const uint8_t*>(payload->data()), payload->size()));
    }
    header_buf_.clear();
    thrift::SerializeStruct(header, &header_buf_);
    dest->append(header_buf_);
    dest->append(*payload);
    total_uncompressed_ += int64_t(header_buf_.size() + body.size());
    last_page_size_ = header_buf_.size() + payload->size();
    return Status::OK();
  }

  // Decides the chunk's codec from `sample`, its first page — or, in a dictionary-encoded chunk,
  // the dictionary so far and the first page, since the dictionary page (written at the end)
  // shares the chunk's codec and is most of what compresses: between the level and
  // kZstdFastHuffman (WriteOptions::fast_string_zstd), and whether to compress at all
  // (WriteOptions::skip_incompressible). *compressed gets `sample` compressed as decided.
  Status DecideCodec(const std::string& sample, std::string* compressed) {
    codec_decided_ = true;
    compressed->clear();
    if (codec_ == Codec::kUncompressed) return Status::OK();
    const auto* data = reinterpret_cast<const uint8_t*>(sample.data());
    RETURN_IF_ERROR(Compress(codec_, data, sample.size(), compressed, zstd_));
    if (codec_ == Codec::kZstd && IsBytes(field_.type) && options_.fast_string_zstd) {
      std::string fast;
      RETURN_IF_ERROR(Compress(codec_, data, sample.size(), &fast, kZstdFastHuffman));
      if (fast.size() * 16 <= compressed->size() * 17) {
        zstd_ = kZstdFastHuffman;
        compressed->swap(fast);
      }
    }
    if (options_.skip_incompressible && double(compressed->size()) > double(sample.size()) * options_.incompressible_above) {
      codec_ = Codec::kUncompressed;
    }
    return Status::OK();
  }
  bool codec_decided() const { return codec_decided_; }

  // Emits the current page as a v1 data page whose encoded values are `values`.
  Status EmitDataPage(const std::string& values, Encoding encoding,
                      std::optional<Statistics> stats) {
    body_.clear();
    EncodeLevels(&body_);
    body_.append(values);
    PageHeader h;
    h.type = PageType::kDataPage;
    DataPageHeader& d = h.data_page_header.emplace();
    d.num_values = int32_t(page_rows_);
    d.encoding = encoding;
    d.definition_level_encoding = Encoding::kRle;
    d.repetition_level_encoding = Encoding::kRle;
    if (options_.statistics) d.statistics = std::move(stats);
    size_t at = pages_.size();
    RETURN_IF_ERROR(EmitPage(std::move(h), body_, &pages_));
    PageLocation loc;
    loc.offset = int64_t(at);
    loc.compressed_page_size = int32_t(last_page_size_);
    loc.first_row_index = int64_t(chunk_rows_);
    offset_index_.page_locations.push_back(loc);
    if (encoding == Encoding::kPlain) used_plain_ = true;
    if (encoding == Encoding::kRleDictionary) used_dictionary_ = true;
    if (encoding == Encoding::kDeltaBinaryPacked || encoding == Encoding::kByteStreamSplit ||
        encoding == Encoding::kDeltaLengthByteArray) {
      used_other_ = encoding;
    }
    chunk_rows_ += page_rows_;
    chunk_nulls_ += page_nulls_;
    page_rows_ = 0;
    page_nulls_ = 0;
    std::fill(def_bits_.begin(), def_bits_.end(), 0);
    return Status::OK();
  }

  // Fills the parts of `out` that do not depend on the value type and resets chunk state.
  void FinishChunk(EncodedChunk* out, std::string* dictionary_page) {
    size_t dict_size = dictionary_page ? dictionary_page->size() : 0;
    if (dictionary_page) {
      out->dictionary_page = std::move(*dictionary_page);
    } else {
      out->dictionary_page.clear();
    }
    out->data_pages = std::move(pages_);
    // The next row group's chunk is likely about as large: reserve so it does not regrow
    // (and copy) itself several times. Untouched reserved memory costs no page faults.
    pages_ = std::string();
    pages_.reserve(out->data_pages.size() + out->data_pages.size() / 8);
    ColumnMetaData& m = out->meta;
    m = ColumnMetaData();
    m.type = PhysicalTypeFor(field_.type);
    if (used_plain_ || dictionary_page) m.encodings.push_back(Encoding::kPlain);
    if (nullable_) m.encodings.push_back(Encoding::kRle);
    if (used_dictionary_) m.encodings.push_back(Encoding::kRleDictionary);
    if (used_other_) m.encodings.push_back(*used_other_);
    m.path_in_schema = {field_.name};
    m.codec = int32_t(codec_);
    m.num_values = int64_t(chunk_rows_);
    m.total_uncompressed_size = total_uncompressed_;
    m.total_compressed_size = int64_t(out->size());
    m.data_page_offset = int64_t(dict_size);
    if (dictionary_page) m.dictionary_page_offset = 0;
    if (options_.page_index) {
      for (PageLocation& loc : offset_index_.page_locations) loc.offset += int64_t(dict_size);
      out->offset_index = std::move(offset_index_);
    } else {
      out->offset_index.reset();
    }
    offset_index_ = OffsetIndex();
    total_uncompressed_ = 0;
    used_plain_ = used_dictionary_ = false;
    used_other_.reset();
    codec_ = options_.codec;
    zstd_ = ZstdSettings{zstd_level_};
    codec_decided_ = false;
  }

  Field field_;
  WriteOptions options_;
  bool nullable_;
  size_t page_rows_ = 0;   // rows in the current page
  size_t page_nulls_ = 0;  // NULL rows in the current page
  size_t chunk_rows_ = 0;
  size_t chunk_nulls_ = 0;
  std::vector<uint8_t> def_bits_;  // validity of the current page's rows

 private:
  std::string pages_;  // finished data pages of this chunk
  OffsetIndex offset_index_;
  int64_t total_uncompressed_ = 0;
  size_t last_page_size_ = 0;
  bool used_plain_ = false;
  bool used_dictionary_ = false;
  std::optional<Encoding> used_other_;  // DELTA_BINARY_PACKED or BYTE_STREAM_SPLIT (see WriteOptions)
  Codec codec_ = options_.codec;  // of this chunk (see WriteOptions::skip_incompressible)
  const int zstd_level_ = !IsBytes(field_.type) && options_.fixed_width_zstd_level
                              ? *options_.fixed_width_zstd_level
                              : options_.zstd_level;
  ZstdSettings zstd_{zstd_level_};  // of this chunk (see WriteOptions::fast_string_zstd)
  bool codec_decided_ = false;      // DecideCodec ran for this chunk
  std::string body_, compressed_, header_buf_;
};

// T is the in-memory value: uint8_t (bool), int32_t, int64_t, float, double, std::string_view.
template <typename T>
class TypedChunkWriter final : public ChunkWriterBase {
  static constexpr bool kIsString = std::is_same_v<T, std::string_view>;
  static constexpr bool kIsFloat = std::is_floating_point_v<T>;
  static constexpr bool kIsBool = std::is_same_v<T, uint8_t>;
  static constexpr bool kDictCapable = kIsString || std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>;
  // Statistics bounds own their bytes (the batch a string came from may be gone).
  using StatT = std::conditional_t<kIsString, std::string, T>;

  struct MinMax {
    StatT min{}, max{};
    int64_t count = 0;  // non-null, non-NaN values seen
    int64_t nan_count = 0;
    void Put(const T& v) {
      if constexpr (kIsFloat) {
        if (std::isnan(v)) {
          ++nan_count;
          return;
        }
      }
      if (count == 0) {
        min = StatT(v);
        max = StatT(v);
      } else {
        if (v < min) min = StatT(v);
        if (max < v) max = StatT(v);
      }
      ++count;
    }
    void Merge(const MinMax& o) {
      nan_count += o.nan_count;
      if (o.count == 0) return;
      if (count == 0 || o.min < min) min = o.min;
      if (count == 0 || max < o.max) max = o.max;
      count += o.count;
    }
  };

 public:
  TypedChunkWriter(const Field& field, const WriteOptions& options)
      : ChunkWriterBase(field, options) {
    dict_mode_ = kDictCapable && options.dictionary;
  }

  Status Append(const Column& column, size_t offset, size_t count) override {
    RETURN_IF_ERROR(CheckNotNull(column, offset, count));
    if constexpr (kDictCapable) {
      if (dict_mode_ && !dict_decided_ && chunk_rows_ == 0 && page_rows_ == 0) ProbeDictionary(column, offset, count);
    }
    while (count > 0) {
      size_t n = std::min(count, options_.page_rows - page_rows_);
      AppendToPage(column, offset, n);
      offset += n;
      count -= n;
      if (page_rows_ == options_.page_rows) RETURN_IF_ERROR(FinishPage());
    }
    return Status::OK();
  }

  Status EndPage() override { return FinishPage(); }

  Status Finish(EncodedChunk* out) override {
    RETURN_IF_ERROR(FinishPage());
    std::string dict_page;
    bool has_dict = false;
    if constexpr (kDictCapable) {
      if (dict_pages_ > 0) {
        has_dict = true;
        std::string values;
        dict_.EncodePlain(&values, fixed_length_);
        PageHeader h;
        h.type = PageType::kDictionaryPage;
        DictionaryPageHeader& d = h.dictionary_page_header.emplace();
        d.num_values = int32_t(dict_.size());
        d.encoding = Encoding::kPlain;
        RETURN_IF_ERROR(EmitPage(std::move(h), values, &dict_page));
      }
      dict_.Clear();
      dict_pages_ = 0;
      dict_decided_ = false;
      dict_mode_ = options_.dictionary;
    }
    FinishChunk(out, has_dict ? &dict_page : nullptr);
    out->stats = ValueStats(chunk_stats_, chunk_nulls_, chunk_rows_);
    if (options_.statistics) {
      Statistics s = MakeStatistics(chunk_stats_, chunk_nulls_);
      if constexpr (!kIsString) {  // signed order is the right order: fill the legacy fields too
        s.min = s.min_value;
        s.max = s.max_value;
      }
      out->meta.statistics = std::move(s);
    }
    if (column_index_enabled_ && column_index_valid_) {
      column_index_.boundary_order = ascending_    ? BoundaryOrder::kAscending
                                     : descending_ ? BoundaryOrder::kDescending
                                                   : BoundaryOrder::kUnordered;
      out->column_index = std::move(column_index_);
    } else {
      out->column_index.reset();
    }
    column_index_ = ColumnIndex();
    column_index_valid_ = true;
    ascending_ = descending_ = true;
    have_prev_ = false;
    chunk_stats_ = MinMax();
    chunk_rows_ = chunk_nulls_ = 0;
    return Status::OK();
  }

 private:
  T ValueAt(const Column& column, size_t i) const {
    if constexpr (kIsString) {
      return column.GetString(i);
    } else {
      return column.data<T>()[i];
    }
  }

  // Decides whether a dictionary pays from the chunk's first values: not when more than half of
  // them are distinct. Undecided when they are all NULL (the first page with values decides).
  void ProbeDictionary(const Column& column, size_t offset, size_t count) {
    const size_t end = offset + std::min(count, std::max(options_.page_rows, kDictionaryProbeValues));
    size_t values = 0;
    for (size_t i = offset; i < end; ++i) {
      if (!column.IsValid(i)) continue;
      dict_.Insert(ValueAt(column, i));
      ++values;
      // More than half of all the probed rows distinct: the answer is no whatever follows.
      if (dict_.size() * 2 > end - offset) break;
    }
    if (values == 0) return;
    dict_decided_ = true;
    if (dict_.size() * 2 > values) {
      dict_.Clear();
      dict_mode_ = false;
    }
  }

  void Put(const T& v) {
    page_stats_.Put(v);
    if constexpr (kDictCapable) {
      if (dict_mode_) {
        indices_.push_back(dict_.Insert(v));
        return;
      }
    }
    PutPlain(v);
  }

  void PutPlain(const T& v) {
    if constexpr (kIsString) {
      if (fixed_length_) {
        plain_bytes_.append(v);  // FIXED_LEN_BYTE_ARRAY: no length before each value
      } else {
        PlainEncodeByteArray(v, &plain_bytes_);
      }
    } else {
      plain_values_.push_back(v);
    }
  }

  void AppendToPage(const Column& column, size_t offset, size_t n) {
    if (!column.has_validity()) {
      if (nullable_) MarkAllValid(n);
      for (size_t i = 0; i < n; ++i) Put(ValueAt(column, offset + i));
    } else {
      for (size_t i = 0; i < n; ++i) {
        if (column.IsValid(offset + i)) {
          MarkValid(page_rows_ + i);
          Put(ValueAt(column, offset + i));
        } else {
          ++page_nulls_;
        }
      }
    }
    page_rows_ += n;
  }

  static std::string EncodeBound(const StatT& v, bool is_min) {
    if constexpr (kIsString) {
      return v;
    } else {
      T x = v;
      if constexpr (kIsFloat) {
        if (x == 0) x = is_min ? -T(0) : T(0);  // parquet-format: -0.0 as min, +0.0 as max
      }
      std::string out(sizeof(T), '\0');
      std::memcpy(out.data(), &x, sizeof(T));
      return out;
    }
  }

  Statistics MakeStatistics(const MinMax& mm, size_t nulls) const {
    Statistics s;
    s.null_count = int64_t(nulls);
    if (mm.count > 0 && bounds_) {
      s.min_value = EncodeBound(mm.min, true);
      s.max_value = EncodeBound(mm.max, false);
    }
    if constexpr (kIsFloat) s.nan_count = mm.nan_count;
    return s;
  }

  // The chunk's statistics as ComputeColumnStats gives them (a zero min is -0.0, a zero max +0.0).
  ColumnStats ValueStats(const MinMax& mm, size_t nulls, size_t rows) const {
    ColumnStats s;
    s.row_count = rows;
    s.null_count = nulls;
    s.nan_count = uint64_t(mm.nan_count);
    if (mm.count == 0) return s;
    auto value = [&](const StatT& v, bool is_min) {
      if constexpr (kIsString) {
        return Value::Bytes(field_.type, v);
      } else if constexpr (kIsBool) {
        return Value::Bool(v != 0);
      } else if constexpr (kIsFloat) {
        T x = v == 0 ? (is_min ? -T(0) : T(0)) : v;
        return std::is_same_v<T, float> ? Value::Float(float(x)) : Value::Double(double(x));
      } else {
        return Value::Int(field_.type, int64_t(v));
      }
    };
    s.min = value(mm.min, true);
    s.max = value(mm.max, false);
    return s;
  }

  // Encodes the current page's values and emits it.
  Status FinishPage() {
    if (page_rows_ == 0) return Status::OK();
    Encoding encoding = Encoding::kPlain;
    values_.clear();
    if constexpr (kDictCapable) {
      if (dict_mode_ && dict_.size() == 0) {
        // Only NULLs so far: nothing to index; the page is PLAIN (and empty of values), and
        // no empty dictionary page is written for an all-NULL chunk.
        indices_.clear();
      } else if (dict_mode_) {
        size_t non_null = page_rows_ - page_nulls_;
        if (!dict_decided_ && dict_.size() * 2 > non_null) {
          // Mostly distinct values (decided on the first page with values, when the chunk's
          // first Append could not): a dictionary costs more than it saves. Re-encode PLAIN.
          for (uint32_t idx : indices_) PutPlain(dict_.At(idx));
          dict_.Clear();
          dict_mode_ = false;
        } else {
          dict_decided_ = true;
          int bit_width = std::max(1, BitWidth(dict_.size() - 1));
          values_.push_back(char(bit_width));
          RleEncoder enc(bit_width);
          enc.Put(indices_.data(), indices_.size());
          values_.append(enc.Finish());
          encoding = Encoding::kRleDictionary;
          if (!codec_decided()) {
            std::string sample, compressed;
            dict_.EncodePlain(&sample, fixed_length_);
            sample.append(values_);
            RETURN_IF_ERROR(DecideCodec(sample, &compressed));
          }
          ++dict_pages_;
          if (dict_.EncodedSize() > kMaxDictionaryBytes) dict_mode_ = false;  // PLAIN from now
        }
        indices_.clear();
      }
    }
    if (encoding == Encoding::kPlain) {
      if constexpr (kIsString) {
        if (options_.delta_length_strings && !fixed_length_) {
          // DELTA_LENGTH_BYTE_ARRAY: the lengths bit-packed, then the bytes back to back (the
          // codec then sees text only, not four length bytes a value).
          page_views_.clear();
          const auto* p = reinterpret_cast<const uint8_t*>(plain_bytes_.data());
          for (size_t at = 0; at < plain_bytes_.size();) {
            uint32_t len;
            std::memcpy(&len, p + at, 4);
            page_views_.emplace_back(plain_bytes_.data() + at + 4, len);
            at += 4 + size_t(len);
          }
          DeltaLengthByteArrayEncode(page_views_.data(), page_views_.size(), &values_);
          encoding = Encoding::kDeltaLengthByteArray;
        } else {
          values_.swap(plain_bytes_);
        }
        plain_bytes_.clear();
      } else if constexpr (kIsBool) {
        PlainEncodeBools(plain_values_.data(), plain_values_.size(), &values_);
      } else if (kIsFloat ? options_.byte_stream_split_floats : options_.delta_integers) {
        if constexpr (kIsFloat) {
          ByteStreamSplitEncode(reinterpret_cast<const uint8_t*>(plain_values_.data()), plain_values_.size(),
                                sizeof(T), &values_);
          encoding = Encoding::kByteStreamSplit;
        } else {
          DeltaBinaryPackedEncode(plain_values_.data(), plain_values_.size(), &values_);
          encoding = Encoding::kDeltaBinaryPacked;
        }
      } else {
        PlainEncode(plain_values_.data(), plain_values_.size(), &values_);
      }
      if constexpr (!kIsString) plain_values_.clear();
    }
    RecordPageIndex();
    std::optional<Statistics> stats;
    if (options_.statistics && options_.page_header_statistics) stats = MakeStatistics(page_stats_, page_nulls_);
    chunk_stats_.Merge(page_stats_);
    page_stats_ = MinMax();
    return EmitDataPage(values_, encoding, std::move(stats));
  }

  void RecordPageIndex() {
    if (!column_index_enabled_) return;
    bool null_page = page_nulls_ == page_rows_;
    if (!null_page && page_stats_.count == 0) column_index_valid_ = false;  // all NaN
    column_index_.null_pages.push_back(null_page);
    if (!column_index_.null_counts) column_index_.null_counts.emplace();
    column_index_.null_counts->push_back(int64_t(page_nulls_));
    if constexpr (kIsFloat) {
      if (!column_index_.nan_counts) column_index_.nan_counts.emplace();
      column_index_.nan_counts->push_back(page_stats_.nan_count);
    }
    if (null_page || page_stats_.count == 0) {
      column_index_.min_values.emplace_back();
      column_index_.max_values.emplace_back();
      return;
    }
    column_index_.min_values.push_back(EncodeBound(page_stats_.min, true));
    column_index_.max_values.push_back(EncodeBound(page_stats_.max, false));
    if (have_prev_) {
      if (page_stats_.min < prev_min_ || page_stats_.max < prev_max_) ascending_ = false;
      if (prev_min_ < page_stats_.min || prev_max_ < page_stats_.max) descending_ = false;
    }
    prev_min_ = page_stats_.min;
    prev_max_ = page_stats_.max;
    have_prev_ = true;
  }

  bool dict_mode_ = false;
  size_t dict_pages_ = 0;  // dictionary-encoded pages in this chunk
  bool dict_decided_ = false;  // whether a dictionary pays has been decided for this chunk
  DictionaryBuilder<std::conditional_t<kDictCapable, T, int32_t>> dict_;
  std::vector<uint32_t> indices_;
  std::vector<std::conditional_t<kIsString, char, T>> plain_values_;
  std::string plain_bytes_;  // PLAIN strings of the current page
  std::vector<std::string_view> page_views_;  // the current page's strings (DELTA_LENGTH_BYTE_ARRAY)
  const bool fixed_length_ = field_.type == TypeId::kUuid;  // FIXED_LEN_BYTE_ARRAY(16)
  // Min/max of the values (WriteOptions::portable_encodings leaves out those of uuids).
  const bool bounds_ = !(options_.portable_encodings && fixed_length_);
  std::string values_;
  MinMax page_stats_, chunk_stats_;
  ColumnIndex column_index_;
  bool column_index_valid_ = true;
  // Pages' min/max recorded for this column (WriteOptions::column_index_columns).
  const bool column_index_enabled_ =
      bounds_ && options_.page_index && (options_.column_index_columns.empty() ||
                              std::find(options_.column_index_columns.begin(), options_.column_index_columns.end(),
                                        field_.name) != options_.column_index_columns.end());
  bool ascending_ = true, descending_ = true, have_prev_ = false;
  StatT prev_min_{}, prev_max_{};
};

}  // namespace

std::unique_ptr<ColumnChunkWriter> ColumnChunkWriter::Make(const Field& field,
                                                           const WriteOptions& options) {
  if (IsDecimal(field.type)) return std::make_unique<TypedChunkWriter<int64_t>>(field, options);
  switch (field.type) {
    case TypeId::kBool: return std::make_unique<TypedChunkWriter<uint8_t>>(field, options);
    case TypeId::kInt32:
    case TypeId::kDate: return std::make_unique<TypedChunkWriter<int32_t>>(field, options);
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs: return std::make_unique<TypedChunkWriter<int64_t>>(field, options);
    case TypeId::kFloat: return std::make_unique<TypedChunkWriter<float>>(field, options);
    case TypeId::kDouble: return std::make_unique<TypedChunkWriter<double>>(field, options);
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kUuid: return std::make_unique<TypedChunkWriter<std::string_view>>(field, options);
  }
  return nullptr;
}

}  // namespace lakeindex::parquet
