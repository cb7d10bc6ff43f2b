#include "index/btree/btree_reader.h"

#include <algorithm>
#include <map>
#include <optional>

#include "common/thread_pool.h"
#include "format/parquet/column_reader.h"
#include "format/parquet/reader.h"
#include "index/btree/btree_page_plan.h"

namespace lakeindex::index::btree {
namespace {

// The store seen by the page_data reader. It forwards every request to the real store, except
// ranged reads inside the window the calling thread has installed: LoadPage fetches a whole row
// group (both column chunks) with one ranged read, installs it, and lets the Parquet reader
// decode from it. So a leaf page costs one request, and the window is per thread because
// concurrent page loads each have their own.
class WindowStore : public ObjectStore {
 public:
  struct Window {
    uint64_t offset = 0;
    std::string_view bytes;
  };
  class Scope {
   public:
    explicit Scope(const Window* w) : saved_(current_) { current_ = w; }
    ~Scope() { current_ = saved_; }

   private:
    const Window* saved_;
  };

  explicit WindowStore(ObjectStore* base) : base_(base) {}

  Result<std::string> ReadRange(std::string_view path, uint64_t offset, uint64_t length) override {
    const Window* w = current_;
    if (w != nullptr && offset >= w->offset && length <= w->bytes.size() &&
        offset - w->offset <= w->bytes.size() - length) {
      return std::string(w->bytes.substr(offset - w->offset, length));
    }
    return base_->ReadRange(path, offset, length);
  }
  Result<std::string> Read(std::string_view path) override { return base_->Read(path); }
  bool remote() const override { return base_->remote(); }
  ReadHint read_hint() const override { return base_->read_hint(); }
  Result<uint64_t> Size(std::string_view path) override { return base_->Size(path); }
  Status Write(std::string_view path, std::string_view data) override { return base_->Write(path, data); }
  Status CreateIfAbsent(std::string_view path, std::string_view data) override {
    return base_->CreateIfAbsent(path, data);
  }
  Result<std::vector<ObjectInfo>> List(std::string_view prefix) override { return base_->List(prefix); }
  Status Delete(std::string_view path) override { return base_->Delete(path); }
  std::string Describe() const override { return base_->Describe(); }

 private:
  static thread_local const Window* current_;
  ObjectStore* base_;
};

thread_local const WindowStore::Window* WindowStore::current_ = nullptr;

constexpr uint64_t kMaxPageBytes = uint64_t(1) << 31;

}  // namespace

BTreeSegment::BTreeSegment(ObjectStore* store, std::string uuid, PageDirectory dir, BTreeSegmentOptions options)
    : window_store_(std::make_unique<WindowStore>(store)),
      store_(store),
      uuid_(std::move(uuid)),
      data_path_(SegmentDataPath(uuid_)),
      dir_(std::move(dir)),
      options_(options),
      cache_id_(PageCache::NewSegmentId()) {
  if (options_.cache == nullptr) options_.cache = PageCache::Default();
  if (options_.pool == nullptr) options_.pool = ThreadPool::Default();
}

BTreeSegment::~BTreeSegment() = default;

Result<std::shared_ptr<BTreeSegment>> BTreeSegment::Open(ObjectStore* store, std::string_view uuid,
                                                         BTreeSegmentOptions options) {
  const std::string path = SegmentLookupPath(uuid);
  RETURN_IF_ERROR(ValidateObjectPath(path));
  // On a remote store page_data's size (checked before its first page is read) is asked for in
  // the same round trip as the directory.
  std::optional<Result<uint64_t>> data_size;
  std::optional<Result<std::string>> read;
  if (store->remote()) {
    ParallelForThreads(2, 2, [&](size_t i) {
      if (i == 0) read = store->Read(path);
      else data_size = store->Size(SegmentDataPath(uuid));
    });
  } else {
    read = store->Read(path);
  }
  ASSIGN_OR_RETURN(std::string bytes, std::move(*read));
  ASSIGN_OR_RETURN(PageDirectory dir,
                   ParseLookup(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), path));
  std::shared_ptr<BTreeSegment> seg(new BTreeSegment(store, std::string(uuid), std::move(dir), options));
  // page_data's columns as our writer declares them (btree_segment_writer.cc).
  ASSIGN_OR_RETURN(seg->value_leaf_, parquet::ResolveLeaf(parquet::SchemaElementFor(Field{"value", seg->dir_.type, false})));
  ASSIGN_OR_RETURN(seg->address_leaf_, parquet::ResolveLeaf(parquet::SchemaElementFor(Field{"row_address", TypeId::kInt64, false})));
  BTreeSegmentInfo& info = seg->info_;
  info.uuid = seg->uuid_;
  info.type = seg->dir_.type;
  info.page_rows = seg->dir_.page_rows;
  info.num_rows = seg->dir_.num_rows;
  info.null_count = seg->dir_.null_rows.Cardinality();
  info.num_pages = seg->dir_.num_pages();
  if (info.num_pages > 0) {
    ASSIGN_OR_RETURN(Value lo, DecodeKey(info.type, seg->dir_.mins[0]));
    ASSIGN_OR_RETURN(Value hi, DecodeKey(info.type, seg->dir_.maxs[info.num_pages - 1]));
    info.min = std::move(lo);
    info.max = std::move(hi);
  }
  info.lookup_bytes = bytes.size();
  info.data_bytes = seg->dir_.data_bytes;
  if (data_size && data_size->ok()) {
    RETURN_IF_ERROR(seg->DataSizeMatches(**data_size));
    seg->data_size_checked_ = true;  // else CheckDataSize asks again (and reports the error)
  }
  return seg;
}

Result<const parquet::ParquetReader*> BTreeSegment::DataReader() const {
  std::lock_guard<std::mutex> lock(data_mu_);
  if (data_reader_ != nullptr) return data_reader_.get();
  auto corrupt = [&](const std::string& what) {
    return Status::Corruption("btree page_data '" + data_path_ + "': " + what);
  };
  auto reader_or = parquet::ParquetReader::Open(window_store_.get(), data_path_);
  if (!reader_or.ok()) {
    if (reader_or.status().IsCorruption()) return corrupt(reader_or.status().message());
    return reader_or.status();
  }
  std::unique_ptr<parquet::ParquetReader> reader = std::move(*reader_or);
  std::map<std::string, std::string> kv(reader->key_value_metadata().begin(), reader->key_value_metadata().end());
  if (kv[kKeyMagic] != kMagic) return corrupt("missing or wrong magic");
  if (kv[kKeySegment] != uuid_) return corrupt("belongs to segment '" + kv[kKeySegment] + "'");
  if (kv[kKeyValueType] != TypeName(dir_.type)) return corrupt("value type '" + kv[kKeyValueType] + "'");
  const Schema& schema = reader->schema();
  if (schema.num_fields() != 2 || schema.field(kDataValue).type != dir_.type ||
      schema.field(kDataRowAddress).type != TypeId::kInt64) {
    return corrupt("unexpected schema " + schema.ToString());
  }
  if (size_t(reader->num_row_groups()) != dir_.num_pages()) {
    return corrupt(std::to_string(reader->num_row_groups()) + " row groups for " +
                   std::to_string(dir_.num_pages()) + " pages");
  }
  for (size_t i = 0; i < dir_.num_pages(); ++i) {
    if (reader->row_group_num_rows(int(i)) != int64_t(dir_.rows[i])) {
      return corrupt("row group " + std::to_string(i) + " has " + std::to_string(reader->row_group_num_rows(int(i))) +
                     " rows, the directory says " + std::to_string(dir_.rows[i]));
    }
  }
  data_reader_ = std::move(reader);
  return data_reader_.get();
}

// Format version 1: the page's row group is found through page_data's footer.
Result<Batch> BTreeSegment::ReadPageThroughFooter(uint32_t page, uint64_t* bytes_read) const {
  const std::string where = "btree page_data '" + data_path_ + "' page " + std::to_string(page) + ": ";
  ASSIGN_OR_RETURN(const parquet::ParquetReader* reader, DataReader());

  // The row group's byte range, to fetch it with one request (see WindowStore). With metadata
  // that does not describe one sane range, fall back to the reader's per-chunk reads, which
  // validate it and report the corruption.
  const parquet::RowGroup& rg = reader->metadata().row_groups[page];
  uint64_t begin = UINT64_MAX, end = 0;
  bool sane = !rg.columns.empty();
  for (const parquet::ColumnChunk& cc : rg.columns) {
    if (!cc.meta_data) {
      sane = false;
      break;
    }
    int64_t start = cc.meta_data->data_page_offset;
    if (cc.meta_data->dictionary_page_offset && *cc.meta_data->dictionary_page_offset > 0 &&
        *cc.meta_data->dictionary_page_offset < start) {
      start = *cc.meta_data->dictionary_page_offset;
    }
    const int64_t len = cc.meta_data->total_compressed_size;
    if (start < 0 || len < 0 || uint64_t(len) > kMaxPageBytes || uint64_t(start) > kMaxPageBytes * 64) {
      sane = false;
      break;
    }
    begin = std::min(begin, uint64_t(start));
    end = std::max(end, uint64_t(start) + uint64_t(len));
  }
  sane = sane && end > begin && end - begin <= kMaxPageBytes;
  std::string window_bytes;
  WindowStore::Window window;
  if (sane) {
    ASSIGN_OR_RETURN(window_bytes, store_->ReadRange(data_path_, begin, end - begin));
    window.offset = begin;
    window.bytes = window_bytes;
  }
  Result<Batch> batch_or = Status::Internal("unread");
  {
    WindowStore::Scope scope(sane ? &window : nullptr);
    batch_or = reader->ReadRowGroup(int(page), {});
  }
  if (!batch_or.ok()) {
    if (batch_or.status().IsCorruption()) return Status::Corruption(where + batch_or.status().message());
    return batch_or.status();
  }
  if (bytes_read != nullptr) *bytes_read += sane ? window_bytes.size() : 0;
  return std::move(*batch_or);
}

Status BTreeSegment::CheckDataSize() const {
  std::lock_guard<std::mutex> lock(data_mu_);
  if (data_size_checked_) return Status::OK();
  ASSIGN_OR_RETURN(const uint64_t size, store_->Size(data_path_));
  RETURN_IF_ERROR(DataSizeMatches(size));
  data_size_checked_ = true;
  return Status::OK();
}

Status BTreeSegment::DataSizeMatches(uint64_t size) const {
  if (size == dir_.data_bytes) return Status::OK();
  return Status::Corruption("btree page_data '" + data_path_ + "': " + std::to_string(size) +
                            " bytes, the directory says " + std::to_string(dir_.data_bytes));
}

Status BTreeSegment::ReadLocatedPage(uint32_t page, Column* values, Column* addresses, uint64_t* bytes_read) const {
  RETURN_IF_ERROR(CheckDataSize());
  const PageDirectory::Location& at = dir_.locations[page];
  const std::string context = "btree page_data '" + data_path_ + "' page " + std::to_string(page);
  ASSIGN_OR_RETURN(std::string bytes, store_->ReadRange(data_path_, at.offset, at.bytes));
  if (bytes.size() != at.bytes) return Status::Corruption(context + ": short read");
  if (bytes_read != nullptr) *bytes_read += bytes.size();
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  const int64_t rows = int64_t(dir_.rows[page]);
  // The value chunk's pages, then the address chunk's, each holding exactly the page's rows.
  size_t pos = 0;
  for (int c : {kDataValue, kDataRowAddress}) {
    const bool value = c == kDataValue;
    size_t used = 0;
    Status st = parquet::DecodeColumnChunk(data + pos, bytes.size() - pos, at.offset + pos, value ? value_leaf_ : address_leaf_,
                                           parquet::Codec(value ? at.value_codec : at.address_codec), 0, rows,
                                           value ? values : addresses, &used);
    if (!st.ok()) return st.WithContext(context);
    pos += used;
  }
  if (pos != bytes.size()) return Status::Corruption(context + ": " + std::to_string(bytes.size() - pos) + " bytes after the pages");
  return Status::OK();
}

Result<std::shared_ptr<const LeafPage>> BTreeSegment::LoadPage(uint32_t page, uint64_t* bytes_read) const {
  if (page >= dir_.num_pages()) return Status::InvalidArgument("btree: no page " + std::to_string(page));
  const std::string where = "btree page_data '" + data_path_ + "' page " + std::to_string(page) + ": ";
  Column values(dir_.type), addresses(TypeId::kInt64);
  if (!dir_.locations.empty()) {
    RETURN_IF_ERROR(ReadLocatedPage(page, &values, &addresses, bytes_read));
  } else {
    ASSIGN_OR_RETURN(Batch batch, ReadPageThroughFooter(page, bytes_read));
    values = std::move(batch.mutable_column(kDataValue));
    addresses = std::move(batch.mutable_column(kDataRowAddress));
  }
  const size_t n = values.length();
  if (n != dir_.rows[page] || addresses.length() != n) {
    return Status::Corruption(where + std::to_string(n) + " rows, the directory says " + std::to_string(dir_.rows[page]));
  }
  if (values.null_count() != 0 || addresses.null_count() != 0) return Status::Corruption(where + "NULL in a leaf page");
  auto leaf = std::make_shared<LeafPage>();
  leaf->keys = KeyArray(KeyWidth(dir_.type));
  leaf->keys.Reserve(n, IsBytes(dir_.type) ? values.chars().size() : 0);
  leaf->addresses.resize(n);
  std::string key;
  for (size_t i = 0; i < n; ++i) {
    key.clear();
    AppendKey(values, i, &key);
    leaf->keys.Append(key);
    leaf->addresses[i] = uint64_t(addresses.Get<int64_t>(i));
    // Sorted by (key, address): binary searches rely on it, so check it rather than trust it.
    if (i > 0) {
      const int c = leaf->keys[i - 1].compare(leaf->keys[i]);
      if (c > 0 || (c == 0 && leaf->addresses[i - 1] > leaf->addresses[i])) {
        return Status::Corruption(where + "rows out of order at row " + std::to_string(i));
      }
    }
  }
  if (n > 0 && (leaf->keys[0] != dir_.mins[page] || leaf->keys[n - 1] != dir_.maxs[page])) {
    return Status::Corruption(where + "values disagree with the directory's min/max");
  }
  leaf->keys.ShrinkToFit();  // string keys' encoded bytes may differ from the values' bytes
  return std::shared_ptr<const LeafPage>(std::move(leaf));
}

Result<std::shared_ptr<const LeafPage>> BTreeSegment::ReadPage(uint32_t page, SearchCounters* counters) const {
  uint64_t bytes = 0;
  bool loaded = false;
  auto result = options_.cache->GetOrLoad(cache_id_, page, [&] { return LoadPage(page, &bytes); }, &loaded);
  if (counters != nullptr && loaded) {
    counters->pages_read += 1;
    counters->bytes_read += bytes;
  }
  return result;
}

Status BTreeSegment::Prewarm(uint64_t max_bytes, SearchCounters* counters) const {
  uint64_t read = 0;
  for (uint32_t page = 0; page < uint32_t(dir_.mins.size()) && read < max_bytes; ++page) {
    SearchCounters one;
    RETURN_IF_ERROR(ReadPage(page, &one).status());
    read += one.bytes_read;
    if (counters != nullptr) *counters += one;
  }
  return Status::OK();
}

Result<std::shared_ptr<const LeafPage>> BTreeSegment::ReadPageUncached(uint32_t page) const {
  return LoadPage(page, nullptr);
}

Result<SearchResult> BTreeSegment::Search(const ScalarQuery& query, SearchCounters* counters) const {
  SearchResult result;
  result.exactness = Exactness::kExact;
  SearchCounters local;
  local.pages_total = dir_.num_pages();
  if (query.kind == ScalarQuery::Kind::kIsNull) {
    result.rows.true_rows = dir_.null_rows;
  } else {
    ASSIGN_OR_RETURN(std::vector<KeyInterval> intervals, QueryIntervals(dir_.type, query));
    const std::vector<PageTask> tasks = PlanPages(dir_, intervals);
    local.pages_selected = tasks.size();
    for (const PageTask& t : tasks) local.pages_all_match += t.all ? 1 : 0;

    struct TaskOut {
      Status status;
      std::vector<uint64_t> rows;
      SearchCounters counters;
    };
    std::vector<TaskOut> outs(tasks.size());
    auto run = [&](size_t i) {
      const PageTask& t = tasks[i];
      auto page_or = ReadPage(t.page, &outs[i].counters);
      if (!page_or.ok()) {
        outs[i].status = page_or.status();
        return;
      }
      const LeafPage& page = **page_or;
      std::vector<uint64_t>& rows = outs[i].rows;
      if (t.all) {
        rows = page.addresses;
        return;
      }
      for (uint32_t k = t.first_interval; k < t.end_interval; ++k) {
        auto [b, e] = KeysInInterval(page.keys, intervals[k]);
        rows.insert(rows.end(), page.addresses.begin() + long(b), page.addresses.begin() + long(e));
      }
    };
    // Parallel only when at least two pages must come from the store: hot pages are searched
    // faster on this thread than a hand-off to the pool takes.
    size_t misses = 0;
    if (options_.parallel && tasks.size() > 1) {
      for (const PageTask& t : tasks) {
        if (options_.cache->Lookup(cache_id_, t.page) == nullptr && ++misses >= 2) break;
      }
    }
    if (misses >= 2 && store_->remote()) {
      // Each page a round trip: all of them at once, not a pool's width at a time.
      ParallelForThreads(tasks.size(), kRemoteFanOut, run);
    } else {
      ParallelFor(misses >= 2 ? options_.pool : nullptr, tasks.size(), run);
    }
    for (TaskOut& o : outs) {
      RETURN_IF_ERROR(o.status);
      result.rows.true_rows.mutable_bitmap().addMany(o.rows.size(), o.rows.data());
      local.pages_read += o.counters.pages_read;
      local.bytes_read += o.counters.bytes_read;
    }
    result.rows.null_rows = dir_.null_rows;
  }
  if (counters != nullptr) *counters += local;
  return result;
}

Result<uint64_t> BTreeSegment::Count(const ScalarQuery& query, SearchCounters* counters) const {
  if (query.kind == ScalarQuery::Kind::kIsNull) return dir_.null_rows.Cardinality();
  ASSIGN_OR_RETURN(std::vector<KeyInterval> intervals, QueryIntervals(dir_.type, query));
  SearchCounters local;
  local.pages_total = dir_.num_pages();
  uint64_t n = 0;
  for (const PageTask& t : PlanPages(dir_, intervals)) {
    ++local.pages_selected;
    if (t.all) {
      ++local.pages_all_match;
      n += dir_.rows[t.page];
      continue;
    }
    ASSIGN_OR_RETURN(std::shared_ptr<const LeafPage> page, ReadPage(t.page, &local));
    for (uint32_t k = t.first_interval; k < t.end_interval; ++k) {
      auto [b, e] = KeysInInterval(page->keys, intervals[k]);
      n += e - b;
    }
  }
  if (counters != nullptr) *counters += local;
  return n;
}

Result<std::vector<uint64_t>> BTreeSegment::FirstRows(bool descending, uint64_t k, const std::function<bool(uint64_t)>& keep,
                                                      SearchCounters* counters) const {
  std::vector<uint64_t> out;
  SearchCounters local;
  local.pages_total = dir_.num_pages();
  const size_t pages = dir_.num_pages();
  for (size_t i = 0; i < pages && out.size() < k; ++i) {
    const uint32_t page = uint32_t(descending ? pages - 1 - i : i);
    ++local.pages_selected;
    ASSIGN_OR_RETURN(std::shared_ptr<const LeafPage> leaf, ReadPage(page, &local));
    const std::vector<uint64_t>& a = leaf->addresses;
    // Inside a page keys ascend, equal keys by address: descending walks runs of equal keys
    // backwards but each run forwards, so that ties come in address order either way.
    for (size_t j = 0; j < a.size() && out.size() < k;) {
      size_t b = j, e = j + 1;
      if (descending) {
        e = a.size() - j;
        b = e - 1;
        while (b > 0 && leaf->keys[b - 1] == leaf->keys[b]) --b;
      } else {
        while (e < a.size() && leaf->keys[e - 1] == leaf->keys[e]) ++e;
      }
      for (size_t r = b; r < e && out.size() < k; ++r) {
        if (keep(a[r])) out.push_back(a[r]);
      }
      j += e - b;
    }
  }
  if (counters != nullptr) *counters += local;
  return out;
}

}  // namespace lakeindex::index::btree

namespace lakeindex::index::btree {

Result<std::string> BTreeSegment::Verify(const SegmentCoverage& coverage, const std::string& where) const {
  RETURN_IF_ERROR(CheckDataFooter());
  for (uint32_t p = 0; p < info_.num_pages; ++p) {
    ASSIGN_OR_RETURN(auto page, ReadPageUncached(p));
    for (uint64_t address : page->addresses) {
      auto it = coverage.rows_of.find(RowAddressFragment(address));
      if (it == coverage.rows_of.end() ? coverage.complete : RowAddressOffset(address) >= it->second) {
        return Status::Corruption(where + ": leaf page " + std::to_string(p) + " holds row address " +
                                  std::to_string(address) + ", outside the fragments it covers");
      }
    }
  }
  const uint64_t rows = info_.num_rows + info_.null_count;
  if (coverage.complete && rows != coverage.Rows()) {
    return Status::Corruption(where + ": indexes " + std::to_string(rows) + " rows, its fragments hold " +
                              std::to_string(coverage.Rows()));
  }
  return "btree, " + std::to_string(info_.num_pages) + " leaf pages, " + std::to_string(rows) + " rows";
}

}  // namespace lakeindex::index::btree
