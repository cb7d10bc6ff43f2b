// In-process ObjectStore: a sorted map of immutable buffers under one mutex. Objects are shared
// by pointer, so a reader copying an object out never blocks writers for long and never sees a
// partial object (a Write swaps the pointer).

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "io/object_path.h"
#include "lakeindex/object_store.h"

namespace lakeindex {

namespace {

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class MemoryStore final : public ObjectStore {
 public:
  Result<std::string> Read(std::string_view path) override {
    RETURN_IF_ERROR(ValidateObjectPath(path));
    ASSIGN_OR_RETURN(std::shared_ptr<const std::string> data, Find(path));
    return std::string(*data);
  }

  Result<std::string> ReadRange(std::string_view path, uint64_t offset, uint64_t length) override {
    RETURN_IF_ERROR(ValidateObjectPath(path));
    ASSIGN_OR_RETURN(std::shared_ptr<const std::string> data, Find(path));
    const uint64_t size = data->size();
    if (offset > size || length > size - offset) {
      return Status::Corruption(Describe() + std::string(path) + ": range [" +
                                std::to_string(offset) + ", +" + std::to_string(length) +
                                ") is past the end of the object (size " + std::to_string(size) +
                                ")");
    }
    return data->substr(offset, length);
  }

  Result<uint64_t> Size(std::string_view path) override {
    RETURN_IF_ERROR(ValidateObjectPath(path));
    ASSIGN_OR_RETURN(std::shared_ptr<const std::string> data, Find(path));
    return uint64_t(data->size());
  }

  Status Write(std::string_view path, std::string_view data) override {
    RETURN_IF_ERROR(ValidateObjectPath(path));
    auto copy = std::make_shared<const std::string>(data);
    std::lock_guard<std::mutex> lock(mu_);
    objects_[std::string(path)] = Entry{std::move(copy), NowMillis()};
    return Status::OK();
  }

  Status CreateIfAbsent(std::string_view path, std::string_view data) override {
    RETURN_IF_ERROR(ValidateObjectPath(path));
    auto copy = std::make_shared<const std::string>(data);
    std::lock_guard<std::mutex> lock(mu_);
    auto [it, inserted] = objects_.try_emplace(std::string(path), Entry{copy, NowMillis()});
    if (!inserted) {
      return Status::AlreadyExists(Describe() + std::string(path) + ": already exists");
    }
    return Status::OK();
  }

  Result<std::vector<ObjectInfo>> List(std::string_view prefix) override {
    RETURN_IF_ERROR(ValidateObjectPrefix(prefix));
    std::vector<ObjectInfo> out;
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = objects_.lower_bound(prefix); it != objects_.end(); ++it) {
      if (!std::string_view(it->first).starts_with(prefix)) break;
      out.push_back(ObjectInfo{it->first, it->second.data->size(), it->second.mtime_ms});
    }
    return out;
  }

  Status Delete(std::string_view path) override {
    RETURN_IF_ERROR(ValidateObjectPath(path));
    std::lock_guard<std::mutex> lock(mu_);
    auto it = objects_.find(path);
    if (it != objects_.end()) objects_.erase(it);
    return Status::OK();
  }

  std::string Describe() const override { return "memory://"; }

 private:
  struct Entry {
    std::shared_ptr<const std::string> data;
    int64_t mtime_ms = 0;
  };

  Result<std::shared_ptr<const std::string>> Find(std::string_view path) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = objects_.find(path);
    if (it == objects_.end()) {
      return Status::NotFound(Describe() + std::string(path) + ": object not found");
    }
    return it->second.data;
  }

  std::mutex mu_;
  // std::less<> allows lookups by string_view without building a string.
  std::map<std::string, Entry, std::less<>> objects_;
};

}  // namespace

std::unique_ptr<ObjectStore> NewMemoryStore() { return std::make_unique<MemoryStore>(); }

}  // namespace lakeindex
