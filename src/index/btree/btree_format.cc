#include "index/btree/btree_format.h"

#include <xxhash.h>

#include <charconv>
#include <cstdio>
#include <map>

#include "format/parquet/reader.h"
#include "format/parquet/writer.h"
#include "lakeindex/batch.h"
#include "lakeindex/object_store.h"

namespace lakeindex::index::btree {
namespace {

void PutU32(uint32_t x, std::string* out) {
  for (int i = 0; i < 4; ++i) out->push_back(char((x >> (8 * i)) & 0xFF));
}
void PutU64(uint64_t x, std::string* out) {
  for (int i = 0; i < 8; ++i) out->push_back(char((x >> (8 * i)) & 0xFF));
}

constexpr char kBase64Chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

Schema LookupSchema(TypeId type, bool locations) {
  Schema schema({{"min", type, false},
                 {"max", type, false},
                 {"null_count", TypeId::kInt64, false},
                 {"page_idx", TypeId::kInt32, false},
                 {"rows", TypeId::kInt32, false}});
  if (locations) {
    schema.AddField({"offset", TypeId::kInt64, false});
    schema.AddField({"bytes", TypeId::kInt32, false});
    schema.AddField({"codecs", TypeId::kInt32, false});
  }
  return schema;
}

// Codecs the Parquet reader decodes (compression.h).
bool KnownCodec(uint32_t c) { return c <= uint32_t(parquet::Codec::kLz4Raw); }

template <typename T>
bool ParseNumber(const std::string& s, T* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

std::string SegmentLookupPath(std::string_view uuid) {
  return std::string(kIndicesDir) + std::string(uuid) + "/" + kLookupFileName;
}
std::string SegmentDataPath(std::string_view uuid) {
  return std::string(kIndicesDir) + std::string(uuid) + "/" + kDataFileName;
}

std::string ChecksumHex(uint64_t checksum) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(checksum));
  return buf;
}

uint64_t LookupChecksum(const PageDirectory& dir, std::string_view null_rows_bytes) {
  std::string canon;
  canon.reserve(64 + null_rows_bytes.size() + dir.num_pages() * (dir.locations.empty() ? 12 : 26) +
                dir.mins.MemoryBytes() + dir.maxs.MemoryBytes());
  canon.push_back(char(dir.type));
  PutU32(dir.page_rows, &canon);
  PutU64(dir.num_rows, &canon);
  PutU64(dir.data_bytes, &canon);
  PutU64(dir.num_pages(), &canon);
  for (size_t i = 0; i < dir.num_pages(); ++i) {
    PutU32(uint32_t(dir.mins[i].size()), &canon);
    canon.append(dir.mins[i]);
    PutU32(uint32_t(dir.maxs[i].size()), &canon);
    canon.append(dir.maxs[i]);
    PutU32(dir.rows[i], &canon);
    if (!dir.locations.empty()) {
      const PageDirectory::Location& at = dir.locations[i];
      PutU64(at.offset, &canon);
      PutU32(at.bytes, &canon);
      canon.push_back(char(at.value_codec));
      canon.push_back(char(at.address_codec));
    }
  }
  canon.append(null_rows_bytes);
  return XXH64(canon.data(), canon.size(), 0);
}

std::string Base64Encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    uint32_t v = uint32_t(uint8_t(bytes[i])) << 16 | uint32_t(uint8_t(bytes[i + 1])) << 8 | uint8_t(bytes[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out.push_back(kBase64Chars[(v >> s) & 63]);
  }
  const size_t rest = bytes.size() - i;
  if (rest > 0) {
    uint32_t v = uint32_t(uint8_t(bytes[i])) << 16;
    if (rest == 2) v |= uint32_t(uint8_t(bytes[i + 1])) << 8;
    out.push_back(kBase64Chars[(v >> 18) & 63]);
    out.push_back(kBase64Chars[(v >> 12) & 63]);
    out.push_back(rest == 2 ? kBase64Chars[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

Result<std::string> Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) return Status::Corruption("base64 text of length " + std::to_string(text.size()));
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    uint32_t v = 0;
    int pad = 0;
    for (size_t j = 0; j < 4; ++j) {
      const char c = text[i + j];
      int d;
      if (c >= 'A' && c <= 'Z') d = c - 'A';
      else if (c >= 'a' && c <= 'z') d = c - 'a' + 26;
      else if (c >= '0' && c <= '9') d = c - '0' + 52;
      else if (c == '+') d = 62;
      else if (c == '/') d = 63;
      else if (c == '=' && i + 4 == text.size() && j >= 2) d = -1;
      else return Status::Corruption("base64: bad character at offset " + std::to_string(i + j));
      if (d < 0) {
        ++pad;
        d = 0;
      } else if (pad > 0) {
        return Status::Corruption("base64: data after padding at offset " + std::to_string(i + j));
      }
      v = (v << 6) | uint32_t(d);
    }
    out.push_back(char((v >> 16) & 0xFF));
    if (pad < 2) out.push_back(char((v >> 8) & 0xFF));
    if (pad < 1) out.push_back(char(v & 0xFF));
  }
  return out;
}

Result<std::string> SerializeLookup(PageDirectory* dir) {
  const std::string null_bytes = dir->null_rows.Serialize();
  const bool locations = !dir->locations.empty();
  if (locations && dir->locations.size() != dir->num_pages()) {
    return Status::Internal("btree: " + std::to_string(dir->locations.size()) + " page locations for " +
                            std::to_string(dir->num_pages()) + " pages");
  }
  dir->checksum = LookupChecksum(*dir, null_bytes);
  Schema schema = LookupSchema(dir->type, locations);
  Batch batch(schema);
  for (size_t i = 0; i < dir->num_pages(); ++i) {
    RETURN_IF_ERROR(AppendDecodedKey(dir->mins[i], &batch.mutable_column(kLookupMin)));
    RETURN_IF_ERROR(AppendDecodedKey(dir->maxs[i], &batch.mutable_column(kLookupMax)));
    batch.mutable_column(kLookupNullCount).Append<int64_t>(0);
    batch.mutable_column(kLookupPageIdx).Append<int32_t>(int32_t(i));
    batch.mutable_column(kLookupRows).Append<int32_t>(int32_t(dir->rows[i]));
    if (locations) {
      const PageDirectory::Location& at = dir->locations[i];
      batch.mutable_column(kLookupOffset).Append<int64_t>(int64_t(at.offset));
      batch.mutable_column(kLookupBytes).Append<int32_t>(int32_t(at.bytes));
      batch.mutable_column(kLookupCodecs).Append<int32_t>(int32_t(at.value_codec | uint32_t(at.address_codec) << 8));
    }
  }
  RETURN_IF_ERROR(batch.Seal());
  parquet::WriteOptions options;
  options.dictionary = false;
  options.page_index = false;
  options.key_value_metadata = {
      {kKeyMagic, kMagic},
      {kKeyFormatVersion, std::to_string(locations ? kFormatVersionWithLocations : 1)},
      {kKeyValueType, TypeName(dir->type)},
      {kKeyPageRows, std::to_string(dir->page_rows)},
      {kKeyNumRows, std::to_string(dir->num_rows)},
      {kKeyNullCount, std::to_string(dir->null_rows.Cardinality())},
      {kKeyNullRows, Base64Encode(null_bytes)},
      {kKeyDataBytes, std::to_string(dir->data_bytes)},
      {kKeyChecksum, ChecksumHex(dir->checksum)},
  };
  ASSIGN_OR_RETURN(auto writer, parquet::ParquetWriter::Make(schema, options));
  RETURN_IF_ERROR(writer->Write(batch));
  return writer->Finish();
}

Result<PageDirectory> ParseLookup(const uint8_t* data, size_t size, std::string_view file_name) {
  const std::string name(file_name);
  auto corrupt = [&](const std::string& what) {
    return Status::Corruption("btree page_lookup '" + name + "': " + what);
  };
  // The Parquet reader reads through a store; an in-memory one keeps this parser free of I/O.
  std::unique_ptr<ObjectStore> mem = NewMemoryStore();
  RETURN_IF_ERROR(mem->Write("page_lookup.parquet", std::string_view(reinterpret_cast<const char*>(data), size)));
  auto reader_or = parquet::ParquetReader::Open(mem.get(), "page_lookup.parquet");
  if (!reader_or.ok()) return corrupt(reader_or.status().message());
  const parquet::ParquetReader& reader = **reader_or;

  std::map<std::string, std::string> kv;
  for (const auto& [k, v] : reader.key_value_metadata()) kv[k] = v;
  auto get = [&](const char* key) -> const std::string* {
    auto it = kv.find(key);
    return it == kv.end() ? nullptr : &it->second;
  };
  const std::string* magic = get(kKeyMagic);
  if (magic == nullptr || *magic != kMagic) return corrupt("missing or wrong magic");
  uint32_t version = 0;
  const std::string* version_text = get(kKeyFormatVersion);
  if (version_text == nullptr || !ParseNumber(*version_text, &version)) return corrupt("bad format version");
  if (version > kFormatVersion) {
    return Status::NotSupported("btree page_lookup '" + name + "': format version " + *version_text +
                                " is newer than " + std::to_string(kFormatVersion));
  }
  const std::string* type_text = get(kKeyValueType);
  if (type_text == nullptr) return corrupt("no value type");
  auto type_or = ParseTypeName(*type_text);
  if (!type_or.ok()) return corrupt("unknown value type '" + *type_text + "'");
  PageDirectory dir(*type_or);
  uint64_t null_count = 0;
  const std::string *page_rows = get(kKeyPageRows), *num_rows = get(kKeyNumRows),
                    *nulls = get(kKeyNullCount), *null_rows = get(kKeyNullRows),
                    *checksum = get(kKeyChecksum), *data_bytes = get(kKeyDataBytes);
  if (page_rows == nullptr || !ParseNumber(*page_rows, &dir.page_rows) || dir.page_rows == 0 ||
      dir.page_rows > kMaxPageRows) {
    return corrupt("bad page_rows");
  }
  if (num_rows == nullptr || !ParseNumber(*num_rows, &dir.num_rows)) return corrupt("bad num_rows");
  if (nulls == nullptr || !ParseNumber(*nulls, &null_count)) return corrupt("bad null_count");
  if (data_bytes == nullptr || !ParseNumber(*data_bytes, &dir.data_bytes)) return corrupt("bad data_bytes");
  if (null_rows == nullptr || checksum == nullptr) return corrupt("missing null_rows or checksum");

  const bool locations = version >= kFormatVersionWithLocations;
  if (!(reader.schema() == LookupSchema(dir.type, locations))) {
    // Compare names and types only: the nullable flag does not change what we read.
    const Schema expect = LookupSchema(dir.type, locations);
    bool same = reader.schema().num_fields() == expect.num_fields();
    for (size_t i = 0; same && i < expect.num_fields(); ++i) {
      same = reader.schema().field(i).name == expect.field(i).name &&
             reader.schema().field(i).type == expect.field(i).type;
    }
    if (!same) return corrupt("unexpected schema " + reader.schema().ToString());
  }
  auto batch_or = reader.ReadAll();
  if (!batch_or.ok()) return corrupt(batch_or.status().message());
  const Batch& batch = *batch_or;
  const size_t pages = batch.num_rows();
  if (pages > dir.num_rows) return corrupt(std::to_string(pages) + " pages for " + *num_rows + " rows");
  for (int c = 0; c < int(batch.num_columns()); ++c) {
    if (batch.column(size_t(c)).null_count() != 0) {
      return corrupt("NULL in column " + batch.schema().field(size_t(c)).name);
    }
  }
  uint64_t total = 0;
  std::string key;
  for (size_t i = 0; i < pages; ++i) {
    // Built only for a message: this loop runs once per leaf page on every cold open.
    auto where = [i] { return "page " + std::to_string(i) + ": "; };
    if (batch.column(kLookupPageIdx).Get<int32_t>(i) != int32_t(i)) return corrupt(where() + "page_idx mismatch");
    if (batch.column(kLookupNullCount).Get<int64_t>(i) != 0) return corrupt(where() + "non-zero null_count");
    const int32_t rows = batch.column(kLookupRows).Get<int32_t>(i);
    if (rows < 1 || uint32_t(rows) > dir.page_rows) return corrupt(where() + "rows " + std::to_string(rows));
    dir.rows.push_back(uint32_t(rows));
    total += uint32_t(rows);
    key.clear();
    AppendKey(batch.column(kLookupMin), i, &key);
    dir.mins.Append(key);
    key.clear();
    AppendKey(batch.column(kLookupMax), i, &key);
    dir.maxs.Append(key);
    if (dir.mins[i] > dir.maxs[i]) return corrupt(where() + "min > max");
    if (i > 0 && dir.maxs[i - 1] > dir.mins[i]) return corrupt(where() + "pages out of order");
    if (locations) {
      const int64_t offset = batch.column(kLookupOffset).Get<int64_t>(i);
      const int32_t bytes = batch.column(kLookupBytes).Get<int32_t>(i);
      const int32_t codecs = batch.column(kLookupCodecs).Get<int32_t>(i);
      const uint64_t prev_end = i == 0 ? 4 : dir.locations.back().offset + dir.locations.back().bytes;
      // Pages follow one another from the magic on, inside the file.
      if (offset < 0 || bytes <= 0 || uint64_t(offset) < prev_end || uint64_t(offset) + uint64_t(bytes) > dir.data_bytes) {
        return corrupt(where() + "location [" + std::to_string(offset) + ", +" + std::to_string(bytes) +
                       ") outside page_data or out of order");
      }
      if (codecs < 0 || !KnownCodec(uint32_t(codecs) & 0xFF) || !KnownCodec(uint32_t(codecs) >> 8)) {
        return corrupt(where() + "unknown codecs " + std::to_string(codecs));
      }
      dir.locations.push_back({uint64_t(offset), uint32_t(bytes), uint8_t(codecs & 0xFF), uint8_t(uint32_t(codecs) >> 8)});
    }
  }
  if (total != dir.num_rows) return corrupt("pages hold " + std::to_string(total) + " rows, metadata says " + *num_rows);

  auto bytes_or = Base64Decode(*null_rows);
  if (!bytes_or.ok()) return corrupt("null_rows: " + bytes_or.status().message());
  auto set_or = RowSet::Deserialize(reinterpret_cast<const uint8_t*>(bytes_or->data()), bytes_or->size());
  if (!set_or.ok()) return corrupt("null_rows: " + set_or.status().message());
  dir.null_rows = std::move(*set_or);
  if (dir.null_rows.Cardinality() != null_count) return corrupt("null_rows cardinality differs from null_count");
  dir.checksum = LookupChecksum(dir, *bytes_or);
  if (ChecksumHex(dir.checksum) != *checksum) return corrupt("checksum mismatch");
  return dir;
}

}  // namespace lakeindex::index::btree
