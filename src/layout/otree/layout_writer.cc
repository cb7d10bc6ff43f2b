#include "layout/otree/layout_writer.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <utility>

#include "common/radix_sort.h"
#include "common/random.h"
#include "common/thread_pool.h"
#include "common/text.h"
#include "format/parquet/writer.h"
#include "layout/otree/curve.h"
#include "layout/otree/layout_parts.h"
#include "layout/otree/partitioned_layout.h"
#include "layout/otree/spill.h"
#include "lakeindex/column_stats.h"

namespace lakeindex::layout {

// The helpers are in parts:: (layout_parts.h) so that the partitioned build reuses them.
namespace parts {

using otree::Cube;
using otree::CubeId;
using otree::Points;
using otree::Transform;
using otree::Tree;
using table::FragmentMeta;
using table::Manifest;

Schema WithWeight(const Schema& schema) {
  if (schema.FindField(kWeightColumn) >= 0) return schema;
  Schema out = schema;
  out.AddField({kWeightColumn, TypeId::kDouble, false});
  return out;
}

Column DrawWeights(uint64_t seed, uint64_t first_row, size_t n) {
  Column weights(TypeId::kDouble);
  double* w = weights.AppendValues<double>(n);
  constexpr size_t kChunk = size_t(1) << 20;  // rows per task
  ParallelFor(n > kChunk ? ThreadPool::Default() : nullptr, (n + kChunk - 1) / kChunk, [&](size_t k) {
    for (size_t i = k * kChunk; i < std::min(n, (k + 1) * kChunk); ++i) {
      uint64_t state = Mix(seed) + (first_row + i) * 0x9E3779B97F4A7C15ULL;
      // 32 random bits: a resolution of 2^-32 is finer than any sample asks for, and leaves the
      // low mantissa bytes zero, which the weight column's compression then drops (half its
      // bytes; 53 random bits do not compress).
      w[i] = double(SplitMix(&state) >> 32) * 0x1.0p-32;
    }
  });
  return weights;
}

Batch AddWeights(Batch rows, uint64_t seed, uint64_t first_row) {
  if (rows.schema().FindField(kWeightColumn) >= 0) return rows;
  const size_t n = rows.num_rows();
  std::vector<Column> cols = std::move(rows.columns());
  cols.push_back(DrawWeights(seed, first_row, n));
  return Batch(WithWeight(rows.schema()), std::move(cols), n);
}

std::vector<Value> SampleColumn(const Column& column, uint64_t first_row, uint64_t stride) {
  std::vector<Value> sample;
  for (size_t i = size_t((stride - first_row % stride) % stride); i < column.length(); i += stride) {
    if (column.IsValid(i)) sample.push_back(column.GetValue(i));
  }
  return sample;
}

Result<Transform> FitColumnTransform(TypeId type, const std::string& name, const ColumnStats& stats,
                                     std::vector<Value> sample, const std::string& mode) {
  Result<Transform> t = Status::Internal("unset");
  if (!stats.min) {  // no value but NULL / NaN: every coordinate is an edge anyway
    t = Transform::FitDefault(type, Value::Null(type), Value::Null(type), {});
  } else if (mode == "linear") {
    if (IsBytes(type)) {
      return Status::InvalidArgument("the linear transformation needs a numeric column, '" + name + "' is a " +
                                     TypeName(type) + " (use quantile or default)")
          .About("transform");
    }
    // Over the finite values: ±infinity maps to the ends whatever the range. An infinite bound is
    // replaced by the sample's finite extreme on its side (values beyond it clamp to the edge).
    Value lo = *stats.min, hi = *stats.max;
    if (IsFloating(type) && (!std::isfinite(lo.double_value()) || !std::isfinite(hi.double_value()))) {
      double a = lo.double_value(), b = hi.double_value();
      double low = INFINITY, high = -INFINITY;
      for (const Value& v : sample) {
        if (!v.is_null() && std::isfinite(v.double_value())) {
          low = std::min(low, v.double_value());
          high = std::max(high, v.double_value());
        }
      }
      if (!std::isfinite(a)) a = std::isfinite(low) ? low : std::isfinite(b) ? b : 0;
      if (!std::isfinite(b)) b = std::isfinite(high) ? std::max(high, a) : a;
      lo = type == TypeId::kFloat ? Value::Float(float(a)) : Value::Double(a);
      hi = type == TypeId::kFloat ? Value::Float(float(b)) : Value::Double(b);
    }
    t = Transform::FitLinear(type, lo, hi);
  } else if (mode == "quantile") {
    t = Transform::FitQuantile(type, std::move(sample));
  } else {
    t = Transform::FitDefault(type, *stats.min, *stats.max, std::move(sample));
  }
  if (!t.ok()) return t.status().WithContext("layout column '" + name + "'");
  return t;
}

// Fits a transformation of each layout column to the values of the rows of `placed`.
Result<std::vector<Transform>> FitTransforms(const Placed& placed, const std::vector<int>& columns,
                                             const std::string& mode) {
  std::vector<Transform> out;
  for (int c : columns) {
    const std::vector<const Column*> pieces = placed.ColumnPieces(size_t(c));
    size_t rows = 0;
    for (const Column* piece : pieces) rows += piece->length();
    const uint64_t stride = std::max<size_t>(1, rows / kSampleValues);
    ColumnStats stats;
    std::vector<Value> sample;
    uint64_t first_row = 0;
    for (const Column* piece : pieces) {
      stats.Merge(ComputeColumnStats(*piece));
      for (Value& v : SampleColumn(*piece, first_row, stride)) sample.push_back(std::move(v));
      first_row += piece->length();
    }
    const Field& field = placed.rows.schema().field(size_t(c));
    ASSIGN_OR_RETURN(Transform t, FitColumnTransform(field.type, field.name, stats, std::move(sample), mode));
    out.push_back(std::move(t));
  }
  return out;
}

// Seals `placed->rows` (unless it waits for pieces) and computes the coordinates of its rows
// appended since the last call (all of them the first time; optimize reads fragments into a pool
// in several rounds).
Status ExtendCoords(Placed* placed, const std::vector<int>& columns, const std::vector<Transform>& transforms) {
  if (placed->from_pieces.empty()) RETURN_IF_ERROR(placed->rows.Seal());
  placed->coords.resize(columns.size());
  const size_t done = placed->coords.empty() ? 0 : placed->coords[0].size();
  const size_t n = placed->rows.num_rows();
  if (done == n) return Status::OK();
  // The rows to map, per dimension, as pieces: all of them the first time (straight from the
  // pieces if they wait there), else the rows added since. Pieces are mapped in parallel.
  const Batch added = done == 0 ? Batch() : placed->rows.Slice(done, n - done);
  std::vector<std::pair<size_t, const Column*>> tasks;  // (dimension, piece)
  std::vector<size_t> at;                               // where each task's coordinates go
  for (size_t d = 0; d < columns.size(); ++d) {
    placed->coords[d].resize(n);
    const size_t c = size_t(columns[d]);
    const std::vector<const Column*> pieces =
        done == 0 ? placed->ColumnPieces(c) : std::vector<const Column*>{&added.column(c)};
    size_t row = done;
    for (const Column* piece : pieces) {
      tasks.emplace_back(d, piece);
      at.push_back(row);
      row += piece->length();
    }
  }
  ParallelFor(n - done >= (size_t(1) << 16) ? ThreadPool::Default() : nullptr, tasks.size(), [&](size_t k) {
    transforms[tasks[k].first].Coords(*tasks[k].second, placed->coords[tasks[k].first].data() + at[k]);
  });
  return Status::OK();
}

parquet::WriteOptions BlockWriteOptions(const table::WriteConfig& config, const std::vector<std::string>& columns,
                                        uint64_t page_rows, bool cell_pages, bool weight_pages) {
  parquet::WriteOptions o = config.parquet;
  // Pages of page_rows rows in the layout columns, whose page bounds (the ColumnIndex) let a box
  // skip inside a block; kOtherColumnPageRows in the others, which only hand over the rows a box
  // selects: 64-row pages cost each of them a page header, an offset-index entry and a zstd
  // frame per 64 rows — 10M events rows on (x, y) 546.0 → 489.9 MB, and the boxes read fewer
  // bytes (their rows come in runs within a block), not more.
  o.page_rows = std::max<size_t>(kOtherColumnPageRows, size_t(page_rows));
  const size_t own = size_t(cell_pages ? MaxCellPageRows(page_rows) : page_rows);
  for (const std::string& name : columns) o.column_page_rows.emplace_back(name, own);
  if (cell_pages) o.cut_columns = columns;
  o.row_group_rows = std::numeric_limits<size_t>::max();
  if (!o.fixed_width_zstd_level) o.fixed_width_zstd_level = -1;  // small pages of numbers: see WriteOptions
  o.delta_integers = true;  // small pages of numbers without an entropy coder: see WriteOptions
  o.byte_stream_split_floats = !o.portable_encodings;
  o.delta_length_strings = !o.portable_encodings;
  // The weights: a page per block (only samples read them, a block's whole), not 64-row pages'
  // headers, offset-index entries and zstd frames — unless a block holds several slices (row
  // groups by region): then a page per slice's run (the writer's `runs`), with bounds, so that a
  // sample skips the slices above it inside a block. (With the layout columns' cell pages
  // instead, 10M events rows by region: 67.9 MB of weights, 6.8 bytes a row.)
  o.column_page_rows.emplace_back(kWeightColumn, size_t(1) << 20);
  o.column_pool = ThreadPool::Default();  // files are written in parallel: idle threads help the last ones
  o.page_header_statistics = !o.page_index;  // small pages: the page index has their bounds
  o.column_index_columns = columns;           // only the layout columns are ordered within a block
  if (weight_pages) {
    o.run_cut_columns.push_back(kWeightColumn);
    o.column_index_columns.push_back(kWeightColumn);
  }
  return o;
}

// Writes rows [first, first + sum(groups)) of `rows`, cut into row groups by `groups` (row
// counts, in order), as one data file.
// `pages` and `runs`, if given, have each group's page and run sizes (ParquetWriter::Write).
Result<FragmentMeta> WriteRows(ObjectStore* store, const Batch& rows, size_t first, const std::vector<size_t>& groups,
                               const parquet::WriteOptions& options,
                               const std::vector<std::vector<uint32_t>>* pages = nullptr,
                               const std::vector<std::vector<uint32_t>>* runs = nullptr) {
  auto sizes = [](const std::vector<std::vector<uint32_t>>* all, size_t g) {
    return all ? std::span<const uint32_t>((*all)[g]) : std::span<const uint32_t>();
  };
  return table::StreamDataFile(store, rows.schema(), options, [&](parquet::ParquetWriter* writer) -> Status {
    size_t at = first;
    for (size_t g = 0; g < groups.size(); ++g) {
      const size_t count = groups[g];
      RETURN_IF_ERROR(writer->Write(rows, at, count, sizes(pages, g), sizes(runs, g)));
      RETURN_IF_ERROR(writer->FlushRowGroup());
      at += count;
    }
    return Status::OK();
  });
}

// Runs fn(i) for i in [0, n) on the shared pool; the first error wins.
Status ParallelStatus(size_t n, const std::function<Status(size_t)>& fn) {
  std::vector<Status> status(n);
  ParallelFor(ThreadPool::Default(), n, [&](size_t i) { status[i] = fn(i); });
  for (Status& s : status) RETURN_IF_ERROR(s);
  return Status::OK();
}

// Rows are put in file order in two cache-friendly steps: GroupRows scatters them into one run
// per bucket (a cube, or a row group of a comparison layout), then PermuteWithinBuckets orders
// each bucket's range in place. (A gather of each bucket's rows from all over the table, or a
// scatter straight to the final positions, misses the cache on every row: a quarter of the
// layout's time.)

std::vector<uint32_t> GroupRows(Placed* placed, const std::vector<uint32_t>& bucket_of_row, size_t buckets,
                                std::vector<size_t>* start) {
  const size_t n = bucket_of_row.size();
  start->assign(buckets + 1, 0);
  for (uint32_t b : bucket_of_row) ++(*start)[size_t(b) + 1];
  for (size_t b = 0; b < buckets; ++b) (*start)[b + 1] += (*start)[b];
  std::vector<uint32_t> position(n);
  std::vector<size_t> next(start->begin(), start->end() - 1);
  for (size_t i = 0; i < n; ++i) position[i] = uint32_t(next[bucket_of_row[i]]++);
  std::vector<Column>& columns = placed->rows.columns();
  ParallelFor(ThreadPool::Default(), columns.size() + placed->coords.size(), [&](size_t k) {
    if (k < columns.size()) {
      const std::vector<const Column*> pieces = placed->ColumnPieces(k);
      if (!pieces.empty()) columns[k] = Column::Scattered(pieces, position.data());
      if (placed->InPieces(k)) {  // done with the pieces of this column
        for (Batch& piece : placed->pieces) piece.mutable_column(k) = Column(columns[k].type());
      }
      return;
    }
    std::vector<uint32_t>& coords = placed->coords[k - columns.size()];
    std::vector<uint32_t> moved(coords.size());
    for (size_t i = 0; i < n; ++i) moved[position[i]] = coords[i];
    coords = std::move(moved);
  });
  placed->pieces.clear();
  placed->from_pieces.clear();
  return position;
}

// Row p of each bucket's range [start[b], start[b + 1]) becomes row from[p] (of the same range),
// in place, columns in parallel.
void PermuteWithinBuckets(Batch* rows, const std::vector<size_t>& start, const std::vector<uint32_t>& from) {
  std::vector<Column>& columns = rows->columns();
  ParallelFor(ThreadPool::Default(), columns.size(), [&](size_t c) {
    for (size_t b = 0; b + 1 < start.size(); ++b) {
      columns[c].PermuteRange(start[b], start[b + 1] - start[b], from.data() + start[b]);
    }
  });
}

std::vector<std::vector<int>> PackCubes(const Tree& tree, const std::vector<uint64_t>& rows, uint64_t rows_per_file) {
  const std::vector<Cube>& cubes = tree.cubes();
  const std::vector<int> pre_order = tree.PreOrder();
  std::vector<size_t> rank(cubes.size());
  for (size_t k = 0; k < pre_order.size(); ++k) rank[size_t(pre_order[k])] = k;
  std::vector<uint64_t> below(cubes.size(), 0);  // rows of each cube's subtree
  for (auto it = pre_order.rbegin(); it != pre_order.rend(); ++it) {
    const Cube& cube = cubes[size_t(*it)];
    below[size_t(*it)] += rows[size_t(*it)];
    if (cube.parent >= 0) below[size_t(cube.parent)] += below[size_t(*it)];
  }
  auto add_subtree = [&](int top, std::vector<int>* file) {
    std::vector<int> stack{top};
    while (!stack.empty()) {
      const int c = stack.back();
      stack.pop_back();
      if (rows[size_t(c)] > 0) file->push_back(c);
      for (int kid : cubes[size_t(c)].children) stack.push_back(kid);
    }
  };
  std::vector<std::vector<int>> files;
  // Packs the subtree of c: c's file takes c and the whole subtrees of as many children as fit,
  // smallest first; the other children are packed the same way, each its own top.
  std::function<void(int)> pack = [&](int c) {
    if (below[size_t(c)] == 0) return;
    std::vector<int> rest;
    if (rows[size_t(c)] == 0) {
      rest = cubes[size_t(c)].children;  // no rows of c to head a file
    } else {
      std::vector<int> file;
      if (below[size_t(c)] <= rows_per_file) {
        add_subtree(c, &file);
      } else {
        file.push_back(c);
        uint64_t used = rows[size_t(c)];
        std::vector<int> kids = cubes[size_t(c)].children;
        std::stable_sort(kids.begin(), kids.end(), [&](int a, int b) { return below[size_t(a)] < below[size_t(b)]; });
        for (int kid : kids) {
          if (used + below[size_t(kid)] <= rows_per_file) {
            add_subtree(kid, &file);
            used += below[size_t(kid)];
          } else {
            rest.push_back(kid);
          }
        }
      }
      std::sort(file.begin(), file.end(), [&](int a, int b) { return rank[size_t(a)] < rank[size_t(b)]; });
      files.push_back(std::move(file));
    }
    for (int kid : rest) pack(kid);
  };
  if (!cubes.empty()) pack(0);
  std::sort(files.begin(), files.end(), [&](const std::vector<int>& a, const std::vector<int>& b) {
    return rank[size_t(a.front())] < rank[size_t(b.front())];
  });
  return files;
}

// Writes the rows of every cube of `tree` (cube_of_row[i] = cube of row i) as blocks: cubes
// packed into files by PackCubes, in pre-order within a file, each cube as weight slices in
// Hilbert order. Takes `placed` by value to move its rows into file order in place (callers
// move it in).
Result<std::vector<WrittenFile>> WriteCubes(ObjectStore* store, Placed placed, const Tree& tree,
                                            const std::vector<uint32_t>& cube_of_row, int revision,
                                            const LayoutMeta& meta, const table::WriteConfig& config,
                                            const std::vector<std::vector<int>>* given) {
  std::vector<std::vector<int>> packed;
  if (given == nullptr) {
    std::vector<uint64_t> cube_rows(tree.cubes().size(), 0);
    for (uint32_t c : cube_of_row) ++cube_rows[c];
    packed = PackCubes(tree, cube_rows, std::max<uint64_t>(config.rows_per_file, 1));
  }
  const std::vector<std::vector<int>>& files = given ? *given : packed;
  // Buckets: the cubes with rows, file after file, so that each file's rows are consecutive.
  constexpr uint32_t kNoBucket = std::numeric_limits<uint32_t>::max();
  std::vector<uint32_t> bucket_of_cube(tree.cubes().size(), kNoBucket);
  std::vector<int> cube_of_bucket;
  std::vector<size_t> first_bucket;  // per file, and one past the last
  for (const std::vector<int>& file : files) {
    first_bucket.push_back(cube_of_bucket.size());
    for (int c : file) {
      bucket_of_cube[size_t(c)] = uint32_t(cube_of_bucket.size());
      cube_of_bucket.push_back(c);
    }
  }
  first_bucket.push_back(cube_of_bucket.size());
  std::vector<uint32_t> bucket_of_row(cube_of_row.size());
  for (size_t i = 0; i < cube_of_row.size(); ++i) {
    bucket_of_row[i] = bucket_of_cube[cube_of_row[i]];
    if (bucket_of_row[i] == kNoBucket) {
      return Status::Internal("layout: a row of cube " + tree.cubes()[cube_of_row[i]].id.ToString(tree.dims()) +
                              ", which none of the files being written holds");
    }
  }
  std::vector<size_t> start;
  GroupRows(&placed, bucket_of_row, cube_of_bucket.size(), &start);
  bucket_of_row = {};
  const Points points = placed.points();
  const size_t n = points.size;

  // Each cube's rows as weight slices in Hilbert order: the cube's j-th row becomes
  // from[start[k] + j] (a row of its range). Cubes in parallel, not files: a batch of one large
  // file was planned on one thread (15 s of a 3-D layout of 110M rows).
  const size_t min_slice_rows = size_t(std::max<uint64_t>(4 * meta.page_rows, 256));
  // Row groups by region: every cube with children is cut into the cells of the deepest such
  // cubes' level (fewer where that would make row groups under min_slice_rows rows on average).
  const bool by_region = meta.row_groups == kRowGroupsByRegion;
  int deepest_parent = 0;
  for (const otree::Cube& c : tree.cubes()) deepest_parent = std::max(deepest_parent, int(c.id.depth) - 1);
  std::vector<uint32_t> from(n);
  std::vector<std::vector<BlockMeta>> blocks_of_bucket(cube_of_bucket.size());
  std::vector<std::vector<std::vector<uint32_t>>> pages_of_bucket(cube_of_bucket.size());  // per block: its pages
  std::vector<std::vector<std::vector<uint32_t>>> runs_of_bucket(cube_of_bucket.size());   // and its slices' runs
  ParallelFor(ThreadPool::Default(), cube_of_bucket.size(), [&](size_t k) {
    const otree::Cube& cube = tree.cubes()[size_t(cube_of_bucket[k])];
    std::vector<uint32_t> cube_rows(start[k + 1] - start[k]);
    std::iota(cube_rows.begin(), cube_rows.end(), uint32_t(start[k]));
    uint32_t at = uint32_t(start[k]);
    int region_levels = -1;
    if (by_region) {
      region_levels = std::max(0, deepest_parent - int(cube.id.depth));
      while (region_levels > 0 && (cube_rows.size() >> (tree.dims() * region_levels)) < min_slice_rows) --region_levels;
    }
    for (otree::Slice& slice : otree::PlanSlices(cube_rows, points, cube.id.depth, meta.slices, min_slice_rows,
                                                 MaxCellPageRows(meta.page_rows), region_levels)) {
      BlockMeta block;
      block.revision = revision;
      block.cube = cube.id;
      block.rows = slice.rows.size();
      block.min_weight = slice.min_weight;
      block.max_weight = slice.max_weight;
      std::copy(slice.rows.begin(), slice.rows.end(), from.begin() + at);
      at += uint32_t(slice.rows.size());
      blocks_of_bucket[k].push_back(block);
      pages_of_bucket[k].push_back(std::move(slice.pages));
      runs_of_bucket[k].push_back(std::move(slice.runs));
    }
  });
  std::vector<WrittenFile> out(files.size());
  std::vector<std::vector<size_t>> groups(files.size());  // rows per block, per file
  std::vector<std::vector<std::vector<uint32_t>>> pages(files.size());  // page sizes per block, per file
  std::vector<std::vector<std::vector<uint32_t>>> runs(files.size());   // run sizes per block, per file
  for (size_t f = 0; f < files.size(); ++f) {
    for (size_t k = first_bucket[f]; k < first_bucket[f + 1]; ++k) {
      for (size_t b = 0; b < blocks_of_bucket[k].size(); ++b) {
        BlockMeta& block = blocks_of_bucket[k][b];
        block.row_group = int(groups[f].size());
        groups[f].push_back(block.rows);
        pages[f].push_back(std::move(pages_of_bucket[k][b]));
        runs[f].push_back(std::move(runs_of_bucket[k][b]));
        out[f].blocks.push_back(block);
      }
    }
  }
  placed.coords.clear();
  PermuteWithinBuckets(&placed.rows, start, from);
  RETURN_IF_ERROR(ParallelStatus(files.size(), [&](size_t f) -> Status {
    ASSIGN_OR_RETURN(out[f].meta, WriteRows(store, placed.rows, start[first_bucket[f]], groups[f],
                                            BlockWriteOptions(config, meta.columns, meta.page_rows, true, by_region),
                                            &pages[f], &runs[f]));
    return Status::OK();
  }));
  return out;
}

// Recomputes every cube's row count from the blocks (what Overfull and `stats` rely on).
void CountRows(LayoutMeta* meta) {
  for (Revision& rev : meta->revisions) {
    for (size_t c = 0; c < rev.tree.cubes().size(); ++c) rev.tree.set_rows(int(c), 0);
  }
  for (const BlockMeta& b : meta->blocks) {
    Revision* rev = meta->FindRevision(b.revision);
    int c = rev ? rev->tree.Find(b.cube) : -1;
    if (c >= 0) rev->tree.set_rows(c, rev->tree.cubes()[size_t(c)].rows + b.rows);
  }
}

// The commit of a layout change made against `base_version`: fragments `removed` go, `files` come
// in, and the layout becomes `meta` plus the blocks of `files` (blocks of removed fragments are
// dropped). A commit from another writer in between is a Conflict.
Status CommitLayout(table::Table* table, const std::string& operation, std::set<uint32_t> removed,
                    std::vector<WrittenFile> files, LayoutMeta meta, const Schema& schema,
                    const table::CommitHook& before_commit) {
  const uint64_t base_version = table->version();
  table::Transaction txn;
  txn.operation = operation;
  txn.removed = std::move(removed);
  for (const WrittenFile& f : files) txn.added.push_back(f.meta);
  std::erase_if(meta.blocks, [&](const BlockMeta& b) { return txn.removed.count(b.fragment) > 0; });
  txn.apply_extra = [base_version, files = std::move(files), meta = std::move(meta), schema, before_commit](Manifest* next) -> Status {
    if (next->parent_version != base_version) {
      return Status::Conflict("the table changed (version " + std::to_string(next->parent_version) +
                              ") while its layout was being written from version " + std::to_string(base_version) +
                              "; run the command again");
    }
    std::map<std::string, uint32_t> id_of_file;
    for (const FragmentMeta& f : next->fragments) id_of_file[f.file] = f.id;
    LayoutMeta out = meta;
    for (const WrittenFile& f : files) {
      for (BlockMeta b : f.blocks) {
        b.fragment = id_of_file.at(f.meta.file);
        out.blocks.push_back(b);
      }
    }
    CountRows(&out);
    next->schema = schema;
    next->layout = out.ToJson();
    return before_commit ? before_commit(next) : Status::OK();
  };
  return table->Commit(std::move(txn));
}

LayoutMeta MetaFor(const LayoutOptions& options) {
  LayoutMeta meta;
  meta.kind = options.kind;
  meta.columns = options.columns;
  meta.transform = options.transform;
  meta.cube_rows = options.cube_rows;
  meta.slices = options.slices;
  meta.page_rows = PageRows(options);
  meta.row_groups = options.row_groups.empty() ? kRowGroupsBySlice : options.row_groups;
  return meta;
}

Status CheckColumns(const Schema& schema, const LayoutOptions& options) {
  if (options.columns.empty() || options.columns.size() > size_t(otree::kMaxDims)) {
    return Status::InvalidArgument("layout needs 1 to " + std::to_string(otree::kMaxDims) + " columns, got " +
                                   std::to_string(options.columns.size()));
  }
  std::set<std::string> seen;
  for (const std::string& name : options.columns) {
    if (schema.FindField(name) < 0 || IsHiddenColumn(name)) {
      std::vector<std::string> names;
      for (size_t c = 0; c < schema.num_fields(); ++c) {
        if (!IsHiddenColumn(schema.field(c).name)) names.push_back(schema.field(c).name);
      }
      return Status::InvalidArgument("layout column '" + name + "' is not a column of the table" +
                                     DidYouMean(NearestNames(name, names)));
    }
    if (!seen.insert(name).second) return Status::InvalidArgument("layout column '" + name + "' is repeated");
  }
  if (!IsLayoutKind(options.kind)) {
    return Status::InvalidArgument("unknown layout kind '" + options.kind + "'");
  }
  if (options.transform != "default" && options.transform != "linear" && options.transform != "quantile") {
    return Status::InvalidArgument("unknown transformation '" + options.transform + "' (default, linear or quantile)");
  }
  if (options.cube_rows == 0 || options.slices < 1 || options.slices > 64) {
    return Status::InvalidArgument("layout: cube rows must be positive, slices in [1, 64]");
  }
  if (!options.row_groups.empty() && options.row_groups != kRowGroupsBySlice &&
      options.row_groups != kRowGroupsByRegion) {
    return Status::InvalidArgument(std::string("must be ") + kRowGroupsBySlice + " or " + kRowGroupsByRegion + ", not '" +
                                   options.row_groups + "'")
        .About("row_groups");
  }
  if (options.row_groups == kRowGroupsByRegion && options.kind != "otree") {
    return Status::InvalidArgument("row groups by region are an OTree's; the " + options.kind +
                                   " layout's row groups are cube_rows rows of its order")
        .About("row_groups");
  }
  return Status::OK();
}

uint64_t OrderKey(const uint32_t* coords, int dims, const std::string& kind) {
  return kind == "sort" ? uint64_t(coords[0]) : kind == "zorder" ? otree::ZOrderKey(coords, dims) : otree::HilbertKey(coords, dims);
}

int OrderKeyBits(int dims, const std::string& kind) { return kind == "sort" ? 32 : 64 / dims * dims; }

std::vector<uint32_t> CurveOrder(const Placed& placed, const std::vector<int>& columns, const std::string& kind) {
  const size_t n = placed.rows.num_rows();
  const int dims = int(columns.size());
  // Rows by a 64-bit key (a stable radix sort: equal keys keep row order): the curve's index, or
  // for `sort` the first column's coordinate.
  std::vector<SortEntry64> entries(n), scratch(n);
  for (size_t i = 0; i < n; ++i) {
    uint32_t p[otree::kMaxDims];
    for (int d = 0; d < dims; ++d) p[d] = placed.coords[size_t(d)][i];
    entries[i] = {OrderKey(p, dims, kind), i};
  }
  const SortEntry64* sorted = RadixSortEntries(entries.data(), scratch.data(), n, true);
  std::vector<uint32_t> order(n);
  for (size_t k = 0; k < n; ++k) order[k] = uint32_t(sorted[k].address);
  if (kind == "sort") {
    // Coordinates are monotone in the values, so they order rows exactly except on equal
    // coordinates, where the values decide: each run of equal first coordinates is sorted by
    // the values and the further columns.
    auto less = [&](uint32_t a, uint32_t b) {
      for (int d = 0; d < dims; ++d) {
        uint32_t ca = placed.coords[size_t(d)][a], cb = placed.coords[size_t(d)][b];
        if (ca != cb) return ca < cb;
        const Column& col = placed.rows.column(size_t(columns[size_t(d)]));
        if (col.IsNull(a) || col.IsNull(b)) {  // NULLs first, as their coordinate 0 says
          if (col.IsNull(a) != col.IsNull(b)) return col.IsNull(a);
          continue;
        }
        int cmp = CompareValues(col.GetValue(a), col.GetValue(b));
        if (cmp != 0) return cmp < 0;
      }
      return false;
    };
    for (size_t b = 0, e = 0; b < n; b = e) {
      for (e = b + 1; e < n && sorted[e].key == sorted[b].key;) ++e;
      if (e - b > 1) std::stable_sort(order.begin() + std::ptrdiff_t(b), order.begin() + std::ptrdiff_t(e), less);
    }
  }
  return order;
}

// Writes the rows in `order` as files of rows_per_file rows cut into row groups of cube_rows
// rows. Takes `placed` by value to move its rows into that order in place (see WriteCubes).
Result<std::vector<WrittenFile>> WriteOrdered(ObjectStore* store, Placed placed, const std::vector<uint32_t>& order,
                                              const LayoutOptions& options) {
  const uint64_t per_file = std::max<uint64_t>(options.write.rows_per_file, 1);
  const size_t files = size_t((order.size() + per_file - 1) / per_file);
  const size_t groups_per_file = size_t((per_file + options.cube_rows - 1) / options.cube_rows);
  std::vector<uint32_t> bucket_of_row(order.size());
  for (size_t k = 0; k < order.size(); ++k) {
    bucket_of_row[order[k]] = uint32_t(k / per_file * groups_per_file + k % per_file / options.cube_rows);
  }
  placed.coords.clear();
  std::vector<size_t> start;
  const std::vector<uint32_t> grouped = GroupRows(&placed, bucket_of_row, files * groups_per_file, &start);
  bucket_of_row = {};
  std::vector<uint32_t> from(order.size());  // row k goes to position k within its row group
  for (size_t k = 0; k < order.size(); ++k) from[k] = grouped[order[k]];
  PermuteWithinBuckets(&placed.rows, start, from);
  std::vector<WrittenFile> out(files);
  RETURN_IF_ERROR(ParallelStatus(files, [&](size_t f) -> Status {
    const size_t begin = size_t(f * per_file), end = std::min(order.size(), size_t((f + 1) * per_file));
    std::vector<size_t> groups;
    for (size_t at = begin; at < end; at += options.cube_rows) groups.push_back(std::min<size_t>(options.cube_rows, end - at));
    ASSIGN_OR_RETURN(out[f].meta, WriteRows(store, placed.rows, begin, groups,
                                            BlockWriteOptions(options.write, options.columns, PageRows(options), false, false)));
    return Status::OK();
  }));
  return out;
}

}  // namespace parts

uint64_t PageRows(const LayoutOptions& options) {
  if (options.page_rows != 0) return options.page_rows;
  return options.kind == "otree" && options.columns.size() >= 3 ? 32 : 64;
}

using namespace parts;  // NOLINT: this file defines them

Schema VisibleSchema(const Schema& schema) {
  Schema out;
  for (const Field& f : schema.fields()) {
    if (!IsHiddenColumn(f.name)) out.AddField(f);
  }
  return out;
}

Placed parts::PlacedFromPieces(std::vector<Batch> pieces, const Schema& table_schema, const std::vector<int>& joined,
                               bool weights, uint64_t seed, uint64_t first_row) {
  const Schema schema = weights ? WithWeight(table_schema) : table_schema;
  size_t n = 0;
  for (const Batch& piece : pieces) n += piece.num_rows();
  Placed placed;
  placed.weight_column = schema.FindField(kWeightColumn);
  std::vector<bool> join(schema.num_fields(), false);
  for (int c : joined) join[size_t(c)] = true;
  if (placed.weight_column >= 0) join[size_t(placed.weight_column)] = true;
  std::vector<Column> columns;
  std::vector<size_t> to_join;
  for (size_t c = 0; c < schema.num_fields(); ++c) {
    columns.emplace_back(schema.field(c).type);
    if (c >= table_schema.num_fields()) {
      columns[c] = DrawWeights(seed, first_row, n);
    } else if (join[c]) {
      to_join.push_back(c);
    } else {
      placed.from_pieces.push_back(int(c));
    }
  }
  ParallelFor(ThreadPool::Default(), to_join.size(), [&](size_t k) {
    Column& column = columns[to_join[k]];
    column.Reserve(n);
    for (const Batch& piece : pieces) column.AppendSlice(piece.column(to_join[k]), 0, piece.num_rows());
  });
  placed.rows = Batch(schema, std::move(columns), n);
  placed.pieces = std::move(pieces);
  return placed;
}

uint64_t DefaultMemoryLimit() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  const uint64_t ram = pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : uint64_t(4) << 30;
  return std::clamp<uint64_t>(ram / 4, uint64_t(256) << 20, kMaxDefaultMemoryLimit);
}

Result<uint64_t> parts::DecodedBytes(const table::Table& table, const std::vector<const FragmentMeta*>& fragments) {
  uint64_t decoded = 0, rows = 0;
  size_t strings = 0;
  for (const Field& f : table.schema().fields()) strings += IsBytes(f.type);
  for (const FragmentMeta* f : fragments) {
    ASSIGN_OR_RETURN(auto reader, table.OpenDataFile(*f));
    for (const parquet::RowGroup& rg : reader->metadata().row_groups) decoded += uint64_t(std::max<int64_t>(rg.total_byte_size, 0));
    rows += f->rows;
  }
  return decoded + rows * (4 * strings + table.schema().num_fields() / 8 + 1);
}

Result<uint64_t> EstimateLayoutMemory(const table::Table& table, const LayoutOptions& options) {
  std::vector<const FragmentMeta*> fragments;
  for (const FragmentMeta& f : table.manifest().fragments) fragments.push_back(&f);
  ASSIGN_OR_RETURN(const uint64_t decoded, DecodedBytes(table, fragments));
  return 2 * decoded + table.manifest().total_rows() * (4 * options.columns.size() + 8 + 16);
}

Result<LayoutReport> LayoutTable(table::Table* table, const LayoutOptions& options) {
  RETURN_IF_ERROR(CheckColumns(table->schema(), options));
  const uint64_t limit = options.memory_limit ? options.memory_limit : DefaultMemoryLimit();
  ASSIGN_OR_RETURN(const uint64_t need, EstimateLayoutMemory(*table, options));
  if (need > limit) {
    // Parts whose rows take at most a fifth of the limit by the estimate: spilling a part holds
    // its rows in more copies than the estimate counts (measured: about twice), and the next part
    // is read meanwhile (at a quarter, 110M events rows at 2G peaked at 2.1 GiB on three columns;
    // at a fifth 1.75 GiB, two columns 1.7 GiB either way).
    const uint64_t part_bytes = std::max<uint64_t>(limit / 5, 1);
    const size_t parts = size_t(std::min<uint64_t>((need + part_bytes - 1) / part_bytes, uint64_t(1) << 20));
    if (options.kind != "otree") return LayoutOrderedPartitioned(table, options, std::max<size_t>(parts, 2));
    // The points are held for the tree's levels within 3/5 of the limit (nothing else is large
    // then; at 2 GiB, 100M rows on two columns take 1.2 GB), the rest spilled.
    return LayoutTablePartitioned(table, options, std::max<size_t>(parts, 2), /*hold_points_bytes=*/limit / 5 * 3);
  }
  LayoutMeta meta = MetaFor(options);
  // The comparison layouts have no use for an earlier OTree's `_lakeindex_weight`: it goes, so that the
  // table's schema is its visible columns again (appends bring exactly those).
  std::vector<int> read_columns;  // empty: every column
  const int weight = table->schema().FindField(kWeightColumn);
  if (options.kind != "otree" && weight >= 0) {
    for (int c = 0; c < int(table->schema().num_fields()); ++c) {
      if (c != weight) read_columns.push_back(c);
    }
  }
  const Schema source_schema = table->ReadSchema(read_columns);
  ASSIGN_OR_RETURN(std::vector<int> columns, meta.ColumnIndexes(source_schema));
  if (options.progress) options.progress("reading", 0, table->manifest().total_rows());
  // The fragments are not joined: the rows are copied once, when GroupRows regroups them.
  ASSIGN_OR_RETURN(std::vector<Batch> pieces, table->ReadFragments(read_columns));
  // Only the sort layout reads layout columns by row before then (to break ties).
  Placed placed = PlacedFromPieces(std::move(pieces), source_schema, options.kind == "sort" ? columns : std::vector<int>{},
                                   options.kind == "otree", options.seed);
  const Schema schema = placed.rows.schema();
  ASSIGN_OR_RETURN(std::vector<Transform> transforms, FitTransforms(placed, columns, options.transform));
  RETURN_IF_ERROR(ExtendCoords(&placed, columns, transforms));
  if (options.progress) options.progress("placing", 0, placed.rows.num_rows());

  LayoutReport report;
  report.rows = placed.rows.num_rows();
  std::vector<WrittenFile> files;
  if (options.kind == "otree") {
    std::vector<uint32_t> cube_of_row;
    Revision rev;
    rev.id = 1;
    rev.transforms = std::move(transforms);
    rev.tree = Tree::Build(int(columns.size()), options.cube_rows, placed.points(), &cube_of_row);
    if (options.progress) options.progress("writing", 0, report.rows);
    ASSIGN_OR_RETURN(files, WriteCubes(table->store(), std::move(placed), rev.tree, cube_of_row, rev.id, meta, options.write));
    report.cubes = rev.tree.cubes().size();
    report.depth = rev.tree.depth();
    meta.revisions.push_back(std::move(rev));
  } else {
    if (options.progress) options.progress("writing", 0, report.rows);
    std::vector<uint32_t> order = CurveOrder(placed, columns, options.kind);
    ASSIGN_OR_RETURN(files, WriteOrdered(table->store(), std::move(placed), order, options));
  }
  for (const WrittenFile& f : files) report.blocks += f.blocks.empty() ? 0 : f.blocks.size();
  report.files = files.size();
  std::set<uint32_t> removed;
  for (const FragmentMeta& f : table->manifest().fragments) removed.insert(f.id);
  RETURN_IF_ERROR(CommitLayout(table, "layout", std::move(removed), std::move(files), std::move(meta), schema,
                               options.write.before_commit));
  if (options.progress) options.progress("done", report.rows, report.rows);
  return report;
}

Result<LayoutReport> AppendToLayout(table::Table* table, table::BatchSource* source, const table::WriteConfig& config) {
  ASSIGN_OR_RETURN(std::optional<LayoutMeta> loaded, LoadLayout(table->manifest()));
  if (!loaded || !loaded->is_otree()) return Status::InvalidArgument("append: the table has no OTree layout");
  LayoutMeta meta = std::move(*loaded);
  const Schema visible = VisibleSchema(table->schema());
  bool same_types = source->schema().num_fields() == visible.num_fields();
  for (size_t c = 0; same_types && c < visible.num_fields(); ++c) {
    same_types = source->schema().field(c).type == visible.field(c).type;
  }
  if (!same_types) {
    return Status::InvalidArgument("schema mismatch: the table has (" + visible.ToString() + ") but the input has (" +
                                   source->schema().ToString() + ")");
  }
  const Schema schema = WithWeight(visible);
  const int weight_column = schema.FindField(kWeightColumn);
  ASSIGN_OR_RETURN(std::vector<int> columns, meta.ColumnIndexes(schema));
  const uint64_t seed = Mix(table->version() + 1) ^ 0x6C617965ULL;
  // The input is placed a chunk at a time: chunks of decoded rows up to a fifth of the memory
  // limit (placing and regrouping a chunk holds about three copies besides the process: at a
  // third, 10M events rows at 2G peaked at 2.1 GiB). A row's weight depends on
  // its position in the input and its cube on its values and weight only, so chunks give the
  // rows the weights and cubes one piece would; a cube gets a block per chunk.
  const uint64_t chunk_bytes = std::max<uint64_t>((config.memory_limit ? config.memory_limit : DefaultMemoryLimit()) / 5, 1);

  // Rows inside the newest revision's range go into its tree; the others (kept until the end)
  // start a new revision fitted on them.
  Revision& newest = meta.revisions.back();
  LayoutReport report;
  std::vector<WrittenFile> files;
  // The files of chunks already written are removed when a later step fails before the commit
  // (bad input further on, a failed write); from the commit on they are left to vacuum, since a
  // commit reported failed may still have landed (a lost answer).
  struct Unreferenced {
    ObjectStore* store;
    const std::vector<WrittenFile>* files;
    bool keep = false;
    ~Unreferenced() {
      if (keep) return;
      std::vector<std::string> paths;
      for (const WrittenFile& f : *files) paths.push_back(f.meta.file);
      if (!paths.empty()) (void)store->DeleteMany(paths);  // best effort: vacuum removes the rest
    }
  } unreferenced{table->store(), &files};
  Batch outside_rows(schema);
  auto take = [&](const Batch& all, const std::vector<uint32_t>& rows) {
    Placed p;
    p.rows = Batch(schema);
    for (size_t c = 0; c < schema.num_fields(); ++c) {
      p.rows.mutable_column(c).AppendSelected(all.column(c), rows.data(), rows.size());
    }
    p.weight_column = weight_column;
    return p;
  };
  auto place_chunk = [&](Batch chunk) -> Status {
    if (chunk.num_rows() == 0) return Status::OK();
    // Same names, types and nullability as the table: the columns are the table's.
    Batch all = AddWeights(Batch(visible, std::move(chunk.columns()), chunk.num_rows()), seed, report.rows);
    report.rows += all.num_rows();
    std::vector<uint32_t> inside, outside;
    for (size_t i = 0; i < all.num_rows(); ++i) {
      bool covered = true;
      for (size_t d = 0; d < columns.size() && covered; ++d) {
        const Column& col = all.column(size_t(columns[d]));
        if (col.IsValid(i)) covered = newest.transforms[d].Covers(col.GetValue(i));
      }
      (covered ? inside : outside).push_back(uint32_t(i));
    }
    if (!outside.empty()) {
      Placed past = take(all, outside);
      RETURN_IF_ERROR(past.rows.Seal());
      RETURN_IF_ERROR(outside_rows.Append(past.rows));
    }
    if (inside.empty()) return Status::OK();
    Placed p;
    if (inside.size() == all.num_rows()) {  // the usual case: no copy
      p.rows = std::move(all);
      p.weight_column = weight_column;
    } else {
      p = take(all, inside);
    }
    RETURN_IF_ERROR(ExtendCoords(&p, columns, newest.transforms));
    std::vector<uint32_t> cube_of_row;
    newest.tree.Place(p.points(), &cube_of_row);
    ASSIGN_OR_RETURN(auto written, WriteCubes(table->store(), std::move(p), newest.tree, cube_of_row, newest.id, meta, config));
    for (auto& f : written) files.push_back(std::move(f));
    return Status::OK();
  };
  Batch chunk(source->schema());
  size_t chunk_memory = 0;
  while (true) {
    Batch part;
    ASSIGN_OR_RETURN(bool more, source->Next(1 << 20, &part));
    if (!more) break;
    for (size_t c = 0; c < part.num_columns(); ++c) chunk_memory += part.column(c).MemoryBytes();
    RETURN_IF_ERROR(chunk.Append(part));
    if (chunk_memory >= chunk_bytes) {
      RETURN_IF_ERROR(chunk.Seal());
      RETURN_IF_ERROR(place_chunk(std::exchange(chunk, Batch(source->schema()))));
      chunk_memory = 0;
    }
  }
  RETURN_IF_ERROR(chunk.Seal());
  RETURN_IF_ERROR(place_chunk(std::move(chunk)));
  if (report.rows == 0) return report;
  RETURN_IF_ERROR(outside_rows.Seal());
  if (outside_rows.num_rows() > 0) {
    Placed p;
    p.rows = std::move(outside_rows);
    p.weight_column = weight_column;
    Revision rev;
    rev.id = meta.revisions.back().id + 1;
    ASSIGN_OR_RETURN(rev.transforms, FitTransforms(p, columns, meta.transform));
    RETURN_IF_ERROR(ExtendCoords(&p, columns, rev.transforms));
    std::vector<uint32_t> cube_of_row;
    rev.tree = Tree::Build(int(columns.size()), meta.cube_rows, p.points(), &cube_of_row);
    ASSIGN_OR_RETURN(auto written, WriteCubes(table->store(), std::move(p), rev.tree, cube_of_row, rev.id, meta, config));
    for (auto& f : written) files.push_back(std::move(f));
    meta.revisions.push_back(std::move(rev));
  }
  report.files = files.size();
  for (const WrittenFile& f : files) report.blocks += f.blocks.size();
  unreferenced.keep = true;
  RETURN_IF_ERROR(CommitLayout(table, "append", {}, std::move(files), std::move(meta), schema, config.before_commit));
  return report;
}

Result<size_t> OptimizeLayout(table::Table* table, const table::WriteConfig& config) {
  ASSIGN_OR_RETURN(std::optional<LayoutMeta> loaded, LoadLayout(table->manifest()));
  if (!loaded || !loaded->is_otree()) return Status::InvalidArgument("optimize: the table has no OTree layout");
  LayoutMeta meta = std::move(*loaded);
  CountRows(&meta);
  const Schema& schema = table->schema();
  ASSIGN_OR_RETURN(std::vector<int> columns, meta.ColumnIndexes(schema));
  constexpr double kOverfull = 1.5;

  // Fragments to rewrite: small ones (when PackCubes makes fewer files of them), ones with
  // deleted rows, and (found below) those holding blocks of overfull cubes. Small files that
  // hold a whole subtree each stay: rolling them up would break PackCubes' rule, so packing them
  // again gives as many files (and optimize does not rewrite them every time).
  std::set<uint32_t> rewrite;
  std::set<uint32_t> small;
  for (const FragmentMeta& f : table->manifest().fragments) {
    if (f.deletion) rewrite.insert(f.id);
    if (f.rows < config.rows_per_file / 2) small.insert(f.id);
  }
  std::map<uint32_t, std::vector<const BlockMeta*>> blocks_of;
  for (const BlockMeta& b : meta.blocks) blocks_of[b.fragment].push_back(&b);
  if (small.size() > 1) {
    std::map<int, std::vector<uint64_t>> rows_of_cube;  // per revision, the small files' rows
    for (uint32_t id : small) {
      for (const BlockMeta* b : blocks_of[id]) {
        const Revision* rev = meta.FindRevision(b->revision);
        const int c = rev ? rev->tree.Find(b->cube) : -1;
        if (c < 0) return Status::Corruption("layout block of fragment " + std::to_string(id) + " names a missing cube");
        std::vector<uint64_t>& rows = rows_of_cube[b->revision];
        rows.resize(rev->tree.cubes().size(), 0);
        rows[size_t(c)] += b->rows;
      }
    }
    size_t packed = 0;
    for (const auto& [rev_id, rows] : rows_of_cube) {
      packed += PackCubes(meta.FindRevision(rev_id)->tree, rows, std::max<uint64_t>(config.rows_per_file, 1)).size();
    }
    if (packed < small.size()) rewrite.insert(small.begin(), small.end());
  }
  // Pass 1, the points (coordinates and weights) of the rows to rewrite, per revision, with the
  // cube each is in: a row takes 4 bytes a layout column and 12 besides, not its whole columns.
  struct Pool {
    PartitionPoints points;
    std::vector<uint32_t> cube_of_row;
  };
  std::map<int, Pool> pools;
  // A block's live rows: consecutive in what ReadFragment returns, and in their revision's pool.
  struct Piece {
    int revision;
    size_t live_start, pool_start, rows;
  };
  std::vector<uint32_t> order;  // the fragments read, in order
  std::map<uint32_t, std::vector<Piece>> pieces_of;
  std::vector<int> point_columns = columns;
  point_columns.push_back(schema.FindField(kWeightColumn));
  std::vector<int> local_columns(columns.size());
  std::iota(local_columns.begin(), local_columns.end(), 0);
  auto read_fragment = [&](uint32_t id) -> Status {
    if (pieces_of.count(id)) return Status::OK();
    const FragmentMeta* f = table->manifest().FindFragment(id);
    if (!f) return Status::Corruption("layout block names missing fragment " + std::to_string(id));
    auto& blocks = blocks_of[id];
    std::sort(blocks.begin(), blocks.end(), [](const BlockMeta* a, const BlockMeta* b) { return a->row_group < b->row_group; });
    ASSIGN_OR_RETURN(auto deleted, table->Deletions(*f));
    ASSIGN_OR_RETURN(Batch rows, table->ReadFragment(*f, point_columns));
    uint64_t offset = 0;
    size_t live = 0;
    std::vector<Piece> pieces;
    for (const BlockMeta* b : blocks) {
      size_t kept = 0;
      for (uint64_t r = offset; r < offset + b->rows; ++r) kept += !deleted->contains(uint32_t(r));
      offset += b->rows;
      const Revision* rev = meta.FindRevision(b->revision);
      const int cube = rev ? rev->tree.Find(b->cube) : -1;
      if (cube < 0) return Status::Corruption("layout block of fragment " + std::to_string(id) + " names a missing cube");
      if (live + kept > rows.num_rows()) break;  // reported below
      Placed block;
      block.rows = rows.Slice(live, kept);
      block.weight_column = int(columns.size());
      RETURN_IF_ERROR(ExtendCoords(&block, local_columns, rev->transforms));
      Pool& pool = pools[b->revision];
      pool.points.coords.resize(columns.size());
      pieces.push_back(Piece{b->revision, live, pool.cube_of_row.size(), kept});
      for (size_t d = 0; d < columns.size(); ++d) {
        pool.points.coords[d].insert(pool.points.coords[d].end(), block.coords[d].begin(), block.coords[d].end());
      }
      const double* w = block.rows.column(columns.size()).data<double>();
      pool.points.weights.insert(pool.points.weights.end(), w, w + kept);
      pool.cube_of_row.insert(pool.cube_of_row.end(), kept, uint32_t(cube));
      live += kept;
    }
    if (offset != f->rows || live != rows.num_rows()) {
      return Status::Corruption("fragment " + std::to_string(id) + ": its blocks hold " + std::to_string(offset) +
                                " rows, the manifest says " + std::to_string(f->rows));
    }
    pieces_of[id] = std::move(pieces);
    order.push_back(id);
    rewrite.insert(id);
    return Status::OK();
  };
  for (uint32_t id : std::set<uint32_t>(rewrite)) RETURN_IF_ERROR(read_fragment(id));

  // Overfull cubes push their heaviest rows down; a child that overfills in turn is split next
  // round, once every fragment holding its rows has been read.
  for (Revision& rev : meta.revisions) {
    for (int round = 0; round <= otree::kCoordBits; ++round) {
      std::vector<int> over = rev.tree.Overfull(kOverfull);
      if (over.empty()) break;
      std::set<int> over_set(over.begin(), over.end());
      for (const BlockMeta& b : meta.blocks) {
        if (b.revision == rev.id && over_set.count(rev.tree.Find(b.cube))) RETURN_IF_ERROR(read_fragment(b.fragment));
      }
      Pool& pool = pools[rev.id];
      if (pool.cube_of_row.empty()) break;  // nothing of this revision read (cannot happen)
      const Points points = pool.points.points();
      std::map<int, std::vector<uint32_t>> rows_of;  // overfull cube -> its rows in the pool
      for (int c : over) rows_of[c];
      for (size_t i = 0; i < pool.cube_of_row.size(); ++i) {
        if (auto it = rows_of.find(int(pool.cube_of_row[i])); it != rows_of.end()) it->second.push_back(uint32_t(i));
      }
      for (auto& [c, rows] : rows_of) {
        std::vector<std::vector<uint32_t>> sub_coords(columns.size());
        std::vector<double> sub_weights;
        for (uint32_t r : rows) {
          for (size_t d = 0; d < columns.size(); ++d) sub_coords[d].push_back(points.coords[d][r]);
          sub_weights.push_back(points.weights[r]);
        }
        Points sub;
        sub.dims = int(columns.size());
        sub.size = rows.size();
        for (size_t d = 0; d < columns.size(); ++d) sub.coords[d] = sub_coords[d].data();
        sub.weights = sub_weights.data();
        std::vector<uint32_t> placed_in;
        rev.tree.Split(c, sub, &placed_in);
        for (size_t k = 0; k < rows.size(); ++k) pool.cube_of_row[rows[k]] = placed_in[k];
      }
    }
  }
  if (rewrite.empty()) return size_t(0);

  // Pass 2: every row read is written again as blocks of its (possibly new) cube, in the files
  // PackCubes makes of each revision's rows, from runs of the fragments' rows in the order they
  // were read: held when the rows fit in the memory limit, else spilled under _tmp/ (the same
  // files either way). The commit drops the old blocks and recounts rows per cube.
  std::vector<const FragmentMeta*> read_fragments;
  for (uint32_t id : order) read_fragments.push_back(table->manifest().FindFragment(id));
  ASSIGN_OR_RETURN(const uint64_t decoded, DecodedBytes(*table, read_fragments));
  const uint64_t limit = config.memory_limit ? config.memory_limit : DefaultMemoryLimit();
  std::optional<Temporaries> temporaries;
  if (2 * decoded > limit) temporaries.emplace(table->store(), "optimize");
  std::map<int, FileRuns> runs;
  for (auto& [rev_id, pool] : pools) {
    const Revision& rev = *meta.FindRevision(rev_id);
    std::vector<uint64_t> rows_of_cube(rev.tree.cubes().size(), 0);
    for (uint32_t c : pool.cube_of_row) ++rows_of_cube[c];
    runs.try_emplace(rev_id, table->store(), temporaries ? &*temporaries : nullptr, schema, rev.tree,
                     PackCubes(rev.tree, rows_of_cube, std::max<uint64_t>(config.rows_per_file, 1)));
    pool.points = {};
  }
  for (uint32_t id : order) {
    ASSIGN_OR_RETURN(Batch rows, table->ReadFragment(*table->manifest().FindFragment(id), {}));
    std::map<int, std::pair<Batch, std::vector<uint32_t>>> of_revision;  // this fragment's rows per revision
    for (const Piece& piece : pieces_of[id]) {
      if (piece.live_start + piece.rows > rows.num_rows()) {
        return Status::Internal("optimize: fragment " + std::to_string(id) + " changed while it was read");
      }
      auto& [batch, cubes] = of_revision[piece.revision];
      if (batch.num_columns() == 0) batch = Batch(schema);
      for (size_t c = 0; c < schema.num_fields(); ++c) {
        batch.mutable_column(c).AppendSlice(rows.column(c), piece.live_start, piece.rows);
      }
      const std::vector<uint32_t>& pool_cubes = pools[piece.revision].cube_of_row;
      cubes.insert(cubes.end(), pool_cubes.begin() + std::ptrdiff_t(piece.pool_start),
                   pool_cubes.begin() + std::ptrdiff_t(piece.pool_start + piece.rows));
    }
    for (auto& [rev_id, batch_cubes] : of_revision) {
      RETURN_IF_ERROR(batch_cubes.first.Seal());
      RETURN_IF_ERROR(runs.at(rev_id).Add(std::move(batch_cubes.first), batch_cubes.second));
    }
  }
  pools.clear();
  std::vector<WrittenFile> files;
  uint64_t rows_before = 0;  // written for the revisions before
  for (auto& [rev_id, file_runs] : runs) {
    const Revision& rev = *meta.FindRevision(rev_id);
    // Held runs are written at once, as one Placed; spilled ones a fragment's rows at a time.
    const uint64_t batch_rows = temporaries ? std::max<uint64_t>(config.rows_per_file, 1) : file_runs.rows();
    ASSIGN_OR_RETURN(auto written, file_runs.Write(columns, rev.transforms, rev_id, meta, config, batch_rows, [&](uint64_t done) {
      if (config.progress) config.progress(rows_before + done);
    }));
    rows_before += file_runs.rows();
    for (auto& f : written) files.push_back(std::move(f));
  }
  const size_t rewritten = rewrite.size();
  RETURN_IF_ERROR(CommitLayout(table, "optimize", std::move(rewrite), std::move(files), std::move(meta), schema,
                               config.before_commit));
  return rewritten;
}

}  // namespace lakeindex::layout
