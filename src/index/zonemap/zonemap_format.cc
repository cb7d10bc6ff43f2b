#include "index/zonemap/zonemap_format.h"

#include <xxhash.h>

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>

namespace lakeindex::index::zonemap {

namespace {

template <typename T>
void PutLE(std::string* out, T v) {
  // Every supported host is little-endian (the Parquet code assumes it too).
  out->append(reinterpret_cast<const char*>(&v), sizeof(T));
}

void PutBound(std::string* out, const std::optional<Value>& v, TypeId type) {
  out->push_back(v ? 1 : 0);
  if (!v) return;
  if (IsBytes(type)) {
    PutLE<uint32_t>(out, uint32_t(v->string_value().size()));
    out->append(v->string_value());
  } else if (type == TypeId::kBool) {
    out->push_back(v->bool_value() ? 1 : 0);
  } else if (IsFloating(type)) {
    uint64_t bits;
    double d = v->double_value();
    std::memcpy(&bits, &d, 8);
    PutLE<uint64_t>(out, bits);
  } else {
    PutLE<int64_t>(out, v->int_value());
  }
}

// Parses a decimal u64 with no sign, spaces or leading '+'; nullopt otherwise.
std::optional<uint64_t> ParseU64(const std::string& s) {
  if (s.empty() || s.size() > 20) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    uint64_t d = uint64_t(c - '0');
    if (v > (UINT64_MAX - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

bool IsNaN(const Value& v) { return IsFloating(v.type()) && std::isnan(v.double_value()); }

}  // namespace

std::string ZoneMapPath(std::string_view uuid) {
  return "_indices/" + std::string(uuid) + "/" + kFileName;
}

Schema ZoneMapSchema(TypeId type) {
  return Schema({{"min", type, true},
                 {"max", type, true},
                 {"null_count", TypeId::kInt64, false},
                 {"nan_count", TypeId::kInt64, false},
                 {"fragment_id", TypeId::kInt32, false},
                 {"zone_start", TypeId::kInt32, false},
                 {"zone_length", TypeId::kInt32, false}});
}

std::string ZoneChecksumInput(const ZoneMapContents& c) {
  std::string out;
  out.reserve(16 + c.zones.size() * 48);
  out.push_back(char(c.type));
  PutLE<uint32_t>(&out, c.zone_rows);
  PutLE<uint64_t>(&out, c.zones.size());
  for (const Zone& z : c.zones) {
    PutLE<uint32_t>(&out, z.fragment_id);
    PutLE<uint32_t>(&out, z.start);
    PutLE<uint32_t>(&out, z.length);
    PutLE<uint64_t>(&out, z.null_count);
    PutLE<uint64_t>(&out, z.nan_count);
    PutBound(&out, z.min, c.type);
    PutBound(&out, z.max, c.type);
  }
  return out;
}

std::string ZoneChecksum(const ZoneMapContents& contents) {
  std::string input = ZoneChecksumInput(contents);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "xxh64:%016" PRIx64, static_cast<uint64_t>(XXH64(input.data(), input.size(), 0)));
  return buf;
}

Result<Batch> EncodeZones(const ZoneMapContents& c) {
  Batch batch(ZoneMapSchema(c.type));
  for (const Zone& z : c.zones) {
    auto& cols = batch.columns();
    RETURN_IF_ERROR(cols[0].AppendValue(z.min ? *z.min : Value::Null(c.type)));
    RETURN_IF_ERROR(cols[1].AppendValue(z.max ? *z.max : Value::Null(c.type)));
    cols[2].Append<int64_t>(int64_t(z.null_count));
    cols[3].Append<int64_t>(int64_t(z.nan_count));
    cols[4].Append<int32_t>(int32_t(z.fragment_id));  // u32 bits; read back as uint32
    cols[5].Append<int32_t>(int32_t(z.start));
    cols[6].Append<int32_t>(int32_t(z.length));
  }
  RETURN_IF_ERROR(batch.Seal());
  return batch;
}

std::vector<std::pair<std::string, std::string>> ZoneMapMetadata(const ZoneMapContents& c) {
  return {{kZoneMapMagicKey, kZoneMapMagic},
          {kFormatVersionKey, std::to_string(kZoneMapFormatVersion)},
          {kColumnTypeKey, TypeName(c.type)},
          {kZoneRowsKey, std::to_string(c.zone_rows)},
          {kZonesKey, std::to_string(c.zones.size())},
          {kChecksumKey, ZoneChecksum(c)}};
}

Status ValidateZones(const ZoneMapContents& c, std::string_view source) {
  auto corrupt = [&](size_t i, const std::string& what) {
    return Status::Corruption(std::string(source) + ": zone map zone " + std::to_string(i) + " " + what);
  };
  if (c.zone_rows == 0 || c.zone_rows > kMaxZoneRows) {
    return Status::Corruption(std::string(source) + ": zone map zone_rows " + std::to_string(c.zone_rows) +
                              " out of range");
  }
  for (size_t i = 0; i < c.zones.size(); ++i) {
    const Zone& z = c.zones[i];
    if (z.length == 0 || z.length > c.zone_rows) return corrupt(i, "has length " + std::to_string(z.length));
    if (uint64_t(z.start) + z.length > kMaxFragmentRows) return corrupt(i, "ends beyond the largest fragment");
    if (z.null_count > z.length || z.nan_count > z.length - z.null_count) {
      return corrupt(i, "counts more NULL/NaN rows than it has");
    }
    if (z.nan_count > 0 && !IsFloating(c.type)) return corrupt(i, "has NaN rows in a non-float column");
    if (z.min.has_value() != z.max.has_value()) return corrupt(i, "has only one of min and max");
    bool has_values = z.null_count + z.nan_count < z.length;
    if (has_values != z.min.has_value()) {
      return corrupt(i, has_values ? "has values but no min/max" : "has min/max but no values");
    }
    if (z.min) {
      if (z.min->is_null() || z.max->is_null() || z.min->type() != c.type || z.max->type() != c.type) {
        return corrupt(i, "has bounds of the wrong type");
      }
      if (IsNaN(*z.min) || IsNaN(*z.max)) return corrupt(i, "has a NaN bound");
      if (CompareValues(*z.min, *z.max) > 0) return corrupt(i, "has min above max");
    }
    // Row order: a fragment's zones are contiguous from offset 0 and only its last is short.
    if (i == 0 || c.zones[i - 1].fragment_id != z.fragment_id) {
      if (i > 0 && c.zones[i - 1].fragment_id > z.fragment_id) return corrupt(i, "is out of fragment order");
      if (z.start != 0) return corrupt(i, "starts its fragment at offset " + std::to_string(z.start));
    } else {
      const Zone& prev = c.zones[i - 1];
      if (prev.length != c.zone_rows) return corrupt(i - 1, "is short but not its fragment's last");
      if (z.start != prev.start + prev.length) return corrupt(i, "does not follow the previous zone");
    }
  }
  return Status::OK();
}

Result<ZoneMapContents> DecodeZones(const Batch& rows, const std::vector<std::pair<std::string, std::string>>& metadata,
                                    std::string_view source) {
  auto corrupt = [&](const std::string& what) {
    return Status::Corruption(std::string(source) + ": zone map " + what);
  };
  std::map<std::string, std::string> kv;
  for (const auto& [k, v] : metadata) kv[k] = v;
  auto get = [&](const char* key) -> const std::string* {
    auto it = kv.find(key);
    return it == kv.end() ? nullptr : &it->second;
  };
  const std::string* magic = get(kZoneMapMagicKey);
  if (magic == nullptr || *magic != kZoneMapMagic) return corrupt("has no magic (not a zone map file)");
  const std::string* version = get(kFormatVersionKey);
  if (version == nullptr) return corrupt("has no format version");
  if (*version != std::to_string(kZoneMapFormatVersion)) {
    return Status::NotSupported(std::string(source) + ": zone map format version '" + *version + "'");
  }
  ZoneMapContents c;
  const std::string* type_name = get(kColumnTypeKey);
  if (type_name == nullptr) return corrupt("has no column type");
  auto type = ParseTypeName(*type_name);
  if (!type.ok()) return corrupt("has an unknown column type '" + *type_name + "'");
  c.type = *type;
  const std::string* zone_rows_text = get(kZoneRowsKey);
  std::optional<uint64_t> zone_rows = zone_rows_text ? ParseU64(*zone_rows_text) : std::nullopt;
  if (!zone_rows || *zone_rows == 0 || *zone_rows > kMaxZoneRows) return corrupt("has a bad zone_rows");
  c.zone_rows = uint32_t(*zone_rows);
  const std::string* zones_text = get(kZonesKey);
  std::optional<uint64_t> zones = zones_text ? ParseU64(*zones_text) : std::nullopt;
  if (!zones) return corrupt("has no zone count");
  if (*zones != rows.num_rows()) {
    return corrupt("declares " + *zones_text + " zones but holds " + std::to_string(rows.num_rows()));
  }
  const std::string* checksum = get(kChecksumKey);
  if (checksum == nullptr) return corrupt("has no checksum");

  Schema want = ZoneMapSchema(c.type);
  if (rows.num_columns() != want.num_fields()) return corrupt("has the wrong number of columns");
  for (size_t i = 0; i < want.num_fields(); ++i) {
    const Field& got = rows.schema().field(i);
    if (got.name != want.field(i).name || got.type != want.field(i).type || rows.column(i).type() != got.type ||
        rows.column(i).length() != rows.num_rows()) {
      return corrupt("column " + std::to_string(i) + " is not '" + want.field(i).name + "' of type " +
                     TypeName(want.field(i).type));
    }
    // OPTIONAL vs REQUIRED is not checked: only actual NULLs matter, and they are below.
  }
  const Column& min = rows.column(0);
  const Column& max = rows.column(1);
  c.zones.resize(rows.num_rows());
  for (size_t i = 0; i < rows.num_rows(); ++i) {
    for (size_t col = 2; col < 7; ++col) {
      if (rows.column(col).IsNull(i)) return corrupt("zone " + std::to_string(i) + " has a NULL " + kColumnNames[col]);
    }
    Zone& z = c.zones[i];
    int64_t null_count = rows.column(2).Get<int64_t>(i);
    int64_t nan_count = rows.column(3).Get<int64_t>(i);
    int32_t start = rows.column(5).Get<int32_t>(i);
    int32_t length = rows.column(6).Get<int32_t>(i);
    if (null_count < 0 || nan_count < 0 || start < 0 || length < 0) {
      return corrupt("zone " + std::to_string(i) + " has a negative count or offset");
    }
    z.fragment_id = uint32_t(rows.column(4).Get<int32_t>(i));
    z.start = uint32_t(start);
    z.length = uint32_t(length);
    z.null_count = uint64_t(null_count);
    z.nan_count = uint64_t(nan_count);
    if (min.IsValid(i)) z.min = min.GetValue(i);
    if (max.IsValid(i)) z.max = max.GetValue(i);
  }
  if (ZoneChecksum(c) != *checksum) return corrupt("checksum mismatch");
  RETURN_IF_ERROR(ValidateZones(c, source));
  return c;
}

}  // namespace lakeindex::index::zonemap
