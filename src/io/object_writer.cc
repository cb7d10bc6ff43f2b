// ObjectWriter's state machine (shared by every store's writer) and the default
// ObjectStore::OpenWriter, which buffers the object and publishes it with one Write.

#include <memory>
#include <string>
#include <string_view>

#include "lakeindex/object_store.h"

namespace lakeindex {

namespace {

// For stores that cannot stream (memory, or a remote store without multipart uploads): the
// object is built in memory and handed to Write at Close, which gives the atomicity for free.
// Abandoning it drops the buffer, so nothing is ever published.
class BufferedObjectWriter final : public ObjectWriter {
 public:
  BufferedObjectWriter(ObjectStore* store, std::string path)
      : ObjectWriter(std::move(path)), store_(store) {}

 protected:
  Status DoAppend(std::string_view data) override {
    buffer_.append(data);
    return Status::OK();
  }
  Status DoClose() override {
    Status st = store_->Write(path(), buffer_);
    buffer_ = std::string();
    return st;
  }

 private:
  ObjectStore* store_;
  std::string buffer_;
};

}  // namespace

ObjectWriter::ObjectWriter(std::string path) : path_(std::move(path)), hash_(XXH64_createState(), XXH64_freeState) {
  XXH64_reset(hash_.get(), 0);
}

Status ObjectWriter::Append(std::string_view data) {
  RETURN_IF_ERROR(status_);
  if (closed_) return Status::InvalidArgument(path_ + ": append to a closed object writer");
  status_ = DoAppend(data);
  if (status_.ok()) {
    bytes_appended_ += data.size();
    XXH64_update(hash_.get(), data.data(), data.size());
  }
  return status_;
}

Status ObjectWriter::Close() {
  RETURN_IF_ERROR(status_);
  if (closed_) return Status::InvalidArgument(path_ + ": object writer closed twice");
  status_ = DoClose();
  if (status_.ok()) closed_ = true;
  return status_;
}

Result<std::vector<std::string>> ObjectStore::ReadRanges(std::string_view path, const std::vector<ByteRange>& ranges) {
  std::vector<std::string> out;
  out.reserve(ranges.size());
  for (const ByteRange& r : ranges) {
    ASSIGN_OR_RETURN(std::string bytes, ReadRange(path, r.offset, r.length));
    out.push_back(std::move(bytes));
  }
  return out;
}

Result<std::string> ObjectStore::ReadBounded(std::string_view path, uint64_t max_bytes) {
  ASSIGN_OR_RETURN(uint64_t size, Size(path));
  if (size > max_bytes) {
    return Status::Corruption(std::string(path) + " in " + Describe() + ": " + std::to_string(size) +
                              " bytes, more than the " + std::to_string(max_bytes) + " it may hold");
  }
  return Read(path);
}

Result<std::vector<std::string>> ObjectStore::RemoveAbandonedWrites(std::string_view, int64_t) {
  return std::vector<std::string>{};
}

Status ObjectStore::DeleteMany(const std::vector<std::string>& paths) {
  for (const std::string& path : paths) RETURN_IF_ERROR(Delete(path));
  return Status::OK();
}

Result<bool> ObjectStore::Occupied(std::string_view path) {
  auto size = Size(path);
  if (size.ok()) return true;
  if (size.status().IsNotFound()) return false;
  return size.status();
}

Result<std::unique_ptr<ObjectWriter>> ObjectStore::OpenWriter(std::string_view path) {
  RETURN_IF_ERROR(ValidateObjectPath(path));
  return std::unique_ptr<ObjectWriter>(
      std::make_unique<BufferedObjectWriter>(this, std::string(path)));
}

}  // namespace lakeindex
