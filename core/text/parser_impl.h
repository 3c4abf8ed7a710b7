// The HLO text parser's internals, shared by parser.cc (modules,
// computations, instructions, operands), parse_shape.cc (shapes, layouts),
// parse_attributes.cc (instruction and module attributes) and
// parse_literal.cc (constants). Not part of the public API.
//
// Parsing is two-phase: the text is read into plain records (names are
// kept as names), then each computation is built once its body is complete,
// so operands may refer to instructions defined later in the computation and
// instructions may call computations defined later in the module.
#ifndef PLEXA_CORE_TEXT_PARSER_IMPL_H_
#define PLEXA_CORE_TEXT_PARSER_IMPL_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/base/status_macros.h"
#include "core/ir/attribute_table.h"
#include "core/ir/attributes.h"
#include "core/ir/module.h"
#include "core/ir/opcode.h"
#include "core/literal/literal.h"
#include "core/shape/shape.h"
#include "core/text/lexer.h"

namespace plexa::text_internal {

// Nesting limit for tuples, nested operands, literals and layouts' P(...):
// deeper input is an error, never a stack overflow.
inline constexpr int kMaxNestingDepth = 64;

// Constants larger than this (after layout padding and tiling) are refused
// rather than allocated.
inline constexpr int64_t kMaxConstantBytes = int64_t{256} << 20;

struct NameRef {
  std::string name;
  size_t loc = 0;
};

struct OperandRef {
  std::string name;
  size_t loc = 0;
  int nested = -1;  // index of a nested (anonymous) instruction, or -1
};

// Called computations by role (to_apply=, condition=, ...), as written;
// assembled into InstrRecord::called in the order Instruction::
// called_computations() documents. A role's names (one, or a list).
using CalledSlots = std::vector<std::pair<AttrId, std::vector<NameRef>>>;

struct InstrRecord {
  std::string name;
  size_t name_loc = 0;
  size_t opcode_loc = 0;
  bool anonymous = false;  // nested operand instruction: named when built
  HloOpcode opcode = HloOpcode::kAdd;
  Shape shape;
  // Written without a shape (`ROOT add = add(a, b)`): inferred once the
  // module is built, as XLA does.
  bool shape_omitted = false;
  // A broadcast written without dimensions=: only a scalar operand may be.
  bool broadcast_dimensions_omitted = false;
  std::vector<OperandRef> operands;
  InstructionAttrs attrs;
  std::vector<NameRef> called;
  std::vector<OperandRef> control_predecessors;
  // XLA's sugar for an async wrapper: `<op>-start(...)` with <op>'s
  // attributes (`custom-call-start`, `fusion-start`, ...). The record holds
  // the wrapped op; the instruction built is an async-start whose wrapped
  // computation is made once the module's computations exist.
  std::optional<HloOpcode> async_wrapped;
};

struct ComputationRecord {
  std::string name;
  size_t name_loc = 0;
  bool is_entry = false;
  std::optional<Shape> declared_result;
  size_t declared_result_loc = 0;
  // A deque: records are appended without moving the earlier ones.
  std::deque<InstrRecord> instructions;
  absl::flat_hash_map<std::string, int> by_name;
  int root = -1;
};

// An instruction whose called computations are resolved once every
// computation of the module is known.
struct PendingCalls {
  Instruction* instruction;
  std::vector<NameRef> called;
  // Sugar async-start (InstrRecord::async_wrapped): `called` belong to the
  // wrapped instruction, built with these into a computation of its own.
  std::optional<HloOpcode> async_wrapped;
  InstructionAttrs wrapped_attrs;
  Shape wrapped_shape;
};

class Parser {
 public:
  explicit Parser(absl::string_view text) : lexer_(text) {}

  // Entry points (parser.cc). Each requires the whole text to be consumed.
  absl::StatusOr<std::unique_ptr<Module>> ParseModule();
  absl::StatusOr<Shape> ParseStandaloneShape();
  absl::StatusOr<Layout> ParseStandaloneLayout();
  absl::StatusOr<Literal> ParseStandaloneLiteral(const Shape& shape);

  // ---- Errors and tokens (parser.cc) ----
  // "LINE:COL: expected <expected>, found <found>".
  absl::Status ErrorAt(size_t offset, absl::string_view expected,
                       absl::string_view found);
  // At the next token, describing it as what was found. A lexing error at
  // that point is reported instead.
  absl::Status ErrorHere(absl::string_view expected);
  std::string Describe(const Token& token) const;
  absl::Status Expect(TokKind kind, absl::string_view expected);
  bool TakeIf(TokKind kind);
  bool PeekIsIdent(absl::string_view word);
  absl::Status ExpectEnd();

  absl::StatusOr<int64_t> ParseInt64(absl::string_view what);
  absl::StatusOr<int64_t> ParseNonNegativeInt64(absl::string_view what);
  absl::StatusOr<std::vector<int64_t>> ParseBracedInt64List(
      absl::string_view what);
  absl::StatusOr<bool> ParseBool(absl::string_view what);
  absl::StatusOr<std::string> ParseString(absl::string_view what);
  absl::StatusOr<NameRef> ParseNameRef(absl::string_view what);

  // ---- Shapes and layouts (parse_shape.cc) ----
  bool AtShapeStart();
  absl::StatusOr<Shape> ParseShape();
  absl::StatusOr<Layout> ParseLayout(int64_t rank, bool check_rank);
  // entry_computation_layout={(f32[2]{0}, s32[])->f32[2]{0}}
  absl::StatusOr<ProgramShape> ParseComputationLayout();
  // (f32[2]{0}, s32[])->f32[2]{0}
  absl::StatusOr<ProgramShape> ParseProgramShape();
  absl::StatusOr<ProgramShape> ParseStandaloneProgramShape();

  // ---- Attributes (parse_attributes.cc) ----
  // Parses one `name=value` of an instruction (the ',' before it consumed).
  absl::Status ParseInstructionAttribute(
      InstrRecord* rec, CalledSlots* slots,
      absl::flat_hash_set<std::string>* seen);
  // The value of one attribute, of the kind its InstructionAttrs field
  // holds (parse_attributes.cc).
  template <typename T>
  absl::Status ParseAttributeValue(absl::string_view name, T* out);
  // After all attributes: required ones present, called computations in
  // role order.
  absl::Status FinishAttributes(InstrRecord* rec, const CalledSlots& slots,
                                const absl::flat_hash_set<std::string>& seen);
  // A value kept verbatim: a balanced {...}/[...]/(...) group, a string or a
  // token, possibly several on one line (literal=f32[] 1). Whitespace runs
  // are collapsed to one space and comments dropped, so printing is
  // canonical.
  absl::StatusOr<std::string> ParseOpaqueValue(absl::string_view attr_name);
  // Consumes one token, or one balanced bracketed group with its contents.
  absl::Status ConsumeAtom();

  // ---- Literals (parse_literal.cc) ----
  absl::StatusOr<Literal> ParseLiteral(const Shape& shape);

  Lexer& lexer() { return lexer_; }

  // Depth guard for recursive productions.
  class DepthGuard {
   public:
    explicit DepthGuard(Parser* p) : p_(p) { ++p_->depth_; }
    ~DepthGuard() { --p_->depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;
    bool exceeded() const { return p_->depth_ > kMaxNestingDepth; }

   private:
    Parser* p_;
  };
  absl::Status DepthError();

 private:
  // parser.cc
  absl::Status ParseModuleHeader(std::unique_ptr<Module>* module,
                                 bool* has_header);
  absl::Status SkipStackFrameIndex();
  absl::Status ParseComputation(ComputationRecord* comp);
  absl::Status ParseInstruction(ComputationRecord* comp);
  absl::Status ParseInstructionRest(ComputationRecord* comp, InstrRecord* rec,
                                    bool allow_attributes);
  absl::Status ParseOperands(ComputationRecord* comp, InstrRecord* rec);
  absl::StatusOr<std::unique_ptr<Computation>> BuildComputation(
      ComputationRecord* comp, std::vector<PendingCalls>* pending);
  // Infers the shapes written without one (callees first, operands before
  // users) and checks the signatures that named such a root.
  absl::Status InferOmittedShapes(Module* module);

  // parse_literal.cc
  absl::StatusOr<Literal> ParseArrayLiteral(const Shape& shape);
  absl::Status CheckConstantShape(const Shape& shape, size_t loc);

  Lexer lexer_;
  int depth_ = 0;
  // Instructions written without a shape, with their opcode's offset.
  absl::flat_hash_map<const Instruction*, size_t> omitted_;
  // Computations whose declared result names a root written without a
  // shape: checked after inference.
  struct DeferredResultCheck {
    Computation* computation;
    Shape declared;
    size_t loc;
  };
  std::vector<DeferredResultCheck> deferred_result_checks_;
};

// ---- Structured attribute values (parse_values.cc) ----
// Each reads the value after `name=`.

// {size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=1x1 rhs_dilate=1x1
//  rhs_reversal=0x0}; fields in any order, size required if any is given.
absl::StatusOr<Window> ParseWindowValue(Parser* p);
// b01f_01io->b01f (also 1-D bf0_io0->bf0, 3-D, and '?' for unused).
absl::StatusOr<ConvolutionDimensionNumbers> ParseDimLabelsValue(Parser* p);
// 0_1_0x2_-1_1: low_high[_interior] per dimension; empty for rank 0.
absl::StatusOr<PaddingConfig> ParsePaddingValue(Parser* p);
// {[0:2:1], [1:3]}
absl::StatusOr<std::vector<SliceDimension>> ParseSliceValue(Parser* p);
// {{0,1},{2,3}} or the iota form [2,2]<=[4] / [2,2]<=[2,2]T(1,0), expanded.
absl::StatusOr<std::vector<std::vector<int64_t>>> ParseReplicaGroupsValue(
    Parser* p);
// {{0,1},{1,0}}: (source, target) pairs; {} for none.
absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>>
ParseSourceTargetPairsValue(Parser* p);
// A number (or inf/nan) that must be finite in f32 when spelled finite.
absl::StatusOr<float> ParseFloat32Value(Parser* p, absl::string_view what);
// {%a, b, ...}
absl::StatusOr<std::vector<NameRef>> ParseNameList(Parser* p,
                                                   absl::string_view what);
// "..." (unescaped) or a JSON dictionary {...} kept exactly as written.
absl::StatusOr<std::string> ParseBackendConfigValue(Parser* p);

}  // namespace plexa::text_internal

#endif  // PLEXA_CORE_TEXT_PARSER_IMPL_H_
