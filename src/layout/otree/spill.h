// Spilling for the layout work that does not fit in memory (issue 21): temporary objects under the
// table's `_tmp/`, and rows on their way to the data files PackCubes groups a tree's cubes into,
// held or spilled as runs and written back a batch of files at a time. Used by the partitioned
// layout (partitioned_layout.cc) and by OptimizeLayout (layout_writer.cc), so that both write the
// files the in-memory path writes.
// Internal to layout/. Thread safety: one caller per object.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "format/parquet/reader.h"
#include "format/parquet/writer.h"
#include "layout/otree/layout_parts.h"

namespace lakeindex::layout::parts {

// The temporary objects of one run of a command in this process, `_tmp/<kind>-<uuid>-*`: removed
// when it ends, whether it succeeds or fails (a killed command leaves them to vacuum).
class Temporaries {
 public:
  Temporaries(ObjectStore* store, const std::string& kind);
  ~Temporaries();
  Temporaries(const Temporaries&) = delete;
  Temporaries& operator=(const Temporaries&) = delete;
  // A new object's path (to be written by the caller), unique among this object's.
  std::string Name(const std::string& leaf);

 private:
  ObjectStore* store_;
  std::string prefix_;
  std::vector<std::string> names_;
};

// Spilled rows are read back once, by this process: fast settings, no page index or checksums, a
// row group only where the caller cuts one.
parquet::WriteOptions SpillWriteOptions();

// Points (coordinates and weights) as a layout keeps them between the tree's levels: the
// coordinates, and the weights as their 32 bits when every one is a multiple of 2^-32 in [0, 1)
// (as DrawWeights draws them), else as doubles (weights written before they had 32 bits).
struct CompactPoints {
  std::vector<std::vector<uint32_t>> coords;
  std::vector<uint32_t> weight_bits;  // weight i = weight_bits[i] * 2^-32; empty when `weights` holds them
  std::vector<double> weights;
  size_t rows = 0;

  size_t size() const { return rows; }
  double weight(size_t i) const { return weights.empty() ? double(weight_bits[i]) * 0x1.0p-32 : weights[i]; }
  bool wide() const { return !weights.empty(); }
  uint64_t bytes() const {
    return uint64_t(rows) * (coords.size() * sizeof(uint32_t) + (wide() ? sizeof(double) : sizeof(uint32_t)));
  }
};
// REQUIRES: every coords[d] and weights of one length, weights in [0, 1).
CompactPoints Compact(std::vector<std::vector<uint32_t>> coords, std::vector<double> weights);
// Points as one temporary object (the coordinates of each dimension, then the weights, in the
// machine's byte order), and back: the reader says how many and whether the weights were wide;
// Corruption when the object's size disagrees.
Status WritePoints(ObjectStore* store, const std::string& path, const CompactPoints& points);
Result<CompactPoints> ReadPoints(ObjectStore* store, const std::string& path, size_t dims, size_t rows, bool wide);

// Rows of `schema` sorted into numbered buckets (the data files a layout writes, or key ranges),
// added as runs in the order the in-memory path would hold them, each row with an optional tag
// (its cube). A run is spilled as a Parquet object with a row group per bucket it has rows for
// and the tags in a last column, or held as it is when `temporaries` is null.
class BucketRuns {
 public:
  BucketRuns(ObjectStore* store, Temporaries* temporaries, Schema schema, size_t buckets, bool tagged);
  // The next run: `rows` (of the schema), bucket_of_row[i] < buckets, tag_of_row one per row when
  // tagged (else empty).
  Status Add(Batch rows, const std::vector<uint32_t>& bucket_of_row, const std::vector<uint32_t>& tag_of_row);
  // The same with the rows as Placed (their coordinates are not kept; columns may wait in pieces).
  Status Add(Placed rows, const std::vector<uint32_t>& bucket_of_row, const std::vector<uint32_t>& tag_of_row);
  uint64_t rows() const { return rows_; }
  uint64_t rows_of(size_t bucket) const { return rows_of_bucket_[bucket]; }
  size_t buckets() const { return rows_of_bucket_.size(); }
  // The rows of buckets [first, end) from every run, in run order (each run's in bucket order), as
  // pieces, with their tags (when the runs have them). Safe to call from one thread while another
  // thread adds nothing.
  Result<std::pair<std::vector<Batch>, std::vector<uint32_t>>> Read(size_t first, size_t end) const;

 private:
  struct Run {
    std::string path;                  // spilled; empty when held
    std::unique_ptr<parquet::ParquetReader> reader;  // spilled, once Read
    std::vector<int> group_of_bucket;  // spilled: row group per bucket, -1 for none
    Batch rows;                        // held: grouped by bucket
    std::vector<uint32_t> tags;        // held: the rows' tags
    std::vector<size_t> start;         // held: where each bucket's rows start
  };
  ObjectStore* store_;
  Temporaries* temporaries_;
  Schema schema_;
  std::vector<uint64_t> rows_of_bucket_;
  std::vector<Run> runs_;
  bool tagged_;
  uint64_t rows_ = 0;
};

// Rows of `schema` (with `_lakeindex_weight`) going to `files` (PackCubes' grouping of the cubes of
// `tree`): BucketRuns with a bucket per file and each row's cube as its tag. Write() then writes
// each file from its rows of every run, in run order: the rows of each cube in the order they were
// added, as WriteCubes writes them from one Placed.
class FileRuns {
 public:
  FileRuns(ObjectStore* store, Temporaries* temporaries, Schema schema, const otree::Tree& tree,
           std::vector<std::vector<int>> files);
  // The next run: `rows` (of the schema) whose cubes are cube_of_row (indexes into the tree's cubes,
  // each in one of the files).
  Status Add(Batch rows, const std::vector<uint32_t>& cube_of_row);
  Status Add(Placed rows, const std::vector<uint32_t>& cube_of_row);  // coordinates not kept
  uint64_t rows() const { return runs_.rows(); }
  // Writes the files, consecutive ones of at most batch_rows rows together (or one file alone), as
  // blocks of `revision` (WriteCubes with the grouping given), the next batch read while one is
  // written; `columns` are the layout columns' schema indexes, `transforms` their transformations.
  // progress(rows written so far) before each batch.
  Result<std::vector<WrittenFile>> Write(const std::vector<int>& columns, const std::vector<otree::Transform>& transforms,
                                         int revision, const LayoutMeta& meta, const table::WriteConfig& config,
                                         uint64_t batch_rows, const std::function<void(uint64_t)>& progress);

 private:
  ObjectStore* store_;
  Schema schema_;
  const otree::Tree& tree_;
  std::vector<std::vector<int>> files_;
  std::vector<uint32_t> file_of_cube_;
  BucketRuns runs_;
};

}  // namespace lakeindex::layout::parts
