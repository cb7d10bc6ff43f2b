#include "layout/otree/spill.h"

#include <cstring>
#include <limits>
#include <numeric>

#include "common/thread_pool.h"
#include "common/uuid.h"
#include "table/manifest.h"

namespace lakeindex::layout::parts {

Temporaries::Temporaries(ObjectStore* store, const std::string& kind)
    : store_(store), prefix_(std::string(table::kTempDir) + kind + "-" + NewUuid() + "-") {}

Temporaries::~Temporaries() {
  if (!names_.empty()) (void)store_->DeleteMany(names_);  // best effort: vacuum removes what stays
}

std::string Temporaries::Name(const std::string& leaf) {
  names_.push_back(prefix_ + std::to_string(names_.size()) + "-" + leaf);  // unique whoever asks
  return names_.back();
}

parquet::WriteOptions SpillWriteOptions() {
  parquet::WriteOptions o;
  // Read back once: the fastest codec, where it pays. Integers delta-encoded (no codec needed
  // after); LZ4 kept only where the first page shrinks by a quarter: on 100M events rows it
  // compressed every column but the doubles, weights and names shrinking by 13-17%, a quarter
  // of the CPU of spilling.
  o.codec = parquet::Codec::kLz4Raw;
  o.incompressible_above = 0.75;
  o.delta_integers = true;
  o.dictionary = false;
  o.row_group_rows = std::numeric_limits<size_t>::max();  // a row group per file's run, cut by hand
  o.page_rows = size_t(1) << 16;
  o.statistics = false;
  o.page_index = false;
  o.page_crc = false;
  o.column_pool = ThreadPool::Default();
  return o;
}

CompactPoints Compact(std::vector<std::vector<uint32_t>> coords, std::vector<double> weights) {
  CompactPoints out;
  out.rows = weights.size();
  out.coords = std::move(coords);
  out.weight_bits.resize(out.rows);
  for (size_t i = 0; i < out.rows; ++i) {
    const double scaled = weights[i] * 0x1.0p32;  // exact: a power of two
    const auto bits = uint32_t(scaled);
    if (double(bits) != scaled) {
      out.weight_bits = {};
      out.weights = std::move(weights);
      break;
    }
    out.weight_bits[i] = bits;
  }
  return out;
}

Status WritePoints(ObjectStore* store, const std::string& path, const CompactPoints& points) {
  ASSIGN_OR_RETURN(std::unique_ptr<ObjectWriter> out, store->OpenWriter(path));
  auto append = [&](const auto& v) {
    return out->Append({reinterpret_cast<const char*>(v.data()), v.size() * sizeof(v[0])});
  };
  for (const std::vector<uint32_t>& c : points.coords) RETURN_IF_ERROR(append(c));
  RETURN_IF_ERROR(points.wide() ? append(points.weights) : append(points.weight_bits));
  return out->Close();
}

Result<CompactPoints> ReadPoints(ObjectStore* store, const std::string& path, size_t dims, size_t rows, bool wide) {
  ASSIGN_OR_RETURN(std::string bytes, store->Read(path));
  CompactPoints out;
  out.rows = rows;
  out.coords.assign(dims, std::vector<uint32_t>(rows));
  if (wide) {
    out.weights.resize(rows);
  } else {
    out.weight_bits.resize(rows);
  }
  const uint64_t expected = uint64_t(rows) * (dims * sizeof(uint32_t) + (wide ? sizeof(double) : sizeof(uint32_t)));
  if (bytes.size() != expected) {
    return Status::Corruption(path + ": " + std::to_string(bytes.size()) + " bytes of spilled points, expected " +
                              std::to_string(rows) + " rows of " + std::to_string(dims) + " coordinates and a weight");
  }
  const char* at = bytes.data();
  auto take = [&](auto* v) {
    std::memcpy(v->data(), at, v->size() * sizeof((*v)[0]));
    at += v->size() * sizeof((*v)[0]);
  };
  for (std::vector<uint32_t>& c : out.coords) take(&c);
  if (wide) {
    take(&out.weights);
  } else {
    take(&out.weight_bits);
  }
  return out;
}

namespace {

// The spilled runs' last column: each row's tag.
constexpr const char* kTagColumn = "_lakeindex_tag";

}  // namespace

BucketRuns::BucketRuns(ObjectStore* store, Temporaries* temporaries, Schema schema, size_t buckets, bool tagged)
    : store_(store), temporaries_(temporaries), schema_(std::move(schema)), rows_of_bucket_(buckets, 0), tagged_(tagged) {}

Status BucketRuns::Add(Batch rows, const std::vector<uint32_t>& bucket_of_row, const std::vector<uint32_t>& tag_of_row) {
  Placed placed;
  placed.rows = std::move(rows);
  placed.weight_column = schema_.FindField(kWeightColumn);
  return Add(std::move(placed), bucket_of_row, tag_of_row);
}

Status BucketRuns::Add(Placed placed, const std::vector<uint32_t>& bucket_of_row, const std::vector<uint32_t>& tag_of_row) {
  const size_t n = bucket_of_row.size(), buckets = rows_of_bucket_.size();
  if (placed.rows.num_rows() != n || !(placed.rows.schema() == schema_) || tag_of_row.size() != (tagged_ ? n : 0)) {
    return Status::Internal("layout: a run's rows do not match their buckets, tags or the table's columns");
  }
  for (uint32_t b : bucket_of_row) {
    if (b >= buckets) return Status::Internal("layout: a row's bucket is out of range");
  }
  placed.coords = {};  // not kept
  Run run;
  const std::vector<uint32_t> position = GroupRows(&placed, bucket_of_row, buckets, &run.start);
  if (tagged_) {
    run.tags.resize(n);
    for (size_t i = 0; i < n; ++i) run.tags[position[i]] = tag_of_row[i];
  }
  for (size_t b = 0; b < buckets; ++b) rows_of_bucket_[b] += run.start[b + 1] - run.start[b];
  rows_ += n;
  if (temporaries_ == nullptr) {
    run.rows = std::move(placed.rows);
    runs_.push_back(std::move(run));
    return Status::OK();
  }
  // Spilled: the rows with their tags, a row group per bucket.
  Schema spilled_schema = schema_;
  std::vector<Column> columns = std::move(placed.rows.columns());
  if (tagged_) {
    spilled_schema.AddField(Field{kTagColumn, TypeId::kInt32, false});
    Column tags(TypeId::kInt32);
    std::copy(run.tags.begin(), run.tags.end(), tags.AppendValues<int32_t>(n));
    columns.push_back(std::move(tags));
    run.tags = {};
  }
  const Batch spilled(spilled_schema, std::move(columns), n);
  run.path = temporaries_->Name("rows-" + std::to_string(runs_.size()) + ".parquet");
  ASSIGN_OR_RETURN(auto stream, table::DataFileStream::Open(store_, spilled_schema, SpillWriteOptions(), run.path));
  run.group_of_bucket.assign(buckets, -1);
  int group = 0;
  for (size_t b = 0; b < buckets; ++b) {
    if (run.start[b + 1] == run.start[b]) continue;
    RETURN_IF_ERROR(stream->writer()->Write(spilled, run.start[b], run.start[b + 1] - run.start[b]));
    RETURN_IF_ERROR(stream->writer()->FlushRowGroup());
    run.group_of_bucket[b] = group++;
  }
  RETURN_IF_ERROR(stream->Finish().status());
  run.start = {};
  ASSIGN_OR_RETURN(run.reader, parquet::ParquetReader::Open(store_, run.path));
  runs_.push_back(std::move(run));
  return Status::OK();
}

Result<std::pair<std::vector<Batch>, std::vector<uint32_t>>> BucketRuns::Read(size_t first, size_t end) const {
  uint64_t rows = 0;
  for (size_t b = first; b < end; ++b) rows += rows_of_bucket_[b];
  std::vector<int> spilled_columns(schema_.num_fields() + (tagged_ ? 1 : 0));
  std::iota(spilled_columns.begin(), spilled_columns.end(), 0);
  std::vector<Batch> pieces;
  std::vector<uint32_t> tags;
  if (tagged_) tags.reserve(rows);
  uint64_t read_rows = 0;
  for (const Run& run : runs_) {
    for (size_t b = first; b < end; ++b) {
      if (!run.reader) {
        const size_t from = run.start[b], count = run.start[b + 1] - from;
        if (count == 0) continue;
        pieces.push_back(run.rows.Slice(from, count));
        if (tagged_) tags.insert(tags.end(), run.tags.begin() + std::ptrdiff_t(from), run.tags.begin() + std::ptrdiff_t(from + count));
        read_rows += count;
        continue;
      }
      if (run.group_of_bucket[b] < 0) continue;
      ASSIGN_OR_RETURN(Batch read, run.reader->ReadRowGroup(run.group_of_bucket[b], spilled_columns));
      const size_t n = read.num_rows();
      std::vector<Column> row_columns = std::move(read.columns());
      if (tagged_) {
        const Column& t = row_columns.back();
        tags.insert(tags.end(), t.data<uint32_t>(), t.data<uint32_t>() + t.length());
        row_columns.pop_back();
      }
      pieces.emplace_back(schema_, std::move(row_columns), n);
      read_rows += n;
    }
  }
  if (read_rows != rows || (tagged_ && tags.size() != rows)) {
    return Status::Internal("layout: spilled rows lost or gained: " + std::to_string(read_rows) + " read for buckets " +
                            std::to_string(first) + ".." + std::to_string(end) + " of " + std::to_string(rows));
  }
  return std::make_pair(std::move(pieces), std::move(tags));
}

FileRuns::FileRuns(ObjectStore* store, Temporaries* temporaries, Schema schema, const otree::Tree& tree,
                   std::vector<std::vector<int>> files)
    : store_(store),
      schema_(schema),
      tree_(tree),
      files_(std::move(files)),
      file_of_cube_(tree.cubes().size(), std::numeric_limits<uint32_t>::max()),
      runs_(store, temporaries, std::move(schema), files_.size(), /*tagged=*/true) {
  for (size_t f = 0; f < files_.size(); ++f) {
    for (int c : files_[f]) file_of_cube_[size_t(c)] = uint32_t(f);
  }
}

Status FileRuns::Add(Batch rows, const std::vector<uint32_t>& cube_of_row) {
  Placed placed;
  placed.rows = std::move(rows);
  placed.weight_column = schema_.FindField(kWeightColumn);
  return Add(std::move(placed), cube_of_row);
}

Status FileRuns::Add(Placed rows, const std::vector<uint32_t>& cube_of_row) {
  std::vector<uint32_t> file_of_row(cube_of_row.size());
  for (size_t i = 0; i < cube_of_row.size(); ++i) {
    const uint32_t c = cube_of_row[i];
    if (c >= file_of_cube_.size() || file_of_cube_[c] == std::numeric_limits<uint32_t>::max()) {
      return Status::Internal("layout: a row's cube is in none of the files");
    }
    file_of_row[i] = file_of_cube_[c];
  }
  return runs_.Add(std::move(rows), file_of_row, cube_of_row);
}

Result<std::vector<WrittenFile>> FileRuns::Write(const std::vector<int>& columns,
                                                 const std::vector<otree::Transform>& transforms, int revision,
                                                 const LayoutMeta& meta, const table::WriteConfig& config,
                                                 uint64_t batch_rows, const std::function<void(uint64_t)>& progress) {
  // Batches of consecutive files; the next batch's rows are read while one is written.
  std::vector<std::pair<size_t, size_t>> batches;
  for (size_t first = 0, end = 0; first < files_.size(); first = end) {
    uint64_t rows = runs_.rows_of(first);
    for (end = first + 1; end < files_.size() && rows + runs_.rows_of(end) <= batch_rows;) rows += runs_.rows_of(end++);
    batches.emplace_back(first, end);
  }
  using BatchRows = std::pair<Placed, std::vector<uint32_t>>;  // the rows and their cubes
  auto read_batch = [&](size_t b) -> Result<BatchRows> {
    ASSIGN_OR_RETURN(auto read, runs_.Read(batches[b].first, batches[b].second));
    Placed placed = PlacedFromPieces(std::move(read.first), schema_, {}, /*weights=*/false, 0);
    RETURN_IF_ERROR(ExtendCoords(&placed, columns, transforms));
    return BatchRows(std::move(placed), std::move(read.second));
  };
  std::vector<WrittenFile> written;
  uint64_t rows_written = 0;
  RETURN_IF_ERROR(Pipelined<BatchRows>(batches.size(), read_batch, [&](size_t b, BatchRows read) -> Status {
    const auto [first, end] = batches[b];
    if (progress) progress(rows_written);
    rows_written += read.second.size();
    const std::vector<std::vector<int>> batch(files_.begin() + std::ptrdiff_t(first), files_.begin() + std::ptrdiff_t(end));
    ASSIGN_OR_RETURN(std::vector<WrittenFile> out,
                     WriteCubes(store_, std::move(read.first), tree_, read.second, revision, meta, config, &batch));
    for (WrittenFile& file : out) written.push_back(std::move(file));
    return Status::OK();
  }));
  if (rows_written != runs_.rows()) {
    return Status::Internal("layout: wrote " + std::to_string(rows_written) + " rows of " + std::to_string(runs_.rows()));
  }
  return written;
}

}  // namespace lakeindex::layout::parts
