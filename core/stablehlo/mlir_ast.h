// The syntax tree the MLIR text reader (mlir_reader.h) produces: modules,
// functions, regions, operations and attribute values, with their source
// locations. It knows nothing of StableHLO's semantics; the op table
// (op_table.h) gives operations their meaning.
#ifndef PLEXA_CORE_STABLEHLO_MLIR_AST_H_
#define PLEXA_CORE_STABLEHLO_MLIR_AST_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/shape/shape.h"

namespace plexa::stablehlo {

struct SrcLoc {
  int line = 0;
  int col = 0;
};

// One attribute value. Which members hold it depends on `kind`.
struct MAttr {
  enum class Kind {
    kInt,     // 3, -1, 0x7F (i)
    kFloat,   // 1.5, 1e-3 (f)
    kBool,    // true, false (b)
    kString,  // "text", unescaped (s)
    kIdent,   // a bare keyword: LT, FLOAT, DEFAULT, b, e5m10 (s)
    kEnum,    // #stablehlo<comparison_direction LT>: s = "LT", name = kind
    kArray,   // [a, b], array<i64: 1, 2> (items)
    kCross,   // [0] x [0] (items: 2) or [b,0,f]x[0,i,o]->[b,0,f] (items: 3)
    kDict,    // {a = 1, b} (fields; a unit field holds kUnit)
    kStruct,  // #stablehlo.gather<...>: name = "gather", fields, items
    kDense,   // dense<...>: raw = the text between the brackets; type
    kSymbol,  // @name (s)
    kUnit,    // a dictionary entry without a value
    kType,    // a type used as a value (type)
    kFunctionType,  // (a, b) -> c (fn_inputs, fn_results)
    kOpaque,        // anything else the reader skipped (#sdy.sharding<...>)
  };
  Kind kind = Kind::kUnit;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  std::string s;
  std::string name;
  std::vector<std::shared_ptr<MAttr>> items;
  std::vector<std::pair<std::string, std::shared_ptr<MAttr>>> fields;
  std::optional<Shape> type;  // `: type` after a literal; a dense's type
  std::vector<Shape> fn_inputs;
  std::vector<Shape> fn_results;
  std::string raw;  // the source text of the whole value
  SrcLoc loc;

  // The field `key` of a dictionary or struct; null if absent.
  const MAttr* Field(absl::string_view key) const;
};
using MAttrPtr = std::shared_ptr<MAttr>;

struct MRegion;

// A use of a value: "%0", "%arg1", "%5#1".
struct MValueRef {
  std::string name;
  SrcLoc loc;
};

struct MBlockArg {
  std::string name;
  Shape type;
  SrcLoc loc;
};

struct MOp {
  std::string name;  // "stablehlo.add", "func.return", "return"
  SrcLoc loc;
  bool generic = false;  // written "stablehlo.add"(...)
  // The names its results are known by ("%0", or "%0#0", "%0#1" for
  // `%0:2 = ...`), in order.
  std::vector<std::string> results;
  std::vector<MValueRef> operands;
  // Named attributes: properties <{...}>, the dictionary {...} and the
  // pretty form's `key = value` items, in text order.
  std::vector<std::pair<std::string, MAttrPtr>> attrs;
  // The pretty form's bare items (LT, FLOAT, dense<...>, "name", @callee)
  // and bracketed suffixes ([0:2, 1:3] or [1]) in text order.
  std::vector<MAttrPtr> positional;
  // `applies stablehlo.add` in a pretty reduce.
  std::string applies;
  // Pretty `(%iterArg = %c, ...)` (while): the names the regions know the
  // operands by.
  std::vector<std::string> iter_args;
  std::vector<std::unique_ptr<MRegion>> regions;
  // Types after the colon: a function type `(a, b) -> c` fills both;
  // a bare list fills result_types only (has_function_type false).
  std::vector<Shape> operand_types;
  std::vector<Shape> result_types;
  bool has_function_type = false;

  const MAttr* Attr(absl::string_view key) const;
};

struct MRegion {
  std::vector<MBlockArg> args;
  std::vector<MOp> ops;
  SrcLoc loc;
};

struct MFunc {
  std::string name;
  bool is_public = true;
  std::vector<MBlockArg> args;
  std::vector<Shape> result_types;
  std::unique_ptr<MRegion> body;
  SrcLoc loc;
};

struct MModule {
  std::string name;
  std::vector<std::pair<std::string, MAttrPtr>> attrs;
  std::vector<MFunc> funcs;
};

}  // namespace plexa::stablehlo

#endif  // PLEXA_CORE_STABLEHLO_MLIR_AST_H_
