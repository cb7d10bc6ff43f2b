// Conversions between lakeindex values and Python objects for the _lakeindex module, and the
// Status -> Python exception mapping. Every function here needs the GIL.
#pragma once

#include <string>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "lakeindex/batch.h"
#include "lakeindex/column_stats.h"
#include "lakeindex/status.h"

namespace lakeindex::python {

namespace py = pybind11;

// Creates the exception classes (Error and one subclass per status code) on `m`.
void RegisterErrors(py::module_& m);
// Raises the Python exception of `status`: its message, after the parameter it is about, and for
// SQL beyond the subset (query::IsBeyondSubset) where such SQL runs. REQUIRES: !status.ok().
[[noreturn]] void Raise(const Status& status);
inline void Check(const Status& status) {
  if (!status.ok()) Raise(status);
}
template <typename T>
T Check(Result<T> result) {
  if (!result.ok()) Raise(result.status());
  return std::move(*result);
}

// One column as a numpy array: numbers and booleans as their dtype, dates as datetime64[D],
// timestamps as datetime64[us] (masked arrays when the column has NULLs), strings as an object
// array of str (bytes when not UTF-8) with None for NULL.
py::object ColumnToNumpy(const Column& column);

// Rows from Python: `columns` is a list of (name, type name, data, mask) as lakeindex/__init__.py
// prepares them — data a 1-D numpy array of the type's dtype (bool, int32, int64, float32,
// float64, int32 days for "date", int64 microseconds for "timestamp") or, for "string", a
// sequence of str / bytes / None; mask a bool array (True = NULL) or None. InvalidArgument naming
// the column for lengths that differ or values of another type.
Result<Batch> BatchFromColumns(const py::list& columns);
// `batch` with the columns of `schema`, found by name (extra columns are an error); int32 widens to
// int64 and float to double, other differences are InvalidArgument naming the column.
Result<Batch> ConformBatch(const Batch& batch, const Schema& schema);

// Values of the manifest's types: None, bool, int, float, bytes (strings keep their bytes).
py::object ValueToPy(const Value& value);
Value ValueFromPy(const py::handle& object, TypeId type);
py::dict StatsToPy(const ColumnStats& stats);
ColumnStats StatsFromPy(const py::handle& object, TypeId type);

}  // namespace lakeindex::python
