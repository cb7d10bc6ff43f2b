#include "format/parquet/thrift_compact.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace lakeindex::parquet::thrift {
namespace {

const uint8_t* U8(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

TEST(ThriftCompactTest, RoundTripsScalarsListsAndNestedStructs) {
  std::string buf;
  CompactWriter w(&buf);
  w.StructBegin();
  w.FieldBool(1, true);
  w.FieldBool(2, false);
  w.FieldI8(3, -7);
  w.FieldI16(4, -300);
  w.FieldI32(5, std::numeric_limits<int32_t>::min());
  w.FieldI64(6, std::numeric_limits<int64_t>::max());
  w.FieldDouble(7, -2.5);
  w.FieldBinary(8, std::string("a\0b", 3));
  w.FieldStructBegin(30);  // long-form header (delta > 15)
  w.FieldI32(1, 42);
  w.StructEnd();
  w.FieldListBegin(31, CType::kI64, 20);  // long-form list size
  for (int i = 0; i < 20; ++i) w.ElementI64(int64_t(i) * -1000000007);
  w.FieldListBegin(32, CType::kBoolTrue, 3);
  w.ElementBool(true);
  w.ElementBool(false);
  w.ElementBool(true);
  w.FieldI32(2, 9);  // id lower than the previous one: long form
  w.StructEnd();

  CompactReader r(U8(buf), buf.size());
  int seen = 0;
  Status st = ReadStruct(r, [&](int16_t id, CType t) -> Status {
    ++seen;
    switch (id) {
      case 1: { bool b; RETURN_IF_ERROR(r.ReadBool(t, &b)); EXPECT_TRUE(b); return Status::OK(); }
      case 2: {
        if (t == CType::kI32) { int32_t v; RETURN_IF_ERROR(r.ReadI32(t, &v)); EXPECT_EQ(v, 9); return Status::OK(); }
        bool b; RETURN_IF_ERROR(r.ReadBool(t, &b)); EXPECT_FALSE(b); return Status::OK();
      }
      case 3: { int8_t v; RETURN_IF_ERROR(r.ReadI8(t, &v)); EXPECT_EQ(v, -7); return Status::OK(); }
      case 4: { int16_t v; RETURN_IF_ERROR(r.ReadI16(t, &v)); EXPECT_EQ(v, -300); return Status::OK(); }
      case 5: { int32_t v; RETURN_IF_ERROR(r.ReadI32(t, &v)); EXPECT_EQ(v, INT32_MIN); return Status::OK(); }
      case 6: { int64_t v; RETURN_IF_ERROR(r.ReadI64(t, &v)); EXPECT_EQ(v, INT64_MAX); return Status::OK(); }
      case 7: { double v; RETURN_IF_ERROR(r.ReadDouble(t, &v)); EXPECT_EQ(v, -2.5); return Status::OK(); }
      case 8: { std::string v; RETURN_IF_ERROR(r.ReadString(t, &v)); EXPECT_EQ(v, std::string("a\0b", 3)); return Status::OK(); }
      case 30:
        return ReadStruct(r, [&](int16_t fid, CType ft) -> Status {
          EXPECT_EQ(fid, 1);
          int32_t v;
          RETURN_IF_ERROR(r.ReadI32(ft, &v));
          EXPECT_EQ(v, 42);
          return Status::OK();
        });
      case 31: {
        std::vector<int64_t> v;
        RETURN_IF_ERROR(ReadI64List(r, t, &v));
        EXPECT_EQ(v.size(), 20u);
        EXPECT_EQ(v[19], int64_t(19) * -1000000007);
        return Status::OK();
      }
      case 32: {
        std::vector<bool> v;
        RETURN_IF_ERROR(ReadBoolList(r, t, &v));
        EXPECT_EQ(v, (std::vector<bool>{true, false, true}));
        return Status::OK();
      }
      default: ADD_FAILURE() << "unexpected id " << id; return r.Skip(t);
    }
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(seen, 12);
  EXPECT_EQ(r.remaining(), 0u);
}

// TryReadIntStruct reads exactly what the general path reads, and declines (consuming nothing)
// whatever is not a plain struct of the given integer fields.
TEST(ThriftCompactTest, IntStructFastPathAgreesWithTheGeneralPath) {
  static constexpr CType kTypes[3] = {CType::kI64, CType::kI32, CType::kI64};
  const int64_t values[][3] = {{0, 0, 0},
                               {-1, -1, -1},
                               {std::numeric_limits<int64_t>::max(), std::numeric_limits<int32_t>::min(),
                                std::numeric_limits<int64_t>::min()},
                               {123456789012, 70000, 1024}};
  for (const auto& v : values) {
    std::string buf;
    CompactWriter w(&buf);
    w.StructBegin();
    w.FieldI64(1, v[0]);
    w.FieldI32(2, int32_t(v[1]));
    w.FieldI64(3, v[2]);
    w.StructEnd();
    CompactReader r(U8(buf), buf.size());
    int64_t got[3];
    ASSERT_TRUE(r.TryReadIntStruct(kTypes, 3, got));
    EXPECT_EQ(got[0], v[0]);
    EXPECT_EQ(got[1], v[1]);
    EXPECT_EQ(got[2], v[2]);
    EXPECT_EQ(r.remaining(), 0u);
  }
  auto declined = [&](const std::string& buf) {
    CompactReader r(U8(buf), buf.size());
    int64_t got[3];
    bool ok = r.TryReadIntStruct(kTypes, 3, got);
    return !ok && r.position() == 0;
  };
  {  // a field missing
    std::string buf;
    CompactWriter w(&buf);
    w.StructBegin();
    w.FieldI64(1, 5);
    w.FieldI64(3, 7);
    w.StructEnd();
    EXPECT_TRUE(declined(buf));
  }
  {  // an extra field
    std::string buf;
    CompactWriter w(&buf);
    w.StructBegin();
    w.FieldI64(1, 5);
    w.FieldI32(2, 6);
    w.FieldI64(3, 7);
    w.FieldI32(4, 8);
    w.StructEnd();
    EXPECT_TRUE(declined(buf));
  }
  {  // a field of another type
    std::string buf;
    CompactWriter w(&buf);
    w.StructBegin();
    w.FieldI32(1, 5);
    w.FieldI32(2, 6);
    w.FieldI64(3, 7);
    w.StructEnd();
    EXPECT_TRUE(declined(buf));
  }
  // Truncated anywhere: declined.
  std::string whole;
  {
    CompactWriter w(&whole);
    w.StructBegin();
    w.FieldI64(1, 1 << 20);
    w.FieldI32(2, 300);
    w.FieldI64(3, 99);
    w.StructEnd();
  }
  for (size_t n = 0; n < whole.size(); ++n) EXPECT_TRUE(declined(whole.substr(0, n))) << n;
}

TEST(ThriftCompactTest, SkipsEveryTypeIncludingMaps) {
  std::string buf;
  CompactWriter w(&buf);
  w.StructBegin();
  w.FieldDouble(1, 1.0);
  w.FieldListBegin(2, CType::kStruct, 2);
  w.StructBegin(); w.FieldBinary(1, "x"); w.StructEnd();
  w.StructBegin(); w.FieldBool(3, true); w.StructEnd();
  w.FieldI32(3, 5);
  w.StructEnd();
  // Hand-made map field (id 4): size 2, i32 -> binary.
  buf.pop_back();  // remove STOP, append map field then STOP
  buf += char(0x1B);  // delta 1, type map
  buf += char(2);
  buf += char(0x58);
  buf += char(2); buf += char(1); buf += 'a';
  buf += char(4); buf += char(1); buf += 'b';
  buf += char(0);

  CompactReader r(U8(buf), buf.size());
  int32_t three = 0;
  Status st = ReadStruct(r, [&](int16_t id, CType t) -> Status {
    if (id == 3) return r.ReadI32(t, &three);
    return r.Skip(t);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(three, 5);
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(ThriftCompactTest, TruncationAndBadLengthsAreCorruptionWithOffset) {
  std::string buf;
  CompactWriter w(&buf);
  w.StructBegin();
  w.FieldBinary(1, "hello world");
  w.FieldListBegin(2, CType::kI32, 3);
  w.ElementI32(1); w.ElementI32(2); w.ElementI32(3);
  w.StructEnd();
  for (size_t cut = 0; cut < buf.size(); ++cut) {
    CompactReader r(U8(buf), cut, 1000);
    Status st = ReadStruct(r, [&](int16_t, CType t) { return r.Skip(t); });
    ASSERT_TRUE(st.IsCorruption()) << cut;
    EXPECT_NE(st.message().find("offset 10"), std::string::npos) << st.message();
  }
  // A binary claiming more bytes than exist.
  std::string bad = "\x18\xff\xff\x03" "abc";
  CompactReader r(U8(bad), bad.size());
  EXPECT_TRUE(ReadStruct(r, [&](int16_t, CType t) { return r.Skip(t); }).IsCorruption());
}

TEST(ThriftCompactTest, DeepNestingIsRejected) {
  std::string buf;
  for (int i = 0; i < 200; ++i) buf += char(0x1C);  // field 1: struct, nested
  CompactReader r(U8(buf), buf.size());
  Status st = ReadStruct(r, [&](int16_t, CType t) { return r.Skip(t); });
  EXPECT_TRUE(st.IsCorruption());
  EXPECT_NE(st.message().find("nested"), std::string::npos) << st.message();
}

TEST(ThriftCompactTest, OverlongVarintIsRejected) {
  std::string buf = "\x16";  // field 1, i64
  for (int i = 0; i < 11; ++i) buf += char(0xFF);
  CompactReader r(U8(buf), buf.size());
  EXPECT_TRUE(ReadStruct(r, [&](int16_t, CType t) { return r.Skip(t); }).IsCorruption());
}

}  // namespace
}  // namespace lakeindex::parquet::thrift
