// A small fork-join thread pool for the CPU runtime (GEMM, convolution and
// the generated loop nests). No dependency on the rest of Plexa.
#ifndef PLEXA_PLUGINS_CPU_RUNTIME_THREAD_POOL_H_
#define PLEXA_PLUGINS_CPU_RUNTIME_THREAD_POOL_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/functional/function_ref.h"

namespace plexa::cpu {

class ThreadPool {
 public:
  // num_threads >= 1 workers in total, counting the calling thread (1 = all
  // work runs inline, 2 = the caller plus one background thread). Values
  // below 1 are treated as 1.
  explicit ThreadPool(int num_threads);
  ~ThreadPool();

  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return num_threads_; }

  // Splits [0, n) into at most num_threads()*4 contiguous chunks of at least
  // min_chunk items (min_chunk < 1 counts as 1) and runs fn(begin, end) on
  // each; the calling thread takes part. Returns when every chunk is done.
  // n <= 0 calls nothing. n <= min_chunk or num_threads() == 1 runs
  // fn(0, n) inline. A ParallelFor issued from inside fn (nested) runs inline
  // and never deadlocks. Thread-safe: several threads may call ParallelFor on
  // one pool concurrently (each caller works on its own chunks while it
  // waits, so a busy pool only slows a call down).
  void ParallelFor(int64_t n, int64_t min_chunk,
                   absl::FunctionRef<void(int64_t, int64_t)> fn);

  // True while the current thread runs a chunk of some pool's ParallelFor.
  static bool InParallelRegion();

  // A sensible default size: std::thread::hardware_concurrency(), at least 1.
  static int DefaultNumThreads();

 private:
  struct Job;
  void WorkerLoop();
  static void RunChunks(Job& job);
  void Dequeue(Job* job);  // requires mu_

  const int num_threads_;
  std::mutex mu_;
  std::condition_variable work_cv_;  // workers: a job was queued, or stop
  std::condition_variable done_cv_;  // callers: a worker left a job
  std::deque<Job*> queue_;           // jobs that may have unclaimed chunks
  std::atomic<int> queued_jobs_{0};  // queue_.size(), for spinning workers
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace plexa::cpu

#endif  // PLEXA_PLUGINS_CPU_RUNTIME_THREAD_POOL_H_
