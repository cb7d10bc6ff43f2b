#include "query/index_manager.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <set>

#include "common/thread_pool.h"
#include "index/registry/registry.h"
#include "query/binder.h"
#include "query/parser.h"

namespace lakeindex::query {

namespace {

using index::IndexMeta;
using index::SegmentMeta;

using ProgressFn = index::BuildProgress;

// The kind of an index the manifest lists: Corruption when this build does not know it.
Result<const index::IndexKind*> KindOf(const IndexMeta& meta) {
  const index::IndexKind* kind = index::FindIndexKind(meta.type);
  if (kind == nullptr) {
    return Status::Corruption("index '" + meta.name + "' is of kind '" + meta.type + "', which this build does not know (" +
                              index::IndexKindNames() + ")");
  }
  return kind;
}

using index::MergedSegment;

// Builds one segment of `meta` (not committed) over `fragments`, read from their data files,
// and the live rows of `merged` segments, by the index's kind.
Result<SegmentMeta> BuildSegment(const table::Table& table, const IndexMeta& meta,
                                 const std::vector<table::FragmentMeta>& fragments,
                                 const std::vector<MergedSegment>& merged = {}, const ProgressFn& progress = {}) {
  ASSIGN_OR_RETURN(const index::IndexKind* kind, KindOf(meta));
  SegmentMeta seg;
  seg.built_at_version = table.version();
  for (const auto& f : fragments) seg.fragments.insert(f.id);
  for (const MergedSegment& m : merged) seg.fragments.insert(m.live.begin(), m.live.end());
  for (const auto& f : table.manifest().fragments) {
    if (seg.fragments.count(f.id)) seg.rows += f.rows;
  }
  index::SegmentBuild build{&table, &meta, fragments, merged, seg.rows, progress};
  ASSIGN_OR_RETURN(seg.uuid, kind->Build(build));
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
  if (c < 0) return UnknownColumn(table.schema(), options.column).About("column");
  ASSIGN_OR_RETURN(const index::IndexKind* kind, index::IndexKindNamed(options.type));
  IndexMeta meta;
  ASSIGN_OR_RETURN(meta.params, kind->Params(options.params.is_null() ? nlohmann::json::object() : options.params,
                                             table.schema().field(size_t(c))));
  meta.name = options.name.empty() ? options.column + "_" + options.type : options.name;
  meta.column = options.column;
  meta.type = options.type;
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

namespace {

// A file of an index segment the version references is not on the store: damage to the table,
// as a missing data file is (table.cc), not a user's typo.
template <typename T>
Result<T> MissingIsDamage(Result<T> r) {
  if (!r.ok() && r.status().IsNotFound()) {
    return Status::Corruption("an index file the version references is missing (" + r.status().message() + ")");
  }
  return r;
}
Status MissingIsDamage(Status st) {
  if (st.IsNotFound()) return Status::Corruption("an index file the version references is missing (" + st.message() + ")");
  return st;
}

}  // namespace

Result<std::vector<table::Table::VersionCheck>> IndexChecks(const table::Table& table) {
  ASSIGN_OR_RETURN(auto indexes, index::ReadIndexes(table.manifest()));
  std::vector<table::Table::VersionCheck> checks;
  for (const IndexMeta& meta : indexes) {
    ASSIGN_OR_RETURN(const index::IndexKind* kind, KindOf(meta));
    for (const SegmentMeta& seg : meta.segments) {
      const std::string where = "index '" + meta.name + "' segment " + seg.uuid;
      index::SegmentCoverage coverage;
      for (uint32_t f : seg.fragments) {
        const table::FragmentMeta* frag = table.manifest().FindFragment(f);
        if (frag == nullptr) {
          coverage.complete = false;  // a stale segment (the planner ignores what it says of f)
        } else {
          coverage.rows_of[f] = frag->rows;
        }
      }
      checks.push_back([&table, kind, uuid = seg.uuid, where, coverage]() -> Result<std::string> {
        ASSIGN_OR_RETURN(auto segment, MissingIsDamage(kind->Open(table.store(), uuid)));
        ASSIGN_OR_RETURN(std::string what, MissingIsDamage(segment->Verify(coverage, where)));
        return "ok " + where + " (" + what + ")";
      });
    }
  }
  return checks;
}

Result<std::vector<std::string>> VerifyIndexes(const table::Table& table) {
  ASSIGN_OR_RETURN(std::vector<table::Table::VersionCheck> checks, IndexChecks(table));
  std::vector<std::string> lines;
  for (const table::Table::VersionCheck& check : checks) {
    ASSIGN_OR_RETURN(std::string line, check());
    lines.push_back(std::move(line));
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

// A segment opened once per Table (its directory and whatever it reads lazily are then shared
// by every query), as data files are.
Result<std::shared_ptr<const index::IndexSegment>> OpenSegment(const table::Table& table, const index::IndexKind& kind,
                                                               const std::string& uuid) {
  ASSIGN_OR_RETURN(std::shared_ptr<const void> opened,
                   table.SharedObject(std::string(kind.name()) + ":" + uuid, [&]() -> Result<std::shared_ptr<const void>> {
                     ASSIGN_OR_RETURN(auto segment, MissingIsDamage(kind.Open(table.store(), uuid)));
                     return std::shared_ptr<const void>(std::move(segment));
                   }));
  return std::static_pointer_cast<const index::IndexSegment>(opened);
}

}  // namespace

// PrefetchForQueries, or with `every_index` the directories of every index (not only those on
// the columns `where` names).
static void Prefetch(const table::Table& table, const std::string& where, bool every_index) {
  std::vector<std::function<void()>> reads;
  auto columns = FilterColumns(table, where);
  auto indexes = index::ReadIndexes(table.manifest());
  if (columns.ok() && indexes.ok()) {
    for (const IndexMeta& meta : *indexes) {
      const index::IndexKind* kind = index::FindIndexKind(meta.type);
      const bool named = std::find(columns->begin(), columns->end(), meta.column) != columns->end();
      if (kind == nullptr || !(every_index || named)) continue;
      for (const SegmentMeta& seg : meta.segments) {
        reads.push_back([&table, kind, uuid = seg.uuid] { (void)OpenSegment(table, *kind, uuid); });
      }
    }
  }
  uint64_t tail_bytes = 0;
  for (const table::FragmentMeta& f : table.manifest().fragments) {
    tail_bytes += !f.tail ? f.file_size : f.file_size - (f.tail->split ? f.tail->split->oi_offset : f.tail->offset);  // what an open reads
  }
  if (tail_bytes <= kPrefetchTailBytes) {
    for (const table::FragmentMeta& f : table.manifest().fragments) {
      reads.push_back([&table, &f] { (void)table.OpenDataFile(f); });
    }
  }
  ParallelForThreads(reads.size(), kRemoteFanOut, [&](size_t i) { reads[i](); });
}

void PrefetchForQueries(const table::Table& table, const std::string& where) { Prefetch(table, where, false); }

void PrefetchForAnyQuery(const table::Table& table) {
  size_t segments = 0;
  if (auto indexes = index::ReadIndexes(table.manifest()); indexes.ok()) {
    for (const IndexMeta& meta : *indexes) segments += meta.segments.size();
  }
  Prefetch(table, "", segments <= kPrefetchAnyQuerySegments);
}

Result<std::vector<IndexHandle>> OpenIndexes(const table::Table& table, const std::vector<std::string>& columns) {
  ASSIGN_OR_RETURN(auto indexes, index::ReadIndexes(table.manifest()));
  std::vector<IndexHandle> out;
  for (const IndexMeta& meta : indexes) {
    if (!columns.empty() && std::find(columns.begin(), columns.end(), meta.column) == columns.end()) continue;
    ASSIGN_OR_RETURN(const index::IndexKind* kind, KindOf(meta));
    IndexHandle h;
    h.name = meta.name;
    h.column = meta.column;
    h.type = meta.type;
    h.exact = kind->exact();
    h.unit = std::string(kind->unit());
    auto covered = std::make_shared<const std::set<uint32_t>>(meta.CoveredFragments(table.manifest()));
    if (covered->empty()) continue;
    h.fragments = covered;
    // Segments that still cover a live fragment; each answers over its own fragments only.
    std::vector<std::shared_ptr<const index::IndexSegment>> segments;
    bool stale = false;
    for (const SegmentMeta& seg : meta.segments) {
      if (std::none_of(seg.fragments.begin(), seg.fragments.end(), [&](uint32_t f) { return covered->count(f) > 0; })) {
        continue;
      }
      stale |= std::any_of(seg.fragments.begin(), seg.fragments.end(), [&](uint32_t f) { return covered->count(f) == 0; });
      ASSIGN_OR_RETURN(auto opened, OpenSegment(table, *kind, seg.uuid));
      segments.push_back(std::move(opened));
    }
    // One pointer captured: the functions are copied with the handle without allocating.
    auto all = std::make_shared<const std::vector<std::shared_ptr<const index::IndexSegment>>>(std::move(segments));
    const bool exact = kind->exact();
    h.search = [all, exact](const index::ScalarQuery& q, index::SearchCounters* c) -> Result<index::SearchResult> {
      if (all->size() == 1) {  // most indexes: one segment, its answer as it is
        ASSIGN_OR_RETURN(index::SearchResult r, MissingIsDamage((*all)[0]->Search(q, c)));
        if (!exact) r.exactness = index::Exactness::kAtMost;
        return r;
      }
      index::SearchResult out;
      out.exactness = exact ? index::Exactness::kExact : index::Exactness::kAtMost;
      for (const auto& segment : *all) {
        ASSIGN_OR_RETURN(index::SearchResult r, MissingIsDamage(segment->Search(q, c)));
        out.rows.true_rows |= r.rows.true_rows;
        out.rows.null_rows |= r.rows.null_rows;
        if (r.exactness != index::Exactness::kExact) out.exactness = index::Exactness::kAtMost;
      }
      return out;
    };
    if (kind->ordered()) {
      h.first_rows = [all](bool descending, uint64_t k, const std::function<bool(uint64_t)>& keep,
                           index::SearchCounters* c) -> Result<std::vector<uint64_t>> {
        std::vector<uint64_t> rows;
        for (const auto& segment : *all) {
          ASSIGN_OR_RETURN(std::vector<uint64_t> some, MissingIsDamage(segment->FirstRows(descending, k, keep, c)));
          rows.insert(rows.end(), some.begin(), some.end());
        }
        return rows;
      };
    }
    h.prewarm = [all](uint64_t max_bytes, index::SearchCounters* c) -> Status {
      index::SearchCounters read;
      for (const auto& segment : *all) {
        if (read.bytes_read >= max_bytes) break;
        RETURN_IF_ERROR(MissingIsDamage(segment->Prewarm(max_bytes - read.bytes_read, &read)));
      }
      if (c != nullptr) *c += read;
      return Status::OK();
    };
    if (kind->counts() && !stale) {
      h.count = [all](const index::ScalarQuery& q, index::SearchCounters* c) -> Result<uint64_t> {
        uint64_t n = 0;
        for (const auto& segment : *all) {
          ASSIGN_OR_RETURN(uint64_t k, MissingIsDamage(segment->Count(q, c)));
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
