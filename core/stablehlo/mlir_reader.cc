#include "core/stablehlo/mlir_reader.h"

#include <cctype>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"
#include "core/shape/shape_util.h"
#include "core/stablehlo/mlir_reader_impl.h"

namespace plexa::stablehlo {

const MAttr* MAttr::Field(absl::string_view key) const {
  for (const auto& [k, v] : fields) {
    if (k == key) return v.get();
  }
  return nullptr;
}

const MAttr* MOp::Attr(absl::string_view key) const {
  for (const auto& [k, v] : attrs) {
    if (k == key) return v.get();
  }
  return nullptr;
}

namespace reader_internal {

absl::Status Reader::BlockArgs(std::vector<MBlockArg>* args) {
  PLEXA_RETURN_IF_ERROR(Expect('('));
  if (TryChar(')')) return absl::OkStatus();
  do {
    MBlockArg arg;
    Skip();
    arg.loc = Here();
    PLEXA_ASSIGN_OR_RETURN(arg.name, ValueName(false));
    PLEXA_RETURN_IF_ERROR(Expect(':'));
    PLEXA_ASSIGN_OR_RETURN(arg.type, Type());
    // Argument attributes: {mhlo.layout_mode = "default", ...}.
    if (PeekIsChar('{')) PLEXA_RETURN_IF_ERROR(SkipBalanced());
    PLEXA_RETURN_IF_ERROR(SkipLoc());
    args->push_back(std::move(arg));
  } while (TryChar(','));
  return Expect(')');
}

// After the opening '{' when braces_open; reads up to and including '}'.
absl::Status Reader::Region(MRegion* region, bool braces_open) {
  PLEXA_RETURN_IF_ERROR(Enter());
  DepthGuard guard(&depth_);
  Skip();
  region->loc = Here();
  if (!braces_open) PLEXA_RETURN_IF_ERROR(Expect('{'));
  Skip();
  if (Peek() == '^') {
    // ^bb0(%a: tensor<f32>, ...):
    ++pos_;
    while (!AtEnd() && IsIdentChar(Peek())) ++pos_;
    if (PeekIsChar('(')) PLEXA_RETURN_IF_ERROR(BlockArgs(&region->args));
    PLEXA_RETURN_IF_ERROR(Expect(':'));
  }
  while (!TryChar('}')) {
    Skip();
    if (AtEnd()) return Error("expected '}' to close the region");
    if (Peek() == '^')
      return Error("regions with several blocks are not supported");
    PLEXA_ASSIGN_OR_RETURN(MOp op, Op());
    region->ops.push_back(std::move(op));
  }
  return absl::OkStatus();
}

absl::Status Reader::TypeSignature(MOp* op) {
  // After ':'. `(a, b) -> c`, `(a) -> (b, c)`, `() -> t` or `t1, t2`.
  Skip();
  if (Peek() == '(') {
    PLEXA_ASSIGN_OR_RETURN(op->operand_types, TypeListInParens());
    PLEXA_RETURN_IF_ERROR(Expect('-'));
    PLEXA_RETURN_IF_ERROR(Expect('>'));
    op->has_function_type = true;
    if (PeekIsChar('(')) {
      PLEXA_ASSIGN_OR_RETURN(op->result_types, TypeListInParens());
    } else {
      PLEXA_ASSIGN_OR_RETURN(Shape t, Type());
      op->result_types.push_back(std::move(t));
    }
    return absl::OkStatus();
  }
  do {
    PLEXA_ASSIGN_OR_RETURN(Shape t, Type());
    op->result_types.push_back(std::move(t));
  } while (TryChar(','));
  if (TryStr("->")) {
    // `tensor<16xf32> -> (tensor<3xf32>, tensor<3xi32>)` (chlo.top_k).
    op->operand_types = std::move(op->result_types);
    op->result_types.clear();
    op->has_function_type = true;
    if (PeekIsChar('(')) {
      PLEXA_ASSIGN_OR_RETURN(op->result_types, TypeListInParens());
    } else {
      PLEXA_ASSIGN_OR_RETURN(Shape t, Type());
      op->result_types.push_back(std::move(t));
    }
  }
  return absl::OkStatus();
}

absl::Status Reader::GenericOpBody(MOp* op) {
  PLEXA_RETURN_IF_ERROR(Expect('('));
  if (!TryChar(')')) {
    do {
      Skip();
      SrcLoc loc = Here();
      PLEXA_ASSIGN_OR_RETURN(std::string v, ValueName(true));
      op->operands.push_back({std::move(v), loc});
    } while (TryChar(','));
    PLEXA_RETURN_IF_ERROR(Expect(')'));
  }
  if (TryStr("<{")) {
    PLEXA_RETURN_IF_ERROR(Dict(&op->attrs, '}'));
    PLEXA_RETURN_IF_ERROR(Expect('>'));
  }
  if (PeekIsChar('(')) {
    ++pos_;
    do {
      auto region = std::make_unique<MRegion>();
      PLEXA_RETURN_IF_ERROR(Region(region.get(), false));
      op->regions.push_back(std::move(region));
    } while (TryChar(','));
    PLEXA_RETURN_IF_ERROR(Expect(')'));
  }
  if (TryChar('{')) PLEXA_RETURN_IF_ERROR(Dict(&op->attrs, '}'));
  PLEXA_RETURN_IF_ERROR(Expect(':'));
  PLEXA_RETURN_IF_ERROR(TypeSignature(op));
  return SkipLoc();
}

absl::Status Reader::PrettyOpBody(MOp* op) {
  // Items until ':' (the type), '}' (end of the region) or the next op.
  while (true) {
    Skip();
    if (AtEnd()) return Error("unexpected end of input in an operation");
    char c = Peek();
    SrcLoc loc = Here();
    if (c == ':' && Peek(1) != ':') {
      ++pos_;
      PLEXA_RETURN_IF_ERROR(TypeSignature(op));
      break;
    }
    if (c == '}') return absl::OkStatus();
    if (c == ',') {
      ++pos_;
      continue;
    }
    if (c == '-' && Peek(1) == '>') {
      // `stablehlo.if %p -> (tensor<f32>) { ... } else { ... }`: the result
      // types, then an unlabelled first region.
      pos_ += 2;
      op->has_function_type = true;
      if (PeekIsChar('(')) {
        PLEXA_ASSIGN_OR_RETURN(op->result_types, TypeListInParens());
      } else {
        PLEXA_ASSIGN_OR_RETURN(Shape t, Type());
        op->result_types.push_back(std::move(t));
      }
      if (PeekIsChar('{')) {
        auto region = std::make_unique<MRegion>();
        PLEXA_RETURN_IF_ERROR(Region(region.get(), false));
        op->regions.push_back(std::move(region));
      }
      break;
    }
    if (c == '%') {
      // The next op (`%1 = ...`, `%0:2 = ...`) ends this one.
      size_t save = pos_;
      PLEXA_ASSIGN_OR_RETURN(std::string v, ValueName(true));
      Skip();
      if (Peek() == '=' ||
          (Peek() == ':' &&
           std::isdigit(static_cast<unsigned char>(Peek(1))))) {
        pos_ = save;
        return absl::OkStatus();
      }
      op->operands.push_back({std::move(v), loc});
      continue;
    }
    if (c == '(') {
      // (%a, %b) operands; (%x init: %y) reduce; (%it = %c) while.
      ++pos_;
      if (TryChar(')')) continue;
      do {
        Skip();
        SrcLoc vloc = Here();
        if (Peek() != '%') {
          // `k = 3` among the operands (chlo.top_k(%x, k = 3)).
          PLEXA_ASSIGN_OR_RETURN(std::string key, Ident());
          PLEXA_RETURN_IF_ERROR(Expect('='));
          PLEXA_ASSIGN_OR_RETURN(MAttrPtr value, AttrValue());
          op->attrs.emplace_back(std::move(key), std::move(value));
          continue;
        }
        PLEXA_ASSIGN_OR_RETURN(std::string v, ValueName(true));
        if (TryChar('=')) {
          op->iter_args.push_back(v);
          Skip();
          vloc = Here();
          PLEXA_ASSIGN_OR_RETURN(v, ValueName(true));
          op->operands.push_back({std::move(v), vloc});
        } else if (TryKeyword("init")) {
          PLEXA_RETURN_IF_ERROR(Expect(':'));
          op->operands.push_back({std::move(v), vloc});
          Skip();
          vloc = Here();
          PLEXA_ASSIGN_OR_RETURN(std::string init, ValueName(true));
          // Inits follow all inputs: kept apart, appended below.
          auto init_attr = std::make_shared<MAttr>();
          init_attr->kind = MAttr::Kind::kString;
          init_attr->s = init;
          init_attr->loc = vloc;
          op->attrs.emplace_back("__init", std::move(init_attr));
        } else {
          op->operands.push_back({std::move(v), vloc});
        }
      } while (TryChar(','));
      PLEXA_RETURN_IF_ERROR(Expect(')'));
      continue;
    }
    if (c == '<' && Peek(1) == '{') {
      pos_ += 2;
      PLEXA_RETURN_IF_ERROR(Dict(&op->attrs, '}'));
      PLEXA_RETURN_IF_ERROR(Expect('>'));
      continue;
    }
    if (c == '{') {
      ++pos_;
      PLEXA_RETURN_IF_ERROR(Dict(&op->attrs, '}'));
      continue;
    }
    if (c == '<') {
      // A bare dialect attribute (sdy.sharding_constraint %x <@mesh, [..]>).
      auto a = std::make_shared<MAttr>();
      a->kind = MAttr::Kind::kOpaque;
      a->loc = loc;
      PLEXA_RETURN_IF_ERROR(SkipBalanced());
      op->positional.push_back(std::move(a));
      continue;
    }
    if (c == '[') {
      // A suffix: slice ranges [0:2, 1:3:1] or an index [1].
      ++pos_;
      auto a = std::make_shared<MAttr>();
      a->kind = MAttr::Kind::kArray;
      a->loc = loc;
      if (!TryChar(']')) {
        do {
          auto range = std::make_shared<MAttr>();
          range->kind = MAttr::Kind::kArray;
          range->loc = Here();
          do {
            PLEXA_ASSIGN_OR_RETURN(MAttrPtr n, Number());
            if (n->kind != MAttr::Kind::kInt) {
              return ErrorAt(n->loc, "expected an integer");
            }
            range->items.push_back(std::move(n));
          } while (TryChar(':'));
          a->items.push_back(std::move(range));
        } while (TryChar(','));
        PLEXA_RETURN_IF_ERROR(Expect(']'));
      }
      op->positional.push_back(std::move(a));
      continue;
    }
    if (c == '@' || c == '"' || c == '#' || c == '-' ||
        std::isdigit(static_cast<unsigned char>(c))) {
      PLEXA_ASSIGN_OR_RETURN(MAttrPtr a, AttrValue());
      op->positional.push_back(std::move(a));
      continue;
    }
    absl::string_view id = PeekIdent();
    if (id.empty()) return Error("unexpected text in an operation");
    if (id == "loc" && Peek(3) == '(') {
      PLEXA_RETURN_IF_ERROR(SkipLoc());
      continue;
    }
    if (id == "applies") {
      pos_ += id.size();
      PLEXA_ASSIGN_OR_RETURN(op->applies, Ident());
      continue;
    }
    if (id == "across") {
      pos_ += id.size();
      continue;
    }
    size_t save = pos_;
    pos_ += id.size();
    if (TryChar('=')) {
      PLEXA_ASSIGN_OR_RETURN(MAttrPtr v, AttrValue());
      op->attrs.emplace_back(std::string(id), std::move(v));
      continue;
    }
    pos_ = save;
    if (id == "dense" || id == "array" || id == "true" || id == "false") {
      PLEXA_ASSIGN_OR_RETURN(MAttrPtr a, AttrValue());
      op->positional.push_back(std::move(a));
      continue;
    }
    // A keyword (LT, FLOAT), unless it starts the next op.
    if (id.find('.') != absl::string_view::npos || id == "return" ||
        id == "call") {
      return absl::OkStatus();
    }
    pos_ += id.size();
    auto a = std::make_shared<MAttr>();
    a->kind = MAttr::Kind::kIdent;
    a->s = std::string(id);
    a->loc = loc;
    op->positional.push_back(std::move(a));
  }
  // Labelled regions after the type: cond {..} do {..}, reducer(..) {..},
  // and a bare `{` region (if/else as `stablehlo.if ... { } else { }`).
  while (true) {
    PLEXA_RETURN_IF_ERROR(SkipLoc());
    Skip();
    absl::string_view id = PeekIdent();
    size_t after = pos_ + id.size();
    while (after < text_.size() &&
           (text_[after] == ' ' || text_[after] == '\n' ||
            text_[after] == '\t' || text_[after] == '\r')) {
      ++after;
    }
    const bool label = !id.empty() && id.find('.') == absl::string_view::npos &&
                       id != "return" && id != "call" && id != "loc" &&
                       after < text_.size() &&
                       (text_[after] == '{' || text_[after] == '(');
    if (!label) break;
    pos_ += id.size();
    auto region = std::make_unique<MRegion>();
    // reducer(%a: t, %c: t) (%b: t, %d: t): one group per input, each
    // (accumulator, value); the block takes all accumulators first.
    std::vector<std::vector<MBlockArg>> groups;
    while (PeekIsChar('(')) {
      groups.emplace_back();
      PLEXA_RETURN_IF_ERROR(BlockArgs(&groups.back()));
    }
    for (int k = 0; k < 2; ++k) {
      for (const auto& g : groups) {
        if (static_cast<int>(g.size()) > k) region->args.push_back(g[k]);
      }
    }
    for (const auto& g : groups) {
      for (size_t k = 2; k < g.size(); ++k) region->args.push_back(g[k]);
    }
    std::vector<MBlockArg> args = std::move(region->args);
    PLEXA_RETURN_IF_ERROR(Region(region.get(), false));
    if (region->args.empty()) region->args = std::move(args);
    op->regions.push_back(std::move(region));
  }
  return absl::OkStatus();
}

absl::StatusOr<MOp> Reader::Op() {
  PLEXA_RETURN_IF_ERROR(Enter());
  DepthGuard guard(&depth_);
  MOp op;
  Skip();
  op.loc = Here();
  // Results: %0 = , %0:2 = , %a, %b = .
  if (Peek() == '%') {
    do {
      PLEXA_ASSIGN_OR_RETURN(std::string r, ValueName(false));
      if (TryChar(':')) {
        PLEXA_ASSIGN_OR_RETURN(MAttrPtr n, Number());
        if (n->kind != MAttr::Kind::kInt || n->i < 1 || n->i > 4096) {
          return ErrorAt(n->loc, "expected a result count");
        }
        for (int64_t k = 0; k < n->i; ++k) {
          op.results.push_back(absl::StrCat(r, "#", k));
        }
      } else {
        op.results.push_back(std::move(r));
      }
    } while (TryChar(','));
    PLEXA_RETURN_IF_ERROR(Expect('='));
    Skip();
    op.loc = Here();
  }
  if (Peek() == '"') {
    PLEXA_ASSIGN_OR_RETURN(op.name, QuotedString());
    op.generic = true;
    PLEXA_RETURN_IF_ERROR(GenericOpBody(&op));
    return op;
  }
  PLEXA_ASSIGN_OR_RETURN(op.name, Ident());
  if (op.name == "call" || op.name == "func.call") {
    // call @f(%a, %b) : (...) -> ...
    auto callee = std::make_shared<MAttr>();
    callee->kind = MAttr::Kind::kSymbol;
    callee->loc = Here();
    PLEXA_ASSIGN_OR_RETURN(callee->s, SymbolName());
    op.positional.push_back(std::move(callee));
  }
  PLEXA_RETURN_IF_ERROR(PrettyOpBody(&op));
  return op;
}

absl::Status Reader::Func(MModule* module) {
  MFunc f;
  Skip();
  f.loc = Here();
  if (TryKeyword("public")) {
    f.is_public = true;
  } else if (TryKeyword("private") || TryKeyword("nested")) {
    f.is_public = false;
  }
  PLEXA_ASSIGN_OR_RETURN(f.name, SymbolName());
  PLEXA_RETURN_IF_ERROR(BlockArgs(&f.args));
  if (TryStr("->")) {
    if (PeekIsChar('(')) {
      PLEXA_ASSIGN_OR_RETURN(f.result_types, TypeListInParens());
    } else {
      PLEXA_ASSIGN_OR_RETURN(Shape t, Type());
      f.result_types.push_back(std::move(t));
    }
  }
  if (TryKeyword("attributes")) {
    if (!PeekIsChar('{')) return Error("expected '{' after 'attributes'");
    PLEXA_RETURN_IF_ERROR(SkipBalanced());
  }
  Skip();
  if (Peek() != '{') {
    return Error(absl::StrCat("expected the body of function @", f.name,
                              " (external functions are not supported)"));
  }
  f.body = std::make_unique<MRegion>();
  PLEXA_RETURN_IF_ERROR(Region(f.body.get(), false));
  f.body->args = f.args;
  PLEXA_RETURN_IF_ERROR(SkipLoc());
  module->funcs.push_back(std::move(f));
  return absl::OkStatus();
}

absl::Status Reader::ModuleBody(MModule* module, bool braced) {
  while (true) {
    Skip();
    if (AtEnd()) {
      if (braced) return Error("expected '}' to close the module");
      return absl::OkStatus();
    }
    if (braced && TryChar('}')) return absl::OkStatus();
    if (Peek() == '#') {
      // #loc1 = loc(...) and other aliases: to the end of the definition.
      ++pos_;
      while (!AtEnd() && IsIdentChar(Peek())) ++pos_;
      PLEXA_RETURN_IF_ERROR(Expect('='));
      PLEXA_RETURN_IF_ERROR(AttrValue().status());
      continue;
    }
    if (Peek() == '"') {
      // The generic form of the module and its functions
      // (`"builtin.module"() ({ "func.func"() <{...}> ({...}) : () -> () })`).
      PLEXA_RETURN_IF_ERROR(GenericContainer(module));
      continue;
    }
    absl::string_view id = PeekIdent();
    if (id == "func.func" || id == "func") {
      pos_ += id.size();
      PLEXA_RETURN_IF_ERROR(Func(module));
      continue;
    }
    if (id == "sdy.mesh") {
      // sdy.mesh @mesh = <...>: device meshes, not needed to run.
      pos_ += id.size();
      PLEXA_RETURN_IF_ERROR(SymbolName().status());
      PLEXA_RETURN_IF_ERROR(Expect('='));
      Skip();
      if (Peek() == '<') PLEXA_RETURN_IF_ERROR(SkipBalanced());
      PLEXA_RETURN_IF_ERROR(SkipLoc());
      continue;
    }
    if (id == "module" && !braced && module->funcs.empty()) {
      pos_ += id.size();
      Skip();
      if (Peek() == '@') {
        PLEXA_ASSIGN_OR_RETURN(module->name, SymbolName());
      }
      if (TryKeyword("attributes")) {
        PLEXA_RETURN_IF_ERROR(Expect('{'));
        PLEXA_RETURN_IF_ERROR(Dict(&module->attrs, '}'));
      }
      PLEXA_RETURN_IF_ERROR(Expect('{'));
      PLEXA_RETURN_IF_ERROR(ModuleBody(module, true));
      PLEXA_RETURN_IF_ERROR(SkipLoc());
      braced = false;
      continue;
    }
    return Error("expected 'func.func' or 'module'");
  }
}

absl::Status Reader::GenericContainer(MModule* module) {
  PLEXA_ASSIGN_OR_RETURN(MOp op, Op());
  if (op.name == "builtin.module") {
    if (const MAttr* n = op.Attr("sym_name")) module->name = n->s;
    if (op.regions.size() != 1) {
      return ErrorAt(op.loc, "'builtin.module' must have one region");
    }
    for (MOp& inner : op.regions[0]->ops) {
      PLEXA_RETURN_IF_ERROR(GenericFunc(std::move(inner), module));
    }
    return absl::OkStatus();
  }
  return GenericFunc(std::move(op), module);
}

absl::Status Reader::GenericFunc(MOp op, MModule* module) {
  if (op.name != "func.func") {
    return ErrorAt(op.loc,
                   absl::StrCat("expected 'func.func', found '", op.name, "'"));
  }
  MFunc f;
  f.loc = op.loc;
  const MAttr* name = op.Attr("sym_name");
  const MAttr* type = op.Attr("function_type");
  if (name == nullptr || type == nullptr ||
      type->kind != MAttr::Kind::kFunctionType || op.regions.size() != 1) {
    return ErrorAt(op.loc,
                   "a generic 'func.func' needs sym_name, function_type and "
                   "a body");
  }
  f.name = name->s;
  if (const MAttr* v = op.Attr("sym_visibility"))
    f.is_public = v->s == "public";
  f.result_types = type->fn_results;
  f.body = std::move(op.regions[0]);
  f.args = f.body->args;
  if (f.args.size() != type->fn_inputs.size()) {
    return ErrorAt(
        op.loc,
        absl::StrCat("@", f.name, " declares ", type->fn_inputs.size(),
                     " argument(s) but its block takes ", f.args.size()));
  }
  module->funcs.push_back(std::move(f));
  return absl::OkStatus();
}

absl::StatusOr<MModule> Reader::Module() {
  MModule module;
  PLEXA_RETURN_IF_ERROR(ModuleBody(&module, false));
  if (module.funcs.empty()) {
    return ErrorAt(Here(), "the module has no function");
  }
  return module;
}

}  // namespace reader_internal

absl::StatusOr<MModule> ReadMlirModule(absl::string_view text) {
  reader_internal::Reader reader(text);
  return reader.Module();
}

absl::StatusOr<Shape> ReadMlirType(absl::string_view text) {
  reader_internal::Reader reader(text);
  return reader.TypeOnly();
}

}  // namespace plexa::stablehlo
