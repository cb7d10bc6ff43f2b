#include "query/aggregate.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <tuple>

#include <gtest/gtest.h>

#include "format/parquet/writer.h"
#include "layout/otree/layout_writer.h"
#include "query/index_manager.h"
#include "query/order.h"
#include "query/scanner.h"
#include "table/batch_source.h"
#include "util/duckdb_ref.h"
#include "util/test_util.h"

namespace lakeindex::query {
namespace {

TEST(AggregateParseTest, ListsNamesAndErrors) {
  auto specs = ParseAggregates(" COUNT(*), sum( score ),avg(\"odd, name\"), count_distinct(c) ");
  ASSERT_TRUE(specs.ok()) << specs.status().ToString();
  ASSERT_EQ(specs->size(), 4u);
  EXPECT_EQ((*specs)[0].kind, AggKind::kCountStar);
  EXPECT_EQ((*specs)[0].name, "count(*)");
  EXPECT_EQ((*specs)[1].column, "score");
  EXPECT_EQ((*specs)[1].name, "sum(score)");
  EXPECT_EQ((*specs)[2].column, "odd, name");
  EXPECT_EQ((*specs)[3].kind, AggKind::kCountDistinct);
  for (const char* bad : {"", "count", "count(*", "sum(*)", "median(x)", "sum()", "count(*) count(*)", "count(*),"}) {
    auto r = ParseAggregates(bad);
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().parameter(), "aggregates") << r.status().ToString();
    EXPECT_EQ(r.status().message().find("at position "), 0u) << r.status().ToString();
  }
}

TEST(AggregateTest, EmptyInputTypesAndOverflow) {
  Schema schema({{"l", TypeId::kInt64, true}, {"s", TypeId::kString, true}});
  auto a = Aggregation::Make(schema, {}, *ParseAggregates("count(*), count(l), sum(l), avg(l), min(s), count_distinct(s)"));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  auto empty = (*a)->Finish();
  ASSERT_TRUE(empty.ok());
  ASSERT_EQ(empty->num_rows(), 1u);
  EXPECT_EQ(empty->column(0).GetValue(0), Value::Int64(0));
  EXPECT_EQ(empty->column(1).GetValue(0), Value::Int64(0));
  EXPECT_TRUE(empty->column(2).IsNull(0));
  EXPECT_TRUE(empty->column(3).IsNull(0));
  EXPECT_TRUE(empty->column(4).IsNull(0));
  EXPECT_EQ(empty->column(5).GetValue(0), Value::Int64(0));
  // Grouped, no rows: no groups.
  auto g = Aggregation::Make(schema, {"S"}, *ParseAggregates("count(*)"));
  ASSERT_TRUE(g.ok());
  EXPECT_EQ((*g)->Finish()->num_rows(), 0u);
  EXPECT_EQ((*g)->output_schema().field(0).name, "s") << "names resolve as filters do";
  // sum past int64 is an error, not a wrapped number; avg of the same is exact.
  Batch big(schema);
  for (int i = 0; i < 3; ++i) {
    big.mutable_column(0).Append<int64_t>(INT64_MAX - 1);
    big.mutable_column(1).AppendNull();
  }
  ASSERT_TRUE(big.Seal().ok());
  auto s = Aggregation::Make(schema, {}, *ParseAggregates("sum(l)"));
  ASSERT_TRUE((*s)->Add(big).ok());
  auto overflow = (*s)->Finish();
  ASSERT_FALSE(overflow.ok());
  EXPECT_NE(overflow.status().message().find("overflows int64"), std::string::npos);
  auto avg = Aggregation::Make(schema, {}, *ParseAggregates("avg(l)"));
  ASSERT_TRUE((*avg)->Add(big).ok());
  EXPECT_EQ((*avg)->Finish()->column(0).GetValue(0), Value::Double(double(INT64_MAX - 1)));
  // Refused: unknown columns, sums of strings.
  EXPECT_FALSE(Aggregation::Make(schema, {}, *ParseAggregates("sum(s)")).ok());
  EXPECT_FALSE(Aggregation::Make(schema, {"nope"}, *ParseAggregates("count(*)")).ok());
  EXPECT_FALSE(Aggregation::Make(schema, {}, *ParseAggregates("max(nope)")).ok());
}

// Random rows of every type, with a few group columns of few values, NULLs, NaN, ±inf, -0.0.
Batch RandomRows(uint64_t seed, size_t n) {
  Schema schema({{"g", TypeId::kInt32, true},   {"h", TypeId::kString, true}, {"b", TypeId::kBool, true},
                 {"i", TypeId::kInt32, true},   {"l", TypeId::kInt64, true},  {"f", TypeId::kFloat, true},
                 {"d", TypeId::kDouble, true},  {"s", TypeId::kString, true}, {"day", TypeId::kDate, true},
                 {"ts", TypeId::kTimestamp, true}});
  testing::Rng rng(seed);
  Batch random = testing::RandomBatch(Schema({schema.field(7), schema.field(8), schema.field(9), schema.field(2)}), n, seed, 0.15);
  Batch b(schema);
  for (size_t r = 0; r < n; ++r) {
    auto maybe_null = [&](Column& c) {
      if (rng.Chance(0.12)) {
        c.AppendNull();
        return true;
      }
      return false;
    };
    if (!maybe_null(b.mutable_column(0))) b.mutable_column(0).Append<int32_t>(int32_t(rng.Uniform(4)));
    if (!maybe_null(b.mutable_column(1))) (void)b.mutable_column(1).AppendString(rng.Chance(0.5) ? "x" : "yy");
    (void)b.mutable_column(2).AppendValue(random.column(3).GetValue(r));
    if (!maybe_null(b.mutable_column(3))) b.mutable_column(3).Append<int32_t>(int32_t(rng.Range(-100000, 100000)));
    if (!maybe_null(b.mutable_column(4))) b.mutable_column(4).Append<int64_t>(rng.Range(-1'000'000'000'000, 1'000'000'000'000));
    auto floating = [&]() -> double {
      const uint64_t k = rng.Uniform(100);
      if (k < 2) return std::nan("");
      if (k < 3) return rng.Chance(0.5) ? INFINITY : -INFINITY;
      if (k < 5) return -0.0;
      if (k < 7) return 0.0;
      return double(rng.Range(-1'000'000, 1'000'000)) / 64.0;
    };
    if (!maybe_null(b.mutable_column(5))) b.mutable_column(5).Append<float>(float(floating()));
    if (!maybe_null(b.mutable_column(6))) b.mutable_column(6).Append<double>(floating() * 1.1);
    for (size_t c = 7; c <= 9; ++c) (void)b.mutable_column(c).AppendValue(random.column(c - 7).GetValue(r));
  }
  EXPECT_TRUE(b.Seal().ok());
  return b;
}

bool Floating(const std::string& name) {
  return name.rfind("avg(", 0) == 0 || name == "sum(f)" || name == "sum(d)";
}

// Equal as DuckDB renders them; floating results of sums and averages to a relative 1e-9
// (compensated summation here, plain summation there).
bool CellsMatch(const std::string& name, const std::optional<std::string>& ours, const std::optional<std::string>& duck) {
  if (ours == duck) return true;
  if (!ours || !duck || !Floating(name)) return false;
  double a = 0, b = 0;
  if (!testing::ParseDuckDouble(*ours, &a) || !testing::ParseDuckDouble(*duck, &b)) return false;
  if (std::isnan(a) || std::isnan(b) || std::isinf(a) || std::isinf(b)) return (std::isnan(a) && std::isnan(b)) || a == b;
  return std::fabs(a - b) <= 1e-9 * std::max({1.0, std::fabs(a), std::fabs(b)});
}

TEST(AggregateDifferentialTest, RandomRowsGroupingsAndAggregatesMatchDuckDB) {
  if (!testing::DuckDBAvailable()) GTEST_FAIL() << testing::DuckDBMissingMessage();
  testing::TempDir dir;
  const std::string aggs =
      "count(*), count(b), count(s), min(b), max(b), min(i), max(i), sum(i), avg(i), avg(l), min(l), max(l), "
      "min(f), max(f), sum(f), avg(f), min(d), max(d), sum(d), avg(d), count_distinct(d), count_distinct(f), "
      "min(s), max(s), count_distinct(s), min(day), max(day), count_distinct(day), min(ts), max(ts), sum(l)";
  const std::string duck_aggs =
      "count(*), count(b), count(s), min(b), max(b), min(i), max(i), sum(i), avg(i), avg(l), min(l), max(l), "
      "min(f), max(f), sum(f), avg(f), min(d), max(d), sum(d), avg(d), count(DISTINCT d), count(DISTINCT f), "
      "min(s), max(s), count(DISTINCT s), min(day), max(day), count(DISTINCT day), min(ts), max(ts), sum(l)";
  const std::vector<std::vector<std::string>> groupings = {{}, {"g"}, {"g", "h"}, {"b"}, {"day"}};
  int compared = 0;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    const Batch rows = RandomRows(seed, 400 + 150 * seed);
    auto w = parquet::ParquetWriter::Make(rows.schema());
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->Write(rows).ok());
    const std::string path = dir.Join("r" + std::to_string(seed) + ".parquet");
    {
      std::ofstream(path, std::ios::binary) << *(*w)->Finish();
    }
    for (const auto& group_by : groupings) {
      SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(group_by.size()) + " group columns");
      auto a = Aggregation::Make(rows.schema(), group_by, *ParseAggregates(aggs));
      ASSERT_TRUE(a.ok()) << a.status().ToString();
      // Fed in uneven batches, as a scan gives them.
      for (size_t at = 0; at < rows.num_rows(); at += 97) {
        ASSERT_TRUE((*a)->Add(rows.Slice(at, std::min<size_t>(97, rows.num_rows() - at))).ok());
      }
      auto ours = (*a)->Finish();
      ASSERT_TRUE(ours.ok()) << ours.status().ToString();
      std::string keys;
      for (const std::string& g : group_by) keys += g + ", ";
      auto duck = testing::RunDuckDB("SELECT " + keys + duck_aggs + " FROM read_parquet(" + testing::SqlQuote(path) + ")" +
                                     (group_by.empty() ? "" : " GROUP BY ALL"));
      ASSERT_TRUE(duck.ok()) << duck.status().ToString();
      std::vector<testing::DuckRow> mine = testing::RenderBatchLikeDuckDB(*ours);
      std::vector<testing::DuckRow> theirs = duck->rows;
      auto by_key = [&](const testing::DuckRow& x, const testing::DuckRow& y) {
        for (size_t c = 0; c < group_by.size(); ++c) {
          if (x[c] != y[c]) return x[c] < y[c];
        }
        return false;
      };
      std::sort(mine.begin(), mine.end(), by_key);
      std::sort(theirs.begin(), theirs.end(), by_key);
      ASSERT_EQ(mine.size(), theirs.size());
      for (size_t r = 0; r < mine.size(); ++r) {
        for (size_t c = 0; c < mine[r].size(); ++c) {
          const std::string& name = ours->schema().field(c).name;
          EXPECT_TRUE(CellsMatch(name, mine[r][c], theirs[r][c]))
              << name << " row " << r << ": ours " << mine[r][c].value_or("NULL") << ", DuckDB " << theirs[r][c].value_or("NULL");
          ++compared;
        }
      }
    }
  }
  EXPECT_GT(compared, 1000);
}

// Every value of a one-row result as text; -0.0 as 0 (they are one value to aggregates).
std::string FormatAll(const Batch& batch) {
  std::string out;
  for (size_t c = 0; c < batch.num_columns(); ++c) {
    Value v = batch.column(c).GetValue(0);
    if (!v.is_null() && (v.type() == TypeId::kDouble || v.type() == TypeId::kFloat) && v.double_value() == 0) v = Value::Double(0);
    out += batch.schema().field(c).name + "=" + v.ToString() + " ";
  }
  return out;
}

Batch Selected(const Batch& batch, const std::vector<uint32_t>& rows) {
  Batch out(batch.schema());
  for (size_t c = 0; c < batch.num_columns(); ++c) out.mutable_column(c).AppendSelected(batch.column(c), rows.data(), rows.size());
  EXPECT_TRUE(out.Seal().ok());
  return out;
}

// count(*), count(c), min(c) and max(c) come from the manifest's statistics when they tell —
// no data file read — and equal the rows' own answer (NULL, NaN, ±inf and -0.0 among them);
// after a delete, or with a filter the statistics cannot settle, the rows are read.
TEST(AggregateTableTest, StatisticsAnswerWithoutReadingWhenTheyTell) {
  Schema random = testing::RandomSchema(0x5747, 8);
  std::vector<Field> fields = random.fields();
  fields.insert(fields.begin(), Field{"k", TypeId::kInt64, false});
  Schema schema(fields);
  Batch body = testing::RandomBatch(random, 1000, 0x5748, 0.2);
  Batch rows(schema);
  for (int64_t k = 0; k < 1000; ++k) ASSERT_TRUE(rows.mutable_column(0).AppendValue(Value::Int64(k)).ok());
  for (size_t c = 0; c < body.num_columns(); ++c) rows.mutable_column(c + 1) = body.column(c);
  ASSERT_TRUE(rows.Seal().ok());
  auto store = std::make_shared<InstrumentedStore>(NewMemoryStore());
  table::WriteConfig config;
  config.rows_per_file = 100;
  auto src = table::MemorySource(schema, {rows});
  auto created = table::Table::Create(store, src.get(), config);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  std::unique_ptr<table::Table> table = std::move(*created);

  std::string aggs = "count(*)";
  for (const Field& f : schema.fields()) aggs += ", count(" + f.name + "), min(" + f.name + "), max(" + f.name + ")";
  // The rows' own answer: every row of `where` (on k) through Aggregation.
  auto brute = [&](int64_t below) {
    auto all = table->ReadAll();
    EXPECT_TRUE(all.ok());
    std::vector<uint32_t> keep;
    for (size_t r = 0; r < all->num_rows(); ++r) {
      if (all->column(0).Get<int64_t>(r) < below) keep.push_back(uint32_t(r));
    }
    auto a = Aggregation::Make(schema, {}, *ParseAggregates(aggs));
    EXPECT_TRUE(a.ok());
    EXPECT_TRUE((*a)->Add(Selected(*all, keep)).ok());
    return FormatAll(*(*a)->Finish());
  };
  for (const auto& [where, below, from_stats] : std::vector<std::tuple<std::string, int64_t, bool>>{
           {"", 1000, true}, {"k < 200", 200, true}, {"k >= 0", 1000, true}, {"k < 250", 250, false}}) {
    SCOPED_TRACE("where '" + where + "'");
    AggregateRequest request;
    request.aggregates = aggs;
    request.where = where;
    store->counters().Reset();
    auto result = AggregateTable(*table, request);
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    const uint64_t requests = store->counters().read_requests.load();
    EXPECT_EQ(FormatAll(result->rows), brute(below));
    EXPECT_EQ(result->rows_read == 0, from_stats) << result->rows_read;
    if (from_stats) {
      EXPECT_EQ(requests, 0u);
    }
  }
  // count(*) of a NULL test: the NULL counts, with nothing read.
  for (size_t c = 1; c < schema.num_fields(); ++c) {
    for (const std::string test : {" IS NULL", " IS NOT NULL"}) {
      const std::string where = schema.field(c).name + test;
      size_t expected = 0;
      for (size_t r = 0; r < rows.num_rows(); ++r) expected += rows.column(c).IsNull(r) == (test == " IS NULL") ? 1 : 0;
      store->counters().Reset();
      auto n = CountWhere(*table, where);
      ASSERT_TRUE(n.ok()) << n.status().ToString();
      EXPECT_EQ(*n, expected) << where;
      EXPECT_EQ(store->counters().read_requests.load(), 0u) << where;
    }
  }
  // After a delete the statistics also count deleted rows: those fragments' rows are read.
  ASSERT_TRUE(DeleteWhere(table.get(), "k BETWEEN 300 AND 420 OR k < 5").ok());
  AggregateRequest request;
  request.aggregates = aggs;
  auto after = AggregateTable(*table, request);
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_GT(after->rows_read, 0u);
  EXPECT_EQ(FormatAll(after->rows), brute(1000));
  const std::string null_test = schema.field(1).name + " IS NULL";
  size_t expected = 0;
  for (size_t r = 0; r < rows.num_rows(); ++r) expected += rows.column(1).IsNull(r) && !(r >= 300 && r <= 420) && r >= 5 ? 1 : 0;
  auto n = CountWhere(*table, null_test);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, expected);
}

TEST(OrderTest, ParsesKeysAndNamesWhatItCannotRead) {
  auto keys = ParseOrderBy(" score DESC, \"odd, name\" asc,avg(score)");
  ASSERT_TRUE(keys.ok()) << keys.status().ToString();
  ASSERT_EQ(keys->size(), 3u);
  EXPECT_EQ((*keys)[0].column, "score");
  EXPECT_TRUE((*keys)[0].descending);
  EXPECT_EQ((*keys)[1].column, "odd, name");
  EXPECT_FALSE((*keys)[1].descending);
  EXPECT_EQ((*keys)[2].column, "avg(score)");
  for (const char* bad : {"", "a sideways", "a desc b", "a,", "\"open"}) {
    auto r = ParseOrderBy(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().parameter(), "order_by") << bad;
    EXPECT_EQ(r.status().message().find("at position"), 0u) << r.status().ToString();
  }
}

// ORDER BY [LIMIT] over a table of random rows of every type (NULL, NaN, ±inf, -0.0), with and
// without filters, through the scan and (one btree column, a limit, no filter) through the index,
// after a delete: the key columns in DuckDB's order.
TEST(OrderTest, RandomRowsOrderedAsDuckDBOrdersThem) {
  if (!testing::DuckDBAvailable()) GTEST_FAIL() << testing::DuckDBMissingMessage();
  testing::TempDir dir;
  int compared = 0, from_index = 0;
  for (uint64_t seed = 1; seed <= 2; ++seed) {
    Batch rows = RandomRows(seed + 10, 900);
    table::WriteConfig config;
    config.rows_per_file = 250;
    auto src = table::MemorySource(rows.schema(), {rows});
    auto created = table::Table::Create(NewMemoryStore(), src.get(), config);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    std::unique_ptr<table::Table> table = std::move(*created);
    for (const char* column : {"l", "s", "d"}) {
      IndexOptions options;
      options.column = column;
      options.type = "btree";
      options.params["page_rows"] = 16;
      ASSERT_TRUE(CreateIndex(table.get(), options).ok());
    }
    ASSERT_TRUE(DeleteWhere(table.get(), "i < -50000").ok());
    // The live rows, as DuckDB's input.
    auto live = table->ReadAll();
    ASSERT_TRUE(live.ok());
    const std::string path = dir.Join("o" + std::to_string(seed) + ".parquet");
    {
      auto w = parquet::ParquetWriter::Make(live->schema());
      ASSERT_TRUE(w.ok());
      ASSERT_TRUE((*w)->Write(*live).ok());
      std::ofstream(path, std::ios::binary) << *(*w)->Finish();
    }
    auto indexes = OpenIndexes(*table, {});
    ASSERT_TRUE(indexes.ok());
    // Every case's rows from one DuckDB run: each case numbered q, its rows numbered n in its
    // order (row_number over the ORDER BY, QUALIFY for the limit), the cases joined BY NAME.
    struct Case {
      std::string order, where;
      std::optional<uint64_t> limit;
      std::vector<std::string> keys;
      Batch ours;
    };
    std::vector<Case> cases;
    std::string sql;
    for (const std::string order : {"l", "l desc", "d", "d desc", "f desc, i", "s desc, l", "day, ts desc", "b desc, h, l", "s"}) {
      for (const std::string where : {"", "i > 0", "d IS NOT NULL AND g = 1"}) {
        for (const std::optional<uint64_t> limit : {std::optional<uint64_t>(), std::optional<uint64_t>(1),
                                                    std::optional<uint64_t>(9), std::optional<uint64_t>(200)}) {
          Case c{order, where, limit, {}, {}};
          auto parsed = ParseOrderBy(order);
          ASSERT_TRUE(parsed.ok());
          for (const OrderKey& k : *parsed) c.keys.push_back(k.column);
          OrderedQuery query{where, c.keys, order, limit, std::nullopt, *indexes};
          auto ours = QueryOrdered(*table, query);
          ASSERT_TRUE(ours.ok()) << ours.status().ToString();
          from_index += ours->from_index ? 1 : 0;
          c.ours = std::move(ours->rows);
          std::string keys;
          for (const std::string& k : c.keys) keys += ", " + k;
          sql += std::string(sql.empty() ? "" : " UNION ALL BY NAME ") + "(SELECT " + std::to_string(cases.size()) +
                 " AS q, row_number() OVER (ORDER BY " + order + ") AS n" + keys + " FROM read_parquet(" +
                 testing::SqlQuote(path) + ")" + (where.empty() ? "" : " WHERE " + where) +
                 (limit ? " QUALIFY n <= " + std::to_string(*limit) : "") + ")";
          cases.push_back(std::move(c));
        }
      }
    }
    auto duck = testing::RunDuckDB("SELECT * FROM (" + sql + ") ORDER BY q, n");
    ASSERT_TRUE(duck.ok()) << duck.status().ToString();
    auto zero = [](std::optional<std::string> v) {  // -0.0 and 0.0 are one key
      if (v && (*v == "-0.0" || *v == "-0")) v = v->substr(1);
      return v;
    };
    size_t at = 0;  // DuckDB's next row
    for (size_t q = 0; q < cases.size(); ++q) {
      const Case& c = cases[q];
      SCOPED_TRACE("ORDER BY " + c.order + " WHERE '" + c.where + "' LIMIT " + (c.limit ? std::to_string(*c.limit) : "-"));
      std::vector<testing::DuckRow> mine = testing::RenderBatchLikeDuckDB(c.ours);
      for (size_t r = 0; r < mine.size(); ++r, ++at) {
        ASSERT_LT(at, duck->rows.size());
        ASSERT_EQ(duck->rows[at][0], std::to_string(q)) << "row " << r << ": DuckDB has fewer rows";
        for (size_t k = 0; k < c.keys.size(); ++k) {
          const size_t dc = size_t(std::find(duck->columns.begin(), duck->columns.end(), c.keys[k]) - duck->columns.begin());
          ASSERT_LT(dc, duck->columns.size());
          ASSERT_EQ(zero(mine[r][k]), zero(duck->rows[at][dc])) << "row " << r << " key " << c.keys[k];
          ++compared;
        }
      }
      ASSERT_TRUE(at == duck->rows.size() || duck->rows[at][0] != std::to_string(q)) << "DuckDB has more rows";
    }
  }
  EXPECT_GT(compared, 10000);
  EXPECT_GE(from_index, 2 * 4);  // "l", "l desc", "d", "d desc" with a limit and no filter, per seed... at least these
}

// The first rows of a btree column come from the index: few leaf pages, only those rows taken.
TEST(OrderTest, LimitOnABTreeColumnReadsItsFirstLeafPagesAndThoseRows) {
  Schema schema = Schema::Parse("k:int64,v:string").value();
  Batch rows(schema);
  testing::Rng rng(5);
  for (int i = 0; i < 20000; ++i) {
    ASSERT_TRUE(rows.mutable_column(0).AppendValue(Value::Int64(int64_t(rng.Uniform(1000000)))).ok());
    ASSERT_TRUE(rows.mutable_column(1).AppendValue(Value::String("v" + std::to_string(i))).ok());
  }
  ASSERT_TRUE(rows.Seal().ok());
  table::WriteConfig config;
  config.rows_per_file = 5000;
  auto src = table::MemorySource(schema, {rows});
  auto table = table::Table::Create(NewMemoryStore(), src.get(), config);
  ASSERT_TRUE(table.ok());
  IndexOptions options;
  options.column = "k";
  options.type = "btree";
  options.params["page_rows"] = 256;
  ASSERT_TRUE(CreateIndex(table->get(), options).ok());
  auto indexes = OpenIndexes(**table, {});
  ASSERT_TRUE(indexes.ok());
  OrderedQuery query{"", {}, "k desc", 10, std::nullopt, *indexes};
  auto top = QueryOrdered(**table, query);
  ASSERT_TRUE(top.ok()) << top.status().ToString();
  EXPECT_TRUE(top->from_index);
  EXPECT_EQ(top->index.pages_read, 1u);  // 10 rows of a 256-row page
  EXPECT_LE(top->rows_read, 10u * 4);    // the pages of 10 rows, not the table
  ASSERT_EQ(top->rows.num_rows(), 10u);
  std::vector<int64_t> all(rows.column(0).data<int64_t>(), rows.column(0).data<int64_t>() + rows.num_rows());
  std::sort(all.rbegin(), all.rend());
  for (size_t r = 0; r < 10; ++r) EXPECT_EQ(top->rows.column(0).Get<int64_t>(r), all[r]);
  EXPECT_EQ(top->rows.schema().ToString(), schema.ToString());  // every visible column
}

// AggregateTable over tables as they are used: appended to, rows deleted, a btree and a zone map,
// laid out plain, as an OTree and in Z-order; filters the indexes answer and residual ones;
// groupings; the statistics path (count / min / max) too. Against DuckDB over the live rows.
TEST(AggregateTableTest, TablesWithAppendsDeletesIndexesAndLayoutsMatchDuckDB) {
  if (!testing::DuckDBAvailable()) GTEST_FAIL() << testing::DuckDBMissingMessage();
  testing::TempDir dir;
  const std::vector<std::pair<std::string, std::string>> agg_sets = {
      {"count(*), count(s), min(b), max(i), sum(l), avg(l), min(f), max(d), sum(d), avg(i), count_distinct(s), min(day), max(ts)",
       "count(*), count(s), min(b), max(i), sum(l), avg(l), min(f), max(d), sum(d), avg(i), count(DISTINCT s), min(day), max(ts)"},
      {"count(*), count(d), min(l), max(s), min(d), max(f)", "count(*), count(d), min(l), max(s), min(d), max(f)"}};
  const std::vector<std::vector<std::string>> groupings = {{}, {"g"}, {"h", "b"}};
  const std::vector<std::string> filters = {"", "l > 0", "d BETWEEN -100 AND 100", "s IS NULL OR i > 0",
                                            "l BETWEEN -1000000000 AND 0", "g = 2"};
  size_t compared = 0;
  for (int variant = 0; variant < 3; ++variant) {
    SCOPED_TRACE("variant " + std::to_string(variant));
    const Batch rows = RandomRows(100 + uint64_t(variant), 1200);
    table::WriteConfig config;
    config.rows_per_file = 300;
    auto src = table::MemorySource(rows.schema(), {rows.Slice(0, 900)});
    auto created = table::Table::Create(NewMemoryStore(), src.get(), config);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    std::unique_ptr<table::Table> table = std::move(*created);
    for (const auto& [column, type] : std::vector<std::pair<std::string, std::string>>{{"l", "btree"}, {"d", "zonemap"}}) {
      IndexOptions options;
      options.column = column;
      options.type = type;
      options.params = options.type == "btree" ? nlohmann::json{{"page_rows", 32}} : nlohmann::json{{"zone_rows", 50}};
      ASSERT_TRUE(CreateIndex(table.get(), options).ok());
    }
    auto more = table::MemorySource(rows.schema(), {rows.Slice(900, 300)});
    ASSERT_TRUE(table->Append(more.get(), config).ok());
    ASSERT_TRUE(UpdateIndexes(table.get(), "").ok());
    ASSERT_TRUE(DeleteWhere(table.get(), "i < -60000").ok());
    if (variant > 0) {
      layout::LayoutOptions options;
      options.kind = variant == 1 ? "otree" : "zorder";
      options.columns = variant == 1 ? std::vector<std::string>{"l", "d"} : std::vector<std::string>{"i", "day"};
      options.cube_rows = 100;
      options.write = config;
      auto laid = layout::LayoutTable(table.get(), options);
      ASSERT_TRUE(laid.ok()) << laid.status().ToString();
      ASSERT_TRUE(UpdateIndexes(table.get(), "").ok());
    }
    auto live = table->ReadAll();
    ASSERT_TRUE(live.ok());
    const std::string path = dir.Join("t" + std::to_string(variant) + ".parquet");
    {
      std::vector<int> visible;
      for (size_t c = 0; c < rows.schema().num_fields(); ++c) visible.push_back(live->schema().FindField(rows.schema().field(c).name));
      Batch user(rows.schema());
      for (size_t c = 0; c < visible.size(); ++c) user.mutable_column(c) = live->column(size_t(visible[c]));
      ASSERT_TRUE(user.Seal().ok());
      auto w = parquet::ParquetWriter::Make(user.schema());
      ASSERT_TRUE(w.ok());
      ASSERT_TRUE((*w)->Write(user).ok());
      std::ofstream(path, std::ios::binary) << *(*w)->Finish();
    }
    auto indexes = OpenIndexes(*table, {});
    ASSERT_TRUE(indexes.ok());
    // Every case in one DuckDB run: numbered q, joined BY NAME.
    struct Case {
      size_t aggs;
      std::vector<std::string> group_by;
      std::string where;
      Batch ours;
    };
    std::vector<Case> cases;
    std::string sql;
    for (size_t a = 0; a < agg_sets.size(); ++a) {
      for (const auto& group_by : groupings) {
        for (const std::string& where : filters) {
          AggregateRequest request;
          request.aggregates = agg_sets[a].first;
          request.group_by = group_by;
          request.where = where;
          request.indexes = *indexes;
          auto ours = AggregateTable(*table, request);
          ASSERT_TRUE(ours.ok()) << where << ": " << ours.status().ToString();
          std::string keys;
          for (const std::string& g : group_by) keys += g + ", ";
          // DuckDB names its columns as written; ours are named as written too, except
          // count_distinct: select ours' names through aliases.
          std::string duck_aggs;
          const Schema& out = ours->rows.schema();
          size_t k = group_by.size();
          std::string rest = agg_sets[a].second;
          size_t at = 0;
          while (at < rest.size()) {
            size_t comma = rest.find("), ", at);
            std::string expr = rest.substr(at, comma == std::string::npos ? std::string::npos : comma + 1 - at);
            duck_aggs += (duck_aggs.empty() ? "" : ", ") + expr + " AS \"" + out.field(k++).name + "\"";
            if (comma == std::string::npos) break;
            at = comma + 3;
          }
          sql += std::string(sql.empty() ? "" : " UNION ALL BY NAME ") + "(SELECT " + std::to_string(cases.size()) +
                 " AS q, " + keys + duck_aggs + " FROM read_parquet(" + testing::SqlQuote(path) + ")" +
                 (where.empty() ? "" : " WHERE " + where) + (group_by.empty() ? "" : " GROUP BY ALL") + ")";
          cases.push_back({a, group_by, where, std::move(ours->rows)});
        }
      }
    }
    auto duck = testing::RunDuckDB("SELECT * FROM (" + sql + ") ORDER BY q");
    ASSERT_TRUE(duck.ok()) << duck.status().ToString();
    auto column_of = [&](const std::string& name) {
      return size_t(std::find(duck->columns.begin(), duck->columns.end(), name) - duck->columns.begin());
    };
    size_t at = 0;
    for (size_t q = 0; q < cases.size(); ++q) {
      const Case& c = cases[q];
      SCOPED_TRACE("aggregates " + std::to_string(c.aggs) + ", " + std::to_string(c.group_by.size()) +
                   " group columns, where '" + c.where + "'");
      std::vector<testing::DuckRow> mine = testing::RenderBatchLikeDuckDB(c.ours);
      std::vector<testing::DuckRow> theirs;
      for (; at < duck->rows.size() && duck->rows[at][0] == std::to_string(q); ++at) {
        testing::DuckRow row;
        for (size_t col = 0; col < c.ours.num_columns(); ++col) {
          const size_t dc = column_of(c.ours.schema().field(col).name);
          ASSERT_LT(dc, duck->columns.size()) << c.ours.schema().field(col).name;
          row.push_back(duck->rows[at][dc]);
        }
        theirs.push_back(std::move(row));
      }
      auto by_key = [&](const testing::DuckRow& x, const testing::DuckRow& y) {
        for (size_t k = 0; k < c.group_by.size(); ++k) {
          if (x[k] != y[k]) return x[k] < y[k];
        }
        return false;
      };
      std::sort(mine.begin(), mine.end(), by_key);
      std::sort(theirs.begin(), theirs.end(), by_key);
      ASSERT_EQ(mine.size(), theirs.size());
      for (size_t r = 0; r < mine.size(); ++r) {
        for (size_t col = 0; col < mine[r].size(); ++col) {
          const std::string& name = c.ours.schema().field(col).name;
          EXPECT_TRUE(CellsMatch(name, mine[r][col], theirs[r][col]))
              << name << " row " << r << ": ours " << mine[r][col].value_or("NULL") << ", DuckDB " << theirs[r][col].value_or("NULL");
          ++compared;
        }
      }
    }
  }
  EXPECT_GT(compared, 3000u);
}

}  // namespace
}  // namespace lakeindex::query
