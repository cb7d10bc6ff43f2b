// The "layout" object of a manifest: how a table's rows are placed (docs/format.md and docs/otree.md).
//
//   {"kind": "otree" | "sort" | "zorder" | "hilbert",
//    "columns": ["x", "y"],            the layout's columns, in dimension order
//    "transform": "default" | "linear" | "quantile",
//    "cube_rows": N, "slices": S, "page_rows": P,  the parameters the data was written with
//    "row_groups": "regions",          otree, when its row groups go by region (absent: by slice)
//    "revisions": [{"id": 1, "transforms": [...], "tree": {...}}],     otree only
//    "blocks": [{"fragment", "row_group", "revision", "cube", "rows",
//                "min_weight", "max_weight"}]}                           otree only
// A block is one row group of a data file holding rows of one cube of one revision, with the
// smallest and largest `_lakeindex_weight` among them (a weight slice of the cube; by region, the
// cube's rows in one cell of its region, every slice's). Every row of an OTree
// table is in exactly one block; fragments listed in no block do not exist in an OTree table.
// Sort / Z-order / Hilbert layouts (the comparison layouts) record only kind and columns: their
// files are ordinary fragments.
// Thread safety: values.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "layout/otree/space.h"
#include "layout/otree/tree.h"
#include "lakeindex/status.h"
#include "lakeindex/types.h"
#include "table/manifest.h"
#include "table/table.h"

namespace lakeindex::layout {

inline constexpr const char* kWeightColumn = "_lakeindex_weight";
// How an OTree cuts a cube into row groups. By slice (the default): each weight slice of the cube
// is a row group spanning the cube's region — a sample reads whole row groups of the slices below
// it. By region: cubes with children are cut by space into the cells of the level of the deepest
// such cubes, each row group holding every slice's rows in its cell (slices apart in pages): an
// engine that skips only row groups by their min/max (Spark and Trino on Iceberg) then reads
// about one cell per level for a small box instead of one whole cube per level.
inline constexpr const char* kRowGroupsBySlice = "slices";
inline constexpr const char* kRowGroupsByRegion = "regions";
// The row groups of a layout of `kind` when none are asked for: by region for an OTree. Other
// engines skip only whole row groups, and lakeindex's own small boxes pay per row group: the
// 0.01% box at 2M events rows meets about 29 row groups by slice and 3 by region, for the same
// rows and pages, in about half the time (bench/RESULTS.md, "Small boxes by region"). Its small
// samples, whose slices by slice are whole row groups, take about twice as long (0.1 → 0.25 ms).
// `manifest` is kept for the callers: the choice once depended on its Iceberg metadata.
std::string DefaultRowGroups(const std::string& kind, const table::Manifest& manifest);

// "otree", or one of the comparison layouts "sort", "zorder", "hilbert".
bool IsLayoutKind(std::string_view kind);

struct BlockMeta {
  uint32_t fragment = 0;
  int row_group = 0;
  int revision = 0;
  otree::CubeId cube;
  uint64_t rows = 0;
  double min_weight = 0;  // of the rows in the block
  double max_weight = 0;
  bool operator==(const BlockMeta&) const = default;
};

struct Revision {
  int id = 0;
  std::vector<otree::Transform> transforms;  // one per layout column
  otree::Tree tree;
};

struct LayoutMeta {
  std::string kind = "otree";
  std::vector<std::string> columns;
  std::string transform = "default";
  uint64_t cube_rows = 0;
  int slices = 0;
  uint64_t page_rows = 0;
  std::string row_groups = kRowGroupsBySlice;  // otree: kRowGroupsBySlice or kRowGroupsByRegion
  std::vector<Revision> revisions;
  std::vector<BlockMeta> blocks;

  bool is_otree() const { return kind == "otree"; }
  const Revision* FindRevision(int id) const;
  Revision* FindRevision(int id);
  // Table column index of every layout column (InvalidArgument if one is missing).
  Result<std::vector<int>> ColumnIndexes(const Schema& schema) const;

  nlohmann::json ToJson() const;
  // Corruption (naming `source`) for a malformed object, unknown columns or types, blocks that
  // name unknown revisions or cubes.
  static Result<LayoutMeta> FromJson(const nlohmann::json& j, const Schema& schema, std::string_view source);
};

// The layout of a manifest: nullopt when it has none.
Result<std::optional<LayoutMeta>> LoadLayout(const table::Manifest& manifest);
// The same for the table's version, parsed once per Table and version (Table::SharedObject):
// queries on an OTree table would otherwise parse every block's cube from JSON each time.
Result<std::shared_ptr<const std::optional<LayoutMeta>>> LoadLayout(const table::Table& table);

}  // namespace lakeindex::layout
