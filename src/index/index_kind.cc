#include "index/index_kind.h"

#include <algorithm>

#include "format/parquet/reader.h"

namespace lakeindex::index {

std::vector<table::FragmentMeta> SegmentBuild::AllFragments() const {
  std::set<uint32_t> ids;
  for (const auto& f : fragments) ids.insert(f.id);
  for (const MergedSegment& m : merged) ids.insert(m.live.begin(), m.live.end());
  std::vector<table::FragmentMeta> all;
  for (const auto& f : table->manifest().fragments) {
    if (ids.count(f.id)) all.push_back(f);
  }
  return all;
}

uint64_t SegmentCoverage::Rows() const {
  uint64_t n = 0;
  for (const auto& [id, rows] : rows_of) n += rows;
  return n;
}

Status IndexSegment::Prewarm(uint64_t, SearchCounters*) const { return Status::OK(); }

Result<uint64_t> IndexSegment::Count(const ScalarQuery&, SearchCounters*) const {
  return Status::NotSupported("this index kind does not count from its directory");
}

Result<std::vector<uint64_t>> IndexSegment::FirstRows(bool, uint64_t, const std::function<bool(uint64_t)>&,
                                                      SearchCounters*) const {
  return Status::NotSupported("this index kind does not keep rows in key order");
}

Status ForEachColumnChunk(const table::Table& table, const std::string& column,
                          const std::vector<table::FragmentMeta>& fragments,
                          const std::function<Status(const table::FragmentMeta&, uint32_t offset, const Column&)>& chunk,
                          const std::function<Status(const table::FragmentMeta&)>& fragment_done,
                          const BuildProgress& progress) {
  const int field = table.schema().FindField(column);
  if (field < 0) return Status::InvalidArgument("unknown column '" + column + "'").About("column");
  const TypeId type = table.schema().field(size_t(field)).type;
  const std::string step = "reading " + column;
  uint64_t done = 0, total = 0;
  for (const table::FragmentMeta& f : fragments) total += f.rows;
  if (progress) progress(step, 0, total);
  for (const table::FragmentMeta& f : fragments) {
    ASSIGN_OR_RETURN(auto reader, table.OpenDataFile(f));
    const int c = reader->schema().FindField(column);
    if (c < 0) return Status::Corruption(f.file + ": data file has no column '" + column + "'");
    const TypeId file_type = reader->schema().field(size_t(c)).type;
    if (file_type != type) {
      return Status::Corruption(f.file + ": column '" + column + "' is " + TypeName(file_type) + ", the table's is " +
                                TypeName(type));
    }
    if (uint64_t(reader->num_rows()) != f.rows) {
      return Status::Corruption(f.file + ": data file has " + std::to_string(reader->num_rows()) +
                                " rows, the manifest says " + std::to_string(f.rows) + " (fragment " +
                                std::to_string(f.id) + ")");
    }
    uint64_t offset = 0;
    for (int rg = 0; rg < reader->num_row_groups(); ++rg) {
      ASSIGN_OR_RETURN(Batch batch, reader->ReadRowGroup(rg, {c}));
      Status st = chunk(f, uint32_t(offset), batch.column(0));
      // What the data says of a file is told with its name; a refusal of the column (too many
      // values for the kind) is about the column, not a file.
      if (!st.ok()) return st.IsInvalidArgument() ? st : st.WithContext(f.file + " column '" + column + "'");
      offset += batch.num_rows();
      done += batch.num_rows();
      if (progress) progress(step, done, total);
    }
    if (fragment_done) RETURN_IF_ERROR(fragment_done(f));
  }
  return Status::OK();
}

Result<uint64_t> WholeParam(const nlohmann::json& given, const std::string& name, uint64_t fallback, uint64_t lo,
                            uint64_t hi) {
  const std::string range = "must be a whole number between " + std::to_string(lo) + " and " + std::to_string(hi);
  auto it = given.find(name);
  if (it == given.end() || it->is_null()) return fallback;
  if (!it->is_number_integer()) return Status::InvalidArgument(range + ", not " + it->dump()).About(name);
  if (it->is_number_unsigned()) {
    const uint64_t v = it->get<uint64_t>();
    if (v >= lo && v <= hi) return v;
  } else {
    const int64_t v = it->get<int64_t>();
    if (v >= 0 && uint64_t(v) >= lo && uint64_t(v) <= hi) return uint64_t(v);
  }
  return Status::InvalidArgument(range + ", not " + it->dump()).About(name);
}

Status OnlyParams(const nlohmann::json& given, std::string_view kind, const std::vector<std::string>& known) {
  if (!given.is_object()) return Status::InvalidArgument("index parameters must be an object").About("params");
  for (const auto& [name, value] : given.items()) {
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      std::string takes;
      for (const std::string& k : known) takes += (takes.empty() ? "" : ", ") + k;
      return Status::InvalidArgument("a " + std::string(kind) + " index takes no parameter '" + name + "'" +
                                     (takes.empty() ? " (it takes none)" : " (it takes " + takes + ")"))
          .About(name);
    }
  }
  return Status::OK();
}

}  // namespace lakeindex::index
