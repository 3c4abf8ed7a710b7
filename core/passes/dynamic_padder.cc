#include "core/passes/dynamic_padder.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/ir/computation.h"
#include "core/ir/instruction.h"
#include "core/ir/window_util.h"
#include "core/passes/call_inliner.h"
#include "core/passes/pass_util.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"

namespace plexa {
namespace {

// Per dimension of an array: its run-time size (an s32[] value of the
// entry computation), or null where the dimension is static.
using Dims = std::vector<Instruction*>;

bool AnyDynamic(const Dims& dims) {
  return std::any_of(dims.begin(), dims.end(),
                     [](const Instruction* d) { return d != nullptr; });
}

// Every array of `shape` made static.
void ClearDynamic(Shape* shape) {
  if (shape->IsTuple()) {
    for (Shape& t : *shape->mutable_tuple_shapes()) ClearDynamic(&t);
    return;
  }
  if (!shape->IsArray()) return;
  for (int64_t d = 0; d < shape->rank(); ++d) {
    shape->set_dynamic_dimension(d, false);
  }
}

std::string Where(const Instruction& h) {
  return absl::StrCat("'", h.name(), "' (", HloOpcodeString(h.opcode()), ")");
}

absl::Status Unsupported(const Instruction& h, absl::string_view what) {
  return absl::UnimplementedError(
      absl::StrCat("dynamic shapes: ", Where(h), " ", what,
                   "; this is not supported yet (docs/dynamic_shapes.md)"));
}

bool IsPassThroughElementwise(HloOpcode op) {
  return IsElementwise(op) || op == HloOpcode::kCopy ||
         op == HloOpcode::kAllReduce || op == HloOpcode::kStochasticConvert;
}

// The lowering of the entry computation.
class Lowering {
 public:
  Lowering(Module* module, bool lower_signature)
      : module_(module),
        c_(module->entry_computation()),
        lower_signature_(lower_signature) {}

  absl::StatusOr<DynamicSignature> Run() {
    DynamicSignature sig;
    const ProgramShape program = c_->ComputeProgramShape();
    sig.parameters = program.parameters;
    sig.result = program.result;
    // The entry, and the bodies and conditions of its while loops, may hold
    // dynamic shapes; every other computation (reducers, comparators, ...)
    // must be static.
    std::vector<Computation*> lowered = {c_};
    for (size_t i = 0; i < lowered.size(); ++i) {
      for (Instruction* h : lowered[i]->instructions()) {
        if (h->opcode() != HloOpcode::kWhile &&
            h->opcode() != HloOpcode::kConditional) {
          continue;
        }
        for (Computation* called : h->called_computations()) {
          if (std::find(lowered.begin(), lowered.end(), called) ==
              lowered.end()) {
            lowered.push_back(called);
          }
        }
      }
    }
    for (Computation* other : module_->computations()) {
      if (std::find(lowered.begin(), lowered.end(), other) != lowered.end()) {
        continue;
      }
      for (Instruction* h : other->instructions()) {
        if (h->shape().is_dynamic() ||
            h->opcode() == HloOpcode::kSetDimensionSize ||
            h->opcode() == HloOpcode::kDynamicReshape) {
          return absl::UnimplementedError(absl::StrCat(
              "dynamic shapes: ", Where(*h), " in computation '", other->name(),
              "' has a dynamic shape; only the entry computation and its "
              "while loops and conditional branches may have them "
              "(docs/dynamic_shapes.md)"));
        }
      }
    }
    // The shapes as written, before they are made static.
    for (Computation* comp : lowered) {
      for (Instruction* h : comp->instructions()) written_[h] = h->shape();
    }
    std::vector<Instruction*> order = c_->MakeInstructionPostOrder();
    const Shape written_root_shape = c_->root_instruction()->shape();
    const std::string written_root = absl::StrCat(
        Where(*c_->root_instruction()), ", ", written_root_shape.ToString());
    for (Computation* comp : module_->computations()) {
      for (Instruction* h : comp->instructions()) {
        ClearDynamic(h->mutable_shape());
      }
    }
    // Dynamic parameters: their sizes become parameters of their own.
    const int64_t n_params = c_->num_parameters();
    for (int64_t p = 0; p < n_params; ++p) {
      Instruction* param = c_->parameter_instruction(p);
      const Shape& s = written_[param];
      if (!s.is_dynamic()) continue;
      if (!s.IsArray()) {
        return Unsupported(*param, "is a tuple with dynamic elements");
      }
      if (!lower_signature_) continue;  // taken at its bound
      Dims dims(s.rank(), nullptr);
      for (int64_t d = 0; d < s.rank(); ++d) {
        if (!s.is_dynamic_dimension(d)) continue;
        InstructionAttrs attrs;
        attrs.parameter_number = c_->num_parameters();
        dims[d] = c_->AddInstruction(Instruction::Create(
            HloOpcode::kParameter, Shape(PrimitiveType::S32, {}), {},
            std::move(attrs)));
        dims[d]->set_name(
            c_->UniqueName(absl::StrCat(param->name(), ".size", d)));
        sig.parameter_sizes.push_back({p, d});
      }
      sizes_[param] = {dims};
    }
    for (Instruction* h : order) {
      PLEXA_RETURN_IF_ERROR(Visit(h));
    }
    // The result's sizes.
    Instruction* root = c_->root_instruction();
    std::vector<Instruction*> result_sizes;
    auto it = sizes_.find(root);
    if (it != sizes_.end()) {
      const std::vector<Dims>& elements = it->second;
      // As XLA (DynamicPadder's slice_dynamic_output): a result dimension
      // is cut to its size where the program declares it dynamic; one
      // declared static returns the whole bound, padding included.
      for (size_t e = 0; e < elements.size(); ++e) {
        const Shape& declared = written_root_shape.IsTuple()
                                    ? written_root_shape.tuple_shapes(e)
                                    : written_root_shape;
        for (size_t d = 0; d < elements[e].size(); ++d) {
          if (elements[e][d] == nullptr || !declared.IsArray() ||
              !declared.is_dynamic_dimension(d)) {
            continue;
          }
          result_sizes.push_back(elements[e][d]);
          sig.result_sizes.push_back(
              {root->shape().IsTuple() ? static_cast<int64_t>(e) : -1,
               static_cast<int64_t>(d)});
        }
      }
    }
    if (!result_sizes.empty()) {
      if (!lower_signature_) {
        return absl::FailedPreconditionError(absl::StrCat(
            "dynamic shapes: the result of the entry computation (",
            written_root,
            ") has a size known only at run time; a host that lowers the "
            "signature runs it (LowerDynamicShapes; plexa run does)"));
      }
      std::vector<Instruction*> parts = {root};
      std::vector<Shape> shapes = {root->shape()};
      for (Instruction* s : result_sizes) {
        parts.push_back(s);
        shapes.push_back(s->shape());
      }
      Instruction* tuple =
          Add(HloOpcode::kTuple, Shape(std::move(shapes)), std::move(parts));
      c_->set_root_instruction(tuple);
    }
    // Users come after their operands in replaced_, so removing from the
    // back frees each replaced instruction once its users are gone.
    for (auto r = replaced_.rbegin(); r != replaced_.rend(); ++r) {
      Computation* parent = (*r)->parent();
      if ((*r)->user_count() == 0 && *r != parent->root_instruction()) {
        PLEXA_RETURN_IF_ERROR(parent->RemoveInstruction(*r));
      }
    }
    sig.changed = !sig.parameter_sizes.empty() || !sig.result_sizes.empty();
    if (module_->entry_computation_layout().has_value()) {
      if (sig.changed) {
        module_->set_entry_computation_layout(std::nullopt);
      } else {
        ProgramShape layout = *module_->entry_computation_layout();
        for (Shape& s : layout.parameters) ClearDynamic(&s);
        ClearDynamic(&layout.result);
        module_->set_entry_computation_layout(std::move(layout));
      }
    }
    return sig;
  }

 private:
  // ---- Building blocks (static shapes) ------------------------------------

  Instruction* Add(HloOpcode op, Shape shape, std::vector<Instruction*> ops,
                   InstructionAttrs attrs = {},
                   std::vector<Computation*> called = {}) {
    return c_->AddInstruction(
        Instruction::Create(op, std::move(shape), std::move(ops),
                            std::move(attrs), std::move(called)));
  }

  static Shape ArrayOf(PrimitiveType type, absl::Span<const int64_t> dims) {
    return Shape(type, dims);
  }

  Instruction* S32(int64_t v) {
    InstructionAttrs attrs;
    attrs.literal =
        std::make_shared<const Literal>(Literal::CreateR0<int32_t>(v));
    return Add(HloOpcode::kConstant, Shape(PrimitiveType::S32, {}), {},
               std::move(attrs));
  }

  Instruction* Scalar(HloOpcode op, Instruction* a, Instruction* b) {
    return Add(op, Shape(PrimitiveType::S32, {}), {a, b});
  }

  absl::StatusOr<Instruction*> Zero(PrimitiveType type) {
    return AddScalarConstant(c_, type, 0.0);
  }

  // A scalar spread over `dims`.
  Instruction* Spread(Instruction* scalar, absl::Span<const int64_t> dims) {
    InstructionAttrs attrs;
    return Add(HloOpcode::kBroadcast,
               ArrayOf(scalar->shape().element_type(), dims), {scalar},
               std::move(attrs));
  }

  Instruction* Iota(absl::Span<const int64_t> dims, int64_t d) {
    InstructionAttrs attrs;
    attrs.iota_dimension = d;
    return Add(HloOpcode::kIota, ArrayOf(PrimitiveType::S32, dims), {},
               std::move(attrs));
  }

  Instruction* Compare(Instruction* a, Instruction* b,
                       ComparisonDirection dir) {
    InstructionAttrs attrs;
    attrs.comparison_direction = dir;
    std::vector<int64_t> dims(a->shape().dimensions().begin(),
                              a->shape().dimensions().end());
    return Add(HloOpcode::kCompare, ArrayOf(PrimitiveType::PRED, dims), {a, b},
               std::move(attrs));
  }

  // True where every index of the listed dimensions is below its size.
  Instruction* ValidMask(absl::Span<const int64_t> dims, const Dims& sizes,
                         absl::Span<const int64_t> which) {
    Instruction* mask = nullptr;
    for (int64_t d : which) {
      if (sizes[d] == nullptr) continue;
      Instruction* m = Compare(Iota(dims, d), Spread(sizes[d], dims),
                               ComparisonDirection::kLt);
      mask = mask == nullptr
                 ? m
                 : Add(HloOpcode::kAnd, ArrayOf(PrimitiveType::PRED, dims),
                       {mask, m});
    }
    return mask;
  }

  // `x` with the padding of the listed dimensions replaced by the scalar
  // `value`.
  Instruction* Mask(Instruction* x, const Dims& sizes,
                    absl::Span<const int64_t> which, Instruction* value) {
    std::vector<int64_t> dims(x->shape().dimensions().begin(),
                              x->shape().dimensions().end());
    Instruction* mask = ValidMask(dims, sizes, which);
    if (mask == nullptr) return x;
    return Add(HloOpcode::kSelect, x->shape(), {mask, x, Spread(value, dims)});
  }

  std::vector<int64_t> AllDims(const Instruction* x) {
    std::vector<int64_t> all(x->shape().rank());
    for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
    return all;
  }

  // The size of dimension d of x: its run-time size or its bound.
  Instruction* SizeOf(const Instruction* x, const Dims* sizes, int64_t d) {
    if (sizes != nullptr && (*sizes)[d] != nullptr) return (*sizes)[d];
    return S32(x->shape().dimensions(d));
  }

  // `x` (sizes `in`) as an array of `out_dims` whose elements, in
  // row-major order of the sizes `out`, are x's in row-major order of
  // `in`: a gather of computed indices.
  absl::StatusOr<Instruction*> Remap(Instruction* x, const Dims& in,
                                     absl::Span<const int64_t> out_dims,
                                     const Dims& out) {
    const Shape& xs = x->shape();
    const PrimitiveType type = xs.element_type();
    const int64_t n_in = ShapeUtil::ElementsIn(xs);
    const Shape out_shape = ArrayOf(type, out_dims);
    const int64_t n_out = ShapeUtil::ElementsIn(out_shape);
    if (n_in == 0 || n_out == 0) {
      PLEXA_ASSIGN_OR_RETURN(Instruction * zero, Zero(type));
      return Spread(zero, out_dims);
    }
    // p: the position of each result element in row-major order of `out`.
    Instruction* p = nullptr;
    Instruction* stride = S32(1);
    for (int64_t d = static_cast<int64_t>(out_dims.size()) - 1; d >= 0; --d) {
      Instruction* term =
          Add(HloOpcode::kMultiply, ArrayOf(PrimitiveType::S32, out_dims),
              {Iota(out_dims, d), Spread(stride, out_dims)});
      p = p == nullptr ? term
                       : Add(HloOpcode::kAdd,
                             ArrayOf(PrimitiveType::S32, out_dims), {p, term});
      Instruction* size = out[d] != nullptr ? out[d] : S32(out_dims[d]);
      stride = Scalar(HloOpcode::kMultiply, stride, size);
    }
    if (p == nullptr) p = Spread(S32(0), out_dims);
    // q: the element of x at that position of `in`'s row-major order.
    Instruction* q = Spread(S32(0), out_dims);
    Instruction* rest = p;
    int64_t bound_stride = 1;
    const Shape idx = ArrayOf(PrimitiveType::S32, out_dims);
    for (int64_t d = xs.rank() - 1; d >= 0; --d) {
      Instruction* size = in[d] != nullptr
                              ? Scalar(HloOpcode::kMaximum, in[d], S32(1))
                              : S32(std::max<int64_t>(xs.dimensions(d), 1));
      Instruction* sz = Spread(size, out_dims);
      Instruction* i_d = Add(HloOpcode::kRemainder, idx, {rest, sz});
      rest = Add(HloOpcode::kDivide, idx, {rest, sz});
      q = Add(HloOpcode::kAdd, idx,
              {q, Add(HloOpcode::kMultiply, idx,
                      {i_d, Spread(S32(bound_stride), out_dims)})});
      bound_stride *= xs.dimensions(d);
    }
    Instruction* flat = Add(HloOpcode::kReshape, ArrayOf(type, {n_in}), {x});
    Instruction* indices =
        Add(HloOpcode::kReshape, ArrayOf(PrimitiveType::S32, {n_out, 1}), {q});
    InstructionAttrs g;
    GatherDimensionNumbers dn;
    dn.collapsed_slice_dims = {0};
    dn.start_index_map = {0};
    dn.index_vector_dim = 1;
    g.gather_dimension_numbers = dn;
    g.gather_slice_sizes = {1};
    Instruction* gathered = Add(HloOpcode::kGather, ArrayOf(type, {n_out}),
                                {flat, indices}, std::move(g));
    return Add(HloOpcode::kReshape, out_shape, {gathered});
  }

  // Whether the valid elements of an array with these sizes are a prefix
  // of its row-major order: at most one dynamic dimension, and every
  // dimension before it of bound 1.
  static bool PaddingAtEnd(absl::Span<const int64_t> dims, const Dims& sizes) {
    int64_t dynamic = -1;
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (sizes[d] == nullptr) continue;
      if (dynamic >= 0) return false;
      dynamic = static_cast<int64_t>(d);
    }
    for (int64_t d = 0; d < dynamic; ++d) {
      if (dims[d] != 1) return false;
    }
    return true;
  }

  // The shape as the program wrote it (an instruction the lowering added
  // has its own).
  const Shape& WrittenShape(const Instruction* h) const {
    auto it = written_.find(h);
    return it != written_.end() ? it->second : h->shape();
  }

  // The shape of `h` with the dimensions the lowering found dynamic
  // marked so (for messages: the shapes themselves are already static).
  std::string DynamicShapeString(const Instruction* h) const {
    Shape shape = h->shape();
    auto it = sizes_.find(h);
    if (it != sizes_.end()) {
      for (size_t e = 0; e < it->second.size(); ++e) {
        Shape* s = shape.IsTuple() ? shape.mutable_tuple_shapes(e) : &shape;
        for (size_t d = 0; d < it->second[e].size(); ++d) {
          if (it->second[e][d] != nullptr) s->set_dynamic_dimension(d, true);
        }
      }
    }
    return shape.ToString();
  }

  // ---- Sizes ---------------------------------------------------------------

  const Dims* SizesOf(const Instruction* h, int64_t element = 0) const {
    auto it = sizes_.find(h);
    if (it == sizes_.end() ||
        element >= static_cast<int64_t>(it->second.size())) {
      return nullptr;
    }
    const Dims& d = it->second[element];
    return AnyDynamic(d) ? &d : nullptr;
  }

  void SetSizes(const Instruction* h, Dims dims) {
    if (AnyDynamic(dims)) sizes_[h] = {std::move(dims)};
  }

  absl::Status Replace(Instruction* h, Instruction* with) {
    PLEXA_RETURN_IF_ERROR(h->ReplaceAllUsesWith(with));
    if (with != h) replaced_.push_back(h);
    return absl::OkStatus();
  }

  // ---- The rules -----------------------------------------------------------

  absl::Status Visit(Instruction* h) {
    const HloOpcode op = h->opcode();
    bool any = op == HloOpcode::kSetDimensionSize ||
               op == HloOpcode::kDynamicReshape || op == HloOpcode::kWhile ||
               op == HloOpcode::kConditional;
    std::vector<const Dims*> os(h->operand_count(), nullptr);
    for (int64_t i = 0; i < h->operand_count(); ++i) {
      os[i] = SizesOf(h->operand(i));
      if (sizes_.count(h->operand(i))) any = true;
    }
    if (!any) return absl::OkStatus();
    const Shape& shape = h->shape();
    switch (op) {
      case HloOpcode::kSetDimensionSize: {
        const int64_t d = h->dimensions(0);
        Dims dims = os[0] ? *os[0] : Dims(shape.rank(), nullptr);
        const Instruction* size = h->operand(1);
        if (size->opcode() == HloOpcode::kConstant &&
            size->literal().GetAsInt64({}) == shape.dimensions(d)) {
          // A size equal to the bound makes the dimension static (XLA's
          // DynamicDimensionInference).
          dims[d] = nullptr;
          Instruction* value =
              Add(HloOpcode::kCopy, shape, {h->mutable_operand(0)});
          SetSizes(value, std::move(dims));
          return Replace(h, value);
        }
        // The size is kept within [0, bound].
        dims[d] =
            Scalar(HloOpcode::kMinimum,
                   Scalar(HloOpcode::kMaximum, h->mutable_operand(1), S32(0)),
                   S32(shape.dimensions(d)));
        Instruction* value =
            Add(HloOpcode::kCopy, shape, {h->mutable_operand(0)});
        SetSizes(value, std::move(dims));
        return Replace(h, value);
      }
      case HloOpcode::kGetDimensionSize: {
        const int64_t d = h->dimensions(0);
        if (os[0] == nullptr || (*os[0])[d] == nullptr) {
          return Replace(h, S32(h->operand(0)->shape().dimensions(d)));
        }
        Instruction* size = (*os[0])[d];
        if (shape.element_type() != PrimitiveType::S32) {
          size = Add(HloOpcode::kConvert, shape, {size});
        }
        return Replace(h, size);
      }
      case HloOpcode::kBroadcast: {
        if (os[0] == nullptr) return absl::OkStatus();
        Dims dims(shape.rank(), nullptr);
        for (size_t i = 0; i < h->dimensions().size(); ++i) {
          dims[h->dimensions(i)] = (*os[0])[i];
        }
        SetSizes(h, std::move(dims));
        return absl::OkStatus();
      }
      case HloOpcode::kTranspose: {
        if (os[0] == nullptr) return absl::OkStatus();
        Dims dims(shape.rank(), nullptr);
        for (int64_t i = 0; i < shape.rank(); ++i) {
          dims[i] = (*os[0])[h->dimensions(i)];
        }
        SetSizes(h, std::move(dims));
        return absl::OkStatus();
      }
      case HloOpcode::kReshape:
      case HloOpcode::kDynamicReshape:
        return VisitReshape(h, os);
      case HloOpcode::kReduce:
        return VisitReduce(h);
      case HloOpcode::kDot:
        return VisitDot(h, os);
      case HloOpcode::kConvolution:
        return VisitConvolution(h, os);
      case HloOpcode::kSlice: {
        if (os[0] == nullptr) return absl::OkStatus();
        Dims dims(shape.rank(), nullptr);
        for (int64_t d = 0; d < shape.rank(); ++d) {
          const SliceDimension& s = h->attrs().slice[d];
          // As XLA's DynamicDimensionInference: the elements of
          // [start, limit) below the size, every stride-th; one element
          // sliced out is static.
          if ((*os[0])[d] == nullptr || shape.dimensions(d) == 1) continue;
          Instruction* in =
              Scalar(HloOpcode::kMinimum,
                     Scalar(HloOpcode::kMaximum, (*os[0])[d], S32(s.start)),
                     S32(s.limit));
          Instruction* n = Scalar(HloOpcode::kSubtract, in, S32(s.start));
          if (s.stride != 1) {
            n = Scalar(HloOpcode::kDivide,
                       Scalar(HloOpcode::kAdd, n, S32(s.stride - 1)),
                       S32(s.stride));
          }
          dims[d] = n;
        }
        SetSizes(h, std::move(dims));
        return absl::OkStatus();
      }
      case HloOpcode::kDynamicSlice: {
        for (int64_t i = 1; i < h->operand_count(); ++i) {
          if (os[i] != nullptr) return Unsupported(*h, "has dynamic indices");
        }
        if (os[0] == nullptr) return absl::OkStatus();
        Dims dims(shape.rank(), nullptr);
        for (int64_t d = 0; d < shape.rank(); ++d) {
          if (shape.dimensions(d) == h->operand(0)->shape().dimensions(d)) {
            dims[d] = (*os[0])[d];
          }
        }
        SetSizes(h, std::move(dims));
        return absl::OkStatus();
      }
      case HloOpcode::kDynamicUpdateSlice: {
        for (int64_t i = 1; i < h->operand_count(); ++i) {
          if (os[i] != nullptr) {
            return Unsupported(*h, "writes an update of dynamic size");
          }
        }
        if (os[0] != nullptr) SetSizes(h, *os[0]);
        return absl::OkStatus();
      }
      case HloOpcode::kPad:
        return VisitPad(h, os);
      case HloOpcode::kConcatenate:
        return VisitConcatenate(h, os);
      case HloOpcode::kReverse:
        return VisitReverse(h, os);
      case HloOpcode::kSort:
        return VisitSort(h, os);
      case HloOpcode::kReduceWindow:
        return VisitReduceWindow(h);
      case HloOpcode::kGather:
        return VisitGather(h, os);
      case HloOpcode::kWhile:
        return VisitWhile(h);
      case HloOpcode::kConditional:
        return VisitConditional(h);
      case HloOpcode::kScatter:
        return VisitScatter(h, os);
      case HloOpcode::kTuple: {
        std::vector<Dims> elements(h->operand_count());
        bool dynamic = false;
        for (int64_t i = 0; i < h->operand_count(); ++i) {
          if (h->operand(i)->shape().IsTuple() && sizes_.count(h->operand(i))) {
            return Unsupported(*h, "nests a tuple with dynamic elements");
          }
          if (os[i] != nullptr) {
            elements[i] = *os[i];
            dynamic = true;
          }
        }
        if (dynamic) sizes_[h] = std::move(elements);
        return absl::OkStatus();
      }
      case HloOpcode::kGetTupleElement: {
        const Dims* e = SizesOf(h->operand(0), h->tuple_index());
        if (e != nullptr) SetSizes(h, *e);
        return absl::OkStatus();
      }
      case HloOpcode::kOptimizationBarrier:
        if (auto it = sizes_.find(h->operand(0)); it != sizes_.end()) {
          std::vector<Dims> elements = it->second;  // copied before inserting
          sizes_[h] = std::move(elements);
        }
        return absl::OkStatus();
      default:
        break;
    }
    if (op == HloOpcode::kBitcastConvert && os[0] != nullptr &&
        h->operand(0)->shape().rank() != shape.rank()) {
      // Between widths: the leading dimensions are the operand's; the
      // minor one added (or removed) holds the parts of one element.
      const Dims& in = *os[0];
      Dims dims(shape.rank(), nullptr);
      const int64_t common = std::min<int64_t>(shape.rank(), in.size());
      for (int64_t d = 0; d < common; ++d) dims[d] = in[d];
      if (static_cast<int64_t>(in.size()) > shape.rank() &&
          in.back() != nullptr) {
        return Unsupported(*h, "narrows a dynamic minor dimension");
      }
      SetSizes(h, std::move(dims));
      return absl::OkStatus();
    }
    if (IsPassThroughElementwise(op) && shape.IsArray()) {
      return VisitElementwise(h, os);
    }
    for (int64_t i = 0; i < h->operand_count(); ++i) {
      if (sizes_.count(h->operand(i))) {
        return Unsupported(*h, absl::StrCat("reads operand ", i, " (",
                                            DynamicShapeString(h->operand(i)),
                                            ") with a dynamic dimension"));
      }
    }
    return absl::OkStatus();
  }

  // Elementwise ops. Where operands' run-time sizes differ, as XLA's
  // DynamicDimensionInference and DynamicPadder: an operand of size 1 is
  // broadcast to the other's size (implicit broadcast), otherwise the
  // smaller size is the result's (implicit slice). Only dynamic sizes take
  // part; a static dimension is taken to agree.
  absl::Status VisitElementwise(Instruction* h,
                                const std::vector<const Dims*>& os) {
    const Shape& shape = h->shape();
    std::vector<Instruction*> ops(h->operands().begin(), h->operands().end());
    Dims dims(shape.rank(), nullptr);
    bool rewrite = false;
    for (int64_t d = 0; d < shape.rank(); ++d) {
      std::vector<int64_t> who;
      bool differ = false;
      for (int64_t i = 0; i < h->operand_count(); ++i) {
        if (os[i] == nullptr || h->operand(i)->shape().rank() != shape.rank() ||
            (*os[i])[d] == nullptr) {
          continue;
        }
        Instruction* si = (*os[i])[d];
        who.push_back(i);
        if (dims[d] == nullptr) {
          dims[d] = si;
          continue;
        }
        if (si == dims[d]) continue;
        differ = true;
        Instruction* one = S32(1);
        Instruction* needs = Pred(
            HloOpcode::kOr,
            Pred(HloOpcode::kAnd, Compare(si, one, ComparisonDirection::kEq),
                 Compare(si, dims[d], ComparisonDirection::kLt)),
            Pred(HloOpcode::kAnd,
                 Compare(dims[d], one, ComparisonDirection::kEq),
                 Compare(dims[d], si, ComparisonDirection::kLt)));
        dims[d] = Add(HloOpcode::kSelect, Shape(PrimitiveType::S32, {}),
                      {needs, Scalar(HloOpcode::kMaximum, dims[d], si),
                       Scalar(HloOpcode::kMinimum, dims[d], si)});
      }
      if (!differ) continue;
      for (int64_t i : who) {
        ops[i] = BroadcastIfOne(ops[i], d, (*os[i])[d]);
        rewrite = true;
      }
    }
    if (!rewrite) {
      SetSizes(h, std::move(dims));
      return absl::OkStatus();
    }
    Instruction* value = AddClone(c_, *h, ops);
    SetSizes(value, std::move(dims));
    return Replace(h, value);
  }

  Instruction* Pred(HloOpcode op, Instruction* a, Instruction* b) {
    return Add(op, Shape(PrimitiveType::PRED, {}), {a, b});
  }

  // `x` with its element 0 along d spread over the whole dimension where
  // `size` is 1, else `x`.
  Instruction* BroadcastIfOne(Instruction* x, int64_t d, Instruction* size) {
    const Shape& xs = x->shape();
    std::vector<int64_t> dims(xs.dimensions().begin(), xs.dimensions().end());
    std::vector<SliceDimension> first(dims.size());
    std::vector<int64_t> kept, kept_dims;
    for (size_t k = 0; k < dims.size(); ++k) {
      first[k] = {0, static_cast<int64_t>(k) == d ? 1 : dims[k], 1};
      if (static_cast<int64_t>(k) != d) {
        kept.push_back(static_cast<int64_t>(k));
        kept_dims.push_back(dims[k]);
      }
    }
    std::vector<int64_t> one_dims = dims;
    one_dims[d] = 1;
    InstructionAttrs slice;
    slice.slice = first;
    Instruction* row =
        Add(HloOpcode::kSlice, ArrayOf(xs.element_type(), one_dims), {x},
            std::move(slice));
    Instruction* flat =
        Add(HloOpcode::kReshape, ArrayOf(xs.element_type(), kept_dims), {row});
    InstructionAttrs bcast;
    bcast.dimensions = kept;
    Instruction* spread =
        Add(HloOpcode::kBroadcast, ArrayOf(xs.element_type(), dims), {flat},
            std::move(bcast));
    Instruction* is_one =
        Spread(Compare(size, S32(1), ComparisonDirection::kEq), dims);
    return Add(HloOpcode::kSelect, ArrayOf(xs.element_type(), dims),
               {is_one, spread, x});
  }

  absl::Status VisitReshape(Instruction* h,
                            const std::vector<const Dims*>& os) {
    const Shape& written = written_[h];
    const Shape& shape = h->shape();
    Instruction* x = h->mutable_operand(0);
    const Dims in = os[0] ? *os[0] : Dims(x->shape().rank(), nullptr);
    Dims out(shape.rank(), nullptr);
    if (h->opcode() == HloOpcode::kDynamicReshape) {
      for (int64_t d = 0; d < shape.rank(); ++d) {
        if (!written.is_dynamic_dimension(d)) continue;
        out[d] = Scalar(
            HloOpcode::kMinimum,
            Scalar(HloOpcode::kMaximum, h->mutable_operand(d + 1), S32(0)),
            S32(shape.dimensions(d)));
      }
    } else {
      PLEXA_RETURN_IF_ERROR(ReshapeSizes(*h, in, written, &out));
    }
    std::vector<int64_t> out_dims(shape.dimensions().begin(),
                                  shape.dimensions().end());
    Instruction* value = nullptr;
    if (PaddingAtEnd(x->shape().dimensions(), in) &&
        PaddingAtEnd(out_dims, out)) {
      value = Add(HloOpcode::kReshape, shape, {x});
    } else {
      PLEXA_ASSIGN_OR_RETURN(value, Remap(x, in, out_dims, out));
    }
    SetSizes(value, std::move(out));
    return Replace(h, value);
  }

  // The run-time sizes of a reshape's result, as XLA's
  // DynamicDimensionInference: the operand and result dimensions fall into
  // groups of equal products (CommonFactors). In a group with dynamic
  // operand dimensions one result dimension is dynamic: the only one, or
  // the one the program declares dynamic, or the only one not of size 1.
  // Its size is the group's run-time element count divided by the other
  // result dimensions of the group.
  absl::Status ReshapeSizes(const Instruction& h, const Dims& in,
                            const Shape& written, Dims* out) {
    const Shape& xs = h.operand(0)->shape();
    const Shape& shape = h.shape();
    if (ShapeUtil::ElementsIn(xs) == 0) return absl::OkStatus();
    int64_t i = 0, j = 0;
    const int64_t n_in = xs.rank(), n_out = shape.rank();
    while (i < n_in || j < n_out) {
      const int64_t i0 = i, j0 = j;
      int64_t pi = 1, po = 1;
      do {
        if ((pi <= po && i < n_in) || j == n_out) {
          pi *= xs.dimensions(i++);
        } else {
          po *= shape.dimensions(j++);
        }
      } while (pi != po || (i == i0 && i < n_in) || (j == j0 && j < n_out));
      // Size-1 result dimensions right after the group belong to it.
      while (j < n_out && shape.dimensions(j) == 1 &&
             (i == n_in || xs.dimensions(i) != 1)) {
        ++j;
      }
      bool dynamic = false;
      for (int64_t d = i0; d < i; ++d) dynamic |= in[d] != nullptr;
      if (!dynamic) continue;
      int64_t target = -1;
      std::vector<int64_t> declared, wide;
      for (int64_t d = j0; d < j; ++d) {
        if (written.is_dynamic_dimension(d)) declared.push_back(d);
        if (shape.dimensions(d) != 1) wide.push_back(d);
      }
      // XLA prints the choice its builder made as inferred_dimension=N.
      int64_t inferred = -1;
      for (const auto& [name, value] : h.attrs().opaque) {
        int64_t v = 0;
        if (name == "inferred_dimension" && absl::SimpleAtoi(value, &v)) {
          inferred = v;
        }
      }
      if (j - j0 == 1) {
        target = j0;
      } else if (inferred >= j0 && inferred < j) {
        target = inferred;
      } else if (declared.size() == 1) {
        target = declared[0];
      } else if (wide.size() == 1) {
        target = wide[0];
      } else if (!wide.empty() && i - i0 == 1) {
        // One operand dimension split into several: XLA takes the result's
        // most major one.
        target = wide[0];
      } else {
        return Unsupported(
            h, absl::StrCat("reshapes dynamic operand dimensions ", i0, "..",
                            i - 1, " into result dimensions ", j0, "..", j - 1,
                            " and which of them is dynamic is ambiguous"));
      }
      Instruction* total = S32(1);
      int64_t others = 1;
      for (int64_t d = i0; d < i; ++d) {
        total = Scalar(HloOpcode::kMultiply, total,
                       in[d] != nullptr ? in[d] : S32(xs.dimensions(d)));
      }
      for (int64_t d = j0; d < j; ++d) {
        if (d != target) others *= shape.dimensions(d);
      }
      (*out)[target] = Scalar(HloOpcode::kDivide, total, S32(others));
    }
    return absl::OkStatus();
  }

  // reduce and reduce-window: n inputs, then n inits. The inputs' sizes
  // (null when all are static); a dynamic init is refused.
  absl::StatusOr<const Dims*> InputSizes(const Instruction& h) {
    const int64_t n = h.operand_count() / 2;
    const Dims* in = nullptr;
    for (int64_t i = 0; i < n; ++i) {
      if (const Dims* s = SizesOf(h.operand(i))) in = s;
    }
    for (int64_t i = n; i < 2 * n; ++i) {
      if (sizes_.count(h.operand(i))) {
        return Unsupported(h, "has a dynamic init value");
      }
    }
    return in;
  }

  absl::Status VisitReduce(Instruction* h) {
    const int64_t n = h->operand_count() / 2;
    std::vector<Instruction*> ops(h->operands().begin(), h->operands().end());
    PLEXA_ASSIGN_OR_RETURN(const Dims* in, InputSizes(*h));
    if (in == nullptr) return absl::OkStatus();
    const Dims sizes = *in;
    for (int64_t i = 0; i < n; ++i) {
      ops[i] = Mask(ops[i], sizes, h->dimensions(), ops[n + i]);
    }
    Instruction* value = AddClone(c_, *h, ops);
    // The kept dimensions keep their sizes, in order.
    Dims kept;
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (std::find(h->dimensions().begin(), h->dimensions().end(),
                    static_cast<int64_t>(d)) == h->dimensions().end()) {
        kept.push_back(sizes[d]);
      }
    }
    if (value->shape().IsTuple()) {
      if (AnyDynamic(kept)) sizes_[value] = std::vector<Dims>(n, kept);
    } else {
      SetSizes(value, kept);
    }
    return Replace(h, value);
  }

  absl::Status VisitDot(Instruction* h, const std::vector<const Dims*>& os) {
    const DotDimensionNumbers& dn = *h->attrs().dot_dimension_numbers;
    Instruction* lhs = h->mutable_operand(0);
    Instruction* rhs = h->mutable_operand(1);
    const Dims ls = os[0] ? *os[0] : Dims(lhs->shape().rank(), nullptr);
    const Dims rs = os[1] ? *os[1] : Dims(rhs->shape().rank(), nullptr);
    // A contracted dimension's size is either operand's.
    Dims lc = ls, rc = rs;
    for (size_t k = 0; k < dn.lhs_contracting_dimensions.size(); ++k) {
      const int64_t l = dn.lhs_contracting_dimensions[k];
      const int64_t r = dn.rhs_contracting_dimensions[k];
      Instruction* size = ls[l] != nullptr ? ls[l] : rs[r];
      lc[l] = size;
      rc[r] = size;
    }
    PLEXA_ASSIGN_OR_RETURN(Instruction * lzero,
                           Zero(lhs->shape().element_type()));
    PLEXA_ASSIGN_OR_RETURN(Instruction * rzero,
                           Zero(rhs->shape().element_type()));
    Instruction* ml = Mask(lhs, lc, dn.lhs_contracting_dimensions, lzero);
    Instruction* mr = Mask(rhs, rc, dn.rhs_contracting_dimensions, rzero);
    // Result: batch, lhs free, rhs free.
    Dims out;
    for (size_t k = 0; k < dn.lhs_batch_dimensions.size(); ++k) {
      Instruction* s = ls[dn.lhs_batch_dimensions[k]];
      out.push_back(s != nullptr ? s : rs[dn.rhs_batch_dimensions[k]]);
    }
    auto free_dims = [](const Dims& s, const std::vector<int64_t>& batch,
                        const std::vector<int64_t>& contract, Dims* out) {
      for (size_t d = 0; d < s.size(); ++d) {
        const int64_t i = static_cast<int64_t>(d);
        if (std::find(batch.begin(), batch.end(), i) == batch.end() &&
            std::find(contract.begin(), contract.end(), i) == contract.end()) {
          out->push_back(s[d]);
        }
      }
    };
    free_dims(ls, dn.lhs_batch_dimensions, dn.lhs_contracting_dimensions, &out);
    free_dims(rs, dn.rhs_batch_dimensions, dn.rhs_contracting_dimensions, &out);
    if (ml == lhs && mr == rhs) {
      SetSizes(h, std::move(out));
      return absl::OkStatus();
    }
    Instruction* value = AddClone(c_, *h, {ml, mr});
    SetSizes(value, std::move(out));
    return Replace(h, value);
  }

  absl::Status VisitConvolution(Instruction* h,
                                const std::vector<const Dims*>& os) {
    const ConvolutionDimensionNumbers& dn =
        *h->attrs().convolution_dimension_numbers;
    if (os[1] != nullptr) return Unsupported(*h, "has a dynamic kernel");
    const Dims& in = *os[0];
    for (size_t d = 0; d < in.size(); ++d) {
      if (in[d] != nullptr &&
          static_cast<int64_t>(d) != dn.input_batch_dimension) {
        return Unsupported(
            *h, absl::StrCat("has dynamic input dimension ", d,
                             " (only a dynamic batch is supported)"));
      }
    }
    if (h->attrs().batch_group_count != 1) {
      return Unsupported(*h, "has a dynamic batch and batch_group_count > 1");
    }
    Dims out(h->shape().rank(), nullptr);
    out[dn.output_batch_dimension] = in[dn.input_batch_dimension];
    SetSizes(h, std::move(out));
    return absl::OkStatus();
  }

  absl::Status VisitPad(Instruction* h, const std::vector<const Dims*>& os) {
    if (os[1] != nullptr) return Unsupported(*h, "has a dynamic pad value");
    if (os[0] == nullptr) return absl::OkStatus();
    const Dims& in = *os[0];
    // The operand's padding becomes the pad value, so the first
    // low + s + (s-1)·interior + high elements are the result's.
    Instruction* x = Mask(h->mutable_operand(0), in, AllDims(h->operand(0)),
                          h->mutable_operand(1));
    Instruction* value = AddClone(c_, *h, {x, h->mutable_operand(1)});
    Dims out(in.size(), nullptr);
    for (size_t d = 0; d < in.size(); ++d) {
      if (in[d] == nullptr) continue;
      const PaddingDimension& p = h->attrs().padding_config->dimensions[d];
      Instruction* s = in[d];
      Instruction* gaps = Scalar(
          HloOpcode::kMaximum, Scalar(HloOpcode::kSubtract, s, S32(1)), S32(0));
      Instruction* size =
          Scalar(HloOpcode::kAdd, s,
                 Scalar(HloOpcode::kMultiply, gaps, S32(p.interior_padding)));
      size = Scalar(HloOpcode::kAdd, size,
                    S32(p.edge_padding_low + p.edge_padding_high));
      out[d] = Scalar(HloOpcode::kMaximum, size, S32(0));
    }
    SetSizes(value, std::move(out));
    return Replace(h, value);
  }

  absl::Status VisitConcatenate(Instruction* h,
                                const std::vector<const Dims*>& os) {
    const int64_t cd = h->dimensions(0);
    const Shape& shape = h->shape();
    Dims out(shape.rank(), nullptr);
    bool along = false;
    for (int64_t i = 0; i < h->operand_count(); ++i) {
      if (os[i] == nullptr) continue;
      for (int64_t d = 0; d < shape.rank(); ++d) {
        if (d != cd && out[d] == nullptr) out[d] = (*os[i])[d];
      }
      if ((*os[i])[cd] != nullptr) along = true;
    }
    if (!along) {
      SetSizes(h, std::move(out));
      return absl::OkStatus();
    }
    // Each piece is written where the pieces before it end; the padding
    // of one is overwritten by the next.
    std::vector<int64_t> dims(shape.dimensions().begin(),
                              shape.dimensions().end());
    PLEXA_ASSIGN_OR_RETURN(Instruction * zero, Zero(shape.element_type()));
    Instruction* acc = Spread(zero, dims);
    Instruction* offset = S32(0);
    for (int64_t i = 0; i < h->operand_count(); ++i) {
      Instruction* piece = h->mutable_operand(i);
      std::vector<Instruction*> operands = {acc, piece};
      for (int64_t d = 0; d < shape.rank(); ++d) {
        operands.push_back(d == cd ? offset : S32(0));
      }
      acc = Add(HloOpcode::kDynamicUpdateSlice,
                ArrayOf(shape.element_type(), dims), std::move(operands));
      offset = Scalar(HloOpcode::kAdd, offset, SizeOf(piece, os[i], cd));
    }
    out[cd] = offset;
    SetSizes(acc, std::move(out));
    return Replace(h, acc);
  }

  absl::Status VisitReverse(Instruction* h,
                            const std::vector<const Dims*>& os) {
    const Dims& in = *os[0];
    const Shape& shape = h->shape();
    bool along = false;
    for (int64_t d : h->dimensions()) along |= in[d] != nullptr;
    if (!along) {
      SetSizes(h, in);
      return absl::OkStatus();
    }
    // reverse(x)[i] = x[B-1-i]; the valid part starts at B-s: pad by B at
    // the end and take B elements from there.
    std::vector<int64_t> dims(shape.dimensions().begin(),
                              shape.dimensions().end());
    std::vector<int64_t> padded = dims;
    PaddingConfig config;
    config.dimensions.resize(dims.size());
    std::vector<Instruction*> starts;
    for (int64_t d = 0; d < shape.rank(); ++d) {
      const bool rev = std::find(h->dimensions().begin(), h->dimensions().end(),
                                 d) != h->dimensions().end();
      if (rev && in[d] != nullptr) {
        config.dimensions[d].edge_padding_high = dims[d];
        padded[d] = 2 * dims[d];
        starts.push_back(Scalar(HloOpcode::kSubtract, S32(dims[d]), in[d]));
      } else {
        starts.push_back(S32(0));
      }
    }
    PLEXA_ASSIGN_OR_RETURN(Instruction * zero, Zero(shape.element_type()));
    InstructionAttrs pad_attrs;
    pad_attrs.padding_config = std::move(config);
    Instruction* p = Add(HloOpcode::kPad, ArrayOf(shape.element_type(), padded),
                         {h, zero}, std::move(pad_attrs));
    std::vector<Instruction*> operands = {p};
    operands.insert(operands.end(), starts.begin(), starts.end());
    InstructionAttrs ds;
    ds.dynamic_slice_sizes = dims;
    Instruction* value = Add(HloOpcode::kDynamicSlice, shape,
                             std::move(operands), std::move(ds));
    // Uses of h other than the pad go to the corrected value.
    std::vector<Instruction*> users = h->users();
    for (Instruction* u : users) {
      if (u == p) continue;
      for (int64_t i = 0; i < u->operand_count(); ++i) {
        if (u->operand(i) == h) {
          PLEXA_RETURN_IF_ERROR(u->ReplaceOperandWith(i, value));
        }
      }
    }
    if (c_->root_instruction() == h) c_->set_root_instruction(value);
    SetSizes(value, in);
    return absl::OkStatus();
  }

  absl::Status VisitSort(Instruction* h, const std::vector<const Dims*>& os) {
    const int64_t sd = h->dimensions(0);
    const Dims* in = nullptr;
    for (const Dims* s : os) {
      if (s != nullptr) in = s;
    }
    const Dims sizes = *in;
    auto keep = [&](Instruction* value) -> absl::Status {
      if (value->shape().IsTuple()) {
        sizes_[value] = std::vector<Dims>(h->operand_count(), sizes);
      } else {
        SetSizes(value, sizes);
      }
      return absl::OkStatus();
    };
    if (sizes[sd] == nullptr) {
      PLEXA_RETURN_IF_ERROR(keep(h));
      return absl::OkStatus();
    }
    // A first key, "is padding", puts the padding after every element:
    // a < b if b is padding and a is not, else as the comparator says.
    std::vector<int64_t> dims(h->operand(0)->shape().dimensions().begin(),
                              h->operand(0)->shape().dimensions().end());
    Instruction* is_pad = Compare(Iota(dims, sd), Spread(sizes[sd], dims),
                                  ComparisonDirection::kGe);
    const Computation& cmp = *h->to_apply();
    auto wrapped = std::make_unique<Computation>(cmp.name() + ".dynamic");
    Computation* w = wrapped.get();
    auto param = [&](int64_t i, Shape s) {
      InstructionAttrs attrs;
      attrs.parameter_number = i;
      return w->AddInstruction(Instruction::Create(
          HloOpcode::kParameter, std::move(s), {}, std::move(attrs)));
    };
    const Shape pred(PrimitiveType::PRED, {});
    Instruction* pa = param(0, pred);
    Instruction* pb = param(1, pred);
    std::vector<Instruction*> args;
    for (int64_t i = 0; i < cmp.num_parameters(); ++i) {
      args.push_back(param(i + 2, cmp.parameter_instruction(i)->shape()));
    }
    PLEXA_ASSIGN_OR_RETURN(Instruction * less, InlineComputation(w, cmp, args));
    auto add = [&](HloOpcode op, std::vector<Instruction*> ops,
                   InstructionAttrs attrs = {}) {
      return w->AddInstruction(
          Instruction::Create(op, pred, std::move(ops), std::move(attrs)));
    };
    InstructionAttrs eq;
    eq.comparison_direction = ComparisonDirection::kEq;
    Instruction* same = add(HloOpcode::kCompare, {pa, pb}, eq);
    Instruction* first = add(HloOpcode::kAnd, {add(HloOpcode::kNot, {pa}), pb});
    Instruction* root =
        add(HloOpcode::kOr, {first, add(HloOpcode::kAnd, {same, less})});
    w->set_root_instruction(root);
    Computation* comparator = module_->AddComputation(std::move(wrapped));
    std::vector<Instruction*> operands = {is_pad};
    std::vector<Shape> shapes = {is_pad->shape()};
    for (Instruction* o : h->operands()) {
      operands.push_back(o);
      shapes.push_back(o->shape());
    }
    InstructionAttrs attrs = h->attrs();
    Instruction* sorted =
        Add(HloOpcode::kSort, Shape(std::move(shapes)), std::move(operands),
            std::move(attrs), {comparator});
    std::vector<Instruction*> results;
    for (int64_t i = 0; i < h->operand_count(); ++i) {
      InstructionAttrs gte;
      gte.tuple_index = i + 1;
      results.push_back(Add(HloOpcode::kGetTupleElement, h->operand(i)->shape(),
                            {sorted}, std::move(gte)));
    }
    Instruction* value = results[0];
    if (h->shape().IsTuple()) {
      value = Add(HloOpcode::kTuple, h->shape(), results);
    }
    PLEXA_RETURN_IF_ERROR(keep(value));
    return Replace(h, value);
  }

  absl::Status VisitReduceWindow(Instruction* h) {
    const int64_t n = h->operand_count() / 2;
    PLEXA_ASSIGN_OR_RETURN(const Dims* in, InputSizes(*h));
    if (in == nullptr) return absl::OkStatus();
    const Dims sizes = *in;
    const Window& window = WindowOf(*h);
    std::vector<Instruction*> ops(h->operands().begin(), h->operands().end());
    std::vector<int64_t> masked;
    Dims out(sizes.size(), nullptr);
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (sizes[d] == nullptr) continue;
      const WindowDimension& w = window.dimensions[d];
      if (w.base_dilation != 1) {
        return Unsupported(*h, "dilates a dynamic dimension");
      }
      masked.push_back(static_cast<int64_t>(d));
      // out = (low + s + high - extent) / stride + 1, or 0 when negative.
      const int64_t extent = (w.size - 1) * w.window_dilation + 1;
      Instruction* num = Scalar(HloOpcode::kAdd, sizes[d],
                                S32(w.padding_low + w.padding_high - extent));
      Instruction* count =
          Scalar(HloOpcode::kAdd,
                 Scalar(HloOpcode::kDivide, num, S32(w.stride)), S32(1));
      Instruction* negative = Compare(num, S32(0), ComparisonDirection::kLt);
      out[d] = Add(HloOpcode::kSelect, Shape(PrimitiveType::S32, {}),
                   {negative, S32(0), count});
    }
    for (int64_t i = 0; i < n; ++i) {
      ops[i] = Mask(ops[i], sizes, masked, ops[n + i]);
    }
    Instruction* value = AddClone(c_, *h, ops);
    if (value->shape().IsTuple()) {
      sizes_[value] = std::vector<Dims>(n, out);
    } else {
      SetSizes(value, out);
    }
    return Replace(h, value);
  }

  // ---- Control flow ---------------------------------------------------------
  //
  // A while loop or a conditional branch receives its sizes as s32[]
  // elements appended to the tuple it takes (its "state"), and returns the
  // sizes of its result the same way, as XLA's DynamicPadder does.

  using Slots = std::vector<std::pair<int64_t, int64_t>>;  // (element, dim)

  // `base` (a tuple shape) with one s32[] per slot appended.
  static Shape StateShape(const Shape& base, const Slots& slots) {
    std::vector<Shape> elements = base.tuple_shapes();
    for (size_t k = 0; k < slots.size(); ++k) {
      elements.push_back(Shape(PrimitiveType::S32, {}));
    }
    return Shape(elements);
  }

  Instruction* Element(Instruction* tuple, const Shape& state, int64_t e) {
    InstructionAttrs attrs;
    attrs.tuple_index = e;
    return Add(HloOpcode::kGetTupleElement, state.tuple_shapes(e), {tuple},
               std::move(attrs));
  }

  // Per element of `base` (a tuple shape), no dynamic dimension.
  static std::vector<Dims> NoSizes(const Shape& base) {
    std::vector<Dims> sizes(base.tuple_shapes_size());
    for (size_t e = 0; e < sizes.size(); ++e) {
      const Shape& es = base.tuple_shapes(e);
      sizes[e].assign(es.IsArray() ? es.rank() : 0, nullptr);
    }
    return sizes;
  }

  // Whether dimension d of element e is dynamic in one of these declared
  // (tuple) shapes.
  static bool DeclaredDynamic(std::initializer_list<const Shape*> shapes,
                              int64_t e, int64_t d) {
    for (const Shape* s : shapes) {
      if (s->IsTuple() && e < s->tuple_shapes_size() &&
          s->tuple_shapes(e).IsArray() && d < s->tuple_shapes(e).rank() &&
          s->tuple_shapes(e).is_dynamic_dimension(d)) {
        return true;
      }
    }
    return false;
  }

  // The slots of a tuple value `v` of shape `base`: its dynamic dimensions
  // and those `declared` says are dynamic; `sizes` gets each slot's size
  // (the bound where `v` has none).
  Slots SlotsOf(const Instruction* v, const Shape& base,
                std::initializer_list<const Shape*> declared,
                std::vector<Instruction*>* sizes) {
    Slots slots;
    for (int64_t e = 0; e < base.tuple_shapes_size(); ++e) {
      const Shape& es = base.tuple_shapes(e);
      if (!es.IsArray()) continue;
      const Dims* dv = SizesOf(v, e);
      for (int64_t d = 0; d < es.rank(); ++d) {
        const bool has = dv != nullptr && (*dv)[d] != nullptr;
        if (!has && !DeclaredDynamic(declared, e, d)) continue;
        slots.push_back({e, d});
        sizes->push_back(has ? (*dv)[d] : S32(es.dimensions(d)));
      }
    }
    return slots;
  }

  // tuple(v's elements..., sizes...): `v` (a tuple of shape `base`) as a
  // state.
  Instruction* PackState(Instruction* v, const Shape& base, const Slots& slots,
                         const std::vector<Instruction*>& sizes) {
    const Shape state = StateShape(base, slots);
    std::vector<Instruction*> parts;
    for (int64_t e = 0; e < base.tuple_shapes_size(); ++e) {
      parts.push_back(Element(v, state, e));
    }
    parts.insert(parts.end(), sizes.begin(), sizes.end());
    return Add(HloOpcode::kTuple, state, parts);
  }

  // A state value `s` as the tuple of shape `base` it carries, with its
  // sizes recorded.
  Instruction* UnpackState(Instruction* s, const Shape& base,
                           const Slots& slots) {
    const Shape state = StateShape(base, slots);
    const int64_t n = base.tuple_shapes_size();
    std::vector<Instruction*> outs;
    for (int64_t e = 0; e < n; ++e) outs.push_back(Element(s, state, e));
    std::vector<Dims> sizes = NoSizes(base);
    for (size_t k = 0; k < slots.size(); ++k) {
      sizes[slots[k].first][slots[k].second] = Element(s, state, n + k);
    }
    Instruction* value = Add(HloOpcode::kTuple, base, outs);
    sizes_[value] = std::move(sizes);
    return value;
  }

  // Lowers `comp` in place, its parameter now a state (`base` plus the
  // slots' sizes). Sets c_ to `comp`.
  absl::Status LowerWithState(Computation* comp, const Shape& base,
                              const Slots& slots) {
    c_ = comp;
    Instruction* param = comp->parameter_instruction(0);
    for (const Instruction* u : param->users()) {
      if (u->opcode() != HloOpcode::kGetTupleElement) {
        return Unsupported(*u, "reads the whole tuple that carries sizes");
      }
    }
    const std::vector<Instruction*> order = comp->MakeInstructionPostOrder();
    const Shape state = StateShape(base, slots);
    *param->mutable_shape() = state;
    std::vector<Dims> sizes = NoSizes(base);
    const int64_t n = base.tuple_shapes_size();
    for (size_t k = 0; k < slots.size(); ++k) {
      sizes[slots[k].first][slots[k].second] = Element(param, state, n + k);
    }
    sizes_[param] = std::move(sizes);
    for (Instruction* h : order) {
      if (h != param) PLEXA_RETURN_IF_ERROR(Visit(h));
    }
    return absl::OkStatus();
  }

  // Makes `comp` (lowered, c_ == comp) return its root (a tuple of shape
  // `base`) as a state with the slots' sizes; a dynamic dimension outside
  // the slots is refused.
  absl::Status ReturnState(Computation* comp, const Instruction& owner,
                           const Shape& base, const Slots& slots) {
    Instruction* root = comp->root_instruction();
    const int64_t n = base.tuple_shapes_size();
    for (int64_t e = 0; e < n; ++e) {
      const Dims* rd = SizesOf(root, e);
      if (rd == nullptr) continue;
      for (size_t d = 0; d < rd->size(); ++d) {
        const std::pair<int64_t, int64_t> slot = {e, static_cast<int64_t>(d)};
        if ((*rd)[d] != nullptr &&
            std::find(slots.begin(), slots.end(), slot) == slots.end()) {
          return Unsupported(owner,
                             absl::StrCat("has a computation ('", comp->name(),
                                          "') that makes dimension ", d,
                                          " of tuple element ", e,
                                          " dynamic; declare it dynamic in the "
                                          "shape"));
        }
      }
    }
    std::vector<Instruction*> sizes;
    for (const auto& [e, d] : slots) {
      const Dims* rd = SizesOf(root, e);
      sizes.push_back(rd != nullptr && (*rd)[d] != nullptr
                          ? (*rd)[d]
                          : S32(base.tuple_shapes(e).dimensions(d)));
    }
    comp->set_root_instruction(PackState(root, base, slots, sizes));
    return absl::OkStatus();
  }

  // Whether `comp` holds a dynamic shape.
  bool HasDynamic(const Computation* comp) const {
    for (const Instruction* h : comp->instructions()) {
      if (WrittenShape(h).is_dynamic() ||
          h->opcode() == HloOpcode::kSetDimensionSize ||
          h->opcode() == HloOpcode::kDynamicReshape) {
        return true;
      }
    }
    return false;
  }

  // Refuses lowering `comp` in place when another instruction calls it.
  absl::Status OnlyCaller(const Instruction& owner, const Computation* comp) {
    for (const Computation* other : module_->computations()) {
      for (const Instruction* h : other->instructions()) {
        if (h == &owner) continue;
        for (const Computation* called : h->called_computations()) {
          if (called == comp) {
            return Unsupported(
                owner, absl::StrCat("shares computation '", comp->name(),
                                    "' with another instruction"));
          }
        }
      }
    }
    return absl::OkStatus();
  }

  // A while loop: its state carries the dimensions of its init that are
  // dynamic and those declared dynamic by the loop's shape, the body's or
  // the condition's parameter or the body's root (a body may set them).
  absl::Status VisitWhile(Instruction* w) {
    Instruction* init = w->mutable_operand(0);
    Computation* cond = w->while_condition();
    Computation* body = w->while_body();
    const Shape ws = w->shape();
    std::vector<Instruction*> init_sizes;
    Slots slots;
    if (ws.IsTuple()) {
      slots = SlotsOf(
          init, ws,
          {&WrittenShape(w), &WrittenShape(body->parameter_instruction(0)),
           &WrittenShape(cond->parameter_instruction(0)),
           &WrittenShape(body->root_instruction())},
          &init_sizes);
    }
    if (slots.empty()) {
      if (HasDynamic(cond) || HasDynamic(body) || sizes_.count(init)) {
        return Unsupported(*w,
                           "makes a value inside the loop dynamic without "
                           "carrying its size in the loop's state");
      }
      return absl::OkStatus();
    }
    PLEXA_RETURN_IF_ERROR(OnlyCaller(*w, cond));
    PLEXA_RETURN_IF_ERROR(OnlyCaller(*w, body));
    Instruction* new_init = PackState(init, ws, slots, init_sizes);
    Computation* outer = c_;
    absl::Status lowered = LowerWithState(cond, ws, slots);
    if (lowered.ok()) lowered = LowerWithState(body, ws, slots);
    if (lowered.ok()) lowered = ReturnState(body, *w, ws, slots);
    c_ = outer;
    PLEXA_RETURN_IF_ERROR(lowered);
    Instruction* loop = Add(HloOpcode::kWhile, StateShape(ws, slots),
                            {new_init}, w->attrs(), w->called_computations());
    return Replace(w, UnpackState(loop, ws, slots));
  }

  // A conditional: each branch whose operand (a tuple) has dynamic
  // dimensions takes them in its state; the result (a tuple) carries the
  // dimensions any branch returns dynamic or the shapes declare dynamic.
  absl::Status VisitConditional(Instruction* h) {
    const std::vector<Computation*>& branches = h->called_computations();
    const Shape rs = h->shape();
    std::vector<Instruction*> operands = {h->mutable_operand(0)};
    std::vector<Slots> in_slots(branches.size());
    bool any = false;
    for (size_t b = 0; b < branches.size(); ++b) {
      Instruction* op = h->mutable_operand(b + 1);
      const Shape os = op->shape();
      std::vector<Instruction*> sizes;
      if (os.IsTuple()) {
        in_slots[b] = SlotsOf(
            op, os, {&WrittenShape(branches[b]->parameter_instruction(0))},
            &sizes);
      } else if (sizes_.count(op) ||
                 WrittenShape(branches[b]->parameter_instruction(0))
                     .is_dynamic()) {
        return Unsupported(*h, absl::StrCat("passes branch ", b,
                                            " a dynamic array outside a "
                                            "tuple"));
      }
      operands.push_back(
          in_slots[b].empty() ? op : PackState(op, os, in_slots[b], sizes));
      any |= !in_slots[b].empty() || HasDynamic(branches[b]);
    }
    if (!any) return absl::OkStatus();
    if (!rs.IsTuple()) {
      return Unsupported(*h, "returns a dynamic array outside a tuple");
    }
    for (Computation* branch : branches) {
      PLEXA_RETURN_IF_ERROR(OnlyCaller(*h, branch));
    }
    // Lower each branch, then take the result's slots from their roots.
    Computation* outer = c_;
    absl::Status lowered = absl::OkStatus();
    for (size_t b = 0; b < branches.size() && lowered.ok(); ++b) {
      const Shape os = h->operand(b + 1)->shape();
      if (in_slots[b].empty()) {
        c_ = branches[b];
        for (Instruction* x : branches[b]->MakeInstructionPostOrder()) {
          lowered.Update(Visit(x));
          if (!lowered.ok()) break;
        }
      } else {
        lowered = LowerWithState(branches[b], os, in_slots[b]);
      }
    }
    c_ = outer;
    PLEXA_RETURN_IF_ERROR(lowered);
    Slots out_slots;
    for (int64_t e = 0; e < rs.tuple_shapes_size(); ++e) {
      const Shape& es = rs.tuple_shapes(e);
      if (!es.IsArray()) continue;
      for (int64_t d = 0; d < es.rank(); ++d) {
        bool dynamic = DeclaredDynamic({&WrittenShape(h)}, e, d);
        for (Computation* branch : branches) {
          const Dims* rd = SizesOf(branch->root_instruction(), e);
          dynamic |= rd != nullptr && (*rd)[d] != nullptr;
          dynamic |= DeclaredDynamic(
              {&WrittenShape(branch->root_instruction())}, e, d);
        }
        if (dynamic) out_slots.push_back({e, d});
      }
    }
    if (out_slots.empty()) {
      Instruction* same =
          Add(HloOpcode::kConditional, rs, operands, h->attrs(), branches);
      return Replace(h, same);
    }
    for (Computation* branch : branches) {
      c_ = branch;
      lowered = ReturnState(branch, *h, rs, out_slots);
      c_ = outer;
      PLEXA_RETURN_IF_ERROR(lowered);
    }
    Instruction* cond = Add(HloOpcode::kConditional, StateShape(rs, out_slots),
                            operands, h->attrs(), branches);
    return Replace(h, UnpackState(cond, rs, out_slots));
  }

  // scatter: the inputs' sizes are the result's (an update that lands in
  // the padding stays there). An update of the padding of the indices (or
  // of the updates' scatter dimensions) must not happen: its index becomes
  // out of bounds, and XLA's scatter skips a window that is not wholly in
  // bounds. A dynamic update window is refused.
  absl::Status VisitScatter(Instruction* h,
                            const std::vector<const Dims*>& os) {
    const ScatterDimensionNumbers& dn = *h->attrs().scatter_dimension_numbers;
    const int64_t n = (h->operand_count() - 1) / 2;
    Instruction* indices = h->mutable_operand(n);
    const Shape& is = indices->shape();
    // The scatter dimensions of the indices (all but index_vector_dim),
    // and their sizes from the indices or the updates.
    std::vector<int64_t> batch;
    for (int64_t d = 0; d < is.rank(); ++d) {
      if (d != dn.index_vector_dim) batch.push_back(d);
    }
    Dims sizes(is.rank(), nullptr);
    if (os[n] != nullptr) {
      for (int64_t d : batch) sizes[d] = (*os[n])[d];
      if (dn.index_vector_dim < is.rank() &&
          (*os[n])[dn.index_vector_dim] != nullptr) {
        return Unsupported(*h, "has a dynamic index vector dimension");
      }
    }
    for (int64_t k = 0; k < n; ++k) {
      const Dims* u = os[n + 1 + k];
      if (u == nullptr) continue;
      size_t b = 0;
      for (size_t d = 0; d < u->size(); ++d) {
        const bool window =
            std::find(dn.update_window_dims.begin(),
                      dn.update_window_dims.end(),
                      static_cast<int64_t>(d)) != dn.update_window_dims.end();
        if (window) {
          if ((*u)[d] != nullptr) {
            return Unsupported(
                *h, absl::StrCat("writes an update window whose dimension ", d,
                                 " is dynamic"));
          }
          continue;
        }
        if (b < batch.size() && sizes[batch[b]] == nullptr) {
          sizes[batch[b]] = (*u)[d];
        }
        ++b;
      }
    }
    Dims out;
    for (int64_t k = 0; k < n && out.empty(); ++k) {
      if (os[k] != nullptr) out = *os[k];
    }
    std::vector<Instruction*> ops(h->operands().begin(), h->operands().end());
    if (AnyDynamic(sizes)) {
      std::vector<int64_t> dims(is.dimensions().begin(), is.dimensions().end());
      Instruction* valid = ValidMask(dims, sizes, batch);
      const PrimitiveType t = is.element_type();
      // -1 for a signed index type; for an unsigned one its largest value
      // (2^63 for u64, which a double holds exactly).
      const int64_t bits = primitive_util::BitWidth(t);
      const double far = primitive_util::IsSignedIntegralType(t) ? -1.0
                         : bits <= 32 ? std::ldexp(1.0, bits) - 1
                                      : std::ldexp(1.0, bits - 1);
      PLEXA_ASSIGN_OR_RETURN(Instruction * outside,
                             AddScalarConstant(c_, t, far));
      ops[n] = Add(HloOpcode::kSelect, ArrayOf(t, dims),
                   {valid, indices, Spread(outside, dims)});
    }
    Instruction* value = ops[n] == indices ? h : AddClone(c_, *h, ops);
    if (AnyDynamic(out)) {
      if (value->shape().IsTuple()) {
        sizes_[value] = std::vector<Dims>(n, out);
      } else {
        SetSizes(value, out);
      }
    }
    return value == h ? absl::OkStatus() : Replace(h, value);
  }

  absl::Status VisitGather(Instruction* h, const std::vector<const Dims*>& os) {
    const GatherDimensionNumbers& dn = *h->attrs().gather_dimension_numbers;
    const Shape& shape = h->shape();
    Dims out(shape.rank(), nullptr);
    std::vector<int64_t> batch_out;  // result dims that are not offset dims
    for (int64_t d = 0; d < shape.rank(); ++d) {
      if (std::find(dn.offset_dims.begin(), dn.offset_dims.end(), d) ==
          dn.offset_dims.end()) {
        batch_out.push_back(d);
      }
    }
    if (os[1] != nullptr) {
      const Dims& idx = *os[1];
      if (dn.index_vector_dim < static_cast<int64_t>(idx.size()) &&
          idx[dn.index_vector_dim] != nullptr) {
        return Unsupported(*h, "has a dynamic index vector dimension");
      }
      size_t k = 0;
      for (size_t d = 0; d < idx.size(); ++d) {
        if (static_cast<int64_t>(d) == dn.index_vector_dim) continue;
        if (k < batch_out.size()) out[batch_out[k]] = idx[d];
        ++k;
      }
    }
    if (os[0] != nullptr) {
      const Dims& od = *os[0];
      size_t k = 0;
      for (size_t d = 0; d < od.size(); ++d) {
        const int64_t i = static_cast<int64_t>(d);
        const bool collapsed = std::find(dn.collapsed_slice_dims.begin(),
                                         dn.collapsed_slice_dims.end(),
                                         i) != dn.collapsed_slice_dims.end() ||
                               std::find(dn.operand_batching_dims.begin(),
                                         dn.operand_batching_dims.end(),
                                         i) != dn.operand_batching_dims.end();
        if (od[d] != nullptr) {
          // Only a whole-dimension slice of a dimension that is not
          // indexed keeps the size.
          const bool indexed =
              std::find(dn.start_index_map.begin(), dn.start_index_map.end(),
                        i) != dn.start_index_map.end();
          if (collapsed || indexed ||
              h->attrs().gather_slice_sizes[d] !=
                  h->operand(0)->shape().dimensions(d)) {
            return Unsupported(
                *h, absl::StrCat("indexes dynamic operand dimension ", d));
          }
          out[dn.offset_dims[k]] = od[d];
        }
        if (!collapsed) ++k;
      }
    }
    SetSizes(h, std::move(out));
    return absl::OkStatus();
  }

  Module* module_;
  Computation* c_;
  bool lower_signature_;
  absl::flat_hash_map<const Instruction*, Shape> written_;
  // Per instruction with a dynamic dimension: one Dims per tuple element
  // (one for an array).
  absl::flat_hash_map<const Instruction*, std::vector<Dims>> sizes_;
  std::vector<Instruction*> replaced_;
};

// Copies the elements of `from` whose index is within `to`'s dimensions
// (or, padding, `from`'s) into `to`; both arrays of one element type in the
// default layout.
void CopyOverlap(const Literal& from, Literal* to) {
  const Shape& fs = from.shape();
  const int64_t rank = fs.rank();
  std::vector<int64_t> overlap(rank);
  for (int64_t d = 0; d < rank; ++d) {
    overlap[d] = std::min(fs.dimensions(d), to->shape().dimensions(d));
  }
  const Shape region(fs.element_type(), overlap);
  const int64_t bytes =
      ShapeUtil::ByteSizeOfElements(Shape(fs.element_type(), {1}));
  // Row-major offsets (the default layout, one element per `bytes`).
  auto offset = [&](const Shape& s, absl::Span<const int64_t> index) {
    int64_t linear = 0;
    for (int64_t d = 0; d < rank; ++d) {
      linear = linear * s.dimensions(d) + index[d];
    }
    return linear * bytes;
  };
  ShapeUtil::ForEachIndex(region, [&](absl::Span<const int64_t> index) {
    std::memcpy(to->mutable_data().data() + offset(to->shape(), index),
                from.data().data() + offset(fs, index), bytes);
  });
}

absl::StatusOr<Literal> InDefaultLayout(Literal l) {
  if (!l.shape().has_layout()) return l;
  return l.Relayout(LayoutUtil::GetDefaultLayoutForRank(l.shape().rank()));
}

}  // namespace

bool HasDynamicShapes(const Module& module) {
  for (const Computation* c : module.computations()) {
    for (const Instruction* h : c->instructions()) {
      if (h->shape().is_dynamic() ||
          h->opcode() == HloOpcode::kSetDimensionSize ||
          h->opcode() == HloOpcode::kDynamicReshape) {
        return true;
      }
    }
  }
  return false;
}

absl::StatusOr<DynamicSignature> LowerDynamicShapes(Module* module) {
  if (module->entry_computation() == nullptr || !HasDynamicShapes(*module)) {
    DynamicSignature sig;
    if (module->entry_computation() != nullptr) {
      const ProgramShape p = module->entry_computation()->ComputeProgramShape();
      sig.parameters = p.parameters;
      sig.result = p.result;
    }
    return sig;
  }
  // Calls are inlined first, so what they compute is lowered with the rest.
  PLEXA_RETURN_IF_ERROR(CallInliner().Run(*module).status());
  return Lowering(module, /*lower_signature=*/true).Run();
}

absl::StatusOr<std::vector<Literal>> PadDynamicArguments(
    const DynamicSignature& signature, std::vector<Literal> args) {
  if (!signature.changed) return args;
  if (args.size() != signature.parameters.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the program takes ", signature.parameters.size(),
                     " argument(s), got ", args.size()));
  }
  std::vector<Literal> sizes;
  for (const auto& [p, d] : signature.parameter_sizes) {
    const Shape& want = signature.parameters[p];
    Literal& arg = args[p];
    const Shape& got = arg.shape();
    if (!got.IsArray() || got.element_type() != want.element_type() ||
        got.rank() != want.rank()) {
      return absl::InvalidArgumentError(
          absl::StrCat("argument ", p, " has shape ", got.ToString(),
                       " but parameter ", p, " is ", want.ToString()));
    }
    for (int64_t i = 0; i < want.rank(); ++i) {
      const bool ok = want.is_dynamic_dimension(i)
                          ? got.dimensions(i) <= want.dimensions(i)
                          : got.dimensions(i) == want.dimensions(i);
      if (!ok) {
        return absl::InvalidArgumentError(absl::StrCat(
            "argument ", p, " has shape ", got.ToString(), " but parameter ", p,
            " is ", want.ToString(), " (dimension ", i,
            want.is_dynamic_dimension(i) ? " may be at most " : " must be ",
            want.dimensions(i), ")"));
      }
    }
    sizes.push_back(
        Literal::CreateR0<int32_t>(static_cast<int32_t>(got.dimensions(d))));
  }
  for (size_t p = 0; p < args.size(); ++p) {
    const Shape& want = signature.parameters[p];
    if (!want.is_dynamic() || !want.IsArray()) continue;
    Shape bound(want.element_type(), want.dimensions());
    if (ShapeUtil::SameDimensions(bound, args[p].shape())) continue;
    PLEXA_ASSIGN_OR_RETURN(Literal from, InDefaultLayout(std::move(args[p])));
    Literal padded(bound);  // zero-filled
    CopyOverlap(from, &padded);
    args[p] = std::move(padded);
  }
  for (Literal& s : sizes) args.push_back(std::move(s));
  return args;
}

absl::StatusOr<Literal> SliceDynamicResult(const DynamicSignature& signature,
                                           Literal result) {
  if (signature.result_sizes.empty()) return result;
  const int64_t n = static_cast<int64_t>(signature.result_sizes.size());
  if (!result.shape().IsTuple() || result.tuple_element_count() != n + 1) {
    return absl::InternalError(
        absl::StrCat("the lowered program returned ", result.shape().ToString(),
                     ", not the value and its ", n, " size(s)"));
  }
  std::vector<Literal> parts = std::move(result).DecomposeTuple();
  Literal value = std::move(parts[0]);
  // The run-time dimensions of each array of the result.
  const bool tuple = value.shape().IsTuple();
  std::vector<Literal> arrays;
  if (tuple) {
    arrays = std::move(value).DecomposeTuple();
  } else {
    arrays.push_back(std::move(value));
  }
  std::vector<std::vector<int64_t>> dims(arrays.size());
  for (size_t e = 0; e < arrays.size(); ++e) {
    dims[e].assign(arrays[e].shape().dimensions().begin(),
                   arrays[e].shape().dimensions().end());
  }
  for (int64_t k = 0; k < n; ++k) {
    const auto& [element, d] = signature.result_sizes[k];
    const size_t e = element < 0 ? 0 : static_cast<size_t>(element);
    const int64_t size = parts[k + 1].GetAsInt64({});
    dims[e][d] = std::clamp<int64_t>(size, 0, dims[e][d]);
  }
  for (size_t e = 0; e < arrays.size(); ++e) {
    if (!arrays[e].shape().IsArray()) continue;
    Shape cut(arrays[e].shape().element_type(), dims[e]);
    if (ShapeUtil::SameDimensions(cut, arrays[e].shape())) continue;
    PLEXA_ASSIGN_OR_RETURN(Literal from, InDefaultLayout(std::move(arrays[e])));
    Literal sliced(cut);
    CopyOverlap(from, &sliced);
    arrays[e] = std::move(sliced);
  }
  if (tuple) return Literal::MakeTuple(std::move(arrays));
  return std::move(arrays[0]);
}

absl::StatusOr<bool> DynamicPadder::Run(Module& module) {
  if (module.entry_computation() == nullptr || !HasDynamicShapes(module)) {
    return false;
  }
  PLEXA_RETURN_IF_ERROR(
      Lowering(&module, /*lower_signature=*/false).Run().status());
  return true;
}

}  // namespace plexa
