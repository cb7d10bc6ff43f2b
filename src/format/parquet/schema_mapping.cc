#include "format/parquet/schema_mapping.h"

#include <cmath>
#include <cstring>

namespace lakeindex::parquet {

PhysicalType PhysicalTypeFor(TypeId type) {
  if (IsDecimal(type)) return PhysicalType::kInt64;  // valid for every precision up to 18
  switch (type) {
    case TypeId::kBool: return PhysicalType::kBoolean;
    case TypeId::kInt32:
    case TypeId::kDate: return PhysicalType::kInt32;
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs: return PhysicalType::kInt64;
    case TypeId::kFloat: return PhysicalType::kFloat;
    case TypeId::kDouble: return PhysicalType::kDouble;
    case TypeId::kString:
    case TypeId::kBinary: return PhysicalType::kByteArray;
    case TypeId::kUuid: return PhysicalType::kFixedLenByteArray;
  }
  return PhysicalType::kInt64;
}

SchemaElement SchemaElementFor(const Field& field) {
  SchemaElement e;
  e.name = field.name;
  e.type = PhysicalTypeFor(field.type);
  e.repetition_type = field.nullable ? Repetition::kOptional : Repetition::kRequired;
  if (field.type == TypeId::kString) {
    e.converted_type = ConvertedType::kUtf8;
    e.logical_type.emplace();
    e.logical_type->kind = LogicalType::kString;
  } else if (field.type == TypeId::kDate) {
    e.converted_type = ConvertedType::kDate;
    e.logical_type.emplace();
    e.logical_type->kind = LogicalType::kDate;
  } else if (IsTimestamp(field.type)) {
    // The legacy converted type stands for microseconds only.
    if (field.type != TypeId::kTimestampNs) e.converted_type = ConvertedType::kTimestampMicros;
    e.logical_type.emplace();
    e.logical_type->kind = LogicalType::kTimestamp;
    e.logical_type->unit = field.type == TypeId::kTimestampNs ? TimeUnit::kNanos : TimeUnit::kMicros;
    e.logical_type->is_adjusted_to_utc = field.type == TypeId::kTimestampTz;
  } else if (field.type == TypeId::kUuid) {
    e.type_length = 16;
    e.logical_type.emplace();
    e.logical_type->kind = LogicalType::kUuid;
  } else if (IsDecimal(field.type)) {
    e.converted_type = ConvertedType::kDecimal;
    e.precision = DecimalPrecision(field.type);
    e.scale = DecimalScale(field.type);
    e.logical_type.emplace();
    e.logical_type->kind = LogicalType::kDecimal;
    e.logical_type->precision = *e.precision;
    e.logical_type->scale = *e.scale;
  }
  return e;
}

namespace {

const char* LogicalName(int16_t kind) {
  switch (kind) {
    case LogicalType::kMap: return "MAP";
    case LogicalType::kList: return "LIST";
    case LogicalType::kDecimal: return "DECIMAL";
    case LogicalType::kTime: return "TIME";
    case LogicalType::kBson: return "BSON";
    case LogicalType::kUuid: return "UUID";
    case LogicalType::kFloat16: return "FLOAT16";
    case 16: return "VARIANT";
    case 17: return "GEOMETRY";
    case 18: return "GEOGRAPHY";
    case 19: return "VECTOR";
    default: return "logical type";
  }
}

const char* ConvertedName(ConvertedType c) {
  switch (c) {
    case ConvertedType::kMap:
    case ConvertedType::kMapKeyValue: return "MAP";
    case ConvertedType::kList: return "LIST";
    case ConvertedType::kDecimal: return "DECIMAL";
    case ConvertedType::kTimeMillis:
    case ConvertedType::kTimeMicros: return "TIME";
    case ConvertedType::kUint64: return "UINT_64";
    case ConvertedType::kBson: return "BSON";
    case ConvertedType::kInterval: return "INTERVAL";
    default: return "converted type";
  }
}

bool KnownLogical(int16_t kind) { return kind >= 1 && kind <= 19 && kind != 9; }

}  // namespace

Result<LeafColumn> ResolveLeaf(const SchemaElement& e) {
  LeafColumn c;
  c.name = e.name;
  auto unsupported = [&](const std::string& what) {
    return Status::NotSupported("column '" + e.name + "': " + what + " not supported");
  };
  if (!e.type) return Status::Corruption("column '" + e.name + "': leaf has no physical type");
  c.physical = *e.type;
  Repetition rep = e.repetition_type.value_or(Repetition::kRequired);
  if (rep == Repetition::kRepeated) return unsupported("repeated field");
  if (rep != Repetition::kRequired && rep != Repetition::kOptional) {
    return unsupported("repetition type " + std::to_string(int(rep)));
  }
  c.nullable = rep == Repetition::kOptional;

  // Normalize the annotation: a recognized logical type wins, else the converted type.
  int16_t logical = LogicalType::kNone;
  if (e.logical_type && KnownLogical(e.logical_type->kind)) logical = e.logical_type->kind;
  // kNoConversion stands for "no converted type" (a plain value, not std::optional, which
  // trips GCC's maybe-uninitialized analysis).
  constexpr ConvertedType kNoConversion = ConvertedType(-1);
  ConvertedType conv = kNoConversion;
  if (logical == LogicalType::kNone && e.converted_type) conv = *e.converted_type;
  if (logical == LogicalType::kUnknown) logical = LogicalType::kNone;  // all-NULL column

  if (logical == LogicalType::kDecimal || conv == ConvertedType::kDecimal) {
    // The logical type's precision and scale, else the schema element's (the legacy form).
    const int32_t precision = logical == LogicalType::kDecimal ? e.logical_type->precision : e.precision.value_or(0);
    const int32_t scale = logical == LogicalType::kDecimal ? e.logical_type->scale : e.scale.value_or(0);
    const std::string what = "DECIMAL(" + std::to_string(precision) + "," + std::to_string(scale) + ")";
    if (precision < 1 || scale < 0 || scale > precision) return Status::Corruption("column '" + e.name + "': " + what);
    if (precision > kMaxDecimalPrecision) {
      return unsupported(what + " (precision above 18: lakeindex decimals are 64-bit; cast to DECIMAL(18," +
                         std::to_string(std::min(scale, 18)) + ") or DOUBLE first)");
    }
    c.type = DecimalType(precision, scale);
    switch (c.physical) {
      case PhysicalType::kInt32: c.conversion = ValueConversion::kInt32ToInt64; return c;
      case PhysicalType::kInt64: return c;
      case PhysicalType::kFixedLenByteArray:
        if (!e.type_length || *e.type_length <= 0 || *e.type_length > 16) {
          return Status::Corruption("column '" + e.name + "': " + what + " on FIXED_LEN_BYTE_ARRAY without a length of 1 to 16");
        }
        c.type_length = *e.type_length;
        c.conversion = ValueConversion::kBigEndianToInt64;
        return c;
      case PhysicalType::kByteArray: c.conversion = ValueConversion::kBigEndianToInt64; return c;
      default: return unsupported(what + " on this physical type");
    }
  }

  switch (c.physical) {
    case PhysicalType::kBoolean:
      c.type = TypeId::kBool;
      return c;
    case PhysicalType::kInt32: {
      c.type = TypeId::kInt32;
      if (logical == LogicalType::kDate || conv == ConvertedType::kDate) {
        c.type = TypeId::kDate;
        return c;
      }
      if (logical == LogicalType::kInteger) {
        const LogicalType& lt = *e.logical_type;
        if (lt.bit_width != 8 && lt.bit_width != 16 && lt.bit_width != 32) {
          return unsupported("INTEGER(" + std::to_string(lt.bit_width) + ") on INT32");
        }
        if (!lt.is_signed && lt.bit_width == 32) {
          c.type = TypeId::kInt64;
          c.conversion = ValueConversion::kUint32ToInt64;
        }
        return c;
      }
      if (logical != LogicalType::kNone) return unsupported(LogicalName(logical));
      if (conv == kNoConversion) return c;
      switch (conv) {
        case ConvertedType::kInt8: case ConvertedType::kInt16: case ConvertedType::kInt32:
        case ConvertedType::kUint8: case ConvertedType::kUint16:
          return c;
        case ConvertedType::kUint32:
          c.type = TypeId::kInt64;
          c.conversion = ValueConversion::kUint32ToInt64;
          return c;
        default:
          return unsupported(ConvertedName(conv));
      }
    }
    case PhysicalType::kInt64: {
      c.type = TypeId::kInt64;
      if (logical == LogicalType::kTimestamp) {
        const TimeUnit u = e.logical_type->unit;
        const bool utc = e.logical_type->is_adjusted_to_utc;
        c.type = utc ? TypeId::kTimestampTz : (u == TimeUnit::kNanos ? TypeId::kTimestampNs : TypeId::kTimestamp);
        c.conversion = u == TimeUnit::kMillis                 ? ValueConversion::kMillisToMicros
                       : u == TimeUnit::kNanos && utc         ? ValueConversion::kNanosToMicros
                                                              : ValueConversion::kNone;
        return c;
      }
      if (logical == LogicalType::kInteger) {
        const LogicalType& lt = *e.logical_type;
        if (lt.bit_width != 64 && lt.bit_width != 8 && lt.bit_width != 16 && lt.bit_width != 32) {
          return unsupported("INTEGER(" + std::to_string(lt.bit_width) + ") on INT64");
        }
        if (!lt.is_signed) return unsupported("unsigned INTEGER(" + std::to_string(lt.bit_width) + ")");
        return c;
      }
      if (logical != LogicalType::kNone) return unsupported(LogicalName(logical));
      if (conv == kNoConversion) return c;
      switch (conv) {
        case ConvertedType::kInt64: return c;
        case ConvertedType::kTimestampMillis:
          c.type = TypeId::kTimestamp;
          c.conversion = ValueConversion::kMillisToMicros;
          return c;
        case ConvertedType::kTimestampMicros:
          c.type = TypeId::kTimestamp;
          return c;
        default:
          return unsupported(ConvertedName(conv));
      }
    }
    case PhysicalType::kFloat:
    case PhysicalType::kDouble:
      if (logical != LogicalType::kNone) return unsupported(LogicalName(logical));
      if (conv != kNoConversion) return unsupported(ConvertedName(conv));
      c.type = c.physical == PhysicalType::kFloat ? TypeId::kFloat : TypeId::kDouble;
      return c;
    case PhysicalType::kByteArray:
      c.type = TypeId::kString;
      if (logical == LogicalType::kString || logical == LogicalType::kEnum ||
          logical == LogicalType::kJson || logical == LogicalType::kNone) {
        if (conv != kNoConversion && conv != ConvertedType::kUtf8 &&
            conv != ConvertedType::kEnum && conv != ConvertedType::kJson) {
          return unsupported(ConvertedName(conv) + std::string(" on BYTE_ARRAY"));
        }
        // Bytes with no annotation are not text (DuckDB reads them as BLOB).
        if (logical == LogicalType::kNone && conv == kNoConversion) c.type = TypeId::kBinary;
        return c;
      }
      return unsupported(LogicalName(logical));
    case PhysicalType::kInt96:
      return unsupported("INT96");
    case PhysicalType::kFixedLenByteArray: {
      if (!e.type_length || *e.type_length <= 0) {
        return Status::Corruption("column '" + e.name + "': FIXED_LEN_BYTE_ARRAY without a positive type_length");
      }
      c.type_length = *e.type_length;
      if (logical == LogicalType::kUuid) {
        if (c.type_length != 16) return Status::Corruption("column '" + e.name + "': a UUID of " + std::to_string(c.type_length) + " bytes");
        c.type = TypeId::kUuid;
        return c;
      }
      if (logical != LogicalType::kNone) return unsupported(LogicalName(logical) + std::string(" on FIXED_LEN_BYTE_ARRAY"));
      if (conv != kNoConversion) return unsupported(ConvertedName(conv) + std::string(" on FIXED_LEN_BYTE_ARRAY"));
      c.type = TypeId::kBinary;
      return c;
    }
  }
  return unsupported("physical type " + std::to_string(int(c.physical)));
}

Result<int64_t> BigEndianDecimal(std::string_view bytes, TypeId type) {
  if (bytes.empty() || bytes.size() > 16) {
    return Status::Corruption("a " + std::string(TypeName(type)) + " value of " + std::to_string(bytes.size()) + " bytes");
  }
  __int128 v = int8_t(bytes[0]);  // the sign
  for (size_t i = 1; i < bytes.size(); ++i) v = v * 256 + uint8_t(bytes[i]);
  if (!FitsDecimal(v, type)) return Status::Corruption("a value beyond the precision of " + std::string(TypeName(type)));
  return int64_t(v);
}

std::optional<Value> DecodeStatValue(const LeafColumn& c, std::string_view b) {
  auto load = [&](auto* v) {
    if (b.size() != sizeof(*v)) return false;
    std::memcpy(v, b.data(), sizeof(*v));
    return true;
  };
  switch (c.physical) {
    case PhysicalType::kBoolean:
      if (b.size() != 1) return std::nullopt;
      return Value::Bool(b[0] != 0);
    case PhysicalType::kInt32: {
      int32_t v;
      if (!load(&v)) return std::nullopt;
      if (c.conversion == ValueConversion::kUint32ToInt64) return Value::Int64(int64_t(uint32_t(v)));
      if (IsDecimal(c.type) && !FitsDecimal(v, c.type)) return std::nullopt;
      return Value::Int(c.type, v);  // a decimal's too: sign-extended
    }
    case PhysicalType::kInt64: {
      int64_t v;
      if (!load(&v)) return std::nullopt;
      if (c.conversion == ValueConversion::kMillisToMicros) {
        if (__builtin_mul_overflow(v, int64_t(1000), &v)) return std::nullopt;
      } else if (c.conversion == ValueConversion::kNanosToMicros) {
        v = v / 1000 - ((v % 1000) < 0 ? 1 : 0);
      }
      if (IsDecimal(c.type) && !FitsDecimal(v, c.type)) return std::nullopt;
      return Value::Int(c.type, v);
    }
    case PhysicalType::kFloat: {
      float v;
      if (!load(&v) || std::isnan(v)) return std::nullopt;
      return Value::Float(v);
    }
    case PhysicalType::kDouble: {
      double v;
      if (!load(&v) || std::isnan(v)) return std::nullopt;
      return Value::Double(v);
    }
    case PhysicalType::kByteArray:
    case PhysicalType::kFixedLenByteArray: {
      if (c.physical == PhysicalType::kFixedLenByteArray && b.size() != size_t(c.type_length)) return std::nullopt;
      if (c.conversion != ValueConversion::kBigEndianToInt64) return Value::Bytes(c.type, std::string(b));
      auto v = BigEndianDecimal(b, c.type);
      if (!v.ok()) return std::nullopt;
      return Value::Decimal(c.type, *v);
    }
    default:
      return std::nullopt;
  }
}

}  // namespace lakeindex::parquet
