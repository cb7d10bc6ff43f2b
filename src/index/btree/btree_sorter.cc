#include "index/btree/btree_sorter.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <queue>

#include "common/uuid.h"
#include "format/parquet/bit_util.h"
#include "index/btree/btree_sort_buffer.h"

namespace lakeindex::index::btree {
namespace {

constexpr size_t kFileBuffer = size_t(256) << 10;
constexpr uint32_t kMaxRunKeyBytes = 1u << 30;

class RunWriter {
 public:
  ~RunWriter() {
    if (f_ != nullptr) std::fclose(f_);
  }
  Status Open(const std::string& path) {
    path_ = path;
    f_ = std::fopen(path.c_str(), "wb");
    if (f_ == nullptr) return Status::IOError("btree sort: cannot create run file '" + path + "'");
    return Status::OK();
  }
  // Records are assembled in buf_ and written in kFileBuffer pieces (one fwrite per field was
  // the most expensive part of spilling strings).
  void Put(std::string_view key, uint64_t address) {
    char head[4];
    const uint32_t n = uint32_t(key.size());
    for (int i = 0; i < 4; ++i) head[i] = char(uint8_t(n >> (8 * i)));
    buf_.append(head, 4);
    buf_.append(key);
    char tail[8];
    for (int i = 0; i < 8; ++i) tail[i] = char(uint8_t(address >> (8 * i)));
    buf_.append(tail, 8);
    if (buf_.size() >= kFileBuffer) Flush();
  }
  // A run of fixed-width keys: each record is the key's increase over the record before as a
  // ULEB128 varint, then the row address — its increase over the one before when the key is the
  // same, else whole — as another (keys and, among equal keys, addresses ascend). 3–7 bytes a
  // record where Put takes 20: the spill's write and read-back are most of what an external
  // sort adds. A run is written with Put or PutFixed, not both.
  void PutFixed(uint64_t key, uint64_t address) {
    const uint64_t key_step = key - key_;
    parquet::bits::WriteUleb128(key_step, &buf_);
    parquet::bits::WriteUleb128(key_step == 0 ? address - address_ : address, &buf_);
    key_ = key;
    address_ = address;
    if (buf_.size() >= kFileBuffer) Flush();
  }
  Status Close() {
    Flush();
    const bool failed = std::ferror(f_) != 0;
    const bool close_failed = std::fclose(f_) != 0;
    f_ = nullptr;
    if (failed || close_failed) return Status::IOError("btree sort: writing run file '" + path_ + "' failed");
    return Status::OK();
  }

 private:
  void Flush() {
    if (!buf_.empty()) std::fwrite(buf_.data(), 1, buf_.size(), f_);
    buf_.clear();
  }

  std::string path_;
  std::FILE* f_ = nullptr;
  std::string buf_;
  uint64_t key_ = 0, address_ = 0;  // PutFixed's record before
};

class RunReader : public SortedStream {
 public:
  RunReader(std::string path, uint64_t entries) : path_(std::move(path)), entries_(entries) {}
  ~RunReader() override {
    if (f_ != nullptr) std::fclose(f_);
  }
  Status Open() {
    f_ = std::fopen(path_.c_str(), "rb");
    if (f_ == nullptr) return Status::IOError("btree sort: cannot open run file '" + path_ + "'");
    return Status::OK();
  }
  // Records are parsed from buf_, refilled in kFileBuffer pieces (a few fread calls per record
  // cost more than the merge itself). A key points into buf_ until the next call.
  Result<bool> Next(SortedEntry* out) override {
    ASSIGN_OR_RETURN(bool any, Fill(4));
    if (!any) {
      if (pos_ == buf_.size() && read_ == entries_) return false;
      return Truncated();
    }
    const auto* p = reinterpret_cast<const uint8_t*>(buf_.data() + pos_);
    uint32_t n = 0;
    for (int i = 0; i < 4; ++i) n |= uint32_t(p[i]) << (8 * i);
    if (n > kMaxRunKeyBytes) return Status::Corruption("btree sort: run file '" + path_ + "' has a bad key length");
    ASSIGN_OR_RETURN(bool whole, Fill(size_t(4) + n + 8));
    if (!whole) return Truncated();
    p = reinterpret_cast<const uint8_t*>(buf_.data() + pos_);
    uint64_t a = 0;
    for (int i = 0; i < 8; ++i) a |= uint64_t(p[4 + n + size_t(i)]) << (8 * i);
    out->key = std::string_view(buf_.data() + pos_ + 4, n);
    out->address = a;
    pos_ += size_t(4) + n + 8;
    ++read_;
    return true;
  }

 private:
  // Makes at least `need` unread bytes available; false at the end of the file before that.
  Result<bool> Fill(size_t need) {
    if (buf_.size() - pos_ >= need) return true;
    buf_.erase(0, pos_);
    pos_ = 0;
    while (buf_.size() < need) {
      if (eof_) return false;
      const size_t have = buf_.size();
      buf_.resize(have + std::max(kFileBuffer, need - have));
      const size_t got = std::fread(buf_.data() + have, 1, buf_.size() - have, f_);
      buf_.resize(have + got);
      if (got == 0) {
        if (std::ferror(f_) != 0) return Status::IOError("btree sort: reading run file '" + path_ + "' failed");
        eof_ = true;
      }
    }
    return true;
  }
  Status Truncated() const { return Status::IOError("btree sort: run file '" + path_ + "' is truncated"); }
  std::string path_;
  uint64_t entries_, read_ = 0;
  std::FILE* f_ = nullptr;
  std::string buf_;
  size_t pos_ = 0;
  bool eof_ = false;
};

// Reads a run of fixed-width keys (records: RunWriter::PutFixed), checking it holds `entries`.
class FixedRunReader : public SortedStream {
 public:
  FixedRunReader(std::string path, uint64_t entries) : path_(std::move(path)), entries_(entries) {}
  ~FixedRunReader() override {
    if (f_ != nullptr) std::fclose(f_);
  }
  Status Open() {
    f_ = std::fopen(path_.c_str(), "rb");
    if (f_ == nullptr) return Status::IOError("btree sort: cannot open run file '" + path_ + "'");
    buf_.resize(kFileBuffer);
    return Status::OK();
  }
  Result<bool> Next(SortedEntry* out) override {
    if (end_ - pos_ < kMaxRecord) RETURN_IF_ERROR(Refill());
    if (pos_ == end_ && read_ == entries_) return false;
    const auto* data = reinterpret_cast<const uint8_t*>(buf_.data());
    uint64_t key_step = 0, address = 0;
    if (read_ == entries_ || !parquet::bits::ReadUleb128(data, end_, &pos_, &key_step) ||
        !parquet::bits::ReadUleb128(data, end_, &pos_, &address)) {
      return Status::IOError("btree sort: run file '" + path_ + "' is truncated or corrupt");
    }
    ++read_;
    key_ += key_step;
    address_ = key_step == 0 ? address_ + address : address;
    StoreFixedKey(key_, key_bytes_);
    out->key = std::string_view(key_bytes_, kFixedKeyWidth);
    out->address = address_;
    return true;
  }

 private:
  static constexpr size_t kMaxRecord = 20;  // two varints of at most 10 bytes
  // Moves the unread bytes to the front and reads more behind them, up to the buffer's end.
  Status Refill() {
    std::copy(buf_.begin() + long(pos_), buf_.begin() + long(end_), buf_.begin());
    end_ -= pos_;
    pos_ = 0;
    while (!eof_ && end_ < buf_.size()) {
      const size_t got = std::fread(buf_.data() + end_, 1, buf_.size() - end_, f_);
      if (got == 0) {
        if (std::ferror(f_) != 0) return Status::IOError("btree sort: reading run file '" + path_ + "' failed");
        eof_ = true;
      }
      end_ += got;
    }
    return Status::OK();
  }

  std::string path_;
  uint64_t entries_, read_ = 0;
  std::FILE* f_ = nullptr;
  std::string buf_;
  size_t pos_ = 0, end_ = 0;
  bool eof_ = false;
  uint64_t key_ = 0, address_ = 0;
  char key_bytes_[kFixedKeyWidth] = {};
};

class MergeStream : public SortedStream {
 public:
  explicit MergeStream(std::vector<std::unique_ptr<SortedStream>> streams)
      : streams_(std::move(streams)), heads_(streams_.size()), prefixes_(streams_.size()) {}

  // heap_ is a min-heap of stream indexes by their heads; its top is the entry handed out last.
  Result<bool> Next(SortedEntry* out) override {
    if (!primed_) {
      primed_ = true;
      for (size_t i = 0; i < streams_.size(); ++i) {
        ASSIGN_OR_RETURN(bool more, streams_[i]->Next(&heads_[i]));
        if (more) heap_.push_back(i);
        if (more) prefixes_[i] = KeyPrefix(heads_[i].key);
      }
      std::make_heap(heap_.begin(), heap_.end(), Greater{this});
    } else if (!heap_.empty()) {
      // The entry handed out last time is no longer needed: move its stream on, and sift the
      // new head down from the top (one pass instead of a pop and a push).
      ASSIGN_OR_RETURN(bool more, streams_[heap_[0]]->Next(&heads_[heap_[0]]));
      if (more) {
        prefixes_[heap_[0]] = KeyPrefix(heads_[heap_[0]].key);
      } else {
        heap_[0] = heap_.back();
        heap_.pop_back();
      }
      SiftDown();
    }
    if (heap_.empty()) return false;
    *out = heads_[heap_[0]];
    return true;
  }

 private:
  // Heads compare by their keys' first 8 bytes as an integer (the whole of a fixed-width key),
  // then, on a tie, as EntryLess does.
  bool Less(size_t a, size_t b) const {
    if (prefixes_[a] != prefixes_[b]) return prefixes_[a] < prefixes_[b];
    const SortedEntry& x = heads_[a];
    const SortedEntry& y = heads_[b];
    if (x.key.size() <= kFixedKeyWidth && y.key.size() <= kFixedKeyWidth) {
      return x.key.size() < y.key.size() || (x.key.size() == y.key.size() && x.address < y.address);
    }
    return EntryLess(x, y);
  }
  struct Greater {
    const MergeStream* self;
    bool operator()(size_t a, size_t b) const { return self->Less(b, a); }
  };
  void SiftDown() {
    const size_t n = heap_.size();
    size_t at = 0;
    while (true) {
      const size_t left = 2 * at + 1;
      if (left >= n) return;
      size_t least = left;
      if (left + 1 < n && Less(heap_[left + 1], heap_[left])) least = left + 1;
      if (!Less(heap_[least], heap_[at])) return;
      std::swap(heap_[at], heap_[least]);
      at = least;
    }
  }

  std::vector<std::unique_ptr<SortedStream>> streams_;
  std::vector<SortedEntry> heads_;
  std::vector<uint64_t> prefixes_;  // KeyPrefix of each head
  std::vector<size_t> heap_;
  bool primed_ = false;
};

}  // namespace

std::unique_ptr<SortedStream> MergeStreams(std::vector<std::unique_ptr<SortedStream>> streams) {
  if (streams.size() == 1) return std::move(streams[0]);
  return std::make_unique<MergeStream>(std::move(streams));
}

ExternalSorter::ExternalSorter(size_t key_width, uint64_t memory_budget_bytes, std::string spill_dir,
                               uint64_t expected_entries)
    : key_width_(key_width),
      budget_(memory_budget_bytes),
      spill_dir_(std::move(spill_dir)),
      buffer_(std::make_unique<SortBuffer>(key_width, memory_budget_bytes)) {
  buffer_->Reserve(expected_entries);
}

ExternalSorter::~ExternalSorter() { RemoveRunFiles(); }

void ExternalSorter::RemoveRunFiles() {
  sources_.clear();
  for (const std::string& path : all_run_files_) {
    std::error_code ec;
    std::filesystem::remove(path, ec);
  }
  all_run_files_.clear();
  runs_.clear();
}

Status ExternalSorter::Add(std::string_view key, uint64_t address) {
  if (finished_) return Status::Internal("btree sort: Add after Finish");
  if (key_width_ != 0 && key.size() != key_width_) {
    return Status::InvalidArgument("btree sort: key of " + std::to_string(key.size()) + " bytes");
  }
  buffer_->Add(key, address);
  ++entries_;
  return SpillIfFull();
}

Status ExternalSorter::AddFixed(uint64_t key, uint64_t address) {
  if (finished_) return Status::Internal("btree sort: Add after Finish");
  if (key_width_ == 0) return Status::Internal("btree sort: integer key for string keys");
  buffer_->AddFixed(key, address);
  ++entries_;
  return SpillIfFull();
}

Status ExternalSorter::SpillIfFull() { return buffer_->full() ? SpillBuffer() : Status::OK(); }

void ExternalSorter::AddSortedSource(std::unique_ptr<SortedStream> source) { sources_.push_back(std::move(source)); }

Result<std::string> ExternalSorter::NewRunPath() {
  if (run_prefix_.empty()) {
    std::error_code ec;
    std::filesystem::path dir = spill_dir_.empty() ? std::filesystem::temp_directory_path(ec) : std::filesystem::path(spill_dir_);
    if (ec) return Status::IOError("btree sort: no temp directory: " + ec.message());
    run_prefix_ = (dir / ("lakeindex-btree-" + NewUuid() + "-")).string();
  }
  std::string path = run_prefix_ + std::to_string(all_run_files_.size()) + ".run";
  all_run_files_.push_back(path);
  return path;
}

Result<std::unique_ptr<SortedStream>> ExternalSorter::OpenRun(const Run& run) const {
  if (key_width_ != 0) {
    auto reader = std::make_unique<FixedRunReader>(run.path, run.entries);
    RETURN_IF_ERROR(reader->Open());
    return std::unique_ptr<SortedStream>(std::move(reader));
  }
  auto reader = std::make_unique<RunReader>(run.path, run.entries);
  RETURN_IF_ERROR(reader->Open());
  return std::unique_ptr<SortedStream>(std::move(reader));
}

Result<ExternalSorter::Run> ExternalSorter::WriteRun(SortedStream* sorted, std::string path) const {
  Run run{std::move(path), 0};
  SortedEntry e;
  RunWriter w;
  RETURN_IF_ERROR(w.Open(run.path));
  for (;; ++run.entries) {
    ASSIGN_OR_RETURN(bool more, sorted->Next(&e));
    if (!more) break;
    if (key_width_ != 0) {
      w.PutFixed(LoadFixedKey(e.key), e.address);
    } else {
      w.Put(e.key, e.address);
    }
  }
  RETURN_IF_ERROR(w.Close());
  return run;
}

Status ExternalSorter::SpillBuffer() {
  if (buffer_->empty()) return Status::OK();
  ASSIGN_OR_RETURN(std::string path, NewRunPath());
  if (buffer_->fixed()) {
    // Written straight from the sorted array, which the buffer keeps for the next run.
    const std::span<const FixedEntry> sorted = buffer_->SortFixed();
    RunWriter w;
    RETURN_IF_ERROR(w.Open(path));
    for (const FixedEntry& e : sorted) w.PutFixed(e.key, e.address);
    RETURN_IF_ERROR(w.Close());
    runs_.push_back(Run{std::move(path), sorted.size()});
    buffer_->Clear();
  } else {
    std::unique_ptr<SortedStream> sorted = buffer_->TakeSorted();
    ASSIGN_OR_RETURN(Run run, WriteRun(sorted.get(), std::move(path)));
    runs_.push_back(std::move(run));
  }
  ++runs_spilled_;
  return Status::OK();
}

Result<ExternalSorter::Run> ExternalSorter::MergeRuns(const std::vector<Run>& runs) {
  std::vector<std::unique_ptr<SortedStream>> streams;
  for (const Run& r : runs) {
    ASSIGN_OR_RETURN(auto reader, OpenRun(r));
    streams.push_back(std::move(reader));
  }
  std::unique_ptr<SortedStream> merged = MergeStreams(std::move(streams));
  ASSIGN_OR_RETURN(std::string path, NewRunPath());
  ASSIGN_OR_RETURN(Run out, WriteRun(merged.get(), std::move(path)));
  merged.reset();
  for (const Run& r : runs) {
    std::error_code ec;
    std::filesystem::remove(r.path, ec);
  }
  return out;
}

Result<std::unique_ptr<SortedStream>> ExternalSorter::Finish() {
  if (finished_) return Status::Internal("btree sort: Finish called twice");
  finished_ = true;
  std::vector<std::unique_ptr<SortedStream>> streams = std::move(sources_);
  sources_.clear();
  // What is still buffered is merged from memory (within the budget), not spilled first.
  if (!buffer_->empty() || (runs_.empty() && streams.empty())) streams.push_back(buffer_->TakeSorted());
  const size_t fan_in = std::max<size_t>(2, kMaxFanIn > streams.size() ? kMaxFanIn - streams.size() : 2);
  while (runs_.size() > fan_in) {
    std::vector<Run> group(runs_.begin(), runs_.begin() + long(kMaxFanIn));
    runs_.erase(runs_.begin(), runs_.begin() + long(kMaxFanIn));
    ASSIGN_OR_RETURN(Run merged, MergeRuns(group));
    runs_.push_back(std::move(merged));
  }
  for (const Run& r : runs_) {
    ASSIGN_OR_RETURN(auto reader, OpenRun(r));
    streams.push_back(std::move(reader));
  }
  return MergeStreams(std::move(streams));
}

}  // namespace lakeindex::index::btree
