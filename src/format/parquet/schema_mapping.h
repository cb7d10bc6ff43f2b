// How lakeindex types map onto Parquet leaf columns, both ways, and how PLAIN-encoded
// statistics bytes become Values.
//
// Write: bool->BOOLEAN, int32->INT32, int64->INT64, float->FLOAT, double->DOUBLE,
//   string->BYTE_ARRAY STRING (+UTF8), binary->BYTE_ARRAY, uuid->FIXED_LEN_BYTE_ARRAY(16) UUID,
//   date->INT32 DATE, timestamp->INT64 TIMESTAMP(MICROS, isAdjustedToUTC=false)
//   (+TIMESTAMP_MICROS), timestamptz->INT64 TIMESTAMP(MICROS, isAdjustedToUTC=true)
//   (+TIMESTAMP_MICROS), timestamp_ns->INT64 TIMESTAMP(NANOS, isAdjustedToUTC=false).
// Read: the same, plus INT32 INTEGER(8/16/32, signed or unsigned 8/16) -> int32,
//   INTEGER(32, unsigned) -> int64, TIMESTAMP millis/micros -> timestamp µs, or timestamptz when
//   isAdjustedToUTC; TIMESTAMP nanos -> timestamp_ns, or timestamptz when isAdjustedToUTC (then
//   NotSupported for a value that is not whole microseconds); the legacy TIMESTAMP_MILLIS /
//   MICROS converted types alone -> timestamp; BYTE_ARRAY with STRING, UTF8, ENUM or JSON ->
//   string, with no annotation -> binary; FIXED_LEN_BYTE_ARRAY with UUID -> uuid, with no
//   annotation -> binary. An unrecognized LogicalType member (a newer writer) is ignored in
//   favour of converted_type / the physical type. Everything else is NotSupported
//   "column 'x': <what> not supported".
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "format/parquet/metadata.h"
#include "lakeindex/types.h"

namespace lakeindex::parquet {

// Value transformation applied when reading a column's values and statistics.
enum class ValueConversion : uint8_t {
  kNone,
  kUint32ToInt64,   // INT32 bits reinterpreted as uint32, widened
  kMillisToMicros,  // x * 1000 (overflow is Corruption)
  kNanosToMicros,   // x / 1000; NotSupported when x is not whole microseconds
  kInt32ToInt64,    // INT32 sign-extended (a decimal held in INT32)
  kBigEndianToInt64,  // (FIXED_LEN_)BYTE_ARRAY: big-endian two's complement of 1..8 bytes (a decimal)
};

// A flat leaf column as the reader sees it.
struct LeafColumn {
  std::string name;
  TypeId type = TypeId::kInt64;
  bool nullable = true;  // OPTIONAL (max definition level 1) vs REQUIRED
  PhysicalType physical = PhysicalType::kInt64;
  ValueConversion conversion = ValueConversion::kNone;
  int32_t type_length = 0;  // FIXED_LEN_BYTE_ARRAY's bytes per value
};

PhysicalType PhysicalTypeFor(TypeId type);
// The schema leaf our writer emits for `field`.
SchemaElement SchemaElementFor(const Field& field);
// Resolves a leaf read from a file. NotSupported for types outside the subset above,
// Corruption for a leaf without a physical type.
Result<LeafColumn> ResolveLeaf(const SchemaElement& element);

// A decimal held as big-endian two's complement bytes ((FIXED_LEN_)BYTE_ARRAY), as the unscaled
// value of `type`; Corruption for 0 or more than 16 bytes or a value past the precision.
Result<int64_t> BigEndianDecimal(std::string_view bytes, TypeId type);

// Decodes a statistics value (PLAIN, no length prefix for strings) of `column`. nullopt when
// the bytes have the wrong length for the type, the value is NaN (never a usable bound), or
// the conversion overflows.
std::optional<Value> DecodeStatValue(const LeafColumn& column, std::string_view bytes);

}  // namespace lakeindex::parquet
