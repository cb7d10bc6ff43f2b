// ThreadPool: a small fixed pool of worker threads for independent work (page searches of one
// query, fragments of one scan). ParallelFor runs n calls on the pool *and* the calling thread.
//
// Contract: Submit()ted tasks run in FIFO order on some worker; the destructor finishes every
// queued task and joins the workers. ParallelFor(pool, n, fn) calls fn(i) exactly once for each
// i in [0, n) and returns when all calls have finished. The caller claims indexes too and waits
// only for calls already running on workers, so ParallelFor never deadlocks even when called
// from inside a pool task with every worker busy (it then simply runs serially).
// Thread safety: every method may be called concurrently. Default() is created on first use and
// lives until process exit; its size is the hardware thread count (at least 2).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "lakeindex/status.h"

namespace lakeindex {

class ThreadPool {
 public:
  // REQUIRES: threads >= 1.
  explicit ThreadPool(size_t threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void Submit(std::function<void()> task);
  size_t size() const { return workers_.size(); }

  // The process-wide pool (--threads changes the size of pools created afterwards only; callers
  // that need another size make their own pool).
  static ThreadPool* Default();

 private:
  void WorkerLoop();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

// Calls fn(i) for every i in [0, n), spread over `pool` (may be nullptr: serial) and the caller.
void ParallelFor(ThreadPool* pool, size_t n, const std::function<void(size_t)>& fn);

// For work that waits on the network (requests to a remote store): fn(i) for every i in [0, n)
// on up to max_threads threads of its own (the caller's included), so that n requests take about
// one round trip and not n / cores. Not for CPU-bound work.
void ParallelForThreads(size_t n, size_t max_threads, const std::function<void(size_t)>& fn);
// Runs consume(i, prepare(i)) for i = 0 .. n-1 in order, prepare(i + 1) running on a thread of
// its own meanwhile: reading the next piece of work while this one is written (at most two
// prepared values exist at once). The first error ends it, once the step in flight has finished.
// prepare: Result<T>(size_t); consume: Status(size_t, T).
template <typename T, typename Prepare, typename Consume>
Status Pipelined(size_t n, const Prepare& prepare, const Consume& consume) {
  if (n == 0) return Status::OK();
  auto start = [&](size_t i) { return std::async(std::launch::async, [&prepare, i] { return prepare(i); }); };
  std::future<Result<T>> next = start(0);
  for (size_t i = 0; i < n; ++i) {
    Result<T> ready = next.get();
    if (!ready.ok()) return ready.status();
    if (i + 1 < n) next = start(i + 1);
    RETURN_IF_ERROR(consume(i, std::move(ready).value()));  // on an error, next's destructor waits for it
  }
  return Status::OK();
}

// Requests a reader sends together to a remote store.
inline constexpr size_t kRemoteFanOut = 16;

}  // namespace lakeindex
