#include "plugins/vulkan/glsl_emitter.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/ir/computation.h"
#include "core/literal/literal.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "plugins/vulkan/glsl_prelude.h"

namespace plexa::vulkan {
namespace {

using Idx = std::vector<std::string>;

absl::Status NoCode(const Instruction& h, absl::string_view why) {
  return absl::UnimplementedError(
      absl::StrCat(h.name(), ": no Vulkan code for ", why));
}

bool IsFloat(PrimitiveType t) {
  return t == PrimitiveType::F16 || t == PrimitiveType::BF16 ||
         t == PrimitiveType::F32 || t == PrimitiveType::F64;
}
bool IsSigned(PrimitiveType t) {
  return t == PrimitiveType::S8 || t == PrimitiveType::S16 ||
         t == PrimitiveType::S32 || t == PrimitiveType::S64;
}
bool IsUnsigned(PrimitiveType t) {
  return t == PrimitiveType::U8 || t == PrimitiveType::U16 ||
         t == PrimitiveType::U32 || t == PrimitiveType::U64;
}
int Bits(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::S8:
    case PrimitiveType::U8:
      return 8;
    case PrimitiveType::S16:
    case PrimitiveType::U16:
    case PrimitiveType::F16:
    case PrimitiveType::BF16:
      return 16;
    case PrimitiveType::S64:
    case PrimitiveType::U64:
    case PrimitiveType::F64:
      return 64;
    default:
      return 32;
  }
}

// The type values of `t` have in registers.
const char* Reg(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::PRED:
      return "bool";
    case PrimitiveType::S8:
    case PrimitiveType::S16:
    case PrimitiveType::S32:
      return "int";
    case PrimitiveType::U8:
    case PrimitiveType::U16:
    case PrimitiveType::U32:
      return "uint";
    case PrimitiveType::S64:
      return "int64_t";
    case PrimitiveType::U64:
      return "uint64_t";
    case PrimitiveType::F64:
      return "double";
    default:
      return "float";
  }
}

// The buffer block type that holds `t` (GLSL name of a buffer_reference).
const char* Block(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::PRED:
    case PrimitiveType::U8:
      return "Bu8";
    case PrimitiveType::S8:
      return "Bi8";
    case PrimitiveType::S16:
      return "Bi16";
    case PrimitiveType::U16:
    case PrimitiveType::F16:
    case PrimitiveType::BF16:
      return "Bu16";
    case PrimitiveType::S32:
      return "Bi32";
    case PrimitiveType::U32:
      return "Bu32";
    case PrimitiveType::S64:
      return "Bi64";
    case PrimitiveType::U64:
      return "Bu64";
    case PrimitiveType::F64:
      return "Bf64";
    default:
      return "Bf32";
  }
}

// Keeps a narrow integer in its canonical register form (sign- or
// zero-extended) after arithmetic that may leave the type's range.
std::string Wrap(PrimitiveType t, const std::string& e) {
  switch (t) {
    case PrimitiveType::S8:
      return absl::StrCat("(((", e, ") << 24) >> 24)");
    case PrimitiveType::S16:
      return absl::StrCat("(((", e, ") << 16) >> 16)");
    case PrimitiveType::U8:
      return absl::StrCat("((", e, ") & 0xFFu)");
    case PrimitiveType::U16:
      return absl::StrCat("((", e, ") & 0xFFFFu)");
    default:
      return e;
  }
}

// f16/bf16 results are rounded to their type after every operation.
std::string Round(PrimitiveType t, const std::string& e) {
  if (t == PrimitiveType::F16) return absl::StrCat("rf16(", e, ")");
  if (t == PrimitiveType::BF16) return absl::StrCat("rbf16(", e, ")");
  return e;
}

// An integer constant of type `t` in GLSL.
std::string IntConst(PrimitiveType t, int64_t v) {
  switch (t) {
    case PrimitiveType::S64:
      return absl::StrCat("int64_t(", v, "l)");
    case PrimitiveType::U64:
      return absl::StrCat("uint64_t(", static_cast<uint64_t>(v), "ul)");
    case PrimitiveType::U8:
    case PrimitiveType::U16:
    case PrimitiveType::U32:
      return absl::StrCat(static_cast<uint32_t>(v), "u");
    default:
      if (v == std::numeric_limits<int32_t>::min()) return "int(0x80000000u)";
      return absl::StrCat("int(", v, ")");
  }
}

std::string FloatConst(PrimitiveType t, double v) {
  if (t == PrimitiveType::F64) {
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    return absl::StrFormat("packDouble2x32(uvec2(0x%08xu, 0x%08xu))",
                           static_cast<uint32_t>(bits),
                           static_cast<uint32_t>(bits >> 32));
  }
  const float f = static_cast<float>(v);
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return absl::StrFormat("uintBitsToFloat(0x%08xu)", bits);
}

std::string Const(PrimitiveType t, double v) {
  if (IsFloat(t)) return FloatConst(t, v);
  if (t == PrimitiveType::PRED) return v != 0 ? "true" : "false";
  return IntConst(t, static_cast<int64_t>(v));
}

class Emitter {
 public:
  Emitter(const DeviceFeatures& f) : f_(f) {}

  absl::StatusOr<GlslKernel> Emit(const Instruction& h, int max_buffers);

 private:
  absl::Status UseType(const Instruction& h, PrimitiveType t);
  absl::StatusOr<std::string> Call(const Instruction& x, const Idx& idx);
  absl::StatusOr<std::string> Body(const Instruction& x, const Idx& idx);
  absl::StatusOr<std::string> Elementwise(const Instruction& h,
                                          const std::vector<std::string>& ops);
  absl::StatusOr<std::string> Convert(const Instruction& h, PrimitiveType from,
                                      PrimitiveType to, const std::string& x);
  absl::StatusOr<std::string> BitcastConvert(const Instruction& h,
                                             PrimitiveType from,
                                             PrimitiveType to,
                                             const std::string& x);
  absl::StatusOr<std::string> FloatUnary(const Instruction& h, PrimitiveType t,
                                         const std::string& x);
  absl::StatusOr<std::string> ScalarFunction(const Computation& c);
  absl::StatusOr<std::string> Reduce(const Instruction& x, const Idx& idx);
  absl::StatusOr<std::string> ReduceWindow(const Instruction& x,
                                           const Idx& idx);
  absl::StatusOr<std::string> Dot(const Instruction& x, const Idx& idx);
  absl::StatusOr<std::string> DynamicStart(const Instruction& x,
                                           int64_t operand, int64_t dim,
                                           int64_t limit);
  std::string Load(int buffer, const Shape& s, const Idx& idx);
  std::string NewName(absl::string_view prefix) {
    return absl::StrCat(prefix, counter_++);
  }

  const DeviceFeatures& f_;
  std::string functions_;
  absl::flat_hash_map<const Instruction*, std::string> names_;
  absl::flat_hash_map<const Instruction*, int> buffers_;
  absl::flat_hash_map<const Computation*, std::string> scalar_fns_;
  std::set<PrimitiveType> types_;
  int counter_ = 0;
};

absl::Status Emitter::UseType(const Instruction& h, PrimitiveType t) {
  auto missing = [&](absl::string_view feature) {
    return absl::FailedPreconditionError(
        absl::StrCat(h.name(), ": ", primitive_util::Name(t),
                     " needs the Vulkan device feature ", feature,
                     ", which this device lacks"));
  };
  switch (t) {
    case PrimitiveType::PRED:
    case PrimitiveType::S8:
    case PrimitiveType::U8:
      if (!f_.storage8) return missing("storageBuffer8BitAccess");
      if (!f_.int8) return missing("shaderInt8");
      break;
    case PrimitiveType::S16:
    case PrimitiveType::U16:
    case PrimitiveType::F16:
    case PrimitiveType::BF16:
      if (!f_.storage16) return missing("storageBuffer16BitAccess");
      if (!f_.int16) return missing("shaderInt16");
      break;
    case PrimitiveType::S32:
    case PrimitiveType::U32:
    case PrimitiveType::F32:
      break;
    case PrimitiveType::S64:
    case PrimitiveType::U64:
      if (!f_.int64) return missing("shaderInt64");
      break;
    case PrimitiveType::F64:
      if (!f_.float64) return missing("shaderFloat64");
      if (!f_.int64) return missing("shaderInt64");
      break;
    default:
      return NoCode(h, absl::StrCat("element type ", primitive_util::Name(t)));
  }
  types_.insert(t);
  return absl::OkStatus();
}

// Row-major physical offset of `idx` in `s` (its layout's order).
std::string Offset(const Shape& s, const Idx& idx) {
  if (s.rank() == 0) return "0";
  const Layout l = LayoutUtil::EffectiveLayout(s);
  const int64_t r = s.rank();
  std::string e = idx[l.minor_to_major(r - 1)];
  for (int64_t k = r - 2; k >= 0; --k) {
    const int64_t d = l.minor_to_major(k);
    e = absl::StrCat("(", e, ") * ", s.dimensions(d), " + ", idx[d]);
  }
  return e;
}

std::string Emitter::Load(int buffer, const Shape& s, const Idx& idx) {
  const PrimitiveType t = s.element_type();
  const std::string raw =
      absl::StrCat(Block(t), "(args.a[", buffer, "]).v[", Offset(s, idx), "]");
  switch (t) {
    case PrimitiveType::PRED:
      return absl::StrCat("(", raw, " != uint8_t(0))");
    case PrimitiveType::F16:
      return absl::StrCat("h2f(uint(", raw, "))");
    case PrimitiveType::BF16:
      return absl::StrCat("uintBitsToFloat(uint(", raw, ") << 16)");
    case PrimitiveType::S8:
    case PrimitiveType::S16:
      return absl::StrCat("int(", raw, ")");
    case PrimitiveType::U8:
    case PrimitiveType::U16:
      return absl::StrCat("uint(", raw, ")");
    default:
      return raw;
  }
}

std::string Store(PrimitiveType t, const std::string& v) {
  switch (t) {
    case PrimitiveType::PRED:
      return absl::StrCat("uint8_t((", v, ") ? 1 : 0)");
    case PrimitiveType::F16:
      return absl::StrCat("uint16_t(f2h(", v, "))");
    case PrimitiveType::BF16:
      return absl::StrCat("uint16_t(f2bf(", v, "))");
    case PrimitiveType::S8:
      return absl::StrCat("int8_t(", v, ")");
    case PrimitiveType::U8:
      return absl::StrCat("uint8_t(", v, ")");
    case PrimitiveType::S16:
      return absl::StrCat("int16_t(", v, ")");
    case PrimitiveType::U16:
      return absl::StrCat("uint16_t(", v, ")");
    default:
      return v;
  }
}

Idx IndexNames(int64_t rank, absl::string_view prefix = "i") {
  Idx idx;
  for (int64_t d = 0; d < rank; ++d) idx.push_back(absl::StrCat(prefix, d));
  return idx;
}

std::string Params(int64_t rank) {
  std::vector<std::string> p;
  for (int64_t d = 0; d < rank; ++d) p.push_back(absl::StrCat("int i", d));
  return absl::StrJoin(p, ", ");
}

absl::StatusOr<std::string> Emitter::Call(const Instruction& x,
                                          const Idx& idx) {
  const std::string args =
      x.shape().rank() == 0 ? "" : absl::StrJoin(idx, ", ");
  auto it = names_.find(&x);
  if (it != names_.end()) return absl::StrCat(it->second, "(", args, ")");
  if (!x.shape().IsArray() || !ShapeUtil::IsDenseArray(x.shape())) {
    return NoCode(x, absl::StrCat("the value shape ", x.shape().ToString()));
  }
  if (absl::Status s = UseType(x, x.shape().element_type()); !s.ok()) return s;
  const std::string name = NewName("v");
  const Idx formal = IndexNames(x.shape().rank());
  std::string body;
  auto b = buffers_.find(&x);
  if (b != buffers_.end()) {
    body = absl::StrCat("  return ", Load(b->second, x.shape(), formal), ";\n");
  } else {
    absl::StatusOr<std::string> s = Body(x, formal);
    if (!s.ok()) return s.status();
    body = *std::move(s);
  }
  absl::StrAppend(&functions_, Reg(x.shape().element_type()), " ", name, "(",
                  Params(x.shape().rank()), ") {\n", body, "}\n");
  names_[&x] = name;
  return absl::StrCat(name, "(", args, ")");
}

// A scalar computation (a reducer, a map's function, a comparator) as a
// GLSL function of its parameters.
absl::StatusOr<std::string> Emitter::ScalarFunction(const Computation& c) {
  auto it = scalar_fns_.find(&c);
  if (it != scalar_fns_.end()) return it->second;
  const std::string name = NewName("s");
  std::vector<std::string> params;
  absl::flat_hash_map<const Instruction*, std::string> vars;
  for (int64_t i = 0; i < c.num_parameters(); ++i) {
    const Instruction* p = c.parameter_instruction(i);
    if (p == nullptr || !p->shape().IsArray() || p->shape().rank() != 0) {
      return NoCode(*c.root_instruction(),
                    absl::StrCat("the non-scalar computation ", c.name()));
    }
    if (absl::Status s = UseType(*p, p->shape().element_type()); !s.ok()) {
      return s;
    }
    vars[p] = absl::StrCat("p", i);
    params.push_back(absl::StrCat(Reg(p->shape().element_type()), " p", i));
  }
  std::string body;
  for (const Instruction* x : c.MakeInstructionPostOrder()) {
    if (x->opcode() == HloOpcode::kParameter) continue;
    if (!x->shape().IsArray() || x->shape().rank() != 0) {
      return NoCode(*x, absl::StrCat("the non-scalar value in ", c.name()));
    }
    if (absl::Status s = UseType(*x, x->shape().element_type()); !s.ok()) {
      return s;
    }
    std::string e;
    if (x->opcode() == HloOpcode::kConstant) {
      absl::StatusOr<std::string> k = Call(*x, {});
      if (!k.ok()) return k.status();
      e = *k;
    } else {
      std::vector<std::string> ops;
      for (const Instruction* op : x->operands()) ops.push_back(vars.at(op));
      absl::StatusOr<std::string> v = Elementwise(*x, ops);
      if (!v.ok()) return v.status();
      e = *v;
    }
    const std::string var = absl::StrCat("t", vars.size());
    absl::StrAppend(&body, "  ", Reg(x->shape().element_type()), " ", var,
                    " = ", e, ";\n");
    vars[x] = var;
  }
  const Instruction* root = c.root_instruction();
  absl::StrAppend(&functions_, Reg(root->shape().element_type()), " ", name,
                  "(", absl::StrJoin(params, ", "), ") {\n", body, "  return ",
                  vars.at(root), ";\n}\n");
  scalar_fns_[&c] = name;
  return name;
}

absl::StatusOr<std::string> Emitter::DynamicStart(const Instruction& x,
                                                  int64_t operand, int64_t dim,
                                                  int64_t limit) {
  // Start indices are clamped to [0, limit] (XLA); one scalar per
  // dimension (older text: one rank-1 vector).
  const Instruction& first = *x.operand(operand);
  std::string v;
  PrimitiveType t;
  if (first.shape().rank() == 1) {
    absl::StatusOr<std::string> e = Call(first, {absl::StrCat(dim)});
    if (!e.ok()) return e.status();
    v = *e;
    t = first.shape().element_type();
  } else {
    const Instruction& s = *x.operand(operand + dim);
    absl::StatusOr<std::string> e = Call(s, {});
    if (!e.ok()) return e.status();
    v = *e;
    t = s.shape().element_type();
  }
  if (IsUnsigned(t)) {
    return absl::StrCat("int(min(", v, ", ", IntConst(t, limit), "))");
  }
  if (!IsSigned(t)) return NoCode(x, "a non-integer start index");
  return absl::StrCat("int(clamp(", v, ", ", IntConst(t, 0), ", ",
                      IntConst(t, limit), "))");
}

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

absl::StatusOr<std::string> Emitter::Body(const Instruction& x,
                                          const Idx& idx) {
  const Shape& s = x.shape();
  const int64_t rank = s.rank();
  auto ret = [](const std::string& e) {
    return absl::StrCat("  return ", e, ";\n");
  };
  auto operand_at = [&](int64_t i,
                        const Idx& j) -> absl::StatusOr<std::string> {
    return Call(*x.operand(i), j);
  };
  switch (x.opcode()) {
    case HloOpcode::kConstant: {
      if (rank != 0) return NoCode(x, "a non-scalar constant in a kernel");
      const Literal& lit = x.literal();
      const PrimitiveType t = s.element_type();
      if (t == PrimitiveType::F64) {
        return ret(FloatConst(t, lit.GetAsDouble({})));
      }
      if (IsFloat(t)) return ret(FloatConst(t, lit.GetAsDouble({})));
      if (t == PrimitiveType::PRED) {
        return ret(lit.GetAsInt64({}) != 0 ? "true" : "false");
      }
      if (t == PrimitiveType::U64) {
        return ret(absl::StrCat("uint64_t(", lit.GetAsUint64({}), "ul)"));
      }
      return ret(IntConst(t, lit.GetAsInt64({})));
    }
    case HloOpcode::kIota: {
      const PrimitiveType t = s.element_type();
      const std::string i = idx[x.attrs().iota_dimension];
      if (t == PrimitiveType::PRED) return ret(absl::StrCat("(", i, " != 0)"));
      if (IsFloat(t)) {
        return ret(Round(t, absl::StrCat(Reg(t), "(", i, ")")));
      }
      return ret(Wrap(t, absl::StrCat(Reg(t), "(", i, ")")));
    }
    case HloOpcode::kCopy: {
      absl::StatusOr<std::string> v = operand_at(0, idx);
      if (!v.ok()) return v.status();
      return ret(*v);
    }
    case HloOpcode::kBroadcast: {
      Idx j;
      for (int64_t d : x.dimensions()) j.push_back(idx[d]);
      absl::StatusOr<std::string> v = operand_at(0, j);
      if (!v.ok()) return v.status();
      return ret(*v);
    }
    case HloOpcode::kTranspose: {
      Idx j(rank);
      for (int64_t k = 0; k < rank; ++k) j[x.dimensions(k)] = idx[k];
      absl::StatusOr<std::string> v = operand_at(0, j);
      if (!v.ok()) return v.status();
      return ret(*v);
    }
    case HloOpcode::kReshape:
    case HloOpcode::kBitcast: {
      const Shape& in = x.operand(0)->shape();
      if (in.element_type() != s.element_type()) {
        return NoCode(x, "a bitcast between element types");
      }
      // reshape: row-major linear index; bitcast: physical position.
      std::string body;
      std::vector<int64_t> out_order, in_order;  // major first
      if (x.opcode() == HloOpcode::kReshape) {
        for (int64_t d = 0; d < rank; ++d) out_order.push_back(d);
        for (int64_t d = 0; d < in.rank(); ++d) in_order.push_back(d);
      } else {
        const Layout lo = LayoutUtil::EffectiveLayout(s);
        const Layout li = LayoutUtil::EffectiveLayout(in);
        for (int64_t k = rank - 1; k >= 0; --k) {
          out_order.push_back(lo.minor_to_major(k));
        }
        for (int64_t k = in.rank() - 1; k >= 0; --k) {
          in_order.push_back(li.minor_to_major(k));
        }
      }
      std::string lin = "0";
      for (int64_t d : out_order) {
        lin = absl::StrCat("(", lin, ") * ", s.dimensions(d), " + ", idx[d]);
      }
      absl::StrAppend(&body, "  int lin = ", lin, ";\n");
      Idx j(in.rank());
      for (int64_t k = static_cast<int64_t>(in_order.size()) - 1; k >= 0; --k) {
        const int64_t d = in_order[k];
        j[d] = absl::StrCat("j", d);
        absl::StrAppend(&body, "  int j", d, " = lin % ", in.dimensions(d),
                        "; lin /= ", in.dimensions(d), ";\n");
      }
      absl::StatusOr<std::string> v = operand_at(0, j);
      if (!v.ok()) return v.status();
      return absl::StrCat(body, ret(*v));
    }
    case HloOpcode::kSlice: {
      Idx j(rank);
      for (int64_t d = 0; d < rank; ++d) {
        const SliceDimension& sd = x.attrs().slice[d];
        j[d] = absl::StrCat(sd.start, " + ", idx[d], " * ", sd.stride);
      }
      absl::StatusOr<std::string> v = operand_at(0, j);
      if (!v.ok()) return v.status();
      return ret(*v);
    }
    case HloOpcode::kReverse: {
      Idx j = idx;
      for (int64_t d : x.dimensions()) {
        j[d] = absl::StrCat(s.dimensions(d) - 1, " - ", idx[d]);
      }
      absl::StatusOr<std::string> v = operand_at(0, j);
      if (!v.ok()) return v.status();
      return ret(*v);
    }
    case HloOpcode::kPad: {
      const PaddingConfig& pc = *x.attrs().padding_config;
      const Shape& in = x.operand(0)->shape();
      absl::StatusOr<std::string> pv = operand_at(1, {});
      if (!pv.ok()) return pv.status();
      std::string body;
      Idx j(rank);
      for (int64_t d = 0; d < rank; ++d) {
        const PaddingDimension& p = pc.dimensions[d];
        const int64_t step = p.interior_padding + 1;
        absl::StrAppend(&body, "  int t", d, " = ", idx[d], " - (",
                        p.edge_padding_low, ");\n", "  if (t", d, " < 0 || t",
                        d, " % ", step, " != 0 || t", d, " / ", step,
                        " >= ", in.dimensions(d), ") return ", *pv, ";\n");
        j[d] = absl::StrCat("t", d, " / ", step);
      }
      absl::StatusOr<std::string> v = operand_at(0, j);
      if (!v.ok()) return v.status();
      return absl::StrCat(body, ret(*v));
    }
    case HloOpcode::kConcatenate: {
      const int64_t dim = x.dimensions(0);
      std::string body;
      int64_t offset = 0;
      for (int64_t i = 0; i < x.operand_count(); ++i) {
        const int64_t n = x.operand(i)->shape().dimensions(dim);
        Idx j = idx;
        j[dim] = absl::StrCat(idx[dim], " - ", offset);
        absl::StatusOr<std::string> v = operand_at(i, j);
        if (!v.ok()) return v.status();
        if (i + 1 < x.operand_count()) {
          absl::StrAppend(&body, "  if (", idx[dim], " < ", offset + n,
                          ") return ", *v, ";\n");
        } else {
          absl::StrAppend(&body, ret(*v));
        }
        offset += n;
      }
      return body;
    }
    case HloOpcode::kDynamicSlice: {
      const Shape& in = x.operand(0)->shape();
      std::string body;
      Idx j(rank);
      for (int64_t d = 0; d < rank; ++d) {
        absl::StatusOr<std::string> st =
            DynamicStart(x, 1, d, in.dimensions(d) - s.dimensions(d));
        if (!st.ok()) return st.status();
        j[d] = absl::StrCat("(", *st, " + ", idx[d], ")");
      }
      absl::StatusOr<std::string> v = operand_at(0, j);
      if (!v.ok()) return v.status();
      return ret(*v);
    }
    case HloOpcode::kDynamicUpdateSlice: {
      const Shape& upd = x.operand(1)->shape();
      std::string body;
      std::string inside = "true";
      Idx j(rank);
      for (int64_t d = 0; d < rank; ++d) {
        absl::StatusOr<std::string> st =
            DynamicStart(x, 2, d, s.dimensions(d) - upd.dimensions(d));
        if (!st.ok()) return st.status();
        absl::StrAppend(&body, "  int u", d, " = ", idx[d], " - ", *st, ";\n");
        absl::StrAppend(&inside, " && u", d, " >= 0 && u", d, " < ",
                        upd.dimensions(d));
        j[d] = absl::StrCat("u", d);
      }
      absl::StatusOr<std::string> u = operand_at(1, j);
      if (!u.ok()) return u.status();
      absl::StatusOr<std::string> v = operand_at(0, idx);
      if (!v.ok()) return v.status();
      return absl::StrCat(body, "  if (", inside, ") return ", *u, ";\n",
                          ret(*v));
    }
    case HloOpcode::kReduce:
      return Reduce(x, idx);
    case HloOpcode::kReduceWindow:
      return ReduceWindow(x, idx);
    case HloOpcode::kDot:
      return Dot(x, idx);
    case HloOpcode::kMap: {
      absl::StatusOr<std::string> fn = ScalarFunction(*x.to_apply());
      if (!fn.ok()) return fn.status();
      std::vector<std::string> ops;
      for (int64_t i = 0; i < x.operand_count(); ++i) {
        absl::StatusOr<std::string> v = operand_at(i, idx);
        if (!v.ok()) return v.status();
        ops.push_back(*v);
      }
      return ret(absl::StrCat(*fn, "(", absl::StrJoin(ops, ", "), ")"));
    }
    case HloOpcode::kFusion: {
      // Only as a kernel's root (EmitGlslKernel binds its parameters).
      return NoCode(x, "a nested fusion");
    }
    default:
      break;
  }
  if (!IsElementwise(x.opcode())) {
    return NoCode(x, HloOpcodeString(x.opcode()));
  }
  std::vector<std::string> ops;
  for (int64_t i = 0; i < x.operand_count(); ++i) {
    // Scalar operands of clamp and select broadcast implicitly.
    const bool scalar = x.operand(i)->shape().rank() == 0;
    absl::StatusOr<std::string> v = operand_at(i, scalar ? Idx{} : idx);
    if (!v.ok()) return v.status();
    ops.push_back(*v);
  }
  absl::StatusOr<std::string> e = Elementwise(x, ops);
  if (!e.ok()) return e.status();
  return ret(*e);
}

absl::StatusOr<std::string> Emitter::Convert(const Instruction& h,
                                             PrimitiveType from,
                                             PrimitiveType to,
                                             const std::string& x) {
  if (from == to) return x;
  const std::string r = Reg(to);
  if (to == PrimitiveType::PRED) {
    if (IsFloat(from))
      return absl::StrCat("!(", x, " == ", Const(from, 0), ")");
    return absl::StrCat("(", x, " != ", Const(from, 0), ")");
  }
  if (from == PrimitiveType::PRED) {
    return absl::StrCat("((", x, ") ? ", Const(to, 1), " : ", Const(to, 0),
                        ")");
  }
  if (IsFloat(from) && IsFloat(to)) {
    if (from == PrimitiveType::F64 &&
        (to == PrimitiveType::F16 || to == PrimitiveType::BF16)) {
      return Round(to, absl::StrCat("f64_to_f32_odd(", x, ")"));
    }
    return Round(to, absl::StrCat(r, "(", x, ")"));
  }
  if (IsFloat(from)) {
    // Truncate toward zero, saturate, NaN -> 0 (XLA).
    double lo, hi_excl;
    std::string min_v, max_v;
    if (IsSigned(to)) {
      lo = -std::ldexp(1.0, Bits(to) - 1);
      hi_excl = std::ldexp(1.0, Bits(to) - 1);
      min_v = to == PrimitiveType::S64 ? "int64_t(0x8000000000000000ul)"
                                       : IntConst(to, static_cast<int64_t>(lo));
      max_v = to == PrimitiveType::S64
                  ? "int64_t(0x7FFFFFFFFFFFFFFFl)"
                  : IntConst(to, static_cast<int64_t>(hi_excl - 1));
    } else {
      lo = 0;
      hi_excl = std::ldexp(1.0, Bits(to));
      min_v = IntConst(to, 0);
      max_v = to == PrimitiveType::U64
                  ? "uint64_t(0xFFFFFFFFFFFFFFFFul)"
                  : absl::StrCat(static_cast<uint32_t>(hi_excl - 1), "u");
    }
    const PrimitiveType ft =
        from == PrimitiveType::F64 ? PrimitiveType::F64 : PrimitiveType::F32;
    return absl::StrCat("(isnan(", x, ") ? ", IntConst(to, 0), " : (", x,
                        " <= ", FloatConst(ft, lo), " ? ", min_v, " : (", x,
                        " >= ", FloatConst(ft, hi_excl), " ? ", max_v, " : ", r,
                        "(", x, "))))");
  }
  if (IsFloat(to)) return Round(to, absl::StrCat(r, "(", x, ")"));
  return Wrap(to, absl::StrCat(r, "(", x, ")"));
}

absl::StatusOr<std::string> Emitter::BitcastConvert(const Instruction& h,
                                                    PrimitiveType from,
                                                    PrimitiveType to,
                                                    const std::string& x) {
  if (from == to) return x;
  if (Bits(from) != Bits(to) || from == PrimitiveType::PRED ||
      to == PrimitiveType::PRED) {
    return NoCode(h, "a bitcast-convert between widths");
  }
  // Through the unsigned bits of the width.
  std::string bits;
  switch (from) {
    case PrimitiveType::F32:
      bits = absl::StrCat("floatBitsToUint(", x, ")");
      break;
    case PrimitiveType::F64:
      bits = absl::StrCat("pack64(unpackDouble2x32(", x, "))");
      break;
    case PrimitiveType::F16:
      bits = absl::StrCat("f2h(", x, ")");
      break;
    case PrimitiveType::BF16:
      bits = absl::StrCat("f2bf(", x, ")");
      break;
    case PrimitiveType::S64:
      bits = absl::StrCat("uint64_t(", x, ")");
      break;
    case PrimitiveType::U64:
      bits = x;
      break;
    default:
      bits = Wrap(Bits(from) == 8    ? PrimitiveType::U8
                  : Bits(from) == 16 ? PrimitiveType::U16
                                     : PrimitiveType::U32,
                  absl::StrCat("uint(", x, ")"));
  }
  switch (to) {
    case PrimitiveType::F32:
      return absl::StrCat("uintBitsToFloat(", bits, ")");
    case PrimitiveType::F64:
      return absl::StrCat("packDouble2x32(unpack32(", bits, "))");
    case PrimitiveType::F16:
      return absl::StrCat("h2f(", bits, ")");
    case PrimitiveType::BF16:
      return absl::StrCat("uintBitsToFloat((", bits, ") << 16)");
    case PrimitiveType::S64:
      return absl::StrCat("int64_t(", bits, ")");
    case PrimitiveType::U64:
      return bits;
    default:
      return Wrap(to, absl::StrCat(Reg(to), "(", bits, ")"));
  }
}

absl::StatusOr<std::string> Emitter::FloatUnary(const Instruction& h,
                                                PrimitiveType t,
                                                const std::string& x) {
  const bool f64 = t == PrimitiveType::F64;
  const std::string r = Reg(t);
  // GLSL has no double transcendentals: those run on the host.
  auto f32_only = [&](std::string e) -> absl::StatusOr<std::string> {
    if (f64)
      return NoCode(h, absl::StrCat("f64 ", HloOpcodeString(h.opcode())));
    return e;
  };
  switch (h.opcode()) {
    case HloOpcode::kNegate:
      return absl::StrCat("(-", x, ")");
    case HloOpcode::kAbs:
      return absl::StrCat("abs(", x, ")");
    case HloOpcode::kSign:
      return absl::StrCat("fsign(", x, ")");
    case HloOpcode::kFloor:
      return absl::StrCat("floor(", x, ")");
    case HloOpcode::kCeil:
      return absl::StrCat("ceil(", x, ")");
    case HloOpcode::kRoundNearestEven:
      return absl::StrCat("roundEven(", x, ")");
    case HloOpcode::kRoundNearestAfz:
      return absl::StrCat("round_afz(", x, ")");
    case HloOpcode::kSqrt:
      return absl::StrCat("fsqrt(", x, ")");
    case HloOpcode::kRsqrt:
      return absl::StrCat("(", r, "(1) / fsqrt(", x, "))");
    case HloOpcode::kIsFinite:
      return absl::StrCat("(!isnan(", x, ") && !isinf(", x, "))");
    case HloOpcode::kExp:
      return f32_only(absl::StrCat("exp(", x, ")"));
    case HloOpcode::kExpm1:
      return f32_only(absl::StrCat("xexpm1(", x, ")"));
    case HloOpcode::kLog:
      return f32_only(absl::StrCat("xlog(", x, ")"));
    case HloOpcode::kLog1p:
      return f32_only(absl::StrCat("xlog1p(", x, ")"));
    case HloOpcode::kLogistic:
      return f32_only(absl::StrCat("(1.0 / (1.0 + exp(-", x, ")))"));
    case HloOpcode::kTanh:
      return f32_only(absl::StrCat("xtanh(", x, ")"));
    case HloOpcode::kSin:
      return f32_only(absl::StrCat("sin(", x, ")"));
    case HloOpcode::kCos:
      return f32_only(absl::StrCat("cos(", x, ")"));
    case HloOpcode::kTan:
      return f32_only(absl::StrCat("xtan(", x, ")"));
    case HloOpcode::kCbrt:
      return f32_only(absl::StrCat("xcbrt(", x, ")"));
    default:
      return NoCode(h, HloOpcodeString(h.opcode()));
  }
}

std::string CompareExpr(ComparisonDirection dir, const std::string& a,
                        const std::string& b) {
  switch (dir) {
    case ComparisonDirection::kEq:
      return absl::StrCat("(", a, " == ", b, ")");
    case ComparisonDirection::kNe:
      return absl::StrCat("!(", a, " == ", b, ")");
    case ComparisonDirection::kGe:
      return absl::StrCat("(", a, " >= ", b, ")");
    case ComparisonDirection::kGt:
      return absl::StrCat("(", a, " > ", b, ")");
    case ComparisonDirection::kLe:
      return absl::StrCat("(", a, " <= ", b, ")");
    case ComparisonDirection::kLt:
      return absl::StrCat("(", a, " < ", b, ")");
  }
  return "false";
}

absl::StatusOr<std::string> Emitter::Elementwise(
    const Instruction& h, const std::vector<std::string>& ops) {
  const PrimitiveType out = h.shape().element_type();
  const PrimitiveType t =
      h.operand_count() > 0 ? h.operand(0)->shape().element_type() : out;
  for (const Instruction* op : h.operands()) {
    if (absl::Status s = UseType(h, op->shape().element_type()); !s.ok()) {
      return s;
    }
  }
  if (absl::Status s = UseType(h, out); !s.ok()) return s;
  const bool fp = IsFloat(t);
  const bool pred = t == PrimitiveType::PRED;
  const std::string a = ops.empty() ? "" : ops[0];
  const std::string b = ops.size() > 1 ? ops[1] : "";
  const std::string r = Reg(t);
  auto bin = [&](absl::string_view op) {
    std::string e = absl::StrCat("(", a, " ", op, " ", b, ")");
    return fp ? Round(t, e) : Wrap(t, e);
  };
  switch (h.opcode()) {
    case HloOpcode::kAdd:
      if (pred) return absl::StrCat("(", a, " || ", b, ")");
      return bin("+");
    case HloOpcode::kSubtract:
      if (pred) return absl::StrCat("(", a, " != ", b, ")");
      return bin("-");
    case HloOpcode::kMultiply:
      if (pred) return absl::StrCat("(", a, " && ", b, ")");
      return bin("*");
    case HloOpcode::kDivide:
      if (pred) break;
      if (fp) return bin("/");
      return Wrap(t, absl::StrCat("idiv(", a, ", ", b, ")"));
    case HloOpcode::kRemainder:
      if (pred) break;
      if (t == PrimitiveType::F64) return NoCode(h, "f64 remainder");
      if (fp) {
        if (!f_.float64) return NoCode(h, "remainder without shaderFloat64");
        return Round(t, absl::StrCat("frem(", a, ", ", b, ")"));
      }
      return Wrap(t, absl::StrCat("irem(", a, ", ", b, ")"));
    case HloOpcode::kMaximum:
      if (pred) return absl::StrCat("(", a, " || ", b, ")");
      return absl::StrCat(fp ? "fmaxn(" : "imax(", a, ", ", b, ")");
    case HloOpcode::kMinimum:
      if (pred) return absl::StrCat("(", a, " && ", b, ")");
      return absl::StrCat(fp ? "fminn(" : "imin(", a, ", ", b, ")");
    case HloOpcode::kAnd:
      return absl::StrCat("(", a, pred ? " && " : " & ", b, ")");
    case HloOpcode::kOr:
      return absl::StrCat("(", a, pred ? " || " : " | ", b, ")");
    case HloOpcode::kXor:
      return absl::StrCat("(", a, pred ? " != " : " ^ ", b, ")");
    case HloOpcode::kNot:
      if (pred) return absl::StrCat("(!", a, ")");
      return Wrap(t, absl::StrCat("(~", a, ")"));
    case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightArithmetic:
    case HloOpcode::kShiftRightLogical: {
      if (fp || pred) break;
      const char* fn = h.opcode() == HloOpcode::kShiftLeft           ? "ishl"
                       : h.opcode() == HloOpcode::kShiftRightLogical ? "ishrl"
                                                                     : "ishra";
      return Wrap(t, absl::StrCat(fn, "(", a, ", ", b, ", ", Bits(t), ")"));
    }
    case HloOpcode::kPopulationCount:
    case HloOpcode::kClz: {
      if (fp || pred) break;
      const char* fn = h.opcode() == HloOpcode::kClz ? "iclz" : "ipopcnt";
      return absl::StrCat(r, "(", fn, "(", a, ", ", Bits(t), "))");
    }
    case HloOpcode::kNegate:
      if (pred) return a;
      if (!fp) return Wrap(t, absl::StrCat("(", r, "(0) - ", a, ")"));
      return FloatUnary(h, t, a);
    case HloOpcode::kAbs:
      if (pred || IsUnsigned(t)) return a;
      if (!fp)
        return Wrap(t, absl::StrCat("(", a, " < ", r, "(0) ? ", r, "(0) - ", a,
                                    " : ", a, ")"));
      return FloatUnary(h, t, a);
    case HloOpcode::kSign:
      if (pred) return a;
      if (IsUnsigned(t)) {
        return absl::StrCat("(", a, " != ", r, "(0) ? ", r, "(1) : ", r,
                            "(0))");
      }
      if (!fp) {
        return absl::StrCat("(", a, " > ", r, "(0) ? ", r, "(1) : (", a, " < ",
                            r, "(0) ? ", r, "(-1) : ", r, "(0)))");
      }
      return FloatUnary(h, t, a);
    case HloOpcode::kCompare: {
      const ComparisonDirection dir = h.attrs().comparison_direction;
      if (fp && h.attrs().comparison_type == ComparisonType::kFloatTotalOrder) {
        return CompareExpr(dir, absl::StrCat("ftotal(", a, ")"),
                           absl::StrCat("ftotal(", b, ")"));
      }
      if (pred) {
        return CompareExpr(dir, absl::StrCat("int(", a, ")"),
                           absl::StrCat("int(", b, ")"));
      }
      return CompareExpr(dir, a, b);
    }
    case HloOpcode::kSelect:
      return absl::StrCat("(", a, " ? ", b, " : ", ops[2], ")");
    case HloOpcode::kClamp: {
      // clamp(lo, x, hi) = min(hi, max(x, lo)) with the evaluator's choice
      // between equal values; a NaN in lo, x or hi (in that order) wins.
      const PrimitiveType vt = h.operand(1)->shape().element_type();
      if (vt == PrimitiveType::PRED) {
        return absl::StrCat("((", ops[1], " || ", a, ") && ", ops[2], ")");
      }
      if (IsFloat(vt)) {
        return absl::StrCat("fclamp(", a, ", ", ops[1], ", ", ops[2], ")");
      }
      return absl::StrCat("imin(", ops[2], ", imax(", ops[1], ", ", a, "))");
    }
    case HloOpcode::kConvert:
      return Convert(h, t, out, a);
    case HloOpcode::kBitcastConvert:
      return BitcastConvert(h, t, out, a);
    case HloOpcode::kAtan2:
      if (t == PrimitiveType::F64) return NoCode(h, "f64 atan2");
      return Round(t, absl::StrCat("xatan2(", a, ", ", b, ")"));
    case HloOpcode::kPower:
      if (t == PrimitiveType::F64) return NoCode(h, "f64 power");
      if (!fp) return NoCode(h, "integer power");
      return Round(t, absl::StrCat("xpow(", a, ", ", b, ")"));
    default:
      if (fp) {
        absl::StatusOr<std::string> e = FloatUnary(h, t, a);
        if (!e.ok()) return e.status();
        return h.opcode() == HloOpcode::kIsFinite ? *e : Round(t, *e);
      }
      break;
  }
  return NoCode(h, absl::StrCat(HloOpcodeString(h.opcode()), " on ",
                                primitive_util::Name(t)));
}

absl::StatusOr<GlslKernel> Emitter::Emit(const Instruction& h,
                                         int max_buffers) {
  if (!h.shape().IsArray() || !ShapeUtil::IsDenseArray(h.shape())) {
    return NoCode(h, absl::StrCat("the result shape ", h.shape().ToString()));
  }
  GlslKernel k;
  k.num_buffers = static_cast<int>(h.operand_count()) + 1;
  if (k.num_buffers > max_buffers) {
    return NoCode(
        h, absl::StrCat(h.operand_count(), " operands (push constants hold ",
                        max_buffers, " addresses)"));
  }
  k.elements = ShapeUtil::ElementsIn(h.shape());
  if (k.elements > std::numeric_limits<int32_t>::max()) {
    return NoCode(h, "more than 2^31 elements");
  }
  const Instruction* root = &h;
  for (int64_t i = 0; i < h.operand_count(); ++i) {
    const Shape& s = h.operand(i)->shape();
    if (!s.IsArray() || !ShapeUtil::IsDenseArray(s)) {
      return NoCode(h, absl::StrCat("operand ", i, " of shape ", s.ToString()));
    }
    if (ShapeUtil::ElementsIn(s) > std::numeric_limits<int32_t>::max()) {
      return NoCode(h, absl::StrCat("operand ", i, " over 2^31 elements"));
    }
  }
  if (h.opcode() == HloOpcode::kFusion) {
    const Computation& fused = *h.to_apply();
    for (int64_t i = 0; i < fused.num_parameters(); ++i) {
      buffers_[fused.parameter_instruction(i)] = static_cast<int>(i);
    }
    root = fused.root_instruction();
  } else {
    for (int64_t i = 0; i < h.operand_count(); ++i) {
      buffers_.emplace(h.operand(i), static_cast<int>(i));
    }
  }
  const PrimitiveType t = h.shape().element_type();
  if (absl::Status s = UseType(h, t); !s.ok()) return s;
  const Idx idx = IndexNames(h.shape().rank());
  absl::StatusOr<std::string> value = Call(*root, idx);
  if (!value.ok()) return value.status();

  // The main loop: invocation i computes the element at physical position
  // i of the result.
  std::string main = absl::StrCat(
      "void main() {\n"
      "  const uint n = ",
      k.elements,
      "u;\n"
      "  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;\n"
      "  for (uint g = gl_GlobalInvocationID.x; g < n; g += stride) {\n"
      "    int rest = int(g);\n");
  const Layout l = LayoutUtil::EffectiveLayout(h.shape());
  for (int64_t k2 = 0; k2 < h.shape().rank(); ++k2) {
    const int64_t d = l.minor_to_major(k2);
    absl::StrAppend(&main, "    int i", d, " = rest % ",
                    h.shape().dimensions(d),
                    "; rest /= ", h.shape().dimensions(d), ";\n");
  }
  absl::StrAppend(&main, "    ", Block(t), "(args.a[", k.num_buffers - 1,
                  "]).v[g] = ", Store(t, *value), ";\n  }\n}\n");

  std::string src = "#version 460\n";
  bool need8 = false, need16 = false, need64 = false, needf64 = false;
  for (PrimitiveType x : types_) {
    need8 |= Bits(x) == 8 || x == PrimitiveType::PRED;
    need16 |= Bits(x) == 16;
    need64 |= x == PrimitiveType::S64 || x == PrimitiveType::U64 ||
              x == PrimitiveType::F64;
    needf64 |= x == PrimitiveType::F64;
  }
  absl::StrAppend(&src,
                  "#extension GL_EXT_buffer_reference : require\n"
                  "#extension GL_EXT_buffer_reference_uvec2 : require\n");
  if (need8) {
    absl::StrAppend(
        &src, "#extension GL_EXT_shader_8bit_storage : require\n",
        "#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require\n");
  }
  if (need16) {
    absl::StrAppend(
        &src, "#extension GL_EXT_shader_16bit_storage : require\n",
        "#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require\n");
  }
  if (need64) {
    absl::StrAppend(
        &src,
        "#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require\n");
  }
  absl::StrAppend(&src, "layout(local_size_x = ", kWorkgroupSize, ") in;\n");
  std::set<std::string> blocks;
  for (PrimitiveType x : types_) blocks.insert(Block(x));
  const struct {
    const char* name;
    const char* elem;
    int align;
  } kBlocks[] = {{"Bu8", "uint8_t", 1},   {"Bi8", "int8_t", 1},
                 {"Bu16", "uint16_t", 2}, {"Bi16", "int16_t", 2},
                 {"Bu32", "uint", 4},     {"Bi32", "int", 4},
                 {"Bf32", "float", 4},    {"Bu64", "uint64_t", 8},
                 {"Bi64", "int64_t", 8},  {"Bf64", "double", 8}};
  for (const auto& b : kBlocks) {
    if (!blocks.contains(b.name)) continue;
    absl::StrAppend(&src,
                    "layout(buffer_reference, std430, "
                    "buffer_reference_align = ",
                    b.align, ") buffer ", b.name, " { ", b.elem, " v[]; };\n");
  }
  absl::StrAppend(&src, "layout(push_constant) uniform Args { uvec2 a[",
                  k.num_buffers, "]; } args;\n");
  absl::StrAppend(&src, GlslPrelude(/*f64=*/needf64, /*i64=*/need64,
                                    /*frem=*/f_.float64));
  absl::StrAppend(&src, functions_, main);
  k.source = std::move(src);
  return k;
}

}  // namespace

absl::StatusOr<GlslKernel> EmitGlslKernel(const Instruction& h,
                                          const DeviceFeatures& features,
                                          int max_buffers) {
  Emitter e(features);
  return e.Emit(h, max_buffers);
}

}  // namespace plexa::vulkan
