// A compile cache for a plugin's client: compiled programs by key, bounded
// in entries, the least recently used one dropped first.
//
// CompileCacheKey covers everything that changes what a compilation
// produces: the module (its text), the replica count, the compile options
// (optimization level, plugin options), the custom-call libraries named
// (each path with the identity of the file behind it: device, inode, size,
// modification time) and the process-wide custom-call registry (its
// generation: every registration changes it). A program holds what it
// resolved custom calls from (sdk::CustomCallTarget::library), so a cached
// program stays runnable after the executable that compiled it is gone.
#ifndef PLEXA_PLUGINS_COMMON_COMPILE_CACHE_H_
#define PLEXA_PLUGINS_COMMON_COMPILE_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "abi/sdk/plugin.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"

namespace plexa::backend {

// The key of compiling `module_text` with `options` (its partitions too)
// for `num_replicas`.
std::string CompileCacheKey(absl::string_view module_text,
                            const sdk::CompileOptions& options,
                            int64_t num_replicas);

// Thread-safe. `Program` is what a compilation produces.
template <typename Program>
class CompileCache {
 public:
  static constexpr size_t kDefaultCapacity = 64;

  explicit CompileCache(size_t capacity = kDefaultCapacity)
      : capacity_(capacity < 1 ? 1 : capacity) {}

  // The program compiled under `key`, now the most recently used; null
  // when there is none.
  std::shared_ptr<const Program> Lookup(const std::string& key) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    order_.splice(order_.begin(), order_, it->second);
    ++hits_;
    return it->second->second;
  }

  // Stores `program` under `key` (replacing what was there), dropping the
  // least recently used entry when the cache is full.
  void Insert(const std::string& key, std::shared_ptr<const Program> program) {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = index_.find(key); it != index_.end()) {
      it->second->second = std::move(program);
      order_.splice(order_.begin(), order_, it->second);
      return;
    }
    order_.emplace_front(key, std::move(program));
    index_[key] = order_.begin();
    if (order_.size() > capacity_) {
      index_.erase(order_.back().first);
      order_.pop_back();
    }
  }

  int64_t hits() const {
    std::lock_guard<std::mutex> lock(mu_);
    return hits_;
  }
  size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return order_.size();
  }
  size_t capacity() const { return capacity_; }

 private:
  using Entry = std::pair<std::string, std::shared_ptr<const Program>>;

  const size_t capacity_;
  mutable std::mutex mu_;
  std::list<Entry> order_;  // most recently used first; guarded by mu_
  absl::flat_hash_map<std::string, typename std::list<Entry>::iterator>
      index_;         // guarded by mu_
  int64_t hits_ = 0;  // guarded by mu_
};

}  // namespace plexa::backend

#endif  // PLEXA_PLUGINS_COMMON_COMPILE_CACHE_H_
