// Lowering of the MLIR syntax tree (mlir_ast.h) to Plexa's HLO text: the
// functions become computations, regions become called computations, and
// each operation is written by its entry in the op table (op_table.h) as
// one or more HLO instructions. The text is then read by Plexa's own HLO
// parser (core/text), so literals, attributes and shape inference are the
// ones every `.hlo` file gets; each written line remembers the MLIR
// location it came from, and errors from the HLO parser and the verifier
// are reported at that location.
//
// Internal to core/stablehlo.
#ifndef PLEXA_CORE_STABLEHLO_LOWER_H_
#define PLEXA_CORE_STABLEHLO_LOWER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/shape/shape.h"
#include "core/stablehlo/mlir_ast.h"

namespace plexa::stablehlo {

// An HLO value: an instruction's name (without '%') and its shape.
struct Value {
  std::string name;
  Shape shape;
};

// One HLO computation being written.
struct Comp {
  struct Line {
    std::string text;  // without the ROOT marker
    std::string defines;
    SrcLoc loc;
    std::string op;  // the MLIR op it came from
  };
  std::string name;
  std::vector<Line> lines;
  std::string root;
  absl::flat_hash_set<std::string> names;

  std::string FreshName(absl::string_view hint);
};

// Values a region uses from an enclosing scope (while, if, case): they
// travel in the region's tuple parameter after its own arguments.
struct CaptureList {
  std::vector<std::string> outer_names;  // MLIR names
  std::vector<Value> outer_values;       // resolved in the enclosing scope
};

class Lowering;

// Name resolution for one region or function body.
struct Scope {
  Scope* parent = nullptr;
  Comp* comp = nullptr;
  absl::flat_hash_map<std::string, Value> values;
  CaptureList* captures = nullptr;  // null: the region may not capture
  std::string capture_param;        // the tuple parameter holding them
  int64_t capture_base = 0;         // tuple index of the first capture
  absl::string_view region_of;      // op name, for errors
};

// What a handler sees of one operation.
class OpContext {
 public:
  OpContext(Lowering* lowering, Scope* scope, const MOp& op)
      : lowering_(lowering), scope_(scope), op_(op) {}

  const MOp& op() const { return op_; }
  Scope* scope() { return scope_; }
  Lowering* lowering() { return lowering_; }

  // "LINE:COL: 'stablehlo.foo': msg" as InvalidArgument / Unimplemented.
  absl::Status Error(absl::string_view msg) const;
  absl::Status Unimplemented(absl::string_view msg) const;

  int64_t num_operands() const {
    return static_cast<int64_t>(op_.operands.size());
  }
  absl::StatusOr<Value> Operand(int64_t i);
  absl::StatusOr<std::vector<Value>> Operands(int64_t from = 0,
                                              int64_t count = -1);
  absl::Status ExpectOperands(int64_t n) const;
  int64_t num_results() const {
    return static_cast<int64_t>(op_.results.size());
  }
  // The i-th result type from the signature.
  absl::StatusOr<Shape> ResultType(int64_t i = 0) const;
  // All result types as one shape: the type itself for one result, a tuple
  // for several.
  absl::StatusOr<Shape> ResultShape() const;

  // The attribute under any of `names` (generic and pretty spellings).
  const MAttr* Attr(std::initializer_list<absl::string_view> names) const;
  absl::StatusOr<std::vector<int64_t>> Ints(
      std::initializer_list<absl::string_view> names, bool required) const;
  absl::StatusOr<std::vector<int64_t>> IntsOf(const MAttr& a) const;
  absl::StatusOr<std::optional<int64_t>> Int(
      std::initializer_list<absl::string_view> names) const;
  absl::StatusOr<bool> Bool(std::initializer_list<absl::string_view> names,
                            bool default_value) const;
  // An enum: #stablehlo<kind VALUE>, a bare VALUE or "VALUE"; or the n-th
  // bare keyword of the pretty form when absent.
  std::optional<std::string> Enum(
      std::initializer_list<absl::string_view> names,
      int positional_index = -1) const;
  // dense<[[a, b], ...]> : tensor<Nx2xi64> as N pairs (padding, pairs).
  absl::StatusOr<std::vector<std::vector<int64_t>>> IntMatrix(
      const MAttr& a) const;

  // Writes `%name = SHAPE hlo_op(operands), attrs` and returns the value.
  Value Emit(absl::string_view hlo_op, const Shape& shape,
             absl::Span<const Value> operands, absl::string_view attrs = "");
  Value EmitConstant(const Shape& shape, absl::string_view literal);
  // A scalar constant broadcast to `shape` (its element type).
  Value Splat(const Shape& shape, absl::string_view literal);
  // broadcast(v) with dimensions = the trailing ones (numpy rules), or
  // `dims` when given.
  absl::StatusOr<Value> BroadcastTo(
      const Value& v, const Shape& shape,
      std::optional<std::vector<int64_t>> dims = std::nullopt);
  // Gives a tuple-valued instruction's elements as the op's results.
  absl::Status SetTupleResults(const Value& tuple);
  absl::Status SetResults(std::vector<Value> values);
  // The values of operand i when it is an integer constant the importer
  // wrote in this computation (the shape operands of the dynamic ops);
  // nullopt otherwise.
  absl::StatusOr<std::optional<std::vector<int64_t>>> ConstantOperand(
      int64_t i);
  // A region whose block arguments are scalars (reduce, sort, scatter,
  // map, ...) as a computation with one parameter per argument; returns
  // its name.
  absl::StatusOr<std::string> ScalarRegion(int64_t index);
  // A computation applying `hlo_op` to two scalars of `type` (pretty
  // reduce's `applies`).
  std::string BinaryComputation(absl::string_view hlo_op,
                                const std::vector<Shape>& types);

 private:
  Lowering* lowering_;
  Scope* scope_;
  const MOp& op_;
};

using OpHandler = absl::Status (*)(OpContext& ctx, absl::string_view hlo_op);

// One entry of the op table.
struct OpMapping {
  absl::string_view mlir_name;  // "stablehlo.add", "chlo.erf"
  OpHandler handler;
  absl::string_view hlo_op;  // what the handler emits, where it is one op
};

// The op table (op_table.cc); nullptr for an op it does not list.
const OpMapping* FindOpMapping(absl::string_view mlir_name);
absl::Span<const OpMapping> AllOpMappings();

class Lowering {
 public:
  explicit Lowering(const MModule& module) : module_(module) {}

  // The whole module as HLO text; `line_origin[k]` is the MLIR line of
  // HLO line k+1 (0 for lines with no origin), for error mapping.
  absl::StatusOr<std::string> Run();
  const std::vector<const Comp::Line*>& line_origin() const {
    return line_origin_;
  }

  // Resolves an MLIR value in `scope`, capturing it through enclosing
  // regions where they allow it.
  absl::StatusOr<Value> Lookup(Scope* scope, const MValueRef& ref);
  // Lowers the ops of `region` into `scope` and returns the values its
  // terminator returns.
  absl::StatusOr<std::vector<Value>> LowerBody(Scope* scope,
                                               const MRegion& region);
  Comp* NewComp(absl::string_view hint);
  // Writes a line into `comp`.
  Value EmitIn(Comp* comp, const SrcLoc& loc, absl::string_view op,
               absl::string_view hlo_op, const Shape& shape,
               absl::Span<const Value> operands, absl::string_view attrs,
               absl::string_view hint = "");
  // The computation of function @name (lowered on first use).
  absl::StatusOr<Comp*> FunctionComp(absl::string_view name, SrcLoc use);
  const MFunc* FindFunc(absl::string_view name) const;
  // Integer constants by (computation, HLO name), for ConstantOperand.
  absl::flat_hash_map<std::pair<const Comp*, std::string>,
                      std::vector<int64_t>>&
  integer_constants() {
    return integer_constants_;
  }

 private:
  absl::StatusOr<Comp*> LowerFunction(const MFunc& func);
  absl::Status LowerOp(Scope* scope, const MOp& op);

  const MModule& module_;
  std::vector<std::unique_ptr<Comp>> comps_;
  absl::flat_hash_set<std::string> comp_names_;
  absl::flat_hash_map<std::string, Comp*> func_comps_;
  absl::flat_hash_set<std::string> in_progress_;
  std::vector<const Comp::Line*> line_origin_;
  absl::flat_hash_map<std::pair<const Comp*, std::string>, std::vector<int64_t>>
      integer_constants_;
  SrcLoc current_loc_;
  std::string current_op_;
};

// "f32[2,3]" (no layout).
std::string ShapeText(const Shape& shape);
// "{1,2,3}"
std::string BraceList(absl::Span<const int64_t> v);

// dense<...> of `type` as the literal text of an HLO constant, or, for a
// splat of more than one element, the scalar's literal (`*splat` set).
absl::StatusOr<std::string> DenseToLiteral(const MAttr& dense,
                                           const Shape& type, bool* splat);
// A scalar attribute value (1.5, 0x7FC00000, true) as an HLO literal of
// `type`.
absl::StatusOr<std::string> ScalarToLiteral(const MAttr& value,
                                            PrimitiveType type);

}  // namespace plexa::stablehlo

#endif  // PLEXA_CORE_STABLEHLO_LOWER_H_
