#include "cli/output.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "common/text.h"

namespace lakeindex::cli {

namespace {
// A cell for people: bytes that are not UTF-8, and controls, as \xHH.
std::string CellText(const Column& c, size_t row) {
  if (c.IsNull(row)) return "NULL";
  if (c.type() == TypeId::kString) return EscapeBytes(c.GetString(row), /*controls=*/true);
  return c.GetValue(row).ToString();
}

// Counts UTF-8 code points, which is what a terminal column roughly shows.
size_t DisplayWidth(const std::string& s) {
  size_t w = 0;
  for (unsigned char ch : s) w += (ch & 0xC0) != 0x80;
  return w;
}

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
  const size_t ncols = batch.num_columns();
  std::vector<std::vector<std::string>> cells(ncols);
  std::vector<size_t> width(ncols);
  for (size_t c = 0; c < ncols; ++c) {
    width[c] = DisplayWidth(batch.schema().field(c).name);
    for (size_t r = 0; r < batch.num_rows(); ++r) {
      std::string text = CellText(batch.column(c), r);
      if (DisplayWidth(text) > max_width) {
        size_t cut = max_width - 1;
        while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
        text = text.substr(0, cut) + "\xe2\x80\xa6";
      }
      for (char& ch : text) {
        if (ch == '\n' || ch == '\r' || ch == '\t') ch = ' ';
      }
      width[c] = std::max(width[c], DisplayWidth(text));
      cells[c].push_back(std::move(text));
    }
  }
  std::string out;
  auto pad = [&](const std::string& s, size_t w, bool right) {
    std::string fill(w - DisplayWidth(s), ' ');
    out += right ? fill + s : s + fill;
  };
  for (size_t c = 0; c < ncols; ++c) {
    if (c) out += "  ";
    pad(batch.schema().field(c).name, width[c], false);
  }
  out += '\n';
  for (size_t c = 0; c < ncols; ++c) {
    if (c) out += "  ";
    out += std::string(width[c], '-');
  }
  out += '\n';
  for (size_t r = 0; r < batch.num_rows(); ++r) {
    for (size_t c = 0; c < ncols; ++c) {
      if (c) out += "  ";
      pad(cells[c][r], width[c], IsNumeric(batch.schema().field(c).type));
    }
    out += '\n';
  }
  return out;
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
          if (std::isfinite(v.double_value())) {
            out += v.ToString();
          } else {
            AppendJsonString(v.ToString(), &out);
          }
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
  std::snprintf(buffer, sizeof(buffer), "%.*f ± %.*f", decimals, value, decimals, half_width);
  return buffer;
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
