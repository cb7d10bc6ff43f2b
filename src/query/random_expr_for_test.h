// Random batches and random WHERE expressions over them, shared by the differential (DuckDB)
// and pruning (brute force) tests. Value domains are small so that equalities hit often, and
// hostile: NaN, +-inf, -0.0, integer extremes, multibyte and LIKE-wildcard strings, ~10% NULLs.
// Header-only test helper; not part of the library.
#pragma once

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "lakeindex/batch.h"
#include "query/expr.h"
#include "query/scanner.h"
#include "util/duckdb_ref.h"
#include "util/test_util.h"

namespace lakeindex::query::testgen {

using lakeindex::testing::Rng;

inline constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();

inline const char* kSchema =
    "i64:int64,i32:int32,dbl:double,dbl2:double,s:string,s2:string,d:date,ts:timestamp,b:bool,b2:bool,"
    "m1:decimal(10,2),m2:decimal(4,1)";

inline const std::vector<Value>& Domain(TypeId t) {
  static const std::map<TypeId, std::vector<Value>> domains = [] {
    std::map<TypeId, std::vector<Value>> m;
    for (int64_t i = -3; i <= 3; ++i) m[TypeId::kInt64].push_back(Value::Int64(i));
    m[TypeId::kInt64].push_back(Value::Int64(INT64_MIN));
    m[TypeId::kInt64].push_back(Value::Int64(INT64_MAX));
    for (int32_t i = -3; i <= 3; ++i) m[TypeId::kInt32].push_back(Value::Int32(i));
    m[TypeId::kInt32].push_back(Value::Int32(INT32_MIN));
    m[TypeId::kInt32].push_back(Value::Int32(INT32_MAX));
    for (double d : {-2.5, -1.0, -0.0, 0.0, 0.5, 1.0, 3.0, kNan, kInf, -kInf, 1e300}) {
      m[TypeId::kDouble].push_back(Value::Double(d));
    }
    for (const char* s : {"", "a", "ab", "abc", "b", "B", "é", "aé", "aéb", "a%b", "a_b", "%", "_", "ab c", "日本",
                          "a\\b", "😀x"}) {
      m[TypeId::kString].push_back(Value::String(s));
    }
    for (const char* d : {"2024-01-01", "2024-01-02", "2024-01-03", "1970-01-01", "2000-02-29", "1969-12-31"}) {
      m[TypeId::kDate].push_back(Value::Date(ParseDate(d).value()));
    }
    for (const char* t : {"2024-01-01", "2024-01-01 12:00:00", "2024-01-02", "2024-01-02 00:00:00.000001",
                          "1970-01-01", "1969-12-31 23:59:59.5"}) {
      m[TypeId::kTimestamp].push_back(Value::Timestamp(ParseTimestamp(t).value()));
    }
    m[TypeId::kBool] = {Value::Bool(false), Value::Bool(true)};
    for (int64_t x : std::initializer_list<int64_t>{-250, -100, 0, 5, 10, 50, 100, 250, 300, 9999999999, -9999999999}) {
      m[DecimalType(10, 2)].push_back(Value::Decimal(DecimalType(10, 2), x));
    }
    for (int64_t x : {-25, -10, 0, 1, 5, 10, 25, 30, 9999, -9999}) m[DecimalType(4, 1)].push_back(Value::Decimal(DecimalType(4, 1), x));
    return m;
  }();
  return domains.at(t);
}

inline Batch RandomBatch(const Schema& schema, size_t rows, Rng& rng) {
  Batch batch(schema);
  for (size_t c = 0; c < schema.num_fields(); ++c) {
    const auto& dom = Domain(schema.field(c).type);
    for (size_t r = 0; r < rows; ++r) {
      Value v = rng.Chance(0.1) ? Value::Null(schema.field(c).type) : dom[rng.Uniform(dom.size())];
      EXPECT_TRUE(batch.mutable_column(c).AppendValue(v).ok());
    }
  }
  EXPECT_TRUE(batch.Seal().ok());
  return batch;
}

class ExprGen {
 public:
  ExprGen(const Schema& schema, Rng& rng) : schema_(schema), rng_(rng) {}

  std::string Gen(int depth) {
    if (depth == 0 || rng_.Chance(0.35)) return Predicate();
    switch (rng_.Uniform(3)) {
      case 0: return "(" + Gen(depth - 1) + " AND " + Gen(depth - 1) + ")";
      case 1: return "(" + Gen(depth - 1) + " OR " + Gen(depth - 1) + ")";
      default: return "NOT " + Gen(depth - 1);
    }
  }

 private:
  const Field& RandomField() { return schema_.field(rng_.Uniform(schema_.num_fields())); }

  // A literal comparable with a column of type t (sometimes of the other numeric/temporal type).
  std::string Literal(TypeId t) {
    if (rng_.Chance(0.05)) return "NULL";
    switch (t) {
      case TypeId::kInt32:
      case TypeId::kInt64:
      case TypeId::kDouble: {
        switch (rng_.Uniform(4)) {
          case 0: return std::to_string(rng_.Range(-4, 4));
          case 1: {
            static const char* kDoubles[] = {"2.5", "-0.5", "0.0", "-0.0", "1e999", "-1e999", "1e300", "3.0",
                                             "-2.5", "0.5e1", "2147483647", "-2147483648",
                                             "9223372036854775807", "-9223372036854775808"};
            return kDoubles[rng_.Uniform(std::size(kDoubles))];
          }
          default: {
            Value v = Domain(t == TypeId::kDouble ? TypeId::kDouble : TypeId::kInt64)[rng_.Uniform(7)];
            return MakeLiteral(v)->ToString();
          }
        }
      }
      case TypeId::kString: {
        const auto& dom = Domain(TypeId::kString);
        return MakeLiteral(dom[rng_.Uniform(dom.size())])->ToString();
      }
      case TypeId::kDate:
      case TypeId::kTimestamp: {
        switch (rng_.Uniform(3)) {
          case 0: return MakeLiteral(Domain(TypeId::kDate)[rng_.Uniform(6)])->ToString();
          case 1: return MakeLiteral(Domain(TypeId::kTimestamp)[rng_.Uniform(6)])->ToString();
          default: {
            static const char* kText[] = {"'2024-01-01'", "'2024-01-02'", "'2024-01-01 12:00:00'", "'1970-01-01'"};
            return kText[rng_.Uniform(std::size(kText))];
          }
        }
      }
      case TypeId::kBool: return rng_.Chance(0.5) ? "TRUE" : "FALSE";
      default: break;
    }
    // (Not int64 extremes: DuckDB cannot cast them to the DECIMAL(38,21) a 22-digit literal makes.)
    if (IsDecimal(t)) {  // exact decimals, more digits than the scale, integers, doubles
      static const char* kNumbers[] = {"2.5", "2.50", "0.05", "0.125", "-0.5", "3.0", "0.1", "-2.499999999999999999999",
                                       "2.500000000000000000001", "1e-1", "2.5e0", "999.9", "-999.95", "99999999.99",
                                       "1e999", "-1e999", "0.0", "-0.0", "100", "-3", "99999999999", "25"};
      if (rng_.Chance(0.7)) return kNumbers[rng_.Uniform(std::size(kNumbers))];
      const auto& dom = Domain(t);
      return MakeLiteral(dom[rng_.Uniform(dom.size())])->ToString();
    }
    return "NULL";
  }

  // A column of the same comparison family as `f`, or "" if none.
  std::string PartnerColumn(const Field& f) {
    static const std::map<std::string, std::vector<std::string>> partners = {
        {"i64", {"i32", "dbl", "m1"}}, {"i32", {"i64", "dbl", "dbl2"}}, {"dbl", {"dbl2", "i32", "i64", "m2"}},
        {"dbl2", {"dbl", "i32"}}, {"s", {"s2"}}, {"s2", {"s"}}, {"d", {"ts"}}, {"ts", {"d"}},
        {"b", {"b2"}}, {"b2", {"b"}}, {"m1", {"m2", "i64", "dbl", "i32"}}, {"m2", {"m1", "i32", "dbl2"}}};
    const auto& p = partners.at(f.name);
    return p[rng_.Uniform(p.size())];
  }

  std::string LikePattern(bool* uses_escape) {
    static const char* kPieces[] = {"a", "b", "%", "_", "é", "\\%", "\\_", "日", " ", "c"};
    std::string p;
    *uses_escape = false;
    for (uint64_t k = 1 + rng_.Uniform(4); k > 0; --k) {
      std::string piece = kPieces[rng_.Uniform(std::size(kPieces))];
      if (piece[0] == '\\') *uses_escape = true;
      p += piece;
    }
    return p;
  }

  std::string Predicate() {
    const Field& f = RandomField();
    const std::string& c = f.name;
    switch (rng_.Uniform(10)) {
      case 0:
      case 1: {
        static const char* kOps[] = {"=", "<>", "!=", "<", "<=", ">", ">="};
        std::string op = kOps[rng_.Uniform(std::size(kOps))];
        if (f.type == TypeId::kDate || f.type == TypeId::kTimestamp || rng_.Chance(0.8)) {
          return rng_.Chance(0.8) ? c + " " + op + " " + Literal(f.type) : Literal(f.type) + " " + op + " " + c;
        }
        return c + " " + op + " " + Literal(f.type);
      }
      case 2: {
        static const char* kOps[] = {"=", "<>", "<", "<=", ">", ">="};
        return c + " " + kOps[rng_.Uniform(std::size(kOps))] + " " + PartnerColumn(f);
      }
      case 3:
        return c + (rng_.Chance(0.3) ? " NOT" : "") + " BETWEEN " + Literal(f.type) + " AND " + Literal(f.type);
      case 4: {
        std::string items;
        for (uint64_t k = 1 + rng_.Uniform(4); k > 0; --k) items += (items.empty() ? "" : ", ") + Literal(f.type);
        return c + (rng_.Chance(0.3) ? " NOT IN (" : " IN (") + items + ")";
      }
      case 5: return c + (rng_.Chance(0.5) ? " IS NULL" : " IS NOT NULL");
      case 6:
      case 7: {
        bool esc = false;
        std::string pattern = LikePattern(&esc);
        std::string col = rng_.Chance(0.5) ? "s" : "s2";
        return col + (rng_.Chance(0.3) ? " NOT LIKE " : " LIKE ") + MakeLiteral(Value::String(pattern))->ToString() +
               (esc ? " ESCAPE '\\'" : "");
      }
      case 8: return rng_.Chance(0.5) ? "b" : (rng_.Chance(0.5) ? "b2" : (rng_.Chance(0.5) ? "TRUE" : "FALSE"));
      default: {
        // Column vs column BETWEEN.
        return c + " BETWEEN " + PartnerColumn(f) + " AND " + Literal(f.type);
      }
    }
  }

  const Schema& schema_;
  Rng& rng_;
};

// `batch` with a leading "rid" column numbering its rows from `first`.
inline Batch WithRid(const Batch& batch, int64_t first) {
  Schema schema;
  schema.AddField({"rid", TypeId::kInt64, false});
  for (const Field& f : batch.schema().fields()) schema.AddField(f);
  Batch out(schema);
  for (size_t r = 0; r < batch.num_rows(); ++r) out.mutable_column(0).Append<int64_t>(first + int64_t(r));
  for (size_t c = 0; c < batch.num_columns(); ++c) out.mutable_column(c + 1).AppendSlice(batch.column(c), 0, batch.num_rows());
  EXPECT_TRUE(out.Seal().ok());
  return out;
}

// Rids (column "rid") of the rows the Scanner returns for `where` (and `sample`), sorted; adds the
// scan's counters to *total.
inline std::vector<uint32_t> ScanRids(const table::Table& table, const std::string& where, ScanCounters* total,
                                      const std::vector<IndexHandle>& indexes = {},
                                      std::optional<double> sample = std::nullopt) {
  ScanRequest request;
  request.sample = sample;
  request.where = where;
  request.indexes = indexes;
  request.select = {"rid"};
  auto scanner = Scanner::Make(&table, request);
  EXPECT_TRUE(scanner.ok()) << where << ": " << scanner.status().ToString();
  std::vector<uint32_t> rids;
  if (!scanner.ok()) return rids;
  Batch batch;
  while (true) {
    auto more = (*scanner)->Next(&batch);
    EXPECT_TRUE(more.ok()) << where << ": " << more.status().ToString();
    if (!more.ok() || !*more) break;
    for (size_t r = 0; r < batch.num_rows(); ++r) rids.push_back(uint32_t(batch.column(0).Get<int64_t>(r)));
  }
  std::sort(rids.begin(), rids.end());
  const ScanCounters& c = (*scanner)->counters();
  total->fragments_total += c.fragments_total;
  total->fragments_scanned += c.fragments_scanned;
  total->blocks_total += c.blocks_total;
  total->blocks_read += c.blocks_read;
  total->rows_read += c.rows_read;
  total->rows_returned += c.rows_returned;
  return rids;
}

// ---- DuckDB side of the differential tests ----

// Rows of `list` rendered by DuckDB, e.g. "[0, 5, 7]".
inline std::vector<uint32_t> ParseRidList(const std::string& text) {
  std::vector<uint32_t> out;
  uint64_t cur = 0;
  bool in_num = false;
  for (char ch : text) {
    if (ch >= '0' && ch <= '9') {
      cur = cur * 10 + uint64_t(ch - '0');
      in_num = true;
    } else if (in_num) {
      out.push_back(uint32_t(cur));
      cur = 0;
      in_num = false;
    }
  }
  if (in_num) out.push_back(uint32_t(cur));
  return out;
}

inline std::string CreateTableSql(const Batch& batch) {
  std::string sql = "CREATE TABLE t(rid INTEGER";
  for (const Field& f : batch.schema().fields()) sql += ", " + f.name + " " + lakeindex::testing::DuckTypeName(f.type);
  sql += "); INSERT INTO t VALUES ";
  for (size_t r = 0; r < batch.num_rows(); ++r) {
    sql += r ? ",(" : "(";
    sql += std::to_string(r);
    for (size_t c = 0; c < batch.num_columns(); ++c) {
      sql += ", " + lakeindex::testing::SqlLiteral(batch.column(c).GetValue(r));
    }
    sql += ")";
  }
  return sql + ";\n";
}

// DuckDB's answers for exprs[i], i in `ids`; bisects on a rejected expression. Returns false
// (and records a failure) when DuckDB rejects an expression that we accept.
inline void RunOnDuckDB(const std::string& create, const std::vector<std::string>& exprs, const std::vector<size_t>& ids,
                 std::map<size_t, std::vector<uint32_t>>* answers, std::vector<std::string>* rejected) {
  std::string sql = create + "SELECT k, list(rid ORDER BY rid) FROM (";
  for (size_t j = 0; j < ids.size(); ++j) {
    if (j) sql += " UNION ALL ";
    sql += "SELECT " + std::to_string(ids[j]) + " AS k, rid FROM t WHERE " + exprs[ids[j]];
  }
  sql += ") GROUP BY k";
  auto result = lakeindex::testing::RunDuckDB(sql);
  if (!result.ok()) {
    ASSERT_TRUE(result.status().IsInvalidArgument()) << result.status().ToString();
    if (ids.size() == 1) {
      rejected->push_back(exprs[ids[0]] + "  -- " + result.status().message());
      return;
    }
    std::vector<size_t> left(ids.begin(), ids.begin() + ids.size() / 2), right(ids.begin() + ids.size() / 2, ids.end());
    RunOnDuckDB(create, exprs, left, answers, rejected);
    RunOnDuckDB(create, exprs, right, answers, rejected);
    return;
  }
  for (size_t id : ids) (*answers)[id] = {};
  for (const auto& row : result->rows) {
    ASSERT_EQ(row.size(), 2u);
    ASSERT_TRUE(row[0].has_value() && row[1].has_value());
    (*answers)[std::stoull(*row[0])] = ParseRidList(*row[1]);
  }
}

// DuckDB's answers for every expression of `exprs` on the table `create` makes, asked `batch` at
// a time; an expression DuckDB rejects (and we accepted) is a test failure.
inline std::map<size_t, std::vector<uint32_t>> DuckDBAnswers(const std::string& create,
                                                             const std::vector<std::string>& exprs,
                                                             size_t batch = 350) {
  std::map<size_t, std::vector<uint32_t>> answers;
  std::vector<std::string> rejected;
  for (size_t start = 0; start < exprs.size(); start += batch) {
    std::vector<size_t> ids;
    for (size_t i = start; i < std::min(exprs.size(), start + batch); ++i) ids.push_back(i);
    RunOnDuckDB(create, exprs, ids, &answers, &rejected);
  }
  for (const auto& r : rejected) ADD_FAILURE() << "DuckDB rejects what we accept: " << r;
  return answers;
}

}  // namespace lakeindex::query::testgen
