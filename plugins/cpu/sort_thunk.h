// sort on the host with a JIT-compiled comparator.
#ifndef PLEXA_PLUGINS_CPU_SORT_THUNK_H_
#define PLEXA_PLUGINS_CPU_SORT_THUNK_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/shape/index_util.h"
#include "core/shape/shape.h"
#include "plugins/cpu/codegen/kernel_emitter.h"
#include "plugins/cpu/cpu_thunk.h"

namespace plexa::cpu {

// sort: along one dimension, every operand permuted by the order the
// JIT-compiled comparator gives (std::stable_sort, whatever is_stable
// says: a stable order is a valid unstable one, and merge sort stays in
// bounds even for a comparator that is not a strict weak order).
class SortThunk : public Thunk {
 public:
  SortThunk(std::string name, std::vector<Shape> shapes, int64_t dimension)
      : name_(std::move(name)), shapes_(std::move(shapes)), dim_(dimension) {
    for (const Shape& s : shapes_) {
      strides_.push_back(IndexUtil::LayoutStrides(s));
      widths_.push_back(primitive_util::ByteWidth(s.element_type()));
    }
  }
  const std::string& name() const { return name_; }
  void set_fn(ComparatorFn fn) { fn_ = fn; }

  absl::Status Run(Frame& f) const override;

 private:
  std::string name_;
  std::vector<Shape> shapes_;
  int64_t dim_;
  std::vector<std::vector<int64_t>> strides_;
  std::vector<int64_t> widths_;
  ComparatorFn fn_ = nullptr;
};

}  // namespace plexa::cpu

#endif  // PLEXA_PLUGINS_CPU_SORT_THUNK_H_
