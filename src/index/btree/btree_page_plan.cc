#include "index/btree/btree_page_plan.h"

#include <algorithm>

namespace lakeindex::index::btree {

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

}  // namespace lakeindex::index::btree
