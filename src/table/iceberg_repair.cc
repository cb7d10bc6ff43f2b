#include "table/iceberg_repair.h"

#include <set>

#include "table/iceberg.h"
#include "table/iceberg_files.h"

namespace lakeindex::table::iceberg {
namespace {

Result<bool> Missing(ObjectStore* store, const std::string& path) {
  Result<uint64_t> size = store->Size(path);
  if (size.ok()) return false;
  if (size.status().IsNotFound()) return true;
  return size.status();
}

// `entries` written at `written`'s path as the version that wrote it (`written.seq`: its entries
// ADDED, the others EXISTING) wrote them; `content` 0 for data, 1 for deletes. The same length as
// the manifest list records, or the rewrite is not the lost file.
Status WriteAgain(ObjectStore* store, const Manifest& m, const WrittenManifest& written,
                  const std::vector<Entry>& entries, int content) {
  Manifest writer = m;
  writer.version = written.seq;
  ASSIGN_OR_RETURN(WrittenManifest again, WriteManifest(store, writer, entries, content, written.path));
  if (again.length != written.length) {
    return Status::Internal("iceberg: " + written.path + " written again has " + std::to_string(again.length) +
                            " bytes, the manifest list says " + std::to_string(written.length));
  }
  return Status::OK();
}

// Data manifest `written` of version `m`'s snapshot, written again: the entries of the fragments
// it lists, as the version that wrote it (`written.seq`) wrote them — a manifest is listed again
// only while all its files stay as they were, so `m` still has them.
Status RewriteDataManifest(ObjectStore* store, const Manifest& m, const WrittenManifest& written) {
  const json data = m.iceberg.value("data", json::object());
  std::set<uint32_t> listed(written.fragments.begin(), written.fragments.end());
  std::vector<Entry> entries;
  for (const FragmentMeta& f : m.fragments) {
    if (!listed.count(f.id)) continue;
    auto seq = data.find(std::to_string(f.id));
    if (seq == data.end() || !seq->is_number_unsigned()) {
      return Status::Corruption("iceberg: fragment " + std::to_string(f.id) + " of " + written.path +
                                " has no sequence number in the manifest's 'iceberg' object");
    }
    entries.push_back(DataEntry(m.iceberg, m, f, seq->get<uint64_t>()));
  }
  if (entries.size() != listed.size()) {
    return Status::Corruption("iceberg: " + written.path + " lists fragments version " + std::to_string(m.version) +
                              " does not have");
  }
  return WriteAgain(store, m, written, entries, /*content=*/0);
}

// The delete manifest `written` of version `m`'s snapshot, written again: one entry per fragment
// with deletions, as the version that wrote it wrote them.
Status RewriteDeleteManifest(ObjectStore* store, const Manifest& m, const WrittenManifest& written) {
  const json deletes = m.iceberg.value("deletes", json::object());
  std::vector<Entry> entries;
  for (const FragmentMeta& f : m.fragments) {
    if (!f.deletion) continue;
    auto del = deletes.find(std::to_string(f.id));
    if (del == deletes.end()) {
      return Status::Corruption("iceberg: fragment " + std::to_string(f.id) + " has deletions the 'iceberg' object lacks");
    }
    entries.push_back(DeleteEntry(m.iceberg, f, *del));
  }
  return WriteAgain(store, m, written, entries, /*content=*/1);
}

}  // namespace

Result<Rewritten> RewriteMissingFiles(ObjectStore* store, const Manifest& m) {
  Rewritten out;
  if (!Enabled(m)) return out;
  const json& state = m.iceberg;
  try {
    std::vector<WrittenManifest> manifests;  // as the manifest list lists them: data, then deletes
    for (const json& j : state.value("data_manifests", json::array())) {
      std::optional<WrittenManifest> written = WrittenManifest::FromJson(j);
      if (!written) return Status::Corruption("iceberg: a data manifest of version " + std::to_string(m.version) + " is malformed");
      manifests.push_back(std::move(*written));
      ASSIGN_OR_RETURN(const bool missing, Missing(store, manifests.back().path));
      if (!missing) continue;
      RETURN_IF_ERROR(RewriteDataManifest(store, m, manifests.back()));
      out.written.push_back(manifests.back().path + " (data manifest)");
    }
    if (state.contains("delete_manifest")) {
      std::optional<WrittenManifest> deletes = WrittenManifest::FromJson(state["delete_manifest"]);
      if (!deletes) return Status::Corruption("iceberg: the delete manifest of version " + std::to_string(m.version) + " is malformed");
      manifests.push_back(std::move(*deletes));
      ASSIGN_OR_RETURN(const bool missing, Missing(store, manifests.back().path));
      if (missing) {
        RETURN_IF_ERROR(RewriteDeleteManifest(store, m, manifests.back()));
        out.written.push_back(manifests.back().path + " (delete manifest)");
      }
    }
    const json deletes = state.value("deletes", json::object());
    for (const FragmentMeta& f : m.fragments) {
      auto del = deletes.find(std::to_string(f.id));
      if (!f.deletion || del == deletes.end()) continue;
      const std::string file = del->value("file", "");
      if (!IsMetadataFilePath(file)) continue;
      ASSIGN_OR_RETURN(const bool missing, Missing(store, file));
      if (!missing) continue;
      if (del->value("dv", "") != f.deletion->file) {  // written from another deletion vector
        out.left.push_back(file + " (deletes of fragment " + std::to_string(f.id) + ": its deletion vector changed since)");
        continue;
      }
      ASSIGN_OR_RETURN(const bool no_source, Missing(store, f.deletion->file));
      if (no_source) {  // verify names it
        out.left.push_back(file + " (deletes of fragment " + std::to_string(f.id) + ": its deletion vector is missing too)");
        continue;
      }
      // From the fragment's deletion vector, which the version still names.
      ASSIGN_OR_RETURN(json again, del->value("puffin", false) ? WriteDeletionVectorFile(store, state, f, file)
                                                               : WriteDeleteFile(store, state, f, file));
      if (again.value("size", uint64_t(0)) != del->value("size", uint64_t(0))) {
        return Status::Internal("iceberg: " + file + " written again has " + again.value("size", json()).dump() +
                                " bytes, the manifest says " + del->value("size", json()).dump());
      }
      out.written.push_back(file + " (deletes of fragment " + std::to_string(f.id) + ")");
    }
    const std::string list = state.value("manifest_list", "");
    if (IsMetadataFilePath(list)) {
      ASSIGN_OR_RETURN(const bool missing, Missing(store, list));
      if (missing) {
        // The list as the commit wrote it: its parent's snapshot, when it had one, in the state.
        const json snapshot = state.value("snapshot", json::object());
        json before = state;
        if (snapshot.contains("parent-snapshot-id")) {
          before["snapshot"] = json::object();
        } else {
          before.erase("snapshot");
        }
        RETURN_IF_ERROR(WriteManifestList(store, m, before, manifests, list, snapshot.value("first-row-id", uint64_t(0))));
        out.written.push_back(list + " (manifest list of snapshot " + std::to_string(m.version) + ")");
      }
    }
  } catch (const json::exception& e) {
    return Status::Corruption(std::string("iceberg: the manifest's 'iceberg' object is malformed (") + e.what() + ")");
  }
  return out;
}

}  // namespace lakeindex::table::iceberg
