#include "layout/otree/layout_meta.h"

#include <map>
#include <set>
#include <utility>

namespace lakeindex::layout {

namespace {

using nlohmann::json;

Status Bad(std::string_view source, const std::string& what) {
  return Status::Corruption(std::string(source) + ": layout: " + what);
}

}  // namespace

std::string DefaultRowGroups(const std::string& kind, const table::Manifest& manifest) {
  return kind == "otree" ? kRowGroupsByRegion : kRowGroupsBySlice;
}

bool IsLayoutKind(std::string_view kind) {
  return kind == "otree" || kind == "sort" || kind == "zorder" || kind == "hilbert";
}

const Revision* LayoutMeta::FindRevision(int id) const {
  for (const Revision& r : revisions) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

Revision* LayoutMeta::FindRevision(int id) {
  return const_cast<Revision*>(std::as_const(*this).FindRevision(id));
}

Result<std::vector<int>> LayoutMeta::ColumnIndexes(const Schema& schema) const {
  std::vector<int> out;
  for (const std::string& name : columns) {
    int c = schema.FindField(name);
    if (c < 0) return Status::InvalidArgument("layout column '" + name + "' is not in the table");
    out.push_back(c);
  }
  return out;
}

json LayoutMeta::ToJson() const {
  json j = {{"kind", kind}, {"columns", columns}, {"transform", transform}, {"cube_rows", cube_rows},
            {"slices", slices}, {"page_rows", page_rows}};
  if (!is_otree()) return j;
  if (row_groups != kRowGroupsBySlice) j["row_groups"] = row_groups;
  json revs = json::array();
  for (const Revision& r : revisions) {
    json t = json::array();
    for (const otree::Transform& tr : r.transforms) t.push_back(tr.ToJson());
    revs.push_back({{"id", r.id}, {"transforms", std::move(t)}, {"tree", r.tree.ToJson()}});
  }
  j["revisions"] = std::move(revs);
  json blocks_json = json::array();
  const int dims = int(columns.size());
  for (const BlockMeta& b : blocks) {
    blocks_json.push_back({{"fragment", b.fragment}, {"row_group", b.row_group}, {"revision", b.revision},
                           {"cube", b.cube.ToString(dims)}, {"rows", b.rows}, {"min_weight", b.min_weight},
                           {"max_weight", b.max_weight}});
  }
  j["blocks"] = std::move(blocks_json);
  return j;
}

Result<LayoutMeta> LayoutMeta::FromJson(const json& j, const Schema& schema, std::string_view source) {
  if (!j.is_object()) return Bad(source, "not an object");
  LayoutMeta m;
  try {
    m.kind = j.at("kind").get<std::string>();
    m.columns = j.at("columns").get<std::vector<std::string>>();
    m.transform = j.value("transform", std::string("default"));
    m.cube_rows = j.value("cube_rows", uint64_t(0));
    m.slices = j.value("slices", 0);
    m.page_rows = j.value("page_rows", uint64_t(0));
    m.row_groups = j.value("row_groups", std::string(kRowGroupsBySlice));
  } catch (const json::exception& e) {
    return Bad(source, e.what());
  }
  if (!IsLayoutKind(m.kind)) {
    return Bad(source, "unknown kind '" + m.kind + "'");
  }
  if (m.row_groups != kRowGroupsBySlice && m.row_groups != kRowGroupsByRegion) {
    return Bad(source, "unknown row_groups '" + m.row_groups + "'");
  }
  if (m.columns.empty() || m.columns.size() > size_t(otree::kMaxDims)) {
    return Bad(source, "needs 1 to " + std::to_string(otree::kMaxDims) + " columns");
  }
  auto cols = m.ColumnIndexes(schema);
  if (!cols.ok()) return Bad(source, cols.status().message());
  if (!m.is_otree()) return m;
  const int dims = int(m.columns.size());
  try {
    for (const json& r : j.at("revisions")) {
      Revision rev;
      rev.id = r.at("id").get<int>();
      const json& ts = r.at("transforms");
      if (!ts.is_array() || ts.size() != m.columns.size()) return Bad(source, "revision needs one transform per column");
      for (size_t i = 0; i < ts.size(); ++i) {
        auto t = otree::Transform::FromJson(ts[i], schema.field(size_t((*cols)[i])).type);
        if (!t.ok()) return Bad(source, t.status().message());
        rev.transforms.push_back(std::move(*t));
      }
      auto tree = otree::Tree::FromJson(r.at("tree"));
      if (!tree.ok()) return Bad(source, tree.status().message());
      if (tree->dims() != dims) return Bad(source, "tree dimensions differ from the columns");
      rev.tree = std::move(*tree);
      if (m.FindRevision(rev.id)) return Bad(source, "revision " + std::to_string(rev.id) + " repeats");
      m.revisions.push_back(std::move(rev));
    }
    std::set<std::pair<uint32_t, int>> seen;
    for (const json& b : j.at("blocks")) {
      BlockMeta block;
      block.fragment = b.at("fragment").get<uint32_t>();
      block.row_group = b.at("row_group").get<int>();
      block.revision = b.at("revision").get<int>();
      block.rows = b.at("rows").get<uint64_t>();
      block.min_weight = b.at("min_weight").get<double>();
      block.max_weight = b.at("max_weight").get<double>();
      auto cube = otree::CubeId::Parse(b.at("cube").get<std::string>(), dims);
      if (!cube.ok()) return Bad(source, cube.status().message());
      block.cube = *cube;
      const Revision* rev = m.FindRevision(block.revision);
      if (!rev) return Bad(source, "block names unknown revision " + std::to_string(block.revision));
      if (rev->tree.Find(block.cube) < 0) return Bad(source, "block names unknown cube '" + block.cube.ToString(dims) + "'");
      if (block.row_group < 0 || !seen.insert({block.fragment, block.row_group}).second) {
        return Bad(source, "block of fragment " + std::to_string(block.fragment) + " row group " +
                               std::to_string(block.row_group) + " repeats");
      }
      m.blocks.push_back(block);
    }
  } catch (const json::exception& e) {
    return Bad(source, e.what());
  }
  return m;
}

Result<std::optional<LayoutMeta>> LoadLayout(const table::Manifest& manifest) {
  if (manifest.layout.is_null()) return std::optional<LayoutMeta>();
  const std::string source = table::ManifestPath(manifest.version);
  ASSIGN_OR_RETURN(LayoutMeta m, LayoutMeta::FromJson(manifest.layout, manifest.schema, source));
  if (m.is_otree()) {
    if (manifest.schema.FindField(kWeightColumn) < 0) {
      return Status::Corruption(source + ": an OTree layout without the column " + std::string(kWeightColumn) +
                                (manifest.schema.FindField("_weight") >= 0
                                     ? " (a table laid out before lakeindex named it _weight; lay it out again)"
                                     : ""));
    }
    // Blocks and fragments must describe the same rows: a block of a fragment the version lacks
    // would hide rows from a query (it reads only blocks), and so would a fragment in no block.
    std::map<uint32_t, uint64_t> block_rows;
    for (const BlockMeta& b : m.blocks) block_rows[b.fragment] += b.rows;
    for (const auto& [fragment, rows] : block_rows) {
      const table::FragmentMeta* f = manifest.FindFragment(fragment);
      if (f == nullptr) {
        return Status::Corruption(source + ": OTree blocks of fragment " + std::to_string(fragment) +
                                  ", which the version does not have");
      }
      if (rows != f->rows) {
        return Status::Corruption(source + ": OTree blocks of fragment " + std::to_string(fragment) + " hold " +
                                  std::to_string(rows) + " rows, the fragment " + std::to_string(f->rows));
      }
    }
    for (const table::FragmentMeta& f : manifest.fragments) {
      if (!block_rows.count(f.id)) {
        return Status::Corruption(source + ": fragment " + std::to_string(f.id) + " is in no OTree block");
      }
    }
  }
  return std::optional<LayoutMeta>(std::move(m));
}

Result<std::shared_ptr<const std::optional<LayoutMeta>>> LoadLayout(const table::Table& table) {
  ASSIGN_OR_RETURN(std::shared_ptr<const void> parsed,
                   table.SharedObject("layout@" + std::to_string(table.version()), [&]() -> Result<std::shared_ptr<const void>> {
                     ASSIGN_OR_RETURN(std::optional<LayoutMeta> meta, LoadLayout(table.manifest()));
                     return std::shared_ptr<const void>(std::make_shared<const std::optional<LayoutMeta>>(std::move(meta)));
                   }));
  return std::static_pointer_cast<const std::optional<LayoutMeta>>(parsed);
}

}  // namespace lakeindex::layout
