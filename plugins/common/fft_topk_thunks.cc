#include "plugins/common/fft_topk_thunks.h"

#include "absl/strings/str_cat.h"
#include "core/eval/fft_topk_kernels.h"

namespace plexa::backend {
namespace {

absl::Status Named(const std::string& name, absl::Status st) {
  if (st.ok()) return st;
  return absl::Status(st.code(), absl::StrCat(name, ": ", st.message()));
}

}  // namespace

absl::Status FftThunk::Run(Frame& f) const {
  return Named(name,
               eval::FftKernel(type_, fft_length_, operand_.element_type(),
                               operand_.dimensions(), f.ptr[inputs[0]],
                               result_.element_type(), result_.dimensions(),
                               f.ptr[outputs[0]]));
}

absl::Status TopKThunk::Run(Frame& f) const {
  const int64_t n =
      operand_.rank() == 0 ? 0 : operand_.dimensions(operand_.rank() - 1);
  int64_t elements = 1;
  for (int64_t d : operand_.dimensions()) elements *= d;
  const int64_t rows = n == 0 ? 0 : elements / n;
  return Named(name, eval::TopKRowsKernel(
                         operand_.element_type(), rows, n, k_, largest_,
                         f.ptr[inputs[0]], f.ptr[outputs[0]],
                         reinterpret_cast<int32_t*>(f.ptr[outputs[1]])));
}

}  // namespace plexa::backend
