// Iceberg table metadata (format v2) kept beside a lakeindex table, so that engines that read
// Iceberg (Spark, Trino, DuckDB, PyIceberg, icebird) read exactly a version's live rows and
// prune its data files by ordinary statistics (docs/iceberg.md).
//
// Every commit of a table that keeps it (the manifest's "iceberg" object is present) also
// writes, before its manifest:
//   metadata/{uuid}-m0.avro, -m1.avro     data manifests listing the live data files (with
//                                         per-column value/null/NaN counts and lower/upper
//                                         bounds) and, when rows are deleted, a delete manifest
//   metadata/snap-{version}-{uuid}.avro   the snapshot's manifest list
//   metadata/deletes/{fragment}-{uuid}.parquet  a position delete file (file_path, pos) per
//                                         deletion vector that has none yet (reused after)
// and, after the manifest is committed, metadata/v{version}.metadata.json (create-if-absent) and
// metadata/version-hint.text. Snapshot id = sequence number = lakeindex version. A data file's
// sequence number is the version that added it, a delete file's the version that wrote it.
//
// The manifest's "iceberg" object (opaque to manifest.h) holds the state carried from version
// to version: {"table_uuid", "location": the URI prefix of every path in the metadata,
// "data": {fragment id: sequence number}, "deletes": {fragment id: {"dv", "file", "size",
// "rows", "seq"}}, "manifests": [...], "data_manifests": [{"path", "fragments": [ids], the
// counts and sequence numbers the manifest list repeats, "schema"}], "delete_manifest": {...},
// "manifest_list", "snapshot": this version's snapshot as the metadata JSON lists it}.
//
// Manifests are reused as Iceberg's fast append does: a data manifest of the previous version
// whose files all stay live is listed again unchanged (a commit writes one manifest, of its new
// files and those of manifests that lost a file; over 16 data manifests, one of everything), and
// the delete manifest while the delete files stay the same. A commit so writes metadata in
// proportion to what it changes, not to the table's files.
//
// Consistency: the lakeindex manifest is the commit point. Iceberg readers see a version once
// its vN.metadata.json exists; a crash between the two leaves Iceberg one version behind until
// the next lakeindex open of the table, commit or `lakeindex iceberg enable` writes the missing
// files, which depend only on committed manifests (PublishMetadata rolls forward). Nothing a failed commit wrote is named
// by any metadata file Iceberg readers reach.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lakeindex/object_store.h"
#include "lakeindex/status.h"
#include "table/manifest.h"

namespace lakeindex::table::iceberg {

inline constexpr const char* kMetadataDir = "metadata/";
inline constexpr const char* kVersionHintPath = "metadata/version-hint.text";
// Iceberg's reserved field ids of a position delete file's columns.
inline constexpr int32_t kDeleteFilePathId = 2147483546;
inline constexpr int32_t kDeletePosId = 2147483545;
// String bounds longer than this are left out of the manifests (they would bloat them).
inline constexpr size_t kMaxStringBoundBytes = 256;

// metadata/v{version}.metadata.json
std::string MetadataPath(uint64_t version);
inline bool Enabled(const Manifest& m) { return m.iceberg.is_object(); }

// The "iceberg" object of a table that starts keeping Iceberg metadata; `location` is the
// absolute URI engines open the table at (file:///abs/path, s3://bucket/prefix).
// InvalidArgument for a location that is not an absolute URI.
// `format`: the Iceberg format version written, 2 or 3 (3: deletes as deletion vectors in
// Puffin files, row lineage; InvalidArgument about "iceberg_format" otherwise).
Result<nlohmann::json> NewState(const std::string& location, int format = 2);
// The format version a state is written in ("format"; 2 when absent).
int FormatVersion(const nlohmann::json& state);

// Before `next` is committed (its fragments, deletions and schema final; its "iceberg" object
// carried over from the version it derives from, or new): writes the position delete files
// missing, the manifests and the manifest list, and updates next->iceberg. Files written here are
// unreferenced until the commit succeeds.
Status PrepareCommit(ObjectStore* store, Manifest* next);

// For `next`, in which fragment `id` keeps its rows but names a new data file (a rewrite that
// keeps row positions): its Iceberg data file and position deletes are listed anew by
// PrepareCommit, not carried over from the previous version under the old path.
void FileReplaced(Manifest* next, uint32_t id);

// The table's versions, as PublishMetadata needs them.
struct Versions {
  std::function<Result<Manifest>(uint64_t)> load;  // a version's manifest (NotFound: none)
  std::function<Result<bool>(uint64_t)> exists;    // whether a version's manifest is there
};

// After `committed` is the newest version: writes its vN.metadata.json (create-if-absent: the
// content depends only on committed manifests, so whoever writes it first writes the same),
// first writing those of earlier versions a crash left without one, then the version hint
// (unless the next version's metadata file exists: its publisher writes the hint). The
// snapshots listed are the previous metadata's whose versions were not expired (below
// `committed.expired_before`, or their manifests gone), and this one: an expiry is a commit of
// its own, so metadata files are never rewritten (engines cache them by path). Returns the
// metadata file's path.
Result<std::string> PublishMetadata(ObjectStore* store, const Manifest& committed, const Versions& versions);


// Checks version `m`'s vN.metadata.json: there, intact (its own checksum), and describing this
// commit of the version (not a lost one of the same number). Corruption naming the file.
Status VerifyMetadata(ObjectStore* store, const Manifest& m);

// Every object under metadata/ version `m`'s Iceberg metadata names (vacuum keeps them).
std::vector<std::string> ReferencedFiles(const Manifest& m);

// Iceberg's single-value serialization of a statistic (lower/upper bounds); nullopt when the
// value has none here (NULL, a string over kMaxStringBoundBytes).
std::optional<std::string> BoundBytes(const Value& v, TypeId type);

}  // namespace lakeindex::table::iceberg
