// Prewarm: a table's hot columns and index pages read into the process cache ahead of the
// queries that will want them, as SQLite's pages stay in its page cache — so that a long-lived
// process (a service, a notebook) answers its first lookups at warm cost. Within a budget: the
// cache (common/lru_cache.h, LAKEINDEX_CACHE_MB) is never filled past kPrewarmCacheShare of
// its capacity, so prewarming cannot evict what it loaded itself. A table larger than that
// share is held whole when the caller gives the cache room for it (cache_capacity): the
// process's one cache grows, as SQLite's cache_size pragma does.
// Thread safety: as the table::Table read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lakeindex/status.h"
#include "table/table.h"

namespace lakeindex::ops {

struct PrewarmRequest {
  std::vector<std::string> columns;   // data columns to load; empty: every visible column
  bool data = true;                   // load the columns' data pages
  bool indexes = true;                // load the lazily read parts of every index of the version
  std::optional<uint64_t> max_bytes;  // stop after reading about this many bytes from the store
  // The process cache's capacity is raised to this many bytes first (never lowered: the cache
  // is every table's). Decoded pages take about twice the table's file bytes.
  std::optional<uint64_t> cache_capacity;
};

struct PrewarmReport {
  uint64_t data_bytes = 0;    // compressed page bytes read from the store
  uint64_t data_pages = 0;
  uint64_t index_bytes = 0;   // index pages read from the store
  uint64_t index_pages = 0;
  bool complete = true;       // everything asked for is held (else the budget stopped it)
  uint64_t cache_bytes = 0;   // what the process cache holds afterwards, and its capacity
  uint64_t cache_capacity = 0;
};

inline constexpr double kPrewarmCacheShare = 0.8;

// InvalidArgument about "columns" naming an unknown column (with "did you mean").
Result<PrewarmReport> Prewarm(const table::Table& table, const PrewarmRequest& request);

}  // namespace lakeindex::ops
