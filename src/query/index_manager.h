// Index management over a table: build (create), extend to new fragments (update), drop, list,
// and open the indexes a query needs as IndexHandles for the planner.
//
// A build reads the indexed column of every covered fragment — all rows, deleted ones included
// (the executor drops deleted rows, so deletes never make an index stale) — writes one immutable
// segment under `_indices/{uuid}/`, and commits a new version whose manifest lists it. Fragments
// appended later, or rewritten by optimize, are not covered until `index update`; the planner
// scans them, so results are never stale.
// Thread safety: functions; a Table must not be written concurrently through the same object.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "index/index_catalog.h"
#include "query/index_planner.h"
#include "table/table.h"

namespace lakeindex::query {

struct IndexOptions {
  std::string name;          // default: "<column>_<type>"
  std::string column;
  std::string type;          // "btree" | "zonemap"
  uint32_t page_rows = 4096;  // btree leaf page rows
  uint32_t zone_rows = 8192;  // zone map rows per zone
};

// Builds the index over every fragment and commits it. InvalidArgument for an unknown column or
// type, a name in use, or a parameter out of range.
Status CreateIndex(table::Table* table, const IndexOptions& options);
// Adds a segment covering the fragments that an index does not cover yet (all indexes when
// `name` is empty). Returns how many segments were built.
Result<size_t> UpdateIndexes(table::Table* table, const std::string& name);
// Removes the index from the next version (its files stay for time travel until vacuum).
Status DropIndex(table::Table* table, const std::string& name);

// Opens the indexes on columns that `filter` mentions (all when `columns` is empty).
Result<std::vector<IndexHandle>> OpenIndexes(const table::Table& table, const std::vector<std::string>& columns);

}  // namespace lakeindex::query
