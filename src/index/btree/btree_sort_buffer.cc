#include "index/btree/btree_sort_buffer.h"

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

uint64_t StringPrefix(std::string_view key) {
  char buf[kFixedKeyWidth] = {};
  std::copy_n(key.data(), std::min(key.size(), kFixedKeyWidth), buf);
  return LoadFixedKey(std::string_view(buf, kFixedKeyWidth));
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
}

void SortBuffer::Add(std::string_view key, uint64_t address) {
  if (fixed()) {
    AddFixed(LoadFixedKey(key), address);
    return;
  }
  strings_.push_back(StringEntry{StringPrefix(key), address, uint32_t(string_keys_.size())});
  string_keys_.Append(key);
  string_key_bytes_ += key.size();
}

std::unique_ptr<SortedStream> SortBuffer::TakeSorted() {
  if (fixed()) {
    std::unique_ptr<FixedEntry[]> scratch;
    const FixedEntry* sorted = fixed_.data();
    if (fixed_.size() >= kRadixMinEntries) {
      scratch = std::make_unique_for_overwrite<FixedEntry[]>(fixed_.size());
      sorted = RadixSortEntries(fixed_.data(), scratch.get(), fixed_.size(), address_ordered_);
    } else {
      RadixSortEntries(fixed_.data(), nullptr, fixed_.size(), address_ordered_);
    }
    const size_t n = fixed_.size();
    if (sorted == fixed_.data()) {
      scratch.reset();
    } else {
      fixed_ = {};  // the result is in scratch: free the input now
    }
    auto stream = std::make_unique<FixedStream>(std::move(fixed_), std::move(scratch), sorted, n);
    fixed_ = {};
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
