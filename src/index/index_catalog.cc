#include "index/index_catalog.h"

namespace lakeindex::index {

using nlohmann::json;

namespace {
bool IsUuid(const std::string& s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}
}  // namespace

std::string SegmentDir(const std::string& uuid) { return "_indices/" + uuid + "/"; }

std::set<uint32_t> IndexMeta::CoveredFragments(const table::Manifest& m) const {
  std::set<uint32_t> out;
  for (const auto& seg : segments) {
    for (uint32_t f : seg.fragments) {
      if (m.FindFragment(f)) out.insert(f);
    }
  }
  return out;
}

Result<std::vector<IndexMeta>> ReadIndexes(const table::Manifest& m) {
  std::vector<IndexMeta> out;
  const std::string where = "manifest version " + std::to_string(m.version) + ": index";
  auto bad = [&](const std::string& what) { return Status::Corruption(where + " " + what); };
  try {
    for (const json& j : m.indexes) {
      if (!j.is_object()) return bad("entry is not an object");
      IndexMeta meta;
      if (!j.contains("name") || !j["name"].is_string() || !j.contains("column") || !j["column"].is_string() ||
          !j.contains("type") || !j["type"].is_string() || !j.contains("segments") || !j["segments"].is_array()) {
        return bad("entry lacks name/column/type/segments");
      }
      meta.name = j["name"];
      meta.column = j["column"];
      meta.type = j["type"];
      if (meta.type.empty()) return bad("'" + meta.name + "' has no kind");  // known kinds: the registry's
      if (m.schema.FindField(meta.column) < 0) return bad("'" + meta.name + "' is on unknown column '" + meta.column + "'");
      if (j.contains("params") && j["params"].is_object()) meta.params = j["params"];
      for (const json& s : j["segments"]) {
        SegmentMeta seg;
        if (!s.is_object() || !s.contains("uuid") || !s["uuid"].is_string() || !IsUuid(s["uuid"].get<std::string>()) ||
            !s.contains("fragments") || !s["fragments"].is_array()) {
          return bad("'" + meta.name + "' has a malformed segment");
        }
        seg.uuid = s["uuid"];
        for (const json& f : s["fragments"]) {
          if (!f.is_number_unsigned() || f.get<uint64_t>() > UINT32_MAX) return bad("'" + meta.name + "' has a bad fragment id");
          seg.fragments.insert(f.get<uint32_t>());
        }
        if (s.contains("built_at_version") && s["built_at_version"].is_number_unsigned()) seg.built_at_version = s["built_at_version"];
        if (s.contains("rows") && s["rows"].is_number_unsigned()) seg.rows = s["rows"];
        meta.segments.push_back(std::move(seg));
      }
      for (const auto& other : out) {
        if (other.name == meta.name) return bad("name '" + meta.name + "' is used twice");
      }
      out.push_back(std::move(meta));
    }
  } catch (const std::exception& e) {
    return bad(std::string("metadata is malformed (") + e.what() + ")");
  }
  return out;
}

json IndexesToJson(const std::vector<IndexMeta>& indexes) {
  json out = json::array();
  for (const auto& meta : indexes) {
    json segs = json::array();
    for (const auto& s : meta.segments) {
      segs.push_back({{"uuid", s.uuid}, {"fragments", s.fragments}, {"built_at_version", s.built_at_version}, {"rows", s.rows}});
    }
    out.push_back({{"name", meta.name}, {"column", meta.column}, {"type", meta.type}, {"params", meta.params}, {"segments", segs}});
  }
  return out;
}

}  // namespace lakeindex::index
