#include "plugins/cpu/runtime/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>

namespace plexa::cpu {
namespace {

// Set while this thread runs a chunk of a parallel job: nested ParallelFor
// calls then run inline (the pool's threads may all be busy with the outer
// job, so waiting for them could deadlock).
thread_local bool tls_in_parallel_region = false;

// Threads spin this long for new work (workers) or for the last chunks
// (callers) before sleeping: fork-join loops issue ParallelFor calls back to
// back, and a futex wake-up costs tens of microseconds.
constexpr auto kSpinTime = std::chrono::microseconds(50);

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Spins until done() or kSpinTime passed; returns done().
template <typename Done>
bool SpinUntil(Done done) {
  const auto deadline = std::chrono::steady_clock::now() + kSpinTime;
  for (int i = 0;; ++i) {
    if (done()) return true;
    CpuRelax();
    if ((i & 63) == 63 && std::chrono::steady_clock::now() > deadline) {
      return done();
    }
  }
}

class RegionScope {
 public:
  RegionScope() : saved_(tls_in_parallel_region) {
    tls_in_parallel_region = true;
  }
  ~RegionScope() { tls_in_parallel_region = saved_; }

 private:
  bool saved_;
};

}  // namespace

struct ThreadPool::Job {
  Job(int64_t n, int64_t num_chunks,
      absl::FunctionRef<void(int64_t, int64_t)> fn)
      : n(n), num_chunks(num_chunks), fn(fn) {}
  const int64_t n;
  const int64_t num_chunks;
  const absl::FunctionRef<void(int64_t, int64_t)> fn;
  std::atomic<int64_t> next_chunk{0};
  // Workers that took the job; a worker's decrement is its last access to
  // the job. Incremented under the pool's mutex.
  std::atomic<int> active_workers{0};
  bool queued = true;  // guarded by the pool's mutex
};

ThreadPool::ThreadPool(int num_threads)
    : num_threads_(std::max(1, num_threads)) {
  workers_.reserve(num_threads_ - 1);
  for (int i = 1; i < num_threads_; ++i) {
    workers_.emplace_back([this] { WorkerLoop(); });
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

bool ThreadPool::InParallelRegion() { return tls_in_parallel_region; }

int ThreadPool::DefaultNumThreads() {
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

void ThreadPool::RunChunks(Job& job) {
  RegionScope scope;
  const int64_t q = job.n / job.num_chunks;
  const int64_t r = job.n % job.num_chunks;
  for (;;) {
    const int64_t i = job.next_chunk.fetch_add(1, std::memory_order_relaxed);
    if (i >= job.num_chunks) return;
    const int64_t begin = i * q + std::min(i, r);
    const int64_t end = begin + q + (i < r ? 1 : 0);
    job.fn(begin, end);
  }
}

void ThreadPool::WorkerLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (queue_.empty() && !stop_) {
      lock.unlock();
      SpinUntil(
          [this] { return queued_jobs_.load(std::memory_order_relaxed) > 0; });
      lock.lock();
    }
    work_cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stop_ and nothing left
    Job* job = queue_.front();
    if (job->next_chunk.load(std::memory_order_relaxed) >= job->num_chunks) {
      // Every chunk is claimed: nothing more to take from this job.
      Dequeue(job);
      continue;
    }
    job->active_workers.fetch_add(1, std::memory_order_relaxed);
    lock.unlock();
    RunChunks(*job);
    lock.lock();
    if (job->queued) Dequeue(job);
    lock.unlock();
    job->active_workers.fetch_sub(1, std::memory_order_release);
    // Taking the mutex orders this notification after a caller's check of
    // active_workers in done_cv_.wait, so the wake-up cannot be lost.
    lock.lock();
    done_cv_.notify_all();
  }
}

void ThreadPool::Dequeue(Job* job) {
  queue_.erase(std::find(queue_.begin(), queue_.end(), job));
  job->queued = false;
  queued_jobs_.fetch_sub(1, std::memory_order_relaxed);
}

void ThreadPool::ParallelFor(int64_t n, int64_t min_chunk,
                             absl::FunctionRef<void(int64_t, int64_t)> fn) {
  if (n <= 0) return;
  min_chunk = std::max<int64_t>(1, min_chunk);
  const int64_t num_chunks =
      std::min<int64_t>(static_cast<int64_t>(num_threads_) * 4,
                        std::max<int64_t>(1, n / min_chunk));
  if (num_threads_ == 1 || num_chunks <= 1 || tls_in_parallel_region) {
    fn(0, n);
    return;
  }
  Job job(n, num_chunks, fn);
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(&job);
    queued_jobs_.fetch_add(1, std::memory_order_relaxed);
  }
  // Wake as many workers as there are chunks beyond the caller's first one.
  if (num_chunks - 1 >= static_cast<int64_t>(workers_.size())) {
    work_cv_.notify_all();
  } else {
    for (int64_t i = 0; i < num_chunks - 1; ++i) work_cv_.notify_one();
  }
  RunChunks(job);
  // Every chunk is claimed now; wait for the workers still running theirs.
  std::unique_lock<std::mutex> lock(mu_);
  if (job.queued) Dequeue(&job);
  lock.unlock();
  auto finished = [&job] {
    return job.active_workers.load(std::memory_order_acquire) == 0;
  };
  if (SpinUntil(finished)) return;
  lock.lock();
  done_cv_.wait(lock, finished);
}

}  // namespace plexa::cpu
