#include "index/btree/btree_sort_buffer.h"

#include <sys/mman.h>

#include <algorithm>
#include <array>

namespace lakeindex::index::btree {
namespace {

constexpr size_t kMinGrowEntries = 4096;

class FixedStream : public SortedStream {
 public:
  // `sorted` points into `entries` or, when given, `scratch` (of n entries).
  FixedStream(std::vector<FixedEntry> entries, std::unique_ptr<FixedEntry[]> scratch, const FixedEntry* sorted,
              size_t n)
      : entries_(std::move(entries)),
        scratch_(std::move(scratch)),
        sorted_(sorted),
        n_(scratch_ != nullptr ? n : entries_.size()) {}
  Result<bool> Next(SortedEntry* out) override {
    if (pos_ >= n_) return false;
    const FixedEntry& e = sorted_[pos_++];
    StoreFixedKey(e.key, key_);
    out->key = std::string_view(key_, kFixedKeyWidth);
    out->address = e.address;
    return true;
  }

 private:
  std::vector<FixedEntry> entries_;
  std::unique_ptr<FixedEntry[]> scratch_;
  const FixedEntry* sorted_;
  size_t n_;
  size_t pos_ = 0;
  char key_[kFixedKeyWidth] = {};
};

template <typename Entry>
class StringStream : public SortedStream {
 public:
  StringStream(std::vector<Entry> entries, KeyArray keys) : entries_(std::move(entries)), keys_(std::move(keys)) {}
  Result<bool> Next(SortedEntry* out) override {
    if (pos_ >= entries_.size()) return false;
    const Entry& e = entries_[pos_++];
    out->key = keys_[e.index];
    out->address = e.address;
    return true;
  }

 private:
  std::vector<Entry> entries_;
  KeyArray keys_;
  size_t pos_ = 0;
};

// Asks the kernel to back a large array with huge pages (where transparent huge pages are
// enabled "on madvise", as on Debian): first touching a sort buffer otherwise takes a page fault
// every 4 KiB, measured at a seventh of a 10M-row build. A hint; nothing changes when refused.
void AdviseHugePages(const void* data, size_t bytes) {
#ifdef MADV_HUGEPAGE
  constexpr uintptr_t kHuge = uintptr_t(2) << 20;
  if (bytes < 2 * kHuge) return;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(kHuge - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

}  // namespace

SortBuffer::SortBuffer(size_t key_width, uint64_t budget_bytes)
    : key_width_(key_width),
      budget_(budget_bytes),
      max_fixed_(std::max<size_t>(1, size_t(budget_bytes / (2 * sizeof(FixedEntry))))) {}

bool SortBuffer::full() const {
  if (fixed()) return fixed_.size() >= max_fixed_;
  // Sizes, not capacities: vector growth may double them, hence half the budget.
  return (string_key_bytes_ + strings_.size() * (sizeof(StringEntry) + sizeof(uint64_t))) * 2 >= budget_ ||
         strings_.size() >= (uint64_t(1) << 32) - 1;
}

void SortBuffer::Grow() {
  const size_t cap = std::min(max_fixed_, std::max(kMinGrowEntries, 2 * fixed_.capacity()));
  fixed_.reserve(std::max(cap, fixed_.size() + 1));
  AdviseHugePages(fixed_.data(), fixed_.capacity() * sizeof(FixedEntry));
}

void SortBuffer::Add(std::string_view key, uint64_t address) {
  if (fixed()) {
    AddFixed(LoadFixedKey(key), address);
    return;
  }
  strings_.push_back(StringEntry{KeyPrefix(key), address, uint32_t(string_keys_.size())});
  string_keys_.Append(key);
  string_key_bytes_ += key.size();
}

void SortBuffer::Reserve(uint64_t entries) {
  if (!fixed() || entries <= fixed_.capacity()) return;
  fixed_.reserve(size_t(std::min<uint64_t>(entries, max_fixed_)));
  AdviseHugePages(fixed_.data(), fixed_.capacity() * sizeof(FixedEntry));
}

std::span<const FixedEntry> SortBuffer::SortFixed() {
  const size_t n = fixed_.size();
  if (n < kRadixMinEntries) {
    RadixSortEntries(fixed_.data(), nullptr, n, address_ordered_);
    return {fixed_.data(), n};
  }
  if (scratch_size_ < n) {
    scratch_size_ = std::max(n, fixed_.capacity());
    scratch_ = std::make_unique_for_overwrite<FixedEntry[]>(scratch_size_);
    AdviseHugePages(scratch_.get(), scratch_size_ * sizeof(FixedEntry));
  }
  return {RadixSortEntries(fixed_.data(), scratch_.get(), n, address_ordered_), n};
}

void SortBuffer::Clear() {
  fixed_.clear();
  address_ordered_ = true;
  last_address_ = 0;
  strings_.clear();
  string_keys_ = KeyArray(0);
  string_key_bytes_ = 0;
}

std::unique_ptr<SortedStream> SortBuffer::TakeSorted() {
  if (fixed()) {
    const std::span<const FixedEntry> sorted = SortFixed();
    std::unique_ptr<SortedStream> stream;
    if (sorted.data() == fixed_.data()) {
      stream = std::make_unique<FixedStream>(std::move(fixed_), nullptr, sorted.data(), sorted.size());
    } else {
      fixed_ = {};  // the result is in scratch: free the input now
      stream = std::make_unique<FixedStream>(std::vector<FixedEntry>(), std::move(scratch_), sorted.data(), sorted.size());
    }
    fixed_ = {};
    scratch_.reset();
    scratch_size_ = 0;
    address_ordered_ = true;
    last_address_ = 0;
    return stream;
  }
  std::sort(strings_.begin(), strings_.end(), [this](const StringEntry& a, const StringEntry& b) {
    if (a.prefix != b.prefix) return a.prefix < b.prefix;
    const int c = string_keys_[a.index].compare(string_keys_[b.index]);
    return c < 0 || (c == 0 && a.address < b.address);
  });
  auto stream = std::make_unique<StringStream<StringEntry>>(std::move(strings_), std::move(string_keys_));
  strings_ = {};
  string_keys_ = KeyArray(0);
  string_key_bytes_ = 0;
  return stream;
}

}  // namespace lakeindex::index::btree
