#include "format/csv/csv_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "format/csv/csv_reader.h"
#include "util/test_util.h"

namespace lakeindex::csv {
namespace {

Batch MakeBatch(std::string_view schema_text, const std::vector<std::vector<Value>>& rows) {
  Batch batch(*Schema::Parse(schema_text));
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i)
      EXPECT_TRUE(batch.mutable_column(i).AppendValue(row[i]).ok());
  }
  EXPECT_TRUE(batch.Seal().ok());
  return batch;
}

TEST(CsvWriter, WritesRfc4180WithNullsAndQuoting) {
  Batch batch = MakeBatch(
      "id:int64,name:string,score:double,ok:bool,day:date,at:timestamp",
      {{Value::Int64(1), Value::String("plain"), Value::Double(0.1), Value::Bool(true),
        Value::Date(*ParseDate("2024-01-31")),
        Value::Timestamp(*ParseTimestamp("2024-01-31 12:00:00.25"))},
       {Value::Null(TypeId::kInt64), Value::String(""), Value::Double(NAN), Value::Bool(false),
        Value::Null(TypeId::kDate), Value::Null(TypeId::kTimestamp)},
       {Value::Int64(-3), Value::String("a,\"b\"\nc"), Value::Double(-INFINITY),
        Value::Null(TypeId::kBool), Value::Null(TypeId::kDate), Value::Null(TypeId::kTimestamp)}});
  std::string out;
  WriteCsv(batch, /*header=*/true, &out);
  EXPECT_EQ(out,
            "id,name,score,ok,day,at\n"
            "1,plain,0.1,true,2024-01-31,2024-01-31 12:00:00.25\n"
            ",\"\",nan,false,,\n"
            "-3,\"a,\"\"b\"\"\nc\",-inf,,,\n");
  std::string no_header;
  WriteCsv(batch.Slice(0, 1), /*header=*/false, &no_header);
  EXPECT_EQ(no_header, "1,plain,0.1,true,2024-01-31,2024-01-31 12:00:00.25\n");
}

TEST(CsvWriter, QuotesHeaderNamesAndCarriageReturns) {
  Batch batch = MakeBatch("x:string", {{Value::String("a\rb")}, {Value::Null(TypeId::kString)}});
  std::string out;
  WriteCsv(batch, true, &out, ';');
  EXPECT_EQ(out, "x\n\"a\rb\"\n\n");
}

// Random values of every type, biased toward the cases CSV gets wrong: NULLs, empty strings,
// delimiters, quotes, CR/LF, non-ASCII, leading/trailing blanks, a leading byte order mark.
class RandomBatches {
 public:
  explicit RandomBatches(uint32_t seed) : rng_(seed) {}

  Value RandomValue(TypeId type) {
    if (Pick(5) == 0) return Value::Null(type);
    switch (type) {
      case TypeId::kBool:
        return Value::Bool(Pick(2) == 1);
      case TypeId::kInt32:
        return Value::Int32(int32_t(rng_()));
      case TypeId::kInt64:
        return Pick(4) == 0 ? Value::Int64(Pick(2) ? std::numeric_limits<int64_t>::min()
                                                   : std::numeric_limits<int64_t>::max())
                            : Value::Int64(int64_t(uint64_t(rng_()) << 32 | rng_()));
      case TypeId::kFloat:
        return Value::Float(RandomFloating<float>());
      case TypeId::kDouble:
        return Value::Double(RandomFloating<double>());
      case TypeId::kDate:  // years 0001..9999: the range YYYY-MM-DD can express
        return Value::Date(int32_t(DaysFromCivil(1, 1, 1) + int64_t(Pick(3652059))));
      case TypeId::kTimestamp:
      case TypeId::kTimestampTz:
        return Value::Int(type, DaysFromCivil(1, 1, 1) * 86400000000LL +
                                    int64_t(uint64_t(rng_()) << 32 | rng_()) % (3652059LL * 86400000000LL));
      case TypeId::kTimestampNs:  // every int64 but the infinities is a timestamp_ns
        return Value::TimestampNs(int64_t(uint64_t(rng_()) << 32 | rng_()) / 2);
      case TypeId::kString:
        return Value::String(RandomString());
      case TypeId::kBinary: {
        std::string bytes(Pick(6), '\0');
        for (char& c : bytes) c = char(Pick(4) == 0 ? '\\' : rng_());
        return Value::Binary(bytes);
      }
      case TypeId::kUuid: {
        std::string bytes(16, '\0');
        for (char& c : bytes) c = char(rng_());
        return Value::Bytes(TypeId::kUuid, bytes);
      }
    }
    return Value::Null(type);
  }

  Batch RandomBatch(size_t columns, size_t rows) {
    static constexpr TypeId kTypes[] = {TypeId::kBool,        TypeId::kInt32,       TypeId::kInt64,
                                        TypeId::kFloat,       TypeId::kDouble,      TypeId::kString,
                                        TypeId::kDate,        TypeId::kTimestamp,   TypeId::kTimestampTz,
                                        TypeId::kTimestampNs, TypeId::kBinary,      TypeId::kUuid};
    Schema schema;
    for (size_t i = 0; i < columns; ++i) {
      TypeId type = Pick(3) == 0 ? TypeId::kString : kTypes[Pick(std::size(kTypes))];
      schema.AddField(
          Field{"c" + std::to_string(i) + (i % 3 == 1 ? RandomString() : ""), type, true});
    }
    Batch batch(schema);
    for (size_t r = 0; r < rows; ++r) {
      for (size_t i = 0; i < columns; ++i) {
        EXPECT_TRUE(batch.mutable_column(i).AppendValue(RandomValue(schema.field(i).type)).ok());
      }
    }
    EXPECT_TRUE(batch.Seal().ok());
    return batch;
  }

 private:
  uint32_t Pick(uint32_t n) { return uint32_t(rng_() % n); }

  template <typename T>
  T RandomFloating() {
    switch (Pick(6)) {
      case 0:
        return std::numeric_limits<T>::quiet_NaN();
      case 1:
        return Pick(2) ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity();
      case 2:
        return T(int(Pick(2000)) - 1000);
      case 3:
        return Pick(2) ? std::numeric_limits<T>::denorm_min() : std::numeric_limits<T>::max();
      default: {
        // Any finite bit pattern.
        using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
        while (true) {
          Bits bits = Bits(uint64_t(rng_()) << 32 | rng_());
          T x;
          std::memcpy(&x, &bits, sizeof(x));
          if (std::isfinite(x)) return x;
        }
      }
    }
  }

  std::string RandomString() {
    static const std::string_view kPieces[] = {"a",   "Z",    "9",  " ",    ",",
                                               ";",   "\t",   "\"", "\"\"", "\r",
                                               "\n",  "\r\n", "é",  "日本", "\xEF\xBB\xBF",
                                               "nan", "-",    "'"};
    std::string s;
    size_t n = Pick(7);
    for (size_t i = 0; i < n; ++i) s += kPieces[Pick(std::size(kPieces))];
    return s;
  }

  std::mt19937 rng_;
};

TEST(CsvWriter, RoundTripsRandomBatchesThroughTheReader) {
  for (uint32_t seed = 1; seed <= 300; ++seed) {
    RandomBatches gen(seed);
    size_t columns = 1 + seed % 6;
    Batch batch = gen.RandomBatch(columns, seed % 40);
    for (char delimiter : {',', ';', '\t'}) {
      std::string text;
      WriteCsv(batch, true, &text, delimiter);
      ReadOptions options;
      options.schema = batch.schema();
      options.delimiter = delimiter;
      Result<Batch> back = ReadCsv(text, options);
      ASSERT_TRUE(back.ok()) << "seed " << seed << ": " << back.status().ToString() << "\n" << text;
      ASSERT_TRUE(back->Equals(batch)) << "seed " << seed << " delimiter '" << delimiter << "'\n"
                                       << text;
    }
  }
}

TEST(CsvWriter, RoundTripsTheSharedHostileRandomBatches) {
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    Batch batch = testing::RandomBatch(testing::RandomSchema(seed, 10), 80, seed, 0.15);
    std::string text;
    WriteCsv(batch, true, &text);
    ReadOptions options;
    options.schema = batch.schema();
    Result<Batch> back = ReadCsv(text, options);
    ASSERT_TRUE(back.ok()) << "seed " << seed << ": " << back.status().ToString();
    ASSERT_TRUE(back->Equals(batch)) << "seed " << seed << "\n" << text;
  }
}

TEST(CsvWriter, RoundTripsIntoTheInferredTypes) {
  Batch batch =
      MakeBatch("b:bool,i:int64,d:double,dt:date,ts:timestamp,s:string",
                {{Value::Bool(true), Value::Int64(7), Value::Double(2.5), Value::Date(0),
                  Value::Timestamp(1), Value::String("x")},
                 {Value::Null(TypeId::kBool), Value::Null(TypeId::kInt64), Value::Double(-0.0),
                  Value::Date(-1), Value::Timestamp(-1), Value::String("")}});
  std::string text;
  WriteCsv(batch, true, &text);
  Result<Batch> back = ReadCsv(text, {});
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(back->Equals(batch)) << text;
}

}  // namespace
}  // namespace lakeindex::csv
