// The pieces of Iceberg metadata files that iceberg.cc writes at a commit and iceberg_repair.cc
// writes again when the store lost one: manifest entries, manifests, manifest lists. Internal to
// src/table.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lakeindex/object_store.h"
#include "lakeindex/status.h"
#include "table/iceberg.h"
#include "table/manifest.h"

namespace lakeindex::table::iceberg {

using nlohmann::json;

// One manifest entry.
struct Entry {
  int content = 0;  // 0 data, 1 position deletes
  std::string path; // absolute
  uint64_t rows = 0;
  uint64_t size = 0;
  uint64_t seq = 0;
  std::map<int, int64_t> column_sizes, value_counts, null_counts, nan_counts;
  std::map<int, std::string> lower, upper;
  // A deletion vector (format 3): a blob of a Puffin file, applying to one data file.
  bool puffin = false;
  std::string referenced;  // absolute
  uint64_t offset = 0, length = 0;
};

// Whether `p` names a file under `dir` (metadata/ by default) without leaving it.
inline bool IsMetadataFilePath(const std::string& p, const std::string& dir = kMetadataDir) {
  return p.rfind(dir, 0) == 0 && p.find("..") == std::string::npos;
}

// A manifest file as the manifest list describes it, and what reusing it in a later snapshot
// needs (the fragments it lists, the schema its statistics are keyed by).
struct WrittenManifest {
  std::string path;  // relative
  uint64_t length = 0;
  int content = 0;
  uint64_t seq = 0;  // the snapshot that wrote it (its sequence number and added_snapshot_id)
  uint64_t min_seq = 0;
  int added = 0, existing = 0;
  std::optional<uint64_t> first_row_id;  // format 3, data manifests: assigned when first listed
  uint64_t added_rows = 0, existing_rows = 0;
  std::string schema;             // the schema JSON its entries were written under
  std::vector<uint32_t> fragments;  // data manifests: the fragments it lists

  json ToJson() const {
    json j = {{"path", path},   {"length", length}, {"content", content}, {"seq", seq},
              {"min_seq", min_seq}, {"added", added}, {"existing", existing}, {"added_rows", added_rows},
              {"existing_rows", existing_rows}, {"schema", schema}, {"fragments", fragments}};
    if (first_row_id) j["first_row_id"] = *first_row_id;
    return j;
  }
  // nullopt for anything malformed (the manifest is then written again, not reused).
  static std::optional<WrittenManifest> FromJson(const json& j) {
    if (!j.is_object()) return std::nullopt;
    WrittenManifest m;
    try {
      m.path = j.at("path").get<std::string>();
      m.length = j.at("length").get<uint64_t>();
      m.content = j.at("content").get<int>();
      m.seq = j.at("seq").get<uint64_t>();
      m.min_seq = j.at("min_seq").get<uint64_t>();
      m.added = j.at("added").get<int>();
      m.existing = j.at("existing").get<int>();
      m.added_rows = j.at("added_rows").get<uint64_t>();
      m.existing_rows = j.at("existing_rows").get<uint64_t>();
      m.schema = j.at("schema").get<std::string>();
      m.fragments = j.at("fragments").get<std::vector<uint32_t>>();
      if (j.contains("first_row_id")) m.first_row_id = j.at("first_row_id").get<uint64_t>();
    } catch (const json::exception&) {
      return std::nullopt;
    }
    if (!IsMetadataFilePath(m.path)) return std::nullopt;
    return m;
  }
};

// A data file's entry (its statistics as Iceberg bounds) for a snapshot of `next`'s schema;
// `seq`: the version that added it.
Entry DataEntry(const json& state, const Manifest& next, const FragmentMeta& f, uint64_t seq);
// The entry of fragment `f`'s position delete file (or deletion vector, format 3) `del`, as the
// "iceberg" object's "deletes" keeps it.
Entry DeleteEntry(const json& state, const FragmentMeta& f, const json& del);
// Writes at `path` a position delete file for `fragment`'s deletion vector: (file_path, pos)
// sorted by pos, the columns carrying Iceberg's reserved field ids. Returns its "deletes" entry
// of the "iceberg" object (without "seq").
Result<json> WriteDeleteFile(ObjectStore* store, const json& state, const FragmentMeta& fragment, const std::string& path);
// The same as a format-3 deletion vector: a Puffin file of one deletion-vector-v1 blob.
Result<json> WriteDeletionVectorFile(ObjectStore* store, const json& state, const FragmentMeta& fragment,
                                     const std::string& path);
// Writes a manifest of `entries` (content 0 data, 1 deletes) at `path` as version `next` writes
// it (entries of an earlier sequence number are EXISTING).
Result<WrittenManifest> WriteManifest(ObjectStore* store, const Manifest& next, const std::vector<Entry>& entries,
                                      int content, const std::string& path);
// Writes `next`'s manifest list of `manifests` at `path`; `state` is the "iceberg" object before
// the commit (its "snapshot", when there is one, is the parent's). `first_row_id`: format 3's
// first row id of the snapshot.
Status WriteManifestList(ObjectStore* store, const Manifest& next, const json& state,
                         const std::vector<WrittenManifest>& manifests, const std::string& path, uint64_t first_row_id);

}  // namespace lakeindex::table::iceberg
