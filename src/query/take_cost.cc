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
  const size_t nf = columns.num_filter_columns;
  // Whether the take reads read column i (the scan reads them all).
  auto take_reads = [&](size_t i) {
    return i >= nf || columns.residual || (i < columns.filter_output.size() && columns.filter_output[i]);
  };
  // The chunks and the candidates' pages in each (rows only: no page located yet).
  std::vector<std::shared_ptr<const parquet::ParquetReader::ChunkPages>> chunks(fcs.size());
  std::vector<std::vector<int>> chunk_pages(fcs.size());
  bool unlocated = false;
  for (size_t i = 0; i < fcs.size(); ++i) {
    auto chunk = reader.SharedChunk(rg, fcs[i]);
    if (!chunk.ok()) return chunk.status().WithContext(ChunkWhere(reader, rg, fcs[i]));
    chunks[i] = std::move(*chunk);
    ASSIGN_OR_RETURN(chunk_pages[i], PagesOf(*chunks[i]->locations, candidates, reader.path()));
    unlocated = unlocated || chunks[i]->unlocated != nullptr;
  }
  c.pages = chunk_pages[0].size();
  c.pages_total = chunks[0]->locations->pages.size();
  if (unlocated && !columns.given_rows) {
    // A page map locates pages only once its blocks are read. Priced first with every page at its
    // chunk's mean size: a take that comes out no cheaper than the scan so (2% spared) is not
    // priced exactly,
    // so that a row group the scan reads anyway costs no block of the map either.
    auto share = [&](size_t i) -> uint64_t {  // the candidates' pages, and the holes the hint reads with them
      const parquet::PageIndex& index = *chunks[i]->locations;
      const std::vector<int>& pages = chunk_pages[i];
      if (index.pages.empty() || pages.empty()) return 0;
      const double mean = double(ChunkBytes(index)) / double(index.pages.size());
      double bytes = mean;
      for (size_t k = 1; k < pages.size(); ++k) {
        const double hole = mean * double(pages[k] - pages[k - 1] - 1);
        bytes += mean + (hole <= double(c.hint.max_hole) ? hole : 0);
      }
      return uint64_t(bytes);
    };
    uint64_t take = 0, scan = 0;
    for (size_t i = 0; i < fcs.size(); ++i) {
      const uint64_t dictionary = reader.ChunkBytes(rg, fcs[i]) - ChunkBytes(*chunks[i]->locations);
      if (take_reads(i)) take += share(i) + dictionary;
      scan += i < nf ? reader.ChunkBytes(rg, fcs[i]) : 0;
    }
    if (nf < fcs.size()) {
      const bool whole = share(nf) * 4 > ChunkBytes(*chunks[nf]->locations) * 3;
      for (size_t i = nf; i < fcs.size(); ++i) scan += whole ? reader.ChunkBytes(rg, fcs[i]) : share(i);
    }
    if (take * 50 >= scan * 49) {  // within 2% is no saving worth a block's read (and means are rounded)
      c.take_bytes = take;
      c.scan_bytes = scan;
      c.scan_requests = fcs.size();
      return c;
    }
  }
  // What the take reads of each column: the candidates' pages, in the hint's runs.
  std::vector<parquet::ParquetReader::ReadCost> pages_cost(fcs.size());
  for (size_t i = 0; i < fcs.size(); ++i) {
    auto cost = reader.PagesReadCost(*chunks[i], rg, fcs[i], chunk_pages[i], c.hint);
    if (!cost.ok()) return cost.status().WithContext(ChunkWhere(reader, rg, fcs[i]));
    pages_cost[i] = *cost;
    if (take_reads(i)) {
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
    const parquet::PageIndex& first = *chunks[nf]->locations;  // its pages located by PagesReadCost above
    const bool whole = PageBytes(first, chunk_pages[nf]) * 4 > ChunkBytes(first) * 3;
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
