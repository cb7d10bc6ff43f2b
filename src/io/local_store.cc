// ObjectStore over a local directory.
//
// Durability and atomicity: an object is written to a temporary file in its target directory
// (".tmp-<pid>-<random>", hidden from List and refused as a key), fsynced, then renamed over the
// target (Write) or hard-linked to it (CreateIfAbsent: link(2) fails with EEXIST if the target
// exists, which makes it atomic across processes, unlike a check-then-rename). The directory is
// fsynced afterwards so the new name survives a crash. OpenWriter streams into such a temporary
// file and renames it at Close; an abandoned writer unlinks it. Objects under kScratchPrefix are
// written and renamed the same way but never fsynced: nothing reads them after a crash.
//
// Containment: keys are validated, and every existing component of a key's path is lstat'ed;
// a symlink is followed only if its resolution stays under the root. This guards against a
// table directory that links elsewhere by mistake; it is not a defence against an adversary
// changing the tree concurrently.

#include <dirent.h>
#include <signal.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "io/object_path.h"
#include "lakeindex/object_store.h"

namespace lakeindex {

namespace {

std::string ErrnoText(int err) { return std::error_code(err, std::generic_category()).message(); }

Status IOErrorFor(const std::string& what, const std::string& path, int err) {
  return Status::IOError(path + ": " + what + " failed: " + ErrnoText(err));
}

// Closes a file descriptor when it goes out of scope.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  void Reset(int fd) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }
  // Gives up ownership without closing.
  int Release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  // Closes now and reports the error (close can report a deferred write error).
  int Close() {
    int rc = ::close(fd_);
    fd_ = -1;
    return rc;
  }

 private:
  int fd_;
};

int64_t MtimeMillis(const struct stat& st) {
  return int64_t(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
}

// Reads up to `n` bytes at `offset`, retrying short reads; `*got` is less than `n` only at EOF.
Status PreadFully(int fd, const std::string& path, char* buf, size_t n, uint64_t offset,
                  size_t* got) {
  *got = 0;
  while (*got < n) {
    ssize_t r = ::pread(fd, buf + *got, n - *got, off_t(offset + *got));
    if (r < 0) {
      if (errno == EINTR) continue;
      return IOErrorFor("read", path, errno);
    }
    if (r == 0) break;
    *got += size_t(r);
  }
  return Status::OK();
}

Status WriteFully(int fd, const std::string& path, std::string_view data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t w = ::write(fd, data.data() + done, data.size() - done);
    if (w < 0) {
      if (errno == EINTR) continue;
      return IOErrorFor("write", path, errno);
    }
    done += size_t(w);
  }
  return Status::OK();
}

Status SyncDirectory(const std::string& dir) {
  Fd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) return IOErrorFor("open directory", dir, errno);
  if (::fsync(fd.get()) != 0) return IOErrorFor("fsync directory", dir, errno);
  return Status::OK();
}

std::string RandomHex() {
  // Seeded per thread; the pid in the temp name keeps forked children apart even though they
  // inherit the parent's generator state.
  thread_local std::mt19937_64 rng(std::random_device{}());
  static constexpr char kHex[] = "0123456789abcdef";
  uint64_t v = rng();
  std::string out(16, '0');
  for (int i = 0; i < 16; ++i) out[i] = kHex[(v >> (4 * i)) & 15];
  return out;
}

// Creates a new, empty temporary file in `dir` (a name List hides and keys cannot address),
// opened for writing into *fd; returns its path.
Result<std::string> CreateTemp(const std::string& dir, Fd* fd) {
  const std::string base =
      dir + "/" + std::string(kTempObjectPrefix) + std::to_string(::getpid()) + "-";
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string tmp = base + RandomHex();
    fd->Reset(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
    if (fd->get() >= 0) return tmp;
    if (errno != EEXIST) return IOErrorFor("create", tmp, errno);
  }
  return Status::IOError(dir + ": could not create a unique temporary file");
}

// Streams into a temporary file beside the target; Close fsyncs it, renames it over the target
// and fsyncs the directory: the same steps as LocalStore::Write, spread over time. Small appends
// are gathered into kBufferBytes so that a caller appending page by page makes few syscalls.
class LocalObjectWriter final : public ObjectWriter {
 public:
  static constexpr size_t kBufferBytes = size_t(1) << 20;

  LocalObjectWriter(std::string key, std::string full, std::string dir, std::string tmp, int fd)
      : ObjectWriter(std::move(key)),
        full_(std::move(full)),
        dir_(std::move(dir)),
        tmp_(std::move(tmp)),
        fd_(fd),
        durable_(!IsScratchPath(path())) {}
  ~LocalObjectWriter() override { Discard(); }

 protected:
  Status DoAppend(std::string_view data) override {
    if (buffer_.size() + data.size() > kBufferBytes) RETURN_IF_ERROR(Flush());
    if (data.size() >= kBufferBytes) return Fail(WriteFully(fd_.get(), tmp_, data));
    buffer_.append(data);
    return Status::OK();
  }

  Status DoClose() override {
    RETURN_IF_ERROR(Flush());
    if (durable_ && ::fsync(fd_.get()) != 0) return Fail(IOErrorFor("fsync", tmp_, errno));
    if (fd_.Close() != 0) return Fail(IOErrorFor("close", tmp_, errno));
    if (::rename(tmp_.c_str(), full_.c_str()) != 0) return Fail(IOErrorFor("rename to", full_, errno));
    tmp_.clear();  // published: nothing left to discard
    return durable_ ? SyncDirectory(dir_) : Status::OK();
  }

 private:
  Status Flush() {
    Status st = WriteFully(fd_.get(), tmp_, buffer_);
    buffer_.clear();
    return Fail(std::move(st));
  }
  // Discards the temporary file at the first error: the writer is dead anyway (errors are
  // sticky), and a caller that keeps it around should not keep the disk space too.
  Status Fail(Status st) {
    if (!st.ok()) Discard();
    return st;
  }
  void Discard() {
    if (fd_.get() >= 0) fd_.Reset(-1);
    if (!tmp_.empty()) ::unlink(tmp_.c_str());
    tmp_.clear();
    buffer_ = std::string();
  }

  const std::string full_;
  const std::string dir_;
  std::string tmp_;  // empty once published or discarded
  Fd fd_;
  const bool durable_;  // fsync at Close (not for scratch objects)
  std::string buffer_;
};

class LocalStore final : public ObjectStore {
 public:
  explicit LocalStore(std::string root) : root_(std::move(root)) {}

  Result<std::string> Read(std::string_view path) override {
    ASSIGN_OR_RETURN(std::string full, Resolve(path));
    Fd fd(-1);
    struct stat st;
    RETURN_IF_ERROR(OpenObject(full, &fd, &st));
    std::string out(size_t(st.st_size), '\0');
    size_t got = 0;
    RETURN_IF_ERROR(PreadFully(fd.get(), full, out.data(), out.size(), 0, &got));
    if (got != out.size()) {
      return Status::IOError(full + ": object shrank while being read (expected " +
                             std::to_string(out.size()) + " bytes, got " + std::to_string(got) +
                             ")");
    }
    return out;
  }

  Result<std::string> ReadRange(std::string_view path, uint64_t offset, uint64_t length) override {
    ASSIGN_OR_RETURN(std::string full, Resolve(path));
    Fd fd(-1);
    struct stat st;
    RETURN_IF_ERROR(OpenObject(full, &fd, &st));
    // Check against the real size before allocating: lengths come from file contents.
    const uint64_t size = uint64_t(st.st_size);
    if (offset > size || length > size - offset) {
      return RangeError(full, offset, length, size);
    }
    std::string out(size_t(length), '\0');
    size_t got = 0;
    RETURN_IF_ERROR(PreadFully(fd.get(), full, out.data(), out.size(), offset, &got));
    if (got != out.size()) return RangeError(full, offset, length, offset + got);
    return out;
  }

  // One resolve and one open for all the ranges (ReadRange per range would resolve, open, stat and
  // close the file each time: five system calls more per range of a take).
  Result<std::vector<std::string>> ReadRanges(std::string_view path, const std::vector<ByteRange>& ranges) override {
    ASSIGN_OR_RETURN(std::string full, Resolve(path));
    Fd fd(-1);
    struct stat st;
    RETURN_IF_ERROR(OpenObject(full, &fd, &st));
    // No posix_fadvise(POSIX_FADV_RANDOM): measured on a 10M-row table whose files were evicted
    // (POSIX_FADV_DONTNEED), cold point lookups brought the same bytes into the page cache with and
    // without it (4,435,968 B for 3,696,273 B of preads: the rest is rounding to 4 KiB pages): the
    // kernel reads a lone small pread as it is, without readahead.
    const uint64_t size = uint64_t(st.st_size);
    std::vector<std::string> out;
    out.reserve(ranges.size());
    for (const ByteRange& r : ranges) {
      if (r.offset > size || r.length > size - r.offset) return RangeError(full, r.offset, r.length, size);
      std::string bytes(size_t(r.length), '\0');
      size_t got = 0;
      RETURN_IF_ERROR(PreadFully(fd.get(), full, bytes.data(), bytes.size(), r.offset, &got));
      if (got != bytes.size()) return RangeError(full, r.offset, r.length, r.offset + got);
      out.push_back(std::move(bytes));
    }
    return out;
  }

  Result<uint64_t> Size(std::string_view path) override {
    ASSIGN_OR_RETURN(std::string full, Resolve(path));
    struct stat st;
    if (::stat(full.c_str(), &st) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) return NotFoundError(full);
      return IOErrorFor("stat", full, errno);
    }
    if (!S_ISREG(st.st_mode)) return NotFoundError(full);
    return uint64_t(st.st_size);
  }

  Result<bool> Occupied(std::string_view path) override {
    RETURN_IF_ERROR(ValidateObjectPath(path));
    // The path as named, links not followed: a link out of the store still occupies it.
    const std::string full = root_ + "/" + std::string(path);
    struct stat st;
    if (::lstat(full.c_str(), &st) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) return false;
      return IOErrorFor("lstat", full, errno);
    }
    return true;
  }

  Status Write(std::string_view path, std::string_view data) override {
    ASSIGN_OR_RETURN(std::string full, Resolve(path));
    RETURN_IF_ERROR(MakeParents(path));
    const std::string dir = ParentOf(full);
    const bool durable = !IsScratchPath(path);
    ASSIGN_OR_RETURN(std::string tmp, WriteTemp(dir, data, durable));
    if (::rename(tmp.c_str(), full.c_str()) != 0) {
      int err = errno;
      ::unlink(tmp.c_str());
      return IOErrorFor("rename to", full, err);
    }
    return durable ? SyncDirectory(dir) : Status::OK();
  }

  Status CreateIfAbsent(std::string_view path, std::string_view data) override {
    ASSIGN_OR_RETURN(std::string full, Resolve(path));
    struct stat st;
    // Cheap early exit; link(2) below is what decides a race.
    if (::lstat(full.c_str(), &st) == 0) return AlreadyExistsError(full);
    RETURN_IF_ERROR(MakeParents(path));
    const std::string dir = ParentOf(full);
    ASSIGN_OR_RETURN(std::string tmp, WriteTemp(dir, data));
    int rc = ::link(tmp.c_str(), full.c_str());
    int err = errno;
    ::unlink(tmp.c_str());
    if (rc != 0) {
      if (err == EEXIST) return AlreadyExistsError(full);
      return IOErrorFor("link to", full, err);
    }
    return SyncDirectory(dir);
  }

  Result<std::vector<ObjectInfo>> List(std::string_view prefix) override {
    RETURN_IF_ERROR(ValidateObjectPrefix(prefix));
    std::vector<ObjectInfo> out;
    RETURN_IF_ERROR(WalkPrefix(prefix, &out, nullptr));
    std::sort(out.begin(), out.end(),
              [](const ObjectInfo& a, const ObjectInfo& b) { return a.path < b.path; });
    return out;
  }

  // A temporary file ".tmp-<pid>-<random>" is abandoned when no process <pid> runs here: its
  // writer was killed (or the machine restarted) before it renamed the file. A file of a live
  // process, or of a pid reused since, stays.
  Result<std::vector<std::string>> RemoveAbandonedWrites(std::string_view prefix, int64_t cutoff_ms) override {
    RETURN_IF_ERROR(ValidateObjectPrefix(prefix));
    std::vector<ObjectInfo> objects, temps;
    RETURN_IF_ERROR(WalkPrefix(prefix, &objects, &temps));
    std::vector<std::string> removed;
    for (const ObjectInfo& t : temps) {
      const std::string_view name = std::string_view(t.path).substr(t.path.rfind('/') + 1);
      const std::string_view rest = name.substr(kTempObjectPrefix.size());
      const long pid = std::strtol(std::string(rest.substr(0, rest.find('-'))).c_str(), nullptr, 10);
      if (pid <= 0 || t.mtime_ms > cutoff_ms || pid == long(::getpid())) continue;
      if (::kill(pid_t(pid), 0) == 0 || errno != ESRCH) continue;  // alive (or not ours to ask)
      const std::string full = root_ + "/" + t.path;
      if (::unlink(full.c_str()) != 0) {
        if (errno == ENOENT) continue;
        return IOErrorFor("unlink", full, errno);
      }
      removed.push_back(t.path);
    }
    return removed;
  }

  Status Delete(std::string_view path) override {
    ASSIGN_OR_RETURN(std::string full, Resolve(path));
    if (::unlink(full.c_str()) != 0) {
      // A missing object, or a name that is a directory (not an object), is already deleted.
      if (errno == ENOENT || errno == ENOTDIR || errno == EISDIR) return Status::OK();
      return IOErrorFor("unlink", full, errno);
    }
    return IsScratchPath(path) ? Status::OK() : SyncDirectory(ParentOf(full));
  }

  Result<std::unique_ptr<ObjectWriter>> OpenWriter(std::string_view path) override {
    ASSIGN_OR_RETURN(std::string full, Resolve(path));
    RETURN_IF_ERROR(MakeParents(path));
    std::string dir = ParentOf(full);
    Fd fd(-1);
    ASSIGN_OR_RETURN(std::string tmp, CreateTemp(dir, &fd));
    auto writer = std::make_unique<LocalObjectWriter>(std::string(path), std::move(full),
                                                      std::move(dir), std::move(tmp), fd.get());
    fd.Release();
    return std::unique_ptr<ObjectWriter>(std::move(writer));
  }

  std::string Describe() const override { return root_; }
  // A pread costs microseconds, so a hole is never worth reading (measured on flights' scattered
  // take in docs/parquet.md); the cap bounds the buffer one run of contiguous pages needs.
  ReadHint read_hint() const override { return ReadHint{0, 1 << 20, 1}; }

 private:
  static std::string ParentOf(const std::string& full) { return full.substr(0, full.rfind('/')); }

  static Status NotFoundError(const std::string& full) {
    return Status::NotFound(full + ": object not found");
  }
  static Status AlreadyExistsError(const std::string& full) {
    return Status::AlreadyExists(full + ": object already exists");
  }
  static Status RangeError(const std::string& full, uint64_t offset, uint64_t length,
                           uint64_t size) {
    return Status::Corruption(full + ": range [" + std::to_string(offset) + ", +" +
                              std::to_string(length) + ") is past the end of the object (size " +
                              std::to_string(size) + ")");
  }

  bool IsInsideRoot(const std::string& resolved) const {
    if (root_ == "/") return true;
    return resolved == root_ || (resolved.size() > root_.size() && resolved.starts_with(root_) &&
                                 resolved[root_.size()] == '/');
  }

  // Validates `key` and returns its path on disk. Existing components that are symlinks must
  // resolve under the root; components that do not exist yet are fine (we create them as
  // directories).
  Result<std::string> Resolve(std::string_view key) const {
    RETURN_IF_ERROR(ValidateObjectPath(key));
    std::string cur = root_;
    size_t begin = 0;
    while (begin < key.size()) {
      size_t end = key.find('/', begin);
      if (end == std::string_view::npos) end = key.size();
      cur += '/';
      cur.append(key.substr(begin, end - begin));
      begin = end + 1;
      struct stat st;
      if (::lstat(cur.c_str(), &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR) break;
        return IOErrorFor("lstat", cur, errno);
      }
      if (!S_ISLNK(st.st_mode)) continue;
      char* resolved = ::realpath(cur.c_str(), nullptr);
      if (resolved == nullptr) {
        return Status::InvalidArgument("object path '" + std::string(key) + "': symlink " + cur +
                                       " cannot be resolved: " + ErrnoText(errno));
      }
      std::string target(resolved);
      std::free(resolved);
      if (!IsInsideRoot(target)) {
        return Status::InvalidArgument("object path '" + std::string(key) + "': symlink " + cur +
                                       " leads to " + target + ", outside the store root " + root_);
      }
      cur = std::move(target);
    }
    return root_ + "/" + std::string(key);
  }

  // Opens a regular file for reading; NotFound when it is absent or a directory.
  Status OpenObject(const std::string& full, Fd* fd, struct stat* st) const {
    int raw = ::open(full.c_str(), O_RDONLY | O_CLOEXEC);
    if (raw < 0) {
      if (errno == ENOENT || errno == ENOTDIR) return NotFoundError(full);
      return IOErrorFor("open", full, errno);
    }
    fd->Reset(raw);
    if (::fstat(raw, st) != 0) return IOErrorFor("fstat", full, errno);
    if (!S_ISREG(st->st_mode)) return NotFoundError(full);
    return Status::OK();
  }

  // Creates the directories leading to `key` (already resolved and checked).
  Status MakeParents(std::string_view key) const {
    std::string cur = root_;
    size_t begin = 0;
    for (size_t slash = key.find('/'); slash != std::string_view::npos;
         slash = key.find('/', begin)) {
      cur += '/';
      cur.append(key.substr(begin, slash - begin));
      begin = slash + 1;
      if (::mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST) {
        return IOErrorFor("mkdir", cur, errno);
      }
    }
    return Status::OK();
  }

  // Writes `data` to a new temporary file in `dir`, fsynced (when durable) and closed; returns
  // its path.
  Result<std::string> WriteTemp(const std::string& dir, std::string_view data, bool durable = true) const {
    Fd fd(-1);
    ASSIGN_OR_RETURN(std::string tmp, CreateTemp(dir, &fd));
    Status st = WriteFully(fd.get(), tmp, data);
    if (st.ok() && durable && ::fsync(fd.get()) != 0) st = IOErrorFor("fsync", tmp, errno);
    if (fd.Close() != 0 && st.ok()) st = IOErrorFor("close", tmp, errno);
    if (!st.ok()) {
      ::unlink(tmp.c_str());
      return st;
    }
    return tmp;
  }

  // Appends the objects under directory `dir` (whose key prefix is `key_prefix`) that start
  // with `prefix`. Symlinked files that resolve under the root are listed; symlinked
  // directories are not descended into (no cycles).
  // Walk from the deepest directory `prefix` names completely.
  Status WalkPrefix(std::string_view prefix, std::vector<ObjectInfo>* out, std::vector<ObjectInfo>* temps) const {
    const size_t slash = prefix.rfind('/');
    std::string start_key;
    std::string start_dir = root_;
    if (slash != std::string_view::npos) {
      start_key = std::string(prefix.substr(0, slash));
      ASSIGN_OR_RETURN(start_dir, Resolve(start_key));
      start_key += '/';
    }
    return Walk(start_dir, start_key, prefix, out, temps);
  }

  // Adds the objects under `dir` (named key_prefix + ...) whose keys start with `prefix` to
  // *out, and, when `temps` is given, the temporary files there (named by their path under the
  // root) to *temps.
  Status Walk(const std::string& dir, const std::string& key_prefix, std::string_view prefix,
              std::vector<ObjectInfo>* out, std::vector<ObjectInfo>* temps = nullptr) const {
    std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir(dir.c_str()), &::closedir);
    if (!d) {
      if (errno == ENOENT || errno == ENOTDIR) return Status::OK();
      return IOErrorFor("opendir", dir, errno);
    }
    while (true) {
      errno = 0;
      struct dirent* entry = ::readdir(d.get());
      if (entry == nullptr) {
        if (errno != 0) return IOErrorFor("readdir", dir, errno);
        break;
      }
      std::string_view name(entry->d_name);
      if (name == "." || name == ".." || (temps == nullptr && name.starts_with(kTempObjectPrefix))) continue;
      std::string key = key_prefix + std::string(name);
      std::string full = dir + "/" + std::string(name);
      struct stat st;
      if (::lstat(full.c_str(), &st) != 0) {
        if (errno == ENOENT) continue;  // deleted while listing
        return IOErrorFor("lstat", full, errno);
      }
      if (name.starts_with(kTempObjectPrefix)) {
        if (S_ISREG(st.st_mode)) temps->push_back(ObjectInfo{std::move(key), uint64_t(st.st_size), MtimeMillis(st)});
        continue;
      }
      if (S_ISDIR(st.st_mode)) {
        std::string sub = key + "/";
        if (sub.starts_with(prefix) || prefix.starts_with(sub)) {
          RETURN_IF_ERROR(Walk(full, sub, prefix, out, temps));
        }
        continue;
      }
      if (!std::string_view(key).starts_with(prefix)) continue;
      if (!ValidateObjectPath(key).ok()) continue;  // not addressable as a key
      if (S_ISLNK(st.st_mode)) {
        if (!Resolve(key).ok() || ::stat(full.c_str(), &st) != 0) continue;
      }
      if (!S_ISREG(st.st_mode)) continue;
      out->push_back(ObjectInfo{std::move(key), uint64_t(st.st_size), MtimeMillis(st)});
    }
    return Status::OK();
  }

  const std::string root_;  // absolute, symlink-free, no trailing '/' (unless "/")
};

}  // namespace

Result<std::unique_ptr<ObjectStore>> OpenLocalStore(const std::string& root) {
  if (root.empty()) return Status::InvalidArgument("local store root is empty");
  if (root.find('\0') != std::string::npos) {
    return Status::InvalidArgument("local store root contains a NUL byte");
  }
  std::error_code ec;
  std::filesystem::create_directories(root, ec);
  if (ec) return Status::IOError(root + ": cannot create store root: " + ec.message());
  char* resolved = ::realpath(root.c_str(), nullptr);
  if (resolved == nullptr) return IOErrorFor("realpath", root, errno);
  std::string canonical(resolved);
  std::free(resolved);
  struct stat st;
  if (::stat(canonical.c_str(), &st) != 0) return IOErrorFor("stat", canonical, errno);
  if (!S_ISDIR(st.st_mode)) {
    return Status::InvalidArgument(canonical + ": store root is not a directory");
  }
  return std::unique_ptr<ObjectStore>(std::make_unique<LocalStore>(std::move(canonical)));
}

}  // namespace lakeindex
