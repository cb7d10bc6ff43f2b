// The partitioned OTree build against LayoutTable: on twin tables (same fragments, same deleted
// rows) every row gets the same `_lakeindex_weight` and the same cube, and the revisions (transformations,
// cubes, max weights, rows per cube) are identical, for 1-3 dimensions, strings, NULLs, deep
// trees, a re-layout of an OTree table, and any number of parts; in this process (spilling its
// rows per file) the files and blocks are identical too, and no temporary object outlives it.
#include "layout/otree/partitioned_layout.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include <gtest/gtest.h>

#include "layout/otree/layout_parts.h"
#include "layout/otree/spill.h"
#include "util/test_util.h"

namespace lakeindex::layout {
namespace {

using lakeindex::testing::Rng;

// rid (from first_rid), x (double, skewed, some NULL), y (int64, in [-500, 500] + y_shift), s
// (string, some NULL).
std::vector<Batch> MakeBatches(size_t batches, size_t rows, uint64_t seed, int64_t first_rid = 0, int64_t y_shift = 0) {
  Schema schema = Schema::Parse("rid:int64,x:double,y:int64,s:string").value();
  Rng rng(seed);
  std::vector<Batch> out;
  int64_t rid = first_rid;
  for (size_t b = 0; b < batches; ++b) {
    Batch batch(schema);
    for (size_t r = 0; r < rows; ++r) {
      batch.mutable_column(0).Append<int64_t>(rid++);
      if (rng.Chance(0.05)) {
        batch.mutable_column(1).AppendNull();
      } else {
        double u = rng.Unit();
        batch.mutable_column(1).Append<double>(u * u * u * 1000);
      }
      batch.mutable_column(2).Append<int64_t>(rng.Range(-500, 500) + y_shift);
      if (rng.Chance(0.05)) {
        batch.mutable_column(3).AppendNull();
      } else {
        EXPECT_TRUE(batch.mutable_column(3).AppendString("k" + std::to_string(rng.Uniform(300))).ok());
      }
    }
    EXPECT_TRUE(batch.Seal().ok());
    out.push_back(std::move(batch));
  }
  return out;
}

// Deletes every `step`-th row of each fragment (from offset `first`).
void DeleteEvery(table::Table* t, uint32_t step, uint32_t first) {
  RowSet rows;
  for (const table::FragmentMeta& f : t->manifest().fragments) {
    for (uint32_t r = first; r < f.rows; r += step) rows.Add(MakeRowAddress(f.id, r));
  }
  auto deleted = t->DeleteRows(rows);
  EXPECT_TRUE(deleted.ok()) << deleted.status().ToString();
}

// A table of `batches` fragments with every 7th row deleted.
std::unique_ptr<table::Table> MakeTable(const std::vector<Batch>& batches,
                                        std::shared_ptr<ObjectStore> store = NewMemoryStore()) {
  auto source = table::MemorySource(batches[0].schema(), batches);
  table::WriteConfig config;
  config.rows_per_file = batches[0].num_rows();
  auto t = table::Table::Create(store, source.get(), config);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  DeleteEvery(t->get(), 7, 3);
  return std::move(*t);
}

// rid -> (weight, "revision/cube") of every row, read block by block.
std::map<int64_t, std::pair<double, std::string>> PlacementOf(const table::Table& table) {
  std::map<int64_t, std::pair<double, std::string>> out;
  auto meta = LoadLayout(table.manifest());
  EXPECT_TRUE(meta.ok() && meta->has_value());
  if (!meta.ok() || !meta->has_value()) return out;
  const int dims = int((*meta)->columns.size());
  for (const BlockMeta& b : (*meta)->blocks) {
    const table::FragmentMeta* f = table.manifest().FindFragment(b.fragment);
    EXPECT_NE(f, nullptr);
    auto reader = table.OpenDataFile(*f);
    EXPECT_TRUE(reader.ok());
    const Schema& schema = (*reader)->schema();
    auto rows = (*reader)->ReadRowGroup(b.row_group, {schema.FindField("rid"), schema.FindField(kWeightColumn)});
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    EXPECT_EQ(rows->num_rows(), b.rows);
    for (size_t r = 0; r < rows->num_rows(); ++r) {
      const std::string cube = std::to_string(b.revision) + "/" + b.cube.ToString(dims);
      EXPECT_TRUE(out.emplace(rows->column(0).Get<int64_t>(r), std::make_pair(rows->column(1).Get<double>(r), cube)).second);
    }
  }
  return out;
}

// Layout options of an OTree on (x, y) with `cube_rows` rows per cube.
LayoutOptions XY(uint64_t cube_rows) {
  LayoutOptions options;
  options.columns = {"x", "y"};
  options.cube_rows = cube_rows;
  return options;
}

// Objects under _tmp/ (a layout's temporaries).
size_t Temporaries(const table::Table& t) {
  auto listed = t.store()->List(table::kTempDir);
  EXPECT_TRUE(listed.ok()) << listed.status().ToString();
  return listed.ok() ? listed->size() : 0;
}

// `same_files`: the files too — each fragment's rows and the blocks (fragment, row group, cube,
// rows, weight range) — and every row in the same place of the same file.
void ExpectSameLayout(const table::Table& single, const table::Table& parted, bool same_files = false) {
  ASSERT_FALSE(single.manifest().layout.is_null());
  ASSERT_FALSE(parted.manifest().layout.is_null());
  EXPECT_EQ(single.manifest().layout["revisions"], parted.manifest().layout["revisions"]);
  EXPECT_EQ(single.schema(), parted.schema());
  auto a = PlacementOf(single), b = PlacementOf(parted);
  EXPECT_EQ(a.size(), single.manifest().total_rows());
  EXPECT_TRUE(a == b) << "rows placed differently";
  if (!same_files) return;
  EXPECT_EQ(single.manifest().layout["blocks"], parted.manifest().layout["blocks"]);
  ASSERT_EQ(single.manifest().fragments.size(), parted.manifest().fragments.size());
  for (size_t f = 0; f < single.manifest().fragments.size(); ++f) {
    const table::FragmentMeta &x = single.manifest().fragments[f], &y = parted.manifest().fragments[f];
    EXPECT_EQ(x.id, y.id);
    EXPECT_EQ(x.rows, y.rows);
    auto rx = single.ReadFragment(x, {}), ry = parted.ReadFragment(y, {});
    ASSERT_TRUE(rx.ok() && ry.ok());
    EXPECT_TRUE(rx->Equals(*ry)) << "file " << f << " holds other rows or another order";
  }
  EXPECT_EQ(Temporaries(parted), 0u);
}

// The same layout record, schema and files: each file's rows in the same order, cut into the
// same row groups; no temporary object left on `parted`.
void ExpectSameFiles(const table::Table& single, const table::Table& parted) {
  EXPECT_EQ(single.manifest().layout, parted.manifest().layout);
  EXPECT_EQ(single.schema(), parted.schema());
  ASSERT_EQ(single.manifest().fragments.size(), parted.manifest().fragments.size());
  for (size_t f = 0; f < single.manifest().fragments.size(); ++f) {
    const table::FragmentMeta &x = single.manifest().fragments[f], &y = parted.manifest().fragments[f];
    auto rx = single.ReadFragment(x, {}), ry = parted.ReadFragment(y, {});
    ASSERT_TRUE(rx.ok() && ry.ok());
    EXPECT_TRUE(rx->Equals(*ry)) << "file " << f << " holds other rows or another order";
    auto gx = single.OpenDataFile(x), gy = parted.OpenDataFile(y);
    ASSERT_TRUE(gx.ok() && gy.ok());
    std::vector<int64_t> a, b;
    for (const auto& rg : (*gx)->metadata().row_groups) a.push_back(rg.num_rows);
    for (const auto& rg : (*gy)->metadata().row_groups) b.push_back(rg.num_rows);
    EXPECT_EQ(a, b) << "file " << f << " is cut into other row groups";
  }
  EXPECT_EQ(Temporaries(parted), 0u);
}

struct Case {
  std::vector<std::string> columns;
  uint64_t cube_rows;
  size_t parts;
};

// An OTree's files: the layout columns' pages end at the same rows in every layout column, hold
// at most MaxCellPageRows and vary in size (runs of whole cells, not every page_rows rows); the
// other columns' pages hold kOtherColumnPageRows. Page rows default to 64, 32 on 3+ columns.
TEST(PartitionedLayoutTest, LayoutColumnsPagesAreRunsOfCells) {
  LayoutOptions defaults;
  defaults.columns = {"x", "y"};
  EXPECT_EQ(PageRows(defaults), 64u);
  defaults.columns = {"x", "y", "s"};
  EXPECT_EQ(PageRows(defaults), 32u);
  defaults.kind = "hilbert";
  EXPECT_EQ(PageRows(defaults), 64u);
  defaults.page_rows = 7;
  EXPECT_EQ(PageRows(defaults), 7u);

  const std::vector<Batch> batches = MakeBatches(3, 4000, 21);
  for (const std::vector<std::string>& columns : {std::vector<std::string>{"x", "y"}, {"s", "x", "y"}}) {
    SCOPED_TRACE(std::to_string(columns.size()) + " columns");
    auto t = MakeTable(batches);
    LayoutOptions options;
    options.columns = columns;
    options.cube_rows = 3000;
    options.page_rows = 8;
    ASSERT_TRUE(LayoutTable(t.get(), options).ok());
    auto meta = LoadLayout(t->manifest());
    ASSERT_TRUE(meta.ok() && meta->has_value());
    std::set<int64_t> inner;  // sizes of pages but each block's last
    for (const BlockMeta& b : (*meta)->blocks) {
      auto reader = t->OpenDataFile(*t->manifest().FindFragment(b.fragment));
      ASSERT_TRUE(reader.ok()) << reader.status().ToString();
      const Schema& schema = (*reader)->schema();
      auto starts = [&](const std::string& column, int64_t* largest) {
        auto index = (*reader)->ReadPageIndex(b.row_group, schema.FindField(column));
        EXPECT_TRUE(index.ok()) << index.status().ToString();
        std::vector<int64_t> out;
        int64_t rows = 0;
        for (size_t p = 0; p < index->pages.size(); ++p) {
          const parquet::PageIndexEntry& e = index->pages[p];
          out.push_back(e.first_row_index);
          rows += e.num_rows;
          *largest = std::max<int64_t>(*largest, e.num_rows);
          if (column == "x" && p + 1 < index->pages.size()) inner.insert(e.num_rows);  // not a block's last
        }
        EXPECT_EQ(rows, int64_t(b.rows));
        return out;
      };
      int64_t largest = 0, other = 0;
      const std::vector<int64_t> x = starts("x", &largest);
      for (const std::string& c : columns) EXPECT_EQ(starts(c, &largest), x) << c;
      EXPECT_LE(largest, int64_t(parts::MaxCellPageRows(8)));
      starts("rid", &other);
      EXPECT_EQ(other, std::min<int64_t>(int64_t(b.rows), int64_t(parts::kOtherColumnPageRows)));
    }
    // Cut every 8 rows, every page but a block's last would hold 8.
    EXPECT_GT(inner.size(), 3u) << "pages of 8 rows: not cut at cells";
    EXPECT_GT(*inner.rbegin(), 8) << "no page of more than 8 rows: not cut at cells";
  }
}

// The default memory limit: a quarter of the machine's memory, within [256 MiB, 2 GiB] (more did
// not make a 100M-row layout faster, bench/RESULTS.md).
TEST(PartitionedLayoutTest, DefaultMemoryLimitIsAQuarterOfRamAtMostTwoGiB) {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  ASSERT_GT(pages, 0);
  const uint64_t quarter = uint64_t(pages) * uint64_t(page) / 4;
  const uint64_t limit = DefaultMemoryLimit();
  EXPECT_EQ(limit, std::clamp<uint64_t>(quarter, uint64_t(256) << 20, uint64_t(2) << 30));
  EXPECT_LE(limit, kMaxDefaultMemoryLimit);
}

TEST(PartitionedLayoutTest, SameWeightsCubesAndRevisionAsLayoutTable) {
  const std::vector<Batch> batches = MakeBatches(6, 1500, 11);
  for (const Case& c : {Case{{"x"}, 100, 3}, Case{{"x", "y"}, 60, 4}, Case{{"s", "x", "y"}, 200, 2},
                        Case{{"y", "s"}, 5000, 5}, Case{{"x", "s"}, 10, 1}}) {
    SCOPED_TRACE(c.columns[0] + " dims " + std::to_string(c.columns.size()) + " parts " + std::to_string(c.parts));
    auto single = MakeTable(batches), parted = MakeTable(batches);
    LayoutOptions options;
    options.columns = c.columns;
    options.cube_rows = c.cube_rows;
    options.write.rows_per_file = 2000;
    ASSERT_TRUE(LayoutTable(single.get(), options).ok());
    auto report = LayoutTablePartitioned(parted.get(), options, c.parts);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_EQ(report->rows, single->manifest().total_rows());
    ExpectSameLayout(*single, *parted, /*same_files=*/true);
    // Holding no points across parts: max weights by weight histograms and a second pass.
    auto bounded = MakeTable(batches);
    ASSERT_TRUE(LayoutTablePartitioned(bounded.get(), options, c.parts, /*hold_points_bytes=*/0).ok());
    ExpectSameLayout(*single, *bounded, /*same_files=*/true);
    // Some parts' points held (room for about one part's), the others spilled.
    auto mixed = MakeTable(batches);
    const uint64_t one_part = mixed->manifest().total_rows() / c.parts * (4 * c.columns.size() + 4);
    ASSERT_TRUE(LayoutTablePartitioned(mixed.get(), options, c.parts, one_part + 1).ok());
    ExpectSameLayout(*single, *mixed, /*same_files=*/true);
    // Weight windows that miss: every inner cube's (0 deviations wide: empty) or some of them,
    // found by the histogram passes instead.
    for (double sigmas : {0.0, 0.7}) {
      SCOPED_TRACE("window of " + std::to_string(sigmas) + " deviations");
      weight_window_sigmas = sigmas;
      auto narrow = MakeTable(batches);
      auto narrow_report = LayoutTablePartitioned(narrow.get(), options, c.parts, 0);
      weight_window_sigmas = 8;
      ASSERT_TRUE(narrow_report.ok()) << narrow_report.status().ToString();
      ExpectSameLayout(*single, *narrow, /*same_files=*/true);
    }
    // The levels' passes walking down from the root for each point (below depth 1), not looking
    // up the cube above it by its coordinates' prefix.
    reach_table_bits = 0;
    auto walked = MakeTable(batches);
    auto walked_report = LayoutTablePartitioned(walked.get(), options, c.parts, 0);
    reach_table_bits = 16;
    ASSERT_TRUE(walked_report.ok()) << walked_report.status().ToString();
    ExpectSameLayout(*single, *walked, /*same_files=*/true);

    // A second layout keeps the weights: the same again on the rewritten tables.
    options.cube_rows = c.cube_rows * 2;
    ASSERT_TRUE(LayoutTable(single.get(), options).ok());
    ASSERT_TRUE(LayoutTablePartitioned(parted.get(), options, c.parts + 1).ok());
    ExpectSameLayout(*single, *parted, /*same_files=*/true);
  }
}

// Points kept between the tree's levels: weights of 32 bits as their bits, others (as layouts
// wrote them before weights had 32 bits) whole; spilled and read back unchanged, and a spilled
// object of the wrong size is Corruption.
TEST(PartitionedLayoutTest, CompactPointsKeepEveryWeightExactly) {
  Rng rng(5);
  std::vector<std::vector<uint32_t>> coords(2);
  std::vector<double> narrow, wide;
  for (size_t i = 0; i < 1000; ++i) {
    for (auto& c : coords) c.push_back(uint32_t(rng.Next()));
    narrow.push_back(double(uint32_t(rng.Next())) * 0x1.0p-32);
    wide.push_back(i == 999 ? 0.5 + 0x1.0p-40 : narrow.back());  // one weight of more than 32 bits
  }
  auto store = NewMemoryStore();
  for (const std::vector<double>* weights : {&narrow, &wide}) {
    const parts::CompactPoints points = parts::Compact(coords, *weights);
    EXPECT_EQ(points.wide(), weights == &wide);
    EXPECT_EQ(points.bytes(), 1000u * (8 + (weights == &wide ? 8 : 4)));
    ASSERT_TRUE(parts::WritePoints(store.get(), "p", points).ok());
    auto back = parts::ReadPoints(store.get(), "p", 2, 1000, points.wide());
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    for (size_t i = 0; i < 1000; ++i) {
      ASSERT_EQ(points.weight(i), (*weights)[i]) << i;
      ASSERT_EQ(back->weight(i), (*weights)[i]) << i;
      ASSERT_EQ(back->coords[1][i], coords[1][i]) << i;
    }
    auto wrong = parts::ReadPoints(store.get(), "p", 2, 1000, !points.wide());
    EXPECT_TRUE(wrong.status().IsCorruption()) << wrong.status().ToString();
  }
}

// Over its memory limit LayoutTable builds the OTree in parts: the same weights, cubes, revision
// and files as without a limit; and a comparison layout sorted externally.
TEST(PartitionedLayoutTest, OverTheMemoryLimitLayoutTableWorksInPartsWithTheSameResult) {
  const std::vector<Batch> batches = MakeBatches(6, 1500, 17);
  auto single = MakeTable(batches), limited = MakeTable(batches);
  LayoutOptions options;
  options.columns = {"x", "s"};
  options.cube_rows = 150;
  options.write.rows_per_file = 2000;
  ASSERT_TRUE(LayoutTable(single.get(), options).ok());
  auto need = EstimateLayoutMemory(*limited, options);
  ASSERT_TRUE(need.ok()) << need.status().ToString();
  EXPECT_GT(*need, 2 * 9000 * 8u) << "at least the rows' fixed-width columns, twice";
  options.memory_limit = *need / 5;
  auto report = LayoutTable(limited.get(), options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ExpectSameLayout(*single, *limited, /*same_files=*/true);

  // Row groups by region too (the tree's deepest parents known to every part's writer).
  {
    auto single_regions = MakeTable(batches), limited_regions = MakeTable(batches);
    LayoutOptions by_region = options;
    by_region.row_groups = kRowGroupsByRegion;
    by_region.cube_rows = 1200;  // cubes large enough to be cut by region
    by_region.memory_limit = 0;
    ASSERT_TRUE(LayoutTable(single_regions.get(), by_region).ok());
    by_region.memory_limit = *need / 5;
    auto parts = LayoutTable(limited_regions.get(), by_region);
    ASSERT_TRUE(parts.ok()) << parts.status().ToString();
    ExpectSameLayout(*single_regions, *limited_regions, /*same_files=*/true);
    auto meta = LoadLayout(limited_regions->manifest());
    ASSERT_TRUE(meta.ok() && meta->has_value());
    EXPECT_GT(std::count_if((*meta)->blocks.begin(), (*meta)->blocks.end(),
                            [](const BlockMeta& b) { return b.cube.depth == 0; }),
              1) << "the root is cut by region";
  }

  // A comparison layout over the limit sorts externally: the files of one piece.
  options.kind = "zorder";
  LayoutOptions unlimited = options;
  unlimited.memory_limit = 0;
  ASSERT_TRUE(LayoutTable(single.get(), unlimited).ok());
  auto sorted = LayoutTable(limited.get(), options);
  ASSERT_TRUE(sorted.ok()) << sorted.status().ToString();
  ExpectSameFiles(*single, *limited);
}

// The comparison layouts sorted externally in parts (key ranges spilled, each sorted and streamed
// into files) write LayoutTable's files: the same rows in the same order, cut into the same row
// groups, for each kind, on one to three columns (strings, NULLs, ties broken by the values for
// `sort`), from a plain table and from an OTree one (whose weights they drop).
TEST(PartitionedLayoutTest, ComparisonLayoutsInPartsWriteTheFilesOfOnePiece) {
  const std::vector<Batch> batches = MakeBatches(6, 1500, 61);
  for (const std::string kind : {"sort", "zorder", "hilbert"}) {
    for (const std::vector<std::string>& columns :
         std::vector<std::vector<std::string>>{{"x", "y"}, {"s", "x"}, {"y"}, {"y", "s", "x"}}) {
      SCOPED_TRACE(kind + " on " + columns[0] + " dims " + std::to_string(columns.size()));
      auto single = MakeTable(batches), parted = MakeTable(batches);
      if (columns.size() == 3) {  // from an OTree
        ASSERT_TRUE(LayoutTable(single.get(), XY(200)).ok());
        ASSERT_TRUE(LayoutTable(parted.get(), XY(200)).ok());
      }
      LayoutOptions options;
      options.kind = kind;
      options.columns = columns;
      options.cube_rows = 300;
      options.write.rows_per_file = 1700;  // files and row groups cut across key ranges
      ASSERT_TRUE(LayoutTable(single.get(), options).ok());
      auto report = LayoutOrderedPartitioned(parted.get(), options, 4);
      ASSERT_TRUE(report.ok()) << report.status().ToString();
      EXPECT_EQ(report->rows, single->manifest().total_rows());
      ExpectSameFiles(*single, *parted);
    }
  }
}

// A store failing any one request of a layout over the memory limit (reads of the table, the
// spilled points and rows; writes of spills, files, the manifest): the layout fails naming it,
// the table keeps its version, and no temporary object is left. Then it succeeds as without
// failures.
TEST(PartitionedLayoutTest, AFailedRequestLeavesTheTableAndNoTemporaries) {
  const std::vector<Batch> batches = MakeBatches(4, 800, 23);
  auto single = MakeTable(batches);
  LayoutOptions options = XY(100);
  options.write.rows_per_file = 1000;
  ASSERT_TRUE(LayoutTable(single.get(), options).ok());
  for (StoreOp op : {StoreOp::kRead, StoreOp::kWrite, StoreOp::kCreate}) {
    size_t failures = 0;
    for (uint64_t k = 1; k <= 2000; ++k) {
      auto store = std::make_shared<InstrumentedStore>(NewMemoryStore());
      auto t = MakeTable(batches, store);
      const uint64_t version = t->version();
      store->FailNth(op, k);
      auto report = LayoutTablePartitioned(t.get(), options, 3, /*hold_points_bytes=*/0);
      const bool failed_here = store->OpsSeen(op) >= k;
      store->FailNth(op, 0);
      if (!report.ok()) {
        SCOPED_TRACE("operation " + std::to_string(int(op)) + " #" + std::to_string(k) + ": " + report.status().ToString());
        ++failures;
        EXPECT_TRUE(failed_here);
        EXPECT_EQ(table::Table::LatestVersion(store.get()).value(), version) << "nothing committed";
        EXPECT_EQ(Temporaries(*t), 0u);
        continue;
      }
      auto reopened = table::Table::Open(store);
      ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
      ExpectSameLayout(*single, **reopened, /*same_files=*/true);
      if (!failed_here) break;  // every request of this kind has failed once
    }
    EXPECT_GE(failures, 1u) << "operation " << int(op) << ": the layout makes such requests";
  }
}

// An append into the tree under a memory limit places its input a chunk at a time: every row
// gets the weight and cube (or new revision) it gets in one piece; only the blocks differ.
TEST(PartitionedLayoutTest, AnAppendInChunksPlacesRowsAsInOnePiece) {
  const std::vector<Batch> batches = MakeBatches(4, 1000, 31);
  std::vector<Batch> more = MakeBatches(2, 700, 32, 100000);
  std::vector<Batch> outside = MakeBatches(1, 300, 33, 200000, /*y_shift=*/5000);  // past the tree's range
  more.insert(more.begin() + 1, outside[0]);
  auto whole = MakeTable(batches), chunked = MakeTable(batches);
  const LayoutOptions options = XY(120);
  ASSERT_TRUE(LayoutTable(whole.get(), options).ok());
  ASSERT_TRUE(LayoutTable(chunked.get(), options).ok());
  const uint64_t before = whole->manifest().total_rows();
  table::WriteConfig config;
  config.rows_per_file = 2000;
  auto a = AppendToLayout(whole.get(), table::MemorySource(more[0].schema(), more).get(), config);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  config.memory_limit = 1;  // a chunk per batch read
  auto b = AppendToLayout(chunked.get(), table::MemorySource(more[0].schema(), more).get(), config);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(a->rows, 1700u);
  EXPECT_EQ(b->rows, 1700u);
  EXPECT_GT(b->blocks, a->blocks) << "a cube gets a block per chunk";
  whole = table::Table::Open(whole->shared_store()).value();
  chunked = table::Table::Open(chunked->shared_store()).value();
  EXPECT_EQ(whole->manifest().total_rows(), before + 1700u);
  ExpectSameLayout(*whole, *chunked);
  EXPECT_EQ(whole->manifest().layout["revisions"].size(), 2u) << "the rows past the range started a revision";
}

// Twin OTree tables put through appends (small files, overfull cubes, a second revision) and
// deletes, ready for optimize to rewrite most of their files.
std::pair<std::unique_ptr<table::Table>, std::unique_ptr<table::Table>> TablesToOptimize(
    std::shared_ptr<ObjectStore> second_store = NewMemoryStore()) {
  const std::vector<Batch> batches = MakeBatches(3, 900, 51);
  std::vector<Batch> more = MakeBatches(4, 600, 52, 100000);
  more.push_back(MakeBatches(1, 250, 53, 200000, /*y_shift=*/5000)[0]);  // past the range: revision 2
  std::unique_ptr<table::Table> out[2] = {MakeTable(batches), MakeTable(batches, std::move(second_store))};
  for (auto& t : out) {
    EXPECT_TRUE(LayoutTable(t.get(), XY(100)).ok());
    table::WriteConfig config;
    config.rows_per_file = 700;
    config.memory_limit = 1;  // a chunk per batch: blocks in many small files
    auto appended = AppendToLayout(t.get(), table::MemorySource(more[0].schema(), more).get(), config);
    EXPECT_TRUE(appended.ok()) << appended.status().ToString();
    t = table::Table::Open(t->shared_store()).value();
    DeleteEvery(t.get(), 11, 2);
  }
  return {std::move(out[0]), std::move(out[1])};
}

// Optimize over its memory limit spills the rows it rewrites (a run per fragment read, under
// _tmp/) and writes them back a file's rows at a time: the same files, blocks and rows as
// holding them, and no temporary object left.
TEST(PartitionedLayoutTest, AnOptimizeOverTheMemoryLimitWritesTheFilesOfOneInMemory) {
  auto [held, spilled] = TablesToOptimize();
  ASSERT_EQ(held->manifest().layout["revisions"].size(), 2u);
  table::WriteConfig config;
  config.rows_per_file = 1500;
  auto a = OptimizeLayout(held.get(), config);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  config.memory_limit = 1;
  auto b = OptimizeLayout(spilled.get(), config);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_GT(*a, 5u) << "optimize rewrote files";
  EXPECT_EQ(*a, *b);
  held = table::Table::Open(held->shared_store()).value();
  spilled = table::Table::Open(spilled->shared_store()).value();
  ExpectSameLayout(*held, *spilled, /*same_files=*/true);
  auto meta = LoadLayout(held->manifest());
  ASSERT_TRUE(meta.ok() && meta->has_value());
  for (const Revision& rev : (*meta)->revisions) EXPECT_TRUE(rev.tree.Overfull(1.5).empty()) << "revision " << rev.id;
}

// A store failing one request of a spilling optimize (the 1st, 2nd, ... of each kind, then spread
// out to the last): it fails, the table keeps its version and no temporary object is
// left; then it succeeds as holding the rows does.
TEST(PartitionedLayoutTest, AFailedRequestOfASpillingOptimizeLeavesTheTableAndNoTemporaries) {
  auto [held, unused] = TablesToOptimize();
  table::WriteConfig config;
  config.rows_per_file = 1500;
  ASSERT_TRUE(OptimizeLayout(held.get(), config).ok());
  held = table::Table::Open(held->shared_store()).value();
  config.memory_limit = 1;
  for (StoreOp op : {StoreOp::kRead, StoreOp::kWrite, StoreOp::kCreate}) {
    size_t failures = 0;
    for (uint64_t k = 1; k <= 2000; k += 1 + k / 8) {
      auto store = std::make_shared<InstrumentedStore>(NewMemoryStore());
      auto t = TablesToOptimize(store).second;
      const uint64_t version = t->version();
      store->FailNth(op, k);
      auto rewritten = OptimizeLayout(t.get(), config);
      const bool failed_here = store->OpsSeen(op) >= k;
      store->FailNth(op, 0);
      if (!rewritten.ok()) {
        SCOPED_TRACE("operation " + std::to_string(int(op)) + " #" + std::to_string(k) + ": " + rewritten.status().ToString());
        ++failures;
        EXPECT_TRUE(failed_here);
        EXPECT_EQ(table::Table::LatestVersion(store.get()).value(), version) << "nothing committed";
        EXPECT_EQ(Temporaries(*t), 0u);
        continue;
      }
      ExpectSameLayout(*held, *table::Table::Open(store).value(), /*same_files=*/true);
      if (!failed_here) break;  // every request of this kind has failed once
    }
    EXPECT_GE(failures, 1u) << "operation " << int(op) << ": optimize makes such requests";
  }
}

// A source whose batches end in an error (bad input further on in a file).
class FailingSource : public table::BatchSource {
 public:
  FailingSource(Schema schema, std::vector<Batch> batches) : schema_(std::move(schema)), batches_(std::move(batches)) {}
  const Schema& schema() const override { return schema_; }
  uint64_t total_rows() const override { return 0; }
  Result<bool> Next(size_t, Batch* out) override {
    if (next_ == batches_.size()) return Status::InvalidArgument("bad input at line 1234");
    *out = batches_[next_++];
    return true;
  }

 private:
  Schema schema_;
  std::vector<Batch> batches_;
  size_t next_ = 0;
};

// Bad input after some chunks were placed: the append fails naming it, and the files those chunks
// wrote are gone (the table's data files are what its versions reference).
TEST(PartitionedLayoutTest, AnAppendFailingAfterSomeChunksLeavesNoFiles) {
  auto t = MakeTable(MakeBatches(3, 800, 41));
  ASSERT_TRUE(LayoutTable(t.get(), XY(100)).ok());
  const uint64_t version = t->version();
  auto listed = t->store()->List(table::kDataDir);
  ASSERT_TRUE(listed.ok());
  const size_t files_before = listed->size();
  std::vector<Batch> more = MakeBatches(3, 500, 42, 100000);
  table::WriteConfig config;
  config.memory_limit = 1;  // a chunk per batch: two chunks written before the error
  FailingSource source(more[0].schema(), more);
  auto appended = AppendToLayout(t.get(), &source, config);
  ASSERT_FALSE(appended.ok());
  EXPECT_NE(appended.status().message().find("line 1234"), std::string::npos) << appended.status().ToString();
  EXPECT_EQ(table::Table::LatestVersion(t->store()).value(), version);
  listed = t->store()->List(table::kDataDir);
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->size(), files_before) << "the chunks' files were left";
}

// Weights outside [0, 1) (a damaged or hand-made `_lakeindex_weight`) are refused as Corruption
// when a part's points are computed, not walked down the tree.
TEST(PartitionedLayoutTest, WeightsOutsideTheUnitIntervalAreCorruption) {
  auto t = MakeTable(MakeBatches(2, 500, 43));
  const LayoutOptions options = XY(100);
  ASSERT_TRUE(LayoutTable(t.get(), options).ok());
  t = table::Table::Open(t->shared_store()).value();
  const LayoutPartition part = PartitionFragments(*t, 1).at(0);
  auto read = ReadLayoutColumns(*t, options, part);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  auto transforms = FitPartitionedTransforms(*t, options, {SampleLayoutColumns(*t, options, part).value()});
  ASSERT_TRUE(transforms.ok());
  EXPECT_TRUE(ComputePartitionPoints(*t, options, part, *transforms, &*read).ok());
  for (double bad : {1.0, 1.5, -0.25, std::nan("")}) {
    std::vector<Column> columns = read->columns();
    const size_t w = size_t(read->schema().FindField(kWeightColumn));
    Column weights(TypeId::kDouble);
    for (size_t i = 0; i < read->num_rows(); ++i) weights.Append<double>(i == 7 ? bad : read->column(w).Get<double>(i));
    columns[w] = std::move(weights);
    Batch damaged(read->schema(), std::move(columns), read->num_rows());
    auto points = ComputePartitionPoints(*t, options, part, *transforms, &damaged);
    ASSERT_FALSE(points.ok()) << bad;
    EXPECT_TRUE(points.status().IsCorruption()) << points.status().ToString();
    EXPECT_NE(points.status().message().find("outside [0, 1)"), std::string::npos) << points.status().ToString();
  }
}

TEST(PartitionedLayoutTest, PartitionsCoverEveryLiveRowInOrder) {
  auto t = MakeTable(MakeBatches(5, 100, 3));
  for (size_t parts : {1, 2, 3, 5, 9}) {
    auto partitions = PartitionFragments(*t, parts);
    EXPECT_LE(partitions.size(), parts);
    std::vector<uint32_t> ids;
    uint64_t position = 0;
    for (const LayoutPartition& p : partitions) {
      EXPECT_EQ(p.first_row, position);
      for (uint32_t id : p.fragments) {
        ids.push_back(id);
        position += t->manifest().FindFragment(id)->live_rows();
      }
    }
    EXPECT_EQ(position, t->manifest().total_rows());
    EXPECT_EQ(ids.size(), t->manifest().fragments.size());
  }
}

TEST(PartitionedLayoutTest, ConcurrentCommitIsAConflictAndLeavesTheTable) {
  auto t = MakeTable(MakeBatches(3, 500, 5));
  const LayoutOptions options = XY(100);
  auto partitions = PartitionFragments(*t, 2);
  std::vector<std::vector<ColumnSample>> samples;
  for (const auto& p : partitions) samples.push_back(SampleLayoutColumns(*t, options, p).value());
  Revision rev;
  rev.id = 1;
  rev.transforms = FitPartitionedTransforms(*t, options, samples).value();
  PartitionedTreeBuilder builder(2, options.cube_rows);
  std::vector<PartitionPoints> points;
  for (const auto& p : partitions) points.push_back(ComputePartitionPoints(*t, options, p, rev.transforms).value());
  while (!builder.done()) {
    std::vector<std::vector<CubeWeights>> level;
    for (const auto& p : points) level.push_back(LevelWeights(p, builder.tree(), builder.depth()));
    ASSERT_TRUE(builder.AddLevel(level).ok());
  }
  rev.tree = builder.tree();
  auto round_trip = RevisionFromJson(RevisionToJson(rev), *t, options);
  ASSERT_TRUE(round_trip.ok()) << round_trip.status().ToString();
  EXPECT_EQ(round_trip->tree.ToJson(), rev.tree.ToJson());
  std::vector<std::string> written;
  for (const auto& p : partitions) written.push_back(WriteLayoutPartition(*t, options, p, rev).value());

  // Another writer commits first: nothing of the layout is committed.
  auto other = table::Table::Open(t->shared_store()).value();
  DeleteEvery(other.get(), 7, 5);
  const uint64_t before = other->version();
  auto report = CommitPartitionedLayout(t.get(), options, rev, written);
  EXPECT_TRUE(report.status().IsConflict()) << report.status().ToString();
  EXPECT_EQ(table::Table::LatestVersion(t->store()).value(), before);
  // A part's output from another table is refused.
  auto missing = CommitPartitionedLayout(other.get(), options, rev, {written[0]});
  EXPECT_FALSE(missing.ok());
}

}  // namespace
}  // namespace lakeindex::layout
