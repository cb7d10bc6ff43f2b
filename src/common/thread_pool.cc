#include "common/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <memory>

namespace lakeindex {

ThreadPool::ThreadPool(size_t threads) {
  threads = std::max<size_t>(1, threads);
  workers_.reserve(threads);
  for (size_t i = 0; i < threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::Submit(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(task));
  }
  cv_.notify_one();
}

void ThreadPool::WorkerLoop() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and drained
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

ThreadPool* ThreadPool::Default() {
  // Leaked on purpose: workers must not be joined during static destruction while other
  // static objects they touch are being torn down.
  static ThreadPool* pool = new ThreadPool(std::max(2u, std::thread::hardware_concurrency()));
  return pool;
}

namespace {

// Shared with helper tasks, which may start after ParallelFor returned (then they find no work
// left and touch nothing but this state).
struct ForState {
  size_t n = 0;
  const std::function<void(size_t)>* fn = nullptr;
  std::atomic<size_t> next{0};
  std::mutex mu;
  std::condition_variable cv;
  size_t done = 0;

  void RunClaimed() {
    for (;;) {
      size_t i = next.fetch_add(1);
      if (i >= n) return;
      (*fn)(i);
      std::lock_guard<std::mutex> lock(mu);
      if (++done == n) cv.notify_all();
    }
  }
};

}  // namespace

void ParallelFor(ThreadPool* pool, size_t n, const std::function<void(size_t)>& fn) {
  if (n == 0) return;
  if (pool == nullptr || n == 1) {
    for (size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  auto state = std::make_shared<ForState>();
  state->n = n;
  state->fn = &fn;
  const size_t helpers = std::min(n - 1, pool->size());
  for (size_t h = 0; h < helpers; ++h) pool->Submit([state] { state->RunClaimed(); });
  state->RunClaimed();
  std::unique_lock<std::mutex> lock(state->mu);
  state->cv.wait(lock, [&] { return state->done == n; });
}

void ParallelForThreads(size_t n, size_t max_threads, const std::function<void(size_t)>& fn) {
  if (n == 0) return;
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < n; i = next++) fn(i);
  };
  std::vector<std::thread> threads;
  const size_t extra = std::min(n, std::max<size_t>(max_threads, 1)) - 1;
  threads.reserve(extra);
  for (size_t t = 0; t < extra; ++t) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
}

}  // namespace lakeindex
