#include "index/bitmap/bitmap_segment.h"

#include <algorithm>

#include <xxhash.h>

namespace lakeindex::index::bitmap {
namespace {
constexpr uint64_t kTailRead = 64 << 10;
}  // namespace

BitmapSegment::BitmapSegment(ObjectStore* store, std::string path, Dictionary dict)
    : store_(store),
      path_(std::move(path)),
      dict_(std::move(dict)),
      keys_(KeyWidth(dict_.type)),
      held_(dict_.keys.size() + 1) {
  for (const std::string& k : dict_.keys) keys_.Append(k);
}

Result<std::shared_ptr<BitmapSegment>> BitmapSegment::Open(ObjectStore* store, const std::string& uuid) {
  const std::string path = BitmapPath(uuid);
  ASSIGN_OR_RETURN(uint64_t size, store->Size(path));
  if (size < kFooterSize) return Status::Corruption(path + ": shorter than the 32-byte footer");
  const uint64_t tail_size = std::min(size, kTailRead);
  ASSIGN_OR_RETURN(std::string tail, store->ReadRange(path, size - tail_size, tail_size));
  const auto* t = reinterpret_cast<const uint8_t*>(tail.data());
  ASSIGN_OR_RETURN(Footer footer, DecodeFooter(t + tail_size - kFooterSize, kFooterSize, size, path));
  std::string dictionary;
  if (uint64_t(footer.dictionary_size) + kFooterSize <= tail_size) {
    dictionary = tail.substr(tail_size - kFooterSize - footer.dictionary_size, footer.dictionary_size);
  } else {
    ASSIGN_OR_RETURN(dictionary, store->ReadRange(path, footer.dictionary_offset, footer.dictionary_size));
  }
  ASSIGN_OR_RETURN(Dictionary dict, DecodeDictionary(reinterpret_cast<const uint8_t*>(dictionary.data()),
                                                     dictionary.size(), footer, path));
  return std::shared_ptr<BitmapSegment>(new BitmapSegment(store, path, std::move(dict)));
}

const BitmapRef& BitmapSegment::Ref(size_t entry) const {
  return entry < dict_.bitmaps.size() ? dict_.bitmaps[entry] : dict_.nulls;
}

Result<std::vector<size_t>> BitmapSegment::Entries(const ScalarQuery& query) const {
  std::vector<size_t> entries;
  if (query.kind == ScalarQuery::Kind::kIsNull) {
    entries.push_back(dict_.keys.size());
    return entries;
  }
  ASSIGN_OR_RETURN(std::vector<KeyInterval> intervals, QueryIntervals(dict_.type, query));
  for (const KeyInterval& iv : intervals) {
    const auto [begin, end] = KeysInInterval(keys_, iv);
    for (size_t i = begin; i < end; ++i) entries.push_back(i);
  }
  return entries;  // ascending: the intervals are sorted and disjoint
}

Result<std::vector<std::shared_ptr<const RowSet>>> BitmapSegment::Bitmaps(const std::vector<size_t>& entries, bool cache,
                                                                         SearchCounters* counters) const {
  std::vector<std::shared_ptr<const RowSet>> out(entries.size());
  std::vector<size_t> missing;  // positions in `entries`
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = 0; i < entries.size(); ++i) {
      if (cache && held_[entries[i]]) {
        out[i] = held_[entries[i]];
      } else {
        missing.push_back(i);
      }
    }
  }
  if (missing.empty()) return out;
  std::vector<ObjectStore::ByteRange> ranges;
  for (size_t i : missing) ranges.push_back({Ref(entries[i]).offset, Ref(entries[i]).size});
  ASSIGN_OR_RETURN(std::vector<std::string> bytes, store_->ReadRanges(path_, ranges));
  for (size_t j = 0; j < missing.size(); ++j) {
    const size_t entry = entries[missing[j]];
    const BitmapRef& ref = Ref(entry);
    const std::string where = path_ + ": bitmap of entry " + std::to_string(entry);
    const std::string& b = bytes[j];
    if (b.size() != ref.size || XXH64(b.data(), b.size(), 0) != ref.xxh64) {
      return Status::Corruption(where + ": checksum mismatch");
    }
    ASSIGN_OR_RETURN(RowSet rows, RowSet::Deserialize(reinterpret_cast<const uint8_t*>(b.data()), b.size()));
    if (rows.Cardinality() != ref.cardinality) {
      return Status::Corruption(where + " holds " + std::to_string(rows.Cardinality()) + " rows, the dictionary says " +
                                std::to_string(ref.cardinality));
    }
    out[missing[j]] = std::make_shared<const RowSet>(std::move(rows));
    if (counters != nullptr) {
      counters->pages_read += 1;
      counters->bytes_read += b.size();
    }
  }
  if (cache) {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i : missing) held_[entries[i]] = out[i];
  }
  return out;
}

Status BitmapSegment::Prewarm(uint64_t max_bytes, SearchCounters* counters) const {
  std::vector<size_t> entries;
  uint64_t bytes = 0;
  for (size_t e = 0; e <= dict_.keys.size(); ++e) {  // the NULL rows' entry last
    if (bytes + Ref(e).size > max_bytes) break;
    bytes += Ref(e).size;
    entries.push_back(e);
  }
  return Bitmaps(entries, true, counters).status();
}

Result<SearchResult> BitmapSegment::Search(const ScalarQuery& query, SearchCounters* counters) const {
  ASSIGN_OR_RETURN(std::vector<size_t> entries, Entries(query));
  const size_t null_entry = dict_.keys.size();
  const bool is_null = query.kind == ScalarQuery::Kind::kIsNull;
  std::vector<size_t> wanted = entries;
  if (!is_null) wanted.push_back(null_entry);  // UNKNOWN rows
  ASSIGN_OR_RETURN(auto bitmaps, Bitmaps(wanted, true, counters));
  SearchResult result;
  result.exactness = Exactness::kExact;
  if (is_null) {
    result.rows.true_rows = *bitmaps[0];
  } else {
    if (entries.size() == 1) {
      result.rows.true_rows = *bitmaps[0];
    } else {
      for (size_t i = 0; i < entries.size(); ++i) result.rows.true_rows |= *bitmaps[i];
    }
    result.rows.null_rows = *bitmaps.back();
  }
  if (counters != nullptr) {
    counters->pages_total += dict_.keys.size() + 1;
    counters->pages_selected += entries.size();
    counters->pages_all_match += entries.size();
  }
  return result;
}

Result<uint64_t> BitmapSegment::Count(const ScalarQuery& query, SearchCounters* counters) const {
  ASSIGN_OR_RETURN(std::vector<size_t> entries, Entries(query));
  uint64_t n = 0;
  for (size_t e : entries) n += Ref(e).cardinality;
  if (counters != nullptr) {
    counters->pages_total += dict_.keys.size() + 1;
    counters->pages_selected += entries.size();
    counters->pages_all_match += entries.size();
  }
  return n;
}

Result<std::vector<std::shared_ptr<const RowSet>>> BitmapSegment::AllBitmaps() const {
  std::vector<size_t> all(dict_.keys.size() + 1);
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  return Bitmaps(all, false, nullptr);
}

Result<std::string> BitmapSegment::Verify(const SegmentCoverage& coverage, const std::string& where) const {
  ASSIGN_OR_RETURN(auto bitmaps, AllBitmaps());
  RowSet inside;  // the rows the fragments the version has hold
  for (const auto& [fragment, rows] : coverage.rows_of) inside |= RowSet::Range(fragment, 0, uint32_t(rows));
  RowSet seen;
  for (size_t i = 0; i < bitmaps.size(); ++i) {
    const RowSet& rows = *bitmaps[i];
    uint64_t of_present = 0;  // rows of the fragments the version has
    for (const auto& [fragment, n] : coverage.rows_of) of_present += rows.CardinalityIn(fragment);
    if ((rows & inside).Cardinality() != of_present || (coverage.complete && of_present != rows.Cardinality())) {
      return Status::Corruption(where + ": bitmap of entry " + std::to_string(i) +
                                " holds rows outside the fragments it covers");
    }
    if (!(rows & seen).IsEmpty()) {
      return Status::Corruption(where + ": a row is in the bitmaps of two values (entry " + std::to_string(i) + ")");
    }
    seen |= rows;
  }
  if (coverage.complete && dict_.rows != coverage.Rows()) {
    return Status::Corruption(where + ": indexes " + std::to_string(dict_.rows) + " rows, its fragments hold " +
                              std::to_string(coverage.Rows()));
  }
  return "bitmap, " + std::to_string(dict_.keys.size()) + " values, " + std::to_string(dict_.rows) + " rows";
}

}  // namespace lakeindex::index::bitmap
