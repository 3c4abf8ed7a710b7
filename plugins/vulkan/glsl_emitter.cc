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
#include "plugins/vulkan/glsl_emitter_internal.h"
#include "plugins/vulkan/glsl_f64_math.h"
#include "plugins/vulkan/glsl_prelude.h"
#include "plugins/vulkan/glsl_small_float.h"

namespace plexa::vulkan {
namespace glsl_internal {
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

std::string Store(PrimitiveType t, const std::string& v) {
  if (IsSmallFloat(t)) {
    return absl::StrCat("uint8_t(", SmallFloatFunction(t, "enc"), "(", v, "))");
  }
  switch (t) {
    case PrimitiveType::PRED:
      return absl::StrCat("uint8_t((", v, ") ? 1 : 0)");
    case PrimitiveType::F16:
      return absl::StrCat("uint16_t(f2h(", v, "))");
    case PrimitiveType::BF16:
      return absl::StrCat("uint16_t(f2bf(", v, "))");
    case PrimitiveType::S2:
    case PrimitiveType::S4:
    case PrimitiveType::S8:
      return absl::StrCat("int8_t(", v, ")");
    case PrimitiveType::U2:
    case PrimitiveType::U4:
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

std::string GridLoop(int64_t n, const Shape& s) {
  std::string loop = absl::StrCat(
      "  const uint n = ", n,
      "u;\n"
      "  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;\n"
      "  for (uint g = gl_GlobalInvocationID.x; g < n; g += stride) {\n"
      "    int rest = int(g);\n");
  const Layout l = LayoutUtil::EffectiveLayout(s);
  for (int64_t k = 0; k < s.rank(); ++k) {
    const int64_t d = l.minor_to_major(k);
    absl::StrAppend(&loop, "    int i", d, " = rest % ", s.dimensions(d),
                    "; rest /= ", s.dimensions(d), ";\n");
  }
  return loop;
}

Idx IndexNames(int64_t rank, absl::string_view prefix) {
  Idx idx;
  for (int64_t d = 0; d < rank; ++d) idx.push_back(absl::StrCat(prefix, d));
  return idx;
}

static std::string Params(int64_t rank) {
  std::vector<std::string> p;
  for (int64_t d = 0; d < rank; ++d) p.push_back(absl::StrCat("int i", d));
  return absl::StrJoin(p, ", ");
}

absl::Status Emitter::UseType(const Instruction& h, PrimitiveType t) {
  auto missing = [&](absl::string_view feature) {
    return absl::FailedPreconditionError(
        absl::StrCat(h.name(), ": ", primitive_util::Name(t),
                     " needs the Vulkan device feature ", feature,
                     ", which this device lacks"));
  };
  if (IsSmallFloat(t)) {
    if (!f_.storage8) return missing("storageBuffer8BitAccess");
    if (!f_.int8) return missing("shaderInt8");
    types_.insert(t);
    return absl::OkStatus();
  }
  switch (t) {
    case PrimitiveType::PRED:
    case PrimitiveType::S2:
    case PrimitiveType::U2:
    case PrimitiveType::S4:
    case PrimitiveType::U4:
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
    case PrimitiveType::C64:
    case PrimitiveType::C128:
      // Only where the code knows complex arithmetic: elsewhere (a dot's
      // multiply-add, say) a vec2 would silently compute componentwise.
      if (!ComplexCode(h.opcode())) {
        return NoCode(h, absl::StrCat(HloOpcodeString(h.opcode()), " on ",
                                      primitive_util::Name(t)));
      }
      if (t == PrimitiveType::C128) {
        if (!f_.float64) return missing("shaderFloat64");
        if (!f_.int64) return missing("shaderInt64");
      }
      break;
    default:
      return NoCode(h, absl::StrCat("element type ", primitive_util::Name(t)));
  }
  types_.insert(t);
  return absl::OkStatus();
}

// Row-major physical offset of `idx` in `s` (its layout's order).
std::string Emitter::Load(int buffer, const Shape& s, const Idx& idx) {
  const PrimitiveType t = s.element_type();
  return Decode(t, absl::StrCat(Block(t), "(args.a[", buffer, "]).v[",
                                Offset(s, idx), "]"));
}

std::string Decode(PrimitiveType t, const std::string& raw) {
  if (IsSmallFloat(t)) {
    return absl::StrCat(SmallFloatFunction(t, "dec"), "(uint(", raw, "))");
  }
  switch (t) {
    case PrimitiveType::PRED:
      return absl::StrCat("(", raw, " != uint8_t(0))");
    case PrimitiveType::F16:
      return absl::StrCat("h2f(uint(", raw, "))");
    case PrimitiveType::BF16:
      return absl::StrCat("uintBitsToFloat(uint(", raw, ") << 16)");
    case PrimitiveType::S2:
    case PrimitiveType::S4:
    case PrimitiveType::S8:
    case PrimitiveType::S16:
      return absl::StrCat("int(", raw, ")");
    case PrimitiveType::U2:
    case PrimitiveType::U4:
    case PrimitiveType::U8:
    case PrimitiveType::U16:
      return absl::StrCat("uint(", raw, ")");
    default:
      return raw;
  }
}

// The rank of a value: an array's, or that of a tuple's first array.
static int64_t ValueRank(const Shape& s) {
  if (s.IsTuple()) {
    return s.tuple_shapes().empty() ? 0 : ValueRank(s.tuple_shapes()[0]);
  }
  return s.IsArray() ? s.rank() : 0;
}

absl::StatusOr<std::string> Emitter::TypeOf(const Instruction& x,
                                            const Shape& s) {
  if (s.IsArray() && ShapeUtil::IsDenseArray(s)) {
    if (absl::Status st = UseType(x, s.element_type()); !st.ok()) return st;
    return std::string(Reg(s.element_type()));
  }
  if (!s.IsTuple() || s.tuple_shapes().empty()) {
    return NoCode(x, absl::StrCat("the value shape ", s.ToString()));
  }
  std::vector<std::string> fields;
  for (const Shape& e : s.tuple_shapes()) {
    if (!e.IsArray() || !ShapeUtil::IsDenseArray(e) ||
        e.dimensions() != s.tuple_shapes()[0].dimensions()) {
      return NoCode(x, absl::StrCat("the value shape ", s.ToString()));
    }
    if (absl::Status st = UseType(x, e.element_type()); !st.ok()) return st;
    fields.push_back(
        absl::StrCat(Reg(e.element_type()), " f", fields.size(), ";"));
  }
  const std::string key = absl::StrJoin(fields, " ");
  auto it = struct_names_.find(key);
  if (it != struct_names_.end()) return it->second;
  const std::string name = NewName("S");
  absl::StrAppend(&structs_, "struct ", name, " { ", key, " };\n");
  struct_names_[key] = name;
  return name;
}

absl::StatusOr<std::string> Emitter::Call(const Instruction& x,
                                          const Idx& idx) {
  const int64_t rank = ValueRank(x.shape());
  const std::string args = rank == 0 ? "" : absl::StrJoin(idx, ", ");
  auto it = names_.find(&x);
  if (it != names_.end()) return absl::StrCat(it->second, "(", args, ")");
  absl::StatusOr<std::string> type = TypeOf(x, x.shape());
  if (!type.ok()) return type.status();
  const std::string name = NewName("v");
  const Idx formal = IndexNames(rank);
  std::string body;
  auto b = buffers_.find(&x);
  if (b != buffers_.end()) {
    body = absl::StrCat("  return ", Load(b->second, x.shape(), formal), ";\n");
  } else {
    absl::StatusOr<std::string> s = Body(x, formal);
    if (!s.ok()) return s.status();
    body = *std::move(s);
  }
  absl::StrAppend(&functions_, *type, " ", name, "(", Params(rank), ") {\n",
                  body, "}\n");
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
  const Instruction* root = c.root_instruction();
  for (const Instruction* x : c.MakeInstructionPostOrder()) {
    if (x->opcode() == HloOpcode::kParameter) continue;
    if (x == root && x->opcode() == HloOpcode::kTuple) continue;
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
  absl::StatusOr<std::string> type = TypeOf(*root, root->shape());
  if (!type.ok()) return type.status();
  std::string result;
  if (root->opcode() == HloOpcode::kTuple) {
    // A variadic reducer's result: the struct of its values.
    std::vector<std::string> values;
    for (const Instruction* op : root->operands()) {
      values.push_back(vars.at(op));
    }
    result = absl::StrCat(*type, "(", absl::StrJoin(values, ", "), ")");
  } else {
    result = vars.at(root);
  }
  absl::StrAppend(&functions_, *type, " ", name, "(",
                  absl::StrJoin(params, ", "), ") {\n", body, "  return ",
                  result, ";\n}\n");
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
  return ClampIndex(x, v, t, limit);
}

absl::StatusOr<std::string> Emitter::ClampIndex(const Instruction& x,
                                                const std::string& v,
                                                PrimitiveType t,
                                                int64_t limit) {
  if (IsUnsigned(t)) {
    return absl::StrCat("int(min(", v, ", ", IntConst(t, limit), "))");
  }
  if (!IsSigned(t)) return NoCode(x, "a non-integer index");
  return absl::StrCat("int(clamp(", v, ", ", IntConst(t, 0), ", ",
                      IntConst(t, limit), "))");
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
      if (IsComplex(t)) return ret(ComplexConst(t, lit.GetAsComplex({})));
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
    case HloOpcode::kShuffle: {
      // An index map in each shuffled dimension d = dimensions[k] (the
      // evaluator's EvalShuffle): rotate (i + shift) mod n, the shift
      // normalized into [0, n); permute indices[i broadcast][k];
      // multi_rotate (i + multi_shifts[i broadcast]) mod n. The index
      // literals become constant arrays, read with their size-1 dimensions
      // at 0. An out-of-range permute index runs on the host, whose
      // evaluator reports it.
      const InstructionAttrs& a = x.attrs();
      // The index of each element of `l`, in row-major order.
      auto each_index = [](const Literal& l, auto fn) {
        std::vector<int64_t> at(l.shape().rank(), 0);
        const int64_t count = ShapeUtil::ElementsIn(l.shape());
        for (int64_t e = 0; e < count; ++e) {
          int64_t rest = e;
          for (int64_t i = l.shape().rank() - 1; i >= 0; --i) {
            at[i] = rest % l.shape().dimensions(i);
            rest /= l.shape().dimensions(i);
          }
          if (!fn(at)) return false;
        }
        return true;
      };
      // The literal's values in row-major order as a const int array.
      auto table = [&](const Literal& l) -> std::string {
        const std::string name = NewName("shuf");
        std::vector<std::string> v;
        each_index(l, [&](const std::vector<int64_t>& at) {
          v.push_back(absl::StrCat(l.GetAsInt64(at)));
          return true;
        });
        absl::StrAppend(&functions_, "const int ", name, "[", v.size(),
                        "] = int[](", absl::StrJoin(v, ", "), ");\n");
        return name;
      };
      // The offset in such an array of the element `idx` reads (size-1
      // dimensions at 0, `last` in the extra trailing dimension).
      auto offset = [&](const Literal& l, const std::string& last) {
        std::string e = "0";
        for (int64_t i = 0; i < l.shape().rank(); ++i) {
          const bool extra = i >= rank;
          const std::string term =
              extra ? last : (l.shape().dimensions(i) == 1 ? "0" : idx[i]);
          e = absl::StrCat("(", e, ") * ", l.shape().dimensions(i), " + ",
                           term);
        }
        return e;
      };
      std::string indices, shifts;
      // A constant array indexed at run time compiles slowly on lavapipe
      // (672 doubles took 28 s, docs/vulkan.md): larger index literals
      // run on the host.
      for (const auto* l :
           {a.shuffle_indices.get(), a.shuffle_multi_shifts.get()}) {
        if (l != nullptr && ShapeUtil::ElementsIn(l->shape()) > 256) {
          return NoCode(x, "a shuffle with more than 256 indices");
        }
      }
      if (a.shuffle_mode == ShuffleMode::kPermute) {
        if (a.shuffle_indices == nullptr) return NoCode(x, "this shuffle");
        const Literal& l = *a.shuffle_indices;
        // Every index in range for its dimension, or the host's error.
        const bool in_range =
            each_index(l, [&](const std::vector<int64_t>& at) {
              const int64_t k = l.shape().rank() > rank ? at.back() : 0;
              if (k >= static_cast<int64_t>(a.dimensions.size())) return true;
              const int64_t v = l.GetAsInt64(at);
              return v >= 0 && v < s.dimensions(a.dimensions[k]);
            });
        if (!in_range) {
          return NoCode(x, "a permute shuffle with an index out of range");
        }
        indices = table(l);
      } else if (a.shuffle_mode == ShuffleMode::kMultiRotate) {
        if (a.shuffle_multi_shifts == nullptr) return NoCode(x, "this shuffle");
        shifts = table(*a.shuffle_multi_shifts);
      }
      Idx j = idx;
      for (size_t k = 0; k < a.dimensions.size(); ++k) {
        const int64_t d = a.dimensions[k];
        const int64_t n = s.dimensions(d);
        if (n == 0) continue;
        if (a.shuffle_mode == ShuffleMode::kPermute) {
          j[d] = absl::StrCat(indices, "[",
                              offset(*a.shuffle_indices, absl::StrCat(k)), "]");
        } else if (a.shuffle_mode == ShuffleMode::kMultiRotate) {
          // ((i + (v mod n)) mod n), v mod n in [0, n) through irem.
          const std::string v = absl::StrCat(
              shifts, "[", offset(*a.shuffle_multi_shifts, "0"), "]");
          j[d] = absl::StrCat("((", idx[d], " + ((irem(", v, ", ", n, ") + ", n,
                              ") % ", n, ")) % ", n, ")");
        } else {
          const int64_t shift = ((a.shuffle_shifts[k] % n) + n) % n;
          j[d] = absl::StrCat("((", idx[d], " + ", shift, ") % ", n, ")");
        }
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
    case HloOpcode::kScaledDot:
    case HloOpcode::kRaggedDot:
      return Dot(x, idx);
    case HloOpcode::kConvolution:
      return Convolution(x, idx);
    case HloOpcode::kGather:
      return Gather(x, idx);
    case HloOpcode::kScatter:
      return Scatter(x, idx);
    case HloOpcode::kSelectAndScatter:
      return SelectAndScatter(x, idx);
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
  // stochastic-convert is elementwise here too (the IR's IsElementwise
  // leaves it out, so the passes do not fuse it).
  if (!IsElementwise(x.opcode()) &&
      x.opcode() != HloOpcode::kStochasticConvert) {
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

absl::StatusOr<GlslKernel> Emitter::Emit(const Instruction& h,
                                         int max_buffers) {
  // The results: one array, or the arrays of a tuple with equal dimensions
  // (a variadic reduce), each its own buffer after the operands'.
  std::vector<Shape> outs;
  if (h.shape().IsTuple()) {
    absl::StatusOr<std::string> type = TypeOf(h, h.shape());
    if (!type.ok()) return type.status();
    outs = h.shape().tuple_shapes();
  } else if (h.shape().IsArray() && ShapeUtil::IsDenseArray(h.shape())) {
    outs.push_back(h.shape());
  } else {
    return NoCode(h, absl::StrCat("the result shape ", h.shape().ToString()));
  }
  GlslKernel k;
  const int n_in = static_cast<int>(h.operand_count());
  k.num_buffers = n_in + static_cast<int>(outs.size());
  if (k.num_buffers > max_buffers) {
    return NoCode(h,
                  absl::StrCat(k.num_buffers, " buffers (push constants hold ",
                               max_buffers, " addresses)"));
  }
  const Shape& out0 = outs[0];
  k.elements = ShapeUtil::ElementsIn(out0);
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
  const Idx idx = IndexNames(out0.rank());
  absl::StatusOr<std::string> value = Call(*root, idx);
  if (!value.ok()) return value.status();

  // The main loop: invocation i computes the element at physical position
  // i of the (first) result.
  std::string main =
      absl::StrCat("void main() {\n", GridLoop(k.elements, out0));
  if (!h.shape().IsTuple()) {
    const PrimitiveType t = out0.element_type();
    absl::StrAppend(&main, "    ", Block(t), "(args.a[", n_in,
                    "]).v[g] = ", Store(t, *value), ";\n");
  } else {
    absl::StrAppend(&main, "    ", *TypeOf(h, h.shape()), " r = ", *value,
                    ";\n");
    for (size_t o = 0; o < outs.size(); ++o) {
      const PrimitiveType t = outs[o].element_type();
      absl::StrAppend(&main, "    ", Block(t), "(args.a[", n_in + o, "]).v[",
                      Offset(outs[o], idx),
                      "] = ", Store(t, absl::StrCat("r.f", o)), ";\n");
    }
  }
  absl::StrAppend(&main, "  }\n}\n");
  k.source = Source(main, k.num_buffers);
  return k;
}

std::string Emitter::Source(const std::string& main, int num_buffers) {
  std::string src = "#version 460\n";
  bool need8 = false, need16 = false, need64 = false, needf64 = false;
  for (PrimitiveType x : types_) {
    need8 |= Bits(x) <= 8 || x == PrimitiveType::PRED;
    need16 |= Bits(x) == 16;
    need64 |= x == PrimitiveType::S64 || x == PrimitiveType::U64 ||
              x == PrimitiveType::F64 || x == PrimitiveType::C128;
    needf64 |= x == PrimitiveType::F64 || x == PrimitiveType::C128;
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
  } kBlocks[] = {
      {"Bu8", "uint8_t", 1},  {"Bi8", "int8_t", 1},    {"Bu16", "uint16_t", 2},
      {"Bi16", "int16_t", 2}, {"Bu32", "uint", 4},     {"Bi32", "int", 4},
      {"Bf32", "float", 4},   {"Bu64", "uint64_t", 8}, {"Bi64", "int64_t", 8},
      {"Bf64", "double", 8},  {"Bc64", "vec2", 8},     {"Bc128", "dvec2", 16}};
  for (const auto& b : kBlocks) {
    if (!blocks.contains(b.name)) continue;
    absl::StrAppend(&src,
                    "layout(buffer_reference, std430, "
                    "buffer_reference_align = ",
                    b.align, ") buffer ", b.name, " { ", b.elem, " v[]; };\n");
    if (coherent_blocks_.contains(b.name)) {
      absl::StrAppend(&src,
                      "layout(buffer_reference, std430, "
                      "buffer_reference_align = ",
                      b.align, ") coherent buffer C", b.name, " { ", b.elem,
                      " v[]; };\n");
    }
  }
  absl::StrAppend(&src, "layout(push_constant) uniform Args { uvec2 a[",
                  num_buffers, "]; } args;\n");
  absl::StrAppend(&src, GlslPrelude(/*f64=*/needf64, /*i64=*/need64));
  for (PrimitiveType x : types_) absl::StrAppend(&src, SmallFloatFunctions(x));
  const std::string body = absl::StrCat(structs_, functions_, main);
  const std::string rest =
      absl::StrCat(ComplexPrelude(types_.contains(PrimitiveType::C64),
                                  types_.contains(PrimitiveType::C128), body),
                   body);
  // The double overloads of sin, cos, tan, atan2, pow, cbrt and erf that
  // the rest calls (only those: each is a page of code or more).
  if (needf64) absl::StrAppend(&src, F64MathFor(rest));
  absl::StrAppend(&src, rest);
  return src;
}

}  // namespace glsl_internal

absl::StatusOr<GlslKernel> EmitGlslKernel(const Instruction& h,
                                          const DeviceFeatures& features,
                                          int max_buffers) {
  glsl_internal::Emitter e(features);
  if (h.opcode() == HloOpcode::kSort) return e.EmitSort(h, max_buffers);
  if (h.opcode() == HloOpcode::kRngBitGenerator) {
    return e.EmitRngBitGenerator(h, max_buffers);
  }
  if (h.opcode() == HloOpcode::kTriangularSolve) {
    return e.EmitTriangularSolve(h, max_buffers);
  }
  if (h.opcode() == HloOpcode::kCholesky) return e.EmitCholesky(h, max_buffers);
  return e.Emit(h, max_buffers);
}

}  // namespace plexa::vulkan
