#include "plugins/cpu/gemm_thunk.h"

#include <algorithm>
#include <vector>

#include "core/shape/index_util.h"
#include "core/shape/shape_util.h"

namespace plexa::cpu {

template <typename T>
absl::Status GemmThunk<T>::Run(Frame& f) const {
  GemmArgs<T> a = args_;
  a.a = reinterpret_cast<const T*>(f.ptr[inputs[a_operand_]]);
  a.b = reinterpret_cast<const T*>(f.ptr[inputs[1 - a_operand_]]);
  a.c = reinterpret_cast<T*>(f.ptr[outputs[0]]);
  return Gemm(a, PoolOf(f));
}

template class GemmThunk<float>;
template class GemmThunk<double>;

namespace {

// (size, stride) of dims collapsed into one, if their strides allow it.
struct Collapsed {
  bool ok = true;
  int64_t size = 1;
  int64_t stride = 0;
};

Collapsed Collapse(const std::vector<int64_t>& strides, const Shape& s,
                   const std::vector<int64_t>& dims) {
  Collapsed c;
  int64_t prev_stride = -1;
  for (int64_t d : dims) {
    const int64_t n = s.dimensions(d);
    if (n == 1) continue;
    if (prev_stride != -1 && prev_stride != strides[d] * n) {
      c.ok = false;
      return c;
    }
    c.size *= n;
    c.stride = strides[d];
    prev_stride = strides[d];
  }
  if (c.size == 1) c.stride = 0;
  return c;
}

std::vector<int64_t> Range(int64_t lo, int64_t hi) {
  std::vector<int64_t> r;
  for (int64_t i = lo; i < hi; ++i) r.push_back(i);
  return r;
}

}  // namespace

std::unique_ptr<Thunk> MakeGemmThunk(const Instruction& h) {
  const Shape& ls = h.operand(0)->shape();
  const Shape& rs = h.operand(1)->shape();
  const Shape out = WithLayout(h.shape());
  const PrimitiveType t = out.element_type();
  if (!HasDenseFloatOperands(h)) return nullptr;
  const DotDimensionNumbers& dn = *h.attrs().dot_dimension_numbers;
  auto free_dims = [](const Shape& s, const std::vector<int64_t>& batch,
                      const std::vector<int64_t>& contract) {
    std::vector<int64_t> f;
    for (int64_t d = 0; d < s.rank(); ++d) {
      if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
          std::find(contract.begin(), contract.end(), d) == contract.end()) {
        f.push_back(d);
      }
    }
    return f;
  };
  const std::vector<int64_t> lf =
      free_dims(ls, dn.lhs_batch_dimensions, dn.lhs_contracting_dimensions);
  const std::vector<int64_t> rf =
      free_dims(rs, dn.rhs_batch_dimensions, dn.rhs_contracting_dimensions);
  const std::vector<int64_t> lst = IndexUtil::LayoutStrides(ls),
                             rst = IndexUtil::LayoutStrides(rs),
                             ost = IndexUtil::LayoutStrides(out);
  const int64_t nb = static_cast<int64_t>(dn.lhs_batch_dimensions.size());
  const int64_t nlf = static_cast<int64_t>(lf.size());
  const Collapsed lb = Collapse(lst, ls, dn.lhs_batch_dimensions);
  const Collapsed rb = Collapse(rst, rs, dn.rhs_batch_dimensions);
  const Collapsed ob = Collapse(ost, out, Range(0, nb));
  const Collapsed lm = Collapse(lst, ls, lf);
  const Collapsed lk = Collapse(lst, ls, dn.lhs_contracting_dimensions);
  const Collapsed rk = Collapse(rst, rs, dn.rhs_contracting_dimensions);
  const Collapsed rn = Collapse(rst, rs, rf);
  const Collapsed om = Collapse(ost, out, Range(nb, nb + nlf));
  const Collapsed on = Collapse(ost, out, Range(nb + nlf, out.rank()));
  if (!(lb.ok && rb.ok && ob.ok && lm.ok && lk.ok && rk.ok && rn.ok && om.ok &&
        on.ok)) {
    return nullptr;
  }
  auto make = [&](auto tag) -> std::unique_ptr<Thunk> {
    using T = decltype(tag);
    GemmArgs<T> a{};
    a.a = nullptr;
    a.b = nullptr;
    a.c = nullptr;
    a.batch_count = lb.size;
    a.accumulate = false;
    const int64_t m = lm.size, n = rn.size, k = lk.size;
    const int64_t cm = om.size == 1 ? 0 : om.stride;
    const int64_t cn = on.size == 1 ? 1 : on.stride;
    std::unique_ptr<GemmThunk<T>> thunk;
    if (cn == 1 && (m == 1 || cm >= n)) {
      a.m = m;
      a.n = n;
      a.k = k;
      a.a_row_stride = lm.stride;
      a.a_col_stride = lk.stride;
      a.b_row_stride = rk.stride;
      a.b_col_stride = rn.stride;
      a.ldc = m == 1 ? n : cm;
      a.a_batch_stride = lb.stride;
      a.b_batch_stride = rb.stride;
      a.c_batch_stride = ob.stride;
      thunk = std::make_unique<GemmThunk<T>>(a);
      thunk->a_operand_ = 0;
    } else if ((om.size == 1 || om.stride == 1) && (n == 1 || cn >= m)) {
      // C^T[n, m] = B^T A^T.
      a.m = n;
      a.n = m;
      a.k = k;
      a.a_row_stride = rn.stride;
      a.a_col_stride = rk.stride;
      a.b_row_stride = lk.stride;
      a.b_col_stride = lm.stride;
      a.ldc = n == 1 ? m : cn;
      a.a_batch_stride = rb.stride;
      a.b_batch_stride = lb.stride;
      a.c_batch_stride = ob.stride;
      thunk = std::make_unique<GemmThunk<T>>(a);
      thunk->a_operand_ = 1;
    } else {
      return nullptr;
    }
    return thunk;
  };
  return t == PrimitiveType::F32 ? make(float{}) : make(double{});
}

}  // namespace plexa::cpu
