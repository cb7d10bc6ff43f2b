#include "index/btree/btree_sorter.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <queue>

#include "common/uuid.h"

namespace lakeindex::index::btree {
namespace {

constexpr size_t kFileBuffer = size_t(256) << 10;
constexpr uint32_t kMaxRunKeyBytes = 1u << 30;

class MemoryStream : public SortedStream {
 public:
  MemoryStream(KeyArray keys, std::vector<uint64_t> addresses, std::vector<uint32_t> order)
      : keys_(std::move(keys)), addresses_(std::move(addresses)), order_(std::move(order)) {}
  Result<bool> Next(SortedEntry* out) override {
    if (pos_ >= order_.size()) return false;
    const uint32_t i = order_[pos_++];
    out->key = keys_[i];
    out->address = addresses_[i];
    return true;
  }

 private:
  KeyArray keys_;
  std::vector<uint64_t> addresses_;
  std::vector<uint32_t> order_;
  size_t pos_ = 0;
};

class RunWriter {
 public:
  ~RunWriter() {
    if (f_ != nullptr) std::fclose(f_);
  }
  Status Open(const std::string& path) {
    path_ = path;
    f_ = std::fopen(path.c_str(), "wb");
    if (f_ == nullptr) return Status::IOError("btree sort: cannot create run file '" + path + "'");
    std::setvbuf(f_, nullptr, _IOFBF, kFileBuffer);
    return Status::OK();
  }
  void Put(std::string_view key, uint64_t address) {
    unsigned char buf[8];
    const uint32_t n = uint32_t(key.size());
    for (int i = 0; i < 4; ++i) buf[i] = uint8_t(n >> (8 * i));
    std::fwrite(buf, 1, 4, f_);
    std::fwrite(key.data(), 1, key.size(), f_);
    for (int i = 0; i < 8; ++i) buf[i] = uint8_t(address >> (8 * i));
    std::fwrite(buf, 1, 8, f_);
  }
  Status Close() {
    const bool failed = std::ferror(f_) != 0;
    const bool close_failed = std::fclose(f_) != 0;
    f_ = nullptr;
    if (failed || close_failed) return Status::IOError("btree sort: writing run file '" + path_ + "' failed");
    return Status::OK();
  }

 private:
  std::string path_;
  std::FILE* f_ = nullptr;
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
    std::setvbuf(f_, nullptr, _IOFBF, kFileBuffer);
    return Status::OK();
  }
  Result<bool> Next(SortedEntry* out) override {
    unsigned char buf[8];
    const size_t got = std::fread(buf, 1, 4, f_);
    if (got == 0 && std::feof(f_)) return false;
    if (got != 4) return Truncated();
    uint32_t n = 0;
    for (int i = 0; i < 4; ++i) n |= uint32_t(buf[i]) << (8 * i);
    if (n > kMaxRunKeyBytes) return Status::Corruption("btree sort: run file '" + path_ + "' has a bad key length");
    key_.resize(n);
    if (std::fread(key_.data(), 1, n, f_) != n || std::fread(buf, 1, 8, f_) != 8) return Truncated();
    uint64_t a = 0;
    for (int i = 0; i < 8; ++i) a |= uint64_t(buf[i]) << (8 * i);
    out->key = key_;
    out->address = a;
    return true;
  }

 private:
  Status Truncated() const { return Status::IOError("btree sort: run file '" + path_ + "' is truncated"); }
  std::string path_;
  std::FILE* f_ = nullptr;
  std::string key_;
};

class MergeStream : public SortedStream {
 public:
  explicit MergeStream(std::vector<std::unique_ptr<SortedStream>> streams)
      : streams_(std::move(streams)), heads_(streams_.size()) {}

  Result<bool> Next(SortedEntry* out) override {
    if (!primed_) {
      primed_ = true;
      for (size_t i = 0; i < streams_.size(); ++i) RETURN_IF_ERROR(Advance(i));
    } else if (last_ != kNone) {
      // The entry handed out last time is no longer needed: move its stream on.
      RETURN_IF_ERROR(Advance(last_));
      last_ = kNone;
    }
    if (heap_.empty()) return false;
    std::pop_heap(heap_.begin(), heap_.end(), Greater{this});
    last_ = heap_.back();
    heap_.pop_back();
    *out = heads_[last_];
    return true;
  }

 private:
  static constexpr size_t kNone = ~size_t(0);
  struct Greater {
    const MergeStream* self;
    bool operator()(size_t a, size_t b) const { return EntryLess(self->heads_[b], self->heads_[a]); }
  };
  Status Advance(size_t i) {
    ASSIGN_OR_RETURN(bool more, streams_[i]->Next(&heads_[i]));
    if (more) {
      heap_.push_back(i);
      std::push_heap(heap_.begin(), heap_.end(), Greater{this});
    }
    return Status::OK();
  }

  std::vector<std::unique_ptr<SortedStream>> streams_;
  std::vector<SortedEntry> heads_;
  std::vector<size_t> heap_;
  size_t last_ = kNone;
  bool primed_ = false;
};

}  // namespace

std::unique_ptr<SortedStream> MergeStreams(std::vector<std::unique_ptr<SortedStream>> streams) {
  if (streams.size() == 1) return std::move(streams[0]);
  return std::make_unique<MergeStream>(std::move(streams));
}

ExternalSorter::ExternalSorter(size_t key_width, uint64_t memory_budget_bytes, std::string spill_dir)
    : key_width_(key_width), budget_(memory_budget_bytes), spill_dir_(std::move(spill_dir)), keys_(key_width) {}

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

uint64_t ExternalSorter::BufferBytes() const {
  // Sizes, not capacities: vector growth may double them, hence the half budget in Add().
  return key_bytes_ + addresses_.size() * (8 + 4 + (key_width_ == 0 ? 8 : 0));
}

Status ExternalSorter::Add(std::string_view key, uint64_t address) {
  if (finished_) return Status::Internal("btree sort: Add after Finish");
  keys_.Append(key);
  addresses_.push_back(address);
  key_bytes_ += key.size();
  ++entries_;
  if (BufferBytes() * 2 >= budget_ || addresses_.size() >= (uint64_t(1) << 32) - 1) return SpillBuffer();
  return Status::OK();
}

void ExternalSorter::AddSortedSource(std::unique_ptr<SortedStream> source) { sources_.push_back(std::move(source)); }

std::vector<uint32_t> ExternalSorter::SortedOrder() const {
  std::vector<uint32_t> order(addresses_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = uint32_t(i);
  std::sort(order.begin(), order.end(), [this](uint32_t a, uint32_t b) {
    const int c = keys_[a].compare(keys_[b]);
    return c < 0 || (c == 0 && addresses_[a] < addresses_[b]);
  });
  return order;
}

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
  if (addresses_.empty()) return Status::OK();
  const std::vector<uint32_t> order = SortedOrder();
  ASSIGN_OR_RETURN(std::string path, NewRunPath());
  RunWriter w;
  RETURN_IF_ERROR(w.Open(path));
  for (uint32_t i : order) w.Put(keys_[i], addresses_[i]);
  RETURN_IF_ERROR(w.Close());
  runs_.push_back(path);
  ++runs_spilled_;
  keys_ = KeyArray(key_width_);
  std::vector<uint64_t>().swap(addresses_);
  key_bytes_ = 0;
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
    std::vector<uint32_t> order = SortedOrder();
    streams.push_back(std::make_unique<MemoryStream>(std::move(keys_), std::move(addresses_), std::move(order)));
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
  if (streams.empty()) streams.push_back(std::make_unique<MemoryStream>(KeyArray(key_width_), std::vector<uint64_t>{}, std::vector<uint32_t>{}));
  return MergeStreams(std::move(streams));
}

}  // namespace lakeindex::index::btree
