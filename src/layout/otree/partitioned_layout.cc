#include "layout/otree/partitioned_layout.h"

#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>

#include "common/thread_pool.h"
#include "format/parquet/reader.h"
#include "format/parquet/writer.h"
#include "layout/otree/layout_parts.h"
#include "layout/otree/spill.h"
#include "table/manifest.h"

namespace lakeindex::layout {

double weight_window_sigmas = 8;
int reach_table_bits = 16;

namespace {

using otree::CubeId;
using otree::Transform;
using otree::Tree;

// The live rows of `part`'s fragments, in order, with the table columns `columns` (all when
// empty): a batch per fragment.
Result<std::vector<Batch>> ReadPartPieces(const table::Table& table, const LayoutPartition& part,
                                          const std::vector<int>& columns) {
  std::vector<const table::FragmentMeta*> fragments;
  for (uint32_t id : part.fragments) {
    fragments.push_back(table.manifest().FindFragment(id));
    if (fragments.back() == nullptr) {
      return Status::NotFound("layout part: version " + std::to_string(table.version()) + " has no fragment " +
                              std::to_string(id));
    }
  }
  // The fragments decoded in parallel (a reader decodes its columns one after another).
  std::vector<Result<Batch>> read(fragments.size(), Status::Internal("unread"));
  ParallelFor(ThreadPool::Default(), fragments.size(), [&](size_t i) { read[i] = table.ReadFragment(*fragments[i], columns); });
  std::vector<Batch> out;
  for (Result<Batch>& r : read) {
    if (!r.ok()) return r.status();
    out.push_back(std::move(r).value());
  }
  return out;
}

// The same as one batch.
Result<Batch> ReadPart(const table::Table& table, const LayoutPartition& part, const std::vector<int>& columns) {
  ASSIGN_OR_RETURN(std::vector<Batch> pieces, ReadPartPieces(table, part, columns));
  if (pieces.empty()) {
    if (columns.empty()) return Batch(table.schema());
    Schema schema;
    for (int c : columns) schema.AddField(table.schema().field(size_t(c)));
    return Batch(schema);
  }
  Batch out = std::move(pieces[0]);
  size_t rows = out.num_rows();
  for (size_t i = 1; i < pieces.size(); ++i) rows += pieces[i].num_rows();
  for (Column& c : out.columns()) c.Reserve(rows);
  for (size_t i = 1; i < pieces.size(); ++i) RETURN_IF_ERROR(out.Append(pieces[i]));
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

Result<Batch> ReadLayoutColumns(const table::Table& table, const LayoutOptions& options, const LayoutPartition& part) {
  RETURN_IF_ERROR(CheckOTree(table, options));
  return ReadPart(table, part, PointColumns(table.schema(), options));
}

Result<std::string> EncodeLayoutColumns(const Batch& read) {
  parquet::WriteOptions o;
  o.fixed_width_zstd_level = -1;
  o.byte_stream_split_floats = true;
  o.delta_integers = true;
  o.page_index = false;
  ASSIGN_OR_RETURN(auto writer, parquet::ParquetWriter::Make(read.schema(), o));
  RETURN_IF_ERROR(writer->Write(read));
  return writer->Finish();
}

Result<Batch> DecodeLayoutColumns(std::string_view bytes) {
  // The Parquet reader reads through a store: an in-memory one holds the bytes.
  std::unique_ptr<ObjectStore> memory = NewMemoryStore();
  RETURN_IF_ERROR(memory->Write("layout_columns.parquet", bytes));
  auto reader = parquet::ParquetReader::Open(memory.get(), "layout_columns.parquet");
  if (!reader.ok()) return Status::Corruption("layout part: the columns read do not decode: " + reader.status().message());
  std::vector<int> all((*reader)->schema().num_fields());
  std::iota(all.begin(), all.end(), 0);
  Batch out((*reader)->schema());
  for (int rg = 0; rg < (*reader)->num_row_groups(); ++rg) {
    ASSIGN_OR_RETURN(Batch rows, (*reader)->ReadRowGroup(rg, all));
    RETURN_IF_ERROR(out.Append(rows));
  }
  RETURN_IF_ERROR(out.Seal());
  return out;
}

namespace {

// The live rows of `part`'s fragments (those the version has).
uint64_t PartRows(const table::Table& table, const LayoutPartition& part) {
  uint64_t rows = 0;
  for (uint32_t id : part.fragments) {
    const table::FragmentMeta* f = table.manifest().FindFragment(id);
    if (f != nullptr) rows += f->live_rows();
  }
  return rows;
}

// `read` checked to be ReadLayoutColumns' batch of `part` on `table`.
Status CheckRead(const table::Table& table, const LayoutOptions& options, const LayoutPartition& part, const Batch& read) {
  const std::vector<int> columns = PointColumns(table.schema(), options);
  bool same = read.num_columns() == columns.size();
  for (size_t c = 0; same && c < columns.size(); ++c) same = read.schema().field(c) == table.schema().field(size_t(columns[c]));
  if (!same) return Status::InvalidArgument("layout part: the columns read are not this layout's (" + read.schema().ToString() + ")");
  const uint64_t rows = PartRows(table, part);
  if (read.num_rows() != rows) {
    return Status::InvalidArgument("layout part: " + std::to_string(read.num_rows()) + " rows read, the part has " +
                                   std::to_string(rows));
  }
  return Status::OK();
}

// `read` when given (checked), else the table's `columns` of the part.
Result<Batch> ReadOrTake(const table::Table& table, const LayoutOptions& options, const LayoutPartition& part,
                         const Batch* read, const std::vector<int>& columns) {
  if (read == nullptr) return ReadPart(table, part, columns);
  RETURN_IF_ERROR(CheckRead(table, options, part, *read));
  return *read;
}

}  // namespace

Result<std::vector<ColumnSample>> SampleLayoutColumns(const table::Table& table, const LayoutOptions& options,
                                                      const LayoutPartition& part, const Batch* read) {
  RETURN_IF_ERROR(parts::CheckColumns(table.schema(), options));  // any kind: the comparison layouts fit theirs so too
  std::vector<int> columns = PointColumns(table.schema(), options);
  columns.resize(options.columns.size());  // no weights needed here
  ASSIGN_OR_RETURN(Batch rows, ReadOrTake(table, options, part, read, columns));
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
  RETURN_IF_ERROR(parts::CheckColumns(table.schema(), options));
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
                                               const LayoutPartition& part, const std::vector<Transform>& transforms,
                                               const Batch* read) {
  RETURN_IF_ERROR(CheckOTree(table, options));
  if (transforms.size() != options.columns.size()) return Status::InvalidArgument("layout part: wrong number of transformations");
  ASSIGN_OR_RETURN(Batch rows, ReadOrTake(table, options, part, read, PointColumns(table.schema(), options)));
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
  for (size_t i = 0; i < n; ++i) {
    if (!(w[i] >= 0 && w[i] < 1)) {  // NaN fails both
      return Status::Corruption("layout part: row " + std::to_string(part.first_row + i) + " has " +
                                std::string(kWeightColumn) + " " + std::to_string(w[i]) + ", outside [0, 1)");
    }
  }
  return out;
}

namespace {

// Which points reach a cube at one depth of a tree (their weight at least every ancestor's max
// weight), made once per level. ForEach calls fn(key, weight, coordinates) for each; key = parent
// index * 64 + child number + 1 (0: the root). When the coordinates' prefixes above the depth take
// at most reach_table_bits bits (dims * (depth - 1)), a table gives for each prefix the cube at
// depth - 1 and the largest max weight on the way to it: one lookup a point, not a walk down
// from the root (the levels' passes were 8% of the CPU of a 100M-row layout).
class Reaching {
 public:
  Reaching(const Tree& tree, int depth)
      : tree_(tree), depth_(depth), dims_(tree.dims()), children_(tree.ChildTable()) {
    if (depth_ == 0 || tree.cubes().empty()) return;
    bits_ = depth_ - 1;
    if (dims_ * bits_ > reach_table_bits) return;
    const size_t n = size_t(1) << (dims_ * bits_);
    cube_of_prefix_.assign(n, -1);
    threshold_.assign(n, std::numeric_limits<double>::infinity());
    for (size_t prefix = 0; prefix < n; ++prefix) {
      int32_t c = 0;
      double most = tree.cubes()[0].max_weight;
      for (int level = 0; level < bits_ && c >= 0; ++level) {
        int child = 0;
        for (int d = 0; d < dims_; ++d) child |= int((prefix >> (d * bits_ + (bits_ - 1 - level))) & 1u) << d;
        c = children_[size_t(c) * 64 + size_t(child)];
        if (c >= 0) most = std::max(most, tree.cubes()[size_t(c)].max_weight);
      }
      if (c < 0) continue;  // no such cube: nothing reaches below
      cube_of_prefix_[prefix] = c;
      threshold_[prefix] = most;
    }
    table_ = true;
  }

  // P: PartitionPoints or parts::CompactPoints.
  template <typename P, typename Fn>
  void ForEach(const P& points, size_t begin, size_t end, Fn fn) const {
    if (depth_ > 0 && tree_.cubes().empty()) return;
    const uint32_t* columns[otree::kMaxDims];
    for (int d = 0; d < dims_; ++d) columns[d] = points.coords[size_t(d)].data();
    uint32_t coords[otree::kMaxDims];
    if (table_) {
      const int shift = otree::kCoordBits - bits_;  // bits_ >= 0; a 32-bit shift is avoided below
      for (size_t i = begin; i < end; ++i) {
        const double w = points.weight(i);
        size_t prefix = 0;
        for (int d = 0; d < dims_; ++d) {
          coords[d] = columns[d][i];
          if (bits_ > 0) prefix |= size_t(coords[d] >> shift) << (d * bits_);
        }
        if (!(w >= threshold_[prefix])) continue;
        const otree::Cube& parent = tree_.cubes()[size_t(cube_of_prefix_[prefix])];
        fn(uint64_t(cube_of_prefix_[prefix]) * 64 + uint64_t(parent.id.ChildNumberOf(coords, dims_)) + 1, w,
           static_cast<const uint32_t*>(coords));
      }
      return;
    }
    for (size_t i = begin; i < end; ++i) {
      const double w = points.weight(i);
      for (int d = 0; d < dims_; ++d) coords[d] = columns[d][i];
      int c = 0;
      bool reaches = true;
      uint64_t key = 0;
      for (int level = 0; level < depth_ && reaches; ++level) {
        const otree::Cube& cube = tree_.cubes()[size_t(c)];
        if (w < cube.max_weight || cube.id.depth >= otree::kCoordBits) {
          reaches = false;  // stays in this cube
        } else if (level + 1 == depth_) {
          key = uint64_t(c) * 64 + uint64_t(cube.id.ChildNumberOf(coords, dims_)) + 1;
        } else {
          c = children_[size_t(c) * 64 + size_t(cube.id.ChildNumberOf(coords, dims_))];
          reaches = c >= 0;  // absent only when the tree is not this table's
        }
      }
      if (reaches) fn(key, w, static_cast<const uint32_t*>(coords));
    }
  }

 private:
  const Tree& tree_;
  const int depth_, dims_;
  const std::vector<int32_t> children_;
  int bits_ = 0;        // prefix bits of each coordinate: depth - 1
  bool table_ = false;  // cube_of_prefix_ and threshold_ are made
  std::vector<int32_t> cube_of_prefix_;  // prefix = coordinate d's bits at d * bits_
  std::vector<double> threshold_;        // infinity where no cube is
};

// The keys Reaching gives at one depth of `tree`, numbered densely in order of first
// appearance (a lookup per row: an array, not a hash map).
class KeySlots {
 public:
  explicit KeySlots(const Tree& tree) : slot_(tree.cubes().size() * 64 + 1, -1) {}
  size_t Of(uint64_t key) {
    int32_t& s = slot_[size_t(key)];
    if (s < 0) {
      s = int32_t(keys_.size());
      keys_.push_back(key);
    }
    return size_t(s);
  }
  // Key of each slot.
  const std::vector<uint64_t>& keys() const { return keys_; }

 private:
  std::vector<int32_t> slot_;
  std::vector<uint64_t> keys_;
};

CubeId CubeOfKey(const Tree& tree, uint64_t key) {
  if (key == 0) return CubeId{};
  const otree::Cube& parent = tree.cubes()[size_t((key - 1) / 64)];
  return parent.id.Child(int((key - 1) % 64), tree.dims());
}

}  // namespace

std::vector<CubeWeights> LevelWeights(const PartitionPoints& points, const Tree& tree, int depth) {
  KeySlots slots(tree);
  std::vector<CubeWeights> reached;
  Reaching(tree, depth).ForEach(points, 0, points.size(), [&](uint64_t key, double w, const uint32_t*) {
    const size_t s = slots.Of(key);
    if (s == reached.size()) reached.push_back(CubeWeights{CubeOfKey(tree, key), 0, {}});
    CubeWeights& cw = reached[s];
    ++cw.rows;
    cw.lightest.push_back(w);
  });
  std::vector<CubeWeights> out;
  const size_t keep = size_t(tree.cube_rows()) + 1;
  for (CubeWeights& cw : reached) {
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

namespace {

// Commits `files` (of `rows` rows, the whole table's) as the version "layout" of `revision`,
// replacing every fragment of the table's version.
Result<LayoutReport> CommitLayoutFiles(table::Table* table, const LayoutOptions& options, Revision revision,
                                       std::vector<parts::WrittenFile> files, uint64_t rows) {
  LayoutReport report;
  report.rows = rows;
  report.files = files.size();
  for (const parts::WrittenFile& f : files) report.blocks += f.blocks.size();
  report.cubes = revision.tree.cubes().size();
  report.depth = revision.tree.depth();
  LayoutMeta meta = parts::MetaFor(options);
  meta.revisions.push_back(std::move(revision));
  std::set<uint32_t> removed;
  for (const table::FragmentMeta& f : table->manifest().fragments) removed.insert(f.id);
  RETURN_IF_ERROR(parts::CommitLayout(table, "layout", std::move(removed), std::move(files), std::move(meta),
                                      parts::WithWeight(table->schema()), options.write.before_commit));
  return report;
}

}  // namespace

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
      files.push_back(std::move(file));
    }
  }
  if (report.rows != table->manifest().total_rows()) {
    return Status::InvalidArgument("layout parts wrote " + std::to_string(report.rows) + " rows, the table has " +
                                   std::to_string(table->manifest().total_rows()));
  }
  return CommitLayoutFiles(table, options, std::move(revision), std::move(files), report.rows);
}

namespace {

// Where the (cube_rows + 1)-th lightest weight reaching a cube almost surely lies, [*from, *to):
// `heading` rows head for the cube, each reaching it with probability `reach` (its weight at
// least the parent's max weight), and the weights of those reaching it are uniform in [lo, 1).
// weight_window_sigmas standard deviations each side, of the rows reaching it and of the order
// statistic.
void WeightWindow(uint64_t heading, double reach, double lo, uint64_t cube_rows, double* from, double* to) {
  reach = std::clamp(reach, 0.0, 1.0);
  const double n = double(heading) * reach, sd_n = std::sqrt(double(heading) * reach * (1 - reach));
  const double r = double(cube_rows) + 1;  // the rank sought, from 1
  const double k = weight_window_sigmas;
  const double n_lo = std::max(r, n - k * sd_n - 1), n_hi = std::max(r, n + k * sd_n + 1);
  // The r-th lightest of m weights uniform in [lo, 1): mean lo + (1 - lo) r / (m + 1), standard
  // deviation (1 - lo) sqrt(r (m + 1 - r) / (m + 2)) / (m + 1).
  auto mean = [&](double m) { return lo + (1 - lo) * r / (m + 1); };
  auto sd = [&](double m) { return (1 - lo) * std::sqrt(r * (m + 1 - r) / (m + 2)) / (m + 1); };
  const double spread = k * std::max(sd(n_lo), sd(n_hi));
  *from = std::max(lo, mean(n_hi) - spread);
  *to = std::min(1.0, mean(n_lo) + spread);
}

// The parts of a table a layout in this process works through, one at a time.
struct LocalParts {
  std::vector<LayoutPartition> partitions;
  std::vector<uint64_t> rows;           // live rows per part
  std::vector<Transform> transforms;    // fitted on every part's statistics and sample
};

Result<LocalParts> PlanLocalParts(const table::Table& table, const LayoutOptions& options, size_t parts,
                                  const std::function<void(const std::string&, uint64_t)>& progress) {
  LocalParts out;
  out.partitions = PartitionFragments(table, parts);
  std::vector<std::vector<ColumnSample>> samples;
  for (const LayoutPartition& part : out.partitions) {
    out.rows.push_back(PartRows(table, part));
    progress("sampling", part.first_row);
    ASSIGN_OR_RETURN(auto sample, SampleLayoutColumns(table, options, part));
    samples.push_back(std::move(sample));
  }
  // An empty table has no parts: every column is fitted as all-NULL, as LayoutTable fits it.
  ASSIGN_OR_RETURN(out.transforms, FitPartitionedTransforms(table, options, samples));
  return out;
}

}  // namespace

Result<LayoutReport> LayoutTablePartitioned(table::Table* table, const LayoutOptions& options, size_t parts,
                                            uint64_t hold_points_bytes) {
  RETURN_IF_ERROR(CheckOTree(*table, options));
  const uint64_t total_rows = table->manifest().total_rows();
  auto progress = [&](const std::string& step, uint64_t done) {
    if (options.progress) options.progress(step, done, total_rows);
  };
  ASSIGN_OR_RETURN(LocalParts local, PlanLocalParts(*table, options, parts, progress));
  const std::vector<LayoutPartition>& partitions = local.partitions;
  const std::vector<uint64_t>& part_rows = local.rows;
  Revision revision;
  revision.id = 1;
  revision.transforms = std::move(local.transforms);

  // Each part's points are computed once: held while they fit in hold_points_bytes, the others
  // spilled to a temporary object (spilled[p] non-empty) and read back by every later pass.
  ObjectStore* store = table->store();
  parts::Temporaries temporaries(store, "layout");
  const size_t dims = options.columns.size();
  std::vector<parts::CompactPoints> held(partitions.size());
  std::vector<std::string> spilled(partitions.size());
  std::vector<bool> wide(partitions.size(), false);  // spilled with double weights
  uint64_t held_bytes = 0;
  for (size_t p = 0; p < partitions.size(); ++p) {
    progress("computing points", partitions[p].first_row);
    ASSIGN_OR_RETURN(PartitionPoints points, ComputePartitionPoints(*table, options, partitions[p], revision.transforms));
    if (points.weights.size() != part_rows[p]) return Status::Internal("layout: a part's rows changed while it was read");
    parts::CompactPoints compact = parts::Compact(std::move(points.coords), std::move(points.weights));
    if (held_bytes + compact.bytes() <= hold_points_bytes) {
      held_bytes += compact.bytes();
      held[p] = std::move(compact);
    } else {
      spilled[p] = temporaries.Name("points-" + std::to_string(p));
      wide[p] = compact.wide();
      RETURN_IF_ERROR(parts::WritePoints(store, spilled[p], compact));
    }
  }
  // Runs fn(part, its points) over every part in order; the first error ends it.
  auto each_part = [&](const std::string& step, const std::function<Status(size_t, const parts::CompactPoints&)>& fn) -> Status {
    for (size_t p = 0; p < partitions.size(); ++p) {
      progress(step, partitions[p].first_row);
      if (spilled[p].empty()) {
        RETURN_IF_ERROR(fn(p, held[p]));
      } else {
        ASSIGN_OR_RETURN(parts::CompactPoints points, parts::ReadPoints(store, spilled[p], dims, part_rows[p], wide[p]));
        RETURN_IF_ERROR(fn(p, points));
      }
    }
    return Status::OK();
  };

  // Each level's max weights from passes over the points that hold nothing per row. A cube's
  // max weight is the (cube_rows + 1)-th lightest weight reaching it, and those weights are
  // uniform in [its parent's max weight, 1): from the rows its parent sent towards it (counted on
  // the level above) that place is known to within a narrow window of weights, so one pass
  // counts each cube's rows and those below its window and collects the weights inside it. When
  // the sought weight is not inside (a window is 8 standard deviations each side: not expected to
  // happen), that level takes two more passes for those cubes: the first counts their rows in a
  // histogram of their weights, the second collects the weights of the one bucket holding the
  // sought one. (Merging each part's cube_rows + 1 lightest, as the distributed protocol does,
  // sorts and holds far more.)
  PartitionedTreeBuilder builder(int(dims), options.cube_rows);
  std::map<CubeId, uint64_t> reaching;  // rows reaching each cube
  // Rows reaching each inner cube, by the child they head for (whatever their weight).
  std::map<CubeId, std::vector<uint64_t>> toward;
  const size_t fanout = size_t(1) << dims;
  // Points are visited in chunks on the shared pool, each chunk counting into its own tallies.
  ThreadPool* pool = ThreadPool::Default();
  constexpr size_t kChunkRows = size_t(1) << 18;
  auto chunks_of = [&](const parts::CompactPoints& p) { return (p.size() + kChunkRows - 1) / kChunkRows; };
  constexpr size_t kBuckets = 256;
  while (!builder.done()) {
    const std::string level_name = "tree level " + std::to_string(builder.depth());
    const Tree& tree = builder.tree();
    const int depth = builder.depth();
    const Reaching reaching_level(tree, depth);
    // The cubes this level can have: every child of the level above's inner cubes (the root at
    // depth 0), a slot each, with the rows heading for it and the share of them that reach it.
    std::vector<uint64_t> keys;
    std::vector<double> lo;  // the parent's max weight: every weight reaching the cube is at least that
    std::vector<double> window_lo, window_hi;  // [lo, hi): where the sought weight should be
    if (depth == 0) {
      keys.push_back(0);
      lo.push_back(0);
      window_lo.push_back(0);
      window_hi.push_back(0);
      WeightWindow(total_rows, 1, 0, options.cube_rows, &window_lo[0], &window_hi[0]);
    } else {
      for (size_t c = 0; c < tree.cubes().size(); ++c) {
        const otree::Cube& cube = tree.cubes()[c];
        if (cube.id.depth != depth - 1 || cube.max_weight >= 1 || cube.id.depth >= otree::kCoordBits) continue;
        const double parent_lo = cube.parent < 0 ? 0 : tree.cubes()[size_t(cube.parent)].max_weight;
        const auto heading = toward.find(cube.id);
        for (size_t k = 0; k < fanout; ++k) {
          keys.push_back(c * 64 + k + 1);
          lo.push_back(cube.max_weight);
          window_lo.push_back(0);
          window_hi.push_back(0);
          const uint64_t rows = heading == toward.end() || heading->second.empty() ? 0 : heading->second[k];
          WeightWindow(rows, (1 - cube.max_weight) / (1 - parent_lo), cube.max_weight, options.cube_rows,
                       &window_lo.back(), &window_hi.back());
        }
      }
    }
    std::vector<CubeId> slot_cube;
    for (uint64_t key : keys) slot_cube.push_back(CubeOfKey(tree, key));
    std::vector<int32_t> slot_of_key(tree.cubes().size() * 64 + 1, -1);
    for (size_t s = 0; s < keys.size(); ++s) slot_of_key[size_t(keys[s])] = int32_t(s);
    // Runs visit(local, slot, weight, coordinates) for every point reaching a slot of this level,
    // the points in chunks on the pool, each chunk into its own `local` (from make()), merged by
    // merge(local) under a lock. A key of no slot: only a weight outside [0, 1) takes a row past a
    // leaf (checked when the points are computed; a damaged spilled object could still carry one).
    std::atomic<bool> stray{false};
    std::mutex mu;
    auto each_reaching = [&](const std::string& step, auto make, auto visit, auto merge) -> Status {
      return each_part(level_name + ", " + step, [&](size_t, const parts::CompactPoints& p) -> Status {
        ParallelFor(pool, chunks_of(p), [&](size_t k) {
          auto local = make();
          reaching_level.ForEach(p, k * kChunkRows, std::min(p.size(), (k + 1) * kChunkRows),
                                 [&](uint64_t key, double w, const uint32_t* coords) {
                            const int32_t slot = slot_of_key[size_t(key)];
                            if (slot < 0) {
                              stray = true;
                              return;
                            }
                            visit(local, size_t(slot), w, coords);
                          });
          std::lock_guard<std::mutex> lock(mu);
          merge(local);
        });
        return Status::OK();
      });
    };

    // The pass: rows per slot, rows below its window, the weights inside it, and the rows
    // heading for each child (for the next level's windows).
    struct Tally {
      std::vector<uint64_t> rows, below;
      // Per slot, by child number; made for the slots rows reach (a level of a tree of many
      // dimensions has far more possible cubes than cubes with rows).
      std::vector<std::vector<uint64_t>> heading;
      std::vector<std::vector<double>> inside;
    };
    auto make_tally = [&] {
      Tally t;
      t.rows.assign(keys.size(), 0);
      t.below.assign(keys.size(), 0);
      t.heading.resize(keys.size());
      t.inside.resize(keys.size());
      return t;
    };
    Tally tally = make_tally();
    RETURN_IF_ERROR(each_reaching(
        "counting", make_tally,
        [&](Tally& local, size_t s, double w, const uint32_t* coords) {
          ++local.rows[s];
          if (w < window_lo[s]) {
            ++local.below[s];
          } else if (w < window_hi[s]) {
            local.inside[s].push_back(w);
          }
          if (slot_cube[s].depth < otree::kCoordBits) {
            if (local.heading[s].empty()) local.heading[s].assign(fanout, 0);
            ++local.heading[s][size_t(slot_cube[s].ChildNumberOf(coords, int(dims)))];
          }
        },
        [&](const Tally& local) {
          for (size_t s = 0; s < keys.size(); ++s) {
            if (local.rows[s] == 0) continue;
            tally.rows[s] += local.rows[s];
            tally.below[s] += local.below[s];
            tally.inside[s].insert(tally.inside[s].end(), local.inside[s].begin(), local.inside[s].end());
            if (local.heading[s].empty()) continue;
            if (tally.heading[s].empty()) tally.heading[s].assign(fanout, 0);
            for (size_t k = 0; k < fanout; ++k) tally.heading[s][k] += local.heading[s][k];
          }
        }));
    const std::vector<uint64_t>& rows = tally.rows;
    std::vector<double> max_weight(keys.size(), 1.0);
    std::vector<size_t> missed;  // inner cubes whose sought weight fell outside the window
    for (size_t s = 0; s < keys.size(); ++s) {
      if (rows[s] <= options.cube_rows || slot_cube[s].depth >= otree::kCoordBits) continue;
      const uint64_t rank = options.cube_rows;  // of the sought weight, from 0
      std::vector<double>& inside = tally.inside[s];
      if (rank < tally.below[s] || rank - tally.below[s] >= inside.size()) {
        missed.push_back(s);
        continue;
      }
      const auto at = inside.begin() + std::ptrdiff_t(rank - tally.below[s]);
      std::nth_element(inside.begin(), at, inside.end());
      max_weight[s] = *at;
    }
    tally.inside = {};
    if (!missed.empty()) {
      // Those cubes by a histogram of their weights (equal-width buckets over [lo, 1) hold about
      // equal rows), then the weights of the bucket holding the sought one.
      std::vector<int32_t> missed_at(keys.size(), -1);
      for (size_t m = 0; m < missed.size(); ++m) missed_at[missed[m]] = int32_t(m);
      auto bucket_of = [&](size_t s, double w) {
        return std::min(kBuckets - 1, size_t((w - lo[s]) / (1 - lo[s]) * double(kBuckets)));
      };
      auto make_histograms = [&] { return std::vector<uint64_t>(missed.size() * kBuckets, 0); };
      std::vector<uint64_t> histogram = make_histograms();
      RETURN_IF_ERROR(each_reaching(
          "counting again", make_histograms,
          [&](std::vector<uint64_t>& local, size_t s, double w, const uint32_t*) {
            if (missed_at[s] >= 0) ++local[size_t(missed_at[s]) * kBuckets + bucket_of(s, w)];
          },
          [&](const std::vector<uint64_t>& local) {
            for (size_t i = 0; i < histogram.size(); ++i) histogram[i] += local[i];
          }));
      std::vector<size_t> bucket(missed.size(), kBuckets);
      std::vector<uint64_t> rank(missed.size(), 0);
      for (size_t m = 0; m < missed.size(); ++m) {
        uint64_t below = 0;  // in the buckets before b; at the end, in all of them
        for (size_t b = 0; b < kBuckets; ++b) {
          const uint64_t here = histogram[m * kBuckets + b];
          if (bucket[m] == kBuckets && below + here > options.cube_rows) {
            bucket[m] = b;
            rank[m] = options.cube_rows - below;
          }
          below += here;
        }
        if (below != rows[missed[m]]) return Status::Internal("layout: a cube's rows changed between passes over its points");
      }
      auto make_weights = [&] { return std::vector<std::vector<double>>(missed.size()); };
      std::vector<std::vector<double>> weights = make_weights();
      RETURN_IF_ERROR(each_reaching(
          "selecting", make_weights,
          [&](std::vector<std::vector<double>>& local, size_t s, double w, const uint32_t*) {
            const int32_t m = missed_at[s];
            if (m >= 0 && bucket_of(s, w) == bucket[size_t(m)]) local[size_t(m)].push_back(w);
          },
          [&](const std::vector<std::vector<double>>& local) {
            for (size_t m = 0; m < missed.size(); ++m) weights[m].insert(weights[m].end(), local[m].begin(), local[m].end());
          }));
      for (size_t m = 0; m < missed.size(); ++m) {
        if (bucket[m] == kBuckets || rank[m] >= weights[m].size()) {
          return Status::Internal("layout: a weight bucket lost rows between passes");
        }
        std::nth_element(weights[m].begin(), weights[m].begin() + std::ptrdiff_t(rank[m]), weights[m].end());
        max_weight[missed[m]] = weights[m][size_t(rank[m])];
      }
    }
    if (stray) return Status::Corruption("layout: a spilled point's weight is outside [0, 1) (a damaged temporary object)");
    std::vector<CubeMax> level;
    for (size_t s = 0; s < keys.size(); ++s) {
      if (rows[s] == 0) continue;
      CubeMax m{slot_cube[s], rows[s], max_weight[s]};
      reaching[m.id] = rows[s];
      if (m.max_weight < 1) toward[m.id] = std::move(tally.heading[s]);
      level.push_back(m);
    }
    RETURN_IF_ERROR(builder.AddLevelMaxWeights(std::move(level)));
  }
  revision.tree = builder.tree();
  const std::vector<otree::Cube>& cubes = revision.tree.cubes();
  held = {};  // placing the rows computes their points anew
#ifdef __GLIBC__
  malloc_trim(0);  // and the memory they took goes back to the system, not kept by malloc for later
#endif

  // The rows of each cube (those reaching it but none of its children), and the files PackCubes
  // makes of them: those of the one-piece layout.
  std::vector<uint64_t> rows_of_cube;
  for (const otree::Cube& cube : cubes) {
    uint64_t stays = reaching[cube.id];
    for (int k : cube.children) stays -= reaching[cubes[size_t(k)].id];
    rows_of_cube.push_back(stays);
  }
  if (std::accumulate(rows_of_cube.begin(), rows_of_cube.end(), uint64_t(0)) != total_rows) {
    return Status::Internal("layout: the tree's levels do not account for every row");
  }
  const std::vector<std::vector<int>> files =
      parts::PackCubes(revision.tree, rows_of_cube, std::max<uint64_t>(options.write.rows_per_file, 1));

  // Runs: each part's rows (every column and the weights) spilled grouped by the file they go to.
  const Schema schema = parts::WithWeight(table->schema());
  parts::FileRuns runs(store, &temporaries, schema, revision.tree, files);
  // A part's rows with their weights and cubes: the next part's are read while one is spilled.
  using PlacedPart = std::pair<parts::Placed, std::vector<uint32_t>>;
  std::vector<int> layout_columns = PointColumns(table->schema(), options);
  layout_columns.resize(dims);
  auto place_part = [&](size_t p) -> Result<PlacedPart> {
    ASSIGN_OR_RETURN(std::vector<Batch> pieces, ReadPartPieces(*table, partitions[p], {}));
    // The fragments are not joined: the rows are copied once, when the runs group them by file.
    parts::Placed placed = parts::PlacedFromPieces(std::move(pieces), table->schema(), {}, /*weights=*/true,
                                                   options.seed, partitions[p].first_row);
    if (placed.rows.num_rows() != part_rows[p]) return Status::Internal("layout: a part's rows changed while it was read");
    RETURN_IF_ERROR(parts::ExtendCoords(&placed, layout_columns, revision.transforms));
    std::vector<uint32_t> cubes_here;
    if (!revision.tree.Locate(placed.points(), ThreadPool::Default(), &cubes_here)) {
      return Status::Internal("layout: rows fell outside the tree built from them");
    }
    placed.coords = {};
    return PlacedPart(std::move(placed), std::move(cubes_here));
  };
  RETURN_IF_ERROR(Pipelined<PlacedPart>(partitions.size(), place_part, [&](size_t p, PlacedPart placed) {
    progress("sorting rows into files", partitions[p].first_row);
    return runs.Add(std::move(placed.first), placed.second);
  }));

  // Each file: its rows from every part's run, in part order (so each cube's rows are in table
  // order, as in one piece), written as LayoutTable writes them, a batch of consecutive files of
  // at most a part's rows (or one file) at a time.
  LayoutMeta meta = parts::MetaFor(options);
  ASSIGN_OR_RETURN(const std::vector<int> columns, meta.ColumnIndexes(schema));
  const uint64_t batch_rows = part_rows.empty() ? 1 : *std::max_element(part_rows.begin(), part_rows.end());
  ASSIGN_OR_RETURN(std::vector<parts::WrittenFile> written,
                   runs.Write(columns, revision.transforms, revision.id, meta, options.write, batch_rows,
                              [&](uint64_t done) { progress("writing", done); }));
  const uint64_t rows_written = runs.rows();
  if (rows_written != total_rows) {
    return Status::Internal("layout: wrote " + std::to_string(rows_written) + " rows of " + std::to_string(total_rows));
  }
  // What the batches took goes back to the system before the commit rebuilds the table's indexes
  // (a btree's sort beside it; a 3-D layout of 110M rows peaked there, at 1.86 GiB, without this).
  malloc_trim(0);
  progress("committing", total_rows);
  return CommitLayoutFiles(table, options, std::move(revision), std::move(written), rows_written);
}

Result<LayoutReport> LayoutOrderedPartitioned(table::Table* table, const LayoutOptions& options, size_t parts) {
  RETURN_IF_ERROR(parts::CheckColumns(table->schema(), options));
  if (options.kind == "otree") return Status::InvalidArgument("an OTree is laid out in parts by LayoutTablePartitioned");
  const uint64_t total_rows = table->manifest().total_rows();
  auto progress = [&](const std::string& step, uint64_t done) {
    if (options.progress) options.progress(step, done, total_rows);
  };
  ASSIGN_OR_RETURN(const LocalParts local, PlanLocalParts(*table, options, parts, progress));
  const std::vector<LayoutPartition>& partitions = local.partitions;
  const std::vector<uint64_t>& part_rows = local.rows;
  const std::vector<Transform>& transforms = local.transforms;
  // The rows as LayoutTable reads them: every column but an earlier OTree's weights.
  std::vector<int> read_columns;
  const int weight = table->schema().FindField(kWeightColumn);
  for (int c = 0; c < int(table->schema().num_fields()); ++c) {
    if (c != weight) read_columns.push_back(c);
  }
  const Schema schema = table->ReadSchema(read_columns);
  LayoutMeta meta = parts::MetaFor(options);
  ASSIGN_OR_RETURN(const std::vector<int> columns, meta.ColumnIndexes(schema));
  std::vector<int> table_columns;  // the layout columns in the table
  for (const std::string& name : options.columns) table_columns.push_back(table->schema().FindField(name));
  const int dims = int(columns.size());
  const int shift = std::max(0, parts::OrderKeyBits(dims, options.kind) - 16);
  // The order key's 16-bit prefix of each row of `rows` (whose columns `at` are the layout columns).
  auto prefixes = [&](const Batch& rows, const std::vector<int>& at) {
    std::vector<std::vector<uint32_t>> coords(size_t(dims), std::vector<uint32_t>(rows.num_rows()));
    ParallelFor(ThreadPool::Default(), size_t(dims), [&](size_t d) { transforms[d].Coords(rows.column(size_t(at[d])), coords[d].data()); });
    std::vector<uint32_t> out(rows.num_rows());
    for (size_t i = 0; i < out.size(); ++i) {
      uint32_t p[otree::kMaxDims];
      for (int d = 0; d < dims; ++d) p[d] = coords[size_t(d)][i];
      out[i] = uint32_t(parts::OrderKey(p, dims, options.kind) >> shift);
    }
    return out;
  };

  // Key ranges: consecutive prefixes of at most a part's rows together.
  std::vector<uint64_t> histogram(size_t(1) << 16, 0);
  std::vector<int> local_columns(static_cast<size_t>(dims));
  std::iota(local_columns.begin(), local_columns.end(), 0);
  for (const LayoutPartition& part : partitions) {
    progress("counting keys", part.first_row);
    ASSIGN_OR_RETURN(Batch rows, ReadPart(*table, part, table_columns));
    for (uint32_t prefix : prefixes(rows, local_columns)) ++histogram[prefix];
  }
  const uint64_t range_rows = std::max<uint64_t>(1, part_rows.empty() ? 1 : *std::max_element(part_rows.begin(), part_rows.end()));
  std::vector<uint32_t> range_of_prefix(histogram.size());
  size_t ranges = 0;
  for (size_t k = 0, rows = 0; k < histogram.size(); ++k) {
    if (rows > 0 && rows + histogram[k] > range_rows) {
      ++ranges;
      rows = 0;
    }
    range_of_prefix[k] = uint32_t(ranges);
    rows += histogram[k];
  }
  ++ranges;

  // Each part's rows spilled by key range, the next part read while one is spilled.
  ObjectStore* store = table->store();
  parts::Temporaries temporaries(store, "layout");
  parts::BucketRuns runs(store, &temporaries, schema, ranges, /*tagged=*/false);
  using RangedPart = std::pair<Batch, std::vector<uint32_t>>;
  auto read_part = [&](size_t p) -> Result<RangedPart> {
    ASSIGN_OR_RETURN(Batch rows, ReadPart(*table, partitions[p], read_columns));
    if (rows.num_rows() != part_rows[p]) return Status::Internal("layout: a part's rows changed while it was read");
    std::vector<uint32_t> range_of_row = prefixes(rows, columns);
    for (uint32_t& r : range_of_row) r = range_of_prefix[r];
    return RangedPart(std::move(rows), std::move(range_of_row));
  };
  RETURN_IF_ERROR(Pipelined<RangedPart>(partitions.size(), read_part, [&](size_t p, RangedPart ranged) {
    progress("sorting rows into key ranges", partitions[p].first_row);
    return runs.Add(std::move(ranged.first), ranged.second, {});
  }));

  // Each range in order, its rows ordered as in one piece and streamed into files of rows_per_file
  // rows, row groups of cube_rows, as WriteOrdered cuts them.
  const uint64_t per_file = std::max<uint64_t>(options.write.rows_per_file, 1);
  const parquet::WriteOptions file_options = parts::BlockWriteOptions(options.write, options.columns, PageRows(options), false, false);
  std::vector<parts::WrittenFile> written;
  std::unique_ptr<table::DataFileStream> file;
  uint64_t in_file = 0, in_group = 0, rows_written = 0;
  auto read_range = [&](size_t r) -> Result<Batch> {
    ASSIGN_OR_RETURN(auto read, runs.Read(r, r + 1));
    std::vector<int> every_column(schema.num_fields());
    std::iota(every_column.begin(), every_column.end(), 0);
    parts::Placed placed = parts::PlacedFromPieces(std::move(read.first), schema, every_column, /*weights=*/false, 0);
    placed.pieces.clear();  // every column joined: the pieces are copies
    RETURN_IF_ERROR(parts::ExtendCoords(&placed, columns, transforms));
    const std::vector<uint32_t> order = parts::CurveOrder(placed, columns, options.kind);
    // Every column joined: gather the rows in order.
    Batch ordered(schema);
    ParallelFor(ThreadPool::Default(), schema.num_fields(), [&](size_t c) {
      ordered.mutable_column(c).AppendSelected(placed.rows.column(c), order.data(), order.size());
    });
    RETURN_IF_ERROR(ordered.Seal());
    return ordered;
  };
  RETURN_IF_ERROR(Pipelined<Batch>(ranges, read_range, [&](size_t, Batch ordered) -> Status {
    progress("writing", rows_written);
    for (size_t at = 0; at < ordered.num_rows();) {
      if (!file) {
        ASSIGN_OR_RETURN(file, table::DataFileStream::Open(store, schema, file_options));
      }
      const size_t n = size_t(std::min<uint64_t>({ordered.num_rows() - at, options.cube_rows - in_group, per_file - in_file}));
      RETURN_IF_ERROR(file->writer()->Write(ordered, at, n));
      at += n;
      in_group += n;
      in_file += n;
      rows_written += n;
      if (in_group == options.cube_rows || in_file == per_file) {
        RETURN_IF_ERROR(file->writer()->FlushRowGroup());
        in_group = 0;
      }
      if (in_file == per_file) {
        ASSIGN_OR_RETURN(table::FragmentMeta done, file->Finish());
        written.push_back(parts::WrittenFile{std::move(done), {}});
        file.reset();
        in_file = 0;
      }
    }
    return Status::OK();
  }));
  if (file) {
    ASSIGN_OR_RETURN(table::FragmentMeta done, file->Finish());
    written.push_back(parts::WrittenFile{std::move(done), {}});
  }
  if (rows_written != total_rows) {
    return Status::Internal("layout: wrote " + std::to_string(rows_written) + " rows of " + std::to_string(total_rows));
  }
  progress("committing", total_rows);
  LayoutReport report;
  report.rows = rows_written;
  report.files = written.size();
  std::set<uint32_t> removed;
  for (const table::FragmentMeta& f : table->manifest().fragments) removed.insert(f.id);
  RETURN_IF_ERROR(parts::CommitLayout(table, "layout", std::move(removed), std::move(written), std::move(meta), schema,
                                      options.write.before_commit));
  return report;
}

}  // namespace lakeindex::layout
