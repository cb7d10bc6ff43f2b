#include "query/index_manager.h"

#include <algorithm>

#include "common/uuid.h"
#include "format/parquet/reader.h"
#include "index/btree/btree_builder.h"
#include "index/btree/btree_reader.h"
#include "index/zonemap/zonemap_reader.h"
#include "index/zonemap/zonemap_table.h"

namespace lakeindex::query {

namespace {

using index::IndexMeta;
using index::SegmentMeta;

// Feeds one column of every row of `fragments` (deleted rows included) to a BTree builder.
Status AddFragmentsToBTree(const table::Table& table, const std::string& column,
                           const std::vector<table::FragmentMeta>& fragments, index::btree::BTreeBuilder* builder) {
  for (const table::FragmentMeta& f : fragments) {
    ASSIGN_OR_RETURN(auto reader, parquet::ParquetReader::Open(table.store(), f.file));
    int c = reader->schema().FindField(column);
    if (c < 0) return Status::Corruption(f.file + ": column '" + column + "' is missing");
    uint64_t offset = 0;
    std::vector<uint64_t> addresses;
    for (int rg = 0; rg < reader->num_row_groups(); ++rg) {
      ASSIGN_OR_RETURN(Batch batch, reader->ReadRowGroup(rg, {c}));
      addresses.resize(batch.num_rows());
      for (size_t r = 0; r < batch.num_rows(); ++r) addresses[r] = MakeRowAddress(f.id, uint32_t(offset + r));
      RETURN_IF_ERROR(builder->Add(batch.column(0), addresses));
      offset += batch.num_rows();
    }
    if (offset != f.rows) return Status::Corruption(f.file + ": row count differs from the manifest");
  }
  return Status::OK();
}

// Builds one segment of `meta` over `fragments` (not committed).
Result<SegmentMeta> BuildSegment(const table::Table& table, const IndexMeta& meta,
                                 const std::vector<table::FragmentMeta>& fragments) {
  SegmentMeta seg;
  seg.built_at_version = table.version();
  for (const auto& f : fragments) {
    seg.fragments.insert(f.id);
    seg.rows += f.rows;
  }
  if (meta.type == "btree") {
    index::btree::BTreeBuildOptions options;
    options.page_rows = meta.params.value("page_rows", 4096u);
    int c = table.schema().FindField(meta.column);
    ASSIGN_OR_RETURN(auto builder,
                     index::btree::BTreeBuilder::Make(table.store(), table.schema().field(size_t(c)).type, options));
    RETURN_IF_ERROR(AddFragmentsToBTree(table, meta.column, fragments, builder.get()));
    ASSIGN_OR_RETURN(auto info, builder->Finish());
    seg.uuid = info.uuid;
  } else {
    ASSIGN_OR_RETURN(auto info, index::zonemap::BuildTableZoneMap(table, meta.column, fragments,
                                                                  meta.params.value("zone_rows", 8192u)));
    seg.uuid = info.uuid;
  }
  return seg;
}

// Commits `indexes` as the next version's index list. `check` runs against the newest manifest
// on every attempt (e.g. the name must still be free).
Status CommitIndexes(table::Table* table, const std::string& operation,
                     std::function<Status(std::vector<IndexMeta>*)> change) {
  table::Transaction txn;
  txn.operation = operation;
  txn.apply_extra = [change](table::Manifest* m) -> Status {
    ASSIGN_OR_RETURN(std::vector<IndexMeta> indexes, index::ReadIndexes(*m));
    RETURN_IF_ERROR(change(&indexes));
    m->indexes = index::IndexesToJson(indexes);
    return Status::OK();
  };
  return table->Commit(std::move(txn));
}

}  // namespace

Status CreateIndex(table::Table* table, const IndexOptions& options) {
  int c = table->schema().FindField(options.column);
  if (c < 0) return Status::InvalidArgument("index create: unknown column '" + options.column + "'");
  if (options.type != "btree" && options.type != "zonemap") {
    return Status::InvalidArgument("index create: --type must be btree or zonemap, not '" + options.type + "'");
  }
  if (options.type == "btree" && (options.page_rows == 0 || options.page_rows > (1u << 24))) {
    return Status::InvalidArgument("index create: --page-rows must be between 1 and 16777216");
  }
  if (options.type == "zonemap" && (options.zone_rows == 0 || options.zone_rows > (1u << 30))) {
    return Status::InvalidArgument("index create: --zone-rows must be between 1 and 1073741824");
  }
  IndexMeta meta;
  meta.name = options.name.empty() ? options.column + "_" + options.type : options.name;
  meta.column = options.column;
  meta.type = options.type;
  if (options.type == "btree") {
    meta.params["page_rows"] = options.page_rows;
  } else {
    meta.params["zone_rows"] = options.zone_rows;
  }
  ASSIGN_OR_RETURN(auto existing, index::ReadIndexes(table->manifest()));
  for (const auto& e : existing) {
    if (e.name == meta.name) return Status::InvalidArgument("index create: an index named '" + meta.name + "' exists");
  }
  ASSIGN_OR_RETURN(SegmentMeta seg, BuildSegment(*table, meta, table->manifest().fragments));
  meta.segments.push_back(std::move(seg));
  return CommitIndexes(table, "create_index", [meta](std::vector<IndexMeta>* indexes) -> Status {
    for (const auto& e : *indexes) {
      if (e.name == meta.name) return Status::Conflict("index '" + meta.name + "' was created concurrently");
    }
    indexes->push_back(meta);
    return Status::OK();
  });
}

Result<size_t> UpdateIndexes(table::Table* table, const std::string& name) {
  ASSIGN_OR_RETURN(auto indexes, index::ReadIndexes(table->manifest()));
  std::vector<std::pair<std::string, SegmentMeta>> built;
  bool found = name.empty();
  for (const IndexMeta& meta : indexes) {
    if (!name.empty() && meta.name != name) continue;
    found = true;
    std::set<uint32_t> covered = meta.CoveredFragments(table->manifest());
    std::vector<table::FragmentMeta> missing;
    for (const auto& f : table->manifest().fragments) {
      if (!covered.count(f.id)) missing.push_back(f);
    }
    if (missing.empty()) continue;
    ASSIGN_OR_RETURN(SegmentMeta seg, BuildSegment(*table, meta, missing));
    built.emplace_back(meta.name, std::move(seg));
  }
  if (!found) return Status::InvalidArgument("index update: no index named '" + name + "'");
  if (built.empty()) return size_t(0);
  RETURN_IF_ERROR(CommitIndexes(table, "update_index", [built](std::vector<IndexMeta>* indexes) -> Status {
    for (const auto& entry : built) {
      const std::string& index_name = entry.first;
      auto it = std::find_if(indexes->begin(), indexes->end(), [&](const IndexMeta& m) { return m.name == index_name; });
      if (it == indexes->end()) return Status::Conflict("index '" + index_name + "' was dropped concurrently");
      it->segments.push_back(entry.second);
    }
    return Status::OK();
  }));
  return built.size();
}

Status DropIndex(table::Table* table, const std::string& name) {
  ASSIGN_OR_RETURN(auto indexes, index::ReadIndexes(table->manifest()));
  if (std::none_of(indexes.begin(), indexes.end(), [&](const IndexMeta& m) { return m.name == name; })) {
    return Status::InvalidArgument("index drop: no index named '" + name + "'");
  }
  return CommitIndexes(table, "drop_index", [name](std::vector<IndexMeta>* list) -> Status {
    std::erase_if(*list, [&](const IndexMeta& m) { return m.name == name; });
    return Status::OK();
  });
}

Result<std::vector<IndexHandle>> OpenIndexes(const table::Table& table, const std::vector<std::string>& columns) {
  ASSIGN_OR_RETURN(auto indexes, index::ReadIndexes(table.manifest()));
  std::vector<IndexHandle> out;
  for (const IndexMeta& meta : indexes) {
    if (!columns.empty() && std::find(columns.begin(), columns.end(), meta.column) == columns.end()) continue;
    IndexHandle h;
    h.name = meta.name;
    h.column = meta.column;
    h.type = meta.type;
    h.fragments = meta.CoveredFragments(table.manifest());
    if (h.fragments.empty()) continue;
    // Segments that still cover a live fragment; each answers over its own fragments only.
    std::vector<std::function<Result<index::SearchResult>(const index::ScalarQuery&, index::SearchCounters*)>> searches;
    for (const SegmentMeta& seg : meta.segments) {
      if (std::none_of(seg.fragments.begin(), seg.fragments.end(), [&](uint32_t f) { return h.fragments.count(f) > 0; })) {
        continue;
      }
      if (meta.type == "btree") {
        ASSIGN_OR_RETURN(auto segment, index::btree::BTreeSegment::Open(table.store(), seg.uuid));
        std::shared_ptr<const index::btree::BTreeSegment> shared = std::move(segment);
        searches.push_back([shared](const index::ScalarQuery& q, index::SearchCounters* c) { return shared->Search(q, c); });
      } else {
        ASSIGN_OR_RETURN(auto segment, index::zonemap::ZoneMapSegment::Open(table.store(), seg.uuid));
        std::shared_ptr<const index::zonemap::ZoneMapSegment> shared = std::move(segment);
        searches.push_back([shared](const index::ScalarQuery& q, index::SearchCounters* c) { return shared->Search(q, c); });
      }
    }
    const bool exact = meta.type == "btree";
    h.search = [searches, exact](const index::ScalarQuery& q, index::SearchCounters* c) -> Result<index::SearchResult> {
      index::SearchResult all;
      all.exactness = exact ? index::Exactness::kExact : index::Exactness::kAtMost;
      for (const auto& search : searches) {
        ASSIGN_OR_RETURN(index::SearchResult r, search(q, c));
        all.rows.true_rows |= r.rows.true_rows;
        all.rows.null_rows |= r.rows.null_rows;
        if (r.exactness != index::Exactness::kExact) all.exactness = index::Exactness::kAtMost;
      }
      return all;
    };
    out.push_back(std::move(h));
  }
  return out;
}

}  // namespace lakeindex::query
