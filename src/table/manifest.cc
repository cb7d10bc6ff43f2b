#include "table/manifest.h"

#include <xxhash.h>

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <set>

#include "common/text.h"
#include "lakeindex/object_store.h"

namespace lakeindex::table {

using nlohmann::json;

std::string Hex16(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016" PRIx64, v);
  return buf;
}

namespace {

std::optional<uint64_t> ParseHex16(const std::string& s) {
  if (s.size() != 16) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) return std::nullopt;
    v = v << 4 | uint64_t(d);
  }
  return v;
}

}  // namespace

std::string ManifestChecksum(const json& body) {
  std::string text = body.dump();
  return "xxh64:" + Hex16(XXH64(text.data(), text.size(), 0));
}

namespace {

// Accessors that turn nlohmann's exceptions into Corruption naming the field.
class Fields {
 public:
  Fields(const json& j, std::string where) : j_(j), where_(std::move(where)) {}
  Result<const json*> Get(const char* key, json::value_t type, bool optional = false) const {
    auto it = j_.find(key);
    if (it == j_.end() || (optional && it->is_null())) {
      if (optional) return static_cast<const json*>(nullptr);
      return Status::Corruption(where_ + ": missing field '" + key + "'");
    }
    bool ok = it->type() == type || (type == json::value_t::number_unsigned && it->is_number_integer() &&
                                     it->get<int64_t>() >= 0);
    if (!ok) return Status::Corruption(where_ + ": field '" + key + "' has the wrong type");
    return &*it;
  }
  Result<uint64_t> U64(const char* key) const {
    ASSIGN_OR_RETURN(const json* v, Get(key, json::value_t::number_unsigned));
    return v->get<uint64_t>();
  }
  Result<std::string> Str(const char* key) const {
    ASSIGN_OR_RETURN(const json* v, Get(key, json::value_t::string));
    return v->get<std::string>();
  }

 private:
  const json& j_;
  std::string where_;
};

json StatsToJson(const ColumnStats& s) {
  json j = json::object();
  if (s.min) {
    json v = ValueToJson(*s.min);
    if (!v.is_null()) j["min"] = v;
  }
  if (s.max) {
    json v = ValueToJson(*s.max);
    if (!v.is_null()) j["max"] = v;
  }
  // A one-sided bound would be wrong for pruning: keep both or neither.
  if (j.contains("min") != j.contains("max")) j = json::object();
  j["null_count"] = s.null_count;
  j["nan_count"] = s.nan_count;
  j["row_count"] = s.row_count;
  return j;
}

Status CheckTablePath(const std::string& path, const std::string& where, const char* required_prefix) {
  Status st = ValidateObjectPath(path);
  if (!st.ok()) return Status::Corruption(where + ": " + st.message());
  if (path.rfind(required_prefix, 0) != 0) {
    return Status::Corruption(where + ": path '" + path + "' is not under " + required_prefix);
  }
  return Status::OK();
}

Result<Manifest> ParseManifestJson(const json& j, const std::string& src) {
  if (!j.is_object()) return Status::Corruption(src + ": manifest is not a JSON object");
  Fields f(j, src);
  ASSIGN_OR_RETURN(std::string magic, f.Str("format"));
  if (magic != kManifestMagic) return Status::Corruption(src + ": not a lakeindex manifest");
  ASSIGN_OR_RETURN(uint64_t fv, f.U64("format_version"));
  if (fv != uint64_t(kManifestFormatVersion)) {
    return Status::NotSupported(src + ": manifest format version " + std::to_string(fv) +
                                " (this build reads version " + std::to_string(kManifestFormatVersion) + ")");
  }
  ASSIGN_OR_RETURN(std::string checksum, f.Str("checksum"));
  json body = j;
  body.erase("checksum");
  if (ManifestChecksum(body) != checksum) return Status::Corruption(src + ": manifest checksum mismatch");

  Manifest m;
  ASSIGN_OR_RETURN(m.version, f.U64("version"));
  ASSIGN_OR_RETURN(m.parent_version, f.U64("parent_version"));
  ASSIGN_OR_RETURN(uint64_t ts, f.U64("timestamp_ms"));
  if (ts > uint64_t(INT64_MAX)) return Status::Corruption(src + ": timestamp_ms out of range");
  m.timestamp_ms = int64_t(ts);
  ASSIGN_OR_RETURN(m.operation, f.Str("operation"));
  ASSIGN_OR_RETURN(uint64_t next_id, f.U64("next_fragment_id"));
  if (next_id > UINT32_MAX) return Status::Corruption(src + ": next_fragment_id out of range");
  m.next_fragment_id = uint32_t(next_id);

  ASSIGN_OR_RETURN(const json* schema, f.Get("schema", json::value_t::array));
  for (const json& field : *schema) {
    if (!field.is_object()) return Status::Corruption(src + ": schema entry is not an object");
    Fields ff(field, src + ": schema");
    Field out;
    ASSIGN_OR_RETURN(out.name, ff.Str("name"));
    ASSIGN_OR_RETURN(std::string type_name, ff.Str("type"));
    auto type = ParseTypeName(type_name);
    if (!type.ok()) return Status::Corruption(src + ": " + type.status().message());
    out.type = *type;
    ASSIGN_OR_RETURN(const json* nullable, ff.Get("nullable", json::value_t::boolean));
    out.nullable = nullable->get<bool>();
    if (m.schema.FindField(out.name) >= 0) return Status::Corruption(src + ": duplicate column '" + out.name + "'");
    m.schema.AddField(std::move(out));
  }

  ASSIGN_OR_RETURN(const json* frags, f.Get("fragments", json::value_t::array));
  std::set<uint32_t> ids;
  std::set<std::string> files;  // data and deletion files: each belongs to one fragment
  for (const json& fj : *frags) {
    if (!fj.is_object()) return Status::Corruption(src + ": fragment entry is not an object");
    Fields ff(fj, src + ": fragment");
    FragmentMeta frag;
    ASSIGN_OR_RETURN(uint64_t id, ff.U64("id"));
    if (id >= m.next_fragment_id) return Status::Corruption(src + ": fragment id " + std::to_string(id) + " >= next_fragment_id");
    frag.id = uint32_t(id);
    if (!ids.insert(frag.id).second) return Status::Corruption(src + ": duplicate fragment id " + std::to_string(id));
    std::string where = src + ": fragment " + std::to_string(id);
    ASSIGN_OR_RETURN(frag.file, ff.Str("file"));
    RETURN_IF_ERROR(CheckTablePath(frag.file, where, kDataDir));
    if (!files.insert(frag.file).second) {
      return Status::Corruption(where + ": data file " + frag.file + " belongs to another fragment too");
    }
    ASSIGN_OR_RETURN(frag.rows, ff.U64("rows"));
    if (frag.rows > UINT32_MAX) return Status::Corruption(where + ": more than 2^32 rows");
    ASSIGN_OR_RETURN(frag.file_size, ff.U64("file_size"));
    ASSIGN_OR_RETURN(const json* del, ff.Get("deletion", json::value_t::object, /*optional=*/true));
    if (del) {
      Fields df(*del, where + " deletion");
      DeletionRef ref;
      ASSIGN_OR_RETURN(ref.file, df.Str("file"));
      RETURN_IF_ERROR(CheckTablePath(ref.file, where, kDeletionsDir));
      ASSIGN_OR_RETURN(ref.count, df.U64("count"));
      if (ref.count > frag.rows) return Status::Corruption(where + ": more deleted rows than rows");
      if (!files.insert(ref.file).second) {
        return Status::Corruption(where + ": deletion file " + ref.file + " belongs to another fragment too");
      }
      frag.deletion = ref;
    }
    ASSIGN_OR_RETURN(const json* tail, ff.Get("tail", json::value_t::object, /*optional=*/true));
    if (tail) {
      Fields tf(*tail, where + " tail");
      DataTail t;
      ASSIGN_OR_RETURN(t.offset, tf.U64("offset"));
      ASSIGN_OR_RETURN(std::string hash, tf.Str("xxh64"));
      auto parsed = ParseHex16(hash);
      if (!parsed) return Status::Corruption(where + ": tail checksum '" + hash + "' is not 16 hex digits");
      t.xxh64 = *parsed;
      if (t.offset >= frag.file_size) return Status::Corruption(where + ": tail offset beyond the file size");
      ASSIGN_OR_RETURN(const json* oi_offset, tf.Get("oi_offset", json::value_t::number_unsigned, /*optional=*/true));
      if (oi_offset != nullptr) {
        DataTail::Split split;
        ASSIGN_OR_RETURN(split.oi_offset, tf.U64("oi_offset"));
        for (auto [key, out] : {std::pair{"ci_xxh64", &split.ci_xxh64}, std::pair{"oi_xxh64", &split.oi_xxh64}}) {
          ASSIGN_OR_RETURN(std::string sum, tf.Str(key));
          auto value = ParseHex16(sum);
          if (!value) return Status::Corruption(where + ": tail " + key + " '" + sum + "' is not 16 hex digits");
          *out = *value;
        }
        if (split.oi_offset < t.offset || split.oi_offset >= frag.file_size) {
          return Status::Corruption(where + ": tail oi_offset outside [offset, file size)");
        }
        ASSIGN_OR_RETURN(const json* map, tf.Get("page_map", json::value_t::object, /*optional=*/true));
        if (map != nullptr) {
          Fields mf(*map, where + " tail page_map");
          DataTail::Split::PageMap pm;
          ASSIGN_OR_RETURN(pm.offset, mf.U64("offset"));
          ASSIGN_OR_RETURN(pm.header_offset, mf.U64("header_offset"));
          for (auto [key, out] : {std::pair{"oi_xxh64", &pm.oi_xxh64}, std::pair{"header_xxh64", &pm.header_xxh64}}) {
            ASSIGN_OR_RETURN(std::string sum, mf.Str(key));
            auto value = ParseHex16(sum);
            if (!value) return Status::Corruption(where + ": tail page_map " + key + " '" + sum + "' is not 16 hex digits");
            *out = *value;
          }
          if (pm.offset < split.oi_offset || pm.header_offset < pm.offset || pm.header_offset >= frag.file_size) {
            return Status::Corruption(where + ": tail page_map offsets outside [oi_offset, file size)");
          }
          split.map = pm;
        }
        t.split = split;
      } else if (tail->contains("ci_xxh64") || tail->contains("oi_xxh64")) {
        return Status::Corruption(where + ": tail checksums of a split without its oi_offset");
      }
      frag.tail = t;
    }
    ASSIGN_OR_RETURN(const json* column_bytes, ff.Get("column_bytes", json::value_t::object, /*optional=*/true));
    if (column_bytes != nullptr) {
      for (auto it = column_bytes->begin(); it != column_bytes->end(); ++it) {
        if (m.schema.FindField(it.key()) < 0 || !it.value().is_number_unsigned() || it.value().get<uint64_t>() > frag.file_size) {
          return Status::Corruption(where + ": column_bytes of '" + it.key() + "' is not a size within the file");
        }
        frag.column_bytes[it.key()] = it.value().get<uint64_t>();
      }
    }
    ASSIGN_OR_RETURN(const json* stats, ff.Get("stats", json::value_t::object));
    for (auto it = stats->begin(); it != stats->end(); ++it) {
      int col = m.schema.FindField(it.key());
      if (col < 0 || !it.value().is_object()) return Status::Corruption(where + ": stats for unknown column '" + it.key() + "'");
      Fields sf(it.value(), where + " stats '" + it.key() + "'");
      ColumnStats cs;
      ASSIGN_OR_RETURN(cs.null_count, sf.U64("null_count"));
      ASSIGN_OR_RETURN(cs.nan_count, sf.U64("nan_count"));
      ASSIGN_OR_RETURN(cs.row_count, sf.U64("row_count"));
      if (cs.row_count != frag.rows || cs.null_count > cs.row_count || cs.nan_count > cs.row_count) {
        return Status::Corruption(where + ": stats of column '" + it.key() + "' count " + std::to_string(cs.row_count) +
                                  " rows (" + std::to_string(cs.null_count) + " NULL), the fragment " +
                                  std::to_string(frag.rows));
      }
      TypeId type = m.schema.field(size_t(col)).type;
      if (it.value().contains("min") && it.value().contains("max")) {
        auto mn = ValueFromJson(it.value()["min"], type);
        auto mx = ValueFromJson(it.value()["max"], type);
        if (!mn.ok() || !mx.ok()) return Status::Corruption(where + ": bad min/max for column '" + it.key() + "'");
        cs.min = *mn;
        cs.max = *mx;
      }
      frag.stats[it.key()] = std::move(cs);
    }
    m.fragments.push_back(std::move(frag));
  }
  if (auto it = j.find("indexes"); it != j.end()) {
    if (!it->is_array()) return Status::Corruption(src + ": 'indexes' is not an array");
    m.indexes = *it;
  }
  if (auto it = j.find("layout"); it != j.end()) m.layout = *it;
  if (auto it = j.find("checksums"); it != j.end()) {
    if (!it->is_object()) return Status::Corruption(src + ": 'checksums' is not an object");
    for (const auto& [path, value] : it->items()) {
      RETURN_IF_ERROR(CheckTablePath(path, src + ": checksums", ""));
      auto parsed = value.is_string() ? ParseHex16(value.get<std::string>()) : std::nullopt;
      if (!parsed) return Status::Corruption(src + ": checksum of " + path + " is not 16 hex digits");
      m.checksums[path] = *parsed;
    }
  }
  if (auto it = j.find("expired_before"); it != j.end()) {
    if (!it->is_number_unsigned() || it->get<uint64_t>() > m.version) {
      return Status::Corruption(src + ": 'expired_before' is not a version up to this one");
    }
    m.expired_before = it->get<uint64_t>();
  }
  if (auto it = j.find("commit_id"); it != j.end()) {
    if (!it->is_string()) return Status::Corruption(src + ": 'commit_id' is not a string");
    m.commit_id = it->get<std::string>();
  }
  if (auto it = j.find("iceberg"); it != j.end()) {
    if (!it->is_null() && !it->is_object()) return Status::Corruption(src + ": 'iceberg' is not an object");
    m.iceberg = *it;
  }
  return m;
}

}  // namespace

const FragmentMeta* Manifest::FindFragment(uint32_t id) const {
  for (const auto& f : fragments) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

uint64_t Manifest::total_rows() const {
  uint64_t n = 0;
  for (const auto& f : fragments) n += f.live_rows();
  return n;
}

uint64_t Manifest::data_bytes() const {
  uint64_t n = 0;
  for (const auto& f : fragments) n += f.file_size;
  return n;
}

std::string ManifestPath(uint64_t version) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%s%020" PRIu64 ".manifest", kVersionsDir, version);
  return buf;
}

std::optional<uint64_t> ParseManifestPath(std::string_view path) {
  std::string_view prefix = kVersionsDir, suffix = ".manifest";
  if (path.size() != prefix.size() + 20 + suffix.size() || path.substr(0, prefix.size()) != prefix ||
      path.substr(path.size() - suffix.size()) != suffix) {
    return std::nullopt;
  }
  uint64_t v = 0;
  for (char c : path.substr(prefix.size(), 20)) {
    if (c < '0' || c > '9') return std::nullopt;
    if (v > (UINT64_MAX - 9) / 10) return std::nullopt;
    v = v * 10 + uint64_t(c - '0');
  }
  return v;
}

json ValueToJson(const Value& v) {
  if (v.is_null()) return nullptr;
  if (IsDecimal(v.type())) return v.int_value();  // unscaled: exact
  switch (v.type()) {
    case TypeId::kBool: return v.bool_value();
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs: return v.int_value();
    case TypeId::kFloat:
    case TypeId::kDouble: {
      double d = v.double_value();
      if (std::isnan(d)) return nullptr;
      if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
      return d;
    }
    case TypeId::kString:
      if (!IsValidUtf8(v.string_value())) return nullptr;
      return v.string_value();
    case TypeId::kBinary:
    case TypeId::kUuid: return v.ToString();  // text: \xHH escapes, the uuid's hex
  }
  return nullptr;
}

Result<Value> ValueFromJson(const json& j, TypeId type) {
  auto bad = [&] { return Status::Corruption(std::string("bad ") + TypeName(type) + " value in JSON"); };
  if (IsDecimal(type)) {  // the unscaled value, within the precision
    if (!j.is_number_integer() || (j.is_number_unsigned() && j.get<uint64_t>() > uint64_t(INT64_MAX))) return bad();
    const int64_t v = j.get<int64_t>();
    if (!FitsDecimal(v, type)) return bad();
    return Value::Decimal(type, v);
  }
  switch (type) {
    case TypeId::kBool:
      if (!j.is_boolean()) return bad();
      return Value::Bool(j.get<bool>());
    case TypeId::kInt32:
    case TypeId::kDate:
      if (!j.is_number_integer()) return bad();
      if (j.get<int64_t>() < INT32_MIN || j.get<int64_t>() > INT32_MAX) return bad();
      return Value::Int(type, j.get<int64_t>());
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
      if (!j.is_number_integer() || (j.is_number_unsigned() && j.get<uint64_t>() > uint64_t(INT64_MAX))) return bad();
      return Value::Int(type, j.get<int64_t>());
    case TypeId::kFloat:
    case TypeId::kDouble: {
      double d;
      if (j.is_number()) {
        d = j.get<double>();
      } else if (j == "inf") {
        d = INFINITY;
      } else if (j == "-inf") {
        d = -INFINITY;
      } else {
        return bad();
      }
      return type == TypeId::kFloat ? Value::Float(float(d)) : Value::Double(d);
    }
    case TypeId::kString:
      if (!j.is_string()) return bad();
      return Value::String(j.get<std::string>());
    case TypeId::kBinary:
    case TypeId::kUuid: {
      if (!j.is_string()) return bad();
      auto bytes = type == TypeId::kUuid ? ParseUuid(j.get<std::string>()) : ParseBinary(j.get<std::string>());
      if (!bytes.ok()) return bad();
      return Value::Bytes(type, std::move(*bytes));
    }
  }
  return bad();
}

json ColumnStatsJson(const ColumnStats& s) { return StatsToJson(s); }

std::string SerializeManifest(const Manifest& m) {
  json j = json::object();
  j["format"] = kManifestMagic;
  j["format_version"] = kManifestFormatVersion;
  j["version"] = m.version;
  j["parent_version"] = m.parent_version;
  j["timestamp_ms"] = m.timestamp_ms;
  j["operation"] = m.operation;
  if (!m.commit_id.empty()) j["commit_id"] = m.commit_id;
  if (m.expired_before > 0) j["expired_before"] = m.expired_before;  // absent: read as 0, as before
  j["next_fragment_id"] = m.next_fragment_id;
  json schema = json::array();
  for (const Field& f : m.schema.fields()) {
    schema.push_back({{"name", f.name}, {"type", TypeName(f.type)}, {"nullable", f.nullable}});
  }
  j["schema"] = schema;
  json frags = json::array();
  for (const FragmentMeta& f : m.fragments) {
    json fj = {{"id", f.id}, {"file", f.file}, {"rows", f.rows}, {"file_size", f.file_size}};
    fj["deletion"] = f.deletion ? json{{"file", f.deletion->file}, {"count", f.deletion->count}} : json(nullptr);
    json stats = json::object();
    for (const auto& [name, s] : f.stats) stats[name] = StatsToJson(s);
    fj["stats"] = stats;
    if (f.tail) {
      json tj = {{"offset", f.tail->offset}, {"xxh64", Hex16(f.tail->xxh64)}};
      if (f.tail->split) {
        tj["oi_offset"] = f.tail->split->oi_offset;
        tj["ci_xxh64"] = Hex16(f.tail->split->ci_xxh64);
        tj["oi_xxh64"] = Hex16(f.tail->split->oi_xxh64);
        if (const auto& pm = f.tail->split->map) {
          tj["page_map"] = {{"offset", pm->offset},
                            {"header_offset", pm->header_offset},
                            {"oi_xxh64", Hex16(pm->oi_xxh64)},
                            {"header_xxh64", Hex16(pm->header_xxh64)}};
        }
      }
      fj["tail"] = std::move(tj);
    }
    if (!f.column_bytes.empty()) fj["column_bytes"] = f.column_bytes;
    frags.push_back(std::move(fj));
  }
  j["fragments"] = frags;
  j["indexes"] = m.indexes;
  j["layout"] = m.layout;
  if (!m.iceberg.is_null()) j["iceberg"] = m.iceberg;  // absent when off: such manifests read as before
  if (!m.checksums.empty()) {
    json sums = json::object();
    for (const auto& [path, sum] : m.checksums) sums[path] = Hex16(sum);
    j["checksums"] = std::move(sums);
  }
  j["checksum"] = ManifestChecksum(j);
  return j.dump(1);
}

Result<Manifest> ParseManifest(const uint8_t* data, size_t size, std::string_view source) {
  std::string src(source);
  json j = json::parse(data, data + size, /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::Corruption(src + ": manifest is not valid JSON");
  // nlohmann::json throws on some conversions; none may escape this API.
  try {
    return ParseManifestJson(j, src);
  } catch (const std::exception& e) {
    return Status::Corruption(src + ": malformed manifest (" + e.what() + ")");
  }
}

}  // namespace lakeindex::table
