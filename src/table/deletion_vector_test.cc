#include "table/deletion_vector.h"

#include <random>

#include <gtest/gtest.h>

namespace lakeindex::table {
namespace {

Result<DeletionVector> Decode(const std::string& s) {
  return DecodeDeletionVector(reinterpret_cast<const uint8_t*>(s.data()), s.size(), "dv.bin");
}

TEST(DeletionVectorTest, RoundTripsRandomSets) {
  std::mt19937 rng(1);
  for (int trial = 0; trial < 50; ++trial) {
    DeletionVector dv;
    dv.fragment_id = rng();
    dv.fragment_rows = 1 + rng() % 200000;
    int n = int(rng() % 5000);
    for (int i = 0; i < n; ++i) dv.deleted.add(rng() % dv.fragment_rows);
    if (trial % 5 == 0) dv.deleted.addRange(0, dv.fragment_rows);
    auto back = Decode(EncodeDeletionVector(dv));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->fragment_id, dv.fragment_id);
    EXPECT_EQ(back->fragment_rows, dv.fragment_rows);
    EXPECT_TRUE(back->deleted == dv.deleted);
  }
}

TEST(DeletionVectorTest, CorruptionIsDetectedEverywhere) {
  DeletionVector dv;
  dv.fragment_id = 3;
  dv.fragment_rows = 1000;
  for (uint32_t i = 0; i < 1000; i += 7) dv.deleted.add(i);
  std::string bytes = EncodeDeletionVector(dv);
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (int bit : {0, 7}) {
      std::string bad = bytes;
      bad[i] = char(bad[i] ^ (1 << bit));
      auto r = Decode(bad);
      ASSERT_FALSE(r.ok()) << "flip at " << i;
      EXPECT_TRUE(r.status().IsCorruption() || r.status().IsNotSupported());
      EXPECT_NE(r.status().message().find("dv.bin"), std::string::npos);
    }
  }
  for (size_t n = 0; n < bytes.size(); ++n) EXPECT_TRUE(Decode(bytes.substr(0, n)).status().IsCorruption());
}

}  // namespace
}  // namespace lakeindex::table
