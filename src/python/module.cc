// _lakeindex: the Python binding (pybind11). `lakeindex` (python/lakeindex/) wraps it in the
// documented API; this module stays thin: open a table, call the library, convert the result.
// Every call that reads or writes releases the GIL while the library works; errors are raised
// as _lakeindex.Error subclasses with the library's message.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include "format/arrow/arrow.h"
#include "index/index_catalog.h"
#include "layout/otree/layout_writer.h"
#include "layout/otree/partitioned_layout.h"
#include "python/convert.h"
#include "ops/operations.h"
#include "ops/prewarm.h"
#include "ops/read.h"
#include "query/aggregate.h"
#include "query/order.h"
#include "index/registry/registry.h"
#include "query/index_manager.h"
#include "query/scanner.h"
#include "table/table.h"

namespace lakeindex::python {

namespace {

// Runs f() without the GIL and returns its result.
template <typename F>
auto Unlocked(F&& f) {
  py::gil_scoped_release release;
  return f();
}

// `store_out`: the open is a Table's, which queries go through — a remote table's data file
// footers are fetched in the open's round trips.
Result<std::unique_ptr<table::Table>> OpenAt(const std::string& path, std::optional<uint64_t> version,
                                             std::shared_ptr<InstrumentedStore>* store_out = nullptr) {
  ASSIGN_OR_RETURN(auto store, table::OpenTableStore(path, false));
  table::Table::OpenOptions options;
  if (store_out) {
    *store_out = store;
    options.prefetch = [](const table::Table& t) { query::PrefetchForAnyQuery(t); };
  }
  auto t = table::Table::Open(store, version, options);
  if (!t.ok() && t.status().IsNotFound() && !version) return Status::NotFound("no lakeindex table at '" + path + "'");
  return t;
}

table::WriteConfig Config(std::optional<uint64_t> rows_per_file) {
  table::WriteConfig config;
  if (rows_per_file) config.rows_per_file = *rows_per_file;
  return config;
}

py::dict VersionToPy(const table::VersionInfo& v) {
  py::dict d;
  d["version"] = v.version;
  d["timestamp_ms"] = v.timestamp_ms;
  d["operation"] = v.operation;
  d["rows"] = v.rows;
  d["fragments"] = v.fragments;
  return d;
}

layout::LayoutOptions LayoutOptionsFrom(const py::dict& d) {
  layout::LayoutOptions o;
  o.columns = d["columns"].cast<std::vector<std::string>>();
  if (d.contains("cube_rows")) o.cube_rows = d["cube_rows"].cast<uint64_t>();
  if (d.contains("slices")) o.slices = d["slices"].cast<int>();
  if (d.contains("page_rows")) o.page_rows = d["page_rows"].cast<uint64_t>();
  if (d.contains("transform")) o.transform = d["transform"].cast<std::string>();
  if (d.contains("seed")) o.seed = d["seed"].cast<uint64_t>();
  if (d.contains("rows_per_file")) o.write.rows_per_file = d["rows_per_file"].cast<uint64_t>();
  if (d.contains("memory_limit")) o.memory_limit = d["memory_limit"].cast<uint64_t>();
  if (d.contains("kind")) o.kind = d["kind"].cast<std::string>();
  if (d.contains("row_groups")) o.row_groups = d["row_groups"].cast<std::string>();
  return o;
}

// `params`: the kind's parameters as a JSON object (the Python layer checked their types).
query::IndexOptions IndexOptionsFrom(const std::string& column, const std::string& kind, const std::string& name,
                                     const std::string& params) {
  query::IndexOptions o;
  o.column = column;
  o.type = kind;
  o.name = name;
  o.params = nlohmann::json::parse(params);
  return o;
}

py::dict ReportToPy(const layout::LayoutReport& r) {
  py::dict d;
  d["rows"] = r.rows;
  d["files"] = r.files;
  d["blocks"] = r.blocks;
  d["cubes"] = r.cubes;
  d["depth"] = r.depth;
  return d;
}

py::object JsonToPy(const nlohmann::json& j) {
  return py::module_::import("json").attr("loads")(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

// (column names, column arrays) of a result, as Table.query and Table.aggregate return them.
py::tuple NamesAndColumns(const Batch& batch) {
  py::list names, columns;
  for (size_t c = 0; c < batch.num_columns(); ++c) {
    names.append(batch.schema().field(c).name);
    columns.append(ColumnToNumpy(batch.column(c)));
  }
  return py::make_tuple(names, columns);
}

// Table.scan's iterator: the batches of one query, each (names, columns), read as they are asked
// for (the GIL released meanwhile). It holds its own view of the version it started on, so that
// the Table appending or moving on does not change what it returns.
class PyScan {
 public:
  // A read (ops::Read) of `table`, a view of one version, with its filter planned already.
  PyScan(std::unique_ptr<table::Table> table, const ops::ReadRequest& request, const ops::PlannedFilter& planned)
      : table_(std::move(table)) {
    rows_ = Check(Unlocked([&] { return ops::Read(*table_, request, &planned); }));
  }
  py::tuple Next() {
    Batch batch;
    const bool more = Check(Unlocked([&] { return rows_->Next(&batch); }));
    if (!more) throw py::stop_iteration();
    return NamesAndColumns(batch);
  }
  // The next batch, without Python (the Arrow stream's producer).
  Result<bool> NextBatch(Batch* batch) { return rows_->Next(batch); }
  const Schema& schema() const { return rows_->schema(); }

 private:
  std::unique_ptr<table::Table> table_;  // before rows_: destroyed after it
  std::unique_ptr<ops::RowStream> rows_;
};

// Table.query(output="arrow"): a result as an Arrow C stream, handed over by the PyCapsule
// protocol (__arrow_c_stream__, __arrow_c_schema__) to pyarrow, Polars, DuckDB or any consumer of
// the Arrow C stream interface. Batches are read as the consumer asks for them (its thread, the
// GIL untouched: the scan holds no Python object). A stream is read once.
class PyArrowStream {
 public:
  PyArrowStream(Schema schema, arrow::NextBatch next) : schema_(std::move(schema)), next_(std::move(next)) {}
  // A stream of these rows alone.
  static PyArrowStream OneBatch(Batch rows) {
    std::shared_ptr<ops::RowStream> stream = ops::RowsOf(std::move(rows));
    return PyArrowStream(stream->schema(), [stream](Batch* out) { return stream->Next(out); });
  }


  py::object Stream(const py::object& /*requested_schema: the result's own types are given*/) {
    if (!next_) Check(Status::InvalidArgument("this Arrow stream was already taken: query again for another"));
    auto* stream = new ArrowArrayStream;
    arrow::ExportStream(schema_, std::move(next_), stream);
    next_ = nullptr;
    return Capsule(stream, "arrow_array_stream", [](PyObject* capsule) {
      auto* s = static_cast<ArrowArrayStream*>(PyCapsule_GetPointer(capsule, "arrow_array_stream"));
      if (s == nullptr) return PyErr_Clear();
      if (s->release != nullptr) s->release(s);  // not moved out by a consumer
      delete s;
    });
  }

  py::object SchemaCapsule() const {
    auto* schema = new ArrowSchema;
    arrow::ExportSchema(schema_, schema);
    return Capsule(schema, "arrow_schema", [](PyObject* capsule) {
      auto* s = static_cast<ArrowSchema*>(PyCapsule_GetPointer(capsule, "arrow_schema"));
      if (s == nullptr) return PyErr_Clear();
      if (s->release != nullptr) s->release(s);
      delete s;
    });
  }

  py::list Names() const {
    py::list names;
    for (const Field& f : schema_.fields()) names.append(f.name);
    return names;
  }

 private:
  static py::object Capsule(void* pointer, const char* name, PyCapsule_Destructor destructor) {
    PyObject* capsule = PyCapsule_New(pointer, name, destructor);
    if (capsule == nullptr) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(capsule);
  }

  Schema schema_;
  arrow::NextBatch next_;
};

// Every batch `next` gives, joined into one.
Result<Batch> Drain(const Schema& schema, const std::function<Result<bool>(Batch*)>& next) {
  std::optional<Batch> all;
  Batch batch;
  while (true) {
    ASSIGN_OR_RETURN(bool more, next(&batch));
    if (!more) break;
    if (!all && batch.schema() == schema) {
      all = std::move(batch);  // the first batch as it is (a lookup's only one, often): not copied
      batch = Batch();
      continue;
    }
    if (!all) all.emplace(schema);
    RETURN_IF_ERROR(all->Append(batch));
  }
  if (!all) all.emplace(schema);
  RETURN_IF_ERROR(all->Seal());
  return std::move(*all);
}

// The Arrow C stream in a PyCapsule from `__arrow_c_stream__()`, taken over by an importer.
std::unique_ptr<arrow::StreamImporter> ImportCapsule(const py::object& capsule) {
  auto* stream = static_cast<ArrowArrayStream*>(PyCapsule_GetPointer(capsule.ptr(), "arrow_array_stream"));
  if (stream == nullptr) throw py::error_already_set();
  return Check(arrow::StreamImporter::Make(stream));
}

// A CSV dialect from Python's {"delimiter", "quote", "escape": one character, "header": bool,
// "null": str} (lakeindex._dialect checks the values).
csv::Dialect DialectFrom(const py::dict& d) {
  csv::Dialect out;
  auto character = [&](const char* key, char* field) {
    if (d.contains(key) && !d[key].is_none()) *field = d[key].cast<char>();
  };
  character("delimiter", &out.delimiter);
  character("quote", &out.quote);
  character("escape", &out.escape);
  if (d.contains("header") && !d["header"].is_none()) out.header = d["header"].cast<bool>();
  if (d.contains("null") && !d["null"].is_none()) out.null_string = d["null"].cast<std::string>();
  if (d.contains("dateformat") && !d["dateformat"].is_none()) out.date_format = d["dateformat"].cast<std::string>();
  character("thousands", &out.thousands);
  return out;
}

class PyTable {
 public:
  static PyTable Create(const std::string& path, const std::string& source, std::optional<uint64_t> rows_per_file,
                        std::optional<std::string> schema_text, std::optional<std::pair<std::string, int>> iceberg,
                        const py::dict& csv) {
    const csv::Dialect dialect = DialectFrom(csv);
    return CreateFrom(path, rows_per_file, iceberg, [&]() -> Result<std::unique_ptr<table::BatchSource>> {
      std::optional<Schema> schema;
      if (schema_text) {
        ASSIGN_OR_RETURN(schema, Schema::Parse(*schema_text));
      }
      return table::OpenLocalFileSource(source, schema, dialect);
    });
  }

  // Create from an Arrow stream (a PyCapsule of `__arrow_c_stream__`), read as it is written.
  static PyTable CreateFromArrow(const std::string& path, const py::object& capsule, std::optional<uint64_t> rows_per_file,
                                 std::optional<std::pair<std::string, int>> iceberg) {
    auto importer = std::make_shared<std::unique_ptr<arrow::StreamImporter>>(ImportCapsule(capsule));
    return CreateFrom(path, rows_per_file, iceberg, [&]() -> Result<std::unique_ptr<table::BatchSource>> {
      return table::ArrowBatchSource(std::move(*importer));
    });
  }

  // Create from rows held in Python (BatchFromColumns' list).
  static PyTable CreateFromColumns(const std::string& path, const py::list& columns, std::optional<uint64_t> rows_per_file,
                                   std::optional<std::pair<std::string, int>> iceberg) {
    Batch rows = Check(BatchFromColumns(columns));
    return CreateFrom(path, rows_per_file, iceberg, [&]() -> Result<std::unique_ptr<table::BatchSource>> {
      return table::MemorySource(rows.schema(), {rows});
    });
  }

  // As `lakeindex create` (ops::Create) from the rows `open` gives, without the GIL.
  static PyTable CreateFrom(const std::string& path, std::optional<uint64_t> rows_per_file,
                            const std::optional<std::pair<std::string, int>>& iceberg,  // (location, format)
                            const std::function<Result<std::unique_ptr<table::BatchSource>>()>& open) {
    PyTable out(path);
    std::vector<csv::CsvNote> notes;
    Check(Unlocked([&]() -> Status {
      ASSIGN_OR_RETURN(auto src, open());
      notes = src->notes();
      table::WriteConfig config = Config(rows_per_file);
      if (iceberg) {
        config.iceberg_location = iceberg->first;
        config.iceberg_format = iceberg->second;
      }
      ASSIGN_OR_RETURN(out.table_, ops::CreateAt(path, src.get(), config, &out.store_));
      return Status::OK();
    }));
    // What inference did that may surprise (the command line prints these as notes), as warnings.
    for (const csv::CsvNote& note : notes) {
      const std::string route = !note.reads_them.date_format.empty()
                                    ? "dateformat='" + note.reads_them.date_format + "' reads them as dates"
                                    : std::string("thousands='") + note.reads_them.thousands + "' reads them as numbers";
      const std::string text = note.message + "; " + route + " (or declare the column's type with schema=)";
      if (PyErr_WarnEx(PyExc_UserWarning, text.c_str(), 1) != 0) throw py::error_already_set();
    }
    return out;
  }

  // Append the rows of an Arrow stream: read whole first (an append that starts over reads its
  // rows again), then as AppendColumns.
  void AppendArrow(const py::object& capsule, std::optional<uint64_t> rows_per_file) {
    std::unique_ptr<arrow::StreamImporter> importer = ImportCapsule(capsule);
    Batch rows = Check(Unlocked([&] { return Drain(importer->schema(), [&](Batch* b) { return importer->Next(b); }); }));
    AppendRows(std::move(rows), rows_per_file);
  }

  // Append rows held in Python: the table's visible columns by name (int32 and float widen).
  void AppendColumns(const py::list& columns, std::optional<uint64_t> rows_per_file) {
    AppendRows(Check(BatchFromColumns(columns)), rows_per_file);
  }

  // As `lakeindex append` of rows in memory, conformed to the table's columns by name.
  void AppendRows(Batch rows, std::optional<uint64_t> rows_per_file) {
    Check(Unlocked([&]() -> Status {
      auto open = [&](const Schema& wanted) -> Result<std::unique_ptr<table::BatchSource>> {
        ASSIGN_OR_RETURN(Batch conformed, ConformBatch(rows, wanted));
        return table::MemorySource(wanted, {std::move(conformed)});
      };
      return ops::Append(table_.get(), open, Config(rows_per_file)).status();
    }));
  }

  static PyTable Open(const std::string& path, std::optional<uint64_t> version) {
    PyTable out(path);
    out.table_ = Check(Unlocked([&] { return OpenAt(path, version, &out.store_); }));
    return out;
  }

  // As `lakeindex append` (ops::Append): rows, OTree blocks and index segments in one commit.
  void Append(const std::string& source, std::optional<uint64_t> rows_per_file, const py::dict& csv,
              std::optional<uint64_t> memory_limit) {
    const csv::Dialect dialect = DialectFrom(csv);
    Check(Unlocked([&]() -> Status {
      auto open = [&](const Schema& columns) { return table::OpenLocalFileSource(source, columns, dialect); };
      table::WriteConfig config = Config(rows_per_file);
      config.memory_limit = memory_limit.value_or(0);
      return ops::Append(table_.get(), open, config).status();
    }));
  }

  uint64_t Delete(const std::string& where) {
    return Check(Unlocked([&] { return ops::Delete(table_.get(), where); }));
  }

  // As `lakeindex optimize` (ops::Optimize): the rewritten files and their index segments in one
  // commit. Returns the files rewritten (0: nothing to do, no new version).
  size_t Optimize(std::optional<uint64_t> rows_per_file, std::optional<uint64_t> memory_limit) {
    table::WriteConfig config = Config(rows_per_file);
    config.memory_limit = memory_limit.value_or(0);
    return Check(Unlocked([&] { return ops::Optimize(table_.get(), config); })).rewritten;
  }

  void CreateIndex(const std::string& column, const std::string& kind, const std::string& name,
                   const std::string& params) {
    Check(Unlocked([&] { return ops::CreateIndex(table_.get(), IndexOptionsFrom(column, kind, name, params)); }));
  }

  // As `lakeindex layout --otree` (ops::Layout): the rewritten rows and their index segments in one commit.
  py::dict LayoutOTree(const py::dict& options) {
    layout::LayoutOptions o = LayoutOptionsFrom(options);
    ops::LayoutResult result = Check(Unlocked([&] { return ops::Layout(table_.get(), o); }));
    py::dict d = ReportToPy(result.report);
    d["bytes_before"] = result.bytes_before;  // the Python side warns of growth (kLayoutGrowthToTell)
    d["bytes_after"] = result.bytes_after;
    return d;
  }

  // `verify(repair=True)`'s repair (ops::RepairIceberg): {"written": [files], "left": [files]}.
  py::dict RepairIceberg() {
    table::iceberg::Rewritten r = Check(Unlocked([&] { return ops::RepairIceberg(*table_); }));
    py::dict d;
    d["written"] = r.written;
    d["left"] = r.left;
    return d;
  }

  // As `lakeindex vacuum` (ops::Vacuum): {"expired": [versions], "removed": [paths], "warnings": [text]}.
  py::dict Vacuum(double older_than_hours, bool force, std::optional<uint64_t> keep_versions) {
    ops::VacuumOptions options;
    options.older_than_hours = older_than_hours;
    options.force = force;
    options.keep_versions = keep_versions;
    ops::VacuumResult r = Check(Unlocked([&] { return ops::Vacuum(table_.get(), options); }));
    py::dict d;
    d["expired"] = r.expired;
    d["removed"] = r.removed;
    d["warnings"] = r.warnings;
    return d;
  }

  // As `lakeindex verify` (ops::Verify): one line per file checked; Corruption naming the damaged.
  std::vector<std::string> Verify() {
    return Check(Unlocked([&] { return ops::Verify(*table_); }));
  }

  // As `lakeindex index list`: one dict per index.
  py::list IndexList() {
    const table::Manifest& m = table_->manifest();
    std::vector<index::IndexMeta> indexes = Check(index::ReadIndexes(m));
    py::module_ json = py::module_::import("json");
    py::list out;
    for (const auto& meta : indexes) {
      const size_t covered = meta.CoveredFragments(m).size();
      py::dict d;
      d["name"] = meta.name;
      d["column"] = meta.column;
      d["kind"] = meta.type;
      d["segments"] = meta.segments.size();
      d["covered_fragments"] = covered;
      d["uncovered_fragments"] = m.fragments.size() - covered;
      d["params"] = json.attr("loads")(meta.params.dump());
      out.append(d);
    }
    return out;
  }

  // As `lakeindex index drop` / `index update` (ops::DropIndex / ops::UpdateIndexes).
  void DropIndex(const std::string& name) {
    Check(Unlocked([&] { return ops::DropIndex(table_.get(), name); }));
  }
  size_t UpdateIndex(const std::string& name, bool merge) {
    query::UpdateOptions options;
    options.merge = merge;
    return Check(Unlocked([&] { return ops::UpdateIndexes(table_.get(), name, options); }));
  }

  // As `lakeindex recover --accept-lost-version`: the newest version left.
  static uint64_t Recover(const std::string& path, uint64_t lost) {
    return Check(Unlocked([&]() -> Result<uint64_t> {
      ASSIGN_OR_RETURN(auto store, table::OpenTableStore(path, false));
      return table::Table::AcceptLostVersions(store.get(), lost);
    }));
  }

  const Schema& manifest_schema() const { return table_->manifest().schema; }
  // Live rows of this version (from the manifest: nothing is read).
  uint64_t LiveRows() const { return table_->manifest().total_rows(); }

  // (column names, column arrays) of SELECT select WHERE where [sample] [LIMIT limit OFFSET offset].
  py::tuple Query(const std::string& where, const std::vector<std::string>& select, std::optional<double> sample,
                  std::optional<uint64_t> limit, const std::string& order_by, uint64_t offset) {
    Batch all = Check(Unlocked([&]() -> Result<Batch> {
      ASSIGN_OR_RETURN(std::unique_ptr<ops::RowStream> rows,
                       ops::Read(*table_, {where, select, sample, limit, order_by, offset}));
      return Drain(rows->schema(), [&](Batch* b) { return rows->Next(b); });
    }));
    return NamesAndColumns(all);
  }

  // The rows Query returns, as an Arrow stream read as it is consumed (an ordered query's rows
  // are sorted first, then streamed).
  PyArrowStream ArrowQuery(const std::string& where, const std::vector<std::string>& select, std::optional<double> sample,
                           std::optional<uint64_t> limit, const std::string& order_by, uint64_t offset) {
    std::shared_ptr<PyScan> scan = Read({where, select, sample, limit, order_by, offset});
    return PyArrowStream(scan->schema(), [scan](Batch* out) { return scan->NextBatch(out); });
  }

  // A scan of the current version, batch by batch (PyScan).
  std::shared_ptr<PyScan> Scan(const std::string& where, const std::vector<std::string>& select, std::optional<double> sample,
                               std::optional<uint64_t> limit) {
    return Read({where, select, sample, limit, ""});
  }

  // A read of the current version that goes on reading it whatever this Table commits meanwhile
  // (a view of the version; the filter planned through this Table, whose indexes stay shared).
  std::shared_ptr<PyScan> Read(const ops::ReadRequest& request) {
    ops::PlannedFilter planned = Check(Unlocked([&] { return ops::PlanFilter(*table_, request.where, request.order_by); }));
    return std::make_shared<PyScan>(table::Table::View(table_->shared_store(), table_->manifest()), request, planned);
  }

  // (column names, column arrays, details) of SELECT group_by, aggregates WHERE where GROUP BY
  // group_by; estimated from the OTree sample with `sample` or `error` (details: a dict of the
  // fraction, rounds, rows aggregated and read, confidence and widest relative interval).
  py::tuple Aggregate(const std::string& aggregates, const std::string& where, const std::vector<std::string>& group_by,
                      std::optional<uint64_t> limit, std::optional<double> sample, std::optional<double> error,
                      double confidence, const std::string& order_by, bool arrow, uint64_t offset) {
    query::AggregateResult result = Check(Unlocked([&]() -> Result<query::AggregateResult> {
      query::AggregateRequest request;
      request.where = where;
      request.aggregates = aggregates;
      request.group_by = group_by;
      request.limit = limit;
      request.sample = sample;
      request.error = error;
      request.confidence = confidence;
      request.cache_pages = true;  // a Table lives on: the next aggregate of these columns decodes nothing
      request.order_by = order_by;
      request.offset = offset;
      return ops::Aggregate(*table_, std::move(request));
    }));
    py::dict details;
    details["estimated"] = result.estimated;
    details["fraction"] = result.fraction;
    details["rounds"] = result.rounds;
    details["confidence"] = result.confidence;
    details["max_relative_half_width"] = result.max_relative_half_width;
    details["rows_aggregated"] = result.rows_aggregated;
    details["rows_read"] = result.rows_read;
    if (arrow) {
      std::vector<std::string> names;
      for (const Field& f : result.rows.schema().fields()) names.push_back(f.name);
      return py::make_tuple(names, PyArrowStream::OneBatch(std::move(result.rows)), details);
    }
    py::tuple names_columns = NamesAndColumns(result.rows);
    // The schema (pandas dtypes follow it) and a maker of Arrow streams of the rows (the result
    // is an Arrow source as often as it is asked).
    auto rows = std::make_shared<const Batch>(std::move(result.rows));
    py::cpp_function arrow_rows([rows] { return PyArrowStream::OneBatch(*rows); });
    return py::make_tuple(names_columns[0], names_columns[1], details, rows->schema().ToString(), arrow_rows);
  }

  // COUNT(*) WHERE where: from the index and deletion vectors where an exact index answers.
  uint64_t Count(const std::string& where) {
    return Check(Unlocked([&] { return ops::Count(*table_, where); }));
  }

  // The plan and counters of `lakeindex explain --json` (analyze: run the query and count).
  py::dict Explain(const std::string& where, std::optional<double> sample, bool analyze) {
    nlohmann::json j = Check(Unlocked([&]() -> Result<nlohmann::json> {
      store_->counters().Reset();
      ASSIGN_OR_RETURN(auto scanner, ops::Explain(*table_, {where, {}, sample, std::nullopt, ""}, analyze));
      return query::ExplainJson(*scanner, table_->version(), analyze, store_->counters());
    }));
    return JsonToPy(j);
  }

  py::list Versions() {
    auto versions = Check(Unlocked([&] { return table_->Versions(); }));
    py::list out;
    for (const auto& v : versions) out.append(VersionToPy(v));
    return out;
  }

  // The live data files of this version (table::Table::Files), as Python objects.
  // As `lakeindex iceberg enable`: the newest version's Iceberg metadata file.
  std::string EnableIceberg(std::optional<std::string> location, std::optional<int> format) {
    table::IcebergEnabled enabled =
        Check(Unlocked([&] {
          return ops::EnableIceberg(table_.get(), location ? *location : table::TableLocationUri(path_),
                                    location.has_value(), {}, format);
        }));
    if (!enabled.unwritten.ok()) {
      const int warned = PyErr_WarnEx(PyExc_RuntimeWarning,
                   ("version " + std::to_string(table_->version()) + " is committed, but writing " + enabled.metadata +
                    " failed (" + enabled.unwritten.ToString() + "): calling enable_iceberg again writes it")
                       .c_str(),
                   1);
      if (warned < 0) throw py::error_already_set();  // warnings made errors
    }
    return enabled.metadata;
  }

  py::object Files() {
    auto files = Check(Unlocked([&] { return table_->Files(path_); }));
    return py::module_::import("json").attr("loads")(files.dump());
  }

  // Size, per-column statistics, indexes and layout of this version.
  py::dict Stats() {
    const table::Manifest& m = table_->manifest();
    ops::TableStats stats = ops::Stats(*table_);
    py::dict d;
    d["version"] = m.version;
    d["schema"] = m.schema.ToString();
    d["fragments"] = stats.fragments;
    d["rows"] = stats.rows;
    d["deleted_rows"] = stats.deleted_rows;
    d["data_bytes"] = stats.data_bytes;
    py::dict columns;
    for (const Field& field : m.schema.fields()) {
      py::dict c = StatsToPy(stats.columns[field.name]);
      c["type"] = TypeName(field.type);
      columns[py::str(field.name)] = c;
    }
    d["columns"] = columns;
    d["indexes"] = JsonToPy(m.indexes);
    d["layout"] = m.layout.is_null() ? py::object(py::none()) : JsonToPy(m.layout);
    return d;
  }

  py::dict Prewarm(const std::vector<std::string>& columns, bool data, bool indexes, std::optional<uint64_t> max_bytes,
                   std::optional<uint64_t> cache_capacity) {
    ops::PrewarmRequest request{columns, data, indexes, max_bytes, cache_capacity};
    const ops::PrewarmReport r = Check(Unlocked([&] { return ops::Prewarm(*table_, request); }));
    py::dict d;
    d["data_bytes"] = r.data_bytes;
    d["data_pages"] = r.data_pages;
    d["index_bytes"] = r.index_bytes;
    d["index_pages"] = r.index_pages;
    d["complete"] = r.complete;
    d["cache_bytes"] = r.cache_bytes;
    d["cache_capacity"] = r.cache_capacity;
    return d;
  }

  uint64_t version() const { return table_->version(); }
  std::string schema() const { return table_->schema().ToString(); }
  const std::string& path() const { return path_; }

 private:
  explicit PyTable(std::string path) : path_(std::move(path)) {}

  std::string path_;
  std::shared_ptr<InstrumentedStore> store_;
  std::unique_ptr<table::Table> table_;
};

// ---- the steps of distributed builds (lakeindex.dask): plain values in and out ----------------

py::list Fragments(const std::string& path, uint64_t version) {
  auto t = Check(Unlocked([&] { return OpenAt(path, version); }));
  py::list out;
  for (const auto& f : t->manifest().fragments) out.append(py::make_tuple(f.id, f.live_rows()));
  return out;
}

// The index's name; raises the errors CreateIndex would (unknown column, name in use, ...).
std::string IndexPlan(const std::string& path, uint64_t version, const std::string& column, const std::string& kind,
                      const std::string& name, const std::string& params) {
  return Check(Unlocked([&]() -> Result<std::string> {
    ASSIGN_OR_RETURN(auto t, OpenAt(path, version));
    ASSIGN_OR_RETURN(index::IndexMeta meta, query::PlanIndex(*t, IndexOptionsFrom(column, kind, name, params)));
    return meta.name;
  }));
}

// What a Dask worker wrote through `t`, recorded by the driver's commit (AdoptChecksums), so that
// its files carry checksums as a single process's do.
Status AdoptChecksums(const table::Table& t, const std::map<std::string, uint64_t>& checksums) {
  auto* store = dynamic_cast<InstrumentedStore*>(t.store());
  if (store == nullptr) return Status::Internal("a table's store is not instrumented: checksums cannot be kept");
  store->AdoptWrittenChecksums(checksums);
  return Status::OK();
}

py::dict IndexBuildSegment(const std::string& path, uint64_t version, const std::string& column, const std::string& kind,
                           const std::string& name, const std::string& params,
                           const std::vector<uint32_t>& fragments) {
  std::map<std::string, uint64_t> checksums;
  index::SegmentMeta seg = Check(Unlocked([&]() -> Result<index::SegmentMeta> {
    ASSIGN_OR_RETURN(auto t, OpenAt(path, version));
    ASSIGN_OR_RETURN(index::IndexMeta meta, query::PlanIndex(*t, IndexOptionsFrom(column, kind, name, params)));
    ASSIGN_OR_RETURN(index::SegmentMeta built, query::BuildIndexSegment(*t, meta, fragments));
    checksums = t->store()->WrittenChecksums();
    return built;
  }));
  py::dict d;
  d["checksums"] = checksums;
  d["uuid"] = seg.uuid;
  d["fragments"] = std::vector<uint32_t>(seg.fragments.begin(), seg.fragments.end());
  d["built_at_version"] = seg.built_at_version;
  d["rows"] = seg.rows;
  return d;
}

uint64_t IndexCommit(const std::string& path, uint64_t version, const std::string& column, const std::string& kind,
                     const std::string& name, const std::string& params, const py::list& segments) {
  std::vector<index::SegmentMeta> segs;
  std::map<std::string, uint64_t> checksums;  // of the segments' files, as the workers wrote them
  for (const py::handle& s : segments) {
    py::dict d = py::reinterpret_borrow<py::dict>(s);
    if (d.contains("checksums")) {
      for (const auto& [file, sum] : d["checksums"].cast<std::map<std::string, uint64_t>>()) checksums[file] = sum;
    }
    index::SegmentMeta seg;
    seg.uuid = d["uuid"].cast<std::string>();
    for (uint32_t f : d["fragments"].cast<std::vector<uint32_t>>()) seg.fragments.insert(f);
    seg.built_at_version = d["built_at_version"].cast<uint64_t>();
    seg.rows = d["rows"].cast<uint64_t>();
    segs.push_back(std::move(seg));
  }
  return Check(Unlocked([&]() -> Result<uint64_t> {
    ASSIGN_OR_RETURN(auto t, OpenAt(path, version));
    RETURN_IF_ERROR(AdoptChecksums(*t, checksums));
    ASSIGN_OR_RETURN(index::IndexMeta meta, query::PlanIndex(*t, IndexOptionsFrom(column, kind, name, params)));
    meta.segments = std::move(segs);
    RETURN_IF_ERROR(query::CommitIndex(t.get(), std::move(meta)));
    return t->version();
  }));
}

layout::LayoutPartition PartFrom(const py::tuple& part) {
  return layout::LayoutPartition{part[0].cast<std::vector<uint32_t>>(), part[1].cast<uint64_t>()};
}

py::list LayoutPartitions(const std::string& path, uint64_t version, size_t parts) {
  auto t = Check(Unlocked([&] { return OpenAt(path, version); }));
  py::list out;
  for (const auto& p : layout::PartitionFragments(*t, parts)) out.append(py::make_tuple(p.fragments, p.first_row));
  return out;
}

// Bytes the single-process layout of the version would hold (layout::EstimateLayoutMemory).
uint64_t LayoutEstimate(const std::string& path, uint64_t version, const py::dict& options) {
  layout::LayoutOptions o = LayoutOptionsFrom(options);
  return Check(Unlocked([&]() -> Result<uint64_t> {
    ASSIGN_OR_RETURN(auto t, OpenAt(path, version));
    return layout::EstimateLayoutMemory(*t, o);
  }));
}

// A part's layout columns (layout::ReadLayoutColumns) as bytes a worker keeps between the steps.
py::bytes LayoutRead(const std::string& path, uint64_t version, const py::dict& options, const py::tuple& part) {
  layout::LayoutOptions o = LayoutOptionsFrom(options);
  layout::LayoutPartition p = PartFrom(part);
  return py::bytes(Check(Unlocked([&]() -> Result<std::string> {
    ASSIGN_OR_RETURN(auto t, OpenAt(path, version));
    ASSIGN_OR_RETURN(Batch read, layout::ReadLayoutColumns(*t, o, p));
    return layout::EncodeLayoutColumns(read);
  })));
}

// LayoutRead's bytes decoded, or none (the table is read instead).
Result<std::optional<Batch>> ReadFrom(const std::optional<std::string>& read) {
  if (!read) return std::optional<Batch>();
  ASSIGN_OR_RETURN(Batch columns, layout::DecodeLayoutColumns(*read));
  return std::optional<Batch>(std::move(columns));
}

// Per layout column: (stats dict, list of sampled values).
py::list LayoutSample(const std::string& path, uint64_t version, const py::dict& options, const py::tuple& part,
                      const std::optional<std::string>& read) {
  layout::LayoutOptions o = LayoutOptionsFrom(options);
  layout::LayoutPartition p = PartFrom(part);
  auto samples = Check(Unlocked([&]() -> Result<std::vector<layout::ColumnSample>> {
    ASSIGN_OR_RETURN(auto t, OpenAt(path, version));
    ASSIGN_OR_RETURN(const std::optional<Batch> columns, ReadFrom(read));
    return layout::SampleLayoutColumns(*t, o, p, columns ? &*columns : nullptr);
  }));
  py::list out;
  for (const auto& s : samples) {
    py::list values;
    for (const Value& v : s.sample) values.append(ValueToPy(v));
    out.append(py::make_tuple(StatsToPy(s.stats), values));
  }
  return out;
}

// The revision (id 1, fitted transformations, an empty tree) as JSON text.
std::string LayoutFit(const std::string& path, uint64_t version, const py::dict& options, const py::list& parts) {
  layout::LayoutOptions o = LayoutOptionsFrom(options);
  auto t = Check(Unlocked([&] { return OpenAt(path, version); }));
  std::vector<std::vector<layout::ColumnSample>> samples;
  for (const py::handle& part : parts) {
    std::vector<layout::ColumnSample> columns;
    size_t d = 0;
    for (const py::handle& column : part) {
      if (d >= o.columns.size()) Raise(Status::InvalidArgument("layout sample: more columns than the layout has"));
      int c = t->schema().FindField(o.columns[d++]);
      if (c < 0) Raise(Status::InvalidArgument("layout sample: unknown column"));
      const TypeId type = t->schema().field(size_t(c)).type;
      layout::ColumnSample s;
      py::tuple pair = py::reinterpret_borrow<py::tuple>(column);
      s.stats = StatsFromPy(pair[0], type);
      for (const py::handle& v : pair[1]) s.sample.push_back(ValueFromPy(v, type));
      columns.push_back(std::move(s));
    }
    samples.push_back(std::move(columns));
  }
  return Check(Unlocked([&]() -> Result<std::string> {
    layout::Revision rev;
    rev.id = 1;
    ASSIGN_OR_RETURN(rev.transforms, layout::FitPartitionedTransforms(*t, o, samples));
    rev.tree = layout::otree::Tree(int(o.columns.size()), o.cube_rows);
    return layout::RevisionToJson(rev);
  }));
}

// (coords: list of uint32 arrays, weights: float64 array) of a part's rows.
py::tuple LayoutPoints(const std::string& path, uint64_t version, const py::dict& options, const py::tuple& part,
                       const std::string& revision, const std::optional<std::string>& read) {
  layout::LayoutOptions o = LayoutOptionsFrom(options);
  layout::LayoutPartition p = PartFrom(part);
  layout::PartitionPoints points = Check(Unlocked([&]() -> Result<layout::PartitionPoints> {
    ASSIGN_OR_RETURN(auto t, OpenAt(path, version));
    ASSIGN_OR_RETURN(layout::Revision rev, layout::RevisionFromJson(revision, *t, o));
    ASSIGN_OR_RETURN(const std::optional<Batch> columns, ReadFrom(read));
    return layout::ComputePartitionPoints(*t, o, p, rev.transforms, columns ? &*columns : nullptr);
  }));
  py::list coords;
  for (const auto& c : points.coords) coords.append(py::array_t<uint32_t>(py::ssize_t(c.size()), c.data()));
  return py::make_tuple(coords, py::array_t<double>(py::ssize_t(points.weights.size()), points.weights.data()));
}

// [(cube id text, rows, lightest weights array)] of the cubes at `depth` the part's rows reach.
py::list LayoutLevel(const py::list& coords, const py::array_t<double, py::array::c_style | py::array::forcecast>& weights,
                     const std::string& tree_json, int depth) {
  layout::PartitionPoints points;
  for (const py::handle& c : coords) {
    auto a = py::array_t<uint32_t, py::array::c_style | py::array::forcecast>::ensure(c);
    points.coords.emplace_back(a.data(), a.data() + a.size());
  }
  points.weights.assign(weights.data(), weights.data() + weights.size());
  for (const auto& c : points.coords) {
    if (c.size() != points.weights.size()) Raise(Status::InvalidArgument("layout level: coordinates and weights differ in length"));
  }
  auto tree = Check(layout::otree::Tree::FromJson(nlohmann::json::parse(tree_json, nullptr, false)));
  if (tree.dims() != int(points.coords.size())) Raise(Status::InvalidArgument("layout level: the tree has other dimensions"));
  auto level = Unlocked([&] { return layout::LevelWeights(points, tree, depth); });
  py::list out;
  for (const auto& cw : level) {
    out.append(py::make_tuple(cw.id.ToString(tree.dims()), cw.rows,
                              py::array_t<double>(py::ssize_t(cw.lightest.size()), cw.lightest.data())));
  }
  return out;
}

class PyTreeBuilder {
 public:
  PyTreeBuilder(int dims, uint64_t cube_rows) : builder_(dims, cube_rows), dims_(dims) {}
  bool done() const { return builder_.done(); }
  int depth() const { return builder_.depth(); }
  std::string tree_json() const { return builder_.tree().ToJson().dump(); }
  void AddLevel(const py::list& parts) {
    std::vector<std::vector<layout::CubeWeights>> levels;
    for (const py::handle& part : parts) {
      std::vector<layout::CubeWeights> level;
      for (const py::handle& item : part) {
        py::tuple t = py::reinterpret_borrow<py::tuple>(item);
        layout::CubeWeights cw;
        cw.id = Check(layout::otree::CubeId::Parse(t[0].cast<std::string>(), dims_));
        cw.rows = t[1].cast<uint64_t>();
        auto w = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(t[2]);
        cw.lightest.assign(w.data(), w.data() + w.size());
        level.push_back(std::move(cw));
      }
      levels.push_back(std::move(level));
    }
    Check(Unlocked([&] { return builder_.AddLevel(levels); }));
  }

 private:
  layout::PartitionedTreeBuilder builder_;
  int dims_;
};

// The revision of `revision_json` with the tree `tree_json`, as JSON text.
std::string LayoutRevision(const std::string& revision_json, const std::string& tree_json) {
  nlohmann::json rev = nlohmann::json::parse(revision_json, nullptr, false);
  nlohmann::json tree = nlohmann::json::parse(tree_json, nullptr, false);
  if (!rev.is_object() || tree.is_discarded()) Raise(Status::InvalidArgument("layout revision: malformed JSON"));
  rev["tree"] = tree;
  return rev.dump();
}

// (the part's files as WriteLayoutPartition describes them, the checksums of every file written)
py::tuple LayoutWrite(const std::string& path, uint64_t version, const py::dict& options, const py::tuple& part,
                      const std::string& revision) {
  layout::LayoutOptions o = LayoutOptionsFrom(options);
  layout::LayoutPartition p = PartFrom(part);
  std::map<std::string, uint64_t> checksums;
  std::string text = Check(Unlocked([&]() -> Result<std::string> {
    ASSIGN_OR_RETURN(auto t, OpenAt(path, version));
    ASSIGN_OR_RETURN(layout::Revision rev, layout::RevisionFromJson(revision, *t, o));
    table::ChooseEncodings(t->manifest(), &o.write);  // as ops does for the single-process layout
    ASSIGN_OR_RETURN(std::string written, layout::WriteLayoutPartition(*t, o, p, rev));
    checksums = t->store()->WrittenChecksums();
    return written;
  }));
  return py::make_tuple(py::bytes(text), checksums);
}

py::dict LayoutCommit(const std::string& path, uint64_t version, const py::dict& options, const std::string& revision,
                      const py::list& written) {
  layout::LayoutOptions o = LayoutOptionsFrom(options);
  std::vector<std::string> parts;
  std::map<std::string, uint64_t> checksums;  // of the files the workers wrote
  for (const py::handle& w : written) {
    py::tuple written_part = py::reinterpret_borrow<py::tuple>(w);
    parts.push_back(written_part[0].cast<std::string>());
    for (const auto& [file, sum] : written_part[1].cast<std::map<std::string, uint64_t>>()) checksums[file] = sum;
  }
  layout::LayoutReport report = Check(Unlocked([&]() -> Result<layout::LayoutReport> {
    ASSIGN_OR_RETURN(auto t, OpenAt(path, version));
    RETURN_IF_ERROR(AdoptChecksums(*t, checksums));
    ASSIGN_OR_RETURN(layout::Revision rev, layout::RevisionFromJson(revision, *t, o));
    ASSIGN_OR_RETURN(ops::LayoutResult r, ops::CommitPartitionedLayout(t.get(), o, std::move(rev), parts));  // as `lakeindex layout`
    return r.report;
  }));
  return ReportToPy(report);
}

}  // namespace
}  // namespace lakeindex::python

PYBIND11_MODULE(_lakeindex, m) {
  using namespace lakeindex::python;  // NOLINT: the module's own definitions
  m.doc() = "lakeindex native module (see the lakeindex package)";
  m.attr("__version__") = LAKEINDEX_VERSION;  // the CMake project's version, also the wheel's
  RegisterErrors(m);
  py::class_<PyArrowStream>(m, "ArrowStream")
      .def("__arrow_c_stream__", &PyArrowStream::Stream, py::arg("requested_schema") = py::none())
      .def("__arrow_c_schema__", &PyArrowStream::SchemaCapsule)
      .def_property_readonly("names", &PyArrowStream::Names);
  py::class_<PyScan, std::shared_ptr<PyScan>>(m, "Scan")
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__", &PyScan::Next);
  py::class_<PyTable>(m, "Table")
      .def_static("create", &PyTable::Create, py::arg("path"), py::arg("source"), py::arg("rows_per_file") = py::none(),
                  py::arg("schema") = py::none(), py::arg("iceberg") = py::none(), py::arg("csv") = py::dict())
      .def("enable_iceberg", &PyTable::EnableIceberg, py::arg("location") = py::none(), py::arg("format") = py::none())
      .def_static("create_from_columns", &PyTable::CreateFromColumns, py::arg("path"), py::arg("columns"),
                  py::arg("rows_per_file") = py::none(), py::arg("iceberg") = py::none())
      .def("scan", &PyTable::Scan, py::arg("where"), py::arg("select"), py::arg("sample"), py::arg("limit"))
      .def("append_columns", &PyTable::AppendColumns, py::arg("columns"), py::arg("rows_per_file") = py::none())
      .def_static("create_from_arrow", &PyTable::CreateFromArrow, py::arg("path"), py::arg("capsule"),
                  py::arg("rows_per_file") = py::none(), py::arg("iceberg") = py::none())
      .def("append_arrow", &PyTable::AppendArrow, py::arg("capsule"), py::arg("rows_per_file") = py::none())
      .def_static("open", &PyTable::Open, py::arg("path"), py::arg("version") = py::none())
      .def("append", &PyTable::Append, py::arg("source"), py::arg("rows_per_file") = py::none(),
           py::arg("csv") = py::dict(), py::arg("memory_limit") = py::none())
      .def("delete", &PyTable::Delete, py::arg("where"))
      .def("optimize", &PyTable::Optimize, py::arg("rows_per_file") = py::none(), py::arg("memory_limit") = py::none())
      .def("create_index", &PyTable::CreateIndex, py::arg("column"), py::arg("kind"), py::arg("name") = "",
           py::arg("params") = "{}")
      .def("layout_otree", &PyTable::LayoutOTree, py::arg("options"))
      .def("vacuum", &PyTable::Vacuum, py::arg("older_than_hours"), py::arg("force"), py::arg("keep_versions"))
      .def("verify", &PyTable::Verify)
      .def("repair_iceberg", &PyTable::RepairIceberg)
      .def("indexes", &PyTable::IndexList)
      .def("drop_index", &PyTable::DropIndex, py::arg("name"))
      .def("update_index", &PyTable::UpdateIndex, py::arg("name"), py::arg("merge"))
      .def_static("recover", &PyTable::Recover, py::arg("path"), py::arg("lost"))
      .def_property_readonly("live_rows", &PyTable::LiveRows)
      .def("query", &PyTable::Query, py::arg("where"), py::arg("select"), py::arg("sample"), py::arg("limit"),
           py::arg("order_by"), py::arg("offset") = 0)
      .def("arrow_query", &PyTable::ArrowQuery, py::arg("where"), py::arg("select"), py::arg("sample"), py::arg("limit"),
           py::arg("order_by"), py::arg("offset") = 0)
      .def("count", &PyTable::Count, py::arg("where"))
      .def("aggregate", &PyTable::Aggregate, py::arg("aggregates"), py::arg("where"), py::arg("group_by"), py::arg("limit"),
           py::arg("sample"), py::arg("error"), py::arg("confidence"), py::arg("order_by"), py::arg("arrow") = false,
           py::arg("offset") = 0)
      .def("arrow_schema", [](const PyTable& t) { return PyArrowStream(t.manifest_schema(), nullptr).SchemaCapsule(); })
      .def("explain", &PyTable::Explain, py::arg("where"), py::arg("sample"), py::arg("analyze"))
      .def("versions", &PyTable::Versions)
      .def("stats", &PyTable::Stats)
      .def("prewarm", &PyTable::Prewarm, py::arg("columns"), py::arg("data"), py::arg("indexes"), py::arg("max_bytes"),
           py::arg("cache_capacity"))
      .def("files", &PyTable::Files)
      .def_property_readonly("version", &PyTable::version)
      .def_property_readonly("schema", &PyTable::schema)
      .def_property_readonly("path", &PyTable::path);
  m.def("location_uri", &lakeindex::table::TableLocationUri, py::arg("path"));
  m.def("fragments", &Fragments);
  m.def("index_plan", &IndexPlan);
  m.def("index_kinds", [] {
    py::list out;
    for (const lakeindex::index::IndexKind* kind : lakeindex::index::IndexKinds()) {
      out.append(py::make_tuple(std::string(kind->name()), std::string(kind->summary())));
    }
    return out;
  });
  m.def("index_build_segment", &IndexBuildSegment);
  m.def("index_commit", &IndexCommit);
  m.attr("LAYOUT_GROWTH_TO_TELL") = lakeindex::ops::kLayoutGrowthToTell;
  m.def("layout_partitions", &LayoutPartitions);
  m.def("layout_estimate", &LayoutEstimate);
  m.def("layout_read", &LayoutRead);
  m.def("layout_sample", &LayoutSample, py::arg("path"), py::arg("version"), py::arg("options"), py::arg("part"),
        py::arg("read") = py::none());
  m.def("layout_fit", &LayoutFit);
  m.def("default_row_groups", [](const std::string& path, uint64_t version) {
    auto t = Check(Unlocked([&] { return OpenAt(path, version); }));
    return lakeindex::layout::DefaultRowGroups("otree", t->manifest());
  });
  m.def("layout_points", &LayoutPoints, py::arg("path"), py::arg("version"), py::arg("options"), py::arg("part"),
        py::arg("revision"), py::arg("read") = py::none());
  m.def("layout_level", &LayoutLevel);
  m.def("layout_revision", &LayoutRevision);
  m.def("layout_write", &LayoutWrite);
  m.def("layout_commit", &LayoutCommit);
  py::class_<PyTreeBuilder>(m, "TreeBuilder")
      .def(py::init<int, uint64_t>())
      .def_property_readonly("done", &PyTreeBuilder::done)
      .def_property_readonly("depth", &PyTreeBuilder::depth)
      .def("tree_json", &PyTreeBuilder::tree_json)
      .def("add_level", &PyTreeBuilder::AddLevel);
}
