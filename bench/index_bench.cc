// Scalar index benchmarks (BTree: issue 4, zone map: issue 5), our side; bench/run.sh runs the
// peers (DuckDB ART, SQLite, DuckDB on Parquet: bench/index_peers.mjs) on the same queries and
// bench/report.mjs puts them side by side.
//
//   index_bench queries --rows N --seed S --output FILE.json
//       Writes the BTree query set (point ids, score ranges, IN lists, prefix, IS NULL) that every
//       engine runs; deterministic in (N, S). Not a measurement.
//   index_bench btree --table DIR --queries FILE.json --scratch DIR [--repeat R]
//       DIR: a copy of the events table without indexes (it gets btree indexes on id, score, name
//       and maybe). Measures: BTreeBuilder on the id column already in memory (R builds into
//       SCRATCH) and std::sort of (value, address) pairs, the in-memory limit; CreateIndex per
//       column (reads the column from the table); then every query ids-only through
//       BTreeSegment::Search with a warm cache ("hot") and a fresh PageCache per lookup ("cold"),
//       whole rows through the Scanner with the indexes (hot), and the in-memory limit
//       (std::equal_range over the sorted pairs).
//   index_bench build --table DIR --scratch DIR [--repeat R] [COLUMN...]
//       Only the build measurements of `btree` (BTreeBuilder on id, std::sort, CreateIndex on
//       the named columns, default id score name maybe), for profiling the build.
//   index_bench rows-once --table DIR --queries FILE.json --query NAME --i K
//   index_bench rows-once --table DIR --query LABEL --where FILTER [--sample F]
//       One whole-row lookup (point K of query NAME, or the filter and sample given) in a new
//       process: Table::Open + OpenIndexes + Scanner, the cold case of a CLI call (the OS file
//       cache is warm); then the hot case: the same query again through the open table, and with
//       --queries, point K+1 (new leaf and data pages, the directory and footers held).
//       bench/run.sh and bench/s3_bench.sh repeat it.
//   index_bench rows --table DIR --queries FILE.json [--repeat R]
//       Only the whole-row lookups of `btree` (hot), on a table that has (or gets, untimed) btree
//       indexes on the queries' columns: the quick loop for working on the read path.
//       --points-times K looks each point up K times (for a profiler); --query NAME runs only that one.
//   index_bench lookups --table DIR --queries LOOKUP_QUERIES.json [--repeat R]
//       The library side of bench/lookup_bench.sh: the lookups that `node bench/lookup_peers.mjs
//       queries` wrote (the same ones every peer runs), through Table::Open once + OpenIndexes +
//       Scanner (hot), SELECT * and SELECT id; point queries once per point, the others R
//       times, each after a warm-up pass. Prints the JSON lines of lookup_peers.mjs (engine
//       "lakeindex"), with the scanner's counters and the store's bytes and requests per lookup.
//   index_bench zonemap --table DIR --queries QUERIES.tsv [--repeat R] NAME...
//       DIR: a copy of the ts-sorted table. Creates a zonemap index on ts if missing (timed), then
//       runs the named queries of QUERIES.tsv (their table directory is replaced by DIR) R times
//       with the zone map and without indexes (the Scanner prunes with Parquet statistics and the
//       page index only), alternating.
//
// Output: one JSON object per measurement on stdout (bench_util.h). Latencies are in
// microseconds: the median over many lookups (n), and CPU = process CPU of the whole loop / n.
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "bench_util.h"
#include "common/lru_cache.h"
#include "format/parquet/reader.h"
#include "index/btree/btree_builder.h"
#include "index/btree/btree_reader.h"
#include "index/index_catalog.h"
#include "lakeindex/object_store.h"
#include "query/index_manager.h"
#include "query/scanner.h"
#include "table/table.h"

namespace lakeindex::bench {
namespace {

using index::ScalarQuery;
using index::SearchCounters;
using index::btree::BTreeSegment;
using index::btree::PageCache;
using nlohmann::json;

constexpr size_t kHotPoints = 1000;      // point lookups per hot measurement
constexpr size_t kColdPoints = 200;      // ... per cold-page measurement
constexpr size_t kColdOpenPoints = 50;   // ... per cold-open measurement
constexpr size_t kRowPoints = 200;       // whole-row point lookups (hot)
constexpr size_t kHotCacheBytes = size_t(1) << 30;  // holds every page of the id index

struct Args {
  std::string command, table, queries, scratch, output, query, where;
  std::optional<double> sample;
  uint64_t rows = 10'000'000, seed = 42;
  int repeat = 5;
  int points_times = 1;
  uint64_t latency_us = 0;  // added to every store request (a remote store's first-byte latency)
  size_t i = 0;
  std::vector<std::string> names;
};

Args ParseArgs(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: index_bench queries|btree|build|rows|rows-once|lookups|zonemap [options] (see the file comment)\n");
    std::exit(1);
  }
  Args a;
  a.command = argv[1];
  for (int i = 2; i < argc; ++i) {
    std::string k = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Die(Status::InvalidArgument(k + " needs a value"), "arguments");
      return argv[++i];
    };
    if (k == "--table") a.table = value();
    else if (k == "--queries") a.queries = value();
    else if (k == "--scratch") a.scratch = value();
    else if (k == "--output") a.output = value();
    else if (k == "--query") a.query = value();
    else if (k == "--where") a.where = value();
    else if (k == "--sample") a.sample = std::stod(value());
    else if (k == "--rows") a.rows = std::stoull(value());
    else if (k == "--seed") a.seed = std::stoull(value());
    else if (k == "--repeat") a.repeat = std::stoi(value());
    else if (k == "--i") a.i = std::stoull(value());
    else if (k == "--points-times") a.points_times = std::stoi(value());
    else if (k == "--latency-us") a.latency_us = std::stoull(value());
    else a.names.push_back(k);
  }
  return a;
}

double Micros(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

// ---- the query set ---------------------------------------------------------------------------

std::string SqlList(const json& values) {
  std::string s;
  for (const auto& v : values) s += (s.empty() ? "" : ", ") + std::to_string(v.get<int64_t>());
  return s;
}

void WriteQueries(const Args& a) {
  std::mt19937_64 rng(a.seed * 7919 + 17);
  // Distinct random ids (id is a permutation of 0..rows-1, so every one exists).
  auto random_ids = [&](size_t n) {
    std::vector<int64_t> ids;
    std::set<int64_t> seen;
    while (ids.size() < std::min<uint64_t>(n, a.rows)) {
      int64_t id = int64_t(rng() % a.rows);
      if (seen.insert(id).second) ids.push_back(id);
    }
    return ids;
  };
  json q = json::array();
  q.push_back({{"name", "point id"}, {"column", "id"}, {"kind", "eq"}, {"points", random_ids(kHotPoints)},
               {"rows", true}});
  // score is uniform over [0, 1e6): a width of w values selects about w/1e6 of the rows.
  const std::pair<const char*, int64_t> widths[] = {{"0.01%", 100}, {"0.1%", 1000}, {"1%", 10000}};
  for (auto [label, width] : widths) {
    int64_t lo = 500000, hi = lo + width - 1;
    q.push_back({{"name", std::string("range score ") + label}, {"column", "score"}, {"kind", "range"},
                 {"lo", lo}, {"hi", hi},
                 {"where", "score BETWEEN " + std::to_string(lo) + " AND " + std::to_string(hi)},
                 {"rows", width <= 1000}});
  }
  for (size_t n : {size_t(100), size_t(10000)}) {
    json values = random_ids(n);
    q.push_back({{"name", "IN " + std::to_string(n) + " ids"}, {"column", "id"}, {"kind", "in"}, {"values", values},
                 {"where", "id IN (" + SqlList(values) + ")"}, {"rows", n <= 100}});
  }
  q.push_back({{"name", "prefix name 'abc'"}, {"column", "name"}, {"kind", "prefix"}, {"prefix", "abc"},
               {"where", "name LIKE 'abc%'"}, {"sqlite_where", "name GLOB 'abc*'"}, {"rows", true}});
  q.push_back({{"name", "maybe IS NULL"}, {"column", "maybe"}, {"kind", "isnull"}, {"where", "maybe IS NULL"},
               {"rows", false}});
  std::ofstream out(a.output);
  out << q.dump(1) << "\n";
  if (!out) Die(Status::IOError("cannot write " + a.output), "queries");
}

json LoadJson(const std::string& path) {
  std::ifstream in(path);
  if (!in) Die(Status::IOError("cannot open " + path), "queries");
  return json::parse(in);
}

// The ScalarQuery of a non-point query, or of point `v` of a point query.
ScalarQuery ToScalarQuery(const json& q, int64_t point = 0) {
  const std::string kind = q["kind"];
  if (kind == "eq") return ScalarQuery::Equals(Value::Int64(point));
  if (kind == "range") {
    return ScalarQuery::Range(Value::Int64(q["lo"].get<int64_t>()), true, Value::Int64(q["hi"].get<int64_t>()), true);
  }
  if (kind == "in") {
    std::vector<Value> values;
    for (const auto& v : q["values"]) values.push_back(Value::Int64(v.get<int64_t>()));
    return ScalarQuery::In(std::move(values));
  }
  if (kind == "prefix") return ScalarQuery::Prefix(q["prefix"].get<std::string>());
  return ScalarQuery::IsNull();
}

std::string WhereOf(const json& q, int64_t point = 0) {
  if (q["kind"] == "eq") return q["column"].get<std::string>() + " = " + std::to_string(point);
  return q["where"];
}

// How many lookups a measurement makes: every point of a point query (up to `points`), else
// `repeat` runs of the one query.
std::vector<int64_t> Instances(const json& q, size_t points, int repeat) {
  std::vector<int64_t> out;
  if (q["kind"] == "eq") {
    for (const auto& v : q["points"]) {
      if (out.size() == points) break;
      out.push_back(v.get<int64_t>());
    }
  } else {
    out.assign(size_t(repeat), 0);
  }
  return out;
}

// ---- measurements ----------------------------------------------------------------------------

uint64_t g_latency_us = 0;  // --latency-us

// A table's store (a directory or any URI OpenStoreUri takes, e.g. s3:// on moto), counted, with
// the latency of --latency-us added to every request.
std::shared_ptr<InstrumentedStore> OpenStore(const std::string& dir) {
  std::shared_ptr<ObjectStore> base(CheckResult(OpenStoreUri(dir), "open " + dir));
  auto store = std::make_shared<InstrumentedStore>(base);
  store->SetLatencyMicros(g_latency_us);
  return store;
}

// Latency statistics of one measurement: median/p10/p90 of the per-lookup wall times, mean CPU.
json LatencyJson(const std::vector<double>& us, double cpu_s) {
  std::vector<double> s = us;
  std::sort(s.begin(), s.end());
  auto pct = [&](double p) { return s.empty() ? 0.0 : s[std::min(s.size() - 1, size_t(p * double(s.size())))]; };
  return {{"n", us.size()}, {"median_us", Median(us)}, {"p10_us", pct(0.1)}, {"p90_us", pct(0.9)},
          {"cpu_us", us.empty() ? 0.0 : cpu_s * 1e6 / double(us.size())}};
}

json CountersJson(const SearchCounters& c, size_t n) {
  double d = n ? double(n) : 1.0;
  return {{"pages_total", c.pages_total / (n ? n : 1)}, {"pages_selected", double(c.pages_selected) / d},
          {"pages_all_match", double(c.pages_all_match) / d}, {"pages_read", double(c.pages_read) / d},
          {"bytes_read", double(c.bytes_read) / d}};
}

// One column of every fragment with the row address of each value, as the builders take it.
struct LoadedColumn {
  std::vector<Batch> batches;
  std::vector<std::vector<uint64_t>> addresses;
};

LoadedColumn LoadColumn(const table::Table& table, const std::string& column) {
  LoadedColumn out;
  for (const table::FragmentMeta& f : table.manifest().fragments) {
    auto reader = CheckResult(parquet::ParquetReader::Open(table.store(), f.file), "open " + f.file);
    int c = reader->schema().FindField(column);
    uint32_t offset = 0;
    for (int rg = 0; rg < reader->num_row_groups(); ++rg) {
      Batch b = CheckResult(reader->ReadRowGroup(rg, {c}), "read " + f.file);
      std::vector<uint64_t> addr(b.num_rows());
      for (size_t r = 0; r < addr.size(); ++r) addr[r] = MakeRowAddress(f.id, offset + uint32_t(r));
      offset += uint32_t(b.num_rows());
      out.addresses.push_back(std::move(addr));
      out.batches.push_back(std::move(b));
    }
  }
  return out;
}

using Pairs = std::vector<std::pair<int64_t, uint64_t>>;

Pairs SortedPairs(const LoadedColumn& col) {
  Pairs p;
  for (size_t b = 0; b < col.batches.size(); ++b) {
    const Column& c = col.batches[b].column(0);
    const int64_t* v = c.data<int64_t>();
    for (size_t r = 0; r < c.length(); ++r) p.emplace_back(v[r], col.addresses[b][r]);
  }
  std::sort(p.begin(), p.end());
  return p;
}

json BuildJson(const std::string& engine, const std::string& kase, const Stopwatch& clock, uint64_t rss_before) {
  double wall = clock.wall(), cpu = clock.cpu();
  return {{"bench", "index_build"}, {"engine", engine}, {"case", kase}, {"wall_s", wall}, {"cpu_s", cpu},
          {"peak_rss_bytes", PeakRssBytes()}, {"rss_before_bytes", rss_before}};
}

void MeasureBuilds(const Args& a, table::Table* table, const LoadedColumn& ids,
                   const std::vector<std::string>& columns = {"id", "score", "name", "maybe"}) {
  // BTreeBuilder alone, the column already in memory (as DuckDB's and SQLite's tables are).
  std::filesystem::remove_all(a.scratch);
  std::filesystem::create_directories(a.scratch);
  for (int r = 0; r < a.repeat; ++r) {
    auto store = CheckResult(OpenLocalStore(a.scratch), "scratch store");
    ResetPeakRss();
    uint64_t rss = RssBytes();
    Stopwatch clock;
    index::btree::BTreeBuildOptions options;
    options.spill_dir = a.scratch;
    auto builder = CheckResult(index::btree::BTreeBuilder::Make(store.get(), TypeId::kInt64, options), "builder");
    for (size_t b = 0; b < ids.batches.size(); ++b) Check(builder->Add(ids.batches[b].column(0), ids.addresses[b]), "add");
    auto info = CheckResult(builder->Finish(), "finish");
    json j = BuildJson("lakeindex", "BTreeBuilder id", clock, rss);
    j.update({{"pages", info.num_pages}, {"index_bytes", info.lookup_bytes + info.data_bytes},
              {"runs_spilled", builder->runs_spilled()}, {"threads", 1}});
    Emit(j);
    builder.reset();
    std::filesystem::remove_all(std::filesystem::path(a.scratch) / "_indices");
  }
  // The in-memory limit: std::sort of (value, address) pairs.
  for (int r = 0; r < a.repeat; ++r) {
    ResetPeakRss();
    uint64_t rss = RssBytes();
    Stopwatch clock;
    Pairs p = SortedPairs(ids);
    json j = BuildJson("in-memory", "std::sort id", clock, rss);
    j["threads"] = 1;
    Emit(j);
  }
  // CreateIndex: reads each column from the table, builds, commits (one run per column).
  for (const std::string& column : columns) {
    std::string name = column + "_btree";
    auto existing = CheckResult(index::ReadIndexes(table->manifest()), "indexes");
    for (const auto& e : existing) {
      if (e.name == name) Check(query::DropIndex(table, name), "drop " + name);
    }
    ResetPeakRss();
    uint64_t rss = RssBytes();
    Stopwatch clock;
    query::IndexOptions options;
    options.column = column;
    options.type = "btree";
    Check(query::CreateIndex(table, options), "create index on " + column);
    json j = BuildJson("lakeindex", std::string("CreateIndex ") + column, clock, rss);
    j["threads"] = 1;
    Emit(j);
  }
}

std::shared_ptr<BTreeSegment> OpenSegment(const table::Table& table, const std::string& column, PageCache* cache) {
  auto indexes = CheckResult(index::ReadIndexes(table.manifest()), "indexes");
  for (const auto& m : indexes) {
    if (m.column == column && m.type == "btree" && m.segments.size() == 1) {
      index::btree::BTreeSegmentOptions options;
      options.cache = cache;
      return CheckResult(BTreeSegment::Open(table.store(), m.segments[0].uuid, options), "open segment " + column);
    }
  }
  Die(Status::NotFound("no one-segment btree index on " + column), "open segment");
}

json QueryJson(const json& q, const std::string& engine, const std::string& way, const std::string& cache) {
  return {{"bench", "index_query"}, {"engine", engine}, {"case", q["name"]}, {"way", way}, {"cache", cache}};
}

// ids only, through BTreeSegment::Search: hot (warm cache) and cold (fresh PageCache per lookup).
void MeasureIds(const Args& a, const table::Table& table, const json& q) {
  PageCache hot_cache(kHotCacheBytes);
  auto segment = OpenSegment(table, q["column"], &hot_cache);
  std::vector<int64_t> inst = Instances(q, kHotPoints, 2 * a.repeat - 1);
  uint64_t rows = 0;
  for (int64_t v : inst) rows = CheckResult(segment->Search(ToScalarQuery(q, v)), "search").rows.true_rows.Cardinality();
  {
    std::vector<double> us;
    SearchCounters counters;
    Stopwatch clock;
    for (int64_t v : inst) {
      ScalarQuery sq = ToScalarQuery(q, v);
      auto t0 = std::chrono::steady_clock::now();
      auto r = CheckResult(segment->Search(sq, &counters), "search");
      us.push_back(Micros(t0));
      rows = r.rows.true_rows.Cardinality();
    }
    json j = QueryJson(q, "lakeindex", "ids", "hot");
    j.update(LatencyJson(us, clock.cpu()));
    j.update(CountersJson(counters, inst.size()));
    j["rows_returned"] = rows;
    Emit(j);
  }
  // Cold page: the segment's directory is in memory, its leaf pages are not.
  inst = Instances(q, kColdPoints, a.repeat);
  {
    std::vector<double> us;
    SearchCounters counters;
    double cpu = 0;  // of the searches only, not of the opens between them
    for (int64_t v : inst) {
      PageCache cold(kHotCacheBytes);
      index::btree::BTreeSegmentOptions options;
      options.cache = &cold;
      auto fresh = CheckResult(BTreeSegment::Open(table.store(), segment->info().uuid, options), "open");
      // Open the lazy page_data reader outside the timed part: "cold page" is about the pages.
      (void)fresh->ReadPageUncached(0);
      ScalarQuery sq = ToScalarQuery(q, v);
      double cpu0 = CpuSeconds();
      auto t0 = std::chrono::steady_clock::now();
      auto r = CheckResult(fresh->Search(sq, &counters), "search");
      us.push_back(Micros(t0));
      cpu += CpuSeconds() - cpu0;
      rows = r.rows.true_rows.Cardinality();
    }
    json j = QueryJson(q, "lakeindex", "ids", "cold page");
    j.update(LatencyJson(us, cpu));
    j.update(CountersJson(counters, inst.size()));
    j["rows_returned"] = rows;
    Emit(j);
  }
  if (q["kind"] != "eq") return;
  // Cold open: open the segment (page_lookup, then page_data's footer on the first miss) + search.
  inst = Instances(q, kColdOpenPoints, a.repeat);
  std::vector<double> us;
  SearchCounters counters;
  Stopwatch clock;
  for (int64_t v : inst) {
    PageCache cold(kHotCacheBytes);
    ScalarQuery sq = ToScalarQuery(q, v);
    auto t0 = std::chrono::steady_clock::now();
    index::btree::BTreeSegmentOptions options;
    options.cache = &cold;
    auto fresh = CheckResult(BTreeSegment::Open(table.store(), segment->info().uuid, options), "open");
    auto r = CheckResult(fresh->Search(sq, &counters), "search");
    us.push_back(Micros(t0));
    rows = r.rows.true_rows.Cardinality();
  }
  json j = QueryJson(q, "lakeindex", "ids", "cold open");
  j.update(LatencyJson(us, clock.cpu()));
  j.update(CountersJson(counters, inst.size()));
  j["rows_returned"] = rows;
  Emit(j);
}

// Runs `where` through a Scanner with `indexes` to the last batch; returns the rows.
uint64_t ScanAll(const table::Table& table, const std::string& where, const std::vector<query::IndexHandle>& indexes,
                 query::ScanCounters* counters, std::optional<double> sample = std::nullopt) {
  query::ScanRequest request;
  request.where = where;
  request.sample = sample;
  request.indexes = indexes;
  auto scanner = CheckResult(query::Scanner::Make(&table, request), "scanner " + where);
  uint64_t rows = 0;
  Batch batch;
  while (CheckResult(scanner->Next(&batch), "scan " + where)) rows += batch.num_rows();
  if (counters != nullptr) *counters = scanner->counters();
  return rows;
}

json ScanCountersJson(const query::ScanCounters& k, double n) {
  return {{"fragments_scanned", double(k.fragments_scanned) / n}, {"fragments_total", k.fragments_total},
          {"blocks_read", double(k.blocks_read) / n}, {"pages_read", double(k.pages_read) / n},
          {"pages_total", double(k.pages_total) / n}, {"rows_read", double(k.rows_read) / n},
          {"index_pages_read", double(k.index.pages_read) / n}, {"index_pages_selected", double(k.index.pages_selected) / n},
          {"index_pages_total", k.index.pages_total}};
}

// Whole rows (SELECT *) through the Scanner with the column's index, hot.
void MeasureRows(const Args& a, const table::Table& table, InstrumentedStore* store, const json& q) {
  auto indexes = CheckResult(query::OpenIndexes(table, {q["column"].get<std::string>()}), "open indexes");
  std::vector<int64_t> inst = Instances(q, kRowPoints, a.repeat);
  uint64_t rows = 0;
  for (int64_t v : inst) rows = ScanAll(table, WhereOf(q, v), indexes, nullptr);  // warm up
  // Points are looked up once each; --points-times K (profiling) goes over them K times.
  if (q["kind"] == "eq" && a.points_times > 1) {
    const std::vector<int64_t> once = inst;
    for (int k = 1; k < a.points_times; ++k) inst.insert(inst.end(), once.begin(), once.end());
  }
  std::vector<double> us;
  query::ScanCounters sum;
  uint64_t bytes0 = store->counters().bytes_read, req0 = store->counters().read_requests,
           trips0 = store->counters().round_trips;
  Stopwatch clock;
  for (int64_t v : inst) {
    std::string where = WhereOf(q, v);
    query::ScanCounters k;
    auto t0 = std::chrono::steady_clock::now();
    rows = ScanAll(table, where, indexes, &k);
    us.push_back(Micros(t0));
    sum.fragments_total = k.fragments_total;
    sum.fragments_scanned += k.fragments_scanned;
    sum.blocks_read += k.blocks_read;
    sum.pages_read += k.pages_read;
    sum.pages_total += k.pages_total;
    sum.rows_read += k.rows_read;
    sum.index.pages_read += k.index.pages_read;
    sum.index.pages_selected += k.index.pages_selected;
    sum.index.pages_total = k.index.pages_total;
  }
  double cpu = clock.cpu();
  double n = double(inst.size());
  json j = QueryJson(q, "lakeindex", "rows", "hot");
  j.update(LatencyJson(us, cpu));
  j.update(ScanCountersJson(sum, n));
  j["bytes_read"] = double(store->counters().bytes_read - bytes0) / n;
  j["io_requests"] = double(store->counters().read_requests - req0) / n;
  j["round_trips"] = double(store->counters().round_trips - trips0) / n;
  j["rows_returned"] = rows;
  Emit(j);
}

// The in-memory limit: std::equal_range over the sorted (value, address) pairs.
void MeasureInMemory(const Args& a, const json& q, const Pairs& sorted) {
  std::vector<int64_t> inst = Instances(q, kHotPoints, 2 * a.repeat - 1);
  std::vector<double> us;
  uint64_t rows = 0;
  Stopwatch clock;
  std::vector<uint64_t> out;
  auto range = [&](int64_t lo, int64_t hi) {
    auto first = std::lower_bound(sorted.begin(), sorted.end(), std::pair<int64_t, uint64_t>(lo, 0));
    auto last = std::upper_bound(first, sorted.end(), std::pair<int64_t, uint64_t>(hi, UINT64_MAX));
    for (auto it = first; it != last; ++it) out.push_back(it->second);
  };
  for (int64_t v : inst) {
    out.clear();
    auto t0 = std::chrono::steady_clock::now();
    if (q["kind"] == "eq") {
      range(v, v);
    } else if (q["kind"] == "range") {
      range(q["lo"].get<int64_t>(), q["hi"].get<int64_t>());
    } else {
      for (const auto& x : q["values"]) range(x.get<int64_t>(), x.get<int64_t>());
    }
    us.push_back(Micros(t0));
    rows = out.size();
  }
  json j = QueryJson(q, "in-memory", "ids", "hot");
  j.update(LatencyJson(us, clock.cpu()));
  j["rows_returned"] = rows;
  Emit(j);
}

void RunBTree(const Args& a) {
  json queries = LoadJson(a.queries);
  auto store = OpenStore(a.table);
  auto table = CheckResult(table::Table::Open(store), "open table " + a.table);
  LoadedColumn ids = LoadColumn(*table, "id");
  MeasureBuilds(a, table.get(), ids);
  table = CheckResult(table::Table::Open(store), "reopen table " + a.table);

  Pairs id_pairs = SortedPairs(ids);
  ids = LoadedColumn();
  Pairs score_pairs = SortedPairs(LoadColumn(*table, "score"));
  for (const json& q : queries) {
    std::fprintf(stderr, "index_bench: %s\n", q["name"].get<std::string>().c_str());
    MeasureIds(a, *table, q);
    if (q["rows"].get<bool>()) MeasureRows(a, *table, store.get(), q);
    if (q["column"] == "id") MeasureInMemory(a, q, id_pairs);
    if (q["column"] == "score") MeasureInMemory(a, q, score_pairs);
  }
}

void RunRows(const Args& a) {
  json queries = LoadJson(a.queries);
  auto store = OpenStore(a.table);
  auto table = CheckResult(table::Table::Open(store), "open table " + a.table);
  auto existing = CheckResult(index::ReadIndexes(table->manifest()), "indexes");
  for (const json& q : queries) {
    const std::string column = q["column"].get<std::string>();
    if (std::none_of(existing.begin(), existing.end(), [&](const auto& m) { return m.column == column; })) {
      query::IndexOptions options;
      options.column = column;
      options.type = "btree";
      Check(query::CreateIndex(table.get(), options), "create btree on " + column);
      existing = CheckResult(index::ReadIndexes(table->manifest()), "indexes");
    }
  }
  table = CheckResult(table::Table::Open(store), "reopen table " + a.table);
  for (const json& q : queries) {
    if (!q["rows"].get<bool>() || (!a.query.empty() && q["name"] != a.query)) continue;
    std::fprintf(stderr, "index_bench: %s\n", q["name"].get<std::string>().c_str());
    MeasureRows(a, *table, store.get(), q);
  }
}

void RunLookups(const Args& a) {
  json spec = LoadJson(a.queries);
  ResetPeakRss();
  const uint64_t rss_before = RssBytes();
  auto store = OpenStore(a.table);
  auto table = CheckResult(table::Table::Open(store), "open table " + a.table);
  auto indexes = CheckResult(query::OpenIndexes(*table, {}), "open indexes");
  for (const json& q : spec["queries"]) {
    std::vector<std::string> wheres = q["wheres"].get<std::vector<std::string>>();
    const bool points = q["kind"] == "points";
    for (const char* select : {"*", "id"}) {
      auto run = [&](const std::string& where, query::ScanCounters* k) {
        query::ScanRequest request;
        request.where = where;
        request.indexes = indexes;
        if (std::string(select) == "id") request.select = {"id"};
        auto scanner = CheckResult(query::Scanner::Make(table.get(), request), "scanner " + where);
        uint64_t rows = 0;
        Batch batch;
        while (CheckResult(scanner->Next(&batch), "scan " + where)) rows += batch.num_rows();
        if (k != nullptr) *k = scanner->counters();
        return rows;
      };
      uint64_t rows = 0;
      for (const std::string& w : wheres) rows += run(w, nullptr);  // warm-up, and the row count
      const int passes = points ? std::max(1, a.repeat / 5) : a.repeat;  // --repeat 5 (default): one pass of points
      std::vector<double> us;
      query::ScanCounters sum;
      const uint64_t bytes0 = store->counters().bytes_read, req0 = store->counters().read_requests,
                     trips0 = store->counters().round_trips;
      Stopwatch clock;
      for (int p = 0; p < passes; ++p) {
        for (const std::string& w : wheres) {
          query::ScanCounters k;
          auto t0 = std::chrono::steady_clock::now();
          run(w, &k);
          us.push_back(Micros(t0));
          sum.pages_read += k.pages_read;
          sum.rows_read += k.rows_read;
          sum.fragments_scanned += k.fragments_scanned;
          sum.index.pages_read += k.index.pages_read;
        }
      }
      const double n = double(us.size());
      json j = {{"bench", "lookups"}, {"engine", "lakeindex"}, {"query", q["name"]}, {"select", select},
                {"rows", rows}, {"rows_ok", rows == q["rows"].get<uint64_t>()}, {"lookups", wheres.size()},
                {"runs", us.size()}};
      j.update(LatencyJson(us, clock.cpu()));
      j["pages_read"] = double(sum.pages_read) / n;
      j["rows_read"] = double(sum.rows_read) / n;
      j["fragments_scanned"] = double(sum.fragments_scanned) / n;
      j["index_pages_read"] = double(sum.index.pages_read) / n;
      j["bytes_read"] = double(store->counters().bytes_read - bytes0) / n;
      j["io_requests"] = double(store->counters().read_requests - req0) / n;
      j["round_trips"] = double(store->counters().round_trips - trips0) / n;
      Emit(j);
    }
  }
  // Memory held = RSS now less RSS before the table was opened (the query file is loaded before).
  json e = {{"bench", "lookups_engine"}, {"engine", "lakeindex"}, {"lakeindex_version", "library (index_bench)"},
            {"rss_held_bytes", RssBytes() - rss_before}, {"peak_rss_bytes", PeakRssBytes()},
            {"cache_bytes", LruCache::Default()->size_bytes()}, {"cache_capacity", LruCache::Default()->capacity_bytes()}};
  Emit(e);
}

void RunBuild(const Args& a) {
  auto store = OpenStore(a.table);
  auto table = CheckResult(table::Table::Open(store), "open table " + a.table);
  LoadedColumn ids = LoadColumn(*table, "id");
  if (a.names.empty()) {
    MeasureBuilds(a, table.get(), ids);
  } else {
    MeasureBuilds(a, table.get(), ids, a.names);
  }
}

void RunRowsOnce(const Args& a) {
  json q = {{"name", a.query}, {"column", ""}};
  std::string where = a.where, next_where;
  if (!a.queries.empty()) {
    json queries = LoadJson(a.queries);
    const json* found = nullptr;
    for (const json& x : queries) {
      if (x["name"] == a.query) found = &x;
    }
    if (found == nullptr) Die(Status::InvalidArgument("no query " + a.query), "rows-once");
    q = *found;
    std::vector<int64_t> inst = Instances(q, kHotPoints, 2);
    where = WhereOf(q, inst[a.i % inst.size()]);
    next_where = WhereOf(q, inst[(a.i + 1) % inst.size()]);
  }
  auto t0 = std::chrono::steady_clock::now();
  Stopwatch clock;
  auto store = OpenStore(a.table);
  table::Table::OpenOptions options;  // as the CLI's query opens it
  options.prefetch = [&](const table::Table& t) { query::PrefetchForQueries(t, where); };
  auto table = CheckResult(table::Table::Open(store, std::nullopt, options), "open table " + a.table);
  const double open_us = Micros(t0);
  const uint64_t open_trips = store->counters().round_trips, open_requests = store->counters().read_requests;
  auto indexes = CheckResult(query::OpenIndexesFor(*table, where), "open indexes");
  const double indexes_us = Micros(t0);
  const uint64_t index_trips = store->counters().round_trips, index_requests = store->counters().read_requests;
  query::ScanCounters k;
  uint64_t rows = ScanAll(*table, where, indexes, &k, a.sample);
  double us = Micros(t0);
  json j = QueryJson(q, "lakeindex", "rows", "cold process");
  j.update(LatencyJson({us}, clock.cpu()));
  j["where"] = where;
  if (a.sample) j["sample"] = *a.sample;
  j["open_table_us"] = open_us;  // phases: Table::Open, then OpenIndexes, then the scan
  j["open_indexes_us"] = indexes_us - open_us;
  j["scan_us"] = us - indexes_us;
  j.update(ScanCountersJson(k, 1));
  j["bytes_read"] = store->counters().bytes_read.load();
  j["io_requests"] = store->counters().read_requests.load() + store->counters().list_requests.load();
  j["round_trips"] = store->counters().round_trips.load();
  // Per phase: open the table, open the index (its directory), the lookup (leaf page and rows).
  j["open_round_trips"] = open_trips;
  j["index_round_trips"] = index_trips - open_trips;
  j["scan_round_trips"] = store->counters().round_trips - index_trips;
  j["open_requests"] = open_requests;
  j["index_requests"] = index_requests - open_requests;
  j["scan_requests"] = store->counters().read_requests - index_requests;
  j["latency_us"] = g_latency_us;
  j["rows_returned"] = rows;
  // Hot: through the open table, the same query (every page cached), and the next point (the
  // directory and footers held; its leaf page and data pages new).
  auto hot = [&](const std::string& w, const char* prefix) {
    const uint64_t trips0 = store->counters().round_trips, req0 = store->counters().read_requests;
    auto h0 = std::chrono::steady_clock::now();
    auto hot_indexes = CheckResult(query::OpenIndexesFor(*table, w), "open indexes");
    uint64_t hot_rows = ScanAll(*table, w, hot_indexes, nullptr, a.sample);
    j[std::string(prefix) + "_us"] = Micros(h0);
    j[std::string(prefix) + "_round_trips"] = store->counters().round_trips - trips0;
    j[std::string(prefix) + "_requests"] = store->counters().read_requests - req0;
    j[std::string(prefix) + "_rows"] = hot_rows;
  };
  hot(where, "hot_same");
  if (!next_where.empty()) hot(next_where, "hot_next");
  Emit(j);
}

// ---- zone map --------------------------------------------------------------------------------

void RunZoneMap(const Args& a) {
  auto store = OpenStore(a.table);
  auto table = CheckResult(table::Table::Open(store), "open table " + a.table);
  auto existing = CheckResult(index::ReadIndexes(table->manifest()), "indexes");
  if (std::none_of(existing.begin(), existing.end(), [](const auto& m) { return m.name == "ts_zonemap"; })) {
    ResetPeakRss();
    uint64_t rss = RssBytes();
    Stopwatch clock;
    query::IndexOptions options;
    options.column = "ts";
    options.type = "zonemap";
    Check(query::CreateIndex(table.get(), options), "create zonemap on ts");
    Emit(BuildJson("lakeindex", "CreateIndex ts zonemap", clock, rss));
  }
  for (const QuerySpec& q : LoadQueries(a.queries)) {
    if (std::find(a.names.begin(), a.names.end(), q.name) == a.names.end()) continue;
    for (int r = 0; r < a.repeat; ++r) {
      for (bool with_index : {true, false}) {
        auto run_store = OpenStore(a.table);
        Stopwatch clock;
        auto t = CheckResult(table::Table::Open(run_store), "open table");
        std::vector<query::IndexHandle> indexes;
        if (with_index) indexes = CheckResult(query::OpenIndexes(*t, {"ts"}), "open indexes");
        query::ScanCounters k;
        uint64_t rows = ScanAll(*t, q.where, indexes, &k);
        json j = {{"bench", "zonemap"}, {"engine", "lakeindex"}, {"case", q.name},
                  {"way", with_index ? "zonemap index" : "no index"}, {"threads", 1}, {"wall_s", clock.wall()},
                  {"cpu_s", clock.cpu()}, {"rows_returned", rows}};
        j.update(ScanCountersJson(k, 1));
        j["bytes_read"] = run_store->counters().bytes_read.load();
        j["io_requests"] = run_store->counters().read_requests.load() + run_store->counters().list_requests.load();
        Emit(j);
      }
    }
  }
}

}  // namespace
}  // namespace lakeindex::bench

int main(int argc, char** argv) {
  using namespace lakeindex::bench;
  Args a = ParseArgs(argc, argv);
  g_latency_us = a.latency_us;
  if (a.command == "queries") WriteQueries(a);
  else if (a.command == "btree") RunBTree(a);
  else if (a.command == "build") RunBuild(a);
  else if (a.command == "rows") RunRows(a);
  else if (a.command == "lookups") RunLookups(a);
  else if (a.command == "rows-once") RunRowsOnce(a);
  else if (a.command == "zonemap") RunZoneMap(a);
  else Die(lakeindex::Status::InvalidArgument("unknown command " + a.command), "index_bench");
  return 0;
}
