#include "index/btree/btree_sorter.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <queue>

#include "common/uuid.h"
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
};

class RunReader : public SortedStream {
 public:
  explicit RunReader(std::string path) : path_(std::move(path)) {}
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
      if (pos_ == buf_.size()) return false;
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
  std::FILE* f_ = nullptr;
  std::string buf_;
  size_t pos_ = 0;
  bool eof_ = false;
};

class MergeStream : public SortedStream {
 public:
  explicit MergeStream(std::vector<std::unique_ptr<SortedStream>> streams)
      : streams_(std::move(streams)), heads_(streams_.size()) {}

  // heap_ is a min-heap of stream indexes by their heads; its top is the entry handed out last.
  Result<bool> Next(SortedEntry* out) override {
    if (!primed_) {
      primed_ = true;
      for (size_t i = 0; i < streams_.size(); ++i) {
        ASSIGN_OR_RETURN(bool more, streams_[i]->Next(&heads_[i]));
        if (more) heap_.push_back(i);
      }
      std::make_heap(heap_.begin(), heap_.end(), Greater{this});
    } else if (!heap_.empty()) {
      // The entry handed out last time is no longer needed: move its stream on, and sift the
      // new head down from the top (one pass instead of a pop and a push).
      ASSIGN_OR_RETURN(bool more, streams_[heap_[0]]->Next(&heads_[heap_[0]]));
      if (!more) {
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
  struct Greater {
    const MergeStream* self;
    bool operator()(size_t a, size_t b) const { return EntryLess(self->heads_[b], self->heads_[a]); }
  };
  void SiftDown() {
    const size_t n = heap_.size();
    size_t at = 0;
    while (true) {
      const size_t left = 2 * at + 1;
      if (left >= n) return;
      size_t least = left;
      if (left + 1 < n && EntryLess(heads_[heap_[left + 1]], heads_[heap_[left]])) least = left + 1;
      if (!EntryLess(heads_[heap_[least]], heads_[heap_[at]])) return;
      std::swap(heap_[at], heap_[least]);
      at = least;
    }
  }

  std::vector<std::unique_ptr<SortedStream>> streams_;
  std::vector<SortedEntry> heads_;
  std::vector<size_t> heap_;
  bool primed_ = false;
};

}  // namespace

std::unique_ptr<SortedStream> MergeStreams(std::vector<std::unique_ptr<SortedStream>> streams) {
  if (streams.size() == 1) return std::move(streams[0]);
  return std::make_unique<MergeStream>(std::move(streams));
}

ExternalSorter::ExternalSorter(size_t key_width, uint64_t memory_budget_bytes, std::string spill_dir)
    : key_width_(key_width),
      budget_(memory_budget_bytes),
      spill_dir_(std::move(spill_dir)),
      buffer_(std::make_unique<SortBuffer>(key_width, memory_budget_bytes)) {}

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

Status ExternalSorter::SpillBuffer() {
  if (buffer_->empty()) return Status::OK();
  std::unique_ptr<SortedStream> sorted = buffer_->TakeSorted();
  ASSIGN_OR_RETURN(std::string path, NewRunPath());
  RunWriter w;
  RETURN_IF_ERROR(w.Open(path));
  SortedEntry e;
  for (;;) {
    ASSIGN_OR_RETURN(bool more, sorted->Next(&e));
    if (!more) break;
    w.Put(e.key, e.address);
  }
  RETURN_IF_ERROR(w.Close());
  runs_.push_back(path);
  ++runs_spilled_;
  return Status::OK();
}

Status ExternalSorter::MergeRunsInto(const std::vector<std::string>& runs, const std::string& out_path) {
  std::vector<std::unique_ptr<SortedStream>> streams;
  for (const std::string& r : runs) {
    auto reader = std::make_unique<RunReader>(r);
    RETURN_IF_ERROR(reader->Open());
    streams.push_back(std::move(reader));
  }
  std::unique_ptr<SortedStream> merged = MergeStreams(std::move(streams));
  RunWriter w;
  RETURN_IF_ERROR(w.Open(out_path));
  SortedEntry e;
  for (;;) {
    ASSIGN_OR_RETURN(bool more, merged->Next(&e));
    if (!more) break;
    w.Put(e.key, e.address);
  }
  RETURN_IF_ERROR(w.Close());
  merged.reset();
  for (const std::string& r : runs) {
    std::error_code ec;
    std::filesystem::remove(r, ec);
  }
  return Status::OK();
}

Result<std::unique_ptr<SortedStream>> ExternalSorter::Finish() {
  if (finished_) return Status::Internal("btree sort: Finish called twice");
  finished_ = true;
  std::vector<std::unique_ptr<SortedStream>> streams = std::move(sources_);
  sources_.clear();
  if (runs_.empty()) {
    streams.push_back(buffer_->TakeSorted());
  } else {
    RETURN_IF_ERROR(SpillBuffer());
    const size_t fan_in = std::max<size_t>(2, kMaxFanIn > streams.size() ? kMaxFanIn - streams.size() : 2);
    while (runs_.size() > fan_in) {
      std::vector<std::string> group(runs_.begin(), runs_.begin() + long(kMaxFanIn));
      runs_.erase(runs_.begin(), runs_.begin() + long(kMaxFanIn));
      ASSIGN_OR_RETURN(std::string out, NewRunPath());
      RETURN_IF_ERROR(MergeRunsInto(group, out));
      runs_.push_back(out);
    }
    for (const std::string& r : runs_) {
      auto reader = std::make_unique<RunReader>(r);
      RETURN_IF_ERROR(reader->Open());
      streams.push_back(std::move(reader));
    }
  }
  if (streams.empty()) streams.push_back(buffer_->TakeSorted());  // empty
  return MergeStreams(std::move(streams));
}

}  // namespace lakeindex::index::btree
