// layout (OTree and the comparison layouts) and the layout part of `stats`.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "common/text.h"
#include "layout/otree/layout_writer.h"
#include "ops/operations.h"
#include "query/binder.h"
#include "query/index_manager.h"
#include "query/layout_pruning.h"
#include "query/parser.h"
#include "query/select_list.h"

namespace lakeindex::cli {

namespace {

// 7,812,345 bytes -> "7.8 MB" (decimal units, as du -h --si and DuckDB's storage info).
std::string FormatMegabytes(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f MB", double(bytes) / 1e6);
  return buf;
}

struct LayoutArgs {
  std::string table, otree, sort, zorder, hilbert, transform = "default", memory_limit, row_groups;
  uint64_t cube_rows = 100000, page_rows = 0, rows_per_file = 1000000;
  int slices = 8;
};

Status RunLayout(const LayoutArgs& args) {
  layout::LayoutOptions options;
  int kinds = 0;
  for (const auto& [kind, columns] : {std::pair<std::string, std::string>{"otree", args.otree},
                                      {"sort", args.sort}, {"zorder", args.zorder}, {"hilbert", args.hilbert}}) {
    if (columns.empty()) continue;
    ++kinds;
    options.kind = kind;
    ASSIGN_OR_RETURN(std::vector<query::ColumnItem> items, query::ParseColumnList(columns, kind, false));
    options.columns.clear();
    for (query::ColumnItem& item : items) options.columns.push_back(std::move(item.name));
  }
  if (kinds != 1) return Status::InvalidArgument("layout needs exactly one of --otree, --sort, --zorder, --hilbert");
  options.transform = args.transform;
  options.cube_rows = args.cube_rows;
  options.page_rows = args.page_rows;
  options.slices = args.slices;
  options.row_groups = args.row_groups;
  if (!args.memory_limit.empty()) {
    ASSIGN_OR_RETURN(options.memory_limit, ParseByteSize(args.memory_limit, "--memory-limit"));
  }
  ASSIGN_OR_RETURN(TableHandle h, OpenTable(args.table));
  auto progress = std::make_shared<Progress>("layout " + args.table, h.table->manifest().total_rows());
  options.write = MakeWriteConfig(args.rows_per_file, progress);
  options.progress = [progress](const std::string& step, uint64_t done, uint64_t total) {
    progress->Step(step, total);
    progress->Update(done);
  };
  auto start = std::chrono::steady_clock::now();
  // The rewritten rows are indexed in the same commit (ops::Layout).
  ASSIGN_OR_RETURN(ops::LayoutResult result, ops::Layout(h.table.get(), options));
  progress->Clear();  // before the report (options hold the bar too)
  const layout::LayoutReport& report = result.report;
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (result.index_segments > 0) std::fprintf(stderr, "indexed the rewritten rows: %zu new segments\n", result.index_segments);
  std::fprintf(stderr, "laid out %llu rows as %s on (%s) in %.2f s: %zu files, %zu blocks",
               static_cast<unsigned long long>(report.rows), options.kind.c_str(),
               (args.otree + args.sort + args.zorder + args.hilbert).c_str(), seconds, report.files, report.blocks);
  if (options.kind == "otree") std::fprintf(stderr, ", %zu cubes, depth %d", report.cubes, report.depth);
  std::fprintf(stderr, ": version %llu\n", static_cast<unsigned long long>(h.table->version()));
  if (result.bytes_before > 0 && double(result.bytes_after) >= ops::kLayoutGrowthToTell * double(result.bytes_before)) {
    std::fprintf(stderr,
                 "note: the data files grew from %s to %s (%.1fx): the rows left their old order (time order, say) "
                 "for the layout's, so the columns that followed it compress worse\n",
                 FormatMegabytes(result.bytes_before).c_str(), FormatMegabytes(result.bytes_after).c_str(),
                 double(result.bytes_after) / double(result.bytes_before));
  }
  return Status::OK();
}


struct PlotArgs {
  std::string table, output, where;
};

Status RunPlot(const PlotArgs& args) {
  ASSIGN_OR_RETURN(TableHandle h, OpenTable(args.table));
  ASSIGN_OR_RETURN(PlotSummary plot, WriteCubesSvg(*h.table, args.where, args.output));
  std::fprintf(stderr, "wrote %s: %zu cubes%s\n", args.output.c_str(), plot.cubes,
               args.where.empty() ? "" : (", " + std::to_string(plot.cubes_read) + " of them read by the filter").c_str());
  return Status::OK();
}

}  // namespace

namespace {

// A layout column's value in its transform's units (a linear map's bounds, a point of an axis)
// as the column shows its values: dates and timestamps (of any unit and zone) as such, not days
// or microseconds since 1970; decimals scaled. `tick`: rounded for an axis label (4 digits,
// whole seconds). `plot`'s ticks and `stats`' layout bounds both show values through this.
std::string LayoutValue(TypeId type, double v, bool tick) {
  if (IsDecimal(type)) v /= double(Pow10(DecimalScale(type)));  // the transform's units are unscaled
  switch (type) {
    case TypeId::kDate: return FormatDate(int32_t(std::llround(v)));
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs: {
      const double second = type == TypeId::kTimestampNs ? 1e9 : 1e6;
      const int64_t at = tick ? std::llround(v / second) * int64_t(second) : std::llround(v);
      return (type == TypeId::kTimestamp     ? Value::Timestamp(at)
              : type == TypeId::kTimestampTz ? Value::TimestampTz(at)
                                             : Value::TimestampNs(at))
          .ToString();
    }
    case TypeId::kBool: return v < 0.5 ? "false" : "true";
    default: {
      if (!tick) return FormatDouble(v);
      char buf[32];
      std::snprintf(buf, sizeof(buf), "%.4g", v);
      return buf;
    }
  }
}

// The value of a layout column at a coordinate fraction `f` in [0, 1] of its axis, in the column's
// own units: the linear map's inverse, or the quantile bound nearest it (rounded to 4 digits).
std::string AxisValue(const layout::otree::Transform& t, double f) {
  auto number = [&](double v) { return LayoutValue(t.type, v, /*tick=*/true); };
  if (t.kind == layout::otree::Transform::Kind::kLinear) return number(t.lo + f * (t.hi - t.lo));
  if (t.bounds.empty()) return "";
  const Value& v = t.bounds[size_t(std::lround(f * double(t.bounds.size() - 1)))];
  if (IsBytes(v.type())) {
    std::string text = v.ToString();
    return text.size() > 14 ? text.substr(0, 13) + "…" : text;
  }
  return number(IsFloating(v.type()) ? v.double_value() : double(v.int_value()));
}


}  // namespace

// An SVG of the largest revision's cubes projected on its first two dimensions, with axes in the
// columns' own units (the transformations' inverses) and a legend. Without a filter, deeper cubes
// are darker; with one, the cubes whose blocks the query reads are orange, the ones it skips grey,
// and the query's boxes red outlines.
Result<PlotSummary> WriteCubesSvg(const table::Table& table, const std::string& where, const std::string& output) {
  ASSIGN_OR_RETURN(std::optional<layout::LayoutMeta> meta, layout::LoadLayout(table.manifest()));
  if (!meta || !meta->is_otree()) return Status::InvalidArgument("plot needs an OTree layout: run `lakeindex layout TABLE --otree COLUMNS` first");
  // The revision holding the most rows (revisions live in spaces of their own, so one is drawn).
  size_t drawn = 0;
  uint64_t most = 0;
  for (size_t r = 0; r < meta->revisions.size(); ++r) {
    uint64_t rows = 0;
    for (const auto& cube : meta->revisions[r].tree.cubes()) rows += cube.rows;
    if (r == 0 || rows > most) {
      drawn = r;
      most = rows;
    }
  }
  const layout::Revision& rev = meta->revisions[drawn];
  const int dims = int(meta->columns.size());
  constexpr double kSize = 800, kLeft = 110, kTop = 50, kRight = 30, kBottom = 120;
  constexpr double kCoords = 4294967296.0;
  auto px = [&](double coord) { return kLeft + coord / kCoords * kSize; };
  auto py = [&](double coord) { return kTop + kSize - coord / kCoords * kSize; };
  // A rectangle over [lo0, hi0] x [lo1, hi1] (inclusive coordinates; the whole height in 1-D).
  auto rect = [&](uint32_t lo0, uint32_t hi0, uint32_t lo1, uint32_t hi1, const std::string& style) {
    if (dims < 2) {
      lo1 = 0;
      hi1 = layout::otree::kMaxCoord;
    }
    char buf[256];
    std::snprintf(buf, sizeof(buf), "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" %s/>\n", px(lo0),
                  py(double(hi1) + 1), std::max(0.5, px(double(hi0) + 1) - px(lo0)),
                  std::max(0.5, py(lo1) - py(double(hi1) + 1)), style.c_str());
    return std::string(buf);
  };
  auto text = [](double x, double y, const std::string& body, const std::string& attributes) {
    char buf[128];
    std::snprintf(buf, sizeof(buf), "<text x=\"%.1f\" y=\"%.1f\" font-family=\"sans-serif\" ", x, y);
    return std::string(buf) + attributes + ">" + XmlEscape(body) + "</text>\n";
  };
  std::set<int> read;
  std::vector<layout::otree::Box> boxes;
  query::BlockSelection selection;
  if (!where.empty()) {
    ASSIGN_OR_RETURN(auto parsed, query::ParseExpression(where));
    ASSIGN_OR_RETURN(auto bound, query::Bind(*parsed, table.schema()));
    ASSIGN_OR_RETURN(std::vector<int> columns, meta->ColumnIndexes(table.schema()));
    boxes = query::FilterBoxes(bound.get(), columns, rev.transforms);
    for (int c : rev.tree.Select(boxes, 1.0)) read.insert(c);
    ASSIGN_OR_RETURN(selection, query::SelectBlocks(*meta, table.schema(), bound.get(), std::nullopt));
  }
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(int(kLeft + kSize + kRight)) +
                    "\" height=\"" + std::to_string(int(kTop + kSize + kBottom)) +
                    "\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  std::string columns;
  for (const std::string& c : meta->columns) columns += (columns.empty() ? "" : ", ") + c;
  svg += text(kLeft, 30,
              "OTree on (" + columns + ")" +
                  (meta->revisions.size() > 1 ? ", revision " + std::to_string(rev.id) + " (the largest of " +
                                                    std::to_string(meta->revisions.size()) + ")"
                                              : std::string()) +
                  ": " + std::to_string(rev.tree.cubes().size()) + " cubes, depth " +
                  std::to_string(rev.tree.depth()) +
                  (where.empty() ? std::string()
                                 : "; " + where + ": blocks read " + std::to_string(selection.blocks_selected) + " of " +
                                       std::to_string(selection.blocks_total)),
              "font-size=\"14\"");
  const int depth = std::max(1, rev.tree.depth());
  for (int c : rev.tree.PreOrder()) {
    const auto& cube = rev.tree.cubes()[size_t(c)];
    char style[200];
    if (where.empty()) {
      std::snprintf(style, sizeof(style), "class=\"cube\" fill=\"#3b82f6\" fill-opacity=\"%.2f\" stroke=\"#335\" stroke-width=\"0.5\"",
                    0.08 + 0.5 * double(cube.id.depth) / depth);
    } else if (read.count(c) > 0) {
      std::snprintf(style, sizeof(style), "class=\"cube-read\" fill=\"#f59e0b\" fill-opacity=\"0.45\" stroke=\"#92400e\" stroke-width=\"0.6\"");
    } else {
      std::snprintf(style, sizeof(style), "class=\"cube-skipped\" fill=\"#94a3b8\" fill-opacity=\"0.10\" stroke=\"#64748b\" stroke-width=\"0.4\"");
    }
    svg += rect(cube.id.Lo(0), cube.id.Hi(0), dims > 1 ? cube.id.Lo(1) : 0, dims > 1 ? cube.id.Hi(1) : 0, style);
  }
  for (const auto& b : boxes) {
    svg += rect(b.lo[0], b.hi[0], dims > 1 ? b.lo[1] : 0, dims > 1 ? b.hi[1] : 0,
                "class=\"query-box\" fill=\"none\" stroke=\"#dc2626\" stroke-width=\"2\"");
  }
  // Axes: a frame, five ticks a side labelled in the column's own values, the column names.
  char frame[200];
  std::snprintf(frame, sizeof(frame), "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"black\"/>\n",
                kLeft, kTop, kSize, kSize);
  svg += frame;
  for (int i = 0; i <= 4; ++i) {
    const double f = i / 4.0;
    char tick[200];
    std::snprintf(tick, sizeof(tick), "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", kLeft + f * kSize,
                  kTop + kSize, kLeft + f * kSize, kTop + kSize + 6);
    svg += tick;
    svg += text(kLeft + f * kSize, kTop + kSize + 22, AxisValue(rev.transforms[0], f),
                "class=\"tick-x\" font-size=\"12\" text-anchor=\"middle\"");
    if (dims > 1) {
      std::snprintf(tick, sizeof(tick), "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", kLeft - 6,
                    kTop + kSize - f * kSize, kLeft, kTop + kSize - f * kSize);
      svg += tick;
      svg += text(kLeft - 9, kTop + kSize - f * kSize + 4, AxisValue(rev.transforms[1], f),
                  "class=\"tick-y\" font-size=\"12\" text-anchor=\"end\"");
    }
  }
  svg += text(kLeft + kSize / 2, kTop + kSize + 46, meta->columns[0], "font-size=\"14\" text-anchor=\"middle\"");
  if (dims > 1) {
    const double y = kTop + kSize / 2;
    svg += text(18, y, meta->columns[1], "font-size=\"14\" text-anchor=\"middle\" transform=\"rotate(-90 18 " + std::to_string(int(y)) + ")\"");
  }
  // The legend.
  std::vector<std::pair<std::string, std::string>> legend;
  if (where.empty()) {
    legend = {{"fill=\"#3b82f6\" fill-opacity=\"0.15\"", "cube (the root's children and theirs overlap it: darker = deeper)"}};
  } else {
    legend = {{"fill=\"#f59e0b\" fill-opacity=\"0.45\"", "cube read by the filter (" + std::to_string(read.size()) + ")"},
              {"fill=\"#94a3b8\" fill-opacity=\"0.10\" stroke=\"#64748b\"",
               "cube skipped (" + std::to_string(rev.tree.cubes().size() - read.size()) + ")"},
              {"fill=\"none\" stroke=\"#dc2626\" stroke-width=\"2\"", "the filter's box on (" + columns + ")"}};
  }
  double lx = kLeft;
  const double ly = kTop + kSize + 70;
  for (const auto& [style, label] : legend) {
    char swatch[200];
    std::snprintf(swatch, sizeof(swatch), "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"14\" %s/>\n", lx, ly, style.c_str());
    svg += swatch;
    svg += text(lx + 20, ly + 12, label, "class=\"legend\" font-size=\"12\"");
    lx += 40 + 7.0 * double(label.size());
  }
  if (dims > 2) svg += text(kLeft, ly + 36, "projected on the first two of " + std::to_string(dims) + " columns", "font-size=\"12\"");
  svg += "</svg>\n";
  RETURN_IF_ERROR(WriteOutputFile(output, svg));
  PlotSummary summary;
  summary.cubes = rev.tree.cubes().size();
  summary.cubes_read = read.size();
  summary.blocks_read = selection.blocks_selected;
  summary.blocks_total = selection.blocks_total;
  return summary;
}

Status PrintLayoutStats(const table::Table& table) {
  ASSIGN_OR_RETURN(std::optional<layout::LayoutMeta> meta, layout::LoadLayout(table.manifest()));
  if (!meta) {
    std::printf("layout: none\n");
    return Status::OK();
  }
  std::string columns;
  for (const std::string& c : meta->columns) columns += (columns.empty() ? "" : ", ") + c;
  std::printf("layout: %s on (%s)", meta->kind.c_str(), columns.c_str());
  if (!meta->is_otree()) {
    std::printf(", row groups of %llu rows\n", static_cast<unsigned long long>(meta->cube_rows));
    return Status::OK();
  }
  std::printf(", cube rows %llu, %d weight slices, pages of %llu rows, transformation %s\n",
              static_cast<unsigned long long>(meta->cube_rows), meta->slices,
              static_cast<unsigned long long>(meta->page_rows), meta->transform.c_str());
  std::map<std::pair<int, std::string>, size_t> blocks_per_cube;
  for (const layout::BlockMeta& b : meta->blocks) {
    ++blocks_per_cube[{b.revision, b.cube.ToString(int(meta->columns.size()))}];
  }
  for (const layout::Revision& rev : meta->revisions) {
    const auto& cubes = rev.tree.cubes();
    std::map<int, size_t> per_level;
    uint64_t min_rows = UINT64_MAX, max_rows = 0, total = 0;
    size_t with_rows = 0, blocks = 0;
    for (const auto& cube : cubes) {
      ++per_level[cube.id.depth];
      if (cube.rows == 0) continue;
      ++with_rows;
      total += cube.rows;
      min_rows = std::min(min_rows, cube.rows);
      max_rows = std::max(max_rows, cube.rows);
      auto it = blocks_per_cube.find({rev.id, cube.id.ToString(int(meta->columns.size()))});
      if (it != blocks_per_cube.end()) blocks += it->second;
    }
    std::printf("revision %d: depth %d, %zu cubes (%zu holding rows), cubes per level:", rev.id, rev.tree.depth(),
                cubes.size(), with_rows);
    for (const auto& [level, n] : per_level) std::printf(" %zu", n);
    std::printf("\n  rows per cube: mean %.0f, min %llu, max %llu; blocks per cube: %.2f\n",
                with_rows ? double(total) / double(with_rows) : 0.0,
                static_cast<unsigned long long>(with_rows ? min_rows : 0), static_cast<unsigned long long>(max_rows),
                with_rows ? double(blocks) / double(with_rows) : 0.0);
    for (size_t d = 0; d < rev.transforms.size(); ++d) {
      const auto& t = rev.transforms[d];
      std::printf("  %s: %s\n", meta->columns[d].c_str(),
                  t.kind == layout::otree::Transform::Kind::kLinear
                      ? ("linear [" + LayoutValue(t.type, t.lo, false) + ", " + LayoutValue(t.type, t.hi, false) + "]").c_str()
                      : ("quantile, " + std::to_string(t.bounds.size()) + " bounds").c_str());
    }
  }
  uint64_t min_file = UINT64_MAX, max_file = 0, bytes = 0;
  for (const auto& f : table.manifest().fragments) {
    min_file = std::min(min_file, f.file_size);
    max_file = std::max(max_file, f.file_size);
    bytes += f.file_size;
  }
  const size_t files = table.manifest().fragments.size();
  std::printf("blocks: %zu in %zu files; file bytes mean %.0f, min %llu, max %llu\n", meta->blocks.size(), files,
              files ? double(bytes) / double(files) : 0.0, static_cast<unsigned long long>(files ? min_file : 0),
              static_cast<unsigned long long>(max_file));
  return Status::OK();
}

void AddLayoutCommands(CLI::App& app, CommandList* commands) {
  auto args = std::make_shared<LayoutArgs>();
  auto* l = app.add_subcommand("layout", "Rewrite the table's data into a multidimensional layout (a new version)");
  l->add_option("TABLE", args->table, "Table directory")->required();
  l->add_option("--otree", args->otree, "OTree on these columns (1 to 6, comma-separated)");
  l->add_option("--sort", args->sort, "Comparison layout: sorted by these columns");
  l->add_option("--zorder", args->zorder, "Comparison layout: Z-order of these columns");
  l->add_option("--hilbert", args->hilbert, "Comparison layout: Hilbert order of these columns");
  l->add_option("--cube-rows", args->cube_rows, "OTree: target rows per cube; others: rows per row group")
      ->check(WholeNumber(1))
      ->capture_default_str();
  l->add_option("--transform", args->transform, "default (quantile for strings and skewed numbers), linear or quantile")
      ->capture_default_str();
  l->add_option("--slices", args->slices, "OTree: weight slices per cube (row groups)")->check(WholeNumber(1))->capture_default_str();
  l->add_option("--row-groups", args->row_groups,
                "OTree: row groups by weight slice (slices: lakeindex's samples read the least) or by region (regions: "
                "cubes with children cut by space too, so engines that skip only row groups, Spark and Trino on "
                "Iceberg, read little of them for small boxes, and lakeindex's own small boxes meet fewer row "
                "groups); default: regions")
      ->check(CLI::IsMember({layout::kRowGroupsBySlice, layout::kRowGroupsByRegion}));
  l->add_option("--page-rows", args->page_rows,
                "Rows per Parquet page of the layout columns inside blocks, about (OTree: whole cells of its curve, at most 1.5x); "
                "default 64, 32 for an OTree on 3+ columns (other columns: 512, or this if more)")
      ->check(WholeNumber(1));
  l->add_option("--rows-per-file", args->rows_per_file, "Target rows per data file")->check(WholeNumber(1))->capture_default_str();
  l->add_option("--memory-limit", args->memory_limit,
                "Memory the layout may take, e.g. 2G (default: a quarter of RAM, at most 2G); an OTree over it is built in parts");
  commands->emplace_back(l, [args] { return RunLayout(*args); });

  auto plot = std::make_shared<PlotArgs>();
  auto* p = app.add_subcommand("plot", "Draw the OTree's cubes (first two columns) as SVG, with a filter's boxes and reads");
  p->add_option("TABLE", plot->table, "Table directory")->required();
  p->add_option("--output", plot->output, "SVG file to write")->required();
  p->add_option("--where", plot->where, "SQL filter to draw");
  commands->emplace_back(p, [plot] { return RunPlot(*plot); });
}

}  // namespace lakeindex::cli
