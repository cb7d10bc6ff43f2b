#include "query/page_pruning.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <set>

#include "query/binder.h"
#include "query/evaluator.h"
#include "query/parser.h"
#include "query/pruning.h"

namespace lakeindex::query {
namespace {

constexpr int kPageRows = 8;

struct Chunk {
  Batch rows;  // columns x, y; pages of kPageRows rows
  parquet::PageIndex index;
  bool nan_known = true;
};

// Random pages of column `x` (double or int64: values in a small range, NULLs, NaN, -0.0, pages
// all NULL, pages without statistics) with their statistics, as a Parquet page index holds them.
Chunk RandomChunk(std::mt19937_64& rng, TypeId type, int pages) {
  const Schema schema({Field{"x", type, true}, Field{"y", TypeId::kInt64, true}});
  Column x(type), y(TypeId::kInt64);
  Chunk chunk;
  chunk.index.has_statistics = true;
  for (int p = 0; p < pages; ++p) {
    parquet::PageIndexEntry entry;
    entry.first_row_index = int64_t(p) * kPageRows;
    entry.num_rows = kPageRows;
    parquet::PageStatistics stats;
    const int shape = int(rng() % 6);  // 0: all NULL
    int64_t nulls = 0;
    std::optional<double> lo, hi;
    for (int r = 0; r < kPageRows; ++r) {
      y.Append<int64_t>(int64_t(rng() % 10));
      if (shape == 0 || rng() % 5 == 0) {
        x.AppendNull();
        ++nulls;
        continue;
      }
      double v = double(int64_t(rng() % 41) - 20);
      if (type == TypeId::kDouble) {
        if (rng() % 17 == 0) v = std::numeric_limits<double>::quiet_NaN();
        if (v == 0 && rng() % 2) v = -0.0;
        if (rng() % 3 == 0) v += 0.5;
        x.Append<double>(v);
      } else {
        x.Append<int64_t>(int64_t(v));
      }
      if (std::isnan(v)) {
        chunk.nan_known = false;
        continue;
      }
      lo = lo ? std::min(*lo, v) : v;
      hi = hi ? std::max(*hi, v) : v;
    }
    if (rng() % 9 != 0) {  // else: no statistics
      stats.null_count = nulls;
      stats.null_page = nulls == kPageRows;
      if (lo) {
        stats.min = type == TypeId::kDouble ? Value::Double(*lo) : Value::Int64(int64_t(*lo));
        stats.max = type == TypeId::kDouble ? Value::Double(*hi) : Value::Int64(int64_t(*hi));
      }
    }
    chunk.index.pages.push_back(entry);
    chunk.index.stats.push_back(stats);
  }
  std::vector<Column> cols;
  cols.push_back(std::move(x));
  cols.push_back(std::move(y));
  chunk.rows = Batch(schema, std::move(cols), size_t(pages) * kPageRows);
  return chunk;
}

std::string Literal(std::mt19937_64& rng, TypeId type) {
  const int64_t v = int64_t(rng() % 49) - 24;
  return type == TypeId::kDouble && rng() % 2 ? std::to_string(v) + ".5" : std::to_string(v);
}

std::string RandomFilter(std::mt19937_64& rng, TypeId type) {
  static const char* kOps[] = {"=", "<", "<=", ">", ">=", "<>"};
  std::string out;
  const int n = 1 + int(rng() % 3);
  for (int i = 0; i < n; ++i) {
    if (i) out += " AND ";
    switch (rng() % 7) {
      case 0: {
        std::string a = Literal(rng, type), b = Literal(rng, type);
        out += "x BETWEEN " + a + " AND " + b;
        break;
      }
      case 1: out += Literal(rng, type) + " " + kOps[rng() % 6] + " x"; break;
      case 2: out += rng() % 2 ? "x IS NOT NULL" : "y > 4"; break;
      case 3: out += "(x < " + Literal(rng, type) + " OR y = 3)"; break;
      default: out += std::string("x ") + kOps[rng() % 6] + " " + Literal(rng, type); break;
    }
  }
  return out;
}

// Every page holding a row the filter makes TRUE is kept (by the evaluator, row by row), and no
// page the general evaluator would drop is kept — on doubles (NaN, -0.0, NULL) and integers.
TEST(PagePruningTest, KeepsEveryPageWithAMatchAndNoMoreThanTheGeneralEvaluator) {
  std::mt19937_64 rng(52);
  uint64_t kept_total = 0, pages_total = 0;
  for (TypeId type : {TypeId::kDouble, TypeId::kInt64}) {
    for (int round = 0; round < 300; ++round) {
      Chunk chunk = RandomChunk(rng, type, 24);
      if (round % 4 != 0) parquet::FillPageBounds(&chunk.index);  // as the reader does; else the Value path
      const std::string text = RandomFilter(rng, type);
      auto parsed = ParseExpression(text);
      ASSERT_TRUE(parsed.ok()) << text;
      auto bound = Bind(**parsed, chunk.rows.schema());
      ASSERT_TRUE(bound.ok()) << text << ": " << bound.status().ToString();
      const Ranges kept = PagesMayMatch(**bound, 0, chunk.index, chunk.nan_known);
      auto in_kept = [&](uint64_t row) {
        for (const auto& [b, e] : kept) {
          if (row >= b && row < e) return true;
        }
        return false;
      };
      TriVector tri;
      ASSERT_TRUE(Evaluate(**bound, chunk.rows, &tri).ok());
      for (size_t r = 0; r < tri.size(); ++r) {
        if (tri.v[r] == kTriTrue) {
          ASSERT_TRUE(in_kept(r)) << text << ": row " << r << " matches but its page was pruned";
        }
      }
      // The general evaluator page by page (x's statistics alone, y unknown).
      for (size_t p = 0; p < chunk.index.pages.size(); ++p) {
        const parquet::PageStatistics& s = chunk.index.stats[p];
        bool general = true;
        if (s.null_count) {
          std::vector<ColumnStats> stats(2);
          stats[0].min = s.null_page ? std::nullopt : s.min;
          stats[0].max = s.null_page ? std::nullopt : s.max;
          stats[0].null_count = uint64_t(*s.null_count);
          stats[0].row_count = kPageRows;
          stats[1].null_count = kPageRows + 1;  // unknown
          stats[1].row_count = kPageRows;
          general = MayMatch(**bound, VectorStatsProvider(&stats, chunk.nan_known));
        }
        const bool fast = in_kept(p * kPageRows);
        if (fast) ++kept_total;
        ++pages_total;
        EXPECT_FALSE(fast && !general) << text << ": page " << p << " kept, the general evaluator drops it";
      }
    }
  }
  EXPECT_LT(kept_total, pages_total * 3 / 4) << "pruning pruned little: the test would not see a wrong drop";
}

// Among given rows (what the earlier filter columns left): the same rows as pruning every page
// and keeping those rows, testing only the pages that meet them — at most once each, even when
// two ranges share a page.
TEST(PagePruningTest, WithinRowsTestsOnlyTheirPagesAndAnswersAsTheWholeChunk) {
  std::mt19937_64 rng(29);
  uint64_t tested_total = 0, pages_total = 0;
  for (TypeId type : {TypeId::kDouble, TypeId::kInt64}) {
    for (int round = 0; round < 300; ++round) {
      Chunk chunk = RandomChunk(rng, type, 24);
      if (round % 4 != 0) parquet::FillPageBounds(&chunk.index);
      const std::string text = RandomFilter(rng, type);
      auto parsed = ParseExpression(text);
      ASSERT_TRUE(parsed.ok()) << text;
      auto bound = Bind(**parsed, chunk.rows.schema());
      ASSERT_TRUE(bound.ok()) << text << ": " << bound.status().ToString();
      // Random disjoint ranges of rows, some within one page, some across pages, some sharing one.
      Ranges within;
      uint64_t at = rng() % 10;
      const uint64_t rows = uint64_t(chunk.index.pages.size()) * kPageRows;
      while (at < rows) {
        const uint64_t len = 1 + rng() % (rng() % 3 == 0 ? 20 : 4);
        within.emplace_back(at, std::min(rows, at + len));
        at += len + 1 + rng() % 30;
      }
      uint64_t tested = 0;
      const Ranges kept = PagesMayMatch(**bound, 0, chunk.index, chunk.nan_known, within, &tested);
      EXPECT_EQ(kept, Intersect(PagesMayMatch(**bound, 0, chunk.index, chunk.nan_known), within)) << text;
      std::set<uint64_t> meeting;
      for (const auto& [b, e] : within) {
        for (uint64_t r = b; r < e; ++r) meeting.insert(r / kPageRows);
      }
      EXPECT_LE(tested, meeting.size()) << text;  // none when the filter's interval is empty
      if (round % 4 == 0) {
        EXPECT_EQ(tested, meeting.size()) << text;  // the general evaluator tests each
      }
      tested_total += tested;
      pages_total += chunk.index.pages.size();
    }
  }
  EXPECT_LT(tested_total, pages_total * 3 / 4) << "the ranges met nearly every page: the test would not see a page tested in vain";
}

}  // namespace
}  // namespace lakeindex::query
