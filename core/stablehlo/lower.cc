#include "core/stablehlo/lower.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/base/status_macros.h"
#include "core/shape/shape_util.h"

namespace plexa::stablehlo {

namespace {

std::string Sanitize(absl::string_view hint) {
  std::string out;
  for (char c : hint) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
        c == '-') {
      out += c;
    } else if (c == '$' || c == '#') {
      out += '_';
    }
  }
  if (out.empty() ||
      !(std::isalpha(static_cast<unsigned char>(out[0])) || out[0] == '_')) {
    out = absl::StrCat("v", out);
  }
  return out;
}

bool IsTerminator(absl::string_view name) {
  return name == "stablehlo.return" || name == "func.return" ||
         name == "return" || name == "mhlo.return" || name == "chlo.return";
}

std::string LocText(const SrcLoc& loc) {
  return absl::StrCat(loc.line, ":", loc.col, ": ");
}

}  // namespace

std::string Comp::FreshName(absl::string_view hint) {
  std::string base = Sanitize(hint);
  std::string name = base;
  for (int k = 1; names.contains(name); ++k) name = absl::StrCat(base, ".", k);
  names.insert(name);
  return name;
}

std::string ShapeText(const Shape& shape) {
  if (shape.IsTuple()) {
    std::vector<std::string> parts;
    for (const Shape& s : shape.tuple_shapes()) parts.push_back(ShapeText(s));
    return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
  }
  return shape.ToString(/*print_layout=*/false);
}

std::string BraceList(absl::Span<const int64_t> v) {
  return absl::StrCat("{", absl::StrJoin(v, ","), "}");
}

// ------------------------------------------------------------ OpContext

absl::Status OpContext::Error(absl::string_view msg) const {
  return absl::InvalidArgumentError(
      absl::StrCat(LocText(op_.loc), "'", op_.name, "': ", msg));
}

absl::Status OpContext::Unimplemented(absl::string_view msg) const {
  return absl::UnimplementedError(
      absl::StrCat(LocText(op_.loc), "'", op_.name, "': ", msg));
}

absl::StatusOr<Value> OpContext::Operand(int64_t i) {
  if (i < 0 || i >= num_operands()) {
    return Error(absl::StrCat("expected at least ", i + 1, " operand(s), got ",
                              num_operands()));
  }
  return lowering_->Lookup(scope_, op_.operands[i]);
}

absl::StatusOr<std::vector<Value>> OpContext::Operands(int64_t from,
                                                       int64_t count) {
  if (count < 0) count = num_operands() - from;
  std::vector<Value> out;
  for (int64_t i = from; i < from + count; ++i) {
    PLEXA_ASSIGN_OR_RETURN(Value v, Operand(i));
    out.push_back(std::move(v));
  }
  return out;
}

absl::Status OpContext::ExpectOperands(int64_t n) const {
  if (num_operands() != n) {
    return Error(
        absl::StrCat("expected ", n, " operand(s), got ", num_operands()));
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> OpContext::ResultType(int64_t i) const {
  // A pretty type list without an arrow may name operand types first
  // (`stablehlo.select %p, %a, %b : tensor<2xi1>, tensor<2xf32>`): the
  // results are the last ones.
  int64_t n = static_cast<int64_t>(op_.result_types.size());
  int64_t offset = 0;
  if (!op_.has_function_type && n > num_results() && num_results() > 0) {
    offset = n - num_results();
  }
  if (i < 0 || offset + i >= n) {
    return Error(absl::StrCat("the type signature has no result ", i));
  }
  return op_.result_types[offset + i];
}

absl::StatusOr<Shape> OpContext::ResultShape() const {
  std::vector<Shape> shapes;
  for (int64_t i = 0; i < std::max<int64_t>(num_results(), 1); ++i) {
    PLEXA_ASSIGN_OR_RETURN(Shape s, ResultType(i));
    shapes.push_back(std::move(s));
  }
  if (num_results() <= 1) return shapes[0];
  return ShapeUtil::MakeTupleShape(shapes);
}

const MAttr* OpContext::Attr(
    std::initializer_list<absl::string_view> names) const {
  for (absl::string_view n : names) {
    if (const MAttr* a = op_.Attr(n)) return a;
  }
  return nullptr;
}

absl::StatusOr<std::vector<int64_t>> OpContext::IntsOf(const MAttr& a) const {
  std::vector<int64_t> out;
  if (a.kind == MAttr::Kind::kInt) return std::vector<int64_t>{a.i};
  if (a.kind == MAttr::Kind::kDense) {
    if (!a.type.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat(LocText(a.loc), "expected a typed dense<...>"));
    }
    const PrimitiveType et = a.type->element_type();
    if (!a.type->IsArray() || et == PrimitiveType::F16 ||
        et == PrimitiveType::BF16 || et == PrimitiveType::F32 ||
        et == PrimitiveType::F64 || et == PrimitiveType::C64 ||
        et == PrimitiveType::C128) {
      return absl::InvalidArgumentError(
          absl::StrCat(LocText(a.loc), "'", op_.name,
                       "': expected integers, got ", ShapeText(*a.type)));
    }
    // The literal text DenseToLiteral writes: integers (or true/false)
    // between braces, commas and spaces.
    bool splat = false;
    PLEXA_ASSIGN_OR_RETURN(std::string lit, DenseToLiteral(a, *a.type, &splat));
    std::vector<int64_t> vals;
    for (absl::string_view tok :
         absl::StrSplit(lit, absl::ByAnyChar("{}, "), absl::SkipEmpty())) {
      int64_t v = 0;
      if (tok == "true" || tok == "false") {
        v = tok == "true" ? 1 : 0;
      } else if (!absl::SimpleAtoi(tok, &v)) {
        return absl::InvalidArgumentError(absl::StrCat(
            LocText(a.loc), "'", op_.name, "': '", tok, "' is not an integer"));
      }
      vals.push_back(v);
    }
    if (splat) {
      vals.assign(ShapeUtil::ElementsIn(*a.type), vals.empty() ? 0 : vals[0]);
    }
    return vals;
  }
  if (a.kind != MAttr::Kind::kArray) {
    return absl::InvalidArgumentError(absl::StrCat(
        LocText(a.loc), "'", op_.name, "': expected a list of integers"));
  }
  for (const MAttrPtr& item : a.items) {
    if (item->kind == MAttr::Kind::kInt) {
      out.push_back(item->i);
    } else if (item->kind == MAttr::Kind::kBool) {
      out.push_back(item->b ? 1 : 0);
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          LocText(item->loc), "'", op_.name, "': expected an integer"));
    }
  }
  return out;
}

absl::StatusOr<std::vector<int64_t>> OpContext::Ints(
    std::initializer_list<absl::string_view> names, bool required) const {
  const MAttr* a = Attr(names);
  if (a == nullptr) {
    if (required) {
      return Error(absl::StrCat("missing attribute '", *names.begin(), "'"));
    }
    return std::vector<int64_t>{};
  }
  return IntsOf(*a);
}

absl::StatusOr<std::optional<int64_t>> OpContext::Int(
    std::initializer_list<absl::string_view> names) const {
  const MAttr* a = Attr(names);
  if (a == nullptr) return std::optional<int64_t>();
  if (a->kind != MAttr::Kind::kInt) {
    return absl::InvalidArgumentError(
        absl::StrCat(LocText(a->loc), "'", op_.name, "': attribute '",
                     *names.begin(), "' must be an integer"));
  }
  return std::optional<int64_t>(a->i);
}

absl::StatusOr<bool> OpContext::Bool(
    std::initializer_list<absl::string_view> names, bool default_value) const {
  const MAttr* a = Attr(names);
  if (a == nullptr) return default_value;
  if (a->kind == MAttr::Kind::kUnit) return true;
  if (a->kind == MAttr::Kind::kBool) return a->b;
  if (a->kind == MAttr::Kind::kInt) return a->i != 0;
  return absl::InvalidArgumentError(
      absl::StrCat(LocText(a->loc), "'", op_.name, "': attribute '",
                   *names.begin(), "' must be a boolean"));
}

std::optional<std::string> OpContext::Enum(
    std::initializer_list<absl::string_view> names,
    int positional_index) const {
  const MAttr* a = Attr(names);
  if (a != nullptr) {
    if (a->kind == MAttr::Kind::kEnum || a->kind == MAttr::Kind::kIdent ||
        a->kind == MAttr::Kind::kString) {
      return a->s;
    }
    if (a->kind == MAttr::Kind::kStruct && !a->fields.empty()) {
      return a->fields[0].first;
    }
    return std::nullopt;
  }
  if (positional_index >= 0) {
    int k = 0;
    for (const MAttrPtr& p : op_.positional) {
      if (p->kind != MAttr::Kind::kIdent && p->kind != MAttr::Kind::kEnum) {
        continue;
      }
      if (k++ == positional_index) return p->s;
    }
  }
  return std::nullopt;
}

absl::StatusOr<std::vector<std::vector<int64_t>>> OpContext::IntMatrix(
    const MAttr& a) const {
  std::vector<std::vector<int64_t>> out;
  if (a.kind == MAttr::Kind::kArray) {
    for (const MAttrPtr& row : a.items) {
      PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> r, IntsOf(*row));
      out.push_back(std::move(r));
    }
    return out;
  }
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> flat, IntsOf(a));
  int64_t cols = 2;
  if (a.type.has_value() && a.type->rank() == 2) cols = a.type->dimensions(1);
  if (cols <= 0) {
    if (a.type.has_value() && a.type->rank() == 2) {
      out.assign(a.type->dimensions(0), {});
    }
    return out;
  }
  if (flat.size() % cols != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(LocText(a.loc), "'", op_.name, "': expected rows of ",
                     cols, " integers"));
  }
  for (size_t i = 0; i < flat.size(); i += cols) {
    out.emplace_back(flat.begin() + i, flat.begin() + i + cols);
  }
  return out;
}

Value OpContext::Emit(absl::string_view hlo_op, const Shape& shape,
                      absl::Span<const Value> operands,
                      absl::string_view attrs) {
  return lowering_->EmitIn(scope_->comp, op_.loc, op_.name, hlo_op, shape,
                           operands, attrs);
}

Value OpContext::EmitConstant(const Shape& shape, absl::string_view literal) {
  return lowering_->EmitIn(scope_->comp, op_.loc, op_.name,
                           absl::StrCat("constant(", literal, ")"), shape, {},
                           "", "constant");
}

Value OpContext::Splat(const Shape& shape, absl::string_view literal) {
  Value scalar =
      EmitConstant(ShapeUtil::MakeScalarShape(shape.element_type()), literal);
  if (shape.rank() == 0) return scalar;
  return Emit("broadcast", shape, {scalar}, "dimensions={}");
}

absl::StatusOr<Value> OpContext::BroadcastTo(
    const Value& v, const Shape& shape,
    std::optional<std::vector<int64_t>> dims) {
  if (!v.shape.IsArray() || !shape.IsArray() || v.shape.rank() > shape.rank()) {
    return Error(absl::StrCat("cannot broadcast ", ShapeText(v.shape), " to ",
                              ShapeText(shape)));
  }
  if (dims.has_value()) {
    if (static_cast<int64_t>(dims->size()) != v.shape.rank()) {
      return Error(absl::StrCat("broadcast dimensions ", BraceList(*dims),
                                " do not match the operand ",
                                ShapeText(v.shape)));
    }
    for (int64_t d : *dims) {
      if (d < 0 || d >= shape.rank()) {
        return Error(absl::StrCat("broadcast dimension ", d,
                                  " is outside the result ", ShapeText(shape)));
      }
    }
  }
  if (!dims.has_value()) {
    if (v.shape.dimensions() == shape.dimensions()) return v;
    dims.emplace();
    for (int64_t i = 0; i < v.shape.rank(); ++i) {
      dims->push_back(shape.rank() - v.shape.rank() + i);
    }
  }
  Shape target = shape;
  target.set_element_type(v.shape.element_type());
  // Size-1 dimensions that numpy stretches: reshape them away first.
  std::vector<int64_t> kept_dims, kept_sizes;
  for (size_t i = 0; i < dims->size(); ++i) {
    int64_t d = (*dims)[i];
    if (v.shape.dimensions(i) == 1 && d < shape.rank() &&
        shape.dimensions(d) != 1) {
      continue;
    }
    kept_dims.push_back(d);
    kept_sizes.push_back(v.shape.dimensions(i));
  }
  Value src = v;
  if (kept_dims.size() != dims->size()) {
    src = Emit("reshape",
               ShapeUtil::MakeShape(v.shape.element_type(), kept_sizes), {v});
  }
  return Emit("broadcast", target, {src},
              absl::StrCat("dimensions=", BraceList(kept_dims)));
}

absl::Status OpContext::SetTupleResults(const Value& tuple) {
  std::vector<Value> values;
  for (int64_t i = 0; i < tuple.shape.tuple_shapes_size(); ++i) {
    values.push_back(Emit("get-tuple-element", tuple.shape.tuple_shapes(i),
                          {tuple}, absl::StrCat("index=", i)));
  }
  return SetResults(std::move(values));
}

absl::Status OpContext::SetResults(std::vector<Value> values) {
  if (values.size() != op_.results.size()) {
    return Error(absl::StrCat("produces ", values.size(), " value(s) but ",
                              op_.results.size(), " result name(s) are given"));
  }
  for (size_t i = 0; i < values.size(); ++i) {
    scope_->values[op_.results[i]] = std::move(values[i]);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<std::vector<int64_t>>> OpContext::ConstantOperand(
    int64_t i) {
  PLEXA_ASSIGN_OR_RETURN(Value v, Operand(i));
  auto it = lowering_->integer_constants().find({scope_->comp, v.name});
  if (it == lowering_->integer_constants().end()) {
    return std::optional<std::vector<int64_t>>();
  }
  return std::optional<std::vector<int64_t>>(it->second);
}

absl::StatusOr<std::string> OpContext::ScalarRegion(int64_t index) {
  if (index >= static_cast<int64_t>(op_.regions.size())) {
    return Error(absl::StrCat("expected a region (number ", index + 1, ")"));
  }
  const MRegion& region = *op_.regions[index];
  Comp* comp = lowering_->NewComp(absl::StrCat(
      "region_", Sanitize(op_.name.substr(op_.name.find('.') + 1))));
  Scope scope;
  scope.parent = scope_;
  scope.comp = comp;
  scope.region_of = op_.name;
  for (size_t i = 0; i < region.args.size(); ++i) {
    const MBlockArg& arg = region.args[i];
    Value p = lowering_->EmitIn(comp, arg.loc, op_.name,
                                absl::StrCat("parameter(", i, ")"), arg.type,
                                {}, "", arg.name.substr(1));
    scope.values[arg.name] = p;
  }
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> returned,
                         lowering_->LowerBody(&scope, region));
  if (returned.size() == 1) {
    comp->root = returned[0].name;
  } else {
    std::vector<Shape> shapes;
    for (const Value& v : returned) shapes.push_back(v.shape);
    comp->root = lowering_
                     ->EmitIn(comp, op_.loc, op_.name, "tuple",
                              ShapeUtil::MakeTupleShape(shapes), returned, "")
                     .name;
  }
  return comp->name;
}

std::string OpContext::BinaryComputation(absl::string_view hlo_op,
                                         const std::vector<Shape>& types) {
  Comp* comp = lowering_->NewComp(absl::StrCat("region_", hlo_op));
  const int64_t n = static_cast<int64_t>(types.size());
  std::vector<Value> params;
  for (int64_t i = 0; i < 2 * n; ++i) {
    params.push_back(lowering_->EmitIn(comp, op_.loc, op_.name,
                                       absl::StrCat("parameter(", i, ")"),
                                       types[i % n], {}, "", "p"));
  }
  std::vector<Value> outs;
  for (int64_t i = 0; i < n; ++i) {
    outs.push_back(lowering_->EmitIn(comp, op_.loc, op_.name, hlo_op, types[i],
                                     {params[i], params[n + i]}, ""));
  }
  comp->root = outs[0].name;
  if (n > 1) {
    comp->root = lowering_
                     ->EmitIn(comp, op_.loc, op_.name, "tuple",
                              ShapeUtil::MakeTupleShape(types), outs, "")
                     .name;
  }
  return comp->name;
}

// ------------------------------------------------------------ Lowering

Comp* Lowering::NewComp(absl::string_view hint) {
  auto comp = std::make_unique<Comp>();
  std::string base = Sanitize(hint);
  std::string name = base;
  for (int k = 1; comp_names_.contains(name); ++k) {
    name = absl::StrCat(base, ".", k);
  }
  comp_names_.insert(name);
  comp->name = name;
  comps_.push_back(std::move(comp));
  return comps_.back().get();
}

Value Lowering::EmitIn(Comp* comp, const SrcLoc& loc, absl::string_view op,
                       absl::string_view hlo_op, const Shape& shape,
                       absl::Span<const Value> operands,
                       absl::string_view attrs, absl::string_view hint) {
  absl::string_view op_word = hlo_op.substr(0, hlo_op.find('('));
  std::string name = comp->FreshName(hint.empty() ? op_word : hint);
  std::string text = absl::StrCat("%", name, " = ", ShapeText(shape), " ");
  if (absl::StrContains(hlo_op, '(')) {
    absl::StrAppend(&text, hlo_op);
  } else {
    std::vector<std::string> ops;
    for (const Value& v : operands) ops.push_back(absl::StrCat("%", v.name));
    absl::StrAppend(&text, hlo_op, "(", absl::StrJoin(ops, ", "), ")");
  }
  if (!attrs.empty()) absl::StrAppend(&text, ", ", attrs);
  comp->lines.push_back({std::move(text), name, loc, std::string(op)});
  return Value{std::move(name), shape};
}

const MFunc* Lowering::FindFunc(absl::string_view name) const {
  for (const MFunc& f : module_.funcs) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

absl::StatusOr<Value> Lowering::Lookup(Scope* scope, const MValueRef& ref) {
  auto it = scope->values.find(ref.name);
  if (it != scope->values.end()) return it->second;
  // Defined in an enclosing scope?
  bool outside = false;
  for (Scope* s = scope->parent; s != nullptr && !outside; s = s->parent) {
    outside = s->values.contains(ref.name);
  }
  if (scope->captures == nullptr || scope->parent == nullptr) {
    if (outside) {
      return absl::UnimplementedError(absl::StrCat(
          LocText(ref.loc), "'", ref.name,
          "' is defined outside the region of '", scope->region_of,
          "', which must only use its own arguments (a computation that "
          "captures values is not supported there)"));
    }
    return absl::InvalidArgumentError(absl::StrCat(
        LocText(ref.loc), "use of undefined value '", ref.name, "'"));
  }
  CaptureList* caps = scope->captures;
  int64_t k = -1;
  for (size_t i = 0; i < caps->outer_names.size(); ++i) {
    if (caps->outer_names[i] == ref.name) k = static_cast<int64_t>(i);
  }
  if (k < 0) {
    PLEXA_ASSIGN_OR_RETURN(Value outer, Lookup(scope->parent, ref));
    caps->outer_names.push_back(ref.name);
    caps->outer_values.push_back(outer);
    k = static_cast<int64_t>(caps->outer_names.size()) - 1;
  }
  Value v = EmitIn(
      scope->comp, ref.loc, scope->region_of, "get-tuple-element",
      caps->outer_values[k].shape, {Value{scope->capture_param, Shape()}},
      absl::StrCat("index=", scope->capture_base + k), ref.name.substr(1));
  scope->values[ref.name] = v;
  return v;
}

absl::StatusOr<std::vector<Value>> Lowering::LowerBody(Scope* scope,
                                                       const MRegion& region) {
  for (const MOp& op : region.ops) {
    if (IsTerminator(op.name)) {
      std::vector<Value> out;
      for (const MValueRef& ref : op.operands) {
        PLEXA_ASSIGN_OR_RETURN(Value v, Lookup(scope, ref));
        out.push_back(std::move(v));
      }
      if (&op != &region.ops.back()) {
        return absl::InvalidArgumentError(absl::StrCat(
            LocText(op.loc), "'", op.name, "' must end its region"));
      }
      return out;
    }
    PLEXA_RETURN_IF_ERROR(LowerOp(scope, op));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      LocText(region.loc), "the region does not end with a return operation"));
}

absl::Status Lowering::LowerOp(Scope* scope, const MOp& op) {
  const OpMapping* mapping = FindOpMapping(op.name);
  if (mapping == nullptr) {
    const bool known_dialect = absl::StartsWith(op.name, "stablehlo.") ||
                               absl::StartsWith(op.name, "chlo.") ||
                               absl::StartsWith(op.name, "mhlo.") ||
                               absl::StartsWith(op.name, "sdy.");
    return absl::UnimplementedError(absl::StrCat(
        LocText(op.loc), "unsupported operation '", op.name, "'",
        known_dialect ? " (docs/stablehlo.md lists the supported ones)"
                      : " (only the stablehlo, chlo, func and sdy "
                        "dialects are read)"));
  }
  OpContext ctx(this, scope, op);
  PLEXA_RETURN_IF_ERROR(mapping->handler(ctx, mapping->hlo_op));
  for (const std::string& r : op.results) {
    if (!scope->values.contains(r)) {
      return ctx.Error(absl::StrCat("result '", r, "' was not produced"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Comp*> Lowering::FunctionComp(absl::string_view name,
                                             SrcLoc use) {
  auto it = func_comps_.find(name);
  if (it != func_comps_.end()) return it->second;
  const MFunc* f = FindFunc(name);
  if (f == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(LocText(use), "call to undefined function @", name));
  }
  if (in_progress_.contains(name)) {
    return absl::UnimplementedError(absl::StrCat(
        LocText(use), "recursive call to @", name, " (HLO has no recursion)"));
  }
  in_progress_.insert(std::string(name));
  PLEXA_ASSIGN_OR_RETURN(Comp * comp, LowerFunction(*f));
  in_progress_.erase(std::string(name));
  func_comps_[name] = comp;
  return comp;
}

absl::StatusOr<Comp*> Lowering::LowerFunction(const MFunc& func) {
  Comp* comp = NewComp(func.name);
  Scope scope;
  scope.comp = comp;
  scope.region_of = "func.func";
  for (size_t i = 0; i < func.args.size(); ++i) {
    const MBlockArg& arg = func.args[i];
    scope.values[arg.name] =
        EmitIn(comp, arg.loc, "func.func", absl::StrCat("parameter(", i, ")"),
               arg.type, {}, "", arg.name.substr(1));
  }
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> returned,
                         LowerBody(&scope, *func.body));
  if (returned.size() != func.result_types.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(LocText(func.loc), "function @", func.name, " returns ",
                     returned.size(), " value(s) but its signature declares ",
                     func.result_types.size()));
  }
  if (returned.size() == 1) {
    comp->root = returned[0].name;
  } else {
    std::vector<Shape> shapes;
    for (const Value& v : returned) shapes.push_back(v.shape);
    comp->root = EmitIn(comp, func.loc, "func.return", "tuple",
                        ShapeUtil::MakeTupleShape(shapes), returned, "")
                     .name;
  }
  return comp;
}

absl::StatusOr<std::string> Lowering::Run() {
  const MFunc* entry = FindFunc("main");
  if (entry == nullptr) {
    std::vector<const MFunc*> publics;
    for (const MFunc& f : module_.funcs) {
      if (f.is_public) publics.push_back(&f);
    }
    if (publics.size() != 1) {
      return absl::InvalidArgumentError(
          "no entry function: expected @main or exactly one public function");
    }
    entry = publics[0];
  }
  // The entry keeps the name "main" free for itself.
  PLEXA_ASSIGN_OR_RETURN(Comp * entry_comp,
                         FunctionComp(entry->name, entry->loc));

  std::string header = absl::StrCat(
      "HloModule ", Sanitize(module_.name.empty() ? "module" : module_.name));
  for (const auto& [key, value] : module_.attrs) {
    if (value->kind != MAttr::Kind::kInt || value->i <= 1) continue;
    if (key == "mhlo.num_replicas") {
      absl::StrAppend(&header, ", replica_count=", value->i);
    } else if (key == "mhlo.num_partitions") {
      absl::StrAppend(&header, ", num_partitions=", value->i);
    }
  }
  std::string text = header + "\n\n";
  line_origin_.assign(2, nullptr);
  auto append = [&](const Comp& comp, bool is_entry) {
    absl::StrAppend(&text, is_entry ? "ENTRY " : "", "%", comp.name, " {\n");
    line_origin_.push_back(nullptr);
    // The root last, as XLA prints computations.
    const Comp::Line* root = nullptr;
    for (const Comp::Line& line : comp.lines) {
      if (line.defines == comp.root) {
        root = &line;
        continue;
      }
      absl::StrAppend(&text, "  ", line.text, "\n");
      line_origin_.push_back(&line);
    }
    if (root != nullptr) {
      absl::StrAppend(&text, "  ROOT ", root->text, "\n");
      line_origin_.push_back(root);
    }
    absl::StrAppend(&text, "}\n\n");
    line_origin_.push_back(nullptr);
    line_origin_.push_back(nullptr);
  };
  for (const auto& comp : comps_) {
    if (comp.get() != entry_comp) append(*comp, false);
  }
  append(*entry_comp, true);
  return text;
}

}  // namespace plexa::stablehlo
