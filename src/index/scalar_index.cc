#include "index/scalar_index.h"

#include <algorithm>

namespace lakeindex::index {

ScalarQuery ScalarQuery::Equals(Value v) {
  ScalarQuery q;
  q.kind = Kind::kEquals;
  q.values.push_back(std::move(v));
  return q;
}

ScalarQuery ScalarQuery::Range(std::optional<Value> lower, bool lower_inclusive, std::optional<Value> upper,
                               bool upper_inclusive) {
  ScalarQuery q;
  q.kind = Kind::kRange;
  q.lower = std::move(lower);
  q.upper = std::move(upper);
  q.lower_inclusive = lower_inclusive;
  q.upper_inclusive = upper_inclusive;
  return q;
}

ScalarQuery ScalarQuery::In(std::vector<Value> values) {
  ScalarQuery q;
  q.kind = Kind::kIn;
  std::sort(values.begin(), values.end(), [](const Value& a, const Value& b) { return CompareValues(a, b) < 0; });
  values.erase(std::unique(values.begin(), values.end(),
                           [](const Value& a, const Value& b) { return CompareValues(a, b) == 0; }),
               values.end());
  q.values = std::move(values);
  return q;
}

ScalarQuery ScalarQuery::IsNull() {
  ScalarQuery q;
  q.kind = Kind::kIsNull;
  return q;
}

ScalarQuery ScalarQuery::Prefix(std::string prefix) {
  ScalarQuery q;
  q.kind = Kind::kPrefix;
  q.prefix = std::move(prefix);
  return q;
}

bool ScalarQuery::Matches(const Value& v) const {
  if (v.is_null()) return kind == Kind::kIsNull;
  switch (kind) {
    case Kind::kEquals: return CompareValues(v, values[0]) == 0;
    case Kind::kIn:
      return std::any_of(values.begin(), values.end(), [&](const Value& x) { return CompareValues(v, x) == 0; });
    case Kind::kIsNull: return false;
    case Kind::kPrefix: return v.string_value().compare(0, prefix.size(), prefix) == 0;
    case Kind::kRange: {
      if (lower) {
        int c = CompareValues(v, *lower);
        if (c < 0 || (c == 0 && !lower_inclusive)) return false;
      }
      if (upper) {
        int c = CompareValues(v, *upper);
        if (c > 0 || (c == 0 && !upper_inclusive)) return false;
      }
      return true;
    }
  }
  return false;
}

std::string ScalarQuery::ToString(const std::string& column) const {
  switch (kind) {
    case Kind::kEquals: return column + " = " + values[0].ToString();
    case Kind::kIsNull: return column + " IS NULL";
    case Kind::kPrefix: return column + " LIKE '" + prefix + "%'";
    case Kind::kIn: {
      std::string s = column + " IN (";
      for (size_t i = 0; i < values.size() && i < 5; ++i) s += (i ? ", " : "") + values[i].ToString();
      if (values.size() > 5) s += ", ... " + std::to_string(values.size()) + " values";
      return s + ")";
    }
    case Kind::kRange: {
      std::string s;
      if (lower) s += lower->ToString() + (lower_inclusive ? " <= " : " < ");
      s += column;
      if (upper) s += std::string(upper_inclusive ? " <= " : " < ") + upper->ToString();
      return s;
    }
  }
  return column;
}

}  // namespace lakeindex::index
