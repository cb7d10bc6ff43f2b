// What an index kind is: the contract every kind (src/index/<kind>/) implements, so that the
// index manager, the planner, verify and the front ends know kinds only through it. A kind is
// looked up by name in the registry (index/registry/registry.h); adding one is its folder plus
// one line there.
//
// A kind builds immutable segments (files under `_indices/{uuid}/`, each covering some
// fragments) and opens them for search. Row addresses are `fragment_id << 32 | offset` with the
// fragment's original offsets: a build reads every row, deleted ones included, and the executor
// drops deleted rows.
// Thread safety: kinds are stateless singletons; an opened IndexSegment is immutable and its
// methods may be called concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "index/index_catalog.h"
#include "index/scalar_index.h"
#include "lakeindex/object_store.h"
#include "table/table.h"

namespace lakeindex::index {

// Called as a build goes (may be empty): the step ("reading <column>", "writing pages"), rows
// done and rows in the step.
using BuildProgress = std::function<void(const std::string& step, uint64_t done, uint64_t total)>;

// A segment of the index being rebuilt whose rows join the new one: those of its `live`
// fragments (the others were rewritten or removed).
struct MergedSegment {
  SegmentMeta meta;
  std::set<uint32_t> live;
};

// One segment to build (nothing is committed: the caller records it in the manifest).
struct SegmentBuild {
  const table::Table* table = nullptr;
  const IndexMeta* meta = nullptr;             // column and parameters (as Params returned them)
  std::vector<table::FragmentMeta> fragments;  // read from their data files
  std::vector<MergedSegment> merged;           // their live rows join the segment
  uint64_t rows = 0;                           // rows of the segment in all
  BuildProgress progress;

  // `fragments` and the live fragments of `merged`, in manifest order: what a kind that does not
  // merge segments reads from the data.
  std::vector<table::FragmentMeta> AllFragments() const;
};

// What verify compares a segment with: the rows of each fragment it covers that the version
// still has. `complete` when it has every one (a stale segment's rows of gone fragments are
// ignored by the planner, and not counted).
struct SegmentCoverage {
  std::map<uint32_t, uint64_t> rows_of;
  bool complete = true;
  uint64_t Rows() const;
};

// An opened segment.
class IndexSegment {
 public:
  virtual ~IndexSegment() = default;
  // The rows of the covered fragments the query may select (index/scalar_index.h; AtMost for
  // pruning kinds). InvalidArgument for a query that does not fit the column's type.
  virtual Result<SearchResult> Search(const ScalarQuery& query, SearchCounters* counters) const = 0;
  // Kinds with IndexKind::counts(): how many rows of the segment match, without listing them.
  virtual Result<uint64_t> Count(const ScalarQuery& query, SearchCounters* counters) const;
  // Kinds with IndexKind::ordered(): the addresses of the first k rows in key order (descending:
  // from the largest) that `keep` accepts.
  virtual Result<std::vector<uint64_t>> FirstRows(bool descending, uint64_t k, const std::function<bool(uint64_t)>& keep,
                                                  SearchCounters* counters) const;
  // Reads every byte of the segment and checks it, and against `coverage`; one line saying what
  // was checked ("btree, 12 leaf pages, 48000 rows"). Corruption naming `where` and the part.
  virtual Result<std::string> Verify(const SegmentCoverage& coverage, const std::string& where) const = 0;
  // Reads what searches read lazily (a BTree's leaf pages) into the process cache, in order,
  // while the bytes read stay within `max_bytes`: `counters` say what was read. A kind whose
  // segment is held whole once opened reads nothing (the default).
  virtual Status Prewarm(uint64_t max_bytes, SearchCounters* counters) const;
};

class IndexKind {
 public:
  virtual ~IndexKind() = default;
  virtual std::string_view name() const = 0;
  // One line for help texts: what it answers and for which columns.
  virtual std::string_view summary() const = 0;
  // Answers are exact (kExact): the planner needs no recheck and may serve NOT over them.
  virtual bool exact() const = 0;
  // Segments answer Count (from their directories) and FirstRows (in key order).
  virtual bool counts() const { return false; }
  virtual bool ordered() const { return false; }
  // What a count from the directory inspects, for explain ("leaf pages", "bitmaps").
  virtual std::string_view unit() const = 0;
  // The build parameters: `given` (name -> value, from the front end; an object) checked for
  // `column`, with defaults filled in. InvalidArgument About(<parameter>) for a name the kind does
  // not take or a value out of range, and About("column") for a column type it cannot index.
  virtual Result<nlohmann::json> Params(const nlohmann::json& given, const Field& column) const = 0;
  // Writes one segment under a new uuid and returns the uuid.
  virtual Result<std::string> Build(const SegmentBuild& build) const = 0;
  // Opens segment `uuid` of `store` (which must outlive it). NotFound when absent, Corruption
  // naming the file when damaged, NotSupported for a format version this build does not read.
  virtual Result<std::shared_ptr<const IndexSegment>> Open(ObjectStore* store, const std::string& uuid) const = 0;
};

// Calls `chunk` with column `column` of every fragment's data file, a row group at a time, all
// rows (deleted ones included), with the offset of its first row in the fragment, then
// `fragment_done` (may be empty) after each fragment. `progress` (may be empty) hears step
// "reading <column>" with the rows read so far of the fragments' rows. Corruption naming the file
// when it lacks the column, has it in another type than the table's schema, or its row count
// differs from the manifest's.
Status ForEachColumnChunk(const table::Table& table, const std::string& column,
                          const std::vector<table::FragmentMeta>& fragments,
                          const std::function<Status(const table::FragmentMeta&, uint32_t offset, const Column&)>& chunk,
                          const std::function<Status(const table::FragmentMeta&)>& fragment_done = {},
                          const BuildProgress& progress = {});

// A kind's Open for a segment class with a static factory `Open(store, uuid)`.
template <typename Segment>
Result<std::shared_ptr<const IndexSegment>> OpenSegmentAs(ObjectStore* store, const std::string& uuid) {
  ASSIGN_OR_RETURN(auto segment, Segment::Open(store, uuid));
  return std::shared_ptr<const IndexSegment>(std::move(segment));
}

// A whole-number parameter from `given` (or `fallback` when absent), checked against [lo, hi]:
// InvalidArgument About(name) otherwise. For kinds' Params.
Result<uint64_t> WholeParam(const nlohmann::json& given, const std::string& name, uint64_t fallback, uint64_t lo,
                            uint64_t hi);
// InvalidArgument About(the first name of `given` not in `known`), naming the kind.
Status OnlyParams(const nlohmann::json& given, std::string_view kind, const std::vector<std::string>& known);

}  // namespace lakeindex::index
