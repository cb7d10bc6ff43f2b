// ObjectStore: every byte lakeindex reads or writes goes through this interface, so that local
// files, memory and S3-like stores are interchangeable and every request can be counted.
//
// Paths are relative, '/'-separated keys ("data/abc.parquet"); a store is rooted somewhere.
// Keys containing "..", a leading '/', or NUL are refused with InvalidArgument.
// Thread safety: every implementation is safe for concurrent use.
#pragma once

#include <xxhash.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lakeindex/status.h"

namespace lakeindex {

// Objects under this prefix are scratch space: a command's temporaries (a layout's spilled runs
// and points), read back only by the process that wrote them and removed when it ends (vacuum
// removes those of a killed one). A store need not make them durable: after a crash nothing reads
// them (the local store does not fsync them).
inline constexpr std::string_view kScratchPrefix = "_tmp/";
inline bool IsScratchPath(std::string_view path) { return path.substr(0, kScratchPrefix.size()) == kScratchPrefix; }

struct ObjectInfo {
  std::string path;
  uint64_t size = 0;
  int64_t mtime_ms = 0;  // modification time, ms since epoch (0 if unknown)
};

// Streams one object into a store (ObjectStore::OpenWriter), so that an object larger than memory
// can be written piece by piece. Contract, shared by every store:
//  * Nothing is visible at the path until Close() succeeds; Close then publishes the whole object
//    atomically, replacing any existing one, exactly like ObjectStore::Write (readers see the old
//    object or the new one, never a partial one).
//  * Destroying a writer that was not closed successfully abandons it: no object is published and
//    temporary data is removed.
//  * Errors are sticky: after a failed Append or Close every later call returns that error; an
//    Append or Close after a successful Close is InvalidArgument.
// Thread safety: none (one thread at a time). The store must outlive the writer.
class ObjectWriter {
 public:
  virtual ~ObjectWriter() = default;
  ObjectWriter(const ObjectWriter&) = delete;
  ObjectWriter& operator=(const ObjectWriter&) = delete;

  Status Append(std::string_view data);
  Status Close();
  // Bytes appended so far (the object's size once closed), and their XXH64 (seed 0): the whole
  // object's checksum once closed, taken as it streams by.
  uint64_t bytes_appended() const { return bytes_appended_; }
  uint64_t checksum() const { return XXH64_digest(hash_.get()); }
  const std::string& path() const { return path_; }

 protected:
  explicit ObjectWriter(std::string path);
  // Called by Append / Close only while the writer is open and healthy.
  virtual Status DoAppend(std::string_view data) = 0;
  virtual Status DoClose() = 0;

 private:
  std::string path_;
  uint64_t bytes_appended_ = 0;
  std::unique_ptr<XXH64_state_t, XXH_errorcode (*)(XXH64_state_t*)> hash_;
  bool closed_ = false;
  Status status_;  // sticky
};

class ObjectStore {
 public:
  virtual ~ObjectStore() = default;

  // Whole object. NotFound if absent.
  virtual Result<std::string> Read(std::string_view path) = 0;
  // Bytes [offset, offset+length). Reading past the end is Corruption naming path and range
  // (callers compute ranges from file contents, so a short object means a damaged file).
  virtual Result<std::string> ReadRange(std::string_view path, uint64_t offset,
                                        uint64_t length) = 0;
  // Several ranges of one object at once (each as ReadRange would return it, same order). The
  // store decides how to fetch them: the default reads them one after another; a remote store
  // merges nearby ranges and sends the requests concurrently (one round trip, not one per range).
  struct ByteRange {
    uint64_t offset = 0;
    uint64_t length = 0;
  };
  virtual Result<std::vector<std::string>> ReadRanges(std::string_view path, const std::vector<ByteRange>& ranges);
  virtual Result<uint64_t> Size(std::string_view path) = 0;
  // The whole object if it holds at most `max_bytes`, else Corruption naming its size, without
  // reading it all (a bound for objects read whole on open, e.g. manifests). The default asks
  // Size, then Read; a remote store does it in one request.
  virtual Result<std::string> ReadBounded(std::string_view path, uint64_t max_bytes);
  // Whether anything sits at `path`: an object, or — on a file system — a directory or a link
  // that is no readable object. A probe for absence asks this, so that damage (a directory where
  // the newest manifest was) is not taken for nothing. The default: Size succeeds.
  virtual Result<bool> Occupied(std::string_view path);
  // Writes the whole object, replacing any existing one. Atomic: readers see the old or the new
  // object, never a partial one.
  virtual Status Write(std::string_view path, std::string_view data) = 0;
  // Atomically creates the object only if absent; AlreadyExists if it exists (the loser of a
  // commit race gets this). Readers never see a partial object.
  virtual Status CreateIfAbsent(std::string_view path, std::string_view data) = 0;
  // Objects whose key starts with `prefix`, sorted by path.
  virtual Result<std::vector<ObjectInfo>> List(std::string_view prefix) = 0;
  // Deleting an absent object is OK.
  virtual Status Delete(std::string_view path) = 0;
  // Deletes these objects (absent ones are OK), in no particular order: the default one by one;
  // S3 sends up to 1,000 keys a request. On an error some may have been deleted.
  virtual Status DeleteMany(const std::vector<std::string>& paths);
  // Opens a streaming writer for `path` (contract at ObjectWriter); InvalidArgument for a bad key.
  // The default buffers the whole object in memory and calls Write at Close, for stores that
  // cannot stream; the local store streams to a temporary file.
  virtual Result<std::unique_ptr<ObjectWriter>> OpenWriter(std::string_view path);

  // Removes what writers that can no longer finish left under `prefix`, last touched before
  // `cutoff_ms` (ms since the epoch), and returns their names (for messages, not keys): the local
  // store's hidden temporary files of processes that are gone (a write killed mid-object); S3's
  // unfinished multipart uploads. The default (stores whose unfinished writes leave nothing)
  // removes nothing. `vacuum` calls it.
  virtual Result<std::vector<std::string>> RemoveAbandonedWrites(std::string_view prefix, int64_t cutoff_ms);

  // The XXH64 (seed 0) of each object this store object wrote whole (Write, CreateIfAbsent, a
  // closed writer) since it was made, by path, for the stores that keep such a record (the
  // default: none). A commit takes from here the checksums the manifest records for the files it
  // adds (table/manifest.h, Manifest::checksums). Scratch objects are not recorded.
  virtual std::map<std::string, uint64_t> WrittenChecksums() const { return {}; }

  // Human-readable root for messages ("/data/t1", "memory://").
  virtual std::string Describe() const = 0;
  // Whether each request costs a network round trip (S3, or a store with injected latency):
  // readers then send independent requests together rather than one after another.
  virtual bool remote() const { return false; }

  // How a reader should cut scattered reads of one object (the pages of a take) into requests:
  // ranges at most `max_hole` bytes apart share one request (the hole read and dropped), a merged
  // request grows to at most `max_range` bytes (a single larger range is still one request), and
  // up to `parallel` requests go out at once. The hole is what one more request costs, in bytes:
  // nothing on a local disk (a pread is microseconds), about latency × bandwidth on S3 (MBs).
  // Wrappers forward their inner store's hint. The planner prices a take with it too
  // (query/take_cost.h), so that both read and estimate cut the same runs.
  struct ReadHint {
    uint64_t max_hole = 0;
    uint64_t max_range = UINT64_MAX;
    uint32_t parallel = 1;
    bool operator==(const ReadHint&) const = default;
  };
  virtual ReadHint read_hint() const { return ReadHint{}; }
};

// The hint of a store where each request costs a network round trip: what object_store (Rust)
// and iceberg-rust use against S3 (1 MiB holes); an 8 MiB cap keeps a merge from becoming a
// whole-object read, and the merged requests go out on up to 16 connections.
inline constexpr ObjectStore::ReadHint kRemoteReadHint{1 << 20, 8 << 20, 16};

// The XXH64 (seed 0) of the object at `path`, whose size is `size` (as Size gives it), read in
// pieces of 8 MiB: what ObjectWriter::checksum and WrittenChecksums record for it when written.
Result<uint64_t> ObjectChecksum(ObjectStore* store, std::string_view path, uint64_t size);

// Checks a key: non-empty, relative, no "." / ".." segments, no NUL, no backslash.
Status ValidateObjectPath(std::string_view path);

// Files under `root` (created if missing). Writes go to a temporary file then rename;
// CreateIfAbsent uses link(2) (or renameat2 RENAME_NOREPLACE) so it is atomic across processes.
// Symlinks that lead outside `root` are refused.
Result<std::unique_ptr<ObjectStore>> OpenLocalStore(const std::string& root);

// The store a user names: a plain path or file:///abs/path (a local directory, OpenLocalStore),
// or s3://bucket/prefix (configured from the environment and the AWS files: io/s3_config.h).
// Any other scheme is InvalidArgument.
Result<std::unique_ptr<ObjectStore>> OpenStoreUri(const std::string& uri);
// Whether `uri` names a local path (plain or file://), and that path.
bool IsLocalUri(const std::string& uri, std::string* local_path = nullptr);

// In-process store (tests, benchmarks).
std::unique_ptr<ObjectStore> NewMemoryStore();

// Counters kept by InstrumentedStore. All fields are atomics so readers may poll them live.
struct StoreCounters {
  std::atomic<uint64_t> read_requests{0};   // Read + ReadRange + Size
  std::atomic<uint64_t> bytes_read{0};
  std::atomic<uint64_t> write_requests{0};  // Write + CreateIfAbsent + ObjectWriter::Close
  std::atomic<uint64_t> bytes_written{0};
  std::atomic<uint64_t> list_requests{0};
  std::atomic<uint64_t> delete_requests{0};
  // Times the store went from idle to busy: requests that overlap (a ReadRanges, concurrent
  // scans) share one. With a latency per request, the wall time is about this many latencies.
  std::atomic<uint64_t> round_trips{0};
  void Reset();
};

enum class StoreOp : uint8_t { kRead, kWrite, kCreate, kList, kDelete, kAny };

// Wraps another store: counts requests and bytes, can add latency to each request and can fail
// the k-th operation of a kind (1-based) with IOError, to test fault handling.
// A streamed object (OpenWriter) is one kWrite request, counted, delayed and failable at its
// Close (the point where a store publishes it), so that streaming and Write count alike.
class InstrumentedStore : public ObjectStore {
 public:
  explicit InstrumentedStore(std::shared_ptr<ObjectStore> base);

  StoreCounters& counters() { return counters_; }
  void SetLatencyMicros(uint64_t micros) { latency_us_ = micros; }
  // Fail the k-th future operation of kind `op` (counted from now); k = 0 disables.
  void FailNth(StoreOp op, uint64_t k);
  // Number of operations of kind `op` seen since the last FailNth/ResetOps.
  uint64_t OpsSeen(StoreOp op) const;

  Result<std::string> Read(std::string_view path) override;
  Result<std::string> ReadRange(std::string_view path, uint64_t offset, uint64_t length) override;
  Result<std::vector<std::string>> ReadRanges(std::string_view path, const std::vector<ByteRange>& ranges) override;
  Result<uint64_t> Size(std::string_view path) override;
  Result<std::string> ReadBounded(std::string_view path, uint64_t max_bytes) override;
  Result<bool> Occupied(std::string_view path) override;
  Status Write(std::string_view path, std::string_view data) override;
  Status CreateIfAbsent(std::string_view path, std::string_view data) override;
  Result<std::vector<ObjectInfo>> List(std::string_view prefix) override;
  Status Delete(std::string_view path) override;
  // One kDelete operation (and delete request counted) per path, checked before any is sent;
  // then the base store's DeleteMany.
  Status DeleteMany(const std::vector<std::string>& paths) override;
  Result<std::unique_ptr<ObjectWriter>> OpenWriter(std::string_view path) override;
  Result<std::vector<std::string>> RemoveAbandonedWrites(std::string_view prefix, int64_t cutoff_ms) override;
  // Every object written through this wrapper, whatever the base store.
  std::map<std::string, uint64_t> WrittenChecksums() const override;
  // Records checksums of objects another process wrote (a Dask worker's files, as its own
  // WrittenChecksums gave them) as if written here, so that the commit that names them records them.
  void AdoptWrittenChecksums(const std::map<std::string, uint64_t>& checksums);
  std::string Describe() const override;
  bool remote() const override { return latency_us_.load() > 0 || base_->remote(); }
  // The base store's hint; kRemoteReadHint when latency is injected over a local store (it then
  // stands for a remote one); or the hint set here (tests: a local table read as S3 would be).
  ReadHint read_hint() const override;
  void SetReadHint(std::optional<ReadHint> hint);

 private:
  class Writer;
  Status Before(StoreOp op, std::string_view path);
  // A request in flight (RAII): counts a round trip when the store was idle.
  class Busy;
  std::atomic<int> in_flight_{0};

  std::shared_ptr<ObjectStore> base_;
  StoreCounters counters_;
  std::atomic<uint64_t> latency_us_{0};
  void RecordWritten(std::string_view path, uint64_t checksum);
  mutable std::mutex mu_;
  std::map<std::string, uint64_t> written_;  // guarded by mu_
  StoreOp fail_op_ = StoreOp::kAny;
  uint64_t fail_at_ = 0;
  uint64_t seen_[6] = {0, 0, 0, 0, 0, 0};
  std::optional<ReadHint> hint_;  // guarded by mu_
};

}  // namespace lakeindex
