#include "index/zonemap/zonemap_format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace lakeindex::index::zonemap {
namespace {

Zone MakeZone(uint32_t fragment, uint32_t start, uint32_t length, std::optional<int64_t> min,
              std::optional<int64_t> max, uint64_t nulls = 0) {
  Zone z;
  z.fragment_id = fragment;
  z.start = start;
  z.length = length;
  z.null_count = nulls;
  if (min) z.min = Value::Int64(*min);
  if (max) z.max = Value::Int64(*max);
  return z;
}

// Two fragments, zone_rows 4: fragment 3 has 10 rows (4+4+2), fragment 0xFFFFFFFF has 4 NULLs.
ZoneMapContents Sample() {
  ZoneMapContents c;
  c.type = TypeId::kInt64;
  c.zone_rows = 4;
  c.zones = {MakeZone(3, 0, 4, 1, 9), MakeZone(3, 4, 4, -5, 5, 1), MakeZone(3, 8, 2, 7, 7),
             MakeZone(0xFFFFFFFFu, 0, 4, std::nullopt, std::nullopt, 4)};
  return c;
}

Result<ZoneMapContents> RoundTrip(const ZoneMapContents& c) {
  ASSIGN_OR_RETURN(Batch b, EncodeZones(c));
  return DecodeZones(b, ZoneMapMetadata(c), "t.parquet");
}

TEST(ZoneMapFormat, PathAndSchema) {
  EXPECT_EQ(ZoneMapPath("abc"), "_indices/abc/zonemap.parquet");
  Schema s = ZoneMapSchema(TypeId::kString);
  ASSERT_EQ(s.num_fields(), 7u);
  EXPECT_EQ(s.field(0).type, TypeId::kString);
  EXPECT_TRUE(s.field(0).nullable);
  EXPECT_EQ(s.field(4).name, "fragment_id");
  EXPECT_FALSE(s.field(6).nullable);
}

TEST(ZoneMapFormat, EncodeDecodeRoundTripKeepsU32FragmentIds) {
  auto got = RoundTrip(Sample());
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->zones, Sample().zones);
  EXPECT_EQ(got->zone_rows, 4u);
  EXPECT_EQ(got->zones.back().fragment_id, 0xFFFFFFFFu);
}

TEST(ZoneMapFormat, ChecksumCoversEveryField) {
  std::string base = ZoneChecksum(Sample());
  EXPECT_EQ(base.rfind("xxh64:", 0), 0u);
  EXPECT_EQ(base.size(), 6u + 16u);
  std::vector<ZoneMapContents> changed(6, Sample());
  changed[0].zone_rows = 5;
  changed[1].zones[1].null_count = 2;
  changed[2].zones[0].max = Value::Int64(10);
  changed[3].zones[2].fragment_id = 4;
  changed[4].type = TypeId::kTimestamp;
  changed[5].zones[3].nan_count = 1;
  for (const auto& c : changed) EXPECT_NE(ZoneChecksum(c), base);
}

TEST(ZoneMapFormat, FloatBoundsRoundTripBitExact) {
  ZoneMapContents c;
  c.type = TypeId::kDouble;
  c.zone_rows = 8;
  Zone z;
  z.length = 8;
  z.nan_count = 2;
  z.null_count = 1;
  z.min = Value::Double(-0.0);
  z.max = Value::Double(std::numeric_limits<double>::infinity());
  c.zones = {z};
  auto got = RoundTrip(c);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE(std::signbit(got->zones[0].min->double_value()));
  EXPECT_EQ(got->zones[0], z);
}

TEST(ZoneMapFormat, MetadataDamageIsCorruptionNamingTheFile) {
  ZoneMapContents c = Sample();
  auto batch = EncodeZones(c);
  ASSERT_TRUE(batch.ok());
  auto with = [&](const std::string& key, const std::string& value) {
    auto kv = ZoneMapMetadata(c);
    for (auto& [k, v] : kv) {
      if (k == key) v = value;
    }
    return DecodeZones(*batch, kv, "seg.parquet").status();
  };
  for (auto [key, value] : std::vector<std::pair<std::string, std::string>>{
           {kZoneMapMagicKey, "nope"},
           {kColumnTypeKey, "int128"},
           {kColumnTypeKey, "string"},  // schema no longer matches
           {kZoneRowsKey, "0"},
           {kZoneRowsKey, "-4"},
           {kZoneRowsKey, "99999999999999999999999"},
           {kZonesKey, "5"},
           {kChecksumKey, "xxh64:0000000000000000"}}) {
    Status st = with(key, value);
    EXPECT_TRUE(st.IsCorruption()) << key << "=" << value << ": " << st.ToString();
    EXPECT_NE(st.message().find("seg.parquet"), std::string::npos) << st.ToString();
  }
  EXPECT_TRUE(with(kFormatVersionKey, "2").IsNotSupported());
  EXPECT_TRUE(DecodeZones(*batch, {}, "seg.parquet").status().IsCorruption());
}

TEST(ZoneMapFormat, SchemaMismatchIsCorruption) {
  ZoneMapContents c = Sample();
  auto batch = EncodeZones(c);
  ASSERT_TRUE(batch.ok());
  Batch fewer(Schema({batch->schema().fields().begin(), batch->schema().fields().end() - 1}),
              {batch->columns().begin(), batch->columns().end() - 1}, batch->num_rows());
  EXPECT_TRUE(DecodeZones(fewer, ZoneMapMetadata(c), "s").status().IsCorruption());
}

TEST(ZoneMapFormat, ValidateZonesRejectsBrokenInvariants) {
  auto broken = [](auto mutate) {
    ZoneMapContents c = Sample();
    mutate(c);
    return ValidateZones(c, "v.parquet");
  };
  EXPECT_TRUE(ValidateZones(Sample(), "v.parquet").ok());
  std::vector<Status> bad = {
      broken([](ZoneMapContents& c) { c.zones[0].length = 0; }),
      broken([](ZoneMapContents& c) { c.zones[2].length = 5; }),            // above zone_rows
      broken([](ZoneMapContents& c) { c.zones[1].length = 3; }),            // short, not last
      broken([](ZoneMapContents& c) { c.zones[1].start = 5; }),             // gap
      broken([](ZoneMapContents& c) { c.zones[0].start = 1; }),             // fragment not at 0
      broken([](ZoneMapContents& c) { std::swap(c.zones[0], c.zones[3]); }),  // fragment order
      broken([](ZoneMapContents& c) { c.zones[1].null_count = 5; }),
      broken([](ZoneMapContents& c) { c.zones[1].nan_count = 1; }),         // NaN in an int column
      broken([](ZoneMapContents& c) { c.zones[0].max.reset(); }),
      broken([](ZoneMapContents& c) { c.zones[0].min = Value::Int64(10); }),  // min > max
      broken([](ZoneMapContents& c) { c.zones[3].min = c.zones[3].max = Value::Int64(1); }),  // all NULL
      broken([](ZoneMapContents& c) { c.zones[2].min.reset(), c.zones[2].max.reset(); }),  // values, no bounds
      broken([](ZoneMapContents& c) { c.zones[0].min = Value::String("a"); }),
      broken([](ZoneMapContents& c) { c.zone_rows = 0; }),
  };
  for (size_t i = 0; i < bad.size(); ++i) {
    EXPECT_TRUE(bad[i].IsCorruption()) << i << ": " << bad[i].ToString();
    EXPECT_NE(bad[i].message().find("v.parquet"), std::string::npos) << i;
  }
}

TEST(ZoneMapFormat, NaNBoundIsCorruption) {
  ZoneMapContents c;
  c.type = TypeId::kFloat;
  c.zone_rows = 2;
  Zone z;
  z.length = 2;
  z.min = Value::Float(1);
  z.max = Value::Float(std::nanf(""));
  c.zones = {z};
  EXPECT_TRUE(ValidateZones(c, "f").IsCorruption());
}

}  // namespace
}  // namespace lakeindex::index::zonemap
