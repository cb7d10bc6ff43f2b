#include "query/index_manager.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <set>

#include "common/thread_pool.h"
#include "common/uuid.h"
#include "format/parquet/reader.h"
#include "index/btree/btree_builder.h"
#include "index/btree/btree_merge.h"
#include "index/btree/btree_reader.h"
#include "index/zonemap/zonemap_reader.h"
#include "index/zonemap/zonemap_table.h"
#include "query/binder.h"
#include "query/parser.h"

namespace lakeindex::query {

namespace {

using index::IndexMeta;
using index::SegmentMeta;

using ProgressFn = std::function<void(const std::string& step, uint64_t done, uint64_t total)>;

// Feeds one column of every row of `fragments` (deleted rows included) to a BTree builder.
Status AddFragmentsToBTree(const table::Table& table, const std::string& column,
                           const std::vector<table::FragmentMeta>& fragments, index::btree::BTreeBuilder* builder,
                           const ProgressFn& progress) {
  uint64_t total = 0, done = 0;
  for (const table::FragmentMeta& f : fragments) total += f.rows;
  const std::string step = "reading " + column;
  if (progress) progress(step, 0, total);
  for (const table::FragmentMeta& f : fragments) {
    ASSIGN_OR_RETURN(auto reader, table.OpenDataFile(f));
    int c = reader->schema().FindField(column);
    if (c < 0) return Status::Corruption(f.file + ": column '" + column + "' is missing");
    uint64_t offset = 0;
    std::vector<uint64_t> addresses;
    for (int rg = 0; rg < reader->num_row_groups(); ++rg) {
      ASSIGN_OR_RETURN(Batch batch, reader->ReadRowGroup(rg, {c}));
      addresses.resize(batch.num_rows());
      for (size_t r = 0; r < batch.num_rows(); ++r) addresses[r] = MakeRowAddress(f.id, uint32_t(offset + r));
      RETURN_IF_ERROR(builder->Add(batch.column(0), addresses));
      offset += batch.num_rows();
      done += batch.num_rows();
      if (progress) progress(step, done, total);
    }
    if (offset != f.rows) return Status::Corruption(f.file + ": row count differs from the manifest");
  }
  return Status::OK();
}

// An existing segment merged into a new one, with the fragments of it that are still live.
struct MergedSegment {
  SegmentMeta meta;
  std::set<uint32_t> live;
};

// Builds one segment of `meta` (not committed) over `fragments`, read from their data files,
// and the live rows of `merged` segments: btree pages stream in sorted, zone maps are rebuilt
// from the data of the live fragments.
Result<SegmentMeta> BuildSegment(const table::Table& table, const IndexMeta& meta,
                                 const std::vector<table::FragmentMeta>& fragments,
                                 const std::vector<MergedSegment>& merged = {}, const ProgressFn& progress = {}) {
  SegmentMeta seg;
  seg.built_at_version = table.version();
  for (const auto& f : fragments) seg.fragments.insert(f.id);
  for (const MergedSegment& m : merged) seg.fragments.insert(m.live.begin(), m.live.end());
  std::vector<table::FragmentMeta> all;  // manifest order
  for (const auto& f : table.manifest().fragments) {
    if (seg.fragments.count(f.id)) {
      all.push_back(f);
      seg.rows += f.rows;
    }
  }
  if (meta.type == "btree") {
    index::btree::BTreeBuildOptions options;
    options.page_rows = meta.params.value("page_rows", 4096u);
    for (const table::FragmentMeta& f : fragments) options.expected_rows += f.rows;
    if (progress) {
      options.progress = [progress, rows = seg.rows](uint64_t written) { progress("writing pages", written, rows); };
    }
    int c = table.schema().FindField(meta.column);
    ASSIGN_OR_RETURN(auto builder,
                     index::btree::BTreeBuilder::Make(table.store(), table.schema().field(size_t(c)).type, options));
    RETURN_IF_ERROR(AddFragmentsToBTree(table, meta.column, fragments, builder.get(), progress));
    for (const MergedSegment& m : merged) {
      ASSIGN_OR_RETURN(auto old, index::btree::BTreeSegment::Open(table.store(), m.meta.uuid));
      const bool whole = m.live.size() == m.meta.fragments.size();
      RETURN_IF_ERROR(index::btree::AddSegmentTo(builder.get(), std::move(old), whole ? nullptr : &m.live));
    }
    ASSIGN_OR_RETURN(auto info, builder->Finish());
    seg.uuid = info.uuid;
  } else {
    std::function<void(uint64_t)> read;
    if (progress) {
      progress("reading " + meta.column, 0, seg.rows);
      read = [&](uint64_t rows) { progress("reading " + meta.column, rows, seg.rows); };
    }
    ASSIGN_OR_RETURN(auto info, index::zonemap::BuildTableZoneMap(table, meta.column, all,
                                                                  meta.params.value("zone_rows", 8192u), read));
    seg.uuid = info.uuid;
  }
  return seg;
}

// Commits `indexes` as the next version's index list. `check` runs against the newest manifest
// on every attempt (e.g. the name must still be free).
Status CommitIndexes(table::Table* table, const std::string& operation,
                     std::function<Status(std::vector<IndexMeta>*)> change) {
  table::Transaction txn;
  txn.operation = operation;
  txn.apply_extra = [change](table::Manifest* m) -> Status {
    ASSIGN_OR_RETURN(std::vector<IndexMeta> indexes, index::ReadIndexes(*m));
    RETURN_IF_ERROR(change(&indexes));
    m->indexes = index::IndexesToJson(indexes);
    return Status::OK();
  };
  return table->Commit(std::move(txn));
}

}  // namespace

Result<IndexMeta> PlanIndex(const table::Table& table, const IndexOptions& options) {
  int c = table.schema().FindField(options.column);
  if (c < 0) return Status::InvalidArgument("unknown column '" + options.column + "'").About("column");
  if (options.type != "btree" && options.type != "zonemap") {
    return Status::InvalidArgument("must be btree or zonemap, not '" + options.type + "'").About("kind");
  }
  if (options.type == "btree" && (options.page_rows == 0 || options.page_rows > (1u << 24))) {
    return Status::InvalidArgument("must be between 1 and 16777216").About("page_rows");
  }
  if (options.type == "zonemap" && (options.zone_rows == 0 || options.zone_rows > (1u << 30))) {
    return Status::InvalidArgument("must be between 1 and 1073741824").About("zone_rows");
  }
  IndexMeta meta;
  meta.name = options.name.empty() ? options.column + "_" + options.type : options.name;
  meta.column = options.column;
  meta.type = options.type;
  if (options.type == "btree") {
    meta.params["page_rows"] = options.page_rows;
  } else {
    meta.params["zone_rows"] = options.zone_rows;
  }
  ASSIGN_OR_RETURN(auto existing, index::ReadIndexes(table.manifest()));
  for (const auto& e : existing) {
    if (e.name == meta.name) return Status::InvalidArgument("index create: an index named '" + meta.name + "' exists");
  }
  return meta;
}

Result<SegmentMeta> BuildIndexSegment(const table::Table& table, const IndexMeta& meta,
                                      const std::vector<uint32_t>& fragments) {
  std::vector<table::FragmentMeta> chosen;
  for (uint32_t id : fragments) {
    const table::FragmentMeta* f = table.manifest().FindFragment(id);
    if (f == nullptr) {
      return Status::InvalidArgument("index segment: version " + std::to_string(table.version()) + " has no fragment " +
                                     std::to_string(id));
    }
    chosen.push_back(*f);
  }
  return BuildSegment(table, meta, chosen);
}

Status CommitIndex(table::Table* table, IndexMeta meta) {
  std::set<uint32_t> covered;
  for (const SegmentMeta& seg : meta.segments) {
    for (uint32_t f : seg.fragments) {
      if (!covered.insert(f).second) {
        return Status::InvalidArgument("index '" + meta.name + "': fragment " + std::to_string(f) +
                                       " is in two segments");
      }
    }
  }
  return CommitIndexes(table, "create_index", [meta](std::vector<IndexMeta>* indexes) -> Status {
    for (const auto& e : *indexes) {
      if (e.name == meta.name) return Status::Conflict("index '" + meta.name + "' was created concurrently");
    }
    indexes->push_back(meta);
    return Status::OK();
  });
}

Status CreateIndex(table::Table* table, const IndexOptions& options) {
  ASSIGN_OR_RETURN(IndexMeta meta, PlanIndex(*table, options));
  ASSIGN_OR_RETURN(SegmentMeta seg, BuildSegment(*table, meta, table->manifest().fragments, {}, options.progress));
  meta.segments.push_back(std::move(seg));
  return CommitIndex(table, std::move(meta));
}

namespace {

// What bringing one index up to date changes: segments removed, one segment added.
struct IndexChange {
  std::string index_name;
  std::vector<std::string> removed;  // segment uuids
  std::optional<SegmentMeta> added;
};

// Writes the segments that bring the indexes of `table`'s version (all when `name` is empty) up
// to date with its fragments, as described in the header; commits nothing.
Result<std::vector<IndexChange>> PrepareIndexUpdate(const table::Table& table, const std::string& name,
                                                    const UpdateOptions& options) {
  ASSIGN_OR_RETURN(auto indexes, index::ReadIndexes(table.manifest()));
  std::vector<IndexChange> changes;
  std::set<uint32_t> live;
  for (const auto& f : table.manifest().fragments) live.insert(f.id);
  bool found = name.empty();
  for (const IndexMeta& meta : indexes) {
    if (!name.empty() && meta.name != name) continue;
    found = true;
    IndexChange change;
    change.index_name = meta.name;
    std::vector<MergedSegment> merged;  // stale segments, and every segment when merging
    std::vector<const SegmentMeta*> kept;
    std::set<uint32_t> covered;
    for (const SegmentMeta& seg : meta.segments) {
      MergedSegment m{seg, {}};
      std::set_intersection(seg.fragments.begin(), seg.fragments.end(), live.begin(), live.end(),
                            std::inserter(m.live, m.live.end()));
      covered.insert(m.live.begin(), m.live.end());
      if (m.live.size() == seg.fragments.size()) {
        kept.push_back(&seg);
        continue;
      }
      change.removed.push_back(seg.uuid);  // all gone: dropped; partly gone: rewritten
      if (!m.live.empty()) merged.push_back(std::move(m));
    }
    std::vector<table::FragmentMeta> missing;
    for (const auto& f : table.manifest().fragments) {
      if (!covered.count(f.id)) missing.push_back(f);
    }
    const bool writes = !merged.empty() || !missing.empty();
    const size_t would_have = kept.size() + (writes ? 1 : 0);
    if (would_have > 1 && (options.merge || would_have > kMaxSegments)) {
      for (const SegmentMeta* seg : kept) {
        merged.push_back(MergedSegment{*seg, seg->fragments});
        change.removed.push_back(seg->uuid);
      }
    }
    if (!merged.empty() || !missing.empty()) {
      ProgressFn progress;
      if (options.progress) {
        progress = [&options, name = meta.name](const std::string& step, uint64_t done, uint64_t total) {
          options.progress("index " + name + ", " + step, done, total);
        };
      }
      ASSIGN_OR_RETURN(SegmentMeta seg, BuildSegment(table, meta, missing, merged, progress));
      change.added = std::move(seg);
    }
    if (change.added || !change.removed.empty()) changes.push_back(std::move(change));
  }
  if (!found) return Status::InvalidArgument("index update: no index named '" + name + "'");
  return changes;
}

// Applies `changes` to an index list (Conflict when an index or segment they change is gone).
Status ApplyIndexChanges(const std::vector<IndexChange>& changes, std::vector<IndexMeta>* list) {
  for (const IndexChange& c : changes) {
    auto it = std::find_if(list->begin(), list->end(), [&](const IndexMeta& m) { return m.name == c.index_name; });
    if (it == list->end()) return Status::Conflict("index '" + c.index_name + "' was dropped concurrently");
    for (const std::string& uuid : c.removed) {
      const size_t before = it->segments.size();
      std::erase_if(it->segments, [&](const SegmentMeta& s) { return s.uuid == uuid; });
      if (it->segments.size() == before) {
        return Status::Conflict("index '" + c.index_name + "' was updated concurrently");
      }
    }
    if (c.added) it->segments.push_back(*c.added);
  }
  return Status::OK();
}

size_t SegmentsAdded(const std::vector<IndexChange>& changes) {
  size_t n = 0;
  for (const IndexChange& c : changes) n += c.added ? 1 : 0;
  return n;
}

}  // namespace

Result<size_t> UpdateIndexes(table::Table* table, const std::string& name, const UpdateOptions& options) {
  ASSIGN_OR_RETURN(std::vector<IndexChange> changes, PrepareIndexUpdate(*table, name, options));
  if (changes.empty()) return size_t(0);
  RETURN_IF_ERROR(CommitIndexes(table, "update_index", [changes](std::vector<IndexMeta>* list) -> Status {
    return ApplyIndexChanges(changes, list);
  }));
  return SegmentsAdded(changes);
}

table::CommitHook MaintainIndexes(std::shared_ptr<ObjectStore> store, const UpdateOptions& options, size_t* written) {
  return [store = std::move(store), options, written](table::Manifest* next) -> Status {
    if (next->indexes.is_null() || next->indexes.empty()) return Status::OK();
    // The version being committed, as a table: its new fragments are read from their files.
    std::unique_ptr<table::Table> view = table::Table::View(store, *next);
    ASSIGN_OR_RETURN(std::vector<IndexChange> changes, PrepareIndexUpdate(*view, "", options));
    if (written != nullptr) *written = SegmentsAdded(changes);
    if (changes.empty()) return Status::OK();
    ASSIGN_OR_RETURN(std::vector<IndexMeta> list, index::ReadIndexes(*next));
    RETURN_IF_ERROR(ApplyIndexChanges(changes, &list));
    next->indexes = index::IndexesToJson(list);
    return Status::OK();
  };
}

Result<std::vector<std::string>> VerifyIndexes(const table::Table& table) {
  ASSIGN_OR_RETURN(auto indexes, index::ReadIndexes(table.manifest()));
  std::vector<std::string> lines;
  for (const IndexMeta& meta : indexes) {
    for (const SegmentMeta& seg : meta.segments) {
      const std::string where = "index '" + meta.name + "' segment " + seg.uuid;
      uint64_t covered_rows = 0;
      bool all_present = true;
      std::map<uint32_t, uint64_t> rows_of;  // covered fragments the version has -> rows
      for (uint32_t f : seg.fragments) {
        const table::FragmentMeta* frag = table.manifest().FindFragment(f);
        if (frag == nullptr) {
          all_present = false;  // a stale segment (the planner ignores what it says of f)
          continue;
        }
        rows_of[f] = frag->rows;
        covered_rows += frag->rows;
      }
      if (meta.type == "btree") {
        ASSIGN_OR_RETURN(auto segment, index::btree::BTreeSegment::Open(table.store(), seg.uuid));
        RETURN_IF_ERROR(segment->CheckDataFooter());
        const auto& info = segment->info();
        for (uint32_t p = 0; p < info.num_pages; ++p) {
          ASSIGN_OR_RETURN(auto page, segment->ReadPageUncached(p));
          for (uint64_t address : page->addresses) {
            auto it = rows_of.find(RowAddressFragment(address));
            if (it == rows_of.end() ? all_present : RowAddressOffset(address) >= it->second) {
              return Status::Corruption(where + ": leaf page " + std::to_string(p) + " holds row address " +
                                        std::to_string(address) + ", outside the fragments it covers");
            }
          }
        }
        if (all_present && info.num_rows + info.null_count != covered_rows) {
          return Status::Corruption(where + ": indexes " + std::to_string(info.num_rows + info.null_count) +
                                    " rows, its fragments hold " + std::to_string(covered_rows));
        }
        lines.push_back("ok " + where + " (btree, " + std::to_string(info.num_pages) + " leaf pages, " +
                        std::to_string(info.num_rows + info.null_count) + " rows)");
      } else {
        ASSIGN_OR_RETURN(auto segment, index::zonemap::ZoneMapSegment::Open(table.store(), seg.uuid));
        if (all_present && segment->rows() != covered_rows) {
          return Status::Corruption(where + ": zones cover " + std::to_string(segment->rows()) +
                                    " rows, its fragments hold " + std::to_string(covered_rows));
        }
        lines.push_back("ok " + where + " (zonemap, " + std::to_string(segment->ZonesTotal()) + " zones)");
      }
    }
  }
  return lines;
}

Status DropIndex(table::Table* table, const std::string& name) {
  ASSIGN_OR_RETURN(auto indexes, index::ReadIndexes(table->manifest()));
  if (std::none_of(indexes.begin(), indexes.end(), [&](const IndexMeta& m) { return m.name == name; })) {
    return Status::InvalidArgument("index drop: no index named '" + name + "'");
  }
  return CommitIndexes(table, "drop_index", [name](std::vector<IndexMeta>* list) -> Status {
    std::erase_if(*list, [&](const IndexMeta& m) { return m.name == name; });
    return Status::OK();
  });
}

namespace {
void ColumnsOf(const Expr& e, std::vector<std::string>* out) {
  if (e.kind == ExprKind::kColumn && std::find(out->begin(), out->end(), e.name) == out->end()) out->push_back(e.name);
  for (const auto& c : e.children) ColumnsOf(*c, out);
}
}  // namespace

std::vector<std::string> ColumnsOf(const Expr& e) {
  std::vector<std::string> out;
  ColumnsOf(e, &out);
  return out;
}

Result<std::shared_ptr<const std::vector<IndexHandle>>> SharedIndexes(const table::Table& table,
                                                                       std::vector<std::string> columns) {
  if (columns.empty()) return std::make_shared<const std::vector<IndexHandle>>();
  std::sort(columns.begin(), columns.end());
  std::string key = "indexes@" + std::to_string(table.version()) + ":" + table.manifest().commit_id;
  for (const std::string& c : columns) key += "\x1f" + c;
  ASSIGN_OR_RETURN(std::shared_ptr<const void> shared, table.SharedObject(key, [&]() -> Result<std::shared_ptr<const void>> {
    ASSIGN_OR_RETURN(std::vector<IndexHandle> opened, OpenIndexes(table, columns));
    return std::shared_ptr<const void>(std::make_shared<const std::vector<IndexHandle>>(std::move(opened)));
  }));
  return std::static_pointer_cast<const std::vector<IndexHandle>>(shared);
}

namespace {

// The columns filter `where` names, as the schema spells them.
Result<std::vector<std::string>> FilterColumns(const table::Table& table, const std::string& where) {
  std::vector<std::string> columns;
  if (where.empty()) return columns;
  ASSIGN_OR_RETURN(ExprPtr parsed, ParseExpression(where));
  ASSIGN_OR_RETURN(ExprPtr bound, Bind(*parsed, table.schema()));
  ColumnsOf(*bound, &columns);
  return columns;
}

}  // namespace

Result<std::vector<IndexHandle>> OpenIndexesFor(const table::Table& table, const std::string& where) {
  ASSIGN_OR_RETURN(std::vector<std::string> columns, FilterColumns(table, where));
  if (columns.empty()) return std::vector<IndexHandle>{};
  return OpenIndexes(table, columns);
}

namespace {

// A segment opened once per Table (its directory, NULL bitmap and lazily opened leaf file are
// then shared by every query), as data files are: a BTreeSegment or a ZoneMapSegment.
Result<std::shared_ptr<const void>> OpenSegment(const table::Table& table, const std::string& type,
                                                const std::string& uuid) {
  return table.SharedObject(type + ":" + uuid, [&]() -> Result<std::shared_ptr<const void>> {
    if (type == "btree") {
      ASSIGN_OR_RETURN(auto segment, index::btree::BTreeSegment::Open(table.store(), uuid));
      return std::shared_ptr<const void>(std::shared_ptr<const index::btree::BTreeSegment>(std::move(segment)));
    }
    ASSIGN_OR_RETURN(auto segment, index::zonemap::ZoneMapSegment::Open(table.store(), uuid));
    return std::shared_ptr<const void>(std::shared_ptr<const index::zonemap::ZoneMapSegment>(std::move(segment)));
  });
}

}  // namespace

void PrefetchForQueries(const table::Table& table, const std::string& where) {
  std::vector<std::function<void()>> reads;
  auto columns = FilterColumns(table, where);
  auto indexes = index::ReadIndexes(table.manifest());
  if (columns.ok() && !columns->empty() && indexes.ok()) {
    for (const IndexMeta& meta : *indexes) {
      if (std::find(columns->begin(), columns->end(), meta.column) == columns->end()) continue;
      for (const SegmentMeta& seg : meta.segments) {
        reads.push_back([&table, type = meta.type, uuid = seg.uuid] { (void)OpenSegment(table, type, uuid); });
      }
    }
  }
  uint64_t tail_bytes = 0;
  for (const table::FragmentMeta& f : table.manifest().fragments) {
    tail_bytes += f.tail ? f.file_size - f.tail->offset : f.file_size;
  }
  if (tail_bytes <= kPrefetchTailBytes) {
    for (const table::FragmentMeta& f : table.manifest().fragments) {
      reads.push_back([&table, &f] { (void)table.OpenDataFile(f); });
    }
  }
  ParallelForThreads(reads.size(), kRemoteFanOut, [&](size_t i) { reads[i](); });
}

Result<std::vector<IndexHandle>> OpenIndexes(const table::Table& table, const std::vector<std::string>& columns) {
  ASSIGN_OR_RETURN(auto indexes, index::ReadIndexes(table.manifest()));
  std::vector<IndexHandle> out;
  for (const IndexMeta& meta : indexes) {
    if (!columns.empty() && std::find(columns.begin(), columns.end(), meta.column) == columns.end()) continue;
    IndexHandle h;
    h.name = meta.name;
    h.column = meta.column;
    h.type = meta.type;
    auto covered = std::make_shared<const std::set<uint32_t>>(meta.CoveredFragments(table.manifest()));
    if (covered->empty()) continue;
    h.fragments = covered;
    // Segments that still cover a live fragment; each answers over its own fragments only.
    std::vector<std::function<Result<index::SearchResult>(const index::ScalarQuery&, index::SearchCounters*)>> searches;
    std::vector<std::shared_ptr<const index::btree::BTreeSegment>> btrees;  // for count and first_rows
    bool stale = false;
    for (const SegmentMeta& seg : meta.segments) {
      if (std::none_of(seg.fragments.begin(), seg.fragments.end(), [&](uint32_t f) { return covered->count(f) > 0; })) {
        continue;
      }
      stale |= std::any_of(seg.fragments.begin(), seg.fragments.end(), [&](uint32_t f) { return covered->count(f) == 0; });
      ASSIGN_OR_RETURN(std::shared_ptr<const void> opened, OpenSegment(table, meta.type, seg.uuid));
      if (meta.type == "btree") {
        auto shared = std::static_pointer_cast<const index::btree::BTreeSegment>(opened);
        searches.push_back([shared](const index::ScalarQuery& q, index::SearchCounters* c) { return shared->Search(q, c); });
        btrees.push_back(shared);
      } else {
        auto shared = std::static_pointer_cast<const index::zonemap::ZoneMapSegment>(opened);
        searches.push_back([shared](const index::ScalarQuery& q, index::SearchCounters* c) { return shared->Search(q, c); });
      }
    }
    struct Searches {
      std::vector<std::function<Result<index::SearchResult>(const index::ScalarQuery&, index::SearchCounters*)>> each;
      bool exact;
    };
    // One pointer captured: the function is copied with the handle without allocating.
    auto all_searches = std::make_shared<const Searches>(Searches{std::move(searches), meta.type == "btree"});
    h.search = [all_searches](const index::ScalarQuery& q, index::SearchCounters* c) -> Result<index::SearchResult> {
      const Searches& s = *all_searches;
      if (s.each.size() == 1) {  // most indexes: one segment, its answer as it is
        ASSIGN_OR_RETURN(index::SearchResult r, s.each[0](q, c));
        if (!s.exact) r.exactness = index::Exactness::kAtMost;
        return r;
      }
      index::SearchResult all;
      all.exactness = s.exact ? index::Exactness::kExact : index::Exactness::kAtMost;
      for (const auto& search : s.each) {
        ASSIGN_OR_RETURN(index::SearchResult r, search(q, c));
        all.rows.true_rows |= r.rows.true_rows;
        all.rows.null_rows |= r.rows.null_rows;
        if (r.exactness != index::Exactness::kExact) all.exactness = index::Exactness::kAtMost;
      }
      return all;
    };
    auto segments = std::make_shared<const std::vector<std::shared_ptr<const index::btree::BTreeSegment>>>(std::move(btrees));
    if (meta.type == "btree") {
      h.first_rows = [segments](bool descending, uint64_t k, const std::function<bool(uint64_t)>& keep,
                                index::SearchCounters* c) -> Result<std::vector<uint64_t>> {
        std::vector<uint64_t> all;
        for (const auto& segment : *segments) {
          ASSIGN_OR_RETURN(std::vector<uint64_t> some, segment->FirstRows(descending, k, keep, c));
          all.insert(all.end(), some.begin(), some.end());
        }
        return all;
      };
    }
    if (meta.type == "btree" && !stale) {
      h.count = [segments](const index::ScalarQuery& q, index::SearchCounters* c) -> Result<uint64_t> {
        uint64_t n = 0;
        for (const auto& segment : *segments) {
          ASSIGN_OR_RETURN(uint64_t k, segment->Count(q, c));
          n += k;
        }
        return n;
      };
    }
    out.push_back(std::move(h));
  }
  return out;
}

}  // namespace lakeindex::query
