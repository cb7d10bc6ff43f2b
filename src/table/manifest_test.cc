#include "table/manifest.h"

#include <cmath>
#include <functional>

#include <gtest/gtest.h>

namespace lakeindex::table {
namespace {

Manifest Sample() {
  Manifest m;
  m.version = 3;
  m.parent_version = 2;
  m.timestamp_ms = 1700000000000;
  m.operation = "append";
  m.schema = *Schema::Parse("id:int64!,name:string,x:double,d:date");
  m.next_fragment_id = 5;
  FragmentMeta f;
  f.id = 4;
  f.file = "data/abc.parquet";
  f.rows = 100;
  f.file_size = 4096;
  f.deletion = DeletionRef{"_deletions/4-xyz.bin", 3};
  ColumnStats s;
  s.min = Value::Int64(-5);
  s.max = Value::Int64(std::numeric_limits<int64_t>::max());
  s.row_count = 100;
  f.stats["id"] = s;
  ColumnStats x;
  x.min = Value::Double(-INFINITY);
  x.max = Value::Double(0.5);
  x.nan_count = 2;
  x.null_count = 7;
  x.row_count = 100;
  f.stats["x"] = x;
  ColumnStats n;
  n.min = Value::String("\xc3\xa9t\xc3\xa9");
  n.max = Value::String("z");
  n.row_count = 100;
  f.stats["name"] = n;
  f.tail = DataTail{3000, 0x0123456789abcdefull, DataTail::Split{3600, 0xfedcba9876543210ull, 42}};
  m.fragments.push_back(f);
  return m;
}

Result<Manifest> Parse(const std::string& text) {
  return ParseManifest(reinterpret_cast<const uint8_t*>(text.data()), text.size(), "v.manifest");
}

TEST(ManifestTest, RoundTrips) {
  Manifest m = Sample();
  auto back = Parse(SerializeManifest(m));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->version, 3u);
  EXPECT_EQ(back->schema, m.schema);
  ASSERT_EQ(back->fragments.size(), 1u);
  EXPECT_EQ(back->fragments[0], m.fragments[0]);
  EXPECT_EQ(back->total_rows(), 97u);
}

// `edit` applied to the serialized manifest's first fragment's "tail", then re-sealed.
Result<Manifest> WithTail(const std::function<void(nlohmann::json*)>& edit) {
  nlohmann::json j = nlohmann::json::parse(SerializeManifest(Sample()));
  j.erase("checksum");
  edit(&j["fragments"][0]["tail"]);
  j["checksum"] = ManifestChecksum(j);
  return Parse(j.dump());
}

TEST(ManifestTest, TheTailsSplitIsOptionalAndChecked) {
  // Written before the split existed: the tail alone.
  auto old = WithTail([](nlohmann::json* t) {
    for (const char* key : {"oi_offset", "ci_xxh64", "oi_xxh64"}) t->erase(key);
  });
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  ASSERT_TRUE(old->fragments[0].tail.has_value());
  EXPECT_EQ(old->fragments[0].tail->offset, 3000u);
  EXPECT_EQ(old->fragments[0].tail->xxh64, 0x0123456789abcdefull);
  EXPECT_FALSE(old->fragments[0].tail->split.has_value());
  auto same = WithTail([](nlohmann::json*) {});
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->fragments[0], Sample().fragments[0]);
  const std::vector<std::pair<std::string, std::function<void(nlohmann::json*)>>> bad = {
      {"oi_offset", [](nlohmann::json* t) { (*t)["oi_offset"] = 2999; }},
      {"oi_offset", [](nlohmann::json* t) { (*t)["oi_offset"] = 4096; }},
      {"oi_offset", [](nlohmann::json* t) { (*t)["oi_offset"] = -1; }},
      {"ci_xxh64", [](nlohmann::json* t) { (*t)["ci_xxh64"] = "12345"; }},
      {"oi_xxh64", [](nlohmann::json* t) { t->erase("oi_xxh64"); }},
      {"without its oi_offset", [](nlohmann::json* t) { t->erase("oi_offset"); }},
  };
  for (const auto& [what, edit] : bad) {
    auto r = WithTail(edit);
    ASSERT_FALSE(r.ok()) << what;
    EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
    EXPECT_NE(r.status().message().find(what), std::string::npos) << r.status().ToString();
  }
}

TEST(ManifestTest, InvalidUtf8StatsAreDroppedNotMangled) {
  Manifest m = Sample();
  m.fragments[0].stats["name"].min = Value::String("\xff");
  auto back = Parse(SerializeManifest(m));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_FALSE(back->fragments[0].stats["name"].min.has_value());
  EXPECT_FALSE(back->fragments[0].stats["name"].max.has_value());
}

TEST(ManifestTest, EveryByteFlipIsDetected) {
  std::string text = SerializeManifest(Sample());
  for (size_t i = 0; i < text.size(); ++i) {
    std::string bad = text;
    bad[i] = char(bad[i] ^ 0x01);
    auto r = Parse(bad);
    // Flipping whitespace between tokens may leave the same JSON: then it must parse identically.
    if (r.ok()) {
      EXPECT_EQ(r->fragments[0], Sample().fragments[0]) << "offset " << i;
    } else {
      EXPECT_TRUE(r.status().IsCorruption() || r.status().IsNotSupported()) << r.status().ToString();
    }
  }
  for (size_t n = 0; n < text.size(); ++n) {
    EXPECT_FALSE(Parse(text.substr(0, n)).ok()) << "truncated to " << n;
  }
}

TEST(ManifestTest, RefusesPathsEscapingTheTable) {
  for (const char* file : {"../x.parquet", "/etc/passwd", "data/../../x", "other/x.parquet"}) {
    Manifest m = Sample();
    m.fragments[0].file = file;
    auto r = Parse(SerializeManifest(m));
    ASSERT_FALSE(r.ok()) << file;
    EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
  }
  Manifest m = Sample();
  m.fragments[0].deletion->file = "_deletions/../../x";
  EXPECT_FALSE(Parse(SerializeManifest(m)).ok());
}

// Manifests that carry a valid checksum but contradict themselves are Corruption, not a table
// that answers wrongly: one file under two fragment ids (its rows counted twice), one deletion
// file for two fragments, statistics of another row count.
TEST(ManifestTest, RefusesInconsistentManifests) {
  struct Case {
    std::string what;
    std::function<void(Manifest*)> damage;
  };
  const std::vector<Case> cases = {
      {"belongs to another fragment", [](Manifest* m) {
         FragmentMeta twin = m->fragments[0];
         twin.id = 3;
         twin.deletion.reset();
         m->fragments.push_back(twin);
       }},
      {"belongs to another fragment", [](Manifest* m) {
         FragmentMeta other = m->fragments[0];
         other.id = 2;
         other.file = "data/other.parquet";
         m->fragments.push_back(other);  // same deletion file
       }},
      {"stats of column", [](Manifest* m) { m->fragments[0].stats["x"].row_count = 99; }},
      {"stats of column", [](Manifest* m) { m->fragments[0].stats["x"].null_count = 101; }},
  };
  for (const Case& c : cases) {
    Manifest m = Sample();
    c.damage(&m);
    auto r = Parse(SerializeManifest(m));
    ASSERT_FALSE(r.ok()) << c.what;
    EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
    EXPECT_NE(r.status().message().find(c.what), std::string::npos) << r.status().ToString();
  }
  EXPECT_TRUE(Parse(SerializeManifest(Sample())).ok());
}

TEST(ManifestTest, PathNames) {
  EXPECT_EQ(ManifestPath(7), "_versions/00000000000000000007.manifest");
  EXPECT_EQ(ParseManifestPath(ManifestPath(123456789)), 123456789u);
  EXPECT_FALSE(ParseManifestPath("_versions/7.manifest").has_value());
  EXPECT_FALSE(ParseManifestPath("_versions/0000000000000000000a.manifest").has_value());
}

}  // namespace
}  // namespace lakeindex::table
