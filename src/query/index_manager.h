// Index management over a table: build (create), extend to new fragments (update), drop, list,
// and open the indexes a query needs as IndexHandles for the planner.
//
// A build reads the indexed column of every covered fragment — all rows, deleted ones included
// (the executor drops deleted rows, so deletes never make an index stale) — writes one immutable
// segment under `_indices/{uuid}/`, and commits a new version whose manifest lists it. Fragments
// appended later, or rewritten by optimize, are not covered until `index update`; the planner
// scans them, so results are never stale.
//
// `index update` (UpdateIndexes, run by append and optimize) maintains the segments:
//  * a segment whose fragments are all gone (rewritten by optimize or a layout rewrite) is
//    dropped;
//  * a segment of which some fragments are gone is *stale*: its kind builds one new segment
//    from its rows of the live fragments together with the fragments no segment covers (the
//    rewritten rows: read from their new files) — the old addresses are never guessed, the new
//    ones come from the data. A btree streams the old rows in already sorted, a bitmap takes the
//    old bitmaps without the gone fragments, a zone map reads the live fragments again;
//  * fragments no segment covers get a new segment;
//  * when an index would then have more than kMaxSegments segments, or `merge` is asked for,
//    its segments (and the uncovered fragments) become one segment, built the same way.
// What a kind is, and the kinds there are: index/index_kind.h, index/registry/registry.h.
// Thread safety: functions; a Table must not be written concurrently through the same object.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "index/index_catalog.h"
#include "query/index_planner.h"
#include "table/table.h"

namespace lakeindex::query {

struct IndexOptions {
  std::string name;          // default: "<column>_<type>"
  std::string column;
  std::string type;          // an index kind's name (index/registry/registry.h): "btree", ...
  // The kind's build parameters by name (e.g. {"page_rows": 4096} for a btree); absent ones
  // take the kind's defaults, unknown ones are refused.
  nlohmann::json params = nlohmann::json::object();
  // Called as the build goes (may be empty): the step ("reading <column>", then for a btree
  // "writing pages"), rows done and rows in the step.
  std::function<void(const std::string& step, uint64_t done, uint64_t total)> progress;
};

// Builds the index over every fragment and commits it. InvalidArgument for an unknown column or
// kind, a name in use, or a parameter the kind does not take or out of range (About(<name>)).
Status CreateIndex(table::Table* table, const IndexOptions& options);

// CreateIndex in three steps, for builds spread over processes (lakeindex.dask): PlanIndex checks
// `options` against the table (the errors of CreateIndex) and returns the index without segments;
// BuildIndexSegment writes one segment of it over some fragments of the table's version (any
// process that opens the same version may run it; nothing is committed; InvalidArgument for an id
// the version lacks); CommitIndex commits the index with the segments built for it as one new
// version (InvalidArgument when two segments share a fragment, Conflict when the name was taken
// meanwhile). Fragments no segment covers are scanned, as after an append.
Result<index::IndexMeta> PlanIndex(const table::Table& table, const IndexOptions& options);
Result<index::SegmentMeta> BuildIndexSegment(const table::Table& table, const index::IndexMeta& meta,
                                             const std::vector<uint32_t>& fragments);
Status CommitIndex(table::Table* table, index::IndexMeta meta);
// More segments than this per index are merged into one by UpdateIndexes: a search visits every
// segment (one directory binary search each), and each holds its NULL bitmap and cache entries.
inline constexpr size_t kMaxSegments = 8;

struct UpdateOptions {
  bool merge = false;  // merge every segment of the index into one (`index update --merge`)
  // Called as segments are built (may be empty): the step ("index <name>, " and the build's
  // step, as IndexOptions::progress), rows done and rows in the step. A layout passes its own, so
  // that the btree rebuilt inside its commit shows progress too.
  std::function<void(const std::string& step, uint64_t done, uint64_t total)> progress;
};

// Brings indexes up to date with the table's fragments as described above (all indexes when
// `name` is empty) and commits when something changed. Returns how many segments were written.
Result<size_t> UpdateIndexes(table::Table* table, const std::string& name, const UpdateOptions& options = {});
// The same as a commit hook (table::WriteConfig::before_commit): on every attempt to commit an
// operation, the indexes of the manifest being committed are brought up to date in that very
// commit (segments for its new fragments, stale segments rewritten), so data and indexes become
// visible together. `*written` (optional) receives the segments the last attempt wrote.
table::CommitHook MaintainIndexes(std::shared_ptr<ObjectStore> store, const UpdateOptions& options = {},
                                  size_t* written = nullptr);
// Removes the index from the next version (its files stay for time travel until vacuum).
Status DropIndex(table::Table* table, const std::string& name);

// Reads every index file `table`'s version references and checks it: btree directories
// (checksum, order) and every leaf page (CRCs, order, min/max, row counts, each address inside a
// fragment the segment covers), zone map files (checksum, zones). One line per segment checked;
// the first damaged file is a Corruption error naming it. A missing file is Corruption too (as
// it is to queries): the version references it.
Result<std::vector<std::string>> VerifyIndexes(const table::Table& table);
// The same as one check per segment, for table::Table::Verify's damage list (ops::Verify).
Result<std::vector<table::Table::VersionCheck>> IndexChecks(const table::Table& table);

// The indexes a query with filter `where` may use: those on the columns the bound filter names
// (none without a filter). InvalidArgument for a filter that does not parse or bind.
Result<std::vector<IndexHandle>> OpenIndexesFor(const table::Table& table, const std::string& where);

// What a query with filter `where` (may be empty) through a newly opened table reads first, read
// together (for table::Table::OpenOptions::prefetch): the directories of the indexes on the
// columns the filter names and, while their page indexes and footers come to at most
// kPrefetchTailBytes in all, every data file's. Nothing is reported: what failed is met again,
// and reported, by the query that needs it.
void PrefetchForQueries(const table::Table& table, const std::string& where);
inline constexpr uint64_t kPrefetchTailBytes = 8ull << 20;
// The same for a table opened before its queries are known (the Python module's Table.open):
// the directories of every index, while the table has at most kPrefetchAnyQuerySegments index
// segments in all (a few requests more in the open's round trip, where the first lookup would
// otherwise wait one round trip of its own for its index's directory), and the data files' as
// PrefetchForQueries.
void PrefetchForAnyQuery(const table::Table& table);
inline constexpr size_t kPrefetchAnyQuerySegments = 8;

// Opens the indexes on columns that `filter` mentions (all when `columns` is empty).
Result<std::vector<IndexHandle>> OpenIndexes(const table::Table& table, const std::vector<std::string>& columns);
// The same, opened once per version of `table` for each set of columns and shared by the reads
// through it (an empty `columns`: none, not all).
Result<std::shared_ptr<const std::vector<IndexHandle>>> SharedIndexes(const table::Table& table,
                                                                       std::vector<std::string> columns);
// The columns an expression names (each once, in order of appearance).
std::vector<std::string> ColumnsOf(const Expr& e);

}  // namespace lakeindex::query
