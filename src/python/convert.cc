#include "python/convert.h"

#include <cstring>
#include <map>
#include <type_traits>

#include "query/lexer.h"

namespace lakeindex::python {

namespace {

std::map<StatusCode, PyObject*>& ErrorClasses() {
  static std::map<StatusCode, PyObject*> classes;
  return classes;
}
PyObject* g_error = nullptr;

// The dtype a column of `type` comes back as, made once: building a dtype from its name costs
// more than a point lookup's copy of its values. Leaked, as the module's objects are (no
// destructor runs after the interpreter is gone).
const py::dtype& NumpyDtype(TypeId type) {
  static const auto* dtypes = [] {
    auto* m = new std::map<TypeId, py::dtype>;
    const std::pair<TypeId, const char*> names[] = {
        {TypeId::kBool, "?"},           {TypeId::kInt32, "int32"},          {TypeId::kInt64, "int64"},
        {TypeId::kFloat, "float32"},    {TypeId::kDouble, "float64"},       {TypeId::kDate, "datetime64[D]"},
        {TypeId::kTimestamp, "datetime64[us]"}, {TypeId::kTimestampTz, "datetime64[us]"},
        {TypeId::kTimestampNs, "datetime64[ns]"}};
    for (const auto& [t, name] : names) m->emplace(t, py::dtype(name));
    return m;
  }();
  return dtypes->at(type);
}

// The values of a fixed-width column as an array of `dtype`, whose items are Out (dates: int32
// days widened to datetime64[D]'s int64).
template <typename T, typename Out = T>
py::array Numbers(const Column& c, const py::dtype& dtype) {
  py::array out(dtype, std::vector<py::ssize_t>{py::ssize_t(c.length())});
  if (c.length() == 0) return out;
  if constexpr (std::is_same_v<T, Out>) {
    std::memcpy(out.mutable_data(), c.data<T>(), c.length() * sizeof(T));
  } else {
    auto* to = static_cast<Out*>(out.mutable_data());
    const T* from = c.data<T>();
    for (size_t i = 0; i < c.length(); ++i) to[i] = Out(from[i]);
  }
  return out;
}

}  // namespace

void RegisterErrors(py::module_& m) {
  g_error = PyErr_NewExceptionWithDoc("lakeindex.Error", "A lakeindex operation failed.", PyExc_RuntimeError, nullptr);
  m.attr("Error") = py::handle(g_error);
  const std::pair<StatusCode, const char*> codes[] = {
      {StatusCode::kInvalidArgument, "InvalidArgument"}, {StatusCode::kNotFound, "NotFound"},
      {StatusCode::kCorruption, "Corruption"},           {StatusCode::kIOError, "IOError"},
      {StatusCode::kNotSupported, "NotSupported"},       {StatusCode::kConflict, "Conflict"},
      {StatusCode::kInternal, "InternalError"},          {StatusCode::kOutcomeUnknown, "OutcomeUnknown"}};
  for (const auto& [code, name] : codes) {
    // Named as the package that exports them (tracebacks say lakeindex.NotFound).
    std::string qualified = std::string("lakeindex.") + name;
    // InvalidArgument is also a ValueError, NotFound a LookupError, IOError an OSError: what
    // Python code catches.
    PyObject* bases = code == StatusCode::kInvalidArgument ? PyTuple_Pack(2, g_error, PyExc_ValueError)
                      : code == StatusCode::kNotFound      ? PyTuple_Pack(2, g_error, PyExc_LookupError)
                      : code == StatusCode::kIOError       ? PyTuple_Pack(2, g_error, PyExc_OSError)
                                                           : PyTuple_Pack(1, g_error);
    PyObject* cls = PyErr_NewException(qualified.c_str(), bases, nullptr);
    Py_DECREF(bases);
    m.attr(name) = py::handle(cls);
    ErrorClasses()[code] = cls;
  }
}

void Raise(const Status& status) {
  auto it = ErrorClasses().find(status.code());
  // The parameter the error is about, by its Python keyword (the library's names are those).
  const std::string name =
      status.parameter() == "csv" ? "delimiter, quote, escape, header, null, dateformat, thousands" : status.parameter();
  std::string message = status.MessageNaming(name);
  if (query::IsBeyondSubset(status)) {
    message += "; run it in DuckDB over the rows: s = t.query(..., output=\"arrow\"); duckdb.sql(\"SELECT ... FROM s\")";
  }
  PyErr_SetString(it == ErrorClasses().end() ? g_error : it->second, message.c_str());
  throw py::error_already_set();
}

py::object ColumnToNumpy(const Column& c) {
  const size_t n = c.length();
  if (IsBytes(c.type())) {
    // Objects: str (bytes when a value is not UTF-8), bytes for binary, uuid.UUID for uuid.
    py::array out(py::dtype("O"), std::vector<py::ssize_t>{py::ssize_t(n)});
    auto* items = static_cast<PyObject**>(out.mutable_data());
    py::object uuid_class = py::none();
    if (c.type() == TypeId::kUuid) uuid_class = py::module_::import("uuid").attr("UUID");
    for (size_t i = 0; i < n; ++i) {
      py::object v = py::none();
      if (c.IsValid(i)) {
        std::string_view s = c.GetString(i);
        PyObject* text = c.type() == TypeId::kString ? PyUnicode_DecodeUTF8(s.data(), py::ssize_t(s.size()), nullptr) : nullptr;
        if (c.type() == TypeId::kUuid) {
          v = uuid_class(py::arg("bytes") = py::bytes(s.data(), s.size()));
        } else if (text == nullptr) {
          PyErr_Clear();
          v = py::bytes(s.data(), s.size());
        } else {
          v = py::reinterpret_steal<py::object>(text);
        }
      }
      Py_XDECREF(items[i]);
      items[i] = v.release().ptr();
    }
    return out;
  }
  if (IsDecimal(c.type())) {  // decimal.Decimal objects, exact (pandas' own way without pyarrow)
    py::array out(py::dtype("O"), std::vector<py::ssize_t>{py::ssize_t(n)});
    auto* items = static_cast<PyObject**>(out.mutable_data());
    const py::object decimal_class = py::module_::import("decimal").attr("Decimal");
    const int scale = DecimalScale(c.type());
    for (size_t i = 0; i < n; ++i) {
      py::object v = c.IsValid(i) ? decimal_class(FormatDecimal(c.Get<int64_t>(i), scale)) : py::none();
      Py_XDECREF(items[i]);
      items[i] = v.release().ptr();
    }
    return out;
  }
  py::array data;
  switch (c.type()) {
    case TypeId::kBool: data = Numbers<uint8_t>(c, NumpyDtype(c.type())); break;
    case TypeId::kInt32: data = Numbers<int32_t>(c, NumpyDtype(c.type())); break;
    case TypeId::kFloat: data = Numbers<float>(c, NumpyDtype(c.type())); break;
    case TypeId::kDouble: data = Numbers<double>(c, NumpyDtype(c.type())); break;
    case TypeId::kDate: data = Numbers<int32_t, int64_t>(c, NumpyDtype(c.type())); break;
    // numpy's datetime64 has no time zone: a timestamptz's values are UTC (pandas output marks them).
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs: data = Numbers<int64_t>(c, NumpyDtype(c.type())); break;
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kUuid: break;
  }
  if (c.null_count() == 0) return data;
  py::array_t<bool> mask(std::vector<py::ssize_t>{py::ssize_t(n)});
  bool* m = mask.mutable_data();
  for (size_t i = 0; i < n; ++i) m[i] = c.IsNull(i);
  static const auto* masked_array = new py::object(py::module_::import("numpy.ma").attr("masked_array"));
  return (*masked_array)(data, mask);
}

Result<Batch> BatchFromColumns(const py::list& columns) {
  std::vector<Field> fields;
  std::vector<Column> out;
  size_t rows = 0;
  for (size_t k = 0; k < columns.size(); ++k) {
    py::tuple item = columns[k].cast<py::tuple>();
    const std::string name = item[0].cast<std::string>();
    ASSIGN_OR_RETURN(TypeId type, ParseTypeName(item[1].cast<std::string>()));
    const py::object data = item[2];
    const py::object mask_object = item[3];
    const size_t n = py::len(data);
    if (k == 0) rows = n;
    if (n != rows) {
      return Status::InvalidArgument("column '" + name + "' has " + std::to_string(n) + " values, the first " +
                                     std::to_string(rows));
    }
    std::vector<uint8_t> null(n, 0);
    if (!mask_object.is_none()) {
      py::array_t<bool, py::array::c_style | py::array::forcecast> mask(mask_object);
      if (size_t(mask.size()) != n) return Status::InvalidArgument("column '" + name + "': mask of another length");
      for (size_t i = 0; i < n; ++i) null[i] = mask.data()[i] ? 1 : 0;
    }
    Column c(type);
    c.Reserve(n);
    auto fixed = [&](auto tag, const char* dtype) -> Status {
      using T = decltype(tag);
      py::array raw = py::reinterpret_borrow<py::array>(data);
      if (!raw.dtype().is(py::dtype(dtype))) {
        return Status::InvalidArgument("column '" + name + "': expected " + dtype + " values");
      }
      py::array_t<T, py::array::c_style> values(raw);
      for (size_t i = 0; i < n; ++i) {
        if (null[i]) {
          c.AppendNull();
        } else {
          c.Append<T>(values.data()[i]);
        }
      }
      return Status::OK();
    };
    if (IsDecimal(type)) {
      // decimal.Decimal, int, float or str, read from its text (str(Decimal) is exact), or None.
      size_t i = 0;
      for (py::handle v : data) {
        if (null[i] || v.is_none()) {
          c.AppendNull();
        } else {
          Result<int64_t> unscaled = ParseDecimal(py::str(v).cast<std::string>(), type);
          if (!unscaled.ok()) return unscaled.status().WithContext("column '" + name + "' row " + std::to_string(i));
          c.Append<int64_t>(*unscaled);
        }
        ++i;
      }
      fields.push_back(Field{name, type, true});
      out.push_back(std::move(c));
      continue;
    }
    switch (type) {
      case TypeId::kBool: RETURN_IF_ERROR(fixed(uint8_t{}, "?")); break;
      case TypeId::kInt32:
      case TypeId::kDate: RETURN_IF_ERROR(fixed(int32_t{}, "int32")); break;
      case TypeId::kInt64:
      case TypeId::kTimestamp:
      case TypeId::kTimestampTz:
      case TypeId::kTimestampNs: RETURN_IF_ERROR(fixed(int64_t{}, "int64")); break;
      case TypeId::kFloat: RETURN_IF_ERROR(fixed(float{}, "float32")); break;
      case TypeId::kDouble: RETURN_IF_ERROR(fixed(double{}, "float64")); break;
      case TypeId::kString:
      case TypeId::kBinary:
      case TypeId::kUuid: {
        // str, bytes (or a uuid.UUID for uuid, whose .bytes are taken) or None.
        py::object uuid_class = py::none();
        if (type == TypeId::kUuid) uuid_class = py::module_::import("uuid").attr("UUID");
        size_t i = 0;
        for (py::handle v : data) {
          const std::string row = "column '" + name + "' row " + std::to_string(i);
          if (null[i] || v.is_none()) {
            c.AppendNull();
          } else if (type == TypeId::kUuid && py::isinstance(v, uuid_class)) {
            RETURN_IF_ERROR(c.AppendString(std::string(v.attr("bytes").cast<py::bytes>())));
          } else if (type == TypeId::kUuid && py::isinstance<py::str>(v)) {
            Result<std::string> bytes = ParseUuid(v.cast<std::string>());
            if (!bytes.ok()) return bytes.status().WithContext(row);
            RETURN_IF_ERROR(c.AppendString(*bytes));
          } else if (py::isinstance<py::str>(v) || py::isinstance<py::bytes>(v)) {
            const std::string bytes = py::isinstance<py::str>(v) ? v.cast<std::string>() : std::string(v.cast<py::bytes>());
            if (type == TypeId::kUuid && bytes.size() != 16) {
              return Status::InvalidArgument(row + ": a uuid of " + std::to_string(bytes.size()) + " bytes (16 expected)");
            }
            RETURN_IF_ERROR(c.AppendString(bytes));
          } else {
            return Status::InvalidArgument(row + ": expected " + (type == TypeId::kUuid ? "uuid.UUID, " : "") +
                                           "str, bytes or None, got " + std::string(py::str(v.get_type().attr("__name__"))));
          }
          ++i;
        }
        break;
      }
    }
    fields.push_back(Field{name, type, true});
    out.push_back(std::move(c));
  }
  if (fields.empty()) return Status::InvalidArgument("no columns");
  Batch batch(Schema(std::move(fields)), std::move(out), rows);
  RETURN_IF_ERROR(batch.Seal());
  return batch;
}

Result<Batch> ConformBatch(const Batch& batch, const Schema& schema) {
  std::vector<Column> columns;
  for (const Field& f : schema.fields()) {
    const int at = batch.schema().FindField(f.name);
    if (at < 0) return Status::InvalidArgument("the rows have no column '" + f.name + "' (the table has " + schema.ToString() + ")");
    const Column& have = batch.column(size_t(at));
    if (have.type() == f.type) {
      columns.push_back(have);
      continue;
    }
    if (have.type() == TypeId::kString && (f.type == TypeId::kUuid || f.type == TypeId::kBinary)) {
      // Text into a uuid column is read as uuids (as DuckDB casts on insert); into a binary one,
      // its bytes.
      Column typed(f.type);
      for (size_t i = 0; i < have.length(); ++i) {
        if (have.IsNull(i)) {
          typed.AppendNull();
          continue;
        }
        std::string bytes(have.GetString(i));
        if (f.type == TypeId::kUuid) {
          Result<std::string> parsed = ParseUuid(bytes);
          if (!parsed.ok()) return parsed.status().WithContext("column '" + f.name + "' row " + std::to_string(i));
          bytes = std::move(*parsed);
        }
        RETURN_IF_ERROR(typed.AppendString(bytes));
      }
      columns.push_back(std::move(typed));
      continue;
    }
    if (IsDecimal(f.type) && (IsInteger(have.type()) || IsDecimal(have.type()))) {
      // Numbers into a decimal column: rounded to its scale, refused past its precision.
      Column typed(f.type);
      for (size_t i = 0; i < have.length(); ++i) {
        Status st = typed.AppendValue(have.GetValue(i));
        if (!st.ok()) return st.WithContext("column '" + f.name + "' row " + std::to_string(i));
      }
      columns.push_back(std::move(typed));
      continue;
    }
    const bool widen = (have.type() == TypeId::kInt32 && f.type == TypeId::kInt64) ||
                       (have.type() == TypeId::kFloat && f.type == TypeId::kDouble);
    if (!widen) {
      return Status::InvalidArgument("column '" + f.name + "' is " + std::string(TypeName(have.type())) + ", the table's is " +
                                     std::string(TypeName(f.type)));
    }
    Column wide(f.type);
    for (size_t i = 0; i < have.length(); ++i) {
      const Value v = have.GetValue(i);
      RETURN_IF_ERROR(wide.AppendValue(v.is_null()               ? Value::Null(f.type)
                                       : f.type == TypeId::kInt64 ? Value::Int(TypeId::kInt64, v.int_value())
                                                                  : Value::Double(v.double_value())));
    }
    columns.push_back(std::move(wide));
  }
  if (batch.num_columns() != schema.num_fields()) {
    return Status::InvalidArgument("the rows have " + std::to_string(batch.num_columns()) + " columns, the table " +
                                   schema.ToString());
  }
  Batch out(schema, std::move(columns), batch.num_rows());
  RETURN_IF_ERROR(out.Seal());
  return out;
}

py::object ValueToPy(const Value& v) {
  if (v.is_null()) return py::none();
  if (IsDecimal(v.type())) return py::module_::import("decimal").attr("Decimal")(v.ToString());
  switch (v.type()) {
    case TypeId::kBool: return py::bool_(v.bool_value());
    case TypeId::kFloat:
    case TypeId::kDouble: return py::float_(v.double_value());
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kUuid: return py::bytes(v.string_value());
    default: return py::int_(v.int_value());
  }
}

Value ValueFromPy(const py::handle& o, TypeId type) {
  if (o.is_none()) return Value::Null(type);
  if (IsDecimal(type)) {  // a decimal.Decimal (as ValueToPy gives it) or a number, by its text
    Result<int64_t> unscaled = ParseDecimal(py::str(o).cast<std::string>(), type);
    if (!unscaled.ok()) Raise(unscaled.status());
    return Value::Decimal(type, *unscaled);
  }
  switch (type) {
    case TypeId::kBool: return Value::Bool(o.cast<bool>());
    case TypeId::kFloat: return Value::Float(float(o.cast<double>()));
    case TypeId::kDouble: return Value::Double(o.cast<double>());
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kUuid: return Value::Bytes(type, o.cast<std::string>());
    default: return Value::Int(type, o.cast<int64_t>());
  }
}

py::dict StatsToPy(const ColumnStats& s) {
  py::dict d;
  d["min"] = s.min ? ValueToPy(*s.min) : py::none();
  d["max"] = s.max ? ValueToPy(*s.max) : py::none();
  d["null_count"] = s.null_count;
  d["nan_count"] = s.nan_count;
  d["row_count"] = s.row_count;
  return d;
}

ColumnStats StatsFromPy(const py::handle& o, TypeId type) {
  ColumnStats s;
  py::dict d = py::reinterpret_borrow<py::dict>(o);
  if (!d["min"].is_none()) s.min = ValueFromPy(d["min"], type);
  if (!d["max"].is_none()) s.max = ValueFromPy(d["max"], type);
  s.null_count = d["null_count"].cast<uint64_t>();
  s.nan_count = d["nan_count"].cast<uint64_t>();
  s.row_count = d["row_count"].cast<uint64_t>();
  return s;
}

}  // namespace lakeindex::python
