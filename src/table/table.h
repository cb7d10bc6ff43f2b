// Table: a versioned dataset on an ObjectStore (docs/format.md).
//
// A Table object is a view of one version (its manifest). Writers (Create, Append, DeleteRows,
// Optimize) write their new files first, then commit the next version with an atomic
// create-if-absent of its manifest; a writer that loses the race re-reads the newest version,
// fails with Conflict if the other commit touched what it changed (deleted rows of, or rewrote, a
// fragment it changes), else rebases and retries. After a successful write the Table views the
// version it committed. A failed write leaves the table at its previous version (files written
// for the failed attempt are unreferenced; `vacuum` removes them).
// Thread safety: const methods may run concurrently; writers need external synchronization per
// Table object (different Table objects and processes may write concurrently).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/thread_pool.h"
#include "format/parquet/reader.h"
#include "format/parquet/writer.h"
#include "lakeindex/object_store.h"
#include "lakeindex/row_set.h"
#include "table/batch_source.h"
#include "table/iceberg.h"
#include "table/manifest.h"

namespace lakeindex::table {

// Rows per data page of table files (the Parquet writer's default is 8192). Index lookups read
// and decode whole pages, so the page size is what a lookup costs per row it returns: 1024-row
// pages make a hot range of 0.1% of 10M rows read candidate pages instead of whole files, for
// about 3% larger files and some scan CPU (bench/RESULTS.md, "Lookups, whole rows").
inline constexpr size_t kTablePageRows = 1024;
inline parquet::WriteOptions TableWriteOptions() {
  parquet::WriteOptions options;
  options.page_rows = kTablePageRows;
  options.page_map = true;  // lookups read a block of it, not every OffsetIndex (page_map.h)
  options.column_pool = ThreadPool::Default();
  return options;
}

// Runs on the manifest of every attempt to commit, after the operation's own changes, to add
// what must become visible in the same commit (the operations layer brings index segments up to
// date there: ops/operations.h). An error aborts the commit: nothing is visible.
using CommitHook = std::function<Status(Manifest* next)>;

// Columns of a table at most: every manifest carries each fragment's statistics per column, so a
// table of a million columns (a CSV with a runaway header) would make every version hundreds of
// megabytes. Wide real tables have thousands.
inline constexpr size_t kMaxColumns = 10000;

struct WriteConfig {
  uint64_t rows_per_file = 1000000;  // --rows-per-file
  parquet::WriteOptions parquet = TableWriteOptions();
  // Called with rows written so far (for progress output); may be empty.
  std::function<void(uint64_t)> progress;
  // Chained after the operation's own changes on every commit attempt (may be empty).
  CommitHook before_commit;
  // Memory the operation may take (bytes; 0: a quarter of RAM, at most 2 GiB). An append into an OTree places
  // its input a chunk at a time under it (layout_writer.h, AppendToLayout); optimizing an OTree
  // spills the rows it rewrites when they would not fit (OptimizeLayout).
  uint64_t memory_limit = 0;
  // Create only: keep Iceberg metadata from version 1 on (table/iceberg.h), the table being
  // read by other engines at this absolute URI (file:///abs/path, s3://bucket/prefix).
  std::optional<std::string> iceberg_location;
  // Create only, with iceberg_location: the Iceberg format version written (2 or 3; iceberg::NewState).
  int iceberg_format = 2;
};

// What Table::EnableIceberg did.
struct IcebergEnabled {
  std::string metadata;   // the newest version's metadata file (metadata/vN.metadata.json)
  bool committed = false; // a version was committed to start keeping Iceberg metadata
  Status unwritten;       // after that commit, writing the metadata failed (OK: written)
  size_t rewritten = 0;   // data files the commit replaced by portable ones (RewrittenFile)
};

// A data file written anew for fragment `to.id`: the same rows in the same order and row groups
// as its file `from`, other encodings or statistics (EnableIceberg's portable files). Indexes,
// deletion vectors and OTree blocks address rows by fragment and position, and stay valid.
struct RewrittenFile {
  std::string from;
  FragmentMeta to;
};

// The encodings of the files written into `m`'s table: one that keeps Iceberg metadata gets only
// those every engine reads with its default settings (parquet::WriteOptions::portable_encodings;
// docs/user-guide.md, "Reading a lakeindex table from other engines").
inline void ChooseEncodings(const Manifest& m, WriteConfig* config) {
  if (m.iceberg.is_object()) config->parquet.portable_encodings = true;
}

struct VersionInfo {
  uint64_t version = 0;
  int64_t timestamp_ms = 0;
  std::string operation;
  uint64_t rows = 0;
  size_t fragments = 0;
};

// What one commit changes, so that it can be re-applied on top of a newer version.
struct Transaction {
  std::string operation;
  std::vector<FragmentMeta> added;  // ids are assigned at commit
  std::set<uint32_t> removed;
  std::map<uint32_t, std::optional<DeletionRef>> deletions;  // fragment -> its new deletion file
  std::optional<Schema> schema;                              // create only
  // Further changes (indexes, layout) re-applied on every attempt; may return Conflict.
  std::function<Status(Manifest*)> apply_extra;
};

// A table's store, through a wrapper that counts requests and bytes
// (explain reports them); `path` is anything OpenStoreUri takes (a path, file:///, s3://). NotFound
// when `create` is false and a local path is no directory.
Result<std::shared_ptr<InstrumentedStore>> OpenTableStore(const std::string& path, bool create);
// The absolute URI of a table that `path` (as OpenTableStore takes it) names: file:///abs/path
// for a local path, the URI itself otherwise. Iceberg metadata names files by it.
std::string TableLocationUri(const std::string& path);

// A new Parquet data file under data/ (or at `path`, for temporaries under kTempDir), streamed to the store while its rows are written (each row
// group goes to the store when flushed; no whole file is assembled in memory). Finish publishes
// it and describes it as a fragment, not committed (the id is assigned at commit); dropping the
// stream unfinished abandons the object. Every writer of data files goes through here.
class DataFileStream {
 public:
  static Result<std::unique_ptr<DataFileStream>> Open(ObjectStore* store, const Schema& schema,
                                                      const parquet::WriteOptions& options, std::string path = "");
  parquet::ParquetWriter* writer() { return writer_.get(); }
  // Ends the file and publishes it: its rows and per-column statistics are the writer's, its
  // tail checksum is taken as the tail is written. The stream cannot be used afterwards.
  Result<FragmentMeta> Finish();

 private:
  DataFileStream() = default;
  std::string file_;
  std::unique_ptr<ObjectWriter> sink_;                // outlives writer_ (declared first)
  std::unique_ptr<parquet::ParquetWriter> writer_;
};

// One data file written through `write` on a DataFileStream's writer, then finished.
Result<FragmentMeta> StreamDataFile(ObjectStore* store, const Schema& schema, const parquet::WriteOptions& options,
                                    const std::function<Status(parquet::ParquetWriter* writer)>& write);

class Table {
 public:
  // A read-only view of `manifest` — e.g. the one being committed, whose new fragments a commit
  // hook indexes before it becomes visible. Its write methods must not be called.
  static std::unique_ptr<Table> View(std::shared_ptr<ObjectStore> store, Manifest manifest) {
    return std::unique_ptr<Table>(new Table(std::move(store), std::move(manifest)));
  }
  // Creates version 1 from `source`. InvalidArgument if a table already exists there.
  static Result<std::unique_ptr<Table>> Create(std::shared_ptr<ObjectStore> store, BatchSource* source,
                                               const WriteConfig& config);
  struct OpenOptions {
    // Called, on a remote store only, with the opened table in the round trip that confirms the
    // hinted version is the newest (or after loading the version asked for): what the caller
    // reads first (index directories, data file footers) then costs no round trip of its own.
    // It reports nothing (what failed is met again, and reported, when it is read for real);
    // the table it warmed is dropped when the hint turns out stale.
    std::function<void(const Table&)> prefetch;
  };
  // Opens the newest version, or `version` (time travel). NotFound if there is no table.
  static Result<std::unique_ptr<Table>> Open(std::shared_ptr<ObjectStore> store,
                                             std::optional<uint64_t> version = std::nullopt,
                                             const OpenOptions& options = {});

  // Makes this object view the newest version (a writer that lost a race starts over from it).
  // Not while other threads use the object.
  Status Reload();

  const Manifest& manifest() const { return manifest_; }
  const Schema& schema() const { return manifest_.schema; }
  uint64_t version() const { return manifest_.version; }
  ObjectStore* store() const { return store_.get(); }
  const std::shared_ptr<ObjectStore>& shared_store() const { return store_; }

  // Appends the rows of `source` (its schema must equal the table's) as new fragments.
  Status Append(BatchSource* source, const WriteConfig& config);
  // Marks rows deleted (addresses of live rows of this version); returns how many were newly
  // deleted. Conflict if a concurrent commit changed the deletions of the same fragments.
  Result<uint64_t> DeleteRows(const RowSet& rows);
  // Rewrites fragments that are small (under half of rows_per_file) or have deleted rows into
  // new fragments of up to rows_per_file live rows, dropping deleted rows. Returns the number of
  // fragments rewritten (0: nothing to do, no new version). Conflict if a concurrent commit
  // changed one of them.
  Result<size_t> Optimize(const WriteConfig& config);
  // Commits `txn` made against this version (used by the operations above, indexes, layout).
  Status Commit(Transaction txn);
  // Starts keeping Iceberg metadata (table/iceberg.h) with a commit that writes it for the
  // current rows, engines reading the table at `location` (an absolute URI). On a table that
  // keeps it already, commits nothing and writes whatever Iceberg metadata a crash left
  // unwritten (or damaged). With `move`, a table that keeps it at another location (a copied or
  // moved table) is moved to `location`: a commit that writes every Iceberg file anew under it,
  // its history starting there. An error only when nothing was committed; writing the files after
  // this call's commit failed is `unwritten`, for the caller to say (calling again writes them).
  // `rewritten` files replace theirs in the same commit (which they make happen on a table that
  // keeps Iceberg metadata already); Conflict when a concurrent commit replaced one first.
  // `format`: the Iceberg format version (2 or 3; default: 2, or the one the table keeps); on a
  // table that keeps another, a commit that writes every Iceberg file anew in it, as a move does.
  Result<IcebergEnabled> EnableIceberg(const std::string& location, bool move = false,
                                       std::vector<RewrittenFile> rewritten = {}, std::optional<int> format = {});

  // Deleted offsets of a fragment (empty if none); loaded once and cached.
  Result<std::shared_ptr<const roaring::Roaring>> Deletions(const FragmentMeta& fragment) const;
  // Opens a fragment's data file for reading: checks the tail checksum recorded in the manifest
  // (when there is one) before parsing any metadata, and the row count. Corruption naming the
  // file otherwise. Every reader of data files of a table goes through here.
  // Opened files are cached per Table (data files never change; their footers and page indexes
  // are then read once per Table, not once per query).
  Result<std::shared_ptr<const parquet::ParquetReader>> OpenDataFile(const FragmentMeta& fragment) const;
  // Bytes the cached readers of OpenDataFile hold, as last counted (tests).
  uint64_t reader_cache_bytes() const {
    std::lock_guard<std::mutex> lock(cache_mu_);
    return reader_cache_bytes_;
  }
  // An immutable object of this table opened once per Table and shared by every query through it
  // (index segments, by their directory): `open` runs on a miss; when two threads miss at once,
  // both open and the first result is kept. Survives this Table's later commits (the objects
  // never change; a version that no longer lists one simply does not ask for it).
  Result<std::shared_ptr<const void>> SharedObject(const std::string& key,
                                                   const std::function<Result<std::shared_ptr<const void>>()>& open) const;
  // All live rows of a fragment (deleted rows dropped), columns by schema index (empty = all).
  Result<Batch> ReadFragment(const FragmentMeta& fragment, const std::vector<int>& columns) const;
  // All live rows of this version, fragment by fragment (tests, small tables, optimize).
  Result<Batch> ReadAll(const std::vector<int>& columns = {}) const;
  // The same without joining them: the live rows of each fragment, in manifest order (read in
  // parallel), for callers that copy the rows anyway (the layout writer regroups them).
  Result<std::vector<Batch>> ReadFragments(const std::vector<int>& columns = {}) const;
  // The schema of rows read with `columns` (schema indexes; empty = all).
  Schema ReadSchema(const std::vector<int>& columns) const;

  // The live data files of this version, for engines that read the Parquet files themselves
  // (`lakeindex files`): per fragment {"path": location + "/" + its file, "file", "fragment",
  // "rows", "live_rows", "deleted": the positions (0-based row numbers in the file) of its deleted
  // rows, ascending, "file_size", "stats": per column as the manifest keeps them}. `location` is
  // the table as the caller names it (a directory or an s3:// URI).
  Result<nlohmann::json> Files(const std::string& location) const;
  // A check of the version beyond its files, by a layer above the table (ops::Verify passes the
  // layout section's and each index segment's): a line for the report (none when empty), or the
  // damage it found (Corruption, NotFound, InvalidArgument), which joins the damage list.
  using VersionCheck = std::function<Result<std::string>()>;
  // Reads every file this version references (manifest, data files with their page CRCs,
  // deletion vectors, index files the manifest records) and checks them against the manifest,
  // then runs `more`. Returns one line per file checked; damage is one Corruption error naming
  // every damaged or missing file.
  Result<std::vector<std::string>> Verify(const std::vector<VersionCheck>& more = {}) const;
  // Deletes files under data/, _deletions/, _indices/ and _tmp/ that no version references and that are
  // older than `older_than_ms` (so a concurrent writer's files, written before its commit, are
  // never removed), and what killed writers left that no listing shows, past the same age
  // (ObjectStore::RemoveAbandonedWrites). Returns the paths removed.
  Result<std::vector<std::string>> Vacuum(int64_t older_than_ms) const;
  // Version expiry (like Iceberg's expire_snapshots, Lance's cleanup_old_versions), one commit:
  // the versions older than the newest `keep` (>= 1, counting the new one) whose commit is older
  // than `older_than_ms` expire in a new version (operation "expire", the rows unchanged) that
  // records it (Manifest::expired_before; its Iceberg metadata file lists only the kept
  // snapshots). Time travel to them ends with that commit; their manifests are deleted after it,
  // oldest first, and Vacuum then removes the files only they referenced. Readers of the versions
  // kept are unaffected. A failure before the commit expires nothing; after it (deleting the
  // manifests), it is a warning: the next expiry deletes them.
  struct Expiry {
    std::vector<uint64_t> expired;      // versions expired, oldest first (empty: no commit)
    std::vector<std::string> warnings;  // what was left undone after the commit
  };
  Result<Expiry> ExpireVersions(uint64_t keep, int64_t older_than_ms);
  // Extra files a version references besides data and deletion files (indexes register theirs).
  static std::vector<std::string> ReferencedIndexPrefixes(const Manifest& m);
  // The files of `m` whose checksums its manifest records by name (Manifest::checksums): data
  // files, deletion vectors, Iceberg manifest lists and manifests. Index files are recorded too,
  // found under ReferencedIndexPrefixes.
  static std::vector<std::string> ChecksummedFiles(const Manifest& m);

  // Every committed version, oldest first (not those expired).
  Result<std::vector<VersionInfo>> Versions() const;
  // Newest committed version number. NotFound if none.
  static Result<uint64_t> LatestVersion(ObjectStore* store);
  // A table whose newest versions were lost (their manifests deleted or lost by the store, so
  // that opening it is Corruption naming them) goes on from the newest version left, once the
  // user names `lost`, the version the failed open named. Returns that newest version left.
  // InvalidArgument when `lost` is not what the version hint names, or the table opens anyway.
  static Result<uint64_t> AcceptLostVersions(ObjectStore* store, uint64_t lost);
  static Result<Manifest> LoadLatestManifest(ObjectStore* store);
  static Result<Manifest> LoadManifest(ObjectStore* store, uint64_t version);

  // Writes `batches` as data files of at most rows_per_file rows each (not committed).
  Result<std::vector<FragmentMeta>> WriteFragments(BatchSource* source, const Schema& schema,
                                                   const WriteConfig& config) const;

 private:
  Table(std::shared_ptr<ObjectStore> store, Manifest manifest)
      : store_(Recording(std::move(store))), manifest_(std::move(manifest)) {}
  // The store as a table uses it: an InstrumentedStore (kept as given when it is one), which
  // records the checksums of what the table's operations write (ObjectStore::WrittenChecksums).
  static std::shared_ptr<ObjectStore> Recording(std::shared_ptr<ObjectStore> store);
  // OpenDataFile without the cache (Verify reads what is on the store now).
  Result<std::unique_ptr<parquet::ParquetReader>> OpenDataFileUncached(const FragmentMeta& fragment) const;
  static Result<Manifest> CommitTransaction(ObjectStore* store, const Manifest& base, const Transaction& txn);
  static iceberg::Versions IcebergVersions(ObjectStore* store);
  // When the table keeps Iceberg metadata and its version hint does not name the newest version
  // (a crash came between the commit and its vN.metadata.json or the hint), writes what is
  // missing (table/iceberg.h, "Consistency"). Best effort; one read of the hint otherwise.
  void PublishMissingIceberg();

  std::shared_ptr<ObjectStore> store_;
  Manifest manifest_;
  mutable std::mutex cache_mu_;
  mutable std::map<std::string, std::shared_ptr<const roaring::Roaring>> deletion_cache_;
  // By file: a reader and the MemoryBytes it was last counted at (a reader's page indexes and
  // page map blocks are read after its open: each hit counts what it holds since).
  struct CachedReader {
    std::shared_ptr<const parquet::ParquetReader> reader;
    uint64_t counted = 0;
  };
  mutable std::map<std::string, CachedReader> reader_cache_;
  mutable uint64_t reader_cache_bytes_ = 0;  // what reader_cache_'s readers hold (MemoryBytes)
  mutable std::map<std::string, std::shared_ptr<const void>> object_cache_;                    // SharedObject
};

}  // namespace lakeindex::table
