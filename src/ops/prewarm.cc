#include "ops/prewarm.h"

#include <limits>
#include <numeric>

#include "common/lru_cache.h"
#include "query/binder.h"
#include "query/index_manager.h"

namespace lakeindex::ops {

namespace {

Result<std::vector<int>> PrewarmColumns(const Schema& schema, const std::vector<std::string>& names) {
  std::vector<int> out;
  for (size_t c = 0; names.empty() && c < schema.num_fields(); ++c) {
    if (!IsHiddenColumn(schema.field(c).name)) out.push_back(int(c));
  }
  for (const std::string& name : names) {
    Result<int> c = query::FindColumnFolded(schema, name);
    if (!c.ok()) return c.status().About("columns");
    out.push_back(*c);
  }
  return out;
}

}  // namespace

Result<PrewarmReport> Prewarm(const table::Table& table, const PrewarmRequest& request) {
  ASSIGN_OR_RETURN(std::vector<int> columns, PrewarmColumns(table.schema(), request.columns));
  LruCache* cache = LruCache::Default();
  if (request.cache_capacity && *request.cache_capacity > cache->capacity_bytes()) cache->SetCapacity(*request.cache_capacity);
  const uint64_t max_bytes = request.max_bytes.value_or(std::numeric_limits<uint64_t>::max());
  const auto cache_full = [&] { return double(cache->size_bytes()) >= kPrewarmCacheShare * double(cache->capacity_bytes()); };
  PrewarmReport report;
  const auto read = [&] { return report.data_bytes + report.index_bytes; };

  // Indexes first: a lookup's first read is its index page, and they are the smaller part.
  if (request.indexes) {
    ASSIGN_OR_RETURN(std::vector<query::IndexHandle> indexes, query::OpenIndexes(table, {}));
    for (const query::IndexHandle& index : indexes) {
      if (read() >= max_bytes || cache_full()) {
        report.complete = false;
        break;
      }
      index::SearchCounters counters;
      RETURN_IF_ERROR(index.prewarm(max_bytes - read(), &counters));
      report.index_bytes += counters.bytes_read;
      report.index_pages += counters.pages_read;
    }
    if (read() >= max_bytes) report.complete = false;  // an index may have more pages
  }
  // Then the data, chunk by chunk: each one ranged read of the whole chunk (no holes to skip).
  const std::vector<table::FragmentMeta> none;
  for (const table::FragmentMeta& fragment : request.data ? table.manifest().fragments : none) {
    ASSIGN_OR_RETURN(auto reader, table.OpenDataFile(fragment));
    for (int rg = 0; rg < reader->num_row_groups() && report.complete; ++rg) {
      for (int column : columns) {
        ASSIGN_OR_RETURN(auto chunk, reader->SharedChunk(rg, column));
        std::vector<int> pages(chunk->locations->pages.size());
        std::iota(pages.begin(), pages.end(), 0);
        ASSIGN_OR_RETURN(uint64_t bytes, reader->UncachedPageBytes(*chunk, rg, column, pages));
        if (bytes == 0) continue;
        if (read() + bytes > max_bytes || cache_full() || !chunk->cached) {
          report.complete = false;
          break;
        }
        RETURN_IF_ERROR(reader->LoadPages({{rg, column, std::move(pages)}}, ObjectStore::ReadHint{std::numeric_limits<uint64_t>::max()}));
        report.data_bytes += bytes;
        report.data_pages += chunk->locations->pages.size();
      }
    }
    if (!report.complete) break;
  }
  if (cache_full()) report.complete = false;
  report.cache_bytes = cache->size_bytes();
  report.cache_capacity = cache->capacity_bytes();
  return report;
}

}  // namespace lakeindex::ops
