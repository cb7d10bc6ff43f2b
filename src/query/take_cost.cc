#include "query/take_cost.h"

#include <algorithm>

namespace lakeindex::query {
namespace {

std::string ChunkWhere(const parquet::ParquetReader& reader, int rg, int column) {
  return reader.path() + " row group " + std::to_string(rg) + " column " + std::to_string(column);
}

}  // namespace

Result<TakeChoice> ChooseTake(const parquet::ParquetReader& reader, int rg, const TakeColumns& columns,
                              const Ranges& candidates) {
  TakeChoice c;
  c.candidates = RangeRows(candidates);
  c.hint = reader.read_hint();
  const std::vector<int>& fcs = columns.file_columns;
  if (fcs.empty()) {
    c.take = true;
    return c;
  }
  // What the take reads of each column: the candidates' pages, in the hint's runs.
  std::vector<parquet::ParquetReader::ReadCost> pages_cost(fcs.size());
  const size_t nf = columns.num_filter_columns;
  for (size_t i = 0; i < fcs.size(); ++i) {
    auto chunk = reader.SharedChunk(rg, fcs[i]);
    if (!chunk.ok()) return chunk.status().WithContext(ChunkWhere(reader, rg, fcs[i]));
    const parquet::PageIndex& locations = *(*chunk)->locations;
    ASSIGN_OR_RETURN(std::vector<int> pages, PagesOf(locations, candidates, reader.path()));
    if (i == 0) {
      c.pages = pages.size();
      c.pages_total = locations.pages.size();
    }
    auto cost = reader.PagesReadCost(**chunk, rg, fcs[i], pages, c.hint);
    if (!cost.ok()) return cost.status().WithContext(ChunkWhere(reader, rg, fcs[i]));
    pages_cost[i] = *cost;
    const bool take_reads = i >= nf || columns.residual || (i < columns.filter_output.size() && columns.filter_output[i]);
    if (take_reads) {
      c.take_bytes += cost->bytes;
      c.take_requests += cost->requests;
    }
  }
  // The scan: the filter's columns whole, then the rest for the passing rows (the candidates, at
  // most): whole chunks when their pages hold over 3/4 of the first one's bytes.
  for (size_t i = 0; i < nf && i < fcs.size(); ++i) {
    c.scan_bytes += reader.ChunkBytes(rg, fcs[i]);
    ++c.scan_requests;
  }
  if (nf < fcs.size()) {
    ASSIGN_OR_RETURN(std::shared_ptr<const parquet::PageIndex> first,
                     reader.SharedPageIndex(rg, fcs[nf], /*statistics=*/false));
    ASSIGN_OR_RETURN(std::vector<int> pages, PagesOf(*first, candidates, reader.path()));
    const bool whole = PageBytes(*first, pages) * 4 > ChunkBytes(*first) * 3;
    for (size_t i = nf; i < fcs.size(); ++i) {
      c.scan_bytes += whole ? reader.ChunkBytes(rg, fcs[i]) : pages_cost[i].bytes;
      c.scan_requests += whole ? 1 : pages_cost[i].requests;
    }
  }
  c.take = columns.given_rows || c.take_bytes < c.scan_bytes;
  return c;
}

void DescribeChoice(const TakeChoice& choice, PlanStep* step) {
  step->candidates = choice.candidates;
  step->pages = choice.pages;
  step->pages_total = choice.pages_total;
  step->bytes = choice.take_bytes;
  step->bytes_total = choice.scan_bytes;
  step->requests = choice.take_requests;
  step->hole = choice.hint.max_hole;
}

Ranges RowGroupRows(const std::vector<uint32_t>& offsets, uint64_t rg_first_row, uint64_t rg_rows) {
  auto lo = std::lower_bound(offsets.begin(), offsets.end(), rg_first_row);
  auto hi = std::lower_bound(lo, offsets.end(), rg_first_row + rg_rows);
  std::vector<uint32_t> local(lo, hi);
  for (uint32_t& r : local) r -= uint32_t(rg_first_row);
  return RangesOf(local.data(), local.size());
}

Result<std::vector<int>> FileColumnsOf(const parquet::ParquetReader& reader, const Schema& table_schema,
                                       const std::vector<int>& read_columns, const std::string& file) {
  std::vector<int> out;
  out.reserve(read_columns.size());
  for (int c : read_columns) {
    const std::string& name = table_schema.field(size_t(c)).name;
    const int fc = reader.schema().FindField(name);
    if (fc < 0) return Status::Corruption(file + ": column '" + name + "' is missing");
    out.push_back(fc);
  }
  return out;
}

Result<std::vector<PlanStep>> PlanTakeSteps(const parquet::ParquetReader& reader, uint32_t fragment,
                                            const TakeColumns& columns, const std::vector<uint32_t>& candidates) {
  std::vector<PlanStep> steps;
  uint64_t first = 0;
  for (int rg = 0; rg < reader.num_row_groups(); ++rg) {
    const uint64_t rows = uint64_t(reader.row_group_num_rows(rg));
    const Ranges in_rg = RowGroupRows(candidates, first, rows);
    first += rows;
    if (in_rg.empty()) continue;
    ASSIGN_OR_RETURN(TakeChoice choice, ChooseTake(reader, rg, columns, in_rg));
    PlanStep step;
    step.fragment = fragment;
    step.row_group = rg;
    step.kind = choice.take ? StepKind::kRowGroupTake : StepKind::kRowGroupScan;
    step.rows = choice.take ? choice.candidates : rows;
    DescribeChoice(choice, &step);
    steps.push_back(std::move(step));
  }
  return steps;
}

}  // namespace lakeindex::query
