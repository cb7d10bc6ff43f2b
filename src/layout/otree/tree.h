// The OTree proper: cubes with max weights, row placement and the reader's tree walk.
//
// Every row carries a weight w in [0, 1) (the hidden `_lakeindex_weight` column). A cube has a max_weight;
// a row lives in the first cube along its path from the root whose max_weight is above w.
// Leaves have max_weight 1, so every row finds a cube. A cube's rows thus have weights in
// [min_weight, max_weight) where min_weight is its parent's max_weight (0 for the root), and
// every inner cube is a uniform sample of its whole subspace: sample(f) needs only cubes with
// min_weight < f.
// Thread safety: const methods may run concurrently; mutation needs external synchronization.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include <nlohmann/json.hpp>

#include "layout/otree/space.h"
#include "lakeindex/status.h"

namespace lakeindex {
class ThreadPool;
}

namespace lakeindex::layout::otree {

struct Cube {
  CubeId id;
  double min_weight = 0;  // parent's max_weight
  double max_weight = 1;  // 1 for leaves
  int parent = -1;        // index into Tree::cubes(), -1 for the root
  std::vector<int> children;  // indexes of existing children (any order)
  uint64_t rows = 0;          // rows placed here so far
};

class Tree {
 public:
  Tree() = default;
  Tree(int dims, uint64_t cube_rows);

  // The ideal tree over all `points`: top-down, each cube keeps the cube_rows rows of lowest
  // weight among those reaching it (max_weight = the next weight up, so exactly those stay),
  // the rest go to the children; a cube reached by at most cube_rows rows is a leaf. Cubes at
  // depth kCoordBits are leaves whatever their size. Sets cube_of_row[i] to the index of row
  // i's cube. Deterministic.
  static Tree Build(int dims, uint64_t cube_rows, const Points& points, std::vector<uint32_t>* cube_of_row);

  // Places further rows into this tree (appends): each goes down from the root to the first cube
  // whose max_weight is above its weight, creating missing cubes as leaves (max_weight 1).
  // Max weights do not change, so cubes may overfill (Overfull / Split repair that).
  void Place(const Points& points, std::vector<uint32_t>* cube_of_row);

  // The cube of each point in the tree as it stands: Place's walk, creating no cube and counting
  // no row, in chunks on `pool` (null: this thread). False when a point needs a cube the tree
  // lacks (cube_of_row is then unspecified).
  bool Locate(const Points& points, ThreadPool* pool, std::vector<uint32_t>* cube_of_row) const;
  // Each cube's children by child number: at [c * 64 + k] the index of cube c's child k, -1 when
  // it has none.
  std::vector<int32_t> ChildTable() const;

  // Cubes holding more than `factor` * cube_rows rows, and below depth kCoordBits.
  std::vector<int> Overfull(double factor) const;
  // Re-places the rows of cube `c` (their points, in any order) so that it keeps at most cube_rows:
  // lowers its max_weight to the next weight above its cube_rows lowest and sends the others to
  // its children (existing children's min_weight drops to the new max_weight; missing children are
  // created as leaves). Returns, per row, the cube index it now belongs to (c or a descendant;
  // a child that held no rows before and overfills is split recursively the same way). Row
  // counts are updated. A child that already held rows keeps the moved rows (they are lighter
  // than its own) but cannot be split here, since its other rows are not at hand: if it
  // overfills, it shows up in the next Overfull() and the caller splits it with all its rows
  // (optimize repeats Overfull/Split until nothing is overfull).
  // REQUIRES: `points` are exactly the rows of cube c.
  void Split(int c, const Points& points, std::vector<uint32_t>* cube_of_row);

  // Cubes intersecting any of `boxes` (no boxes = none) and with min_weight < sample
  // (sample 1 = no sampling), found by walking from the root and skipping subtrees that miss.
  // Returned in pre-order (parents before children; children in child-number order).
  std::vector<int> Select(const std::vector<Box>& boxes, double sample = 1.0) const;

  // Pre-order of all cubes (the write order: a file then covers a compact region).
  std::vector<int> PreOrder() const;

  int dims() const { return dims_; }
  uint64_t cube_rows() const { return cube_rows_; }
  const std::vector<Cube>& cubes() const { return cubes_; }
  int Find(const CubeId& id) const;  // -1 if absent
  int depth() const;                 // max depth + 1 (0 for an empty tree)
  void set_rows(int c, uint64_t rows) { cubes_[size_t(c)].rows = rows; }

  // {"dims","cube_rows","cubes":[{"id","max_weight","rows"}...]} (min_weight and the links
  // are derived on load), cubes in index order, so loading gives the same indexes. Corruption
  // when ids do not parse, repeat, lack a parent listed before them, or weights are not in
  // [0, 1] or decrease from parent to child. (0 and equal weights are legal: ties of weights at
  // a cut can leave a cube empty.)
  nlohmann::json ToJson() const;
  static Result<Tree> FromJson(const nlohmann::json& j);

 private:
  int AddCube(const CubeId& id, int parent, double max_weight);
  int ChildOf(int c, int child_number);  // creates it as a leaf if missing
  // Split's worker: `rows` (indexes into `points`) are exactly the rows of cube c.
  void SplitRows(int c, std::vector<uint32_t> rows, const Points& points, std::vector<uint32_t>* cube_of_row);

  int dims_ = 0;
  uint64_t cube_rows_ = 0;
  std::vector<Cube> cubes_;
  std::map<CubeId, int> index_;
};

}  // namespace lakeindex::layout::otree
