// External merge sort of (key, row address) entries under a memory budget, and the sorted
// streams it produces. Order: key bytewise (index/index_key.h), ties by row address.
//
// ExternalSorter buffers entries in memory (SortBuffer, btree_sort_buffer.h: radix sort of
// integer keys, prefix sort of strings); when the buffer reaches its share of the budget it is
// sorted and written as a *run* file in `spill_dir` (default: the system temp dir, $TMPDIR). Runs are local
// scratch files, not store objects: they are private to one build, need no atomicity and are
// deleted by the sorter's destructor. Finish() merges the runs, the in-memory rest and any
// already-sorted sources (e.g. an existing segment's pages) with a heap; with more than
// kMaxFanIn runs it first merges groups of runs into longer runs, so open files stay bounded.
// Run file record: u32 LE key length, key bytes, u64 LE row address; with fixed-width keys, the
// key's increase over the record before and the row address (its increase when the key is the
// same) as two ULEB128 varints. The spilling buffer keeps its memory from run to run, and what
// is buffered at Finish() is merged from memory.
// Thread safety: none; one sorter per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "index/index_key.h"
#include "lakeindex/status.h"

namespace lakeindex::index::btree {

struct SortedEntry {
  std::string_view key;  // valid until the stream's next Next() call
  uint64_t address = 0;
};

inline bool EntryLess(const SortedEntry& a, const SortedEntry& b) {
  const int c = a.key.compare(b.key);
  return c < 0 || (c == 0 && a.address < b.address);
}

// A stream of entries in (key, address) order.
class SortedStream {
 public:
  virtual ~SortedStream() = default;
  // Sets *out and returns true, or returns false at the end.
  virtual Result<bool> Next(SortedEntry* out) = 0;
};

class SortBuffer;

class ExternalSorter {
 public:
  static constexpr size_t kMaxFanIn = 64;

  // key_width: KeyWidth() of the column type. An empty spill_dir means the system temp dir.
  // expected_entries (0: unknown): how many entries will be added, so that the buffer is sized
  // once rather than grown (fixed-width keys).
  ExternalSorter(size_t key_width, uint64_t memory_budget_bytes, std::string spill_dir,
                 uint64_t expected_entries = 0);
  ~ExternalSorter();
  ExternalSorter(const ExternalSorter&) = delete;
  ExternalSorter& operator=(const ExternalSorter&) = delete;

  Status Add(std::string_view key, uint64_t address);
  // A fixed-width key as its integer (LoadFixedKey of the key bytes). REQUIRES key_width != 0.
  Status AddFixed(uint64_t key, uint64_t address);
  // A source already in (key, address) order, merged in at Finish() without being buffered.
  void AddSortedSource(std::unique_ptr<SortedStream> source);
  // Ends input. The stream reads run files owned by the sorter: keep the sorter alive while
  // reading it.
  Result<std::unique_ptr<SortedStream>> Finish();

  // Deletes every run file (also done by the destructor). REQUIRES: the stream from Finish() is
  // destroyed.
  void RemoveRunFiles();

  size_t runs_spilled() const { return runs_spilled_; }
  uint64_t entries() const { return entries_; }

 private:
  Status SpillBuffer();
  Status SpillIfFull();
  Result<std::string> NewRunPath();
  // A run file and the entries written to it (its reader checks that it finds them all).
  struct Run {
    std::string path;
    uint64_t entries = 0;
  };
  Result<Run> MergeRuns(const std::vector<Run>& runs);
  Result<std::unique_ptr<SortedStream>> OpenRun(const Run& run) const;
  Result<Run> WriteRun(SortedStream* sorted, std::string path) const;

  size_t key_width_;
  uint64_t budget_;
  std::string spill_dir_;
  std::string run_prefix_;
  std::unique_ptr<SortBuffer> buffer_;
  std::vector<Run> runs_;                   // run files not yet merged away
  std::vector<std::string> all_run_files_;  // everything to delete at the end
  std::vector<std::unique_ptr<SortedStream>> sources_;
  size_t runs_spilled_ = 0;
  uint64_t entries_ = 0;
  bool finished_ = false;
};

// Merges sorted streams into one sorted stream.
std::unique_ptr<SortedStream> MergeStreams(std::vector<std::unique_ptr<SortedStream>> streams);

}  // namespace lakeindex::index::btree
