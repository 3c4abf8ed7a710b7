// Builder core: handles, sticky errors, finishing computations and modules,
// parameters, constants, iota, and the single-instruction emitters the
// lowerings share.
#include "core/builder/builder.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/builder/builder_internal.h"
#include "core/infer/shape_inference.h"
#include "core/shape/shape_util.h"

namespace plexa {

using builder_internal::DimsToString;

// ---- Free helpers ----------------------------------------------------------

Op operator+(Op lhs, Op rhs) {
  Builder* b = lhs.builder() != nullptr ? lhs.builder() : rhs.builder();
  return b == nullptr ? Op() : b->Add(lhs, rhs);
}
Op operator-(Op lhs, Op rhs) {
  Builder* b = lhs.builder() != nullptr ? lhs.builder() : rhs.builder();
  return b == nullptr ? Op() : b->Sub(lhs, rhs);
}
Op operator*(Op lhs, Op rhs) {
  Builder* b = lhs.builder() != nullptr ? lhs.builder() : rhs.builder();
  return b == nullptr ? Op() : b->Mul(lhs, rhs);
}
Op operator/(Op lhs, Op rhs) {
  Builder* b = lhs.builder() != nullptr ? lhs.builder() : rhs.builder();
  return b == nullptr ? Op() : b->Div(lhs, rhs);
}
Op operator-(Op operand) {
  Builder* b = operand.builder();
  return b == nullptr ? Op() : b->Neg(operand);
}

absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> MakePadding(
    absl::Span<const int64_t> input_dimensions,
    absl::Span<const int64_t> window_dimensions,
    absl::Span<const int64_t> window_strides, Padding padding) {
  if (input_dimensions.size() != window_dimensions.size() ||
      input_dimensions.size() != window_strides.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "padding: input dimensions ", DimsToString(input_dimensions),
        ", window dimensions ", DimsToString(window_dimensions),
        " and window strides ", DimsToString(window_strides),
        " must have the same length"));
  }
  std::vector<std::pair<int64_t, int64_t>> result;
  for (size_t i = 0; i < input_dimensions.size(); ++i) {
    const int64_t input = input_dimensions[i];
    const int64_t window = window_dimensions[i];
    const int64_t stride = window_strides[i];
    if (stride < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("padding: window strides ", DimsToString(window_strides),
                       " must all be >= 1"));
    }
    if (padding == Padding::kValid) {
      result.emplace_back(0, 0);
      continue;
    }
    // kSame: output = ceil(input / stride); the last window must fit, the
    // padding is split evenly with one more on the high side if odd.
    const int64_t output = (input + stride - 1) / stride;
    const int64_t total =
        std::max<int64_t>((output - 1) * stride + window - input, 0);
    result.emplace_back(total / 2, total - total / 2);
  }
  return result;
}

ConvolutionDimensionNumbers MakeDefaultConvDimensionNumbers(
    int64_t num_spatial_dims) {
  ConvolutionDimensionNumbers d;
  d.input_batch_dimension = 0;
  d.input_feature_dimension = 1;
  d.kernel_output_feature_dimension = 0;
  d.kernel_input_feature_dimension = 1;
  d.output_batch_dimension = 0;
  d.output_feature_dimension = 1;
  for (int64_t i = 0; i < num_spatial_dims; ++i) {
    d.input_spatial_dimensions.push_back(i + 2);
    d.kernel_spatial_dimensions.push_back(i + 2);
    d.output_spatial_dimensions.push_back(i + 2);
  }
  return d;
}

namespace builder_internal {

std::string SanitizeName(absl::string_view name, absl::string_view fallback) {
  if (name.empty()) return std::string(fallback);
  std::string out;
  out.reserve(name.size() + 1);
  for (char c : name) {
    const bool ok = absl::ascii_isalnum(static_cast<unsigned char>(c)) ||
                    c == '_' || c == '.' || c == '-';
    out.push_back(ok ? c : '_');
  }
  if (!absl::ascii_isalpha(static_cast<unsigned char>(out[0])) &&
      out[0] != '_') {
    out.insert(out.begin(), '_');
  }
  return out;
}

absl::Status ValidateUserShape(const Shape& shape) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) {
      PLEXA_RETURN_IF_ERROR(ValidateUserShape(s));
    }
    return absl::OkStatus();
  }
  if (shape.IsToken()) return absl::OkStatus();
  if (!primitive_util::IsArrayType(shape.element_type())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "invalid shape ", shape.ToString(), ": not an array, tuple or token"));
  }
  return ShapeUtil::ValidateShape(shape);
}

std::vector<const Shape*> ShapesOf(
    absl::Span<Instruction* const> instructions) {
  std::vector<const Shape*> shapes;
  shapes.reserve(instructions.size());
  for (const Instruction* i : instructions) shapes.push_back(&i->shape());
  return shapes;
}

absl::StatusOr<std::vector<int64_t>> DefaultOnes(
    absl::Span<const int64_t> values, int64_t n, absl::string_view what) {
  if (values.empty()) return std::vector<int64_t>(n, 1);
  if (static_cast<int64_t>(values.size()) != n) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " ", DimsToString(values), " must have ", n,
                     " entries (one per window dimension) or none"));
  }
  return std::vector<int64_t>(values.begin(), values.end());
}

Window MakeWindow(absl::Span<const int64_t> sizes,
                  absl::Span<const int64_t> strides,
                  absl::Span<const std::pair<int64_t, int64_t>> padding,
                  absl::Span<const int64_t> base_dilations,
                  absl::Span<const int64_t> window_dilations) {
  Window window;
  for (size_t i = 0; i < sizes.size(); ++i) {
    WindowDimension d;
    d.size = sizes[i];
    d.stride = strides[i];
    d.padding_low = padding[i].first;
    d.padding_high = padding[i].second;
    d.base_dilation = base_dilations[i];
    d.window_dilation = window_dilations[i];
    window.dimensions.push_back(d);
  }
  return window;
}

}  // namespace builder_internal

using builder_internal::SanitizeName;
using builder_internal::ShapesOf;
using builder_internal::ValidateUserShape;

// ---- Construction and errors ----------------------------------------------

Builder::Builder(std::string name)
    : Builder(std::move(name), std::make_shared<Pool>(),
              /*is_sub_builder=*/false) {}

Builder::Builder(std::string name, std::shared_ptr<Pool> pool,
                 bool is_sub_builder)
    : name_(SanitizeName(name, "computation")),
      pool_(std::move(pool)),
      is_sub_builder_(is_sub_builder),
      computation_(std::make_unique<Computation>(name_)) {}

Builder::~Builder() = default;

std::unique_ptr<Builder> Builder::CreateSubBuilder(absl::string_view name) {
  return std::unique_ptr<Builder>(new Builder(SanitizeName(name, "computation"),
                                              pool_,
                                              /*is_sub_builder=*/true));
}

Op Builder::Emit(absl::string_view op_name,
                 absl::FunctionRef<absl::StatusOr<Instruction*>()> fn) {
  if (!first_error_.ok()) return Op(this, -1);
  if (emit_depth_ == 0) outer_op_name_ = std::string(op_name);
  absl::StatusOr<Instruction*> result = absl::FailedPreconditionError(
      absl::StrCat("builder \"", name_, "\" was already built"));
  if (!built_) {
    ++emit_depth_;
    result = fn();
    --emit_depth_;
  }
  if (!result.ok()) {
    // A nested operation may already have recorded this error.
    if (first_error_.ok()) {
      first_error_ = absl::Status(
          result.status().code(),
          absl::StrCat(outer_op_name_, ": ", result.status().message()));
    }
    return Op(this, -1);
  }
  auto it = ids_.find(*result);
  if (it == ids_.end()) {
    first_error_ = absl::InternalError(absl::StrCat(
        outer_op_name_, ": produced an instruction of another builder"));
    return Op(this, -1);
  }
  last_op_ = Op(this, it->second);
  return last_op_;
}

absl::StatusOr<Instruction*> Builder::Resolve(Op op) const {
  if (op.builder_ == nullptr) {
    return absl::InvalidArgumentError(
        "an invalid (default-constructed) Op was used as an operand");
  }
  if (op.builder_ != this) {
    // The other builder may be gone: do not dereference it.
    return absl::InvalidArgumentError(absl::StrCat(
        "an Op of another builder was used in builder \"", name_, "\""));
  }
  if (op.id_ < 0 || op.id_ >= static_cast<int64_t>(values_.size())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "an invalid Op (the result of a failed operation) was used in "
        "builder \"",
        name_, "\""));
  }
  return values_[op.id_];
}

absl::StatusOr<Instruction*> Builder::Nested(Op op) const {
  if (!op.valid() && !first_error_.ok()) return first_error_;
  return Resolve(op);
}

absl::StatusOr<std::vector<Instruction*>> Builder::ResolveAll(
    absl::Span<const Op> ops) const {
  std::vector<Instruction*> out;
  out.reserve(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    absl::StatusOr<Instruction*> r = Resolve(ops[i]);
    if (!r.ok()) {
      return absl::Status(
          r.status().code(),
          absl::StrCat("operand ", i, ": ", r.status().message()));
    }
    out.push_back(*r);
  }
  return out;
}

absl::Status Builder::CheckComputation(const Computation* c,
                                       absl::string_view role) const {
  if (c == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("the ", role, " computation is null"));
  }
  if (!pool_->built.contains(c)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the ", role,
        " computation was not built by a builder of this family (use "
        "CreateSubBuilder and Build)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> Builder::GetShape(Op op) const {
  PLEXA_ASSIGN_OR_RETURN(Instruction * inst, Resolve(op));
  return inst->shape();
}

Instruction* Builder::AddInstruction(HloOpcode opcode, Shape shape,
                                     absl::Span<Instruction* const> operands,
                                     InstructionAttrs attrs,
                                     std::vector<Computation*> called,
                                     absl::string_view name) {
  std::unique_ptr<Instruction> inst = Instruction::Create(
      opcode, std::move(shape),
      std::vector<Instruction*>(operands.begin(), operands.end()),
      std::move(attrs), std::move(called));
  if (!name.empty()) inst->set_name(std::string(name));
  Instruction* added = computation_->AddInstruction(std::move(inst));
  ids_[added] = static_cast<int64_t>(values_.size());
  values_.push_back(added);
  return added;
}

// ---- Finishing -------------------------------------------------------------

absl::StatusOr<Computation*> Builder::Build(Op root) {
  if (!first_error_.ok()) return first_error_;
  if (built_) {
    return absl::FailedPreconditionError(
        absl::StrCat("Build: builder \"", name_, "\" was already built"));
  }
  if (pool_->module_built) {
    return absl::FailedPreconditionError(
        absl::StrCat("Build: the module of builder \"", name_,
                     "\"'s family was already built"));
  }
  absl::StatusOr<Instruction*> r = Resolve(root);
  if (!r.ok()) {
    return absl::Status(r.status().code(),
                        absl::StrCat("Build: root: ", r.status().message()));
  }
  for (int64_t i = 0; i < computation_->num_parameters(); ++i) {
    if (computation_->parameter_instruction(i) == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Build: computation \"", name_, "\" has ",
          computation_->num_parameters(), " parameter numbers but parameter ",
          i, " is missing (parameters must be numbered 0..n-1)"));
    }
  }
  computation_->set_root_instruction(*r);
  Computation* c = computation_.get();
  pool_->built.insert(c);
  pool_->owned.push_back(std::move(computation_));
  built_ = true;
  return c;
}

absl::StatusOr<Computation*> Builder::Build() {
  if (!first_error_.ok()) return first_error_;
  if (!last_op_.valid()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Build: builder \"", name_, "\" has no operation to be the root"));
  }
  return Build(last_op_);
}

namespace {

// Callees before callers, each once; `entry` last.
void PostOrder(Computation* c, absl::flat_hash_set<Computation*>* visited,
               std::vector<Computation*>* order) {
  if (!visited->insert(c).second) return;
  for (Instruction* inst : c->instructions()) {
    for (Computation* callee : inst->called_computations()) {
      if (callee != nullptr) PostOrder(callee, visited, order);
    }
  }
  order->push_back(c);
}

}  // namespace

absl::StatusOr<std::unique_ptr<Module>> Builder::BuildModule(Op root) {
  if (is_sub_builder_) {
    return absl::FailedPreconditionError(absl::StrCat(
        "BuildModule: \"", name_,
        "\" is a sub-builder; only the top-level builder builds the module"));
  }
  PLEXA_ASSIGN_OR_RETURN(Computation * entry, Build(root));
  std::vector<Computation*> order;
  absl::flat_hash_set<Computation*> visited;
  PostOrder(entry, &visited, &order);
  auto module = std::make_unique<Module>(name_);
  for (Computation* c : order) {
    auto it = std::find_if(
        pool_->owned.begin(), pool_->owned.end(),
        [&](const std::unique_ptr<Computation>& p) { return p.get() == c; });
    if (it == pool_->owned.end()) {
      return absl::InternalError(
          absl::StrCat("BuildModule: computation \"", c->name(),
                       "\" is not owned by builder \"", name_, "\"'s family"));
    }
    std::unique_ptr<Computation> owned = std::move(*it);
    pool_->owned.erase(it);
    module->AddComputation(std::move(owned), /*is_entry=*/c == entry);
  }
  pool_->module_built = true;
  return module;
}

absl::StatusOr<std::unique_ptr<Module>> Builder::BuildModule() {
  if (!first_error_.ok()) return first_error_;
  if (!last_op_.valid()) {
    return absl::InvalidArgumentError(
        absl::StrCat("BuildModule: builder \"", name_,
                     "\" has no operation to be the root"));
  }
  return BuildModule(last_op_);
}

// ---- Parameters, constants, iota -------------------------------------------

Op Builder::Parameter(int64_t parameter_number, const Shape& shape,
                      absl::string_view name) {
  return Emit("Parameter", [&]() -> absl::StatusOr<Instruction*> {
    if (parameter_number < 0 || parameter_number >= kMaxParameterNumber) {
      return absl::InvalidArgumentError(
          absl::StrCat("parameter number must be in [0, ", kMaxParameterNumber,
                       "), got ", parameter_number));
    }
    if (computation_->parameter_instruction(parameter_number) != nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "parameter ", parameter_number, " is already defined (",
          computation_->parameter_instruction(parameter_number)->name(), ")"));
    }
    PLEXA_RETURN_IF_ERROR(ValidateUserShape(shape));
    InstructionAttrs attrs;
    attrs.parameter_number = parameter_number;
    PLEXA_RETURN_IF_ERROR(shape_inference::InferShape(HloOpcode::kParameter, {},
                                                      attrs, {}, &shape)
                              .status());
    // The given shape (layout included) is the parameter's.
    return AddInstruction(HloOpcode::kParameter, shape, {}, std::move(attrs),
                          {}, SanitizeName(name, ""));
  });
}

absl::StatusOr<Instruction*> Builder::AddConstant(const Literal& literal) {
  InstructionAttrs attrs;
  attrs.literal = std::make_shared<const Literal>(literal);
  const Shape& declared = literal.shape();
  PLEXA_ASSIGN_OR_RETURN(
      Shape shape, shape_inference::InferShape(HloOpcode::kConstant, {}, attrs,
                                               {}, &declared));
  shape.clear_layout();
  return AddInstruction(HloOpcode::kConstant, std::move(shape), {},
                        std::move(attrs));
}

absl::StatusOr<Instruction*> Builder::AddScalarConstant(PrimitiveType type,
                                                        double value) {
  if (!primitive_util::IsArrayType(type)) {
    return absl::InvalidArgumentError(
        absl::StrCat("a scalar constant needs an array element type, got ",
                     primitive_util::Name(type)));
  }
  Literal literal(ShapeUtil::MakeScalarShape(type));
  PLEXA_RETURN_IF_ERROR(literal.SetFromDouble({}, value));
  return AddConstant(literal);
}

Op Builder::ConstantLiteral(const Literal& literal) {
  return Emit("ConstantLiteral", [&]() { return AddConstant(literal); });
}

Op Builder::ConstantScalar(PrimitiveType type, double value) {
  return Emit("ConstantScalar",
              [&]() { return AddScalarConstant(type, value); });
}

Op Builder::Iota(const Shape& shape, int64_t iota_dimension) {
  return Emit("Iota", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_RETURN_IF_ERROR(ValidateUserShape(shape));
    PLEXA_ASSIGN_OR_RETURN(
        Shape result, shape_inference::InferIotaShape(shape, iota_dimension));
    InstructionAttrs attrs;
    attrs.iota_dimension = iota_dimension;
    return AddInstruction(HloOpcode::kIota, std::move(result), {},
                          std::move(attrs));
  });
}

Op Builder::Iota(PrimitiveType type, int64_t size) {
  return Emit("Iota", [&]() -> absl::StatusOr<Instruction*> {
    if (size < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("size must be >= 0, got ", size));
    }
    if (!primitive_util::IsArrayType(type)) {
      return absl::InvalidArgumentError(
          absl::StrCat("iota needs an array element type, got ",
                       primitive_util::Name(type)));
    }
    return Nested(Iota(ShapeUtil::MakeShape(type, {size}), 0));
  });
}

// ---- Single-instruction emitters -------------------------------------------

absl::StatusOr<Instruction*> Builder::AddBroadcast(
    Instruction* operand, absl::Span<const int64_t> out_dimensions,
    absl::Span<const int64_t> broadcast_dimensions) {
  const Shape& shape = operand->shape();
  if (!shape.IsArray()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot broadcast a non-array operand ", shape.ToString()));
  }
  for (int64_t d : out_dimensions) {
    if (d < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("broadcast output dimensions ",
                       DimsToString(out_dimensions), " must be >= 0"));
    }
  }
  const Shape out = ShapeUtil::MakeShape(shape.element_type(), out_dimensions);
  PLEXA_ASSIGN_OR_RETURN(Shape result, shape_inference::InferBroadcastShape(
                                           shape, out, broadcast_dimensions));
  InstructionAttrs attrs;
  attrs.dimensions.assign(broadcast_dimensions.begin(),
                          broadcast_dimensions.end());
  return AddInstruction(HloOpcode::kBroadcast, std::move(result), {operand},
                        std::move(attrs));
}

absl::StatusOr<Instruction*> Builder::AddReshape(
    Instruction* operand, absl::Span<const int64_t> new_sizes) {
  PLEXA_ASSIGN_OR_RETURN(Shape result, shape_inference::InferReshapeShape(
                                           operand->shape(), new_sizes));
  return AddInstruction(HloOpcode::kReshape, std::move(result), {operand});
}

absl::StatusOr<Instruction*> Builder::AddTranspose(
    Instruction* operand, absl::Span<const int64_t> permutation) {
  PLEXA_ASSIGN_OR_RETURN(Shape result, shape_inference::InferTransposeShape(
                                           operand->shape(), permutation));
  InstructionAttrs attrs;
  attrs.dimensions.assign(permutation.begin(), permutation.end());
  return AddInstruction(HloOpcode::kTranspose, std::move(result), {operand},
                        std::move(attrs));
}

absl::StatusOr<Instruction*> Builder::AddSlice(
    Instruction* operand, std::vector<SliceDimension> slice) {
  PLEXA_ASSIGN_OR_RETURN(
      Shape result, shape_inference::InferSliceShape(operand->shape(), slice));
  InstructionAttrs attrs;
  attrs.slice = std::move(slice);
  return AddInstruction(HloOpcode::kSlice, std::move(result), {operand},
                        std::move(attrs));
}

absl::StatusOr<Instruction*> Builder::AddGetTupleElement(Instruction* tuple,
                                                         int64_t index) {
  PLEXA_ASSIGN_OR_RETURN(
      Shape result,
      shape_inference::InferGetTupleElementShape(tuple->shape(), index));
  InstructionAttrs attrs;
  attrs.tuple_index = index;
  return AddInstruction(HloOpcode::kGetTupleElement, std::move(result), {tuple},
                        std::move(attrs));
}

absl::StatusOr<Instruction*> Builder::AddAfterAll(
    absl::Span<Instruction* const> tokens) {
  PLEXA_ASSIGN_OR_RETURN(Shape result,
                         shape_inference::InferAfterAllShape(ShapesOf(tokens)));
  return AddInstruction(HloOpcode::kAfterAll, std::move(result), tokens);
}

absl::StatusOr<Instruction*> Builder::AddCompare(Instruction* lhs,
                                                 Instruction* rhs,
                                                 ComparisonDirection direction,
                                                 ComparisonType type) {
  PLEXA_ASSIGN_OR_RETURN(Shape result,
                         shape_inference::InferCompareShape(
                             lhs->shape(), rhs->shape(), direction, type));
  InstructionAttrs attrs;
  attrs.comparison_direction = direction;
  attrs.comparison_type = type;
  return AddInstruction(HloOpcode::kCompare, std::move(result), {lhs, rhs},
                        std::move(attrs));
}

absl::StatusOr<Instruction*> Builder::AddBroadcastSequence(
    Instruction* operand, absl::Span<const int64_t> out_dimensions) {
  const Shape& shape = operand->shape();
  if (!shape.IsArray()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot broadcast a non-array operand ", shape.ToString()));
  }
  if (shape.dimensions() == out_dimensions) return operand;
  if (shape.IsScalar()) return AddBroadcast(operand, out_dimensions, {});
  if (shape.rank() != static_cast<int64_t>(out_dimensions.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot broadcast ", shape.ToString(), " to dimensions ",
                     DimsToString(out_dimensions), ": ranks differ"));
  }
  // Degenerate broadcasting: size-1 dimensions that grow are dropped by a
  // reshape, the remaining ones map to their own positions.
  std::vector<int64_t> kept_dims;
  std::vector<int64_t> kept_sizes;
  for (int64_t i = 0; i < shape.rank(); ++i) {
    if (shape.dimensions(i) == out_dimensions[i]) {
      kept_dims.push_back(i);
      kept_sizes.push_back(shape.dimensions(i));
    } else if (shape.dimensions(i) != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot broadcast ", shape.ToString(), " to dimensions ",
                       DimsToString(out_dimensions), ": dimension ", i,
                       " is neither 1 nor ", out_dimensions[i]));
    }
  }
  Instruction* reshaped = operand;
  if (static_cast<int64_t>(kept_sizes.size()) != shape.rank()) {
    PLEXA_ASSIGN_OR_RETURN(reshaped, AddReshape(operand, kept_sizes));
  }
  return AddBroadcast(reshaped, out_dimensions, kept_dims);
}

absl::StatusOr<std::pair<Instruction*, Instruction*>>
Builder::LowerImplicitBroadcast(
    Instruction* lhs, Instruction* rhs,
    absl::Span<const int64_t> result_dimensions,
    absl::Span<const int64_t> broadcast_dimensions) {
  Instruction* l = lhs;
  Instruction* r = rhs;
  const int64_t out_rank = static_cast<int64_t>(result_dimensions.size());
  if (!broadcast_dimensions.empty() &&
      lhs->shape().rank() != rhs->shape().rank()) {
    // Seed 003 "InDim" broadcasting: the lower-rank operand's dimension i
    // goes to broadcast_dimensions[i]; the other dimensions take the
    // result's sizes. Its own size-1 dimensions stay 1 here and are
    // broadcast below with the degenerate rule.
    const bool lower_is_lhs = lhs->shape().rank() < rhs->shape().rank();
    Instruction* from = lower_is_lhs ? lhs : rhs;
    const Shape& from_shape = from->shape();
    if (static_cast<int64_t>(broadcast_dimensions.size()) !=
        from_shape.rank()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "broadcast_dimensions ", DimsToString(broadcast_dimensions),
          " must have one entry per dimension of the lower-rank operand ",
          from_shape.ToString()));
    }
    std::vector<int64_t> to(result_dimensions.begin(), result_dimensions.end());
    for (int64_t i = 0; i < from_shape.rank(); ++i) {
      const int64_t d = broadcast_dimensions[i];
      if (d < 0 || d >= out_rank) {
        return absl::InvalidArgumentError(absl::StrCat(
            "broadcast dimension ", d, " is out of range for rank ", out_rank));
      }
      to[d] = from_shape.dimensions(i);
    }
    PLEXA_ASSIGN_OR_RETURN(Instruction * b,
                           AddBroadcast(from, to, broadcast_dimensions));
    (lower_is_lhs ? l : r) = b;
  }
  PLEXA_ASSIGN_OR_RETURN(l, AddBroadcastSequence(l, result_dimensions));
  PLEXA_ASSIGN_OR_RETURN(r, AddBroadcastSequence(r, result_dimensions));
  return std::make_pair(l, r);
}

}  // namespace plexa
