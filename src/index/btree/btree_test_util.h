// Helpers shared by the BTree tests (header-only; not part of the library): building segments
// from columns on a store, random columns with duplicates and NULLs, random queries and the
// brute-force answer every search is compared with.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "index/btree/btree_builder.h"
#include "index/btree/btree_reader.h"
#include "index/scalar_index.h"
#include "lakeindex/batch.h"
#include "util/test_util.h"

namespace lakeindex::index::btree::testutil {

// `rows` values of `type`; with `distinct` > 0 values come from a pool of that many (so equal
// values span page boundaries); each is NULL with probability null_fraction.
inline Column RandomColumn(TypeId type, size_t rows, uint64_t seed, double null_fraction, size_t distinct = 0) {
  lakeindex::testing::Rng rng(seed);
  std::vector<Value> pool;
  for (size_t i = 0; i < distinct; ++i) pool.push_back(lakeindex::testing::RandomValue(type, rng));
  Column c(type);
  for (size_t i = 0; i < rows; ++i) {
    if (rng.Chance(null_fraction)) {
      c.AppendNull();
      continue;
    }
    Value v = pool.empty() ? lakeindex::testing::RandomValue(type, rng) : pool[rng.Uniform(pool.size())];
    EXPECT_TRUE(c.AppendValue(v).ok());
  }
  return c;
}

// Addresses spread over a few fragments, in a shuffled order.
inline std::vector<uint64_t> RandomAddresses(size_t rows, uint64_t seed) {
  std::vector<uint64_t> a(rows);
  for (size_t i = 0; i < rows; ++i) a[i] = MakeRowAddress(uint32_t(i % 3), uint32_t(i / 3));
  lakeindex::testing::Rng rng(seed);
  for (size_t i = rows; i > 1; --i) std::swap(a[i - 1], a[rng.Uniform(i)]);
  return a;
}

inline NullableRowSet BruteForce(const Column& values, const std::vector<uint64_t>& addresses, const ScalarQuery& q) {
  NullableRowSet out;
  for (size_t i = 0; i < values.length(); ++i) {
    const Value v = values.GetValue(i);
    if (v.is_null()) {
      (q.kind == ScalarQuery::Kind::kIsNull ? out.true_rows : out.null_rows).Add(addresses[i]);
    } else if (q.Matches(v)) {
      out.true_rows.Add(addresses[i]);
    }
  }
  return out;
}

// Random queries of every kind with literals taken from the data (to hit), hostile values and
// random values (to miss).
inline std::vector<ScalarQuery> RandomQueries(const Column& values, uint64_t seed, size_t count) {
  lakeindex::testing::Rng rng(seed);
  const TypeId type = values.type();
  auto literal = [&]() -> Value {
    if (values.length() > 0 && rng.Chance(0.6)) {
      Value v = values.GetValue(rng.Uniform(values.length()));
      if (!v.is_null()) return v;
    }
    return lakeindex::testing::RandomValue(type, rng);
  };
  std::vector<ScalarQuery> qs;
  qs.push_back(ScalarQuery::IsNull());
  qs.push_back(ScalarQuery::Range(std::nullopt, true, std::nullopt, true));
  for (const Value& h : lakeindex::testing::HostileValues(type)) qs.push_back(ScalarQuery::Equals(h));
  for (size_t i = 0; i < count; ++i) {
    switch (rng.Uniform(type == TypeId::kString ? 5 : 4)) {
      case 0: qs.push_back(ScalarQuery::Equals(literal())); break;
      case 1: {
        std::optional<Value> lo, hi;
        if (!rng.Chance(0.2)) lo = literal();
        if (!rng.Chance(0.2)) hi = literal();
        if (lo && hi && CompareValues(*lo, *hi) > 0 && rng.Chance(0.8)) std::swap(lo, hi);
        qs.push_back(ScalarQuery::Range(lo, rng.Chance(0.5), hi, rng.Chance(0.5)));
        break;
      }
      case 2: {
        std::vector<Value> in;
        const size_t k = 1 + rng.Uniform(20);
        for (size_t j = 0; j < k; ++j) in.push_back(literal());
        qs.push_back(ScalarQuery::In(std::move(in)));
        break;
      }
      case 3: qs.push_back(ScalarQuery::Equals(literal())); break;
      case 4: {
        std::string s = literal().string_value();
        s.resize(rng.Uniform(s.size() + 1));
        if (rng.Chance(0.1)) s.push_back('\xff');
        qs.push_back(ScalarQuery::Prefix(s));
        break;
      }
    }
  }
  return qs;
}

inline std::shared_ptr<BTreeSegment> BuildAndOpen(ObjectStore* store, const Column& values,
                                                  const std::vector<uint64_t>& addresses, BTreeBuildOptions options,
                                                  BTreeSegmentOptions open_options = {}) {
  auto builder = BTreeBuilder::Make(store, values.type(), options);
  EXPECT_TRUE(builder.ok()) << builder.status().ToString();
  EXPECT_TRUE((*builder)->Add(values, addresses).ok());
  auto info = (*builder)->Finish();
  EXPECT_TRUE(info.ok()) << info.status().ToString();
  auto seg = BTreeSegment::Open(store, info->uuid, open_options);
  EXPECT_TRUE(seg.ok()) << seg.status().ToString();
  return seg.ok() ? *seg : nullptr;
}

// Every (key, address) entry of a segment, in page order, with the page sizes.
struct Dump {
  std::vector<std::pair<std::string, uint64_t>> entries;
  std::vector<uint32_t> page_rows;
  std::vector<uint64_t> nulls;
  bool operator==(const Dump&) const = default;
};

inline Dump DumpSegment(const BTreeSegment& seg) {
  Dump d;
  for (uint32_t p = 0; p < seg.directory().num_pages(); ++p) {
    auto page = seg.ReadPageUncached(p);
    EXPECT_TRUE(page.ok()) << page.status().ToString();
    if (!page.ok()) break;
    for (size_t i = 0; i < (*page)->addresses.size(); ++i) {
      d.entries.emplace_back(std::string((*page)->keys[i]), (*page)->addresses[i]);
    }
    d.page_rows.push_back(seg.directory().rows[p]);
  }
  d.nulls = seg.null_rows().ToVector();
  return d;
}

}  // namespace lakeindex::index::btree::testutil
