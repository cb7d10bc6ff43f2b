// Scan queries through the Scanner API (no CLI output formatting), single-threaded, against
// lakeindex tables on local disk. bench/run.sh runs the same queries in DuckDB on the tables'
// data files (bench/duckdb_bench.mjs) and compares.
//
//   scan_bench QUERIES.tsv [NAME...]
// QUERIES.tsv has one query per line, tab-separated: name, table directory, WHERE (may be empty),
// SELECT list (comma-separated, empty = every column), mode. Mode "rows" returns the selected
// columns of the matching rows and counts them; mode "sum" also adds up every selected column
// (so that the values are really used). Lines starting with '#' are comments. With NAMEs, only
// those queries run.
//
// Each measurement covers Table::Open through the last Scanner::Next, and reports the scanner's
// counters and the bytes and requests read from the store, which do not depend on machine load.
#include <set>
#include <string>
#include <vector>

#include "bench_util.h"
#include "lakeindex/object_store.h"
#include "query/scanner.h"
#include "table/table.h"

namespace lakeindex::bench {
namespace {

// Adds up column c of `batch` (numeric types; NULLs count as 0).
double SumColumn(const Column& c) {
  double sum = 0;
  switch (c.type()) {
    case TypeId::kDouble: {
      const double* v = c.data<double>();
      for (size_t i = 0; i < c.length(); ++i) sum += v[i];
      break;
    }
    case TypeId::kInt64:
    case TypeId::kTimestamp: {
      const int64_t* v = c.data<int64_t>();
      for (size_t i = 0; i < c.length(); ++i) sum += double(v[i]);
      break;
    }
    default:
      break;
  }
  return sum;
}

void RunQuery(const QuerySpec& q) {
  std::shared_ptr<ObjectStore> local(CheckResult(OpenLocalStore(q.table), "open " + q.table));
  auto store = std::make_shared<InstrumentedStore>(local);

  query::ScanRequest request;
  request.where = q.where;
  if (!q.select.empty()) request.select = Split(q.select, ',');

  Stopwatch clock;
  auto table = CheckResult(table::Table::Open(store), "open table " + q.table);
  auto scanner = CheckResult(query::Scanner::Make(table.get(), request), "scanner " + q.name);
  uint64_t rows = 0;
  std::vector<double> sums(scanner->schema().num_fields(), 0.0);
  Batch batch;
  while (CheckResult(scanner->Next(&batch), "scan " + q.name)) {
    rows += batch.num_rows();
    if (q.mode == "sum") {
      for (size_t c = 0; c < batch.num_columns(); ++c) sums[c] += SumColumn(batch.column(c));
    }
  }
  double wall = clock.wall(), cpu = clock.cpu();

  const query::ScanCounters& k = scanner->counters();
  nlohmann::json j = {{"bench", "scan"},
                      {"engine", "lakeindex"},
                      {"case", q.name},
                      {"threads", 1},
                      {"rows_returned", rows},
                      {"wall_s", wall},
                      {"cpu_s", cpu},
                      {"fragments_total", k.fragments_total},
                      {"fragments_scanned", k.fragments_scanned},
                      {"blocks_total", k.blocks_total},
                      {"blocks_read", k.blocks_read},
                      {"pages_total", k.pages_total},
                      {"pages_read", k.pages_read},
                      {"rows_read", k.rows_read},
                      {"bytes_read", store->counters().bytes_read.load()},
                      {"io_requests", store->counters().read_requests.load() + store->counters().list_requests.load()}};
  if (q.mode == "sum") j["sums"] = sums;
  Emit(j);
}

}  // namespace
}  // namespace lakeindex::bench

int main(int argc, char** argv) {
  using namespace lakeindex::bench;
  if (argc < 2) {
    std::fprintf(stderr, "usage: scan_bench QUERIES.tsv [NAME...]\n");
    return 1;
  }
  std::set<std::string> only(argv + 2, argv + argc);
  for (const QuerySpec& q : LoadQueries(argv[1])) {
    if (only.empty() || only.count(q.name)) RunQuery(q);
  }
  return 0;
}
