#include "layout/otree/tree.h"

#include <algorithm>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "common/thread_pool.h"
#include "layout/otree/layout_parts.h"
#include "util/test_util.h"

namespace lakeindex::layout::otree {
namespace {

using lakeindex::testing::Rng;

// Owned point data with a Points view.
struct PointSet {
  int dims = 0;
  std::vector<std::vector<uint32_t>> coords;
  std::vector<double> weights;

  size_t size() const { return weights.size(); }
  Points View() const {
    Points p;
    p.dims = dims;
    p.size = weights.size();
    for (int d = 0; d < dims; ++d) p.coords[size_t(d)] = coords[size_t(d)].data();
    p.weights = weights.data();
    return p;
  }
  std::array<uint32_t, kMaxDims> At(size_t i) const {
    std::array<uint32_t, kMaxDims> c{};
    for (int d = 0; d < dims; ++d) c[size_t(d)] = coords[size_t(d)][i];
    return c;
  }
  void Add(const std::array<uint32_t, kMaxDims>& c, double w) {
    for (int d = 0; d < dims; ++d) coords[size_t(d)].push_back(c[size_t(d)]);
    weights.push_back(w);
  }
  PointSet Subset(const std::vector<size_t>& rows) const {
    PointSet s;
    s.dims = dims;
    s.coords.resize(size_t(dims));
    for (size_t r : rows) s.Add(At(r), weights[r]);
    return s;
  }
};

// kind 0: uniform; 1: clustered near a few spots (deep trees); 2: few distinct values per dim.
PointSet RandomPoints(Rng& rng, int dims, size_t n, int kind) {
  PointSet p;
  p.dims = dims;
  p.coords.resize(size_t(dims));
  for (size_t i = 0; i < n; ++i) {
    std::array<uint32_t, kMaxDims> c{};
    uint32_t spot = uint32_t(rng.Uniform(3)) * 0x55555555u;
    for (int d = 0; d < dims; ++d) {
      switch (kind) {
        case 0: c[size_t(d)] = uint32_t(rng.Next()); break;
        case 1: c[size_t(d)] = spot + uint32_t(rng.Uniform(1u << (4 + rng.Uniform(12)))); break;
        default: c[size_t(d)] = uint32_t(rng.Uniform(3)) * 0x7FFFFFFFu; break;
      }
    }
    p.Add(c, rng.Unit());
  }
  return p;
}

int ChildNumber(const CubeId& id, int dims) {
  int c = 0;
  for (int i = 0; i < dims; ++i) c |= int(id.prefix[size_t(i)] & 1u) << i;
  return c;
}

// Checks where every row lives. With `ideal`, also the properties of a freshly built (or fully
// split) tree: no cube above cube_rows (except at depth 32), cubes hold exactly
// min(cube_rows, rows reaching them), leaves have max_weight 1.
void CheckTree(const Tree& tree, const PointSet& p, const std::vector<uint32_t>& cube_of_row, bool ideal) {
  const auto& cubes = tree.cubes();
  ASSERT_EQ(cube_of_row.size(), p.size());
  std::vector<uint64_t> rows(cubes.size()), reaching(cubes.size());
  for (size_t i = 0; i < p.size(); ++i) {
    auto pt = p.At(i);
    double w = p.weights[i];
    ASSERT_LT(cube_of_row[i], cubes.size());
    const Cube& cube = cubes[cube_of_row[i]];
    ASSERT_TRUE(cube.id.Contains(pt.data(), p.dims)) << "row " << i;
    ASSERT_LE(cube.min_weight, w) << "row " << i;
    ASSERT_LT(w, cube.max_weight) << "row " << i;
    ++rows[cube_of_row[i]];
    // The path from the root: every cube above has max_weight <= w.
    int c = 0;
    while (c != int(cube_of_row[i])) {
      ++reaching[size_t(c)];
      ASSERT_LE(cubes[size_t(c)].max_weight, w) << "row " << i << " passes " << cubes[size_t(c)].id.ToString(p.dims);
      int child = -1;
      int number = cubes[size_t(c)].id.ChildNumberOf(pt.data(), p.dims);
      for (int k : cubes[size_t(c)].children) {
        if (cubes[size_t(k)].id == cubes[size_t(c)].id.Child(number, p.dims)) child = k;
      }
      ASSERT_GE(child, 0) << "row " << i << " has no path";
      c = child;
    }
    ++reaching[size_t(c)];
  }
  for (size_t c = 0; c < cubes.size(); ++c) {
    const Cube& cube = cubes[c];
    ASSERT_EQ(cube.rows, rows[c]) << cube.id.ToString(p.dims);
    ASSERT_EQ(tree.Find(cube.id), int(c));
    if (cube.parent >= 0) {
      EXPECT_EQ(cube.min_weight, cubes[size_t(cube.parent)].max_weight);
      EXPECT_EQ(cube.id.depth, cubes[size_t(cube.parent)].id.depth + 1);
    }
    for (size_t k = 0; k < cube.children.size(); ++k) {  // in child-number order
      EXPECT_EQ(cubes[size_t(cube.children[k])].parent, int(c));
      if (k > 0) {
        EXPECT_LT(ChildNumber(cubes[size_t(cube.children[k - 1])].id, p.dims),
                  ChildNumber(cubes[size_t(cube.children[k])].id, p.dims));
      }
    }
    if (!ideal) continue;
    if (cube.id.depth < kCoordBits) {
      ASSERT_LE(cube.rows, tree.cube_rows()) << cube.id.ToString(p.dims);
      ASSERT_EQ(cube.rows, std::min<uint64_t>(tree.cube_rows(), reaching[c])) << cube.id.ToString(p.dims);
    }
    if (cube.children.empty()) { EXPECT_EQ(cube.max_weight, 1.0); }
  }
}

TEST(TreeTest, BuildPlacesEveryRowInItsCube) {
  Rng rng(1);
  for (int iter = 0; iter < 30; ++iter) {
    int dims = 1 + int(rng.Uniform(kMaxDims));
    size_t n = rng.Uniform(5000);
    uint64_t cube_rows = 1 + rng.Uniform(200);
    PointSet p = RandomPoints(rng, dims, n, iter % 3);
    std::vector<uint32_t> cube_of_row;
    Tree tree = Tree::Build(dims, cube_rows, p.View(), &cube_of_row);
    SCOPED_TRACE("iter " + std::to_string(iter));
    CheckTree(tree, p, cube_of_row, true);
    if (n > 0) { EXPECT_EQ(tree.cubes()[0].id, CubeId{}); }
    std::vector<uint32_t> again;
    EXPECT_EQ(Tree::Build(dims, cube_rows, p.View(), &again).ToJson(), tree.ToJson());
    EXPECT_EQ(again, cube_of_row);
  }
}

TEST(TreeTest, BuildInParallelMatchesInvariants) {
  Rng rng(2);
  PointSet p = RandomPoints(rng, 2, 300000, 0);
  std::vector<uint32_t> cube_of_row;
  Tree tree = Tree::Build(2, 5000, p.View(), &cube_of_row);
  CheckTree(tree, p, cube_of_row, true);
  EXPECT_GE(tree.depth(), 3);
}

// Locate walks as Place does without changing the tree: the cube Build gave each row, on one
// thread or many; a point needing a cube the tree lacks is reported.
TEST(TreeTest, LocateFindsEachRowsCubeAndReportsMissingOnes) {
  Rng rng(12);
  int missing_tested = 0;
  for (int iter = 0; iter < 12; ++iter) {
    SCOPED_TRACE("iter " + std::to_string(iter));
    const int dims = 1 + int(rng.Uniform(kMaxDims));
    PointSet p = RandomPoints(rng, dims, 1000 + rng.Uniform(200000), iter % 3);
    std::vector<uint32_t> built, located;
    const Tree tree = Tree::Build(dims, 1 + rng.Uniform(3000), p.View(), &built);
    for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), ThreadPool::Default()}) {
      ASSERT_TRUE(tree.Locate(p.View(), pool, &located));
      EXPECT_EQ(located, built);
    }
    // A point whose path leaves the built cubes: the heaviest weight where a child is missing.
    const std::vector<int32_t> children = tree.ChildTable();
    bool tested = false;
    for (size_t c = 0; c < tree.cubes().size() && !tested; ++c) {
      const Cube& cube = tree.cubes()[c];
      if (cube.max_weight >= 1 || cube.id.depth >= kCoordBits) continue;
      for (int k = 0; k < (1 << dims) && !tested; ++k) {
        if (children[c * 64 + size_t(k)] >= 0) continue;
        PointSet one;
        one.dims = dims;
        one.coords.resize(size_t(dims));
        // A point inside child k of the cube: the cube's corner, then k's bits at the next level.
        std::array<uint32_t, kMaxDims> at{};
        const CubeId child = cube.id.Child(k, dims);
        for (int d = 0; d < dims; ++d) at[size_t(d)] = child.Lo(d);
        one.Add(at, 0.999999);
        EXPECT_FALSE(tree.Locate(one.View(), nullptr, &located));
        tested = true;
        ++missing_tested;
      }
    }
  }
  EXPECT_GT(missing_tested, 3);
}

TEST(TreeTest, IdenticalPointsStopAtDepth32) {
  PointSet p;
  p.dims = 2;
  p.coords.resize(2);
  Rng rng(3);
  for (int i = 0; i < 200; ++i) p.Add({7, kMaxCoord}, rng.Unit());
  std::vector<uint32_t> cube_of_row;
  Tree tree = Tree::Build(2, 4, p.View(), &cube_of_row);
  CheckTree(tree, p, cube_of_row, true);
  EXPECT_EQ(tree.depth(), kCoordBits + 1);
  ASSERT_EQ(tree.cubes().size(), size_t(kCoordBits + 1));
  const Cube& deepest = tree.cubes().back();
  EXPECT_EQ(deepest.id.depth, kCoordBits);
  EXPECT_EQ(deepest.rows, 200u - 4 * kCoordBits);  // the depth-32 leaf takes all that is left
  EXPECT_EQ(deepest.max_weight, 1.0);
  EXPECT_TRUE(tree.Overfull(1.0).empty());  // it cannot be split further
}

TEST(TreeTest, TiedWeightsNeverOverfillACube) {
  Rng rng(10);
  for (int iter = 0; iter < 10; ++iter) {
    PointSet p = RandomPoints(rng, 2, 3000, iter % 3);
    for (double& w : p.weights) w = double(rng.Uniform(4)) / 4;  // 0, 0.25, 0.5, 0.75
    std::vector<uint32_t> cube_of_row;
    Tree tree = Tree::Build(2, 20, p.View(), &cube_of_row);
    CheckTree(tree, p, cube_of_row, false);
    for (const Cube& c : tree.cubes()) {
      if (c.id.depth < kCoordBits) { EXPECT_LE(c.rows, 20u); }
    }
    auto back = Tree::FromJson(tree.ToJson());
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->ToJson(), tree.ToJson());
  }
}

TEST(TreeTest, EmptyBuildAndPlaceIntoEmptyTree) {
  PointSet p;
  p.dims = 3;
  p.coords.resize(3);
  std::vector<uint32_t> cube_of_row;
  Tree tree = Tree::Build(3, 10, p.View(), &cube_of_row);
  EXPECT_TRUE(tree.cubes().empty());
  EXPECT_EQ(tree.depth(), 0);
  EXPECT_TRUE(tree.Select({Box::Everything()}).empty());
  Rng rng(4);
  PointSet more = RandomPoints(rng, 3, 100, 0);
  tree.Place(more.View(), &cube_of_row);
  CheckTree(tree, more, cube_of_row, false);
  EXPECT_EQ(tree.cubes().size(), 1u);  // a root leaf takes them all
}

// Build over `a`, Place `b`, then repeat Overfull/Split with all rows of each overfull cube until
// nothing is overfull; the tree is then ideal again.
TEST(TreeTest, PlaceThenSplitRestoresTheIdealTree) {
  Rng rng(5);
  for (int iter = 0; iter < 20; ++iter) {
    SCOPED_TRACE("iter " + std::to_string(iter));
    int dims = 1 + int(rng.Uniform(4));
    uint64_t cube_rows = 5 + rng.Uniform(100);
    PointSet all = RandomPoints(rng, dims, 500 + rng.Uniform(3000), iter % 3);
    size_t first = all.size() / (2 + rng.Uniform(4));
    std::vector<size_t> a_rows, b_rows;
    for (size_t i = 0; i < all.size(); ++i) (i < first ? a_rows : b_rows).push_back(i);
    PointSet a = all.Subset(a_rows), b = all.Subset(b_rows);
    std::vector<uint32_t> cube_a, cube_b;
    Tree tree = Tree::Build(dims, cube_rows, a.View(), &cube_a);
    size_t cubes_before = tree.cubes().size();
    std::vector<double> max_before;
    for (const Cube& c : tree.cubes()) max_before.push_back(c.max_weight);
    tree.Place(b.View(), &cube_b);
    // Place keeps max weights and adds leaves.
    for (size_t c = 0; c < cubes_before; ++c) EXPECT_EQ(tree.cubes()[c].max_weight, max_before[c]);
    for (size_t c = cubes_before; c < tree.cubes().size(); ++c) EXPECT_EQ(tree.cubes()[c].max_weight, 1.0);
    std::vector<uint32_t> cube_of_row(cube_a);
    cube_of_row.insert(cube_of_row.end(), cube_b.begin(), cube_b.end());
    CheckTree(tree, all, cube_of_row, false);
    ASSERT_FALSE(tree.Overfull(1.0).empty());

    int rounds = 0;
    for (std::vector<int> over = tree.Overfull(1.0); !over.empty(); over = tree.Overfull(1.0)) {
      ASSERT_LT(++rounds, 100);
      for (int c : over) {
        std::vector<size_t> rows;
        for (size_t i = 0; i < all.size(); ++i) {
          if (cube_of_row[i] == uint32_t(c)) rows.push_back(i);
        }
        ASSERT_EQ(rows.size(), tree.cubes()[size_t(c)].rows);
        PointSet sub = all.Subset(rows);
        std::vector<uint32_t> moved;
        tree.Split(c, sub.View(), &moved);
        ASSERT_EQ(moved.size(), rows.size());
        for (size_t k = 0; k < rows.size(); ++k) cube_of_row[rows[k]] = moved[k];
        CheckTree(tree, all, cube_of_row, false);
      }
    }
    CheckTree(tree, all, cube_of_row, true);
  }
}

TEST(TreeTest, SplitOfAFreshLeafSplitsRecursively) {
  Rng rng(6);
  PointSet p = RandomPoints(rng, 2, 2000, 0);
  Tree tree(2, 50);
  std::vector<uint32_t> cube_of_row;
  tree.Place(p.View(), &cube_of_row);
  ASSERT_EQ(tree.cubes().size(), 1u);
  tree.Split(0, p.View(), &cube_of_row);
  CheckTree(tree, p, cube_of_row, true);
  // The same tree as the ideal build.
  std::vector<uint32_t> built_rows;
  Tree built = Tree::Build(2, 50, p.View(), &built_rows);
  std::map<CubeId, std::pair<double, uint64_t>> a, b;
  for (const Cube& c : tree.cubes()) a[c.id] = {c.max_weight, c.rows};
  for (const Cube& c : built.cubes()) b[c.id] = {c.max_weight, c.rows};
  EXPECT_EQ(a, b);
}

Box RandomBox(Rng& rng, int dims) {
  Box box;
  for (int d = 0; d < dims; ++d) {
    uint32_t x = uint32_t(rng.Next()), span = uint32_t(rng.Next() >> (32 + rng.Uniform(32)));
    box.lo[size_t(d)] = x;
    box.hi[size_t(d)] = x + span < x ? kMaxCoord : x + span;
  }
  return box;
}

TEST(TreeTest, SelectEqualsBruteForceAndCoversTheRows) {
  Rng rng(7);
  for (int iter = 0; iter < 30; ++iter) {
    SCOPED_TRACE("iter " + std::to_string(iter));
    int dims = 1 + int(rng.Uniform(kMaxDims));
    PointSet p = RandomPoints(rng, dims, 200 + rng.Uniform(4000), iter % 3);
    std::vector<uint32_t> cube_of_row;
    Tree tree = Tree::Build(dims, 1 + rng.Uniform(100), p.View(), &cube_of_row);
    std::vector<int> pre = tree.PreOrder();
    ASSERT_EQ(pre.size(), tree.cubes().size());
    std::vector<int> position(pre.size());
    for (size_t k = 0; k < pre.size(); ++k) position[size_t(pre[k])] = int(k);
    for (size_t c = 0; c < tree.cubes().size(); ++c) {
      if (tree.cubes()[c].parent >= 0) { EXPECT_LT(position[size_t(tree.cubes()[c].parent)], position[c]); }
    }
    for (int q = 0; q < 20; ++q) {
      std::vector<Box> boxes;
      size_t nboxes = rng.Uniform(4);
      for (size_t k = 0; k < nboxes; ++k) boxes.push_back(RandomBox(rng, dims));
      if (q == 0) boxes = {Box::Everything()};
      double sample = rng.Chance(0.3) ? 1.0 : rng.Unit();
      std::vector<int> got = tree.Select(boxes, sample);
      std::vector<int> want;  // in pre-order
      for (int c : pre) {
        const Cube& cube = tree.cubes()[size_t(c)];
        bool hit = std::any_of(boxes.begin(), boxes.end(), [&](const Box& b) { return cube.id.Intersects(b, dims); });
        if (hit && cube.min_weight < sample) want.push_back(c);
      }
      ASSERT_EQ(got, want);
      std::set<int> chosen(got.begin(), got.end());
      for (size_t i = 0; i < p.size(); ++i) {
        if (!(p.weights[i] < sample)) continue;
        auto pt = p.At(i);
        bool inside = std::any_of(boxes.begin(), boxes.end(), [&](const Box& b) {
          for (int d = 0; d < dims; ++d) {
            if (pt[size_t(d)] < b.lo[size_t(d)] || pt[size_t(d)] > b.hi[size_t(d)]) return false;
          }
          return true;
        });
        if (inside) { ASSERT_TRUE(chosen.count(int(cube_of_row[i]))) << "row " << i; }
      }
    }
  }
}

// Files of cubes as the OTree layout writes them: every cube with rows in exactly one file,
// within the size limit unless alone, headed by a cube whose descendants are all the file holds
// besides — so a box that meets the bounding box of a file's rows (what an Iceberg planner
// tests) always meets a cube of that file the tree selects (what the OTree reader reads).
TEST(TreeTest, PackedFilesNeverKeepMoreThanTheTreeSelects) {
  Rng rng(12);
  for (int iter = 0; iter < 40; ++iter) {
    SCOPED_TRACE("iter " + std::to_string(iter));
    const int dims = 1 + int(rng.Uniform(3));
    PointSet p = RandomPoints(rng, dims, 200 + rng.Uniform(3000), iter % 3);
    std::vector<uint32_t> cube_of_row;
    Tree tree = Tree::Build(dims, 1 + rng.Uniform(100), p.View(), &cube_of_row);
    std::vector<uint64_t> rows(tree.cubes().size(), 0);
    for (uint32_t c : cube_of_row) ++rows[c];
    if (iter % 4 == 1) {  // part of the rows only, as an append or optimize packs them
      for (size_t c = 0; c < rows.size(); ++c) rows[c] = rng.Chance(0.5) ? rows[c] : 0;
    }
    const uint64_t limit = 1 + rng.Uniform(600);
    const std::vector<std::vector<int>> files = parts::PackCubes(tree, rows, limit);
    const std::vector<int> pre = tree.PreOrder();
    std::vector<size_t> rank(pre.size());
    for (size_t k = 0; k < pre.size(); ++k) rank[size_t(pre[k])] = k;
    std::vector<int> file_of(tree.cubes().size(), -1);
    for (size_t f = 0; f < files.size(); ++f) {
      ASSERT_FALSE(files[f].empty());
      if (f > 0) { EXPECT_LT(rank[size_t(files[f - 1].front())], rank[size_t(files[f].front())]); }
      uint64_t total = 0;
      for (size_t k = 0; k < files[f].size(); ++k) {
        const int c = files[f][k];
        ASSERT_GT(rows[size_t(c)], 0u) << "cube " << c << " has no rows";
        ASSERT_EQ(file_of[size_t(c)], -1) << "cube " << c << " is in two files";
        file_of[size_t(c)] = int(f);
        total += rows[size_t(c)];
        if (k > 0) { EXPECT_LT(rank[size_t(files[f][k - 1])], rank[size_t(c)]); }
        int up = c;
        while (up >= 0 && up != files[f].front()) up = tree.cubes()[size_t(up)].parent;
        ASSERT_EQ(up, files[f].front()) << "cube " << c << " is not below the file's first cube";
      }
      if (files[f].size() > 1) { EXPECT_LE(total, limit); }
    }
    for (size_t c = 0; c < rows.size(); ++c) {
      if (rows[c] > 0) { EXPECT_GE(file_of[c], 0) << "cube " << c << " is in no file"; }
    }
    // Each file's bounding box, over the rows counted.
    std::vector<Box> bounds(files.size());
    for (Box& b : bounds) {
      b.lo.fill(kMaxCoord);
      b.hi.fill(0);
    }
    for (size_t i = 0; i < p.size(); ++i) {
      const int f = file_of[cube_of_row[i]];
      if (f < 0) continue;
      for (int d = 0; d < dims; ++d) {
        bounds[size_t(f)].lo[size_t(d)] = std::min(bounds[size_t(f)].lo[size_t(d)], p.coords[size_t(d)][i]);
        bounds[size_t(f)].hi[size_t(d)] = std::max(bounds[size_t(f)].hi[size_t(d)], p.coords[size_t(d)][i]);
      }
    }
    for (int q = 0; q < 30; ++q) {
      const Box box = RandomBox(rng, dims);
      std::set<int> read;
      for (int c : tree.Select({box})) {
        if (file_of[size_t(c)] >= 0) read.insert(file_of[size_t(c)]);
      }
      for (size_t f = 0; f < files.size(); ++f) {
        bool meets = true;
        for (int d = 0; d < dims; ++d) {
          meets = meets && bounds[f].lo[size_t(d)] <= box.hi[size_t(d)] && box.lo[size_t(d)] <= bounds[f].hi[size_t(d)];
        }
        if (meets) { EXPECT_TRUE(read.count(int(f))) << "file " << f << "'s bounds meet the box, its cubes do not"; }
      }
    }
  }
}

TEST(TreeTest, JsonRoundTripKeepsIndexes) {
  Rng rng(8);
  PointSet p = RandomPoints(rng, 3, 5000, 1);
  std::vector<uint32_t> cube_of_row;
  Tree tree = Tree::Build(3, 40, p.View(), &cube_of_row);
  PointSet more = RandomPoints(rng, 3, 2000, 0);
  tree.Place(more.View(), &cube_of_row);
  auto back = Tree::FromJson(nlohmann::json::parse(tree.ToJson().dump()));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->cubes().size(), tree.cubes().size());
  EXPECT_EQ(back->dims(), 3);
  EXPECT_EQ(back->cube_rows(), 40u);
  for (size_t c = 0; c < tree.cubes().size(); ++c) {
    const Cube &x = tree.cubes()[c], &y = back->cubes()[c];
    EXPECT_EQ(x.id, y.id);
    EXPECT_EQ(x.min_weight, y.min_weight);
    EXPECT_EQ(x.max_weight, y.max_weight);
    EXPECT_EQ(x.parent, y.parent);
    EXPECT_EQ(x.children, y.children);
    EXPECT_EQ(x.rows, y.rows);
  }
  EXPECT_EQ(back->ToJson(), tree.ToJson());
}

TEST(TreeTest, CorruptJsonIsRefusedWithoutCrashing) {
  using nlohmann::json;
  Rng rng(9);
  PointSet p = RandomPoints(rng, 2, 3000, 0);
  std::vector<uint32_t> cube_of_row;
  Tree tree = Tree::Build(2, 100, p.View(), &cube_of_row);
  json good = tree.ToJson();
  std::vector<json> bad;
  auto edit = [&](auto fn) {
    json j = good;
    fn(j);
    bad.push_back(j);
  };
  edit([](json& j) { j.erase("dims"); });
  edit([](json& j) { j["dims"] = 7; });
  edit([](json& j) { j["dims"] = "2"; });
  edit([](json& j) { j["cube_rows"] = 0; });
  edit([](json& j) { j["cube_rows"] = -5; });
  edit([](json& j) { j["cubes"] = json::object(); });
  edit([](json& j) { j["cubes"][1]["id"] = "9"; });           // child number too big
  edit([](json& j) { j["cubes"][1]["id"] = 3; });
  edit([](json& j) { j["cubes"][2]["id"] = j["cubes"][1]["id"]; });  // repeat
  edit([](json& j) { j["cubes"][1]["id"] = "0000"; });        // no parent
  edit([](json& j) { j["cubes"][1]["max_weight"] = 1.5; });
  edit([](json& j) { j["cubes"][1]["max_weight"] = -0.1; });
  edit([](json& j) { j["cubes"][1]["max_weight"] = j["cubes"][0]["max_weight"].get<double>() / 2; });
  edit([](json& j) { j["cubes"][1]["rows"] = -1; });
  edit([](json& j) { j["cubes"][1].erase("rows"); });
  edit([](json& j) { j["cubes"][0] = j["cubes"][1]; });  // root missing
  edit([](json& j) { j["cubes"][1] = 5; });
  bad.push_back(json(nullptr));
  for (const json& j : bad) {
    auto r = Tree::FromJson(j);
    EXPECT_TRUE(!r.ok() && r.status().code() == StatusCode::kCorruption) << j.dump().substr(0, 200);
  }
  // Random damage to the text: whatever parses must load or fail cleanly.
  std::string text = good.dump();
  int parsed = 0;
  for (int i = 0; i < 2000; ++i) {
    std::string t = text;
    for (uint64_t k = 0, n = 1 + rng.Uniform(3); k < n; ++k) t[rng.Uniform(t.size())] = "0123456789\",:{}[]-.eA/z"[rng.Uniform(23)];
    json j = json::parse(t, nullptr, false);
    if (j.is_discarded()) continue;
    ++parsed;
    auto r = Tree::FromJson(j);
    if (r.ok()) { EXPECT_EQ(r->cubes().size(), tree.cubes().size()); }
  }
  EXPECT_GT(parsed, 0);
}

}  // namespace
}  // namespace lakeindex::layout::otree
