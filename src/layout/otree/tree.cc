#include "layout/otree/tree.h"

#include <algorithm>
#include <atomic>
#include <exception>

#include "common/thread_pool.h"

namespace lakeindex::layout::otree {

namespace {

using nlohmann::json;

// The child number of `id` inside its parent (the last level of its path). REQUIRES depth > 0.
int LastChildNumber(const CubeId& id, int dims) {
  int c = 0;
  for (int i = 0; i < dims; ++i) c |= int(id.prefix[size_t(i)] & 1u) << i;
  return c;
}

int ChildNumberOfRow(const CubeId& id, const Points& p, uint32_t row) {
  int shift = kCoordBits - 1 - id.depth, c = 0;
  for (int i = 0; i < p.dims; ++i) c |= int((p.coords[size_t(i)][row] >> shift) & 1u) << i;
  return c;
}

// Rows of deeper cubes are scattered over the points: gathers prefetch this many rows ahead
// (weights and coordinates alike: the weight test stalled on 70% of the placing loop without).
constexpr size_t kPrefetchAhead = 64;

// Rows per chunk when one cube's rows are split among threads (on a level of fewer cubes than
// threads, such as the root's).
constexpr size_t kChunkRows = size_t(1) << 18;

// The weight below which exactly the `keep` lightest of `rows` lie: the (keep+1)-th lowest weight
// (rows with equal weights at the cut all go down, so ties may keep fewer). The weights of rows
// reaching a cube are uniform over [lo, 1) (lo: its parent's max_weight), so the cut lies
// near lo + (1 - lo)·keep/n: only the weights below a bound safely above that are selected
// from, which gives the same cut unless fewer than keep + 1 fall below it (then all are). The
// weights are gathered in `chunks` parts on `pool` (nullptr: here). REQUIRES n > keep.
double CutWeight(const uint32_t* rows, size_t n, const double* weights, size_t keep, double lo, ThreadPool* pool,
                 size_t chunks) {
  const double share = std::min(1.0, (1.25 * double(keep + 1) + 64) / double(n));
  const double bound = share >= 1 ? 2.0 : lo + (1 - lo) * share;
  std::vector<std::vector<double>> below(chunks);
  ParallelFor(pool, chunks, [&](size_t k) {
    const size_t end = n * (k + 1) / chunks;
    std::vector<double>& w = below[k];
    w.reserve(size_t(double(end - n * k / chunks) * share * 1.1) + 16);
    for (size_t i = n * k / chunks; i < end; ++i) {
      if (i + kPrefetchAhead < end) __builtin_prefetch(weights + rows[i + kPrefetchAhead]);
      const double x = weights[rows[i]];
      if (x < bound) w.push_back(x);
    }
  });
  std::vector<double> w;
  for (size_t k = 0; k < chunks; ++k) w.insert(w.end(), below[k].begin(), below[k].end());
  if (w.size() <= keep) {  // the bound was too low (not uniform above lo): select from all
    w.resize(n);
    for (size_t i = 0; i < n; ++i) w[i] = weights[rows[i]];
  }
  std::nth_element(w.begin(), w.begin() + std::ptrdiff_t(keep), w.end());
  return w[keep];
}

// One cube's work in Build: its rows are rows[b, e).
struct BuildNode {
  int cube;
  size_t b, e;
  // Results.
  double max_weight = 1;
  uint64_t kept = 0;
  std::array<size_t, 64> child_count{};  // rows sent to each child; they are at rows[b, b+sum)
};

}  // namespace

Tree::Tree(int dims, uint64_t cube_rows) : dims_(dims), cube_rows_(std::max<uint64_t>(cube_rows, 1)) {}

int Tree::AddCube(const CubeId& id, int parent, double max_weight) {
  int index = int(cubes_.size());
  Cube cube;
  cube.id = id;
  cube.parent = parent;
  cube.max_weight = max_weight;
  if (parent >= 0) {
    cube.min_weight = cubes_[size_t(parent)].max_weight;
    // Keep children in child-number order (Select and PreOrder rely on it).
    auto& kids = cubes_[size_t(parent)].children;
    int number = LastChildNumber(id, dims_);
    auto at = std::find_if(kids.begin(), kids.end(),
                           [&](int k) { return LastChildNumber(cubes_[size_t(k)].id, dims_) > number; });
    kids.insert(at, index);
  }
  cubes_.push_back(std::move(cube));
  index_[id] = index;
  return index;
}

int Tree::ChildOf(int c, int child_number) {
  for (int k : cubes_[size_t(c)].children) {
    if (LastChildNumber(cubes_[size_t(k)].id, dims_) == child_number) return k;
  }
  return AddCube(cubes_[size_t(c)].id.Child(child_number, dims_), c, 1.0);
}

Tree Tree::Build(int dims, uint64_t cube_rows, const Points& points, std::vector<uint32_t>* cube_of_row) {
  Tree tree(dims, cube_rows);
  const size_t n = points.size;
  cube_of_row->assign(n, 0);
  if (n == 0) return tree;
  const uint64_t cap = tree.cube_rows_;
  const int fanout = 1 << dims;

  // rows[b, e) of a cube are the rows reaching it; after the cube is processed, the rows passed
  // down occupy rows[b, b + passed) grouped by child number (a stable counting sort through
  // `scratch`, so each range stays in increasing row order and memory is walked forward).
  std::vector<uint32_t> rows(n), scratch(n);
  for (size_t i = 0; i < n; ++i) rows[i] = uint32_t(i);

  std::vector<BuildNode> level;
  level.push_back({tree.AddCube(CubeId{}, -1, 1.0), 0, n});
  ThreadPool* pool = n >= (size_t(1) << 16) ? ThreadPool::Default() : nullptr;
  // Processes one cube; with chunk_pool, in chunks of its rows on that pool. The rows passed down
  // are grouped by child, each chunk's before the next chunk's, so the order is the same either way.
  auto process = [&](BuildNode& node, ThreadPool* chunk_pool) {
    const CubeId id = tree.cubes_[size_t(node.cube)].id;
    uint32_t* r = rows.data() + node.b;
    const size_t count = node.e - node.b;
    if (count <= cap || id.depth >= kCoordBits) {
      node.max_weight = 1;
      node.kept = count;
      for (size_t i = 0; i < count; ++i) (*cube_of_row)[r[i]] = uint32_t(node.cube);
      return;
    }
    const size_t chunks = chunk_pool ? std::max<size_t>(1, count / kChunkRows) : 1;
    const double cut = CutWeight(r, count, points.weights, size_t(cap), tree.cubes_[size_t(node.cube)].min_weight,
                                 chunk_pool, chunks);
    node.max_weight = cut;
    std::vector<uint8_t> child(count);
    std::vector<std::array<size_t, 64>> counts(chunks);  // per chunk, rows sent to each child
    std::vector<size_t> kept(chunks, 0);
    ParallelFor(chunk_pool, chunks, [&](size_t k) {
      const size_t end = count * (k + 1) / chunks;
      counts[k].fill(0);
      for (size_t i = count * k / chunks; i < end; ++i) {
        if (i + kPrefetchAhead < end) {
          uint32_t later = r[i + kPrefetchAhead];
          __builtin_prefetch(points.weights + later);
          for (int d = 0; d < dims; ++d) __builtin_prefetch(points.coords[size_t(d)] + later);
        }
        uint32_t row = r[i];
        if (points.weights[row] < cut) {
          (*cube_of_row)[row] = uint32_t(node.cube);
          ++kept[k];
          child[i] = 0xFF;
        } else {
          int c = ChildNumberOfRow(id, points, row);
          child[i] = uint8_t(c);
          ++counts[k][size_t(c)];
        }
      }
    });
    std::vector<std::array<size_t, 64>> at(chunks);  // per chunk, where its rows of each child go
    size_t pos = 0;
    for (int c = 0; c < fanout; ++c) {
      for (size_t k = 0; k < chunks; ++k) {
        at[k][size_t(c)] = pos;
        pos += counts[k][size_t(c)];
        node.child_count[size_t(c)] += counts[k][size_t(c)];
      }
    }
    for (size_t k = 0; k < chunks; ++k) node.kept += kept[k];
    uint32_t* s = scratch.data() + node.b;
    ParallelFor(chunk_pool, chunks, [&](size_t k) {
      const size_t end = count * (k + 1) / chunks;
      for (size_t i = count * k / chunks; i < end; ++i) {
        if (child[i] != 0xFF) s[at[k][child[i]]++] = r[i];
      }
    });
    ParallelFor(chunk_pool, chunks, [&](size_t k) {
      std::copy(s + pos * k / chunks, s + pos * (k + 1) / chunks, r + pos * k / chunks);
    });
  };
  while (!level.empty()) {
    // Cubes of one level touch disjoint ranges: process them in parallel, or one by one in
    // parallel chunks while there are fewer cubes than threads to share them.
    if (pool && level.size() < 2 * pool->size()) {
      for (BuildNode& node : level) process(node, pool);
    } else {
      ParallelFor(pool, level.size(), [&](size_t k) { process(level[k], nullptr); });
    }
    // Create the children (serially: the cube vector grows) and queue them.
    std::vector<BuildNode> next;
    for (const BuildNode& node : level) {
      Cube& cube = tree.cubes_[size_t(node.cube)];
      cube.max_weight = node.max_weight;
      cube.rows = node.kept;
      size_t at = node.b;
      for (int c = 0; c < fanout; ++c) {
        size_t cc = node.child_count[size_t(c)];
        if (cc == 0) continue;
        int child = tree.AddCube(tree.cubes_[size_t(node.cube)].id.Child(c, dims), node.cube, 1.0);
        next.push_back({child, at, at + cc});
        at += cc;
      }
    }
    level = std::move(next);
  }
  return tree;
}

void Tree::Place(const Points& points, std::vector<uint32_t>* cube_of_row) {
  cube_of_row->assign(points.size, 0);
  if (points.size == 0) return;
  if (cubes_.empty()) AddCube(CubeId{}, -1, 1.0);
  for (size_t i = 0; i < points.size; ++i) {
    uint32_t row = uint32_t(i);
    double w = points.weights[row];
    int c = 0;
    while (w >= cubes_[size_t(c)].max_weight && cubes_[size_t(c)].id.depth < kCoordBits) {
      c = ChildOf(c, ChildNumberOfRow(cubes_[size_t(c)].id, points, row));
    }
    ++cubes_[size_t(c)].rows;
    (*cube_of_row)[i] = uint32_t(c);
  }
}

std::vector<int32_t> Tree::ChildTable() const {
  std::vector<int32_t> out(cubes_.size() * 64, -1);
  for (size_t c = 0; c < cubes_.size(); ++c) {
    for (int k : cubes_[c].children) out[c * 64 + size_t(LastChildNumber(cubes_[size_t(k)].id, dims_))] = int32_t(k);
  }
  return out;
}

bool Tree::Locate(const Points& points, ThreadPool* pool, std::vector<uint32_t>* cube_of_row) const {
  cube_of_row->assign(points.size, 0);
  if (points.size == 0) return true;
  if (cubes_.empty()) return false;
  const std::vector<int32_t> children = ChildTable();
  std::atomic<bool> missing{false};
  constexpr size_t kChunk = size_t(1) << 16;
  ParallelFor(pool, (points.size + kChunk - 1) / kChunk, [&](size_t k) {
    for (size_t i = k * kChunk; i < std::min(points.size, (k + 1) * kChunk); ++i) {
      const double w = points.weights[i];
      int32_t c = 0;
      while (w >= cubes_[size_t(c)].max_weight && cubes_[size_t(c)].id.depth < kCoordBits) {
        c = children[size_t(c) * 64 + size_t(ChildNumberOfRow(cubes_[size_t(c)].id, points, uint32_t(i)))];
        if (c < 0) {
          missing = true;
          return;
        }
      }
      (*cube_of_row)[i] = uint32_t(c);
    }
  });
  return !missing;
}

std::vector<int> Tree::Overfull(double factor) const {
  std::vector<int> out;
  double limit = factor * double(cube_rows_);
  for (size_t c = 0; c < cubes_.size(); ++c) {
    if (double(cubes_[c].rows) > limit && cubes_[c].id.depth < kCoordBits) out.push_back(int(c));
  }
  return out;
}

void Tree::SplitRows(int c, std::vector<uint32_t> rows, const Points& points, std::vector<uint32_t>* cube_of_row) {
  Cube* cube = &cubes_[size_t(c)];
  cube->rows = rows.size();
  for (uint32_t r : rows) (*cube_of_row)[r] = uint32_t(c);
  if (rows.size() <= cube_rows_ || cube->id.depth >= kCoordBits) return;
  double cut = CutWeight(rows.data(), rows.size(), points.weights, size_t(cube_rows_), cube->min_weight, nullptr, 1);
  cube->max_weight = cut;
  for (int k : cube->children) cubes_[size_t(k)].min_weight = cut;
  std::vector<std::vector<uint32_t>> down(size_t(1) << dims_);
  uint64_t kept = 0;
  for (uint32_t r : rows) {
    if (points.weights[r] < cut) {
      ++kept;
    } else {
      down[size_t(ChildNumberOfRow(cube->id, points, r))].push_back(r);
    }
  }
  cube->rows = kept;
  for (size_t k = 0; k < down.size(); ++k) {
    if (down[k].empty()) continue;
    int child = ChildOf(c, int(k));  // may grow cubes_: `cube` is stale from here on
    Cube& ch = cubes_[size_t(child)];
    if (ch.rows == 0) {
      // All of the child's rows are at hand: split it the same way if it overfills.
      SplitRows(child, std::move(down[k]), points, cube_of_row);
    } else {
      // The child keeps rows we cannot see; the moved rows (lighter than all of them) stay in it
      // and an overfull child is left for the caller's next Overfull/Split round.
      ch.rows += down[k].size();
      for (uint32_t r : down[k]) (*cube_of_row)[r] = uint32_t(child);
    }
  }
}

void Tree::Split(int c, const Points& points, std::vector<uint32_t>* cube_of_row) {
  cube_of_row->assign(points.size, uint32_t(c));
  std::vector<uint32_t> rows(points.size);
  for (size_t i = 0; i < points.size; ++i) rows[i] = uint32_t(i);
  SplitRows(c, std::move(rows), points, cube_of_row);
}

std::vector<int> Tree::Select(const std::vector<Box>& boxes, double sample) const {
  std::vector<int> out;
  if (cubes_.empty() || boxes.empty()) return out;
  // Depth-first with an explicit stack; a subtree is skipped when its cube misses every box
  // (children lie inside their parent) or its min_weight is at least `sample` (children's
  // min_weights are at least their parent's).
  std::vector<int> stack{0};
  std::vector<const Box*> hits;
  while (!stack.empty()) {
    int c = stack.back();
    stack.pop_back();
    const Cube& cube = cubes_[size_t(c)];
    if (!(cube.min_weight < sample)) continue;
    bool hit = false;
    for (const Box& box : boxes) {
      if (cube.id.Intersects(box, dims_)) {
        hit = true;
        break;
      }
    }
    if (!hit) continue;
    out.push_back(c);
    for (auto it = cube.children.rbegin(); it != cube.children.rend(); ++it) stack.push_back(*it);
  }
  return out;
}

std::vector<int> Tree::PreOrder() const {
  std::vector<int> out;
  if (cubes_.empty()) return out;
  std::vector<int> stack{0};
  while (!stack.empty()) {
    int c = stack.back();
    stack.pop_back();
    out.push_back(c);
    const auto& kids = cubes_[size_t(c)].children;
    for (auto it = kids.rbegin(); it != kids.rend(); ++it) stack.push_back(*it);
  }
  return out;
}

int Tree::Find(const CubeId& id) const {
  auto it = index_.find(id);
  return it == index_.end() ? -1 : it->second;
}

int Tree::depth() const {
  int d = 0;
  for (const Cube& c : cubes_) d = std::max(d, int(c.id.depth) + 1);
  return d;
}

nlohmann::json Tree::ToJson() const {
  json cubes = json::array();
  // Index order: parents come before children, so loading recreates the same indexes.
  for (const Cube& c : cubes_) {
    cubes.push_back({{"id", c.id.ToString(dims_)}, {"max_weight", c.max_weight}, {"rows", c.rows}});
  }
  return {{"dims", dims_}, {"cube_rows", cube_rows_}, {"cubes", std::move(cubes)}};
}

Result<Tree> Tree::FromJson(const nlohmann::json& j) {
  auto bad = [](const std::string& what) { return Status::Corruption("OTree tree JSON: " + what); };
  if (!j.is_object()) return bad("not an object");
  auto dims_it = j.find("dims"), rows_it = j.find("cube_rows"), cubes_it = j.find("cubes");
  if (dims_it == j.end() || !dims_it->is_number_integer() || rows_it == j.end() || !rows_it->is_number_unsigned() ||
      cubes_it == j.end() || !cubes_it->is_array()) {
    return bad("missing or mistyped dims/cube_rows/cubes");
  }
  int64_t dims = dims_it->get<int64_t>();
  uint64_t cube_rows = rows_it->get<uint64_t>();
  if (dims < 1 || dims > kMaxDims) return bad("dims " + std::to_string(dims) + " not in [1, 6]");
  if (cube_rows == 0) return bad("cube_rows is 0");
  Tree tree(int(dims), cube_rows);
  size_t n = 0;
  for (const json& e : *cubes_it) {
    std::string where = "cube " + std::to_string(n++);
    if (!e.is_object()) return bad(where + " is not an object");
    auto id_it = e.find("id"), w_it = e.find("max_weight"), r_it = e.find("rows");
    if (id_it == e.end() || !id_it->is_string() || w_it == e.end() || !w_it->is_number() || r_it == e.end() ||
        !r_it->is_number_unsigned()) {
      return bad(where + ": missing or mistyped id/max_weight/rows");
    }
    auto id = CubeId::Parse(id_it->get_ref<const std::string&>(), tree.dims_);
    if (!id.ok()) return bad(where + ": " + id.status().message());
    where += " '" + id_it->get_ref<const std::string&>() + "'";
    double w = w_it->get<double>();
    if (!(w >= 0 && w <= 1)) return bad(where + ": max_weight not in [0, 1]");
    if (tree.Find(*id) >= 0) return bad(where + " repeats");
    int parent = -1;
    if (id->depth > 0) {
      CubeId up = *id;
      up.depth = uint8_t(up.depth - 1);
      for (int i = 0; i < tree.dims_; ++i) up.prefix[size_t(i)] >>= 1;
      parent = tree.Find(up);
      if (parent < 0) return bad(where + " has no parent before it");
      if (w < tree.cubes_[size_t(parent)].max_weight) return bad(where + ": max_weight below its parent's");
    } else if (!tree.cubes_.empty()) {
      return bad(where + ": the root must come first");
    }
    int c = tree.AddCube(*id, parent, w);
    tree.cubes_[size_t(c)].rows = r_it->get<uint64_t>();
  }
  return tree;
}

}  // namespace lakeindex::layout::otree
