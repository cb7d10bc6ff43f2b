#include "layout/otree/spill.h"

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
  o.codec = parquet::Codec::kLz4Raw;  // read back once: the fastest codec that still halves them
  o.dictionary = false;
  o.row_group_rows = std::numeric_limits<size_t>::max();  // a row group per file's run, cut by hand
  o.page_rows = size_t(1) << 16;
  o.statistics = false;
  o.page_index = false;
  o.page_crc = false;
  o.column_pool = ThreadPool::Default();
  return o;
}

namespace {

// The spilled runs' last column: each row's cube.
constexpr const char* kCubeColumn = "_lakeindex_cube";

}  // namespace

FileRuns::FileRuns(ObjectStore* store, Temporaries* temporaries, Schema schema, const otree::Tree& tree,
                   std::vector<std::vector<int>> files)
    : store_(store),
      temporaries_(temporaries),
      schema_(std::move(schema)),
      tree_(tree),
      files_(std::move(files)),
      file_of_cube_(tree.cubes().size(), std::numeric_limits<uint32_t>::max()),
      rows_of_file_(files_.size(), 0) {
  for (size_t f = 0; f < files_.size(); ++f) {
    for (int c : files_[f]) file_of_cube_[size_t(c)] = uint32_t(f);
  }
}

Status FileRuns::Add(Batch rows, const std::vector<uint32_t>& cube_of_row) {
  if (rows.num_rows() != cube_of_row.size() || !(rows.schema() == schema_)) {
    return Status::Internal("layout: a run's rows do not match their cubes or the table's columns");
  }
  std::vector<uint32_t> file_of_row(cube_of_row.size());
  for (size_t i = 0; i < cube_of_row.size(); ++i) {
    const uint32_t c = cube_of_row[i];
    if (c >= file_of_cube_.size() || file_of_cube_[c] == std::numeric_limits<uint32_t>::max()) {
      return Status::Internal("layout: a row's cube is in none of the files");
    }
    file_of_row[i] = file_of_cube_[c];
  }
  Placed placed;
  placed.rows = std::move(rows);
  placed.weight_column = schema_.FindField(kWeightColumn);
  Run run;
  const std::vector<uint32_t> position = GroupRows(&placed, file_of_row, files_.size(), &run.start);
  file_of_row = {};
  run.cubes.resize(cube_of_row.size());
  for (size_t i = 0; i < cube_of_row.size(); ++i) run.cubes[position[i]] = cube_of_row[i];
  for (size_t f = 0; f < files_.size(); ++f) rows_of_file_[f] += run.start[f + 1] - run.start[f];
  rows_ += cube_of_row.size();
  if (temporaries_ == nullptr) {
    run.rows = std::move(placed.rows);
    runs_.push_back(std::move(run));
    return Status::OK();
  }
  // Spilled: the rows with their cubes, a row group per file.
  Schema with_cubes = schema_;
  with_cubes.AddField(Field{kCubeColumn, TypeId::kInt32, false});
  std::vector<Column> columns = std::move(placed.rows.columns());
  Column cubes(TypeId::kInt32);
  std::copy(run.cubes.begin(), run.cubes.end(), cubes.AppendValues<int32_t>(run.cubes.size()));
  columns.push_back(std::move(cubes));
  const Batch spilled(with_cubes, std::move(columns), run.cubes.size());
  run.cubes = {};
  run.path = temporaries_->Name("rows-" + std::to_string(runs_.size()) + ".parquet");
  ASSIGN_OR_RETURN(auto stream, table::DataFileStream::Open(store_, with_cubes, SpillWriteOptions(), run.path));
  run.group_of_file.assign(files_.size(), -1);
  int group = 0;
  for (size_t f = 0; f < files_.size(); ++f) {
    if (run.start[f + 1] == run.start[f]) continue;
    RETURN_IF_ERROR(stream->writer()->Write(spilled, run.start[f], run.start[f + 1] - run.start[f]));
    RETURN_IF_ERROR(stream->writer()->FlushRowGroup());
    run.group_of_file[f] = group++;
  }
  RETURN_IF_ERROR(stream->Finish().status());
  run.start = {};
  runs_.push_back(std::move(run));
  return Status::OK();
}

Result<std::vector<WrittenFile>> FileRuns::Write(const std::vector<int>& columns,
                                                 const std::vector<otree::Transform>& transforms, int revision,
                                                 const LayoutMeta& meta, const table::WriteConfig& config,
                                                 uint64_t batch_rows, const std::function<void(uint64_t)>& progress) {
  std::vector<std::unique_ptr<parquet::ParquetReader>> readers(runs_.size());
  for (size_t r = 0; r < runs_.size(); ++r) {
    if (runs_[r].path.empty()) continue;
    ASSIGN_OR_RETURN(readers[r], parquet::ParquetReader::Open(store_, runs_[r].path));
  }
  std::vector<int> spilled_columns(schema_.num_fields() + 1);
  std::iota(spilled_columns.begin(), spilled_columns.end(), 0);
  // Batches of consecutive files; the next batch's rows are read while one is written.
  std::vector<std::pair<size_t, size_t>> batches;
  for (size_t first = 0, end = 0; first < files_.size(); first = end) {
    uint64_t rows = rows_of_file_[first];
    for (end = first + 1; end < files_.size() && rows + rows_of_file_[end] <= batch_rows;) rows += rows_of_file_[end++];
    batches.emplace_back(first, end);
  }
  using BatchRows = std::pair<Placed, std::vector<uint32_t>>;  // the rows and their cubes
  auto read_batch = [&](size_t b) -> Result<BatchRows> {
    const auto [first, end] = batches[b];
    uint64_t rows = 0;
    for (size_t f = first; f < end; ++f) rows += rows_of_file_[f];
    // The batch's rows from every run in run order, each run's in file order.
    std::vector<Batch> pieces;
    std::vector<uint32_t> cube_of_row;
    cube_of_row.reserve(rows);
    for (size_t r = 0; r < runs_.size(); ++r) {
      const Run& run = runs_[r];
      for (size_t f = first; f < end; ++f) {
        if (!readers[r]) {
          const size_t from = run.start[f], count = run.start[f + 1] - from;
          if (count == 0) continue;
          pieces.push_back(run.rows.Slice(from, count));
          cube_of_row.insert(cube_of_row.end(), run.cubes.begin() + std::ptrdiff_t(from),
                             run.cubes.begin() + std::ptrdiff_t(from + count));
          continue;
        }
        if (run.group_of_file[f] < 0) continue;
        ASSIGN_OR_RETURN(Batch read, readers[r]->ReadRowGroup(run.group_of_file[f], spilled_columns));
        const Column& cubes = read.column(schema_.num_fields());
        cube_of_row.insert(cube_of_row.end(), cubes.data<uint32_t>(), cubes.data<uint32_t>() + cubes.length());
        std::vector<Column> row_columns = std::move(read.columns());
        row_columns.pop_back();
        const size_t n = cubes.length();
        pieces.emplace_back(schema_, std::move(row_columns), n);
      }
    }
    if (cube_of_row.size() != rows) {
      return Status::Internal("layout: spilled rows lost or gained: " + std::to_string(cube_of_row.size()) +
                              " read for files " + std::to_string(first) + ".." + std::to_string(end) + " of " +
                              std::to_string(rows));
    }
    Placed placed = PlacedFromPieces(std::move(pieces), schema_, {}, /*weights=*/false, 0);
    RETURN_IF_ERROR(ExtendCoords(&placed, columns, transforms));
    return BatchRows(std::move(placed), std::move(cube_of_row));
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
  runs_.clear();
  if (rows_written != rows_) {
    return Status::Internal("layout: wrote " + std::to_string(rows_written) + " rows of " + std::to_string(rows_));
  }
  return written;
}

}  // namespace lakeindex::layout::parts
