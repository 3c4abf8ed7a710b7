// Operations with regions (reduce, sort, while, if, case, ...), calls,
// custom calls, collectives and feeds.
//
// while/if/case regions may use values of the enclosing scope (StableHLO
// allows it, JAX's `case` branches do it); HLO's computations may not.
// Those values travel in the region's tuple parameter after its own
// arguments: for while they extend the loop state (the body passes them
// through unchanged), for if/case each branch gets them as its operand.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/base/status_macros.h"
#include "core/ir/channels.h"
#include "core/shape/shape_util.h"
#include "core/stablehlo/ops.h"

namespace plexa::stablehlo {
namespace {

struct TupleRegion {
  Comp* comp = nullptr;
  std::unique_ptr<Scope> scope;
  std::vector<Value> returned;
};

absl::StatusOr<TupleRegion> LowerTupleRegion(
    OpContext& ctx, int64_t index, const std::vector<Shape>& arg_types,
    const std::vector<std::string>& implicit_names, CaptureList* caps,
    absl::string_view hint) {
  const MOp& op = ctx.op();
  if (index >= static_cast<int64_t>(op.regions.size())) {
    return ctx.Error(
        absl::StrCat("expected a region (number ", index + 1, ")"));
  }
  const MRegion& region = *op.regions[index];
  std::vector<std::string> names;
  for (const MBlockArg& a : region.args) names.push_back(a.name);
  if (names.empty()) names = implicit_names;
  if (names.size() != arg_types.size()) {
    return ctx.Error(absl::StrCat("the region takes ", names.size(),
                                  " argument(s) where ", arg_types.size(),
                                  " are passed"));
  }
  Lowering* lowering = ctx.lowering();
  TupleRegion r;
  r.comp = lowering->NewComp(hint);
  r.scope = std::make_unique<Scope>();
  r.scope->parent = ctx.scope();
  r.scope->comp = r.comp;
  r.scope->captures = caps;
  r.scope->region_of = op.name;
  r.scope->capture_param = r.comp->FreshName("param");
  r.scope->capture_base = static_cast<int64_t>(arg_types.size());
  const Value param{r.scope->capture_param, Shape()};
  for (size_t i = 0; i < names.size(); ++i) {
    r.scope->values[names[i]] = lowering->EmitIn(
        r.comp, region.loc, op.name, "get-tuple-element", arg_types[i], {param},
        absl::StrCat("index=", i), names[i].substr(1));
  }
  PLEXA_ASSIGN_OR_RETURN(r.returned,
                         lowering->LowerBody(r.scope.get(), region));
  return r;
}

// Writes the region's parameter once its captures are known.
void FinishTupleParam(const TupleRegion& r, const std::vector<Shape>& arg_types,
                      const CaptureList& caps, const SrcLoc& loc,
                      absl::string_view op) {
  std::vector<Shape> shapes = arg_types;
  for (const Value& v : caps.outer_values) shapes.push_back(v.shape);
  Comp::Line line;
  line.defines = r.scope->capture_param;
  line.text = absl::StrCat("%", line.defines, " = ",
                           ShapeText(ShapeUtil::MakeTupleShape(shapes)),
                           " parameter(0)");
  line.loc = loc;
  line.op = std::string(op);
  r.comp->lines.insert(r.comp->lines.begin(), std::move(line));
}

// The root of a branch or function-like region: one value or a tuple.
void SetRoot(OpContext& ctx, TupleRegion& r) {
  if (r.returned.size() == 1) {
    r.comp->root = r.returned[0].name;
    return;
  }
  std::vector<Shape> shapes;
  for (const Value& v : r.returned) shapes.push_back(v.shape);
  r.comp->root = ctx.lowering()
                     ->EmitIn(r.comp, ctx.op().loc, ctx.op().name, "tuple",
                              ShapeUtil::MakeTupleShape(shapes), r.returned, "")
                     .name;
}

absl::Status SetOneOrTuple(OpContext& ctx, const Value& v) {
  if (ctx.num_results() == 1 && !v.shape.IsTuple()) {
    return ctx.SetResults({v});
  }
  if (ctx.num_results() == 0) return absl::OkStatus();
  return ctx.SetTupleResults(v);
}

// The computation of a reduction-like op: its region, or the pretty
// `applies stablehlo.add` on the init values' types.
absl::StatusOr<std::string> Reducer(OpContext& ctx,
                                    const std::vector<Value>& inits) {
  if (!ctx.op().applies.empty()) {
    const OpMapping* m = FindOpMapping(ctx.op().applies);
    if (m == nullptr || m->handler != LowerSimple) {
      return ctx.Error(absl::StrCat("cannot apply '", ctx.op().applies, "'"));
    }
    std::vector<Shape> types;
    for (const Value& v : inits) types.push_back(v.shape);
    return ctx.BinaryComputation(m->hlo_op, types);
  }
  return ctx.ScalarRegion(0);
}

// Inputs and inits: generic (inputs..., inits...) or pretty (%x init: %y).
absl::Status InputsAndInits(OpContext& ctx, std::vector<Value>* inputs,
                            std::vector<Value>* inits) {
  std::vector<MValueRef> init_refs;
  for (const auto& [k, v] : ctx.op().attrs) {
    if (k == "__init") init_refs.push_back({v->s, v->loc});
  }
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands());
  if (!init_refs.empty()) {
    *inputs = ops;
    for (const MValueRef& ref : init_refs) {
      PLEXA_ASSIGN_OR_RETURN(Value v, ctx.lowering()->Lookup(ctx.scope(), ref));
      inits->push_back(std::move(v));
    }
  } else {
    if (ops.size() % 2 != 0 || ops.empty()) {
      return ctx.Error("expected N inputs followed by N init values");
    }
    inputs->assign(ops.begin(), ops.begin() + ops.size() / 2);
    inits->assign(ops.begin() + ops.size() / 2, ops.end());
  }
  if (inputs->size() != inits->size()) {
    return ctx.Error("expected as many init values as inputs");
  }
  return absl::OkStatus();
}

std::string Join(const std::vector<int64_t>& v, int64_t dflt, size_t n) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < n; ++i) {
    parts.push_back(absl::StrCat(i < v.size() ? v[i] : dflt));
  }
  return absl::StrJoin(parts, "x");
}

// window={size=.. stride=.. pad=.. lhs_dilate=.. rhs_dilate=..} from the
// generic attributes of reduce_window / select_and_scatter.
absl::StatusOr<std::string> WindowAttr(OpContext& ctx) {
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> size,
                         ctx.Ints({"window_dimensions"}, true));
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> stride,
                         ctx.Ints({"window_strides"}, false));
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> base,
                         ctx.Ints({"base_dilations"}, false));
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> wdil,
                         ctx.Ints({"window_dilations"}, false));
  std::vector<std::vector<int64_t>> pad;
  if (const MAttr* p = ctx.Attr({"padding"})) {
    PLEXA_ASSIGN_OR_RETURN(pad, ctx.IntMatrix(*p));
  }
  if (size.empty()) return std::string();
  std::vector<std::string> pads;
  for (size_t i = 0; i < size.size(); ++i) {
    if (i < pad.size() && pad[i].size() == 2) {
      pads.push_back(absl::StrCat(pad[i][0], "_", pad[i][1]));
    } else {
      pads.push_back("0_0");
    }
  }
  return absl::StrCat("window={size=", Join(size, 1, size.size()),
                      " stride=", Join(stride, 1, size.size()),
                      " pad=", absl::StrJoin(pads, "x"),
                      " lhs_dilate=", Join(base, 1, size.size()),
                      " rhs_dilate=", Join(wdil, 1, size.size()), "}, ");
}

std::string Escape(absl::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

// replica_groups, channel_id, use_global_device_ids of a collective.
absl::StatusOr<std::string> CollectiveAttrs(OpContext& ctx) {
  std::string attrs;
  if (const MAttr* ch = ctx.Attr({"channel_handle"})) {
    const MAttr* h = ch->Field("handle");
    if (h != nullptr && h->kind == MAttr::Kind::kInt && h->i > 0) {
      absl::StrAppend(&attrs, ", channel_id=", h->i);
    }
  }
  if (const MAttr* rg = ctx.Attr({"replica_groups"})) {
    PLEXA_ASSIGN_OR_RETURN(std::vector<std::vector<int64_t>> groups,
                           ctx.IntMatrix(*rg));
    std::vector<std::string> parts;
    for (const auto& g : groups) {
      // -1 pads ragged groups in StableHLO's dense form.
      std::vector<int64_t> ids;
      for (int64_t id : g) {
        if (id >= 0) ids.push_back(id);
      }
      parts.push_back(BraceList(ids));
    }
    absl::StrAppend(&attrs, ", replica_groups={", absl::StrJoin(parts, ","),
                    "}");
  }
  PLEXA_ASSIGN_OR_RETURN(bool global,
                         ctx.Bool({"use_global_device_ids"}, false));
  if (global) absl::StrAppend(&attrs, ", use_global_device_ids=true");
  return attrs;
}

}  // namespace

absl::Status LowerReduce(OpContext& ctx, absl::string_view) {
  std::vector<Value> inputs, inits;
  PLEXA_RETURN_IF_ERROR(InputsAndInits(ctx, &inputs, &inits));
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> dims,
                         ctx.Ints({"dimensions"}, true));
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultShape());
  PLEXA_ASSIGN_OR_RETURN(std::string reducer, Reducer(ctx, inits));
  std::vector<Value> ops = inputs;
  ops.insert(ops.end(), inits.begin(), inits.end());
  return SetOneOrTuple(
      ctx, ctx.Emit("reduce", shape, ops,
                    absl::StrCat("dimensions=", BraceList(dims), ", to_apply=%",
                                 reducer)));
}

absl::Status LowerReduceWindow(OpContext& ctx, absl::string_view) {
  std::vector<Value> inputs, inits;
  PLEXA_RETURN_IF_ERROR(InputsAndInits(ctx, &inputs, &inits));
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultShape());
  PLEXA_ASSIGN_OR_RETURN(std::string window, WindowAttr(ctx));
  PLEXA_ASSIGN_OR_RETURN(std::string reducer, Reducer(ctx, inits));
  std::vector<Value> ops = inputs;
  ops.insert(ops.end(), inits.begin(), inits.end());
  return SetOneOrTuple(ctx,
                       ctx.Emit("reduce-window", shape, ops,
                                absl::StrCat(window, "to_apply=%", reducer)));
}

absl::Status LowerSelectAndScatter(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(3));
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands());
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  PLEXA_ASSIGN_OR_RETURN(std::string window, WindowAttr(ctx));
  PLEXA_ASSIGN_OR_RETURN(std::string select, ctx.ScalarRegion(0));
  PLEXA_ASSIGN_OR_RETURN(std::string scatter, ctx.ScalarRegion(1));
  return ctx.SetResults({ctx.Emit(
      "select-and-scatter", shape, ops,
      absl::StrCat(window, "select=%", select, ", scatter=%", scatter))});
}

absl::Status LowerSort(OpContext& ctx, absl::string_view) {
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands());
  if (ops.empty()) return ctx.Error("expected at least one operand");
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultShape());
  PLEXA_ASSIGN_OR_RETURN(std::optional<int64_t> dim, ctx.Int({"dimension"}));
  int64_t d = dim.value_or(-1);
  if (d < 0) d += ops[0].shape.rank();
  PLEXA_ASSIGN_OR_RETURN(bool stable, ctx.Bool({"is_stable"}, false));
  PLEXA_ASSIGN_OR_RETURN(std::string comparator, ctx.ScalarRegion(0));
  return SetOneOrTuple(ctx,
                       ctx.Emit("sort", shape, ops,
                                absl::StrCat("dimensions={", d, "}",
                                             stable ? ", is_stable=true" : "",
                                             ", to_apply=%", comparator)));
}

absl::Status LowerMap(OpContext& ctx, absl::string_view) {
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands());
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> dims,
                         ctx.Ints({"dimensions"}, true));
  PLEXA_ASSIGN_OR_RETURN(std::string fn, ctx.ScalarRegion(0));
  return ctx.SetResults({ctx.Emit(
      "map", shape, ops,
      absl::StrCat("dimensions=", BraceList(dims), ", to_apply=%", fn))});
}

absl::Status LowerWhile(OpContext& ctx, absl::string_view) {
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands());
  std::vector<Shape> types;
  for (const Value& v : ops) types.push_back(v.shape);
  CaptureList caps;
  PLEXA_ASSIGN_OR_RETURN(
      TupleRegion cond,
      LowerTupleRegion(ctx, 0, types, ctx.op().iter_args, &caps, "cond"));
  PLEXA_ASSIGN_OR_RETURN(
      TupleRegion body,
      LowerTupleRegion(ctx, 1, types, ctx.op().iter_args, &caps, "body"));
  if (cond.returned.size() != 1) {
    return ctx.Error("the condition must return one value");
  }
  if (body.returned.size() != ops.size()) {
    return ctx.Error(absl::StrCat("the body returns ", body.returned.size(),
                                  " value(s) for ", ops.size(),
                                  " loop variable(s)"));
  }
  cond.comp->root = cond.returned[0].name;
  // The body passes every capture through.
  std::vector<Value> next = body.returned;
  for (size_t k = 0; k < caps.outer_names.size(); ++k) {
    PLEXA_ASSIGN_OR_RETURN(
        Value v, ctx.lowering()->Lookup(body.scope.get(),
                                        {caps.outer_names[k], ctx.op().loc}));
    next.push_back(v);
  }
  std::vector<Shape> state = types;
  for (const Value& v : caps.outer_values) state.push_back(v.shape);
  const Shape state_shape = ShapeUtil::MakeTupleShape(state);
  body.comp->root = ctx.lowering()
                        ->EmitIn(body.comp, ctx.op().loc, ctx.op().name,
                                 "tuple", state_shape, next, "")
                        .name;
  FinishTupleParam(cond, types, caps, ctx.op().loc, ctx.op().name);
  FinishTupleParam(body, types, caps, ctx.op().loc, ctx.op().name);
  std::vector<Value> init = ops;
  init.insert(init.end(), caps.outer_values.begin(), caps.outer_values.end());
  Value tuple = ctx.Emit("tuple", state_shape, init);
  Value loop = ctx.Emit("while", state_shape, {tuple},
                        absl::StrCat("condition=%", cond.comp->name, ", body=%",
                                     body.comp->name));
  std::vector<Value> results;
  for (size_t i = 0; i < ops.size(); ++i) {
    results.push_back(ctx.Emit("get-tuple-element", types[i], {loop},
                               absl::StrCat("index=", i)));
  }
  return ctx.SetResults(std::move(results));
}

namespace {
// if and case: branch i of `first_region`... as computations taking their
// captures; returns the conditional.
absl::Status LowerBranches(OpContext& ctx, const Value& selector,
                           bool is_pred) {
  const int64_t n = static_cast<int64_t>(ctx.op().regions.size());
  if (n == 0) return ctx.Error("expected at least one branch");
  if (is_pred && n != 2) return ctx.Error("expected two branches");
  std::vector<Shape> result_types = ctx.op().result_types;
  const Shape shape = result_types.size() == 1
                          ? result_types[0]
                          : ShapeUtil::MakeTupleShape(result_types);
  std::vector<CaptureList> caps(n);
  std::vector<TupleRegion> branches;
  for (int64_t i = 0; i < n; ++i) {
    PLEXA_ASSIGN_OR_RETURN(
        TupleRegion r,
        LowerTupleRegion(ctx, i, {}, {}, &caps[i], absl::StrCat("branch_", i)));
    if (r.returned.size() != result_types.size()) {
      return ctx.Error(absl::StrCat("branch ", i, " returns ",
                                    r.returned.size(), " value(s) where ",
                                    result_types.size(), " are declared"));
    }
    SetRoot(ctx, r);
    branches.push_back(std::move(r));
  }
  std::vector<Value> ops = {selector};
  std::vector<std::string> names;
  for (int64_t i = 0; i < n; ++i) {
    FinishTupleParam(branches[i], {}, caps[i], ctx.op().loc, ctx.op().name);
    std::vector<Shape> shapes;
    for (const Value& v : caps[i].outer_values) shapes.push_back(v.shape);
    ops.push_back(ctx.Emit("tuple", ShapeUtil::MakeTupleShape(shapes),
                           caps[i].outer_values));
    names.push_back(absl::StrCat("%", branches[i].comp->name));
  }
  std::string attrs = is_pred ? absl::StrCat("true_computation=", names[0],
                                             ", false_computation=", names[1])
                              : absl::StrCat("branch_computations={",
                                             absl::StrJoin(names, ", "), "}");
  return SetOneOrTuple(ctx, ctx.Emit("conditional", shape, ops, attrs));
}
}  // namespace

absl::Status LowerIf(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(1));
  PLEXA_ASSIGN_OR_RETURN(Value pred, ctx.Operand(0));
  return LowerBranches(ctx, pred, true);
}

absl::Status LowerCase(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(1));
  PLEXA_ASSIGN_OR_RETURN(Value index, ctx.Operand(0));
  return LowerBranches(ctx, index, false);
}

absl::Status LowerCall(OpContext& ctx, absl::string_view) {
  std::string callee;
  for (const MAttrPtr& p : ctx.op().positional) {
    if (p->kind == MAttr::Kind::kSymbol) callee = p->s;
  }
  if (const MAttr* c = ctx.Attr({"callee"})) callee = c->s;
  if (callee.empty()) return ctx.Error("missing callee");
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands());
  PLEXA_ASSIGN_OR_RETURN(Comp * comp,
                         ctx.lowering()->FunctionComp(callee, ctx.op().loc));
  const MFunc* f = ctx.lowering()->FindFunc(callee);
  if (f->args.size() != ops.size()) {
    return ctx.Error(absl::StrCat("@", callee, " takes ", f->args.size(),
                                  " argument(s), got ", ops.size()));
  }
  const Shape shape = f->result_types.size() == 1
                          ? f->result_types[0]
                          : ShapeUtil::MakeTupleShape(f->result_types);
  return SetOneOrTuple(ctx, ctx.Emit("call", shape, ops,
                                     absl::StrCat("to_apply=%", comp->name)));
}

// The decomposition is inlined: its body is lowered in place with the
// arguments bound to the operands.
absl::Status LowerComposite(OpContext& ctx, absl::string_view) {
  static thread_local int depth = 0;
  const MAttr* d = ctx.Attr({"decomposition"});
  if (d == nullptr || d->kind != MAttr::Kind::kSymbol) {
    return ctx.Error("missing decomposition = @function");
  }
  const MFunc* f = ctx.lowering()->FindFunc(d->s);
  if (f == nullptr) {
    return ctx.Error(absl::StrCat("undefined decomposition @", d->s));
  }
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands());
  if (f->args.size() != ops.size()) {
    return ctx.Error(absl::StrCat("@", d->s, " takes ", f->args.size(),
                                  " argument(s), got ", ops.size()));
  }
  if (depth > 64) return ctx.Error("composites nested too deeply");
  Scope scope;
  scope.comp = ctx.scope()->comp;
  scope.region_of = "func.func";
  for (size_t i = 0; i < ops.size(); ++i)
    scope.values[f->args[i].name] = ops[i];
  ++depth;
  absl::StatusOr<std::vector<Value>> returned =
      ctx.lowering()->LowerBody(&scope, *f->body);
  --depth;
  if (!returned.ok()) return returned.status();
  return ctx.SetResults(*std::move(returned));
}

namespace {

// JAX writes lax.ragged_all_to_all as a custom call (StableHLO has no such
// op) that XLA's importer turns into its ragged-all-to-all instruction:
//   stablehlo.custom_call @ragged_all_to_all(%operand, %output,
//       %input_offsets, %send_sizes, %output_offsets, %recv_sizes)
//       {api_version = 4 : i32, backend_config = {replica_groups =
//        dense<[[0, 1]]> : tensor<1x2xi64>, channel_id = 1 : i64}}
// (channel_id only under SPMD), so Plexa does the same.
absl::Status LowerRaggedAllToAllCall(OpContext& ctx, std::vector<Value> ops) {
  const MAttr* config = ctx.Attr({"backend_config"});
  if (config == nullptr || config->kind != MAttr::Kind::kDict) {
    return ctx.Error(
        "custom_call @ragged_all_to_all needs a backend_config dictionary "
        "with replica_groups");
  }
  const MAttr* rg = config->Field("replica_groups");
  if (rg == nullptr) {
    return ctx.Error("custom_call @ragged_all_to_all: missing replica_groups");
  }
  PLEXA_ASSIGN_OR_RETURN(std::vector<std::vector<int64_t>> groups,
                         ctx.IntMatrix(*rg));
  std::vector<std::string> parts;
  for (const auto& g : groups) parts.push_back(BraceList(g));
  std::string attrs =
      absl::StrCat("replica_groups={", absl::StrJoin(parts, ","), "}");
  if (const MAttr* ch = config->Field("channel_id")) {
    if (ch->kind != MAttr::Kind::kInt) {
      return ctx.Error(
          "custom_call @ragged_all_to_all: channel_id is not an "
          "integer");
    }
    if (ch->i > 0) absl::StrAppend(&attrs, ", channel_id=", ch->i);
  }
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultShape());
  return SetOneOrTuple(ctx, ctx.Emit("ragged-all-to-all", shape, ops, attrs));
}

}  // namespace

absl::Status LowerCustomCall(OpContext& ctx, absl::string_view) {
  std::string target;
  for (const MAttrPtr& p : ctx.op().positional) {
    if (p->kind == MAttr::Kind::kSymbol) target = p->s;
  }
  if (const MAttr* t = ctx.Attr({"call_target_name"})) target = t->s;
  if (target.empty()) return ctx.Error("missing call_target_name");
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands());
  if (target == "ragged_all_to_all") {
    return LowerRaggedAllToAllCall(ctx, std::move(ops));
  }
  Shape shape = ShapeUtil::MakeTupleShape({});
  if (ctx.num_results() > 0) {
    PLEXA_ASSIGN_OR_RETURN(shape, ctx.ResultShape());
  }
  std::string attrs =
      absl::StrCat("custom_call_target=\"", Escape(target), "\"");
  PLEXA_ASSIGN_OR_RETURN(bool side_effect,
                         ctx.Bool({"has_side_effect"}, false));
  if (side_effect)
    absl::StrAppend(&attrs, ", custom_call_has_side_effect=true");
  int64_t api = 1;
  if (const MAttr* a = ctx.Attr({"api_version"})) {
    if (a->kind == MAttr::Kind::kInt) {
      api = a->i;
    } else if (a->kind == MAttr::Kind::kEnum) {
      static const char* const kNames[] = {
          "API_VERSION_UNSPECIFIED", "API_VERSION_ORIGINAL",
          "API_VERSION_STATUS_RETURNING",
          "API_VERSION_STATUS_RETURNING_UNIFIED", "API_VERSION_TYPED_FFI"};
      api = -1;
      for (int i = 0; i < 5; ++i) {
        if (a->s == kNames[i]) api = i;
      }
    }
  }
  static const char* const kApis[] = {
      "API_VERSION_UNSPECIFIED", "API_VERSION_ORIGINAL",
      "API_VERSION_STATUS_RETURNING", "API_VERSION_STATUS_RETURNING_UNIFIED",
      "API_VERSION_TYPED_FFI"};
  if (api < 0 || api > 4) return ctx.Error("unknown api_version");
  if (api != 1) absl::StrAppend(&attrs, ", api_version=", kApis[api]);
  if (const MAttr* b = ctx.Attr({"backend_config"})) {
    if (b->kind == MAttr::Kind::kString) {
      if (!b->s.empty()) {
        absl::StrAppend(&attrs, ", backend_config=\"", Escape(b->s), "\"");
      }
    } else if (b->kind == MAttr::Kind::kDict) {
      // The typed FFI's attribute dictionary, as XLA writes it.
      absl::StrAppend(&attrs, ", backend_config=\"", Escape(b->raw), "\"");
    }
  }
  if (const MAttr* aliases = ctx.Attr({"output_operand_aliases"})) {
    std::vector<std::string> parts;
    for (const MAttrPtr& item : aliases->items) {
      std::vector<int64_t> out_idx, operand_idx;
      if (const MAttr* f = item->Field("output_tuple_indices")) {
        PLEXA_ASSIGN_OR_RETURN(out_idx, ctx.IntsOf(*f));
      }
      if (const MAttr* f = item->Field("operand_tuple_indices")) {
        PLEXA_ASSIGN_OR_RETURN(operand_idx, ctx.IntsOf(*f));
      }
      const MAttr* oi = item->Field("operand_index");
      if (oi == nullptr || oi->kind != MAttr::Kind::kInt) {
        return ctx.Error("output_operand_alias without operand_index");
      }
      parts.push_back(absl::StrCat(BraceList(out_idx), ": (", oi->i, ", ",
                                   BraceList(operand_idx), ")"));
    }
    if (!parts.empty()) {
      absl::StrAppend(&attrs, ", output_to_operand_aliasing={",
                      absl::StrJoin(parts, ", "), "}");
    }
  }
  if (const MAttr* called = ctx.Attr({"called_computations"})) {
    std::vector<std::string> names;
    for (const MAttrPtr& item : called->items) {
      if (item->kind != MAttr::Kind::kSymbol) continue;
      PLEXA_ASSIGN_OR_RETURN(Comp * comp,
                             ctx.lowering()->FunctionComp(item->s, item->loc));
      names.push_back(absl::StrCat("%", comp->name));
    }
    if (!names.empty()) {
      absl::StrAppend(&attrs, ", called_computations={",
                      absl::StrJoin(names, ", "), "}");
    }
  }
  return SetOneOrTuple(ctx, ctx.Emit("custom-call", shape, ops, attrs));
}

absl::Status LowerAllReduce(OpContext& ctx, absl::string_view) {
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands());
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultShape());
  PLEXA_ASSIGN_OR_RETURN(std::string attrs, CollectiveAttrs(ctx));
  PLEXA_ASSIGN_OR_RETURN(std::string reducer, ctx.ScalarRegion(0));
  return SetOneOrTuple(
      ctx,
      ctx.Emit("all-reduce", shape, ops,
               absl::StrCat(attrs.empty() ? "" : attrs.substr(2),
                            attrs.empty() ? "" : ", ", "to_apply=%", reducer)));
}

absl::Status LowerAllGather(OpContext& ctx, absl::string_view) {
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands());
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultShape());
  PLEXA_ASSIGN_OR_RETURN(std::optional<int64_t> dim,
                         ctx.Int({"all_gather_dim"}));
  if (!dim.has_value()) return ctx.Error("missing all_gather_dim");
  PLEXA_ASSIGN_OR_RETURN(std::string attrs, CollectiveAttrs(ctx));
  return SetOneOrTuple(
      ctx, ctx.Emit("all-gather", shape, ops,
                    absl::StrCat("dimensions={", *dim, "}", attrs)));
}

absl::Status LowerReduceScatter(OpContext& ctx, absl::string_view) {
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands());
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultShape());
  PLEXA_ASSIGN_OR_RETURN(std::optional<int64_t> dim,
                         ctx.Int({"scatter_dimension"}));
  if (!dim.has_value()) return ctx.Error("missing scatter_dimension");
  PLEXA_ASSIGN_OR_RETURN(std::string attrs, CollectiveAttrs(ctx));
  PLEXA_ASSIGN_OR_RETURN(std::string reducer, ctx.ScalarRegion(0));
  return SetOneOrTuple(ctx,
                       ctx.Emit("reduce-scatter", shape, ops,
                                absl::StrCat("dimensions={", *dim, "}", attrs,
                                             ", to_apply=%", reducer)));
}

absl::Status LowerAllToAll(OpContext& ctx, absl::string_view) {
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands());
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultShape());
  PLEXA_ASSIGN_OR_RETURN(std::optional<int64_t> split,
                         ctx.Int({"split_dimension"}));
  PLEXA_ASSIGN_OR_RETURN(std::optional<int64_t> concat,
                         ctx.Int({"concat_dimension"}));
  if (!split.has_value() || !concat.has_value()) {
    return ctx.Error("missing split_dimension or concat_dimension");
  }
  if (*split != *concat) {
    return ctx.Unimplemented(
        "an all_to_all whose split_dimension differs from its "
        "concat_dimension has no single HLO all-to-all");
  }
  PLEXA_ASSIGN_OR_RETURN(std::string attrs, CollectiveAttrs(ctx));
  return SetOneOrTuple(
      ctx, ctx.Emit("all-to-all", shape, ops,
                    absl::StrCat("dimensions={", *split, "}", attrs)));
}

absl::Status LowerCollectivePermute(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(1));
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands());
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  const MAttr* pairs = ctx.Attr({"source_target_pairs"});
  if (pairs == nullptr) return ctx.Error("missing source_target_pairs");
  PLEXA_ASSIGN_OR_RETURN(std::vector<std::vector<int64_t>> m,
                         ctx.IntMatrix(*pairs));
  std::vector<std::string> parts;
  for (const auto& p : m) parts.push_back(BraceList(p));
  std::string attrs =
      absl::StrCat("source_target_pairs={", absl::StrJoin(parts, ","), "}");
  if (const MAttr* ch = ctx.Attr({"channel_handle"})) {
    const MAttr* h = ch->Field("handle");
    if (h != nullptr && h->kind == MAttr::Kind::kInt && h->i > 0) {
      absl::StrAppend(&attrs, ", channel_id=", h->i);
    }
  }
  return ctx.SetResults({ctx.Emit("collective-permute", shape, ops, attrs)});
}

absl::Status LowerCollectiveBroadcast(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(1));
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands());
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  if (ctx.Attr({"replica_groups"}) == nullptr) {
    return ctx.Error("missing replica_groups");
  }
  PLEXA_ASSIGN_OR_RETURN(std::string attrs, CollectiveAttrs(ctx));
  return ctx.SetResults(
      {ctx.Emit("collective-broadcast", shape, ops, attrs.substr(2))});
}

absl::Status LowerInfeed(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(1));
  PLEXA_ASSIGN_OR_RETURN(Value token, ctx.Operand(0));
  const int64_t n = ctx.num_results();
  if (n < 1) return ctx.Error("expected the values and a token as results");
  std::vector<Shape> data;
  for (int64_t i = 0; i + 1 < n; ++i) {
    PLEXA_ASSIGN_OR_RETURN(Shape s, ctx.ResultType(i));
    data.push_back(std::move(s));
  }
  const Shape data_shape = ShapeUtil::MakeTupleShape(data);
  std::string attrs;
  if (const MAttr* c = ctx.Attr({"infeed_config"})) {
    if (!c->s.empty())
      attrs = absl::StrCat("infeed_config=\"", Escape(c->s), "\"");
  }
  Value feed = ctx.Emit(
      "infeed",
      ShapeUtil::MakeTupleShape({data_shape, ShapeUtil::MakeTokenShape()}),
      {token}, attrs);
  Value values = ctx.Emit("get-tuple-element", data_shape, {feed}, "index=0");
  std::vector<Value> results;
  for (size_t i = 0; i < data.size(); ++i) {
    results.push_back(ctx.Emit("get-tuple-element", data[i], {values},
                               absl::StrCat("index=", i)));
  }
  results.push_back(ctx.Emit("get-tuple-element", ShapeUtil::MakeTokenShape(),
                             {feed}, "index=1"));
  return ctx.SetResults(std::move(results));
}

absl::Status LowerOutfeed(OpContext& ctx, absl::string_view) {
  if (ctx.num_operands() < 1)
    return ctx.Error("expected the values and a token");
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands());
  Value token = ops.back();
  ops.pop_back();
  std::vector<Shape> shapes;
  for (const Value& v : ops) shapes.push_back(v.shape);
  Value tuple = ctx.Emit("tuple", ShapeUtil::MakeTupleShape(shapes), ops);
  std::string attrs;
  if (const MAttr* c = ctx.Attr({"outfeed_config"})) {
    if (!c->s.empty()) {
      attrs = absl::StrCat("outfeed_config=\"", Escape(c->s), "\"");
    }
  }
  return ctx.SetResults({ctx.Emit("outfeed", ShapeUtil::MakeTokenShape(),
                                  {tuple, token}, attrs)});
}

// stablehlo.send / stablehlo.recv: HLO's send + send-done and recv +
// recv-done with the channel's id (channel_handle's handle),
// is_host_transfer, and the replica pairs (StableHLO's
// source_target_pairs) as XLA's frontend attribute
// _xla_send_recv_source_target_pairs. One value per send or recv.
namespace {

absl::StatusOr<std::string> ChannelAttrs(OpContext& ctx) {
  const MAttr* ch = ctx.Attr({"channel_handle"});
  const MAttr* h = ch != nullptr ? ch->Field("handle") : nullptr;
  if (h == nullptr || h->kind != MAttr::Kind::kInt) {
    return ctx.Error("missing channel_handle");
  }
  std::string attrs = absl::StrCat("channel_id=", h->i);
  PLEXA_ASSIGN_OR_RETURN(bool host, ctx.Bool({"is_host_transfer"}, false));
  if (host) absl::StrAppend(&attrs, ", is_host_transfer=true");
  return attrs;
}

absl::StatusOr<std::string> ChannelPairs(OpContext& ctx) {
  const MAttr* pairs = ctx.Attr({"source_target_pairs"});
  if (pairs == nullptr) return std::string();
  PLEXA_ASSIGN_OR_RETURN(std::vector<std::vector<int64_t>> m,
                         ctx.IntMatrix(*pairs));
  std::vector<std::string> parts;
  for (const auto& p : m) parts.push_back(BraceList(p));
  return absl::StrCat(", frontend_attributes={", kSendRecvPairsAttribute,
                      "=\"{", absl::StrJoin(parts, ","), "}\"}");
}

}  // namespace

absl::Status LowerSend(OpContext& ctx, absl::string_view) {
  if (ctx.num_operands() != 2) {
    return ctx.Unimplemented(
        "a send of other than one value and a token (HLO's send takes one "
        "array)");
  }
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands());
  PLEXA_ASSIGN_OR_RETURN(std::string attrs, ChannelAttrs(ctx));
  PLEXA_ASSIGN_OR_RETURN(std::string pairs, ChannelPairs(ctx));
  const Shape token = ShapeUtil::MakeTokenShape();
  Value send = ctx.Emit(
      "send",
      ShapeUtil::MakeTupleShape(
          {ops[0].shape, ShapeUtil::MakeShape(PrimitiveType::U32, {}), token}),
      ops, absl::StrCat(attrs, pairs));
  return ctx.SetResults({ctx.Emit("send-done", token, {send}, attrs)});
}

absl::Status LowerRecv(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(1));
  if (ctx.num_results() != 2) {
    return ctx.Unimplemented(
        "a recv of other than one value and a token (HLO's recv receives "
        "one array)");
  }
  PLEXA_ASSIGN_OR_RETURN(Value token_in, ctx.Operand(0));
  PLEXA_ASSIGN_OR_RETURN(Shape data, ctx.ResultType(0));
  PLEXA_ASSIGN_OR_RETURN(std::string attrs, ChannelAttrs(ctx));
  PLEXA_ASSIGN_OR_RETURN(std::string pairs, ChannelPairs(ctx));
  const Shape token = ShapeUtil::MakeTokenShape();
  Value recv =
      ctx.Emit("recv",
               ShapeUtil::MakeTupleShape(
                   {data, ShapeUtil::MakeShape(PrimitiveType::U32, {}), token}),
               {token_in}, absl::StrCat(attrs, pairs));
  Value done = ctx.Emit("recv-done", ShapeUtil::MakeTupleShape({data, token}),
                        {recv}, attrs);
  return ctx.SetTupleResults(done);
}

}  // namespace plexa::stablehlo
