#include "index/btree/btree_page_plan.h"

#include <algorithm>

namespace lakeindex::index::btree {

bool KeyInterval::AboveLower(std::string_view key) const {
  if (!lower) return true;
  const int c = key.compare(*lower);
  return c > 0 || (c == 0 && lower_inclusive);
}

bool KeyInterval::BelowUpper(std::string_view key) const {
  if (!upper) return true;
  const int c = key.compare(*upper);
  return c < 0 || (c == 0 && upper_inclusive);
}

namespace {

bool IsEmpty(const KeyInterval& iv) {
  if (!iv.lower || !iv.upper) return false;
  const int c = iv.lower->compare(*iv.upper);
  return c > 0 || (c == 0 && !(iv.lower_inclusive && iv.upper_inclusive));
}

KeyInterval Point(std::string key) {
  KeyInterval iv;
  iv.lower = key;
  iv.upper = std::move(key);
  return iv;
}

}  // namespace

Result<std::vector<KeyInterval>> QueryIntervals(TypeId type, const ScalarQuery& query) {
  std::vector<KeyInterval> out;
  switch (query.kind) {
    case ScalarQuery::Kind::kIsNull: return out;
    case ScalarQuery::Kind::kEquals: {
      if (query.values.empty()) return Status::InvalidArgument("btree query: = without a value");
      ASSIGN_OR_RETURN(std::string key, EncodeQueryKey(type, query.values[0]));
      out.push_back(Point(std::move(key)));
      return out;
    }
    case ScalarQuery::Kind::kIn: {
      std::vector<std::string> keys;
      keys.reserve(query.values.size());
      for (const Value& v : query.values) {
        ASSIGN_OR_RETURN(std::string key, EncodeQueryKey(type, v));
        keys.push_back(std::move(key));
      }
      std::sort(keys.begin(), keys.end());
      keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
      out.reserve(keys.size());
      for (std::string& k : keys) out.push_back(Point(std::move(k)));
      return out;
    }
    case ScalarQuery::Kind::kPrefix: {
      if (type != TypeId::kString) {
        return Status::InvalidArgument(std::string("btree query: prefix match on a column of type ") + TypeName(type));
      }
      KeyInterval iv;
      iv.lower = query.prefix;
      iv.upper = PrefixSuccessor(query.prefix);
      iv.upper_inclusive = false;
      if (query.prefix.empty()) iv.lower.reset();
      out.push_back(std::move(iv));
      return out;
    }
    case ScalarQuery::Kind::kRange: {
      KeyInterval iv;
      if (query.lower) {
        ASSIGN_OR_RETURN(std::string key, EncodeQueryKey(type, *query.lower));
        iv.lower = std::move(key);
      }
      if (query.upper) {
        ASSIGN_OR_RETURN(std::string key, EncodeQueryKey(type, *query.upper));
        iv.upper = std::move(key);
      }
      iv.lower_inclusive = query.lower_inclusive;
      iv.upper_inclusive = query.upper_inclusive;
      if (!IsEmpty(iv)) out.push_back(std::move(iv));
      return out;
    }
  }
  return Status::InvalidArgument("btree query: unknown kind");
}

std::vector<PageTask> PlanPages(const PageDirectory& dir, const std::vector<KeyInterval>& intervals) {
  std::vector<PageTask> tasks;
  const size_t pages = dir.num_pages();
  size_t cursor = 0;
  for (size_t i = 0; i < intervals.size() && cursor < pages; ++i) {
    const KeyInterval& iv = intervals[i];
    // First page whose max satisfies the lower bound (maxs ascend).
    size_t p = iv.lower ? dir.maxs.LowerBound(*iv.lower, !iv.lower_inclusive, cursor, pages) : cursor;
    size_t last_hit = p;
    for (; p < pages && iv.BelowUpper(dir.mins[p]); ++p) {
      last_hit = p;
      const bool all = iv.AboveLower(dir.mins[p]) && iv.BelowUpper(dir.maxs[p]);
      if (!tasks.empty() && tasks.back().page == p) {
        tasks.back().end_interval = uint32_t(i + 1);
        tasks.back().all = tasks.back().all || all;
      } else {
        tasks.push_back(PageTask{uint32_t(p), all, uint32_t(i), uint32_t(i + 1)});
      }
    }
    // Later intervals lie above this one, so pages before the last one it touched are done.
    cursor = std::max(cursor, last_hit);
  }
  return tasks;
}

std::pair<size_t, size_t> KeysInInterval(const KeyArray& keys, const KeyInterval& iv) {
  const size_t n = keys.size();
  const size_t begin = iv.lower ? keys.LowerBound(*iv.lower, !iv.lower_inclusive, 0, n) : 0;
  const size_t end = iv.upper ? keys.LowerBound(*iv.upper, iv.upper_inclusive, begin, n) : n;
  return {begin, end};
}

}  // namespace lakeindex::index::btree
