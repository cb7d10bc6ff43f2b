#include "cli/output.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "cli/cli_util.h"
#include "cli/table_printer.h"
#include "common/text.h"

namespace lakeindex::cli {

namespace {
// A JSON string of `s`; JSON is UTF-8, so bytes that are not are written as the text \xHH.
void AppendJsonString(std::string_view s, std::string* out) {
  if (!IsValidUtf8(s)) {
    const std::string escaped = EscapeBytes(s, /*controls=*/false);
    return AppendJsonString(escaped, out);
  }
  out->push_back('"');
  for (unsigned char ch : s) {
    switch (ch) {
      case '"': *out += "\\\""; break;
      case '\\': *out += "\\\\"; break;
      case '\n': *out += "\\n"; break;
      case '\r': *out += "\\r"; break;
      case '\t': *out += "\\t"; break;
      default:
        if (ch < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", ch);
          *out += buf;
        } else {
          out->push_back(char(ch));
        }
    }
  }
  out->push_back('"');
}
}  // namespace

std::string FormatTable(const Batch& batch, size_t max_width) {
  TablePrinter printer(batch.schema(), /*max_rows=*/0, /*width=*/0, max_width);
  if (Status added = printer.Add(batch); !added.ok()) return added.ToString() + "\n";  // the batch's own schema
  return printer.Table();
}

std::string FormatForExtension(const std::string& path) {
  const std::string ext = FileExtension(path);
  if (ext == "parquet" || ext == "csv") return ext;
  if (ext == "json" || ext == "jsonl" || ext == "ndjson") return "json";
  if (ext == "arrow" || ext == "arrows" || ext == "ipc") return "arrow";
  return "";
}

std::string FormatJsonLines(const Batch& batch) {
  std::string out;
  for (size_t r = 0; r < batch.num_rows(); ++r) {
    out += '{';
    for (size_t c = 0; c < batch.num_columns(); ++c) {
      if (c) out += ',';
      AppendJsonString(batch.schema().field(c).name, &out);
      out += ':';
      const Column& col = batch.column(c);
      if (col.IsNull(r)) {
        out += "null";
        continue;
      }
      Value v = col.GetValue(r);
      if (IsDecimal(col.type())) {  // a number, every digit of its scale kept (DuckDB's too)
        out += v.ToString();
        continue;
      }
      switch (col.type()) {
        case TypeId::kBool:
        case TypeId::kInt32:
        case TypeId::kInt64: out += v.ToString(); break;
        case TypeId::kFloat:
        case TypeId::kDouble:
          // JSON has no NaN or infinity: null, as DuckDB's and pandas' to_json write them.
          out += std::isfinite(v.double_value()) ? v.ToString() : "null";
          break;
        default: AppendJsonString(v.ToString(), &out);
      }
    }
    out += "}\n";
  }
  return out;
}

std::string FormatEstimate(double value, double half_width) {
  if (!std::isfinite(value) || !std::isfinite(half_width) || half_width <= 0) {
    return FormatDouble(value) + " ± " + FormatDouble(half_width);
  }
  const int decimals = std::clamp(1 - int(std::floor(std::log10(half_width))), 0, 15);
  char buffer[128];
  std::snprintf(buffer, sizeof(buffer), "%.*f", decimals, value);
  std::string text = buffer;
  // A value that rounds to zero is "0.0", not "-0.0".
  if (text[0] == '-' && text.find_first_not_of("-0.") == std::string::npos) text.erase(0, 1);
  std::snprintf(buffer, sizeof(buffer), " ± %.*f", decimals, half_width);
  return text + buffer;
}

Result<Batch> JoinIntervals(const Batch& batch) {
  const Schema& schema = batch.schema();
  auto is_interval = [&](size_t c) {
    const std::string& name = schema.field(c).name;
    return c > 0 && name.size() > 3 && name.compare(name.size() - 3, 3, " ±") == 0;  // " ±" is 3 bytes
  };
  std::vector<Field> fields;
  for (size_t c = 0; c < schema.num_fields(); ++c) {
    if (is_interval(c)) continue;
    const bool estimate = c + 1 < schema.num_fields() && is_interval(c + 1);
    fields.push_back(estimate ? Field{schema.field(c).name, TypeId::kString, true} : schema.field(c));
  }
  Batch out{Schema(std::move(fields))};
  size_t o = 0;
  for (size_t c = 0; c < schema.num_fields(); ++c) {
    if (is_interval(c)) continue;
    Column& column = out.mutable_column(o++);
    if (!(c + 1 < schema.num_fields() && is_interval(c + 1))) {
      for (size_t r = 0; r < batch.num_rows(); ++r) RETURN_IF_ERROR(column.AppendValue(batch.column(c).GetValue(r)));
      continue;
    }
    const Column& value = batch.column(c);
    const Column& half = batch.column(c + 1);
    for (size_t r = 0; r < batch.num_rows(); ++r) {
      if (value.IsNull(r)) {
        RETURN_IF_ERROR(column.AppendValue(Value::Null(TypeId::kString)));
      } else {
        RETURN_IF_ERROR(column.AppendValue(Value::String(FormatEstimate(value.Get<double>(r), half.Get<double>(r)))));
      }
    }
  }
  RETURN_IF_ERROR(out.Seal());
  return out;
}

}  // namespace lakeindex::cli
