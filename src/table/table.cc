#include "table/table.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <thread>

#include "common/thread_pool.h"
#include "common/uuid.h"
#include "format/parquet/reader.h"
#include "table/data_tail.h"
#include "table/deletion_vector.h"
#include "table/iceberg.h"

namespace lakeindex::table {

namespace {
constexpr size_t kSourceChunkRows = 64 * 1024;
constexpr int kMaxCommitAttempts = 200;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Randomized, growing pause between commit attempts so that racing writers spread out.
void Backoff(int attempt) {
  static thread_local std::mt19937 rng(std::random_device{}());
  int cap = std::min(50, 1 + attempt * 2);
  std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(0, cap)(rng)));
}

bool SameTypes(const Schema& a, const Schema& b) {
  if (a.num_fields() != b.num_fields()) return false;
  for (size_t i = 0; i < a.num_fields(); ++i) {
    if (a.field(i).name != b.field(i).name || a.field(i).type != b.field(i).type) return false;
  }
  return true;
}

Status CheckRequired(const Schema& schema, const Batch& batch, uint64_t first_row) {
  for (size_t c = 0; c < schema.num_fields(); ++c) {
    const Column& col = batch.column(c);
    if (schema.field(c).nullable || col.null_count() == 0) continue;
    for (size_t r = 0; r < col.length(); ++r) {
      if (col.IsNull(r)) {
        return Status::InvalidArgument("row " + std::to_string(first_row + r + 1) + ": NULL in NOT NULL column '" +
                                       schema.field(c).name + "'");
      }
    }
  }
  return Status::OK();
}

}  // namespace

Result<std::shared_ptr<InstrumentedStore>> OpenTableStore(const std::string& path, bool create) {
  std::string local;
  if (IsLocalUri(path, &local) && !create && !std::filesystem::is_directory(local)) {
    return Status::NotFound("no table at '" + path + "'");
  }
  ASSIGN_OR_RETURN(std::unique_ptr<ObjectStore> store, OpenStoreUri(path));
  return std::make_shared<InstrumentedStore>(std::shared_ptr<ObjectStore>(std::move(store)));
}

std::string TableLocationUri(const std::string& path) {
  std::string local;
  if (!IsLocalUri(path, &local)) return path;
  std::string abs = std::filesystem::absolute(local).lexically_normal().string();
  while (abs.size() > 1 && abs.back() == '/') abs.pop_back();
  return "file://" + abs;
}

Result<std::unique_ptr<DataFileStream>> DataFileStream::Open(ObjectStore* store, const Schema& schema,
                                                             const parquet::WriteOptions& options, std::string path) {
  std::unique_ptr<DataFileStream> stream(new DataFileStream());
  stream->file_ = path.empty() ? std::string(kDataDir) + NewUuid() + ".parquet" : std::move(path);
  ASSIGN_OR_RETURN(stream->sink_, store->OpenWriter(stream->file_));
  ASSIGN_OR_RETURN(stream->writer_, parquet::ParquetWriter::Make(schema, options, stream->sink_.get()));
  return stream;
}

Result<FragmentMeta> DataFileStream::Finish() {
  if (!writer_) return Status::Internal("data file '" + file_ + "' finished twice");
  FragmentMeta frag;
  frag.file = file_;
  ASSIGN_OR_RETURN(frag.file_size, writer_->FinishToSink());
  frag.rows = writer_->rows_written();
  const Schema& schema = writer_->schema();
  for (size_t c = 0; c < schema.num_fields(); ++c) frag.stats[schema.field(c).name] = writer_->column_stats()[c];
  for (const parquet::RowGroup& rg : writer_->metadata().row_groups) {
    for (size_t c = 0; c < rg.columns.size() && c < schema.num_fields(); ++c) {
      if (rg.columns[c].meta_data) frag.column_bytes[schema.field(c).name] += uint64_t(rg.columns[c].meta_data->total_compressed_size);
    }
  }
  frag.tail = RecordDataTail(frag.file_size, writer_->tail(), writer_->tail_parts());
  writer_.reset();
  RETURN_IF_ERROR(sink_->Close());
  sink_.reset();
  return frag;
}

Result<FragmentMeta> StreamDataFile(ObjectStore* store, const Schema& schema, const parquet::WriteOptions& options,
                                    const std::function<Status(parquet::ParquetWriter* writer)>& write) {
  ASSIGN_OR_RETURN(std::unique_ptr<DataFileStream> stream, DataFileStream::Open(store, schema, options));
  RETURN_IF_ERROR(write(stream->writer()));
  return stream->Finish();
}

namespace {

// Accumulates rows into one data file at a time (streamed to the store as it is written).
class FragmentBuilder {
 public:
  FragmentBuilder(ObjectStore* store, const Schema& schema, const WriteConfig& config)
      : store_(store), schema_(schema), config_(config) {}

  Status Add(const Batch& batch) {
    size_t offset = 0;
    while (offset < batch.num_rows()) {
      if (!stream_) {
        ASSIGN_OR_RETURN(stream_, DataFileStream::Open(store_, schema_, config_.parquet));
        rows_ = 0;
      }
      size_t take = size_t(std::min<uint64_t>(batch.num_rows() - offset, config_.rows_per_file - rows_));
      RETURN_IF_ERROR(stream_->writer()->Write(batch, offset, take));
      rows_ += take;
      offset += take;
      if (rows_ == config_.rows_per_file) RETURN_IF_ERROR(Flush());
    }
    return Status::OK();
  }

  Status Flush() {
    if (!stream_) return Status::OK();
    std::unique_ptr<DataFileStream> stream = std::move(stream_);
    ASSIGN_OR_RETURN(FragmentMeta frag, stream->Finish());
    fragments_.push_back(std::move(frag));
    return Status::OK();
  }

  std::vector<FragmentMeta> Take() { return std::move(fragments_); }

 private:
  ObjectStore* store_;
  const Schema& schema_;
  const WriteConfig& config_;
  std::unique_ptr<DataFileStream> stream_;  // the file being written, if any
  uint64_t rows_ = 0;                       // in it
  std::vector<FragmentMeta> fragments_;
};

// Streams the live rows of a list of fragments, one fragment at a time.
class FragmentsSource : public BatchSource {
 public:
  FragmentsSource(const Table* table, std::vector<const FragmentMeta*> fragments)
      : table_(table), fragments_(std::move(fragments)) {}
  const Schema& schema() const override { return table_->schema(); }
  Result<bool> Next(size_t max_rows, Batch* out) override {
    while (offset_ >= current_.num_rows()) {
      if (next_ >= fragments_.size()) return false;
      ASSIGN_OR_RETURN(current_, table_->ReadFragment(*fragments_[next_++], {}));
      offset_ = 0;
    }
    size_t take = std::min(max_rows, current_.num_rows() - offset_);
    *out = current_.Slice(offset_, take);
    offset_ += take;
    return true;
  }

 private:
  const Table* table_;
  std::vector<const FragmentMeta*> fragments_;
  size_t next_ = 0;
  Batch current_;
  size_t offset_ = 0;
};

Status CheckNoConflict(const Manifest& base, const Manifest& latest, uint32_t id) {
  const FragmentMeta* b = base.FindFragment(id);
  const FragmentMeta* l = latest.FindFragment(id);
  if (l == nullptr) {
    return Status::Conflict("fragment " + std::to_string(id) + " was rewritten or removed by a concurrent commit (now at version " +
                            std::to_string(latest.version) + "); retry the operation");
  }
  if (b == nullptr || !(b->file == l->file && b->deletion == l->deletion)) {
    return Status::Conflict("fragment " + std::to_string(id) + " was changed by a concurrent commit (now at version " +
                            std::to_string(latest.version) + "); retry the operation");
  }
  return Status::OK();
}
}  // namespace

// A test hook (src/cli/cli_concurrency_test.cc): with LAKEINDEX_PAUSE_BEFORE_COMMIT=1 the process
// stops itself (SIGSTOP) once, after writing its files and before its first attempt to commit, so
// that a test can run any other operation in between and then let it go on (SIGCONT).
static void PauseBeforeCommitForTests() {
  static std::atomic<bool> paused{false};
  const char* flag = std::getenv("LAKEINDEX_PAUSE_BEFORE_COMMIT");
  if (flag != nullptr && flag[0] == '1' && !paused.exchange(true)) ::raise(SIGSTOP);
}

// Versions committed between a listing and the probes that follow it, followed at most this far.
constexpr int kMaxVersionProbes = 64;

namespace {
// The checksums `m`'s manifest records: of each file it names (ChecksummedFiles, and the files
// under its index segments' folders), the one the version it was built on recorded, else the
// one taken as this process wrote it, else none.
std::map<std::string, uint64_t> RecordedChecksums(const Manifest& m, const std::map<std::string, uint64_t>& written) {
  std::map<std::string, uint64_t> out;
  auto take = [&](const std::string& path, uint64_t sum) { out.emplace(path, sum); };
  for (const std::string& path : Table::ChecksummedFiles(m)) {
    if (auto it = m.checksums.find(path); it != m.checksums.end()) take(path, it->second);
    else if (auto w = written.find(path); w != written.end()) take(path, w->second);
  }
  for (const std::string& prefix : Table::ReferencedIndexPrefixes(m)) {
    for (const auto* source : {&m.checksums, &written}) {
      for (auto it = source->lower_bound(prefix); it != source->end() && it->first.rfind(prefix, 0) == 0; ++it) {
        take(it->first, it->second);
      }
    }
  }
  return out;
}

// Creates a version's manifest and learns whether the version is ours. A conditional write's
// answer can be lost: the store applied it and the connection dropped, or an HTTP client re-sent
// it and got "exists" for our own object. So the outcome is decided by what the path holds
// afterwards, read back: our bytes (a manifest carries its commit's random commit_id, so no other
// writer's are equal) = committed; another manifest = another writer's commit (AlreadyExists);
// nothing, after a failed write = not committed (that failure is returned); unreadable =
// OutcomeUnknown, never a guess.
Status CreateManifest(ObjectStore* store, uint64_t version, const std::string& bytes) {
  const std::string path = ManifestPath(version);
  const Status created = store->CreateIfAbsent(path, bytes);
  if (created.ok()) return created;
  Result<std::string> there = store->ReadBounded(path, kMaxManifestBytes);
  if (there.ok()) {
    if (*there == bytes) return Status::OK();
    return created.IsAlreadyExists() ? created : Status::AlreadyExists(path + ": another writer's version");
  }
  if (there.status().IsNotFound()) {
    // Exists-then-gone is a version removed behind us: the next attempt sees what is there.
    if (created.IsAlreadyExists()) return created;
    return created.WithContext("version " + std::to_string(version) + " was not committed");
  }
  return Status::OutcomeUnknown("version " + std::to_string(version) + " may or may not have been committed: " +
                                "writing its manifest failed (" + created.message() +
                                ") and reading it back failed too (" + there.status().message() + ")");
}
}  // namespace

namespace {
// The numbers of the manifests `store` lists, ascending.
Result<std::vector<uint64_t>> ListedVersions(ObjectStore* store) {
  ASSIGN_OR_RETURN(auto objects, store->List(kVersionsDir));
  std::vector<uint64_t> versions;
  for (const ObjectInfo& o : objects) {
    if (auto v = ParseManifestPath(o.path)) versions.push_back(*v);
  }
  std::sort(versions.begin(), versions.end());
  return versions;
}

// A file the version names (`what`: "data file", "deletion vector") is not on the store: damage
// to the table, not a user's typo.
Status MissingFile(const char* what, const std::string& file, const FragmentMeta& fragment, const Status& lookup) {
  return Status::Corruption(std::string(what) + " " + file + " of fragment " + std::to_string(fragment.id) +
                            " is missing (" + lookup.message() + ")");
}
}  // namespace

namespace {

// Whether version v's manifest is there; something else at its path is damage.
Result<bool> ManifestThere(ObjectStore* store, uint64_t v) {
  const std::string path = ManifestPath(v);
  ASSIGN_OR_RETURN(const bool occupied, store->Occupied(path));
  if (!occupied) return false;
  auto size = store->Size(path);
  if (size.status().IsNotFound() || size.status().IsInvalidArgument()) {
    return Status::Corruption(path + ": something that is not a readable manifest is there (" +
                              size.status().message() + "); the table's newest version is damaged");
  }
  RETURN_IF_ERROR(size.status());
  return true;
}

// The versions after `from` that exist, followed forward: the newest version, or nullopt when
// more than kMaxVersionProbes follow (then a listing is cheaper). The path of the version after
// the newest must hold nothing: one that is there but is not a readable manifest (a directory, a
// symlink out of the table) is damage to report, never a reason to serve an older version.
Result<std::optional<uint64_t>> ProbeForward(ObjectStore* store, uint64_t from) {
  uint64_t latest = from;
  for (int probe = 0; probe < kMaxVersionProbes; ++probe) {
    ASSIGN_OR_RETURN(const bool there, ManifestThere(store, latest + 1));
    if (!there) return std::optional<uint64_t>(latest);
    ++latest;
  }
  return std::optional<uint64_t>();
}

struct Hint {
  uint64_t version = 0;
  std::optional<std::string> manifest;  // the copy of its manifest, when the hint carries one
};

// What the hint says, if it holds a number (a missing or garbled hint is no error: the versions
// are listed instead; a store that fails to answer is).
Result<std::optional<Hint>> ReadHint(ObjectStore* store) {
  auto text = store->ReadBounded(kLatestHintPath, kMaxHintedManifestBytes + 32);
  if (!text.ok()) {
    if (text.status().IsNotFound() || text.status().IsCorruption() || text.status().IsInvalidArgument()) {
      return std::optional<Hint>();
    }
    return text.status();
  }
  const size_t newline = std::min(text->find('\n'), text->size());
  if (newline == 0 || newline > 19) return std::optional<Hint>();
  Hint hint;
  for (size_t i = 0; i < newline; ++i) {
    const char c = (*text)[i];
    if (c < '0' || c > '9') return std::optional<Hint>();
    hint.version = hint.version * 10 + uint64_t(c - '0');
  }
  if (hint.version == 0) return std::optional<Hint>();
  if (newline < text->size()) hint.manifest = text->substr(newline + 1);
  return std::optional<Hint>(std::move(hint));
}

Result<std::optional<uint64_t>> HintedVersion(ObjectStore* store) {
  ASSIGN_OR_RETURN(std::optional<Hint> hint, ReadHint(store));
  return hint ? std::optional<uint64_t>(hint->version) : std::nullopt;
}

// The versions below which the table's versions expired, as the hint's copy of the newest manifest
// says (0 without a copy, or with one that does not parse: the hint is only a hint).
Result<uint64_t> HintedExpiredBefore(ObjectStore* store) {
  ASSIGN_OR_RETURN(std::optional<Hint> hint, ReadHint(store));
  if (!hint || !hint->manifest) return uint64_t(0);
  Result<Manifest> copy = ParseManifest(reinterpret_cast<const uint8_t*>(hint->manifest->data()), hint->manifest->size(),
                                        kLatestHintPath);
  return copy.ok() ? copy->expired_before : uint64_t(0);
}

// Best effort: the commit is already made, so a failure here changes nothing but the cost of
// the next open. `manifest` is the version's serialized manifest (a copy rides along when small).
void WriteLatestHint(ObjectStore* store, uint64_t version, std::string_view manifest) {
  std::string text = std::to_string(version);
  if (!manifest.empty() && manifest.size() <= kMaxHintedManifestBytes) text.append("\n").append(manifest);
  (void)store->Write(kLatestHintPath, text);
}

// The manifest the hint carries, if it is the newest version's: parsed and checked like any
// manifest, the next version absent and the hinted version's manifest equal to the copy — two
// requests sent together, while `alongside` runs on the copy (the caller's prefetch, which so
// costs no round trip of its own). nullopt when the hint does not settle it (no copy, stale,
// damaged, a failure): the careful path then decides and reports.
std::optional<Manifest> ConfirmedHintedManifest(ObjectStore* store, const Hint& hint,
                                                const std::function<void(const Manifest&)>& alongside) {
  if (!hint.manifest) return std::nullopt;
  auto parsed = ParseManifest(reinterpret_cast<const uint8_t*>(hint.manifest->data()), hint.manifest->size(),
                              kLatestHintPath);
  if (!parsed.ok() || parsed->version != hint.version) return std::nullopt;
  std::optional<Result<bool>> next_there;
  std::optional<Result<std::string>> hinted;
  ParallelForThreads(alongside ? 3 : 2, 3, [&](size_t i) {
    if (i == 0) next_there = ManifestThere(store, hint.version + 1);
    else if (i == 1) hinted = store->ReadBounded(ManifestPath(hint.version), kMaxHintedManifestBytes);
    else alongside(*parsed);
  });
  if (!next_there->ok() || next_there->value() || !hinted->ok() || hinted->value() != *hint.manifest) {
    return std::nullopt;
  }
  return std::move(*parsed);
}

}  // namespace

namespace {

// The error of a table whose hint names version `hinted` while `newest` is the newest manifest
// left (0: none).
Status LostVersions(ObjectStore* store, uint64_t hinted, uint64_t newest) {
  const std::string range = newest + 1 == hinted ? "version " + std::to_string(hinted)
                                                 : "versions " + std::to_string(newest + 1) + " to " + std::to_string(hinted);
  return Status::Corruption(store->Describe() + ": " + range + " committed but " +
                            (newest + 1 == hinted ? "its manifest is" : "their manifests are") + " gone (" +
                            ManifestPath(hinted) + " was deleted or lost by the store; " + kLatestHintPath +
                            " names version " + std::to_string(hinted) + ")" +
                            (newest == 0 ? std::string("; no version is left")
                                         : "; the newest version left is " + std::to_string(newest)) +
                            ". Nothing was read or changed: restore the manifest, or accept the loss and go on from "
                            "version " + std::to_string(newest) + " by recovering the table with version " +
                            std::to_string(hinted) + " named as lost");
}

// With a hint h: versions are only ever removed oldest first (ExpireVersions), so the versions
// that exist form one run [oldest, newest]; if h exists, every version after it up to the newest
// does, and probing forward from h finds the newest. `hinted_exists` = the caller checks that h
// exists itself when nothing follows it (it reads it next anyway); else it is asked here. A
// missing, unreadable or stale hint falls back to listing the versions.
Result<uint64_t> LatestVersionFrom(ObjectStore* store, std::optional<uint64_t> hint, bool hinted_exists) {
  if (hint) {
    ASSIGN_OR_RETURN(std::optional<uint64_t> newest, ProbeForward(store, *hint));
    if (newest && *newest > *hint) return *newest;
    if (newest) {
      if (hinted_exists) return *newest;
      ASSIGN_OR_RETURN(const bool there, ManifestThere(store, *hint));
      if (there) return *newest;
    }
  }
  ASSIGN_OR_RETURN(std::vector<uint64_t> versions, ListedVersions(store));
  if (versions.empty()) {
    if (hint) return LostVersions(store, *hint, 0);
    return Status::NotFound("no lakeindex table at " + store->Describe());
  }
  // A manifest that appeared since the listing is newer.
  ASSIGN_OR_RETURN(std::optional<uint64_t> newest, ProbeForward(store, versions.back()));
  const uint64_t latest = newest ? *newest : versions.back() + kMaxVersionProbes;
  // The hint is written only after its version committed, and never names a version older than
  // those that stay: a hint past every manifest means committed versions were lost.
  if (hint && latest < *hint) return LostVersions(store, *hint, latest);
  return latest;
}

// The newest manifest when the hint's copy did not settle it. On a remote store the hinted
// manifest and the probe for the one after it go in one round trip.
Result<Manifest> LatestManifestCarefully(ObjectStore* store, std::optional<uint64_t> hint) {
  if (hint && store->remote()) {
    std::optional<Result<std::optional<uint64_t>>> newest;
    std::optional<Result<Manifest>> hinted;
    ParallelForThreads(2, 2, [&](size_t i) {
      if (i == 0) newest = ProbeForward(store, *hint);
      else hinted = Table::LoadManifest(store, *hint);
    });
    if (newest->ok() && newest->value() == hint && hinted->ok()) return std::move(*hinted);
    if (newest->ok() && newest->value() > hint) return Table::LoadManifest(store, *newest->value());
    // Something to look at closer (a hinted version missing or damaged, a failure, a hint far
    // behind): the path below.
  }
  ASSIGN_OR_RETURN(uint64_t v, LatestVersionFrom(store, hint, /*hinted_exists=*/true));
  Result<Manifest> m = Table::LoadManifest(store, v);
  if (m.ok() || !(m.status().IsNotFound() || m.status().IsInvalidArgument())) return m;
  // A hint to an expired version, or something that is no manifest at the hinted path (damage,
  // which the careful path reports as such).
  ASSIGN_OR_RETURN(v, LatestVersionFrom(store, hint, /*hinted_exists=*/false));
  return Table::LoadManifest(store, v);
}

}  // namespace

Result<uint64_t> Table::AcceptLostVersions(ObjectStore* store, uint64_t lost) {
  ASSIGN_OR_RETURN(std::optional<uint64_t> hint, HintedVersion(store));
  if (!hint || *hint != lost) {
    return Status::InvalidArgument("version " + std::to_string(lost) + " is not the lost one: " +
                                   (hint ? kLatestHintPath + std::string(" names version ") + std::to_string(*hint)
                                         : std::string("there is no version hint")) +
                                   " (only the version a failed open names can be accepted as lost)");
  }
  Result<uint64_t> latest = LatestVersionFrom(store, hint, /*hinted_exists=*/false);
  if (latest.ok()) {
    return Status::InvalidArgument("version " + std::to_string(lost) + " is not lost: the table opens at version " +
                                   std::to_string(*latest));
  }
  if (!latest.status().IsCorruption()) return latest.status();  // the store failing, not a loss
  ASSIGN_OR_RETURN(const bool there, ManifestThere(store, lost));
  if (there) return Status::InvalidArgument("version " + std::to_string(lost) + " is there: nothing to accept");
  ASSIGN_OR_RETURN(std::vector<uint64_t> versions, ListedVersions(store));
  if (versions.empty()) return Status::NotFound("no version is left at " + store->Describe() + ": nothing to go on from");
  const uint64_t newest = versions.back();
  ASSIGN_OR_RETURN(std::string manifest, store->ReadBounded(ManifestPath(newest), kMaxManifestBytes));
  RETURN_IF_ERROR(ParseManifest(reinterpret_cast<const uint8_t*>(manifest.data()), manifest.size(),
                                ManifestPath(newest)).status());
  // The hint is the only thing that remembers the loss; written, the table opens at `newest` and
  // the next commit takes the lost number (Iceberg metadata of the lost version gives way then).
  std::string text = std::to_string(newest);
  if (manifest.size() <= kMaxHintedManifestBytes) text.append("\n").append(manifest);
  RETURN_IF_ERROR(store->Write(kLatestHintPath, text));
  return newest;
}

Result<uint64_t> Table::LatestVersion(ObjectStore* store) {
  ASSIGN_OR_RETURN(std::optional<uint64_t> hint, HintedVersion(store));
  return LatestVersionFrom(store, hint, /*hinted_exists=*/false);
}

Result<Manifest> Table::LoadManifest(ObjectStore* store, uint64_t version) {
  std::string path = ManifestPath(version);
  auto missing = [&](const Status& st) {
    return st.IsNotFound() ? Status::NotFound("table has no version " + std::to_string(version)) : st;
  };
  // Bounded: a hostile or damaged object is refused without being read whole.
  auto bytes = store->ReadBounded(path, kMaxManifestBytes);
  if (!bytes.ok()) {
    if (bytes.status().IsCorruption()) {
      return Status::Corruption(bytes.status().message() + " (a manifest may hold " +
                                std::to_string(kMaxManifestBytes >> 20) + " MiB)");
    }
    return missing(bytes.status());
  }
  ASSIGN_OR_RETURN(Manifest m, ParseManifest(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size(), path));
  if (m.version != version) return Status::Corruption(path + ": says it is version " + std::to_string(m.version));
  return m;
}

std::shared_ptr<ObjectStore> Table::Recording(std::shared_ptr<ObjectStore> store) {
  if (dynamic_cast<InstrumentedStore*>(store.get()) != nullptr) return store;
  return std::make_shared<InstrumentedStore>(std::move(store));
}

Result<std::unique_ptr<Table>> Table::Open(std::shared_ptr<ObjectStore> store, std::optional<uint64_t> version,
                                            const OpenOptions& options) {
  const bool prefetch = options.prefetch && store->remote();  // it pays where requests wait
  std::optional<Result<Manifest>> m;
  if (version) {
    // The version, and the newest's mark of expired versions (the hint's copy), together on a
    // remote store: a version that expired is refused even while its manifest is still there (an
    // expiry that stopped before deleting it).
    std::optional<Result<uint64_t>> expired_before;
    ParallelForThreads(2, store->remote() ? 2 : 1, [&](size_t i) {
      if (i == 0) m = LoadManifest(store.get(), *version);
      else expired_before = HintedExpiredBefore(store.get());
    });
    RETURN_IF_ERROR(expired_before->status());
    if ((m->ok() || m->status().IsNotFound()) && *version < **expired_before) {
      return Status::NotFound("table has no version " + std::to_string(*version) + ": it expired (vacuum --keep-versions)");
    }
  } else {
    // Two round trips when the hint holds (it, then its confirmation with the prefetch).
    ASSIGN_OR_RETURN(std::optional<Hint> hint, ReadHint(store.get()));
    if (hint) {
      std::unique_ptr<Table> warmed;
      std::function<void(const Manifest&)> alongside;
      if (prefetch) {
        alongside = [&](const Manifest& hinted) {
          warmed.reset(new Table(store, hinted));
          options.prefetch(*warmed);
        };
      }
      if (std::optional<Manifest> confirmed = ConfirmedHintedManifest(store.get(), *hint, alongside)) {
        if (!warmed) warmed.reset(new Table(std::move(store), std::move(*confirmed)));
        warmed->PublishMissingIceberg();
        return warmed;
      }
    }
    m = LatestManifestCarefully(store.get(), hint ? std::optional<uint64_t>(hint->version) : std::nullopt);
  }
  RETURN_IF_ERROR(m->status());
  std::unique_ptr<Table> table(new Table(std::move(store), std::move(**m)));
  if (!version) table->PublishMissingIceberg();
  if (prefetch) options.prefetch(*table);
  return table;
}

void Table::PublishMissingIceberg() {
  if (!iceberg::Enabled(manifest_)) return;
  // The hint is written last: when it names this version, the metadata file is there too.
  Result<std::string> hint = store_->ReadBounded(iceberg::kVersionHintPath, 32);
  if (hint.ok() && *hint == std::to_string(manifest_.version)) return;
  if (!hint.ok() && !hint.status().IsNotFound()) return;
  // Best effort, as after a commit: a store this process may not write to keeps the gap.
  (void)iceberg::PublishMetadata(store_.get(), manifest_, IcebergVersions(store_.get()));
}

// On S3, when the hint holds: the hint (GET), then the next version's absence (HEAD) and the
// hinted manifest (GET) together — three requests in two round trips however many versions the
// table has; the listing only when the hint does not hold.
Result<Manifest> Table::LoadLatestManifest(ObjectStore* store) {
  ASSIGN_OR_RETURN(std::optional<Hint> hint, ReadHint(store));
  if (hint) {
    if (std::optional<Manifest> confirmed = ConfirmedHintedManifest(store, *hint, {})) return std::move(*confirmed);
  }
  return LatestManifestCarefully(store, hint ? std::optional<uint64_t>(hint->version) : std::nullopt);
}

Status Table::Reload() {
  ASSIGN_OR_RETURN(manifest_, LoadLatestManifest(store_.get()));
  return Status::OK();
}

Result<std::vector<FragmentMeta>> Table::WriteFragments(BatchSource* source, const Schema& schema,
                                                        const WriteConfig& config) const {
  if (config.rows_per_file == 0 || config.rows_per_file > UINT32_MAX) {
    return Status::InvalidArgument("must be between 1 and 4294967295").About("rows_per_file");
  }
  FragmentBuilder builder(store_.get(), schema, config);
  Batch batch;
  uint64_t rows = 0;
  const size_t chunk_rows = std::max(kSourceChunkRows, source->held_rows());  // held: no copy
  while (true) {
    ASSIGN_OR_RETURN(bool more, source->Next(chunk_rows, &batch));
    if (!more) break;
    RETURN_IF_ERROR(CheckRequired(schema, batch, rows));
    RETURN_IF_ERROR(builder.Add(batch));
    rows += batch.num_rows();
    if (config.progress) config.progress(rows);
  }
  RETURN_IF_ERROR(builder.Flush());
  return builder.Take();
}

Result<std::unique_ptr<Table>> Table::Create(std::shared_ptr<ObjectStore> store, BatchSource* source,
                                             const WriteConfig& given) {
  WriteConfig config = given;
  if (config.iceberg_location) config.parquet.portable_encodings = true;  // as ChooseEncodings
  auto latest = LatestVersion(store.get());
  if (latest.ok()) return Status::InvalidArgument("a table already exists at " + store->Describe());
  if (!latest.status().IsNotFound()) return latest.status();
  if (source->schema().num_fields() == 0) return Status::InvalidArgument("the source has no columns");
  if (source->schema().num_fields() > kMaxColumns) {
    return Status::InvalidArgument("the source has " + std::to_string(source->schema().num_fields()) +
                                   " columns; a table has at most " + std::to_string(kMaxColumns));
  }
  for (const Field& f : source->schema().fields()) {
    if (IsHiddenColumn(f.name)) {
      return Status::InvalidArgument("column '" + f.name + "': names starting with '" + std::string(kHiddenColumnPrefix) +
                                     "' are reserved for lakeindex's own columns; rename it");
    }
  }
  std::unique_ptr<Table> table(new Table(store, Manifest{}));
  Transaction txn;
  txn.operation = "create";
  txn.schema = source->schema();
  if (config.iceberg_location) {
    ASSIGN_OR_RETURN(nlohmann::json state, iceberg::NewState(*config.iceberg_location, config.iceberg_format));
    txn.apply_extra = [state](Manifest* next) {
      next->iceberg = state;
      return Status::OK();
    };
  }
  ASSIGN_OR_RETURN(txn.added, table->WriteFragments(source, *txn.schema, config));
  RETURN_IF_ERROR(table->Commit(std::move(txn)));
  return table;
}

Status Table::Append(BatchSource* source, const WriteConfig& config) {
  if (!SameTypes(source->schema(), schema())) {
    return Status::InvalidArgument("schema mismatch: the table has (" + schema().ToString() + ") but the input has (" +
                                   source->schema().ToString() + ")");
  }
  Transaction txn;
  txn.operation = "append";
  ASSIGN_OR_RETURN(txn.added, WriteFragments(source, schema(), config));
  if (txn.added.empty()) return Status::OK();  // nothing to append: no new version
  txn.apply_extra = config.before_commit;
  return Commit(std::move(txn));
}

Result<size_t> Table::Optimize(const WriteConfig& config) {
  if (manifest_.layout.is_object() && manifest_.layout.value("kind", "") == "otree") {
    // Merging files here would lose the blocks' cube records: the layout optimizes its own files.
    return Status::InvalidArgument("the table has an OTree layout: optimize it with layout::OptimizeLayout (the CLI does)");
  }
  std::vector<const FragmentMeta*> rewrite;
  bool any_deletions = false;
  for (const FragmentMeta& f : manifest_.fragments) {
    bool small = f.rows < config.rows_per_file / 2;
    if (f.deletion || small) rewrite.push_back(&f);
    any_deletions |= f.deletion.has_value();
  }
  if (rewrite.empty() || (rewrite.size() == 1 && !any_deletions)) return size_t(0);
  Transaction txn;
  txn.operation = "optimize";
  for (const FragmentMeta* f : rewrite) txn.removed.insert(f->id);
  FragmentsSource source(this, rewrite);
  ASSIGN_OR_RETURN(txn.added, WriteFragments(&source, schema(), config));
  txn.apply_extra = config.before_commit;
  RETURN_IF_ERROR(Commit(std::move(txn)));
  return rewrite.size();
}

Result<uint64_t> Table::DeleteRows(const RowSet& rows) {
  Transaction txn;
  txn.operation = "delete";
  uint64_t newly_deleted = 0;
  uint64_t seen = 0;
  for (const FragmentMeta& fragment : manifest_.fragments) {
    std::vector<uint32_t> offsets = rows.OffsetsIn(fragment.id);
    if (offsets.empty()) continue;
    seen += offsets.size();
    uint32_t fragment_id = fragment.id;
    const FragmentMeta* frag = &fragment;
    roaring::Roaring requested(offsets.size(), offsets.data());
    ASSIGN_OR_RETURN(auto old, Deletions(*frag));
    roaring::Roaring added = requested - *old;
    if (added.isEmpty()) continue;
    if (added.maximum() >= frag->rows) {
      return Status::InvalidArgument("delete: row " + std::to_string(added.maximum()) + " is beyond fragment " +
                                     std::to_string(fragment_id));
    }
    DeletionVector dv;
    dv.fragment_id = fragment_id;
    dv.fragment_rows = uint32_t(frag->rows);
    dv.deleted = *old | added;
    DeletionRef ref;
    ref.file = std::string(kDeletionsDir) + std::to_string(fragment_id) + "-" + NewUuid() + ".bin";
    ref.count = dv.deleted.cardinality();
    RETURN_IF_ERROR(store_->Write(ref.file, EncodeDeletionVector(dv)));
    txn.deletions[fragment_id] = ref;
    newly_deleted += added.cardinality();
  }
  if (seen != rows.Cardinality()) return Status::InvalidArgument("delete: row addresses outside the table's fragments");
  if (newly_deleted == 0) return uint64_t(0);
  RETURN_IF_ERROR(Commit(std::move(txn)));
  return newly_deleted;
}

Result<Manifest> Table::CommitTransaction(ObjectStore* store, const Manifest& base, const Transaction& txn) {
  for (int attempt = 0; attempt < kMaxCommitAttempts; ++attempt) {
    Manifest next;
    if (txn.schema) {
      next.schema = *txn.schema;  // create: nothing to rebase on
    } else {
      ASSIGN_OR_RETURN(uint64_t latest_version, LatestVersion(store));
      if (latest_version == base.version) {
        next = base;
      } else {
        ASSIGN_OR_RETURN(next, LoadManifest(store, latest_version));
        // Files written for the old schema cannot join a table whose schema changed (a layout
        // adds or drops hidden columns): nothing is committed, the caller sees Conflict.
        if (!(next.schema == base.schema) && !txn.added.empty()) {
          return Status::Conflict("the table's schema changed in a concurrent commit (now at version " +
                                  std::to_string(latest_version) + "): " + txn.operation +
                                  " committed nothing; run it again");
        }
        for (uint32_t id : txn.removed) RETURN_IF_ERROR(CheckNoConflict(base, next, id));
        for (const auto& [id, ref] : txn.deletions) RETURN_IF_ERROR(CheckNoConflict(base, next, id));
      }
    }
    next.parent_version = next.version;
    next.version = next.version + 1;
    next.timestamp_ms = NowMs();
    next.operation = txn.operation;
    if (!txn.removed.empty()) {
      std::erase_if(next.fragments, [&](const FragmentMeta& f) { return txn.removed.count(f.id) > 0; });
    }
    for (auto& f : next.fragments) {
      if (auto it = txn.deletions.find(f.id); it != txn.deletions.end()) f.deletion = it->second;
    }
    for (FragmentMeta f : txn.added) {
      if (next.next_fragment_id == UINT32_MAX) return Status::InvalidArgument("table has used every fragment id");
      f.id = next.next_fragment_id++;
      next.fragments.push_back(std::move(f));
    }
    if (txn.apply_extra) RETURN_IF_ERROR(txn.apply_extra(&next));
    if (iceberg::Enabled(next)) next.iceberg["parent_commit_id"] = next.commit_id;  // the version built on
    next.commit_id = NewUuid();
    if (iceberg::Enabled(next)) RETURN_IF_ERROR(iceberg::PrepareCommit(store, &next));
    next.checksums = RecordedChecksums(next, store->WrittenChecksums());
    const std::string serialized = SerializeManifest(next);
    if (serialized.size() > kMaxManifestBytes) {
      return Status::InvalidArgument(txn.operation + ": the table's manifest would grow to " +
                                     std::to_string(serialized.size() >> 20) + " MiB, beyond the " +
                                     std::to_string(kMaxManifestBytes >> 20) + " MiB a manifest may hold (" +
                                     std::to_string(next.fragments.size()) +
                                     " fragments); nothing was committed: merge fragments with optimize, or "
                                     "write larger files");
    }
    PauseBeforeCommitForTests();
    Status st = CreateManifest(store, next.version, serialized);
    if (st.ok()) {
      WriteLatestHint(store, next.version, serialized);
      // Committed: the Iceberg metadata follows. Best effort like the hint — a failure here is
      // made good by the next commit or `iceberg enable` (iceberg.h, "Consistency").
      if (iceberg::Enabled(next)) (void)iceberg::PublishMetadata(store, next, IcebergVersions(store));
      return next;
    }
    if (!st.IsAlreadyExists()) return st;
    if (txn.schema) return Status::InvalidArgument("a table already exists at " + store->Describe());
    Backoff(attempt);
  }
  return Status::Conflict("gave up committing after " + std::to_string(kMaxCommitAttempts) +
                          " attempts: too many concurrent writers");
}

iceberg::Versions Table::IcebergVersions(ObjectStore* store) {
  return {[store](uint64_t v) { return LoadManifest(store, v); },
          [store](uint64_t v) { return ManifestThere(store, v); }};
}

Result<IcebergEnabled> Table::EnableIceberg(const std::string& location, bool move, std::vector<RewrittenFile> rewritten,
                                            std::optional<int> format) {
  IcebergEnabled out;
  const bool enabled = iceberg::Enabled(manifest_);
  const std::string from = enabled ? manifest_.iceberg.value("location", "") : "";
  const int current = enabled ? iceberg::FormatVersion(manifest_.iceberg) : 2;
  ASSIGN_OR_RETURN(nlohmann::json state, iceberg::NewState(enabled && !move ? from : location, format.value_or(current)));
  const bool relocated = enabled && state["location"] != from;
  // A move, or another format version: every Iceberg file written anew, a history starting there.
  const bool moving = relocated || (enabled && iceberg::FormatVersion(state) != current);
  if (!enabled || moving || !rewritten.empty()) {
    Transaction txn;
    txn.operation = relocated ? "iceberg move" : "iceberg enable";
    txn.apply_extra = [state, moving, from, rewritten](Manifest* next) mutable {
      for (const RewrittenFile& r : rewritten) {
        auto f = std::find_if(next->fragments.begin(), next->fragments.end(),
                              [&](const FragmentMeta& m) { return m.id == r.to.id; });
        if (f == next->fragments.end() || f->file != r.from || f->rows != r.to.rows) {
          return Status::Conflict("fragment " + std::to_string(r.to.id) + " was rewritten by a concurrent commit; "
                                  "iceberg enable committed nothing: run it again");
        }
        std::optional<DeletionRef> deletion = f->deletion;  // rows keep their positions: it stands
        *f = r.to;
        f->deletion = std::move(deletion);
        iceberg::FileReplaced(next, r.to.id);
      }
      if (!moving) {
        if (!iceberg::Enabled(*next)) next->iceberg = state;  // a concurrent enable stands
        return Status::OK();
      }
      if (!iceberg::Enabled(*next) || next->iceberg.value("location", "") != from) {
        return Status::Conflict("the table's Iceberg location changed in a concurrent commit; iceberg enable "
                                "committed nothing: run it again");
      }
      // Every Iceberg file names the location: all are written anew under the new one, a history
      // that starts here (as a first enable's), the table's uuid kept.
      state["table_uuid"] = next->iceberg.value("table_uuid", state["table_uuid"].get<std::string>());
      next->iceberg = state;
      return Status::OK();
    };
    RETURN_IF_ERROR(Commit(std::move(txn)));
    out.committed = true;
    out.rewritten = rewritten.size();
  }
  out.metadata = iceberg::MetadataPath(manifest_.version);
  Result<std::string> published = iceberg::PublishMetadata(store_.get(), manifest_, IcebergVersions(store_.get()));
  // Once committed, writing the files is the best-effort part, as after any commit: its failure
  // is no failure of the command (the version is there), but the caller says it.
  if (!published.ok() && !out.committed) return published.status();
  out.unwritten = published.status();
  return out;
}

Status Table::Commit(Transaction txn) {
  ASSIGN_OR_RETURN(Manifest committed, CommitTransaction(store_.get(), manifest_, txn));
  manifest_ = std::move(committed);
  return Status::OK();
}

Result<std::shared_ptr<const roaring::Roaring>> Table::Deletions(const FragmentMeta& fragment) const {
  if (!fragment.deletion) return std::make_shared<const roaring::Roaring>();
  const std::string& file = fragment.deletion->file;
  {
    std::lock_guard<std::mutex> lock(cache_mu_);
    if (auto it = deletion_cache_.find(file); it != deletion_cache_.end()) return it->second;
  }
  Result<std::string> bytes = store_->Read(file);
  if (!bytes.ok() && bytes.status().IsNotFound()) return MissingFile("deletion vector", file, fragment, bytes.status());
  RETURN_IF_ERROR(bytes.status());
  ASSIGN_OR_RETURN(DeletionVector dv,
                   DecodeDeletionVector(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size(), file));
  if (dv.fragment_id != fragment.id || dv.fragment_rows != fragment.rows ||
      dv.deleted.cardinality() != fragment.deletion->count) {
    return Status::Corruption(file + ": deletion vector does not match fragment " + std::to_string(fragment.id));
  }
  auto shared = std::make_shared<const roaring::Roaring>(std::move(dv.deleted));
  std::lock_guard<std::mutex> lock(cache_mu_);
  deletion_cache_[file] = shared;
  return shared;
}

Result<std::vector<VersionInfo>> Table::Versions() const {
  ASSIGN_OR_RETURN(std::vector<uint64_t> versions, ListedVersions(store_.get()));
  std::vector<VersionInfo> out;
  uint64_t expired_before = manifest_.expired_before;
  for (uint64_t v : versions) {
    ASSIGN_OR_RETURN(Manifest m, LoadManifest(store_.get(), v));
    expired_before = std::max(expired_before, m.expired_before);
    out.push_back(VersionInfo{m.version, m.timestamp_ms, m.operation, m.total_rows(), m.fragments.size()});
  }
  // Expired, their manifests not yet deleted (an expiry that stopped).
  std::erase_if(out, [&](const VersionInfo& v) { return v.version < expired_before; });
  return out;
}

Result<std::shared_ptr<const parquet::ParquetReader>> Table::OpenDataFile(const FragmentMeta& fragment) const {
  // Beyond this many open files, or this many bytes held by them, the cache starts over (a
  // footer is kilobytes; the page indexes of a file of small pages, as OTree files are,
  // megabytes: a 100M-row OTree table's readers would hold 300 MB).
  constexpr size_t kMaxCachedReaders = 4096;
  constexpr uint64_t kMaxCachedReaderBytes = uint64_t(64) << 20;
  {
    std::lock_guard<std::mutex> lock(cache_mu_);
    if (auto it = reader_cache_.find(fragment.file); it != reader_cache_.end()) {
      std::shared_ptr<const parquet::ParquetReader> reader = it->second.reader;
      const uint64_t now = reader->MemoryBytes();
      if (now > it->second.counted) {  // readers only grow
        reader_cache_bytes_ += now - it->second.counted;
        it->second.counted = now;
      }
      if (reader_cache_bytes_ > kMaxCachedReaderBytes) {
        reader_cache_.clear();
        reader_cache_bytes_ = 0;
      }
      return reader;
    }
  }
  ASSIGN_OR_RETURN(std::unique_ptr<parquet::ParquetReader> opened, OpenDataFileUncached(fragment));
  std::shared_ptr<const parquet::ParquetReader> reader = std::move(opened);
  std::lock_guard<std::mutex> lock(cache_mu_);
  const uint64_t bytes = reader->MemoryBytes();
  if (reader_cache_.size() >= kMaxCachedReaders || reader_cache_bytes_ + bytes > kMaxCachedReaderBytes) {
    reader_cache_.clear();
    reader_cache_bytes_ = 0;
  }
  if (reader_cache_.emplace(fragment.file, CachedReader{reader, bytes}).second) reader_cache_bytes_ += bytes;
  return reader;
}

Result<std::shared_ptr<const void>> Table::SharedObject(
    const std::string& key, const std::function<Result<std::shared_ptr<const void>>()>& open) const {
  {
    std::lock_guard<std::mutex> lock(cache_mu_);
    if (auto it = object_cache_.find(key); it != object_cache_.end()) return it->second;
  }
  ASSIGN_OR_RETURN(std::shared_ptr<const void> opened, open());
  std::lock_guard<std::mutex> lock(cache_mu_);
  return object_cache_.emplace(key, std::move(opened)).first->second;
}

Result<std::unique_ptr<parquet::ParquetReader>> Table::OpenDataFileUncached(const FragmentMeta& fragment) const {
  auto opened = parquet::ParquetReader::Open(store_.get(), fragment.file, DataFileOpenOptions(fragment, !store_->remote()));
  if (!opened.ok() && opened.status().IsNotFound()) return MissingFile("data file", fragment.file, fragment, opened.status());
  ASSIGN_OR_RETURN(auto reader, std::move(opened));
  if (uint64_t(reader->num_rows()) != fragment.rows) {
    return Status::Corruption(fragment.file + ": has " + std::to_string(reader->num_rows()) + " rows, the manifest says " +
                              std::to_string(fragment.rows));
  }
  return reader;
}

Result<Batch> Table::ReadFragment(const FragmentMeta& fragment, const std::vector<int>& columns) const {
  std::vector<int> cols = columns;
  if (cols.empty()) {
    for (size_t c = 0; c < schema().num_fields(); ++c) cols.push_back(int(c));
  }
  const Schema out_schema = ReadSchema(cols);
  ASSIGN_OR_RETURN(auto reader, OpenDataFile(fragment));
  ASSIGN_OR_RETURN(auto deleted, Deletions(fragment));
  if (reader->num_row_groups() == 1 && deleted->isEmpty()) {  // the common case: no copy
    ASSIGN_OR_RETURN(Batch part, reader->ReadRowGroup(0, cols));
    return Batch(out_schema, std::move(part.columns()), part.num_rows());
  }
  Batch out(out_schema);
  uint64_t first = 0;
  for (int rg = 0; rg < reader->num_row_groups(); ++rg) {
    ASSIGN_OR_RETURN(Batch part, reader->ReadRowGroup(rg, cols));
    std::vector<uint32_t> live;
    live.reserve(part.num_rows());
    for (uint32_t r = 0; r < part.num_rows(); ++r) {
      if (!deleted->contains(uint32_t(first + r))) live.push_back(r);
    }
    for (size_t c = 0; c < cols.size(); ++c) {
      if (live.size() == part.num_rows()) {
        out.mutable_column(c).AppendSlice(part.column(c), 0, live.size());
      } else {
        out.mutable_column(c).AppendSelected(part.column(c), live.data(), live.size());
      }
    }
    first += part.num_rows();
  }
  RETURN_IF_ERROR(out.Seal());
  return out;
}

Schema Table::ReadSchema(const std::vector<int>& columns) const {
  if (columns.empty()) return schema();
  Schema s;
  for (int c : columns) s.AddField(schema().field(size_t(c)));
  return s;
}

Result<std::vector<Batch>> Table::ReadFragments(const std::vector<int>& columns) const {
  const Schema s = ReadSchema(columns);
  const std::vector<FragmentMeta>& fragments = manifest_.fragments;
  std::vector<Result<Batch>> read(fragments.size(), Status::Internal("fragment not read"));
  ParallelFor(ThreadPool::Default(), fragments.size(), [&](size_t i) { read[i] = ReadFragment(fragments[i], columns); });
  std::vector<Batch> parts;
  for (Result<Batch>& part : read) {
    if (!part.ok()) return part.status();
    if (!(part->schema() == s)) {
      return Status::Internal("fragment read as " + part->schema().ToString() + ", expected " + s.ToString());
    }
    parts.push_back(std::move(*part));
  }
  return parts;
}

Result<Batch> Table::ReadAll(const std::vector<int>& columns) const {
  // Fragments are read in parallel, then appended column by column (in parallel) into columns
  // reserved once (reserved memory is touched only as it fills, and each part's column is freed
  // once appended).
  ASSIGN_OR_RETURN(std::vector<Batch> parts, ReadFragments(columns));
  const Schema s = ReadSchema(columns);
  size_t rows = 0;
  std::vector<size_t> chars(s.num_fields(), 0);
  for (const Batch& part : parts) {
    rows += part.num_rows();
    for (size_t c = 0; c < s.num_fields(); ++c) chars[c] += part.column(c).chars().size();
  }
  if (parts.size() == 1) return std::move(parts[0]);
  std::vector<Column> out;
  for (const Field& f : s.fields()) out.emplace_back(f.type);
  ParallelFor(ThreadPool::Default(), out.size(), [&](size_t c) {
    out[c].Reserve(rows);
    out[c].ReserveChars(chars[c]);
    for (Batch& part : parts) {
      Column& from = part.mutable_column(c);
      out[c].AppendSlice(from, 0, part.num_rows());
      from = Column(from.type());
    }
  });
  return Batch(s, std::move(out), rows);
}

Result<std::vector<std::string>> Table::Verify(const std::vector<VersionCheck>& more) const {
  std::vector<std::string> report, damaged, unchecked;
  // Re-read the manifest itself: its checksum is verified on parse.
  ASSIGN_OR_RETURN(Manifest reread, LoadManifest(store_.get(), version()));
  report.push_back(ManifestPath(version()) + ": ok (" + std::to_string(reread.fragments.size()) + " fragments)");
  // A check's failure is noted against its file and the others go on: every damaged file is named.
  // Errors that are not damage (the store failing to answer) stop it.
  auto damage = [&](const Status& st) -> Status {
    if (st.ok() || st.IsCorruption() || st.IsNotFound() || st.IsInvalidArgument()) {
      if (!st.ok()) damaged.push_back(st.message());
      return Status::OK();
    }
    return st;
  };
  // Every file the version names, whole, against the checksum recorded when it was written.
  std::vector<std::string> files = ChecksummedFiles(manifest_);
  for (const std::string& prefix : ReferencedIndexPrefixes(manifest_)) {
    ASSIGN_OR_RETURN(std::vector<ObjectInfo> listed, store_->List(prefix));
    const size_t before = files.size();
    std::set<std::string> there;
    for (const ObjectInfo& o : listed) there.insert(o.path);
    files.insert(files.end(), there.begin(), there.end());
    // The segment's files the manifest recorded but the store lacks: named missing below.
    for (auto it = manifest_.checksums.lower_bound(prefix); it != manifest_.checksums.end() && it->first.starts_with(prefix); ++it) {
      if (!there.count(it->first)) files.push_back(it->first);
    }
    if (files.size() == before) damaged.push_back(prefix + ": the index segment's files are missing");
  }
  std::set<std::string> bad;
  std::map<std::string, uint64_t> sizes;
  for (const std::string& path : files) {
    Result<uint64_t> size = store_->Size(path);
    if (!size.ok()) {
      RETURN_IF_ERROR(damage(Status::Corruption(path + " is missing (" + size.status().message() + ")")));
      bad.insert(path);
      continue;
    }
    sizes[path] = *size;
    auto recorded = manifest_.checksums.find(path);
    if (recorded == manifest_.checksums.end()) {
      unchecked.push_back(path);
      continue;
    }
    ASSIGN_OR_RETURN(uint64_t sum, ObjectChecksum(store_.get(), path, *size));
    if (sum != recorded->second) {
      damaged.push_back(path + ": checksum mismatch (the file is damaged)");
      bad.insert(path);
    }
  }
  // What a checksum cannot say: the files agree with the manifest (sizes, pages, deletions).
  for (const FragmentMeta& f : manifest_.fragments) {
    if (bad.count(f.file) > 0) continue;
    Status checked = [&]() -> Status {
      const uint64_t size = sizes.at(f.file);  // every data file is in `files`, and not `bad` here
      if (size != f.file_size) {
        return Status::Corruption(f.file + ": has " + std::to_string(size) + " bytes, the manifest says " +
                                  std::to_string(f.file_size));
      }
      ASSIGN_OR_RETURN(auto reader, OpenDataFileUncached(f));
      for (int rg = 0; rg < reader->num_row_groups(); ++rg) {
        RETURN_IF_ERROR(reader->ReadRowGroup(rg, {}).status());  // decodes every page: CRCs and encodings
      }
      return VerifyDataTail(store_.get(), f, *reader);
    }();
    RETURN_IF_ERROR(damage(checked));
    if (checked.ok()) report.push_back(f.file + ": ok (" + std::to_string(f.rows) + " rows)");
    if (f.deletion && bad.count(f.deletion->file) == 0) {
      Result<std::shared_ptr<const roaring::Roaring>> deleted = Deletions(f);
      RETURN_IF_ERROR(damage(deleted.status()));
      if (deleted.ok()) {
        report.push_back(f.deletion->file + ": ok (" + std::to_string((*deleted)->cardinality()) + " deleted rows)");
      }
    }
  }
  if (iceberg::Enabled(manifest_)) {
    const Status metadata = iceberg::VerifyMetadata(store_.get(), manifest_);
    RETURN_IF_ERROR(damage(metadata));
    if (metadata.ok()) report.push_back(iceberg::MetadataPath(version()) + ": ok (describes this version)");
  }
  for (const VersionCheck& check : more) {
    Result<std::string> line = check();
    // A check failing on a file named damaged above says nothing new.
    auto named = [&](const std::string& path) { return line.status().message().find(path) != std::string::npos; };
    if (!line.ok() && std::any_of(bad.begin(), bad.end(), named)) continue;
    RETURN_IF_ERROR(damage(line.status()));
    if (line.ok() && !line->empty()) report.push_back(*line);
  }
  if (!damaged.empty()) {
    std::string message = std::to_string(damaged.size()) + (damaged.size() == 1 ? " damage" : " damages") +
                          " in version " + std::to_string(version()) + ": ";
    for (size_t i = 0; i < damaged.size(); ++i) message += (i ? "; " : "") + damaged[i];
    return Status::Corruption(message);
  }
  report.push_back(std::to_string(files.size() - unchecked.size()) + " of " + std::to_string(files.size()) +
                   " files read whole against their checksums");
  if (!unchecked.empty()) {
    std::string line = std::to_string(unchecked.size()) +
                       " files carry no checksum (written before checksums were kept, or by another process):";
    for (const std::string& path : unchecked) line += " " + path;
    report.push_back(line);
  }
  return report;
}

std::vector<std::string> Table::ChecksummedFiles(const Manifest& m) {
  std::vector<std::string> out;
  for (const FragmentMeta& f : m.fragments) {
    out.push_back(f.file);
    if (f.deletion) out.push_back(f.deletion->file);
  }
  // The Iceberg files but the metadata JSON (written after the commit, self-checked) and the hint.
  for (std::string& path : iceberg::ReferencedFiles(m)) {
    if (path != iceberg::MetadataPath(m.version) && path != iceberg::kVersionHintPath) out.push_back(std::move(path));
  }
  return out;
}

std::vector<std::string> Table::ReferencedIndexPrefixes(const Manifest& m) {
  std::vector<std::string> out;
  if (!m.indexes.is_array()) return out;
  for (const auto& index : m.indexes) {
    if (!index.is_object() || !index.contains("segments") || !index["segments"].is_array()) continue;
    for (const auto& seg : index["segments"]) {
      if (seg.is_object() && seg.contains("uuid") && seg["uuid"].is_string()) {
        out.push_back("_indices/" + seg["uuid"].get<std::string>() + "/");
      }
    }
  }
  return out;
}

Result<Table::Expiry> Table::ExpireVersions(uint64_t keep, int64_t older_than_ms) {
  if (keep == 0) return Status::InvalidArgument("expiry must keep at least the newest version");
  ASSIGN_OR_RETURN(std::vector<uint64_t> listed, ListedVersions(store_.get()));
  ASSIGN_OR_RETURN(const uint64_t latest, LatestVersion(store_.get()));
  ASSIGN_OR_RETURN(const Manifest newest, LoadManifest(store_.get(), latest));
  const int64_t cutoff = NowMs() - older_than_ms;
  // The versions not expired yet, oldest first; with the expiry's own version there will be one
  // more. Nothing to do when no more than `keep` are left; else the oldest expire while more than
  // `keep` would remain, unless younger than the grace period (then it and all after stay).
  std::vector<uint64_t> live;
  for (uint64_t v : listed) {
    if (v >= newest.expired_before && v <= latest) live.push_back(v);
  }
  Expiry out;
  for (size_t i = 0; live.size() > keep && i + keep < live.size() + 1; ++i) {
    Result<Manifest> m = live[i] == latest ? Result<Manifest>(newest) : LoadManifest(store_.get(), live[i]);
    if (!m.ok() && m.status().IsNotFound()) break;  // expired meanwhile by another process: it goes on from there
    RETURN_IF_ERROR(m.status());
    if (m->timestamp_ms > cutoff) break;
    out.expired.push_back(live[i]);
  }
  uint64_t mark = newest.expired_before;
  if (!out.expired.empty()) {
    Transaction txn;
    txn.operation = "expire";
    const uint64_t below = out.expired.back() + 1;
    txn.apply_extra = [below](Manifest* next) {
      next->expired_before = std::max(next->expired_before, below);  // a concurrent expiry's may be higher
      return Status::OK();
    };
    RETURN_IF_ERROR(Commit(std::move(txn)));
    mark = manifest_.expired_before;
  }
  // Committed (or nothing to commit): the manifests of every expired version go, oldest first —
  // those of an expiry that stopped before too. A failure is no failure of the expiry. First the
  // newest version's Iceberg metadata file must be there (its commit writes it, best effort): the
  // older ones go with the expired versions, and Iceberg readers would be left with none.
  const Manifest& current = out.expired.empty() ? newest : manifest_;
  if (iceberg::Enabled(current) && !listed.empty() && mark > listed.front()) {
    Result<std::string> published = iceberg::PublishMetadata(store_.get(), current, IcebergVersions(store_.get()));
    if (!published.ok()) {
      out.warnings.push_back("the Iceberg metadata file of version " + std::to_string(current.version) +
                             " was not written (" + published.status().ToString() +
                             "); the expired versions' manifests and files stay until it is: run vacuum again");
      return out;
    }
  }
  for (uint64_t v : listed) {
    if (v >= mark) break;
    Status st = store_->Delete(ManifestPath(v));
    if (!st.ok() && !st.IsNotFound()) {
      out.warnings.push_back("the manifest of expired version " + std::to_string(v) + " was not deleted (" +
                             st.ToString() + "); the next expiry deletes it");
      break;
    }
  }
  return out;
}

Result<nlohmann::json> Table::Files(const std::string& location) const {
  std::string root = location;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  nlohmann::json files = nlohmann::json::array();
  for (const FragmentMeta& f : manifest_.fragments) {
    ASSIGN_OR_RETURN(std::shared_ptr<const roaring::Roaring> deleted, Deletions(f));
    std::vector<uint32_t> positions(deleted->cardinality());
    deleted->toUint32Array(positions.data());
    nlohmann::json stats = nlohmann::json::object();
    for (const auto& [column, s] : f.stats) stats[column] = ColumnStatsJson(s);
    files.push_back({{"path", root + "/" + f.file},
                     {"file", f.file},
                     {"fragment", f.id},
                     {"rows", f.rows},
                     {"live_rows", f.live_rows()},
                     {"deleted", positions},
                     {"file_size", f.file_size},
                     {"stats", std::move(stats)}});
  }
  return files;
}

Result<std::vector<std::string>> Table::Vacuum(int64_t older_than_ms) const {
  // Everything any version references stays: time travel keeps working.
  std::set<std::string> keep;
  std::vector<std::string> keep_prefixes;
  ASSIGN_OR_RETURN(std::vector<uint64_t> versions, ListedVersions(store_.get()));
  // Every manifest, read together on a remote store; each is folded into the sets as it comes,
  // so that only those in flight are held.
  std::mutex mu;
  Status failed;
  ParallelForThreads(versions.size(), store_->remote() ? kRemoteFanOut : 1, [&](size_t i) {
    Result<Manifest> loaded = LoadManifest(store_.get(), versions[i]);
    std::lock_guard<std::mutex> lock(mu);
    if (!loaded.ok()) {
      // Expired meanwhile: its files may go.
      if (!loaded.status().IsNotFound() && failed.ok()) failed = loaded.status();
      return;
    }
    for (const FragmentMeta& f : loaded->fragments) {
      keep.insert(f.file);
      if (f.deletion) keep.insert(f.deletion->file);
    }
    for (auto& p : ReferencedIndexPrefixes(*loaded)) keep_prefixes.push_back(std::move(p));
    for (auto& p : iceberg::ReferencedFiles(*loaded)) keep.insert(std::move(p));
  });
  RETURN_IF_ERROR(failed);
  const int64_t cutoff = NowMs() - older_than_ms;
  std::vector<std::string> removed;
  for (const char* dir : {kDataDir, kDeletionsDir, "_indices/", iceberg::kMetadataDir, kTempDir}) {
    ASSIGN_OR_RETURN(auto objects, store_->List(dir));
    for (const ObjectInfo& o : objects) {
      if (keep.count(o.path)) continue;
      bool referenced = false;
      for (const auto& p : keep_prefixes) referenced |= o.path.rfind(p, 0) == 0;
      if (referenced || o.mtime_ms == 0 || o.mtime_ms > cutoff) continue;
      removed.push_back(o.path);
    }
  }
  RETURN_IF_ERROR(store_->DeleteMany(removed));  // on S3, 1,000 a request
  // What killed writers left where no listing shows it (a local store's hidden temporary files,
  // S3's unfinished uploads), past the same grace.
  ASSIGN_OR_RETURN(std::vector<std::string> abandoned, store_->RemoveAbandonedWrites("", cutoff));
  removed.insert(removed.end(), abandoned.begin(), abandoned.end());
  return removed;
}

}  // namespace lakeindex::table
