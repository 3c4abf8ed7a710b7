// Modules, computations, instructions and operands of the HLO text format,
// and the public entry points of hlo_parser.h.
//
//   module      ::= ('HloModule' name (',' attribute)*)? stack_frames?
//                   computation+
//   computation ::= 'ENTRY'? name ('(' (name ':' shape),* ')' '->' shape)?
//                   '{' instruction+ '}' (',' 'execution_thread=' string)?
//   instruction ::= 'ROOT'? name '=' shape opcode
//                   ( '(' int ')'            parameter
//                   | '(' literal ')'        constant
//                   | '(' operand,* ')' )    everything else
//                   (',' attribute)*
//   operand     ::= shape? name | shape opcode '(' operand,* ')'   (nested)
#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "core/infer/shape_inference.h"
#include "core/shape/layout_util.h"
#include "core/text/hlo_parser.h"
#include "core/text/parser_impl.h"

namespace plexa {
namespace text_internal {
namespace {

bool IsNameToken(const Token& t) {
  return t.kind == TokKind::kIdent || t.kind == TokKind::kName;
}

std::string Quoted(absl::string_view s) { return absl::StrCat("'", s, "'"); }

}  // namespace

// ---------------------------------------------------------------------------
// Errors and tokens
// ---------------------------------------------------------------------------

absl::Status Parser::ErrorAt(size_t offset, absl::string_view expected,
                             absl::string_view found) {
  const auto [line, col] = lexer_.LineCol(offset);
  return absl::InvalidArgumentError(
      absl::StrCat(line, ":", col, ": expected ", expected, ", found ", found));
}

absl::Status Parser::ErrorHere(absl::string_view expected) {
  const Token& t = lexer_.Peek();
  if (t.kind == TokKind::kError) {
    return ErrorAt(t.begin, t.error_expected, t.error_found);
  }
  return ErrorAt(t.begin, expected, Describe(t));
}

absl::Status Parser::DepthError() {
  return ErrorHere(
      absl::StrCat("nesting at most ", kMaxNestingDepth, " levels deep"));
}

std::string Parser::Describe(const Token& t) const {
  switch (t.kind) {
    case TokKind::kEof:
      return "end of input";
    case TokKind::kError:
      return t.error_found;
    default:
      break;
  }
  absl::string_view spelling = lexer_.text().substr(t.begin, t.end - t.begin);
  constexpr size_t kMaxShown = 40;
  if (spelling.size() > kMaxShown) {
    return absl::StrCat("'", spelling.substr(0, kMaxShown), "...'");
  }
  // Show bytes that would garble the message (NUL, control characters) by
  // their code.
  if (t.kind == TokKind::kOther) {
    const unsigned char c = static_cast<unsigned char>(spelling[0]);
    if (c < 0x20 || c >= 0x7f) return absl::StrCat("byte 0x", absl::Hex(c));
  }
  return Quoted(spelling);
}

absl::Status Parser::Expect(TokKind kind, absl::string_view expected) {
  if (lexer_.Peek().kind != kind) return ErrorHere(expected);
  lexer_.Take();
  return absl::OkStatus();
}

bool Parser::TakeIf(TokKind kind) {
  if (lexer_.Peek().kind != kind) return false;
  lexer_.Take();
  return true;
}

bool Parser::PeekIsIdent(absl::string_view word) {
  const Token& t = lexer_.Peek();
  return t.kind == TokKind::kIdent && t.str == word;
}

absl::Status Parser::ExpectEnd() {
  if (lexer_.Peek().kind != TokKind::kEof) return ErrorHere("end of input");
  return absl::OkStatus();
}

absl::StatusOr<int64_t> Parser::ParseInt64(absl::string_view what) {
  const Token& t = lexer_.Peek();
  if (t.kind != TokKind::kInt) return ErrorHere(what);
  const uint64_t limit =
      t.negative ? (uint64_t{1} << 63) : (uint64_t{1} << 63) - 1;
  if (t.overflow || t.magnitude > limit) {
    return ErrorAt(t.begin, absl::StrCat(what, " in the range of s64"),
                   Describe(t));
  }
  const int64_t v = t.negative ? static_cast<int64_t>(0 - t.magnitude)
                               : static_cast<int64_t>(t.magnitude);
  lexer_.Take();
  return v;
}

absl::StatusOr<int64_t> Parser::ParseNonNegativeInt64(absl::string_view what) {
  const Token& t = lexer_.Peek();
  if (t.kind == TokKind::kInt && t.negative && t.magnitude != 0) {
    return ErrorHere(what);
  }
  return ParseInt64(what);
}

absl::StatusOr<std::vector<int64_t>> Parser::ParseBracedInt64List(
    absl::string_view what) {
  PLEXA_RETURN_IF_ERROR(
      Expect(TokKind::kLbrace, absl::StrCat("'{' starting ", what)));
  std::vector<int64_t> out;
  if (TakeIf(TokKind::kRbrace)) return out;
  while (true) {
    PLEXA_ASSIGN_OR_RETURN(int64_t v, ParseInt64("an integer"));
    out.push_back(v);
    if (TakeIf(TokKind::kComma)) continue;
    PLEXA_RETURN_IF_ERROR(
        Expect(TokKind::kRbrace, absl::StrCat("',' or '}' in ", what)));
    return out;
  }
}

absl::StatusOr<bool> Parser::ParseBool(absl::string_view what) {
  if (PeekIsIdent("true")) {
    lexer_.Take();
    return true;
  }
  if (PeekIsIdent("false")) {
    lexer_.Take();
    return false;
  }
  return ErrorHere(what);
}

absl::StatusOr<std::string> Parser::ParseString(absl::string_view what) {
  const Token& t = lexer_.Peek();
  if (t.kind != TokKind::kString) return ErrorHere(what);
  return lexer_.Take().str;
}

absl::StatusOr<NameRef> Parser::ParseNameRef(absl::string_view what) {
  const Token& t = lexer_.Peek();
  if (!IsNameToken(t)) return ErrorHere(what);
  NameRef ref{t.str, t.begin};
  lexer_.Take();
  return ref;
}

// ---------------------------------------------------------------------------
// Module
// ---------------------------------------------------------------------------

absl::Status Parser::ParseModuleHeader(std::unique_ptr<Module>* module,
                                       bool* has_header) {
  *has_header = false;
  if (!PeekIsIdent("HloModule")) return absl::OkStatus();
  // A computation may be called HloModule: `HloModule {` or `HloModule (`.
  const TokKind next = lexer_.PeekNext().kind;
  if (next == TokKind::kLbrace || next == TokKind::kLparen) {
    return absl::OkStatus();
  }
  lexer_.Take();
  *has_header = true;
  PLEXA_ASSIGN_OR_RETURN(NameRef name,
                         ParseNameRef("a module name after HloModule"));
  *module = std::make_unique<Module>(name.name);
  absl::flat_hash_set<std::string> seen;
  while (TakeIf(TokKind::kComma)) {
    const Token& t = lexer_.Peek();
    if (t.kind != TokKind::kIdent) return ErrorHere("a module attribute name");
    const std::string attr = t.str;
    const size_t attr_loc = t.begin;
    lexer_.Take();
    PLEXA_RETURN_IF_ERROR(Expect(
        TokKind::kEqual, absl::StrCat("'=' after attribute ", Quoted(attr))));
    if (!seen.insert(attr).second) {
      return ErrorAt(attr_loc, "each module attribute at most once",
                     absl::StrCat("a second ", Quoted(attr)));
    }
    if (attr == "entry_computation_layout") {
      PLEXA_ASSIGN_OR_RETURN(ProgramShape layout, ParseComputationLayout());
      (*module)->set_entry_computation_layout(std::move(layout));
      continue;
    }
    PLEXA_ASSIGN_OR_RETURN(std::string value, ParseOpaqueValue(attr));
    (*module)->mutable_opaque_attributes()->emplace_back(attr,
                                                         std::move(value));
  }
  return absl::OkStatus();
}

// XLA may print a stack-frame index between the header and the first
// computation (FileNames / FunctionNames / FileLocations / StackFrames).
// It is debug information referenced from metadata; Plexa has no place for
// it, so it is read and dropped.
absl::Status Parser::SkipStackFrameIndex() {
  if (!PeekIsIdent("FileNames")) return absl::OkStatus();
  lexer_.Take();
  while (true) {
    const Token& t = lexer_.Peek();
    if (t.kind == TokKind::kInt || t.kind == TokKind::kString ||
        (t.kind == TokKind::kIdent &&
         (t.str == "FunctionNames" || t.str == "FileLocations" ||
          t.str == "StackFrames"))) {
      lexer_.Take();
      continue;
    }
    if (t.kind == TokKind::kLbrace) {
      PLEXA_RETURN_IF_ERROR(ConsumeAtom());
      continue;
    }
    return absl::OkStatus();
  }
}

absl::StatusOr<std::unique_ptr<Module>> Parser::ParseModule() {
  // A UTF-8 byte order mark (from some editors) is not part of the text.
  if (lexer_.text().substr(0, 3) == "\xEF\xBB\xBF") lexer_.AdvanceTo(3);
  std::unique_ptr<Module> module;
  bool has_header = false;
  PLEXA_RETURN_IF_ERROR(ParseModuleHeader(&module, &has_header));
  PLEXA_RETURN_IF_ERROR(SkipStackFrameIndex());

  std::vector<ComputationRecord> comps;
  absl::flat_hash_map<std::string, int> comp_by_name;
  int entry = -1;
  size_t first_entry_loc = 0;
  do {
    ComputationRecord comp;
    const size_t start = lexer_.Peek().begin;
    PLEXA_RETURN_IF_ERROR(ParseComputation(&comp));
    if (!comp_by_name.emplace(comp.name, static_cast<int>(comps.size()))
             .second) {
      return ErrorAt(comp.name_loc, "a unique computation name",
                     absl::StrCat("a second computation ", Quoted(comp.name)));
    }
    if (comp.is_entry) {
      if (entry >= 0) {
        return ErrorAt(
            start, "one ENTRY computation",
            absl::StrCat("a second ENTRY (the first is at ",
                         lexer_.LineCol(first_entry_loc).first, ":",
                         lexer_.LineCol(first_entry_loc).second, ")"));
      }
      entry = static_cast<int>(comps.size());
      first_entry_loc = start;
    }
    comps.push_back(std::move(comp));
  } while (lexer_.Peek().kind != TokKind::kEof);
  // As XLA: without an ENTRY marker the last computation is the entry.
  if (entry < 0) entry = static_cast<int>(comps.size()) - 1;

  if (!has_header) {
    // As XLA does for a module given without its header.
    module = std::make_unique<Module>(
        absl::StrCat("module_", comps[static_cast<size_t>(entry)].name));
  }

  std::vector<PendingCalls> pending;
  absl::flat_hash_map<std::string, Computation*> built;
  for (size_t i = 0; i < comps.size(); ++i) {
    PLEXA_ASSIGN_OR_RETURN(std::unique_ptr<Computation> c,
                           BuildComputation(&comps[i], &pending));
    Computation* added =
        module->AddComputation(std::move(c), static_cast<int>(i) == entry);
    built[comps[i].name] = added;
    // The records are spent; free them now to bound peak memory.
    std::deque<InstrRecord>().swap(comps[i].instructions);
  }
  for (PendingCalls& p : pending) {
    std::vector<Computation*> called;
    for (const NameRef& ref : p.called) {
      auto it = built.find(ref.name);
      if (it == built.end()) {
        return ErrorAt(ref.loc, "the name of a computation in this module",
                       Quoted(ref.name));
      }
      called.push_back(it->second);
    }
    if (p.async_wrapped.has_value()) {
      // The wrapped computation of a sugar `<op>-start`: one parameter per
      // operand, the <op> as its root (as XLA builds it).
      std::string name = absl::StrCat(p.instruction->name(), ".wrapped");
      for (int k = 1; built.contains(name); ++k) {
        name = absl::StrCat(p.instruction->name(), ".wrapped.", k);
      }
      auto wrapped = std::make_unique<Computation>(name);
      std::vector<Instruction*> params;
      for (int64_t i = 0; i < p.instruction->operand_count(); ++i) {
        InstructionAttrs a;
        a.parameter_number = i;
        auto param = Instruction::Create(
            HloOpcode::kParameter, p.instruction->operand(i)->shape(), {}, a);
        param->set_name(absl::StrCat("param.", i));
        params.push_back(wrapped->AddInstruction(std::move(param)));
      }
      auto root = Instruction::Create(
          *p.async_wrapped, p.wrapped_shape, std::move(params),
          std::move(p.wrapped_attrs), std::move(called));
      root->set_name(p.instruction->name());
      wrapped->set_root_instruction(wrapped->AddInstruction(std::move(root)));
      Computation* added = module->AddComputation(std::move(wrapped), false);
      built[name] = added;
      p.instruction->set_called_computations({added});
      continue;
    }
    p.instruction->set_called_computations(std::move(called));
  }
  if (!omitted_.empty())
    PLEXA_RETURN_IF_ERROR(InferOmittedShapes(module.get()));
  return module;
}

absl::Status Parser::InferOmittedShapes(Module* module) {
  for (Computation* c : module->MakeComputationPostOrder()) {
    for (Instruction* h : c->MakeInstructionPostOrder()) {
      auto it = omitted_.find(h);
      if (it == omitted_.end()) continue;
      absl::StatusOr<Shape> shape =
          shape_inference::InferInstructionShape(*h, /*use_declared=*/false);
      if (!shape.ok()) {
        return ErrorAt(it->second,
                       absl::StrCat("a shape for ", Quoted(h->name()),
                                    " (written without one, it cannot be "
                                    "inferred: ",
                                    shape.status().message(), ")"),
                       HloOpcodeString(h->opcode()));
      }
      LayoutUtil::SetToDefaultLayoutIfEmpty(&*shape);
      *h->mutable_shape() = std::move(*shape);
    }
  }
  for (const DeferredResultCheck& d : deferred_result_checks_) {
    const Instruction* root = d.computation->root_instruction();
    if (!Shape::Equal().IgnoreLayout()(d.declared, root->shape())) {
      return ErrorAt(
          d.loc,
          absl::StrCat("the result shape of the root ", Quoted(root->name()),
                       " (", root->shape().ToString(false), ")"),
          d.declared.ToString(false));
    }
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Computations
// ---------------------------------------------------------------------------

absl::Status Parser::ParseComputation(ComputationRecord* comp) {
  if (PeekIsIdent("ENTRY") && IsNameToken(lexer_.PeekNext())) {
    lexer_.Take();
    comp->is_entry = true;
  }
  PLEXA_ASSIGN_OR_RETURN(
      NameRef name,
      ParseNameRef(comp->is_entry ? "a computation name"
                                  : "a computation name or ENTRY"));
  comp->name = name.name;
  comp->name_loc = name.loc;

  // Optional signature; the parameter list is informational (XLA does not
  // check it either), the result shape must match the root.
  if (TakeIf(TokKind::kLparen)) {
    if (!TakeIf(TokKind::kRparen)) {
      while (true) {
        PLEXA_RETURN_IF_ERROR(ParseNameRef("a parameter name").status());
        PLEXA_RETURN_IF_ERROR(
            Expect(TokKind::kColon, "':' after the parameter name"));
        PLEXA_RETURN_IF_ERROR(ParseShape().status());
        if (TakeIf(TokKind::kComma)) continue;
        PLEXA_RETURN_IF_ERROR(
            Expect(TokKind::kRparen, "',' or ')' in the parameter list"));
        break;
      }
    }
    PLEXA_RETURN_IF_ERROR(
        Expect(TokKind::kArrow, "'->' after the parameter list"));
    comp->declared_result_loc = lexer_.Peek().begin;
    PLEXA_ASSIGN_OR_RETURN(Shape result, ParseShape());
    comp->declared_result = std::move(result);
  }

  PLEXA_RETURN_IF_ERROR(Expect(
      TokKind::kLbrace, absl::StrCat("'{' starting the body of computation ",
                                     Quoted(comp->name))));
  if (lexer_.Peek().kind == TokKind::kRbrace) {
    return ErrorHere("an instruction (a computation is never empty)");
  }
  while (!TakeIf(TokKind::kRbrace)) {
    if (lexer_.Peek().kind == TokKind::kEof) {
      return ErrorHere(
          absl::StrCat("'}' closing computation ", Quoted(comp->name)));
    }
    PLEXA_RETURN_IF_ERROR(ParseInstruction(comp));
  }

  // `, execution_thread="name"` follows computations of other threads. Plexa
  // has one thread of computations; the attribute is read and dropped.
  while (lexer_.Peek().kind == TokKind::kComma &&
         lexer_.PeekNext().kind == TokKind::kIdent &&
         lexer_.PeekNext().str == "execution_thread") {
    lexer_.Take();
    lexer_.Take();
    PLEXA_RETURN_IF_ERROR(
        Expect(TokKind::kEqual, "'=' after execution_thread"));
    PLEXA_RETURN_IF_ERROR(
        ParseString("a quoted execution thread name").status());
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Instructions
// ---------------------------------------------------------------------------

absl::Status Parser::ParseInstruction(ComputationRecord* comp) {
  const size_t start = lexer_.Peek().begin;
  bool is_root = false;
  // ROOT is a marker unless it is itself the name (`ROOT = ...`).
  if (PeekIsIdent("ROOT") && IsNameToken(lexer_.PeekNext())) {
    lexer_.Take();
    is_root = true;
  }
  PLEXA_ASSIGN_OR_RETURN(NameRef name,
                         ParseNameRef(is_root ? "an instruction name"
                                              : "an instruction name or '}'"));
  if (comp->by_name.contains(name.name)) {
    return ErrorAt(name.loc,
                   absl::StrCat("a unique instruction name in computation ",
                                Quoted(comp->name)),
                   absl::StrCat("a second ", Quoted(name.name)));
  }
  if (is_root && comp->root >= 0) {
    return ErrorAt(start, "one ROOT per computation", "a second ROOT");
  }
  PLEXA_RETURN_IF_ERROR(
      Expect(TokKind::kEqual, "'=' after the instruction name"));

  InstrRecord rec;
  rec.name = name.name;
  rec.name_loc = name.loc;
  const Token& next = lexer_.Peek();
  if (next.kind == TokKind::kIdent &&
      lexer_.PeekNext().kind == TokKind::kLparen &&
      StringToHloOpcode(next.str).has_value() && !AtShapeStart()) {
    // `add = add(a, b)`: XLA infers the shape; so do we, once the module
    // is built. A parameter or constant has nothing to infer it from.
    const HloOpcode op = *StringToHloOpcode(next.str);
    if (op == HloOpcode::kParameter || op == HloOpcode::kConstant) {
      return ErrorHere(absl::StrCat("a shape before ", next.str,
                                    " (it cannot be inferred)"));
    }
    rec.shape_omitted = true;
  } else {
    if (!AtShapeStart()) return ErrorHere("a shape");
    PLEXA_ASSIGN_OR_RETURN(rec.shape, ParseShape());
  }
  PLEXA_RETURN_IF_ERROR(
      ParseInstructionRest(comp, &rec, /*allow_attributes=*/true));
  const int index = static_cast<int>(comp->instructions.size());
  comp->by_name[rec.name] = index;
  if (is_root) comp->root = index;
  comp->instructions.push_back(std::move(rec));
  return absl::OkStatus();
}

absl::Status Parser::ParseInstructionRest(ComputationRecord* comp,
                                          InstrRecord* rec,
                                          bool allow_attributes) {
  DepthGuard guard(this);
  if (guard.exceeded()) return DepthError();

  const Token& op = lexer_.Peek();
  std::optional<HloOpcode> opcode;
  if (op.kind == TokKind::kIdent) opcode = StringToHloOpcode(op.str);
  if (!opcode && op.kind == TokKind::kIdent) {
    // XLA's async sugar: `<op>-start`, `<op>-update`, `<op>-done` for the
    // generic async wrapper of <op> (all-reduce-start and the other
    // collective pairs are opcodes of their own, found above).
    absl::string_view name = op.str;
    for (auto [suffix, as] :
         {std::pair{absl::string_view("-start"), HloOpcode::kAsyncStart},
          std::pair{absl::string_view("-update"), HloOpcode::kAsyncUpdate},
          std::pair{absl::string_view("-done"), HloOpcode::kAsyncDone}}) {
      absl::string_view base = name;
      if (!absl::ConsumeSuffix(&base, suffix)) continue;
      std::optional<HloOpcode> wrapped = StringToHloOpcode(base);
      if (!wrapped || *wrapped == HloOpcode::kParameter ||
          *wrapped == HloOpcode::kConstant ||
          *wrapped == HloOpcode::kAsyncStart ||
          *wrapped == HloOpcode::kAsyncUpdate ||
          *wrapped == HloOpcode::kAsyncDone) {
        break;
      }
      if (as == HloOpcode::kAsyncStart) {
        opcode = *wrapped;
        rec->async_wrapped = *wrapped;
      } else {
        opcode = as;
      }
      break;
    }
  }
  if (!opcode) return ErrorHere("an opcode");
  rec->opcode = *opcode;
  rec->opcode_loc = op.begin;
  lexer_.Take();

  switch (rec->opcode) {
    case HloOpcode::kParameter: {
      PLEXA_RETURN_IF_ERROR(
          Expect(TokKind::kLparen, "'(' before the parameter number"));
      PLEXA_ASSIGN_OR_RETURN(
          rec->attrs.parameter_number,
          ParseNonNegativeInt64("a non-negative parameter number"));
      PLEXA_RETURN_IF_ERROR(
          Expect(TokKind::kRparen, "')' after the parameter number"));
      break;
    }
    case HloOpcode::kConstant: {
      PLEXA_RETURN_IF_ERROR(
          Expect(TokKind::kLparen, "'(' before the constant's literal"));
      PLEXA_ASSIGN_OR_RETURN(Literal literal, ParseLiteral(rec->shape));
      rec->attrs.literal = std::make_shared<const Literal>(std::move(literal));
      PLEXA_RETURN_IF_ERROR(
          Expect(TokKind::kRparen, "')' after the constant's literal"));
      break;
    }
    default:
      PLEXA_RETURN_IF_ERROR(ParseOperands(comp, rec));
      break;
  }

  const int arity = HloOpcodeArity(rec->opcode);
  if (arity != kVariadic &&
      static_cast<int64_t>(rec->operands.size()) != arity) {
    return ErrorAt(rec->opcode_loc,
                   absl::StrCat(arity, arity == 1 ? " operand" : " operands",
                                " for ", HloOpcodeString(rec->opcode)),
                   absl::StrCat(rec->operands.size()));
  }

  CalledSlots slots;
  absl::flat_hash_set<std::string> seen;
  // Nested instructions have no attributes: a ',' after them separates the
  // enclosing operand list.
  while (allow_attributes && TakeIf(TokKind::kComma)) {
    PLEXA_RETURN_IF_ERROR(ParseInstructionAttribute(rec, &slots, &seen));
  }
  return FinishAttributes(rec, slots, seen);
}

absl::Status Parser::ParseOperands(ComputationRecord* comp, InstrRecord* rec) {
  PLEXA_RETURN_IF_ERROR(
      Expect(TokKind::kLparen, absl::StrCat("'(' starting the operands of ",
                                            HloOpcodeString(rec->opcode))));
  if (TakeIf(TokKind::kRparen)) return absl::OkStatus();
  while (true) {
    std::optional<Shape> shape;
    if (AtShapeStart()) {
      PLEXA_ASSIGN_OR_RETURN(shape, ParseShape());
    }
    const Token t = lexer_.Peek();
    if (!IsNameToken(t)) return ErrorHere("an operand name");
    if (t.kind == TokKind::kIdent &&
        lexer_.PeekNext().kind == TokKind::kLparen) {
      // Old nested form: add(f32[] sqrt(f32[] %x), f32[] %y).
      if (!shape) return ErrorHere("a shape before the nested instruction");
      InstrRecord nested;
      nested.anonymous = true;
      nested.name_loc = t.begin;
      nested.shape = std::move(*shape);
      PLEXA_RETURN_IF_ERROR(
          ParseInstructionRest(comp, &nested, /*allow_attributes=*/false));
      rec->operands.push_back(
          OperandRef{"", t.begin, static_cast<int>(comp->instructions.size())});
      comp->instructions.push_back(std::move(nested));
    } else {
      lexer_.Take();
      rec->operands.push_back(OperandRef{t.str, t.begin, -1});
    }
    if (TakeIf(TokKind::kComma)) continue;
    return Expect(TokKind::kRparen, "',' or ')' in the operand list");
  }
}

// ---------------------------------------------------------------------------
// Building a computation from its records
// ---------------------------------------------------------------------------

absl::StatusOr<std::unique_ptr<Computation>> Parser::BuildComputation(
    ComputationRecord* comp, std::vector<PendingCalls>* pending) {
  std::deque<InstrRecord>& recs = comp->instructions;
  const size_t n = recs.size();

  // Names for nested instructions, unique among the written ones.
  absl::flat_hash_set<std::string> used;
  for (const InstrRecord& r : recs) {
    if (!r.anonymous) used.insert(r.name);
  }
  for (InstrRecord& r : recs) {
    if (!r.anonymous) continue;
    const std::string base = absl::StrCat(HloOpcodeString(r.opcode), ".anon");
    std::string candidate = base;
    for (int k = 1; used.contains(candidate); ++k) {
      candidate = absl::StrCat(base, ".", k);
    }
    used.insert(candidate);
    r.name = candidate;
  }

  auto lookup = [&](const OperandRef& ref) -> absl::StatusOr<size_t> {
    if (ref.nested >= 0) return static_cast<size_t>(ref.nested);
    auto it = comp->by_name.find(ref.name);
    if (it == comp->by_name.end()) {
      return ErrorAt(ref.loc,
                     absl::StrCat("the name of an instruction in computation ",
                                  Quoted(comp->name)),
                     Quoted(ref.name));
    }
    return static_cast<size_t>(it->second);
  };
  std::vector<std::vector<size_t>> operands(n), preds(n);
  for (size_t i = 0; i < n; ++i) {
    for (const OperandRef& ref : recs[i].operands) {
      PLEXA_ASSIGN_OR_RETURN(size_t j, lookup(ref));
      operands[i].push_back(j);
    }
    if (recs[i].broadcast_dimensions_omitted && operands[i].size() == 1) {
      const InstrRecord& operand = recs[operands[i][0]];
      // A scalar's dimensions are {}; an operand of unknown shape (written
      // without one) is checked by shape inference.
      if (!operand.shape_omitted &&
          !(operand.shape.IsArray() && operand.shape.rank() == 0)) {
        return ErrorAt(recs[i].opcode_loc,
                       "attribute 'dimensions' for broadcast", "none");
      }
    }
    for (const OperandRef& ref : recs[i].control_predecessors) {
      PLEXA_ASSIGN_OR_RETURN(size_t j, lookup(ref));
      preds[i].push_back(j);
    }
  }

  // Parameters numbered 0..k-1, each once.
  int64_t num_params = 0;
  for (const InstrRecord& r : recs) {
    if (r.opcode == HloOpcode::kParameter) ++num_params;
  }
  std::vector<int> param_seen(static_cast<size_t>(num_params), -1);
  for (size_t i = 0; i < n; ++i) {
    if (recs[i].opcode != HloOpcode::kParameter) continue;
    const int64_t number = recs[i].attrs.parameter_number;
    if (number >= num_params) {
      return ErrorAt(recs[i].opcode_loc,
                     absl::StrCat("parameter numbers 0..", num_params - 1,
                                  " in computation ", Quoted(comp->name)),
                     absl::StrCat("parameter(", number, ")"));
    }
    if (param_seen[static_cast<size_t>(number)] >= 0) {
      return ErrorAt(recs[i].opcode_loc, "each parameter number once",
                     absl::StrCat("a second parameter(", number, ")"));
    }
    param_seen[static_cast<size_t>(number)] = static_cast<int>(i);
  }

  // No cycles through operands or control edges (iterative DFS).
  {
    std::vector<uint8_t> state(n, 0);  // 0 new, 1 on stack, 2 done
    for (size_t start = 0; start < n; ++start) {
      if (state[start] != 0) continue;
      std::vector<std::pair<size_t, size_t>> stack{{start, 0}};
      state[start] = 1;
      while (!stack.empty()) {
        auto& [v, next] = stack.back();
        const size_t total = operands[v].size() + preds[v].size();
        if (next == total) {
          state[v] = 2;
          stack.pop_back();
          continue;
        }
        const size_t w = next < operands[v].size()
                             ? operands[v][next]
                             : preds[v][next - operands[v].size()];
        ++next;
        if (state[w] == 1) {
          return ErrorAt(
              recs[w].name_loc, "instructions without cyclic dependencies",
              absl::StrCat("a cycle through ", Quoted(recs[w].name)));
        }
        if (state[w] == 0) {
          state[w] = 1;
          stack.push_back({w, 0});
        }
      }
    }
  }

  // As XLA: without a ROOT marker the last instruction is the root. Nested
  // instructions come before their user, so the last record is never one.
  const size_t root = comp->root >= 0 ? static_cast<size_t>(comp->root) : n - 1;
  const bool check_result_now =
      comp->declared_result && !recs[root].shape_omitted;
  if (check_result_now && !Shape::Equal().IgnoreLayout()(*comp->declared_result,
                                                         recs[root].shape)) {
    return ErrorAt(
        comp->declared_result_loc,
        absl::StrCat("the result shape of the root ", Quoted(recs[root].name),
                     " (", recs[root].shape.ToString(false), ")"),
        comp->declared_result->ToString(false));
  }

  auto computation = std::make_unique<Computation>(comp->name);
  std::vector<Instruction*> ptrs(n);
  std::vector<std::optional<PendingCalls>> sugar(n);
  for (size_t i = 0; i < n; ++i) {
    if (recs[i].async_wrapped.has_value()) {
      // `<op>-start`: an async-start of shape ((operands), result, ...);
      // the wrapped <op> (its attributes, result element 1) is built into
      // its own computation once every computation exists.
      const Shape& s = recs[i].shape;
      if (!s.IsTuple() || s.tuple_shapes_size() < 2) {
        return ErrorAt(
            recs[i].opcode_loc,
            absl::StrCat("a shape ((operands), result, ...) for ",
                         HloOpcodeString(*recs[i].async_wrapped), "-start"),
            s.ToString());
      }
      PendingCalls p;
      p.async_wrapped = recs[i].async_wrapped;
      p.wrapped_attrs = std::move(recs[i].attrs);
      p.wrapped_shape = s.tuple_shapes(1);
      p.called = std::move(recs[i].called);
      recs[i].called.clear();
      recs[i].opcode = HloOpcode::kAsyncStart;
      recs[i].attrs = InstructionAttrs();
      // async_execution_thread="..." is the start's, not the wrapped op's.
      auto& opaque = p.wrapped_attrs.opaque;
      for (auto it = opaque.begin(); it != opaque.end(); ++it) {
        if (it->first != "async_execution_thread") continue;
        absl::string_view v = it->second;
        if (v.size() >= 2 && v.front() == '"' && v.back() == '"') {
          v = v.substr(1, v.size() - 2);
        }
        recs[i].attrs.async_execution_thread = std::string(v);
        opaque.erase(it);
        break;
      }
      sugar[i] = std::move(p);
    }
    auto inst = Instruction::Create(recs[i].opcode, std::move(recs[i].shape),
                                    {}, std::move(recs[i].attrs));
    inst->set_name(recs[i].name);
    ptrs[i] = computation->AddInstruction(std::move(inst));
    if (recs[i].shape_omitted) omitted_[ptrs[i]] = recs[i].opcode_loc;
  }
  if (comp->declared_result && !check_result_now) {
    deferred_result_checks_.push_back(DeferredResultCheck{
        computation.get(), *comp->declared_result, comp->declared_result_loc});
  }
  for (size_t i = 0; i < n; ++i) {
    for (size_t j : operands[i]) ptrs[i]->AppendOperand(ptrs[j]);
    for (size_t j : preds[i]) ptrs[j]->AddControlDependencyTo(ptrs[i]);
    if (sugar[i].has_value()) {
      sugar[i]->instruction = ptrs[i];
      pending->push_back(std::move(*sugar[i]));
    } else if (!recs[i].called.empty()) {
      PendingCalls p;
      p.instruction = ptrs[i];
      p.called = std::move(recs[i].called);
      pending->push_back(std::move(p));
    }
  }
  computation->set_root_instruction(ptrs[root]);
  return computation;
}

// ---------------------------------------------------------------------------
// Standalone entry points
// ---------------------------------------------------------------------------

absl::StatusOr<Shape> Parser::ParseStandaloneShape() {
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ParseShape());
  PLEXA_RETURN_IF_ERROR(ExpectEnd());
  return shape;
}

absl::StatusOr<ProgramShape> Parser::ParseStandaloneProgramShape() {
  PLEXA_ASSIGN_OR_RETURN(ProgramShape shape, ParseProgramShape());
  PLEXA_RETURN_IF_ERROR(ExpectEnd());
  return shape;
}

absl::StatusOr<Layout> Parser::ParseStandaloneLayout() {
  PLEXA_ASSIGN_OR_RETURN(Layout layout,
                         ParseLayout(/*rank=*/0, /*check_rank=*/false));
  PLEXA_RETURN_IF_ERROR(ExpectEnd());
  return layout;
}

absl::StatusOr<Literal> Parser::ParseStandaloneLiteral(const Shape& shape) {
  PLEXA_ASSIGN_OR_RETURN(Literal literal, ParseLiteral(shape));
  PLEXA_RETURN_IF_ERROR(ExpectEnd());
  return literal;
}

}  // namespace text_internal

absl::StatusOr<std::unique_ptr<Module>> ParseHloModule(absl::string_view text) {
  text_internal::Parser parser(text);
  return parser.ParseModule();
}

absl::StatusOr<Shape> ParseShape(absl::string_view text) {
  text_internal::Parser parser(text);
  return parser.ParseStandaloneShape();
}

absl::StatusOr<ProgramShape> ParseProgramShape(absl::string_view text) {
  text_internal::Parser parser(text);
  return parser.ParseStandaloneProgramShape();
}

absl::StatusOr<Layout> ParseLayout(absl::string_view text) {
  text_internal::Parser parser(text);
  return parser.ParseStandaloneLayout();
}

absl::StatusOr<Literal> ParseLiteral(absl::string_view text,
                                     const Shape& shape) {
  text_internal::Parser parser(text);
  return parser.ParseStandaloneLiteral(shape);
}

}  // namespace plexa
