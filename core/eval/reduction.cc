// reduce, reduce-window and select-and-scatter.
//
// Order of application (XLA leaves it unspecified; the oracle fixes it):
// reduce starts from the init value and visits the reduced dimensions in
// row-major order (increasing dimension numbers, last fastest), calling
// reducer(accumulators..., elements...). reduce-window does the same over
// the window positions that fall on real (not padding, not dilation-hole)
// elements. select-and-scatter keeps the first in-bounds window element and
// replaces it by each later element e for which select(selected, e) is
// false, then combines scatter(output[selected], source).
#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/eval/eval_internal.h"
#include "core/ir/window_util.h"

namespace plexa::eval {
namespace {

absl::Status Invalid(const Instruction& instr, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("evaluator: ", InstrName(instr), ": ", what));
}

// Window geometry over a base shape: maps (output index, window index) to
// the base element, or none for padding and dilation holes.
class WindowMap {
 public:
  WindowMap(const Window& window, absl::Span<const int64_t> base_dims)
      : window_(window),
        base_dims_(base_dims.begin(), base_dims.end()),
        base_strides_(RowMajorStrides(base_dims)) {
    for (const WindowDimension& d : window.dimensions) {
      sizes_.push_back(d.size);
    }
  }
  const std::vector<int64_t>& sizes() const { return sizes_; }

  // Linear (row-major) offset of the base element, or -1.
  int64_t Offset(absl::Span<const int64_t> out,
                 absl::Span<const int64_t> win) const {
    int64_t off = 0;
    for (size_t d = 0; d < base_dims_.size(); ++d) {
      const WindowDimension& wd = window_.dimensions[d];
      const int64_t dilated =
          out[d] * wd.stride + win[d] * wd.window_dilation - wd.padding_low;
      if (dilated < 0) return -1;
      if (wd.base_dilation > 1 && dilated % wd.base_dilation != 0) return -1;
      const int64_t pos = dilated / wd.base_dilation;
      if (pos >= base_dims_[d]) return -1;
      off += pos * base_strides_[d];
    }
    return off;
  }

 private:
  const Window& window_;
  std::vector<int64_t> base_dims_;
  std::vector<int64_t> base_strides_;
  std::vector<int64_t> sizes_;
};

absl::Status CheckWindow(const Instruction& instr, const Window* window,
                         int64_t rank) {
  if (window == nullptr ||
      static_cast<int64_t>(window->dimensions.size()) != rank) {
    return Invalid(instr, "window does not match the operand rank");
  }
  for (const WindowDimension& d : window->dimensions) {
    if (d.stride < 1 || d.window_dilation < 1 || d.base_dilation < 1 ||
        d.size < 0) {
      return Invalid(instr, "bad window");
    }
  }
  return absl::OkStatus();
}

// reducer(accumulators (init types)..., elements (operand types)...) ->
// init types; the results have the init types too.
absl::Status CheckReducerTypes(const Instruction& instr, const ScalarFn& fn,
                               Operands ops, int64_t n) {
  std::vector<PrimitiveType> params, results;
  for (int64_t k = 0; k < n; ++k) {
    params.push_back(ops[n + k]->shape().element_type());
    results.push_back(ops[n + k]->shape().element_type());
  }
  for (int64_t k = 0; k < n; ++k) {
    params.push_back(ops[k]->shape().element_type());
  }
  PLEXA_RETURN_IF_ERROR(CheckScalarFnTypes(instr, fn, params, results));
  for (int64_t k = 0; k < n; ++k) {
    const Shape& out_k =
        instr.shape().IsTuple() ? instr.shape().tuple_shapes(k) : instr.shape();
    if (!out_k.IsArray() ||
        out_k.element_type() != ops[n + k]->shape().element_type()) {
      return Invalid(instr, "result types must be the init value types");
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Literal> EvalReduce(Interpreter& interp,
                                   const Instruction& instr, Operands ops) {
  if (ops.empty() || ops.size() % 2 != 0) {
    return Invalid(instr, "expected N operands and N init values");
  }
  const int64_t n = static_cast<int64_t>(ops.size()) / 2;
  const Shape& in = ops[0]->shape();
  for (int64_t k = 0; k < 2 * n; ++k) {
    if (!ops[k]->shape().IsArray()) return Invalid(instr, "non-array operand");
    if (k < n && !ShapeUtil::SameDimensions(ops[k]->shape(), in)) {
      return Invalid(instr, "operands differ in dimensions");
    }
    if (k >= n && ElementCount(ops[k]->shape().dimensions()) != 1) {
      return Invalid(instr, "init values must be scalars");
    }
  }
  std::vector<bool> reduced(in.rank(), false);
  for (int64_t d : instr.dimensions()) {
    if (d < 0 || d >= in.rank()) return Invalid(instr, "bad dimension");
    reduced[d] = true;
  }
  PLEXA_ASSIGN_OR_RETURN(ScalarFn * fn, interp.GetScalarFn(*instr.to_apply()));
  PLEXA_RETURN_IF_ERROR(CheckReducerTypes(instr, *fn, ops, n));
  std::vector<int64_t> kept_dims, kept_extent, red_dims, red_extent;
  for (int64_t d = 0; d < in.rank(); ++d) {
    if (reduced[d]) {
      red_dims.push_back(d);
      red_extent.push_back(in.dimensions(d));
    } else {
      kept_dims.push_back(d);
      kept_extent.push_back(in.dimensions(d));
    }
  }
  const std::vector<int64_t> strides = RowMajorStrides(in.dimensions());
  std::vector<Literal> results;
  std::vector<int64_t> widths;
  for (int64_t k = 0; k < n; ++k) {
    const Shape& out_k =
        instr.shape().IsTuple() ? instr.shape().tuple_shapes(k) : instr.shape();
    if (!out_k.IsArray() ||
        ElementCount(out_k.dimensions()) != ElementCount(kept_extent)) {
      return Invalid(instr, "result shape does not match");
    }
    results.push_back(MakeLiteral(out_k));
    widths.push_back(primitive_util::ByteWidth(out_k.element_type()));
  }
  std::vector<const void*> args(2 * n);
  std::vector<void*> accs(n);
  absl::Status status;
  int64_t out_linear = 0;
  ForEachIndexRowMajor(kept_extent, [&](absl::Span<const int64_t> kidx) {
    if (!status.ok()) return;
    int64_t base = 0;
    for (size_t i = 0; i < kidx.size(); ++i) {
      base += kidx[i] * strides[kept_dims[i]];
    }
    for (int64_t k = 0; k < n; ++k) {
      uint8_t* acc = results[k].mutable_data().data() + out_linear * widths[k];
      std::memcpy(acc, ops[n + k]->data().data(), widths[k]);
      accs[k] = acc;
      args[k] = acc;
    }
    ForEachIndexRowMajor(red_extent, [&](absl::Span<const int64_t> ridx) {
      if (!status.ok()) return;
      int64_t off = base;
      for (size_t i = 0; i < ridx.size(); ++i) {
        off += ridx[i] * strides[red_dims[i]];
      }
      for (int64_t k = 0; k < n; ++k) {
        args[n + k] =
            ops[k]->data().data() +
            off * primitive_util::ByteWidth(ops[k]->shape().element_type());
      }
      status = fn->Call(args.data(), accs.data());
    });
    ++out_linear;
  });
  PLEXA_RETURN_IF_ERROR(status);
  if (instr.shape().IsTuple()) return Literal::MakeTuple(std::move(results));
  return std::move(results[0]);
}

absl::StatusOr<Literal> EvalReduceWindow(Interpreter& interp,
                                         const Instruction& instr,
                                         Operands ops) {
  if (ops.empty() || ops.size() % 2 != 0) {
    return Invalid(instr, "expected N operands and N init values");
  }
  const int64_t n = static_cast<int64_t>(ops.size()) / 2;
  const Shape& in = ops[0]->shape();
  for (int64_t k = 0; k < 2 * n; ++k) {
    if (!ops[k]->shape().IsArray()) return Invalid(instr, "non-array operand");
    if (k < n && !ShapeUtil::SameDimensions(ops[k]->shape(), in)) {
      return Invalid(instr, "operands differ in dimensions");
    }
    if (k >= n && ElementCount(ops[k]->shape().dimensions()) != 1) {
      return Invalid(instr, "init values must be scalars");
    }
  }
  const Window* window = &WindowOf(instr);
  PLEXA_RETURN_IF_ERROR(CheckWindow(instr, window, in.rank()));
  PLEXA_ASSIGN_OR_RETURN(ScalarFn * fn, interp.GetScalarFn(*instr.to_apply()));
  PLEXA_RETURN_IF_ERROR(CheckReducerTypes(instr, *fn, ops, n));
  const Shape& out0 =
      instr.shape().IsTuple() ? instr.shape().tuple_shapes(0) : instr.shape();
  if (!out0.IsArray() || out0.rank() != in.rank()) {
    return Invalid(instr, "result rank does not match");
  }
  std::vector<Literal> results;
  std::vector<int64_t> widths, in_widths;
  for (int64_t k = 0; k < n; ++k) {
    const Shape& out_k =
        instr.shape().IsTuple() ? instr.shape().tuple_shapes(k) : instr.shape();
    if (!ShapeUtil::SameDimensions(out_k, out0)) {
      return Invalid(instr, "results differ in dimensions");
    }
    results.push_back(MakeLiteral(out_k));
    widths.push_back(primitive_util::ByteWidth(out_k.element_type()));
    in_widths.push_back(
        primitive_util::ByteWidth(ops[k]->shape().element_type()));
  }
  WindowMap map(*window, in.dimensions());
  std::vector<const void*> args(2 * n);
  std::vector<void*> accs(n);
  absl::Status status;
  int64_t out_linear = 0;
  ForEachIndexRowMajor(out0.dimensions(), [&](absl::Span<const int64_t> oidx) {
    if (!status.ok()) return;
    for (int64_t k = 0; k < n; ++k) {
      uint8_t* acc = results[k].mutable_data().data() + out_linear * widths[k];
      std::memcpy(acc, ops[n + k]->data().data(), widths[k]);
      accs[k] = acc;
      args[k] = acc;
    }
    ForEachIndexRowMajor(map.sizes(), [&](absl::Span<const int64_t> widx) {
      if (!status.ok()) return;
      const int64_t off = map.Offset(oidx, widx);
      if (off < 0) return;
      for (int64_t k = 0; k < n; ++k) {
        args[n + k] = ops[k]->data().data() + off * in_widths[k];
      }
      status = fn->Call(args.data(), accs.data());
    });
    ++out_linear;
  });
  PLEXA_RETURN_IF_ERROR(status);
  if (instr.shape().IsTuple()) return Literal::MakeTuple(std::move(results));
  return std::move(results[0]);
}

absl::StatusOr<Literal> EvalSelectAndScatter(Interpreter& interp,
                                             const Instruction& instr,
                                             Operands ops) {
  if (ops.size() != 3 || instr.called_computations().size() != 2) {
    return Invalid(instr, "expected operand, source, init_value");
  }
  const Literal& operand = *ops[0];
  const Literal& source = *ops[1];
  const Shape& in = operand.shape();
  const Window* window = &WindowOf(instr);
  PLEXA_RETURN_IF_ERROR(CheckWindow(instr, window, in.rank()));
  if (!source.shape().IsArray() || source.shape().rank() != in.rank() ||
      ElementCount(ops[2]->shape().dimensions()) != 1) {
    return Invalid(instr, "bad source or init value");
  }
  PLEXA_ASSIGN_OR_RETURN(ScalarFn * select,
                         interp.GetScalarFn(*instr.select()));
  PLEXA_ASSIGN_OR_RETURN(ScalarFn * scatter,
                         interp.GetScalarFn(*instr.scatter()));
  const PrimitiveType t = in.element_type();
  const PrimitiveType init_t = ops[2]->shape().element_type();
  PLEXA_RETURN_IF_ERROR(
      CheckScalarFnTypes(instr, *select, {t, t}, {PrimitiveType::PRED}));
  PLEXA_RETURN_IF_ERROR(CheckScalarFnTypes(
      instr, *scatter, {init_t, source.shape().element_type()}, {init_t}));
  if (instr.shape().element_type() != init_t) {
    return Invalid(instr, "the result type must be the init value type");
  }
  const int64_t w = primitive_util::ByteWidth(in.element_type());
  const int64_t ow = primitive_util::ByteWidth(init_t);
  const int64_t sw = primitive_util::ByteWidth(source.shape().element_type());
  Literal out = MakeLiteral(instr.shape());
  const int64_t count = ElementCount(in.dimensions());
  if (ElementCount(instr.shape().dimensions()) != count) {
    return Invalid(instr, "the result must have the operand's dimensions");
  }
  uint8_t* dst = out.mutable_data().data();
  for (int64_t i = 0; i < count; ++i) {
    std::memcpy(dst + i * ow, ops[2]->data().data(), ow);
  }
  const uint8_t* src = operand.data().data();
  WindowMap map(*window, in.dimensions());
  absl::Status status;
  int64_t source_linear = 0;
  ForEachIndexRowMajor(source.shape().dimensions(), [&](absl::Span<
                                                        const int64_t>
                                                            sidx) {
    if (!status.ok()) return;
    int64_t selected = -1;
    ForEachIndexRowMajor(map.sizes(), [&](absl::Span<const int64_t> widx) {
      if (!status.ok()) return;
      const int64_t off = map.Offset(sidx, widx);
      if (off < 0) return;
      if (selected < 0) {
        selected = off;
        return;
      }
      const void* args[2] = {src + selected * w, src + off * w};
      bool keep = false;
      void* result = &keep;
      status = select->Call(args, &result);
      if (status.ok() && !keep) selected = off;
    });
    if (status.ok() && selected >= 0) {
      uint8_t* target = dst + selected * w;
      const void* args[2] = {target, source.data().data() + source_linear * sw};
      void* result = target;
      status = scatter->Call(args, &result);
    }
    ++source_linear;
  });
  PLEXA_RETURN_IF_ERROR(status);
  return out;
}

}  // namespace plexa::eval
