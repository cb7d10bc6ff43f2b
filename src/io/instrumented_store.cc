// InstrumentedStore: counts what reaches the wrapped store, adds latency, injects failures.
//
// Contract details the tests pin down:
//  * Every call is one operation of its kind (Read/ReadRange/Size are kRead, Write and
//    ObjectWriter::Close kWrite, CreateIfAbsent kCreate, List kList, Delete kDelete; OpenWriter
//    and Append are free) and also one of kAny; OpsSeen counts
//    calls since the last FailNth, including the failed one.
//  * The injected failure happens before the base store is called, so it has no effect and is
//    not counted in counters() (which describe traffic that reached the base store).
//  * Latency is added to every call, failed ones included, outside any lock.

#include <chrono>
#include <string>
#include <thread>

#include "lakeindex/object_store.h"

namespace lakeindex {

namespace {

const char* OpName(StoreOp op) {
  switch (op) {
    case StoreOp::kRead: return "read";
    case StoreOp::kWrite: return "write";
    case StoreOp::kCreate: return "create";
    case StoreOp::kList: return "list";
    case StoreOp::kDelete: return "delete";
    case StoreOp::kAny: return "any";
  }
  return "unknown";
}

}  // namespace

void StoreCounters::Reset() {
  read_requests = 0;
  bytes_read = 0;
  write_requests = 0;
  bytes_written = 0;
  list_requests = 0;
  delete_requests = 0;
  round_trips = 0;
}

class InstrumentedStore::Busy {
 public:
  explicit Busy(InstrumentedStore* store) : store_(store) {
    if (store_->in_flight_.fetch_add(1) == 0) ++store_->counters_.round_trips;
  }
  ~Busy() { store_->in_flight_.fetch_sub(1); }
  Busy(const Busy&) = delete;
  Busy& operator=(const Busy&) = delete;

 private:
  InstrumentedStore* store_;
};

InstrumentedStore::InstrumentedStore(std::shared_ptr<ObjectStore> base) : base_(std::move(base)) {}

void InstrumentedStore::FailNth(StoreOp op, uint64_t k) {
  std::lock_guard<std::mutex> lock(mu_);
  fail_op_ = op;
  fail_at_ = k;
  for (uint64_t& n : seen_) n = 0;
}

uint64_t InstrumentedStore::OpsSeen(StoreOp op) const {
  std::lock_guard<std::mutex> lock(mu_);
  return seen_[size_t(op)];
}

Status InstrumentedStore::Before(StoreOp op, std::string_view path) {
  const uint64_t latency = latency_us_.load();
  if (latency > 0) std::this_thread::sleep_for(std::chrono::microseconds(latency));
  std::lock_guard<std::mutex> lock(mu_);
  ++seen_[size_t(op)];
  ++seen_[size_t(StoreOp::kAny)];
  if (fail_at_ != 0 && (fail_op_ == op || fail_op_ == StoreOp::kAny) &&
      seen_[size_t(fail_op_)] == fail_at_) {
    return Status::IOError("injected failure: " + std::string(OpName(op)) + " #" +
                           std::to_string(fail_at_) + " on " + std::string(path));
  }
  return Status::OK();
}

Result<std::string> InstrumentedStore::Read(std::string_view path) {
  Busy busy(this);
  RETURN_IF_ERROR(Before(StoreOp::kRead, path));
  ++counters_.read_requests;
  Result<std::string> r = base_->Read(path);
  if (r.ok()) counters_.bytes_read += r->size();
  return r;
}

Result<std::string> InstrumentedStore::ReadRange(std::string_view path, uint64_t offset,
                                                 uint64_t length) {
  Busy busy(this);
  RETURN_IF_ERROR(Before(StoreOp::kRead, path));
  ++counters_.read_requests;
  Result<std::string> r = base_->ReadRange(path, offset, length);
  if (r.ok()) counters_.bytes_read += r->size();
  return r;
}

Result<std::string> InstrumentedStore::ReadBounded(std::string_view path, uint64_t max_bytes) {
  Busy busy(this);
  RETURN_IF_ERROR(Before(StoreOp::kRead, path));
  ++counters_.read_requests;
  Result<std::string> r = base_->ReadBounded(path, max_bytes);
  if (r.ok()) counters_.bytes_read += r->size();
  return r;
}

// One call, one round trip; requests and bytes as the ranges would count one by one.
Result<std::vector<std::string>> InstrumentedStore::ReadRanges(std::string_view path,
                                                               const std::vector<ByteRange>& ranges) {
  Busy busy(this);
  RETURN_IF_ERROR(Before(StoreOp::kRead, path));
  counters_.read_requests += ranges.size();
  Result<std::vector<std::string>> r = base_->ReadRanges(path, ranges);
  if (r.ok()) {
    for (const std::string& b : *r) counters_.bytes_read += b.size();
  }
  return r;
}

Result<uint64_t> InstrumentedStore::Size(std::string_view path) {
  Busy busy(this);
  RETURN_IF_ERROR(Before(StoreOp::kRead, path));
  ++counters_.read_requests;
  return base_->Size(path);
}

Result<bool> InstrumentedStore::Occupied(std::string_view path) {
  Busy busy(this);
  RETURN_IF_ERROR(Before(StoreOp::kRead, path));
  ++counters_.read_requests;
  return base_->Occupied(path);
}

Status InstrumentedStore::Write(std::string_view path, std::string_view data) {
  Busy busy(this);
  RETURN_IF_ERROR(Before(StoreOp::kWrite, path));
  ++counters_.write_requests;
  Status st = base_->Write(path, data);
  if (st.ok()) {
    counters_.bytes_written += data.size();
    RecordWritten(path, XXH64(data.data(), data.size(), 0));
  }
  return st;
}

void InstrumentedStore::RecordWritten(std::string_view path, uint64_t checksum) {
  if (IsScratchPath(path)) return;
  std::lock_guard<std::mutex> lock(mu_);
  written_[std::string(path)] = checksum;
}

void InstrumentedStore::AdoptWrittenChecksums(const std::map<std::string, uint64_t>& checksums) {
  for (const auto& [path, checksum] : checksums) RecordWritten(path, checksum);
}

std::map<std::string, uint64_t> InstrumentedStore::WrittenChecksums() const {
  std::lock_guard<std::mutex> lock(mu_);
  return written_;
}

Status InstrumentedStore::CreateIfAbsent(std::string_view path, std::string_view data) {
  Busy busy(this);
  RETURN_IF_ERROR(Before(StoreOp::kCreate, path));
  ++counters_.write_requests;
  Status st = base_->CreateIfAbsent(path, data);
  if (st.ok()) {
    counters_.bytes_written += data.size();
    RecordWritten(path, XXH64(data.data(), data.size(), 0));
  }
  return st;
}

Result<std::vector<ObjectInfo>> InstrumentedStore::List(std::string_view prefix) {
  Busy busy(this);
  RETURN_IF_ERROR(Before(StoreOp::kList, prefix));
  ++counters_.list_requests;
  return base_->List(prefix);
}

Status InstrumentedStore::Delete(std::string_view path) {
  Busy busy(this);
  RETURN_IF_ERROR(Before(StoreOp::kDelete, path));
  ++counters_.delete_requests;
  return base_->Delete(path);
}

Status InstrumentedStore::DeleteMany(const std::vector<std::string>& paths) {
  Busy busy(this);
  for (const std::string& path : paths) {
    RETURN_IF_ERROR(Before(StoreOp::kDelete, path));
    ++counters_.delete_requests;
  }
  return base_->DeleteMany(paths);
}

Result<std::vector<std::string>> InstrumentedStore::RemoveAbandonedWrites(std::string_view prefix, int64_t cutoff_ms) {
  Busy busy(this);
  RETURN_IF_ERROR(Before(StoreOp::kDelete, prefix));
  return base_->RemoveAbandonedWrites(prefix, cutoff_ms);
}

// Passes appends through uncounted; Close is the one kWrite request of the object (see the
// header), so an injected failure there abandons the base writer and publishes nothing.
class InstrumentedStore::Writer final : public ObjectWriter {
 public:
  Writer(InstrumentedStore* store, std::unique_ptr<ObjectWriter> base)
      : ObjectWriter(base->path()), store_(store), base_(std::move(base)) {}

 protected:
  Status DoAppend(std::string_view data) override { return base_->Append(data); }
  Status DoClose() override {
    Status st = store_->Before(StoreOp::kWrite, path());
    if (!st.ok()) {
      base_.reset();
      return st;
    }
    ++store_->counters_.write_requests;
    RETURN_IF_ERROR(base_->Close());
    store_->counters_.bytes_written += base_->bytes_appended();
    store_->RecordWritten(path(), base_->checksum());
    return Status::OK();
  }

 private:
  InstrumentedStore* store_;
  std::unique_ptr<ObjectWriter> base_;
};

Result<std::unique_ptr<ObjectWriter>> InstrumentedStore::OpenWriter(std::string_view path) {
  ASSIGN_OR_RETURN(std::unique_ptr<ObjectWriter> base, base_->OpenWriter(path));
  return std::unique_ptr<ObjectWriter>(std::make_unique<Writer>(this, std::move(base)));
}

std::string InstrumentedStore::Describe() const {
  return base_->Describe();  // where the objects are; the counting is no part of it
}

ObjectStore::ReadHint InstrumentedStore::read_hint() const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (hint_) return *hint_;
  }
  if (latency_us_.load() > 0 && !base_->remote()) return kRemoteReadHint;
  return base_->read_hint();
}

void InstrumentedStore::SetReadHint(std::optional<ReadHint> hint) {
  std::lock_guard<std::mutex> lock(mu_);
  hint_ = hint;
}

}  // namespace lakeindex
