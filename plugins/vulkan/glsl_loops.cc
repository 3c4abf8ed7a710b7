// Values that loop over their operands: reduce, reduce-window, dot,
// convolution, gather (the GLSL function of one result element).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "plugins/vulkan/glsl_emitter_internal.h"

namespace plexa::vulkan::glsl_internal {

absl::StatusOr<std::string> Emitter::Reduce(const Instruction& x,
                                            const Idx& idx) {
  if (x.operand_count() != 2 || !x.shape().IsArray()) {
    return NoCode(x, "a variadic reduce");
  }
  const Instruction& in = *x.operand(0);
  absl::StatusOr<std::string> fn = ScalarFunction(*x.to_apply());
  if (!fn.ok()) return fn.status();
  absl::StatusOr<std::string> init = Call(*x.operand(1), {});
  if (!init.ok()) return init.status();
  const PrimitiveType t = x.shape().element_type();
  std::string body = absl::StrCat("  ", Reg(t), " acc = ", *init, ";\n");
  Idx j(in.shape().rank());
  std::vector<bool> reduced(in.shape().rank(), false);
  for (int64_t d : x.dimensions()) reduced[d] = true;
  int64_t k = 0;
  std::string close;
  for (int64_t d = 0; d < in.shape().rank(); ++d) {
    if (reduced[d]) {
      j[d] = absl::StrCat("r", d);
      absl::StrAppend(&body, "  for (int r", d, " = 0; r", d, " < ",
                      in.shape().dimensions(d), "; ++r", d, ")\n");
    } else {
      j[d] = idx[k++];
    }
  }
  absl::StatusOr<std::string> v = Call(in, j);
  if (!v.ok()) return v.status();
  absl::StrAppend(&body, "    acc = ", *fn, "(acc, ", *v, ");\n", close,
                  "  return acc;\n");
  return body;
}

absl::StatusOr<std::string> Emitter::ReduceWindow(const Instruction& x,
                                                  const Idx& idx) {
  if (x.operand_count() != 2 || !x.shape().IsArray() ||
      !x.attrs().window.has_value()) {
    return NoCode(x, "a variadic reduce-window");
  }
  const Instruction& in = *x.operand(0);
  const Window& w = *x.attrs().window;
  absl::StatusOr<std::string> fn = ScalarFunction(*x.to_apply());
  if (!fn.ok()) return fn.status();
  absl::StatusOr<std::string> init = Call(*x.operand(1), {});
  if (!init.ok()) return init.status();
  const PrimitiveType t = x.shape().element_type();
  std::string body = absl::StrCat("  ", Reg(t), " acc = ", *init, ";\n");
  Idx j;
  std::string cond = "true";
  for (int64_t d = 0; d < in.shape().rank(); ++d) {
    const WindowDimension& wd = w.dimensions[d];
    absl::StrAppend(&body, "  for (int w", d, " = 0; w", d, " < ", wd.size,
                    "; ++w", d, ") {\n");
    const std::string wi = wd.window_reversal
                               ? absl::StrCat(wd.size - 1, " - w", d)
                               : absl::StrCat("w", d);
    absl::StrAppend(&body, "  int b", d, " = ", idx[d], " * ", wd.stride, " - ",
                    wd.padding_low, " + (", wi, ") * ", wd.window_dilation,
                    ";\n");
    if (wd.base_dilation > 1) {
      absl::StrAppend(&cond, " && b", d, " >= 0 && b", d, " % ",
                      wd.base_dilation, " == 0");
      absl::StrAppend(&body, "  int j", d, " = b", d, " / ", wd.base_dilation,
                      ";\n");
    } else {
      absl::StrAppend(&body, "  int j", d, " = b", d, ";\n");
    }
    absl::StrAppend(&cond, " && j", d, " >= 0 && j", d, " < ",
                    in.shape().dimensions(d));
    j.push_back(absl::StrCat("j", d));
  }
  absl::StatusOr<std::string> v = Call(in, j);
  if (!v.ok()) return v.status();
  absl::StrAppend(&body, "  if (", cond, ") acc = ", *fn, "(acc, ", *v, ");\n");
  for (int64_t d = 0; d < in.shape().rank(); ++d)
    absl::StrAppend(&body, "  }\n");
  absl::StrAppend(&body, "  return acc;\n");
  return body;
}

absl::StatusOr<std::string> Emitter::Dot(const Instruction& x, const Idx& idx) {
  const DotDimensionNumbers& dn = *x.attrs().dot_dimension_numbers;
  const Instruction& lhs = *x.operand(0);
  const Instruction& rhs = *x.operand(1);
  const PrimitiveType t = x.shape().element_type();
  if (t == PrimitiveType::PRED) return NoCode(x, "a pred dot");
  Idx jl(lhs.shape().rank()), jr(rhs.shape().rank());
  std::vector<bool> lfixed(jl.size(), false), rfixed(jr.size(), false);
  size_t k = 0;
  for (size_t b = 0; b < dn.lhs_batch_dimensions.size(); ++b, ++k) {
    jl[dn.lhs_batch_dimensions[b]] = idx[k];
    jr[dn.rhs_batch_dimensions[b]] = idx[k];
    lfixed[dn.lhs_batch_dimensions[b]] = rfixed[dn.rhs_batch_dimensions[b]] =
        true;
  }
  std::string body;
  // The accumulator: f16/bf16 sum in f32 and round once at the end.
  const char* acc_type = Reg(t);
  absl::StrAppend(&body, "  ", acc_type, " acc = ", Const(t, 0), ";\n");
  for (size_t c = 0; c < dn.lhs_contracting_dimensions.size(); ++c) {
    const int64_t ld = dn.lhs_contracting_dimensions[c];
    const int64_t rd = dn.rhs_contracting_dimensions[c];
    jl[ld] = jr[rd] = absl::StrCat("c", c);
    lfixed[ld] = rfixed[rd] = true;
    absl::StrAppend(&body, "  for (int c", c, " = 0; c", c, " < ",
                    lhs.shape().dimensions(ld), "; ++c", c, ")\n");
  }
  for (size_t d = 0; d < jl.size(); ++d) {
    if (!lfixed[d]) jl[d] = idx[k++];
  }
  for (size_t d = 0; d < jr.size(); ++d) {
    if (!rfixed[d]) jr[d] = idx[k++];
  }
  absl::StatusOr<std::string> a = Call(lhs, jl);
  if (!a.ok()) return a.status();
  absl::StatusOr<std::string> b = Call(rhs, jr);
  if (!b.ok()) return b.status();
  absl::StatusOr<std::string> ca =
      Convert(x, lhs.shape().element_type(), t, *a);
  if (!ca.ok()) return ca.status();
  absl::StatusOr<std::string> cb =
      Convert(x, rhs.shape().element_type(), t, *b);
  if (!cb.ok()) return cb.status();
  absl::StrAppend(&body, "    acc += ", *ca, " * ", *cb, ";\n", "  return ",
                  Round(t, Wrap(t, "acc")), ";\n");
  return body;
}

}  // namespace plexa::vulkan::glsl_internal
