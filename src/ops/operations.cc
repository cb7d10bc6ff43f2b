#include "ops/operations.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <thread>

#include "format/parquet/reader.h"
#include "layout/otree/layout_meta.h"
#include "layout/otree/layout_parts.h"
#include "ops/read.h"
#include "query/index_manager.h"
#include "query/scanner.h"

namespace lakeindex::ops {
namespace {

// `config` for a write into `table`: its encodings (table::ChooseEncodings), and the index
// maintenance of `table`'s store chained after its own hook.
table::WriteConfig WithIndexMaintenance(const table::Table& table, table::WriteConfig config,
                                        const query::UpdateOptions& options, size_t* written) {
  table::ChooseEncodings(table.manifest(), &config);
  table::CommitHook own = std::move(config.before_commit);
  table::CommitHook indexes = query::MaintainIndexes(table.shared_store(), options, written);
  config.before_commit = [own = std::move(own), indexes = std::move(indexes)](table::Manifest* next) -> Status {
    if (own) RETURN_IF_ERROR(own(next));
    return indexes(next);
  };
  return config;
}

// Runs `attempt` (an operation ending in one commit) until it succeeds or fails otherwise than
// with Conflict — which means it committed nothing — starting each retry from the newest version
// after a growing pause; Conflict after kStartOverAttempts.
template <typename T>
Result<T> StartingOver(table::Table* table, const std::string& what, const std::function<Result<T>()>& attempt) {
  Status last;
  for (int i = 0; i < kStartOverAttempts; ++i) {
    if (i > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1 << std::min(i, 6)));
      RETURN_IF_ERROR(table->Reload());
    }
    Result<T> result = attempt();
    if (result.ok() || !result.status().IsConflict()) return result;
    last = result.status();
  }
  return Status::Conflict(what + ": gave up after " + std::to_string(kStartOverAttempts) +
                          " attempts, each overtaken by another writer's commit (nothing was committed): " +
                          last.message());
}

// The same for an attempt that returns only a Status.
Status StartingOver(table::Table* table, const std::string& what, const std::function<Status()>& attempt) {
  return StartingOver<bool>(table, what, [&]() -> Result<bool> {
           RETURN_IF_ERROR(attempt());
           return true;
         })
      .status();
}

Result<bool> IsOTree(const table::Table& table) {
  ASSIGN_OR_RETURN(std::optional<layout::LayoutMeta> meta, layout::LoadLayout(table.manifest()));
  return meta && meta->is_otree();
}

// One append to a table known to be (or not to be) laid out as an OTree.
Result<AppendResult> AppendOnce(table::Table* table, table::BatchSource* source, table::WriteConfig config, bool otree) {
  AppendResult result;
  result.otree = otree;
  const uint64_t version = table->version();
  config = WithIndexMaintenance(*table, std::move(config), {}, &result.index_segments);
  if (otree) {
    ASSIGN_OR_RETURN(result.layout, layout::AppendToLayout(table, source, config));
    result.rows = result.layout.rows;
  } else {
    // The rows written, as the writer reports them (a rebase may bring other commits' rows
    // along, so the version's row count says nothing of ours).
    uint64_t written = 0;
    auto progress = std::move(config.progress);
    config.progress = [&written, progress](uint64_t rows) {
      written = rows;
      if (progress) progress(rows);
    };
    RETURN_IF_ERROR(table->Append(source, config));
    result.rows = written;
  }
  if (table->version() == version) {  // nothing to append: nothing committed
    result.rows = 0;
    result.index_segments = 0;
  }
  return result;
}

Result<OptimizeResult> OptimizeOnce(table::Table* table, table::WriteConfig config) {
  OptimizeResult result;
  query::UpdateOptions merge;
  merge.merge = true;  // as optimize does for the data, each index becomes one segment
  config = WithIndexMaintenance(*table, std::move(config), merge, &result.index_segments);
  ASSIGN_OR_RETURN(const bool otree, IsOTree(*table));
  if (otree) {
    ASSIGN_OR_RETURN(result.rewritten, layout::OptimizeLayout(table, config));
  } else {
    ASSIGN_OR_RETURN(result.rewritten, table->Optimize(config));
  }
  if (result.rewritten == 0) result.index_segments = 0;
  return result;
}

// The index maintenance of a layout's commit, reporting through the layout's progress.
query::UpdateOptions LayoutIndexUpdate(const layout::LayoutOptions& options) {
  query::UpdateOptions update;
  update.progress = options.progress;
  return update;
}

Result<LayoutResult> LayoutOnce(table::Table* table, layout::LayoutOptions options) {
  LayoutResult result;
  result.bytes_before = table->manifest().data_bytes();
  options.write = WithIndexMaintenance(*table, std::move(options.write), LayoutIndexUpdate(options), &result.index_segments);
  ASSIGN_OR_RETURN(result.report, layout::LayoutTable(table, options));
  result.bytes_after = table->manifest().data_bytes();
  return result;
}

// Whether engines would refuse `file` or read it wrong (parquet::WriteOptions::portable_encodings):
// an encoding their vectorized readers lack, or min/max of a uuid column in its statistics or
// page index.
bool NeedsPortableRewrite(const parquet::ParquetReader& file) {
  for (const parquet::RowGroup& rg : file.metadata().row_groups) {
    for (size_t c = 0; c < rg.columns.size() && c < file.schema().fields().size(); ++c) {
      const parquet::ColumnChunk& chunk = rg.columns[c];
      if (!chunk.meta_data) continue;
      for (parquet::Encoding e : chunk.meta_data->encodings) {
        if (e == parquet::Encoding::kByteStreamSplit || e == parquet::Encoding::kDeltaLengthByteArray) return true;
      }
      if (file.schema().fields()[c].type != TypeId::kUuid) continue;
      const std::optional<parquet::Statistics>& st = chunk.meta_data->statistics;
      if (chunk.column_index_offset || (st && (st->min_value || st->max_value || st->min || st->max))) return true;
    }
  }
  return false;
}

// `fragment`'s rows written anew with portable encodings: the same rows in the same row groups
// (OTree blocks are row groups), as the table's layout writes its files (an OTree's layout
// columns keep their pages, which end at curve cells).
Result<table::RewrittenFile> RewritePortable(const table::Table& table, const parquet::ParquetReader& file,
                                             const table::FragmentMeta& fragment,
                                             const std::optional<layout::LayoutMeta>& meta,
                                             const table::WriteConfig& config) {
  parquet::WriteOptions options = config.parquet;
  std::optional<int> paged;  // a layout column whose pages an OTree file keeps
  std::optional<int> runs;   // by region: the weights, whose pages are the slices' runs
  if (meta) {
    ASSIGN_OR_RETURN(std::vector<int> columns, meta->ColumnIndexes(file.schema()));
    uint64_t page_rows = meta->page_rows;
    if (page_rows == 0 && file.num_row_groups() > 0) {  // comparison layouts record none: the file's own
      ASSIGN_OR_RETURN(auto index, file.SharedPageIndex(0, columns[0], /*statistics=*/false));
      page_rows = index->pages.empty() ? parquet::WriteOptions{}.page_rows : uint64_t(index->pages[0].num_rows);
    }
    options = layout::parts::BlockWriteOptions(config, meta->columns, std::max<uint64_t>(page_rows, 1), meta->is_otree(),
                                               meta->row_groups == layout::kRowGroupsByRegion);
    if (meta->is_otree()) paged = columns[0];
    if (meta->is_otree() && meta->row_groups == layout::kRowGroupsByRegion) {
      const int weight = file.schema().FindField(layout::kWeightColumn);
      if (weight >= 0) runs = weight;
    }
  }
  options.portable_encodings = true;
  options.row_group_rows = std::numeric_limits<size_t>::max();  // cut where the file was
  std::vector<int> all(file.schema().fields().size());
  for (size_t c = 0; c < all.size(); ++c) all[c] = int(c);
  // The rows of each page of `column` in row group `rg` (none without a column).
  auto page_rows_of = [&](int rg, std::optional<int> column) -> Result<std::vector<uint32_t>> {
    std::vector<uint32_t> sizes;
    if (!column) return sizes;
    ASSIGN_OR_RETURN(auto index, file.SharedPageIndex(rg, *column, /*statistics=*/false));  // locations only
    for (const parquet::PageIndexEntry& p : index->pages) sizes.push_back(uint32_t(p.num_rows));
    return sizes;
  };
  ASSIGN_OR_RETURN(table::FragmentMeta written,
                   table::StreamDataFile(table.store(), file.schema(), options, [&](parquet::ParquetWriter* w) -> Status {
                     for (int rg = 0; rg < file.num_row_groups(); ++rg) {
                       ASSIGN_OR_RETURN(Batch rows, file.ReadRowGroup(rg, all));
                       ASSIGN_OR_RETURN(const std::vector<uint32_t> pages, page_rows_of(rg, paged));
                       ASSIGN_OR_RETURN(const std::vector<uint32_t> weight_runs, page_rows_of(rg, runs));
                       RETURN_IF_ERROR(w->Write(rows, 0, rows.num_rows(), pages, weight_runs));
                       RETURN_IF_ERROR(w->FlushRowGroup());
                     }
                     return Status::OK();
                   }));
  if (written.rows != fragment.rows) {
    return Status::Corruption(fragment.file + ": read " + std::to_string(written.rows) + " rows, the manifest says " +
                              std::to_string(fragment.rows));
  }
  written.id = fragment.id;
  return table::RewrittenFile{fragment.file, std::move(written)};
}

}  // namespace

Result<std::unique_ptr<table::Table>> Create(std::shared_ptr<ObjectStore> store, table::BatchSource* source,
                                             table::WriteConfig config) {
  return table::Table::Create(std::move(store), source, std::move(config));
}

Result<std::unique_ptr<table::Table>> CreateAt(const std::string& path, table::BatchSource* source,
                                               table::WriteConfig config, std::shared_ptr<InstrumentedStore>* store) {
  std::string local;
  std::optional<std::filesystem::path> made;  // the directory this create makes
  if (IsLocalUri(path, &local)) {
    std::filesystem::path dir = std::filesystem::absolute(local).lexically_normal();
    if (!dir.has_filename()) dir = dir.parent_path();  // "t/"
    const std::filesystem::path parent = dir.parent_path();
    std::error_code ec;
    if (!std::filesystem::is_directory(parent, ec)) {
      return Status::NotFound("cannot create a table at '" + path + "': its parent directory '" + parent.string() +
                              (std::filesystem::exists(parent, ec) ? "' is not a directory" : "' does not exist (create it first)"));
    }
    if (!std::filesystem::exists(dir, ec) && !ec) made = dir;
  }
  ASSIGN_OR_RETURN(std::shared_ptr<InstrumentedStore> opened, table::OpenTableStore(path, true));
  Result<std::unique_ptr<table::Table>> created = Create(opened, source, std::move(config));
  if (!created.ok() && made && table::Table::LatestVersion(opened.get()).status().IsNotFound()) {
    std::error_code ec;
    std::filesystem::remove_all(*made, ec);  // best effort: the create's error is what is reported
  }
  if (created.ok() && store != nullptr) *store = std::move(opened);
  return created;
}

Result<AppendResult> Append(table::Table* table, table::BatchSource* source, table::WriteConfig config) {
  ASSIGN_OR_RETURN(const bool otree, IsOTree(*table));
  return AppendOnce(table, source, std::move(config), otree);
}

Result<AppendResult> Append(table::Table* table, const SourceOpener& open, table::WriteConfig config) {
  return StartingOver<AppendResult>(table, "append", [&]() -> Result<AppendResult> {
    ASSIGN_OR_RETURN(const bool otree, IsOTree(*table));
    ASSIGN_OR_RETURN(std::unique_ptr<table::BatchSource> source,
                     open(otree ? layout::VisibleSchema(table->schema()) : table->schema()));
    return AppendOnce(table, source.get(), config, otree);
  });
}

Result<OptimizeResult> Optimize(table::Table* table, table::WriteConfig config) {
  return StartingOver<OptimizeResult>(table, "optimize", [&] { return OptimizeOnce(table, config); });
}

Result<LayoutResult> Layout(table::Table* table, layout::LayoutOptions options) {
  if (options.row_groups.empty()) options.row_groups = layout::DefaultRowGroups(options.kind, table->manifest());
  return StartingOver<LayoutResult>(table, "layout", [&] { return LayoutOnce(table, options); });
}

Result<LayoutResult> CommitPartitionedLayout(table::Table* table, layout::LayoutOptions options,
                                             layout::Revision revision, const std::vector<std::string>& written) {
  LayoutResult result;
  options.write = WithIndexMaintenance(*table, std::move(options.write), LayoutIndexUpdate(options), &result.index_segments);
  ASSIGN_OR_RETURN(result.report, layout::CommitPartitionedLayout(table, options, std::move(revision), written));
  return result;
}

Result<uint64_t> Delete(table::Table* table, const std::string& where) {
  return StartingOver<uint64_t>(table, "delete", [&]() -> Result<uint64_t> {
    ASSIGN_OR_RETURN(PlannedFilter planned, PlanFilter(*table, where));  // as a read of those rows
    return query::DeleteWhere(table, where, std::move(planned.indexes));
  });
}

Status CreateIndex(table::Table* table, const query::IndexOptions& options) {
  return StartingOver(table, "index create", [&] { return query::CreateIndex(table, options); });
}

Result<size_t> UpdateIndexes(table::Table* table, const std::string& name, const query::UpdateOptions& options) {
  return StartingOver<size_t>(table, "index update", [&] { return query::UpdateIndexes(table, name, options); });
}

Status DropIndex(table::Table* table, const std::string& name) {
  return StartingOver(table, "index drop", [&] { return query::DropIndex(table, name); });
}

Result<table::IcebergEnabled> EnableIceberg(table::Table* table, const std::string& location, bool move,
                                            table::WriteConfig config, std::optional<int> format) {
  return StartingOver<table::IcebergEnabled>(table, "iceberg enable", [&]() -> Result<table::IcebergEnabled> {
    ASSIGN_OR_RETURN(std::optional<layout::LayoutMeta> meta, layout::LoadLayout(table->manifest()));
    table::WriteConfig portable = config;
    portable.parquet.portable_encodings = true;
    std::vector<table::RewrittenFile> rewritten;
    uint64_t rows = 0;
    for (const table::FragmentMeta& fragment : table->manifest().fragments) {
      ASSIGN_OR_RETURN(std::shared_ptr<const parquet::ParquetReader> file, table->OpenDataFile(fragment));
      if (!NeedsPortableRewrite(*file)) continue;
      ASSIGN_OR_RETURN(table::RewrittenFile r, RewritePortable(*table, *file, fragment, meta, portable));
      rewritten.push_back(std::move(r));
      rows += fragment.rows;
      if (config.progress) config.progress(rows);
    }
    return table->EnableIceberg(location, move, std::move(rewritten), format);
  });
}

Result<VacuumResult> Vacuum(table::Table* table, const VacuumOptions& options) {
  if (!(options.older_than_hours >= 0)) return Status::InvalidArgument("vacuum: the grace period must be >= 0 hours");
  if (options.older_than_hours < kMinVacuumGraceHours && !options.force) {
    return Status::InvalidArgument("vacuum: a grace period below 1 hour may delete the files of a write still in progress "
                                   "(they become part of the table when it commits); force it only if no other process "
                                   "writes to the table");
  }
  if (options.keep_versions && *options.keep_versions == 0) {
    return Status::InvalidArgument("vacuum: keep at least 1 version (the newest)");
  }
  const int64_t older_than_ms = int64_t(options.older_than_hours * 3600 * 1000);
  VacuumResult result;
  if (options.keep_versions) {
    ASSIGN_OR_RETURN(table::Table::Expiry expiry, table->ExpireVersions(*options.keep_versions, older_than_ms));
    result.expired = std::move(expiry.expired);
    result.warnings = std::move(expiry.warnings);
  }
  Result<std::vector<std::string>> removed = table->Vacuum(older_than_ms);
  if (!removed.ok() && !result.expired.empty()) {
    result.warnings.push_back("removing unreferenced files failed (" + removed.status().ToString() +
                              "); run vacuum again");
    return result;
  }
  ASSIGN_OR_RETURN(result.removed, std::move(removed));
  return result;
}

Result<std::vector<std::string>> Verify(const table::Table& table) {
  // Besides the files: what every query checks when it opens the version (the layout section
  // agrees with the fragments: layout::LoadLayout, the scanner's own check), then each index
  // segment; damage of either joins the files' damage list.
  std::vector<table::Table::VersionCheck> checks = {[&table]() -> Result<std::string> {
    ASSIGN_OR_RETURN(std::optional<layout::LayoutMeta> meta, layout::LoadLayout(table.manifest()));
    if (!meta) return std::string();
    return table::ManifestPath(table.version()) + ": layout ok (" + meta->kind + ", " +
           std::to_string(meta->is_otree() ? meta->blocks.size() : table.manifest().fragments.size()) +
           (meta->is_otree() ? " blocks" : " fragments") + ")";
  }};
  ASSIGN_OR_RETURN(std::vector<table::Table::VersionCheck> indexes, query::IndexChecks(table));
  checks.insert(checks.end(), indexes.begin(), indexes.end());
  return table.Verify(checks);
}

Result<table::iceberg::Rewritten> RepairIceberg(const table::Table& table) {
  return table::iceberg::RewriteMissingFiles(table.store(), table.manifest());
}

}  // namespace lakeindex::ops
