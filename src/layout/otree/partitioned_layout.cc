#include "layout/otree/partitioned_layout.h"

#include <algorithm>
#include <functional>
#include <map>
#include <unordered_map>

#include "layout/otree/layout_parts.h"

namespace lakeindex::layout {

namespace {

using otree::CubeId;
using otree::Transform;
using otree::Tree;

// The live rows of `part`'s fragments, in order, with the table columns `columns` (all when empty).
Result<Batch> ReadPart(const table::Table& table, const LayoutPartition& part, const std::vector<int>& columns) {
  Batch out;
  bool first = true;
  for (uint32_t id : part.fragments) {
    const table::FragmentMeta* f = table.manifest().FindFragment(id);
    if (f == nullptr) {
      return Status::NotFound("layout part: version " + std::to_string(table.version()) + " has no fragment " +
                              std::to_string(id));
    }
    ASSIGN_OR_RETURN(Batch rows, table.ReadFragment(*f, columns));
    if (first) {
      out = std::move(rows);
      first = false;
    } else {
      RETURN_IF_ERROR(out.Append(rows));
    }
  }
  if (first) {
    Schema schema;
    if (columns.empty()) return Batch(table.schema());
    for (int c : columns) schema.AddField(table.schema().field(size_t(c)));
    out = Batch(schema);
  }
  RETURN_IF_ERROR(out.Seal());
  return out;
}

// Table column indexes of the layout columns followed by `_lakeindex_weight` when the table has one
// (the columns the points of a part need).
std::vector<int> PointColumns(const Schema& schema, const LayoutOptions& options) {
  std::vector<int> out;
  for (const std::string& name : options.columns) out.push_back(schema.FindField(name));
  if (int w = schema.FindField(kWeightColumn); w >= 0) out.push_back(w);
  return out;
}

Status CheckOTree(const table::Table& table, const LayoutOptions& options) {
  RETURN_IF_ERROR(parts::CheckColumns(table.schema(), options));
  if (options.kind != "otree") {
    return Status::InvalidArgument("a partitioned layout builds an OTree, not '" + options.kind + "'");
  }
  return Status::OK();
}

// The child of `tree`'s cube c holding `coords`, or -1 when the tree lacks it.
int ChildHolding(const Tree& tree, int c, const uint32_t* coords) {
  const otree::Cube& cube = tree.cubes()[size_t(c)];
  const CubeId want = cube.id.Child(cube.id.ChildNumberOf(coords, tree.dims()), tree.dims());
  for (int k : cube.children) {
    if (tree.cubes()[size_t(k)].id == want) return k;
  }
  return -1;
}

}  // namespace

std::vector<LayoutPartition> PartitionFragments(const table::Table& table, size_t parts) {
  const uint64_t total = table.manifest().total_rows();
  std::vector<LayoutPartition> out;
  if (total == 0) return out;
  parts = std::max<size_t>(parts, 1);
  const uint64_t target = (total + parts - 1) / parts;
  uint64_t position = 0, in_current = 0;
  for (const table::FragmentMeta& f : table.manifest().fragments) {
    const uint64_t live = f.live_rows();
    if (live == 0) continue;
    if (out.empty() || (in_current >= target && out.size() < parts)) {
      out.push_back(LayoutPartition{{}, position});
      in_current = 0;
    }
    out.back().fragments.push_back(f.id);
    in_current += live;
    position += live;
  }
  return out;
}

Result<std::vector<ColumnSample>> SampleLayoutColumns(const table::Table& table, const LayoutOptions& options,
                                                      const LayoutPartition& part) {
  RETURN_IF_ERROR(CheckOTree(table, options));
  std::vector<int> columns = PointColumns(table.schema(), options);
  columns.resize(options.columns.size());  // no weights needed here
  ASSIGN_OR_RETURN(Batch rows, ReadPart(table, part, columns));
  const uint64_t stride = std::max<uint64_t>(1, table.manifest().total_rows() / parts::kSampleValues);
  std::vector<ColumnSample> out(columns.size());
  for (size_t d = 0; d < columns.size(); ++d) {
    out[d].stats = ComputeColumnStats(rows.column(d));
    out[d].sample = parts::SampleColumn(rows.column(d), part.first_row, stride);
  }
  return out;
}

Result<std::vector<Transform>> FitPartitionedTransforms(const table::Table& table, const LayoutOptions& options,
                                                        const std::vector<std::vector<ColumnSample>>& parts) {
  RETURN_IF_ERROR(CheckOTree(table, options));
  std::vector<Transform> out;
  for (size_t d = 0; d < options.columns.size(); ++d) {
    const Field& field = table.schema().field(size_t(table.schema().FindField(options.columns[d])));
    ColumnStats stats;
    std::vector<Value> sample;
    for (const auto& part : parts) {
      if (part.size() != options.columns.size()) {
        return Status::InvalidArgument("layout part: samples of " + std::to_string(part.size()) + " columns, expected " +
                                       std::to_string(options.columns.size()));
      }
      stats.Merge(part[d].stats);
      sample.insert(sample.end(), part[d].sample.begin(), part[d].sample.end());
    }
    ASSIGN_OR_RETURN(Transform t, parts::FitColumnTransform(field.type, field.name, stats, std::move(sample), options.transform));
    out.push_back(std::move(t));
  }
  return out;
}

otree::Points PartitionPoints::points() const {
  otree::Points p;
  p.dims = int(coords.size());
  p.size = weights.size();
  for (size_t d = 0; d < coords.size(); ++d) p.coords[d] = coords[d].data();
  p.weights = weights.data();
  return p;
}

Result<PartitionPoints> ComputePartitionPoints(const table::Table& table, const LayoutOptions& options,
                                               const LayoutPartition& part, const std::vector<Transform>& transforms) {
  RETURN_IF_ERROR(CheckOTree(table, options));
  if (transforms.size() != options.columns.size()) return Status::InvalidArgument("layout part: wrong number of transformations");
  ASSIGN_OR_RETURN(Batch rows, ReadPart(table, part, PointColumns(table.schema(), options)));
  Batch weighted = parts::AddWeights(std::move(rows), options.seed, part.first_row);
  const size_t n = weighted.num_rows();
  PartitionPoints out;
  out.coords.resize(transforms.size());
  for (size_t d = 0; d < transforms.size(); ++d) {
    out.coords[d].resize(n);
    transforms[d].Coords(weighted.column(d), out.coords[d].data());
  }
  const double* w = weighted.column(size_t(weighted.schema().FindField(kWeightColumn))).data<double>();
  out.weights.assign(w, w + n);
  return out;
}

namespace {

// Calls fn(key, weight) for every point that reaches a cube at `depth` of `tree` (its weight at
// least every ancestor's max weight); key = parent index * 64 + child number + 1 (0: the root).
template <typename Fn>
void ForEachReaching(const PartitionPoints& points, const Tree& tree, int depth, Fn fn) {
  const int dims = tree.dims();
  const otree::Points p = points.points();
  if (depth > 0 && tree.cubes().empty()) return;
  uint32_t coords[otree::kMaxDims];
  for (size_t i = 0; i < p.size; ++i) {
    const double w = p.weights[i];
    for (int d = 0; d < dims; ++d) coords[d] = p.coords[size_t(d)][i];
    int c = 0;
    bool reaches = true;
    uint64_t key = 0;
    for (int level = 0; level < depth && reaches; ++level) {
      const otree::Cube& cube = tree.cubes()[size_t(c)];
      if (w < cube.max_weight || cube.id.depth >= otree::kCoordBits) {
        reaches = false;  // stays in this cube
      } else if (level + 1 == depth) {
        key = uint64_t(c) * 64 + uint64_t(cube.id.ChildNumberOf(coords, dims)) + 1;
      } else {
        c = ChildHolding(tree, c, coords);
        reaches = c >= 0;  // absent only when the tree is not this table's
      }
    }
    if (reaches) fn(key, w);
  }
}

CubeId CubeOfKey(const Tree& tree, uint64_t key) {
  if (key == 0) return CubeId{};
  const otree::Cube& parent = tree.cubes()[size_t((key - 1) / 64)];
  return parent.id.Child(int((key - 1) % 64), tree.dims());
}

}  // namespace

std::vector<CubeWeights> LevelWeights(const PartitionPoints& points, const Tree& tree, int depth) {
  std::unordered_map<uint64_t, CubeWeights> reached;
  ForEachReaching(points, tree, depth, [&](uint64_t key, double w) {
    CubeWeights& cw = reached[key];
    if (cw.rows == 0) cw.id = CubeOfKey(tree, key);
    ++cw.rows;
    cw.lightest.push_back(w);
  });
  std::vector<CubeWeights> out;
  const size_t keep = size_t(tree.cube_rows()) + 1;
  for (auto& [key, cw] : reached) {
    if (cw.lightest.size() > keep) {
      std::nth_element(cw.lightest.begin(), cw.lightest.begin() + long(keep), cw.lightest.end());
      cw.lightest.resize(keep);
    }
    std::sort(cw.lightest.begin(), cw.lightest.end());
    out.push_back(std::move(cw));
  }
  std::sort(out.begin(), out.end(), [](const CubeWeights& a, const CubeWeights& b) { return a.id < b.id; });
  return out;
}

PartitionedTreeBuilder::PartitionedTreeBuilder(int dims, uint64_t cube_rows)
    : dims_(dims), cube_rows_(std::max<uint64_t>(cube_rows, 1)), tree_(dims, cube_rows) {}

Status PartitionedTreeBuilder::AddLevel(const std::vector<std::vector<CubeWeights>>& parts) {
  if (done_) return Status::InvalidArgument("the tree is finished");
  struct Merged {
    uint64_t rows = 0;
    std::vector<double> lightest;
  };
  std::map<CubeId, Merged> merged;
  for (const auto& part : parts) {
    for (const CubeWeights& cw : part) {
      if (cw.id.depth != depth_) {
        return Status::InvalidArgument("layout part: cube '" + cw.id.ToString(dims_) + "' is not at depth " +
                                       std::to_string(depth_));
      }
      Merged& m = merged[cw.id];
      m.rows += cw.rows;
      m.lightest.insert(m.lightest.end(), cw.lightest.begin(), cw.lightest.end());
    }
  }
  std::vector<CubeMax> level;
  for (auto& [id, m] : merged) {
    CubeMax c{id, m.rows, 1.0};
    if (m.rows > cube_rows_ && id.depth < otree::kCoordBits) {
      if (m.lightest.size() <= cube_rows_) return Status::InvalidArgument("layout part: too few weights for a cube");
      std::nth_element(m.lightest.begin(), m.lightest.begin() + long(cube_rows_), m.lightest.end());
      c.max_weight = m.lightest[size_t(cube_rows_)];
    }
    level.push_back(c);
  }
  return AddLevelMaxWeights(std::move(level));
}

Status PartitionedTreeBuilder::AddLevelMaxWeights(std::vector<CubeMax> level) {
  if (done_) return Status::InvalidArgument("the tree is finished");
  std::map<CubeId, CubeMax> merged;
  for (const CubeMax& c : level) {
    if (c.id.depth != depth_) {
      return Status::InvalidArgument("layout part: cube '" + c.id.ToString(dims_) + "' is not at depth " +
                                     std::to_string(depth_));
    }
    merged[c.id] = c;
  }
  // LayoutTable's cube order: level by level, children of each inner cube of the level above
  // (in the order those were created) by child number.
  std::vector<CubeId> order;
  if (depth_ == 0) {
    if (!merged.empty()) order.push_back(CubeId{});
  } else {
    for (const otree::Cube& cube : tree_.cubes()) {
      if (cube.id.depth != depth_ - 1 || cube.max_weight >= 1) continue;
      for (int k = 0; k < (1 << dims_); ++k) {
        CubeId id = cube.id.Child(k, dims_);
        if (merged.count(id)) order.push_back(id);
      }
    }
  }
  if (order.size() != merged.size()) {
    return Status::InvalidArgument("layout part: rows reached cubes at depth " + std::to_string(depth_) +
                                   " below no inner cube of the tree");
  }
  bool any_inner = false;
  for (const CubeId& id : order) {
    const double max_weight = merged[id].max_weight;
    any_inner |= max_weight < 1;
    cubes_.push_back({{"id", id.ToString(dims_)}, {"max_weight", max_weight}, {"rows", uint64_t(0)}});
  }
  ASSIGN_OR_RETURN(tree_, Tree::FromJson({{"dims", dims_}, {"cube_rows", cube_rows_}, {"cubes", cubes_}}));
  ++depth_;
  done_ = !any_inner;
  return Status::OK();
}

std::string RevisionToJson(const Revision& revision) {
  nlohmann::json transforms = nlohmann::json::array();
  for (const Transform& t : revision.transforms) transforms.push_back(t.ToJson());
  return nlohmann::json{{"id", revision.id}, {"transforms", transforms}, {"tree", revision.tree.ToJson()}}.dump();
}

Result<Revision> RevisionFromJson(const std::string& text, const table::Table& table, const LayoutOptions& options) {
  RETURN_IF_ERROR(CheckOTree(table, options));
  auto bad = [](const std::string& what) { return Status::InvalidArgument("layout revision JSON: " + what); };
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object() || !j.contains("id") || !j["id"].is_number_integer() || !j.contains("transforms") ||
      !j["transforms"].is_array() || !j.contains("tree")) {
    return bad("expected {\"id\", \"transforms\", \"tree\"}");
  }
  if (j["transforms"].size() != options.columns.size()) return bad("one transformation per layout column expected");
  Revision rev;
  rev.id = j["id"].get<int>();
  for (size_t d = 0; d < options.columns.size(); ++d) {
    const TypeId type = table.schema().field(size_t(table.schema().FindField(options.columns[d]))).type;
    ASSIGN_OR_RETURN(Transform t, Transform::FromJson(j["transforms"][d], type));
    rev.transforms.push_back(std::move(t));
  }
  ASSIGN_OR_RETURN(rev.tree, Tree::FromJson(j["tree"]));
  if (rev.tree.dims() != int(options.columns.size())) return bad("the tree's dimensions differ from the columns");
  return rev;
}

Result<std::string> WriteLayoutPartition(const table::Table& table, const LayoutOptions& options,
                                         const LayoutPartition& part, const Revision& revision) {
  RETURN_IF_ERROR(CheckOTree(table, options));
  ASSIGN_OR_RETURN(Batch rows, ReadPart(table, part, {}));
  parts::Placed placed;
  placed.rows = parts::AddWeights(std::move(rows), options.seed, part.first_row);
  const Schema schema = placed.rows.schema();
  placed.weight_column = schema.FindField(kWeightColumn);
  LayoutMeta meta = parts::MetaFor(options);
  ASSIGN_OR_RETURN(std::vector<int> columns, meta.ColumnIndexes(schema));
  RETURN_IF_ERROR(parts::ExtendCoords(&placed, columns, revision.transforms));
  Tree tree = revision.tree;
  std::vector<uint32_t> cube_of_row;
  tree.Place(placed.points(), &cube_of_row);
  if (tree.cubes().size() != revision.tree.cubes().size()) {
    return Status::InvalidArgument("layout part: rows of fragments from " + std::to_string(part.first_row) +
                                   " fall outside the revision's tree (not built from this table version)");
  }
  ASSIGN_OR_RETURN(std::vector<parts::WrittenFile> files,
                   parts::WriteCubes(table.store(), placed, tree, cube_of_row, revision.id, meta, options.write));
  // The files as a partial manifest: fragments numbered from 0, the layout with their blocks.
  table::Manifest out;
  out.version = table.version();
  out.operation = "layout part";
  out.schema = schema;
  meta.revisions.push_back(revision);
  for (size_t f = 0; f < files.size(); ++f) {
    files[f].meta.id = uint32_t(f);
    out.fragments.push_back(files[f].meta);
    for (BlockMeta b : files[f].blocks) {
      b.fragment = uint32_t(f);
      meta.blocks.push_back(b);
    }
  }
  out.next_fragment_id = uint32_t(files.size());
  out.layout = meta.ToJson();
  return table::SerializeManifest(out);
}

Result<LayoutReport> CommitPartitionedLayout(table::Table* table, const LayoutOptions& options, Revision revision,
                                             const std::vector<std::string>& written) {
  RETURN_IF_ERROR(CheckOTree(*table, options));
  const Schema schema = parts::WithWeight(table->schema());
  std::vector<parts::WrittenFile> files;
  LayoutReport report;
  for (size_t p = 0; p < written.size(); ++p) {
    const std::string source = "layout part " + std::to_string(p);
    ASSIGN_OR_RETURN(table::Manifest m, table::ParseManifest(reinterpret_cast<const uint8_t*>(written[p].data()),
                                                             written[p].size(), source));
    if (!(m.schema == schema)) return Status::Corruption(source + ": written with another schema");
    ASSIGN_OR_RETURN(LayoutMeta part_meta, LayoutMeta::FromJson(m.layout, m.schema, source));
    for (const table::FragmentMeta& f : m.fragments) {
      parts::WrittenFile file{f, {}};
      file.meta.id = 0;
      for (const BlockMeta& b : part_meta.blocks) {
        if (b.fragment == f.id) file.blocks.push_back(b);
      }
      report.rows += f.rows;
      report.blocks += file.blocks.size();
      files.push_back(std::move(file));
    }
  }
  if (report.rows != table->manifest().total_rows()) {
    return Status::InvalidArgument("layout parts wrote " + std::to_string(report.rows) + " rows, the table has " +
                                   std::to_string(table->manifest().total_rows()));
  }
  report.files = files.size();
  report.cubes = revision.tree.cubes().size();
  report.depth = revision.tree.depth();
  LayoutMeta meta = parts::MetaFor(options);
  meta.revisions.push_back(std::move(revision));
  std::set<uint32_t> removed;
  for (const table::FragmentMeta& f : table->manifest().fragments) removed.insert(f.id);
  RETURN_IF_ERROR(parts::CommitLayout(table, "layout", std::move(removed), std::move(files), std::move(meta), schema,
                                      options.write.before_commit));
  return report;
}

Result<LayoutReport> LayoutTablePartitioned(table::Table* table, const LayoutOptions& options, size_t parts,
                                            bool keep_points) {
  RETURN_IF_ERROR(CheckOTree(*table, options));
  const std::vector<LayoutPartition> partitions = PartitionFragments(*table, parts);
  std::vector<std::vector<ColumnSample>> samples;
  for (const LayoutPartition& part : partitions) {
    ASSIGN_OR_RETURN(auto sample, SampleLayoutColumns(*table, options, part));
    samples.push_back(std::move(sample));
  }
  Revision revision;
  revision.id = 1;
  if (!partitions.empty()) {
    ASSIGN_OR_RETURN(revision.transforms, FitPartitionedTransforms(*table, options, samples));
  } else {  // an empty table: LayoutTable fits every column as all-NULL
    for (const std::string& name : options.columns) {
      const Field& field = table->schema().field(size_t(table->schema().FindField(name)));
      ASSIGN_OR_RETURN(Transform t, parts::FitColumnTransform(field.type, name, {}, {}, options.transform));
      revision.transforms.push_back(std::move(t));
    }
  }
  samples.clear();
  PartitionedTreeBuilder builder(int(options.columns.size()), options.cube_rows);
  if (keep_points) {
    std::vector<PartitionPoints> points;
    for (const LayoutPartition& part : partitions) {
      ASSIGN_OR_RETURN(PartitionPoints p, ComputePartitionPoints(*table, options, part, revision.transforms));
      points.push_back(std::move(p));
    }
    while (!builder.done()) {
      std::vector<std::vector<CubeWeights>> level;
      for (const PartitionPoints& p : points) level.push_back(LevelWeights(p, builder.tree(), builder.depth()));
      RETURN_IF_ERROR(builder.AddLevel(level));
    }
  } else {
    // Runs fn(key, weight) over every part's points that reach a cube at the builder's depth.
    auto each = [&](const std::string& step, const std::function<void(uint64_t, double)>& fn) -> Status {
      uint64_t rows = 0;
      for (const LayoutPartition& part : partitions) {
        if (options.progress) options.progress(step, rows, table->manifest().total_rows());
        ASSIGN_OR_RETURN(PartitionPoints p, ComputePartitionPoints(*table, options, part, revision.transforms));
        ForEachReaching(p, builder.tree(), builder.depth(), fn);
        rows += p.weights.size();
      }
      return Status::OK();
    };
    constexpr size_t kBuckets = 4096;
    struct Counted {
      uint64_t rows = 0;
      double lo = 0;  // every weight reaching the cube is at least its parent's max weight
      std::vector<uint64_t> histogram;
      size_t bucket = kBuckets;  // the one holding the (cube_rows + 1)-th lightest; kBuckets: none
      uint64_t rank = 0;         // its rank among that bucket's weights
      std::vector<double> weights;
    };
    auto bucket_of = [](const Counted& c, double w) {
      return std::min(kBuckets - 1, size_t((w - c.lo) / (1 - c.lo) * double(kBuckets)));
    };
    while (!builder.done()) {
      const std::string level_name = "tree level " + std::to_string(builder.depth());
      const Tree& tree = builder.tree();
      std::unordered_map<uint64_t, Counted> cubes;
      RETURN_IF_ERROR(each(level_name + ", counting", [&](uint64_t key, double w) {
        Counted& c = cubes[key];
        if (c.histogram.empty()) {
          c.histogram.assign(kBuckets, 0);
          c.lo = key == 0 ? 0 : tree.cubes()[size_t((key - 1) / 64)].max_weight;
        }
        ++c.rows;
        ++c.histogram[bucket_of(c, w)];
      }));
      bool second_pass = false;
      for (auto& [key, c] : cubes) {
        if (c.rows <= options.cube_rows || CubeOfKey(tree, key).depth >= otree::kCoordBits) continue;
        uint64_t below = 0;
        for (size_t b = 0; b < kBuckets; ++b) {
          if (below + c.histogram[b] > options.cube_rows) {
            c.bucket = b;
            c.rank = options.cube_rows - below;
            break;
          }
          below += c.histogram[b];
        }
        c.histogram = {};
        second_pass = true;
      }
      if (second_pass) {
        RETURN_IF_ERROR(each(level_name + ", selecting", [&](uint64_t key, double w) {
          Counted& c = cubes.at(key);
          if (c.bucket < kBuckets && bucket_of(c, w) == c.bucket) c.weights.push_back(w);
        }));
      }
      std::vector<CubeMax> level;
      for (auto& [key, c] : cubes) {
        CubeMax m{CubeOfKey(tree, key), c.rows, 1.0};
        if (c.bucket < kBuckets) {
          if (c.rank >= c.weights.size()) return Status::Internal("layout: a weight bucket lost rows between passes");
          std::nth_element(c.weights.begin(), c.weights.begin() + std::ptrdiff_t(c.rank), c.weights.end());
          m.max_weight = c.weights[size_t(c.rank)];
        }
        level.push_back(m);
      }
      RETURN_IF_ERROR(builder.AddLevelMaxWeights(std::move(level)));
    }
  }
  revision.tree = builder.tree();
  std::vector<std::string> written;
  uint64_t rows_written = 0;
  for (const LayoutPartition& part : partitions) {
    if (options.progress) options.progress("writing", rows_written, table->manifest().total_rows());
    ASSIGN_OR_RETURN(std::string text, WriteLayoutPartition(*table, options, part, revision));
    written.push_back(std::move(text));
    for (uint32_t id : part.fragments) rows_written += table->manifest().FindFragment(id)->live_rows();
  }
  return CommitPartitionedLayout(table, options, std::move(revision), written);
}

}  // namespace lakeindex::layout
