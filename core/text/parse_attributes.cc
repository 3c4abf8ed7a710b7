// Instruction attributes: `, name=value` after the operands.
//
// Which attributes each opcode interprets, which are required and which
// InstructionAttrs field each fills come from the attribute table
// (core/ir/attribute_table.h); this file holds the text readers of the
// kinds of values. backend_config and control-predecessors are read for
// every opcode. Anything else (metadata,
// sharding, frontend_attributes, statistics, operand_precision, an attribute
// of an opcode that does not use it, a name Plexa has never heard of) is kept
// verbatim in InstructionAttrs::opaque and printed back unchanged.
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/ir/attribute_table.h"
#include "core/ir/sparse_dot.h"
#include "core/text/parser_impl.h"

namespace plexa::text_internal {
namespace {

std::string Quoted(absl::string_view s) { return absl::StrCat("'", s, "'"); }

template <typename E>
absl::StatusOr<E> ParseEnumValue(Parser* p, absl::string_view what,
                                 std::optional<E> (*from)(absl::string_view),
                                 bool upper, bool lower) {
  const Token& t = p->lexer().Peek();
  if (t.kind != TokKind::kIdent) return p->ErrorHere(what);
  std::string s = t.str;
  if (upper) absl::AsciiStrToUpper(&s);
  if (lower) absl::AsciiStrToLower(&s);
  std::optional<E> e = from(s);
  if (!e) return p->ErrorHere(what);
  p->lexer().Take();
  return *e;
}

}  // namespace

// One reader per kind of value; the attribute table says which field an
// attribute fills, so attributes of one kind share a reader. A kind with no
// reader here does not compile.
template <typename T>
absl::Status Parser::ParseAttributeValue(absl::string_view name, T* out) {
  if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
    PLEXA_ASSIGN_OR_RETURN(*out, ParseBracedInt64List(Quoted(name)));
  } else if constexpr (std::is_same_v<T, int64_t>) {
    PLEXA_ASSIGN_OR_RETURN(*out, ParseInt64("an integer"));
  } else if constexpr (std::is_same_v<T, int32_t>) {
    const size_t vloc = lexer_.Peek().begin;
    PLEXA_ASSIGN_OR_RETURN(int64_t v, ParseInt64("an integer"));
    if (v < std::numeric_limits<int32_t>::min() ||
        v > std::numeric_limits<int32_t>::max()) {
      return ErrorAt(vloc, "an integer in the range of s32", absl::StrCat(v));
    }
    *out = static_cast<int32_t>(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    PLEXA_ASSIGN_OR_RETURN(*out, ParseBool("true or false"));
  } else if constexpr (std::is_same_v<T, float>) {
    PLEXA_ASSIGN_OR_RETURN(*out, ParseFloat32Value(this, "a number"));
  } else if constexpr (std::is_same_v<T, std::string>) {
    PLEXA_ASSIGN_OR_RETURN(*out, ParseString(absl::StrCat("a quoted ", name)));
  } else if constexpr (std::is_same_v<T, Window>) {
    PLEXA_ASSIGN_OR_RETURN(*out, ParseWindowValue(this));
  } else if constexpr (std::is_same_v<T, ConvolutionDimensionNumbers>) {
    PLEXA_ASSIGN_OR_RETURN(*out, ParseDimLabelsValue(this));
  } else if constexpr (std::is_same_v<T, PaddingConfig>) {
    PLEXA_ASSIGN_OR_RETURN(*out, ParsePaddingValue(this));
  } else if constexpr (std::is_same_v<T, std::vector<SliceDimension>>) {
    PLEXA_ASSIGN_OR_RETURN(*out, ParseSliceValue(this));
  } else if constexpr (std::is_same_v<T, std::vector<std::vector<int64_t>>>) {
    PLEXA_ASSIGN_OR_RETURN(*out, ParseReplicaGroupsValue(this));
  } else if constexpr (std::is_same_v<
                           T, std::vector<std::pair<int64_t, int64_t>>>) {
    PLEXA_ASSIGN_OR_RETURN(*out, ParseSourceTargetPairsValue(this));
  } else if constexpr (std::is_same_v<T, std::vector<SparsityDescriptor>>) {
    // L.1@2:4_R.0@2:4 (core/ir/sparse_dot.h)
    const size_t loc = lexer_.Peek().begin;
    absl::string_view raw = lexer_.TakeRaw([](char c, size_t) {
      return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '.' ||
             c == '@' || c == ':' || c == '_' || c == '-';
    });
    absl::StatusOr<std::vector<SparsityDescriptor>> s =
        sparse_dot::ParseSparsity(raw);
    if (!s.ok()) {
      return ErrorAt(loc, "sparsity like L.1@2:4 or L.1@2:4_R.0@2:4",
                     Quoted(raw));
    }
    *out = *std::move(s);
  } else if constexpr (std::is_same_v<T, Shape>) {
    PLEXA_ASSIGN_OR_RETURN(*out, ParseShape());
  } else if constexpr (std::is_same_v<T, std::vector<Shape>>) {
    PLEXA_RETURN_IF_ERROR(
        Expect(TokKind::kLbrace, absl::StrCat("'{' starting ", name)));
    if (TakeIf(TokKind::kRbrace)) return absl::OkStatus();
    while (true) {
      PLEXA_ASSIGN_OR_RETURN(Shape s, ParseShape());
      out->push_back(std::move(s));
      if (TakeIf(TokKind::kComma)) continue;
      return Expect(TokKind::kRbrace, absl::StrCat("',' or '}' in ", name));
    }
  } else if constexpr (std::is_same_v<T, ComparisonDirection>) {
    PLEXA_ASSIGN_OR_RETURN(
        *out, ParseEnumValue<ComparisonDirection>(
                  this, "a comparison direction (EQ, NE, GE, GT, LE, LT)",
                  &StringToComparisonDirection, /*upper=*/false,
                  /*lower=*/false));
  } else if constexpr (std::is_same_v<T, ComparisonType>) {
    PLEXA_ASSIGN_OR_RETURN(
        *out,
        ParseEnumValue<ComparisonType>(
            this, "a comparison type (FLOAT, TOTALORDER, SIGNED, UNSIGNED)",
            &StringToComparisonType, /*upper=*/false, /*lower=*/false));
  } else if constexpr (std::is_same_v<T, RandomDistribution>) {
    PLEXA_ASSIGN_OR_RETURN(*out,
                           ParseEnumValue<RandomDistribution>(
                               this, "a distribution (rng_uniform, rng_normal)",
                               &StringToRandomDistribution, /*upper=*/false,
                               /*lower=*/true));
  } else if constexpr (std::is_same_v<T, RandomAlgorithm>) {
    PLEXA_ASSIGN_OR_RETURN(
        *out,
        ParseEnumValue<RandomAlgorithm>(
            this, "an rng algorithm (rng_default, rng_three_fry, rng_philox)",
            &StringToRandomAlgorithm, /*upper=*/false, /*lower=*/true));
  } else if constexpr (std::is_same_v<T, CustomCallApiVersion>) {
    PLEXA_ASSIGN_OR_RETURN(
        *out, ParseEnumValue<CustomCallApiVersion>(
                  this, "an API version such as API_VERSION_STATUS_RETURNING",
                  &StringToCustomCallApiVersion, /*upper=*/true,
                  /*lower=*/false));
  } else if constexpr (std::is_same_v<T, FusionKind>) {
    PLEXA_ASSIGN_OR_RETURN(
        *out, ParseEnumValue<FusionKind>(
                  this, "a fusion kind (kLoop, kInput, kOutput, kCustom)",
                  &StringToFusionKind, /*upper=*/false, /*lower=*/false));
  } else if constexpr (std::is_same_v<T, TriangularSolveTranspose>) {
    PLEXA_ASSIGN_OR_RETURN(
        *out, ParseEnumValue<TriangularSolveTranspose>(
                  this, "NO_TRANSPOSE, TRANSPOSE or ADJOINT",
                  &StringToTriangularSolveTranspose, /*upper=*/true,
                  /*lower=*/false));
  } else if constexpr (std::is_same_v<T, FftType>) {
    // XLA spells them upper case (FftType_Name); read in any case, as the
    // other enums are.
    PLEXA_ASSIGN_OR_RETURN(
        *out,
        ParseEnumValue<FftType>(this, "an fft type (FFT, IFFT, RFFT, IRFFT)",
                                &StringToFftType, /*upper=*/true,
                                /*lower=*/false));
  } else if constexpr (std::is_same_v<T, ShuffleMode>) {
    PLEXA_ASSIGN_OR_RETURN(
        *out, ParseEnumValue<ShuffleMode>(
                  this, "a shuffle mode (rotate, permute, multi_rotate)",
                  &StringToShuffleMode, /*upper=*/false, /*lower=*/true));
  } else if constexpr (std::is_same_v<T, std::shared_ptr<const Literal>>) {
    // A typed literal, as XLA prints one: s32[4]{0} {3, 1, 0, 2}.
    PLEXA_ASSIGN_OR_RETURN(Shape shape, ParseShape());
    PLEXA_ASSIGN_OR_RETURN(Literal literal, ParseLiteral(shape));
    *out = std::make_shared<const Literal>(std::move(literal));
  } else if constexpr (std::is_same_v<T, const CalledComputationAttr>) {
    // Called computations are read above, by name.
    return absl::InternalError(
        absl::StrCat("attribute ", Quoted(name), " has no value reader"));
  } else {
    static_assert(sizeof(T) == 0, "a kind of attribute value with no reader");
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseInstructionAttribute(
    InstrRecord* rec, CalledSlots* slots,
    absl::flat_hash_set<std::string>* seen) {
  const Token& t = lexer_.Peek();
  if (t.kind != TokKind::kIdent) return ErrorHere("an attribute name");
  const std::string name = t.str;
  const size_t loc = t.begin;
  lexer_.Take();
  PLEXA_RETURN_IF_ERROR(Expect(
      TokKind::kEqual, absl::StrCat("'=' after attribute ", Quoted(name))));
  if (!seen->insert(name).second) {
    return ErrorAt(loc, "each attribute at most once",
                   absl::StrCat("a second ", Quoted(name)));
  }
  InstructionAttrs& a = rec->attrs;
  if (name == "backend_config") {
    PLEXA_ASSIGN_OR_RETURN(a.backend_config, ParseBackendConfigValue(this));
    return absl::OkStatus();
  }
  if (name == "control-predecessors") {
    PLEXA_ASSIGN_OR_RETURN(std::vector<NameRef> preds,
                           ParseNameList(this, "control-predecessors"));
    for (NameRef& r : preds) {
      rec->control_predecessors.push_back(
          OperandRef{std::move(r.name), r.loc, -1});
    }
    return absl::OkStatus();
  }
  const AttrSpec* spec = FindAttribute(rec->opcode, name);
  if (spec == nullptr) {
    PLEXA_ASSIGN_OR_RETURN(std::string value, ParseOpaqueValue(name));
    a.opaque.emplace_back(name, std::move(value));
    return absl::OkStatus();
  }
  if (IsCalledComputation(spec->id)) {
    std::vector<NameRef> names;
    if (IsCalledComputationList(spec->id)) {
      PLEXA_ASSIGN_OR_RETURN(names, ParseNameList(this, spec->name));
    } else {
      PLEXA_ASSIGN_OR_RETURN(NameRef r, ParseNameRef("a computation name"));
      names.push_back(std::move(r));
    }
    slots->emplace_back(spec->id, std::move(names));
    return absl::OkStatus();
  }
  return VisitAttr(a, spec->id, [&](auto* value) {
    return ParseAttributeValue(name, value);
  });
}

absl::Status Parser::FinishAttributes(
    InstrRecord* rec, const CalledSlots& slots,
    const absl::flat_hash_set<std::string>& seen) {
  const absl::string_view op = HloOpcodeString(rec->opcode);
  for (const AttrSpec& spec : AttributesOf(rec->opcode)) {
    // As XLA: a broadcast of a scalar may leave out dimensions={} (checked
    // once the operand's shape is known, in BuildComputation).
    if (rec->opcode == HloOpcode::kBroadcast &&
        spec.id == AttrId::kDimensions && !seen.contains(spec.name)) {
      rec->broadcast_dimensions_omitted = true;
      continue;
    }
    if (spec.required && !seen.contains(spec.name)) {
      return ErrorAt(rec->opcode_loc,
                     absl::StrCat("attribute ", Quoted(spec.name), " for ", op),
                     "none");
    }
  }
  // domain={kind="sharding", entry={...}, exit={...}} is kept verbatim
  // (Plexa runs one device: a domain is the identity), but XLA's parser
  // requires it, and so does ours.
  if (rec->opcode == HloOpcode::kDomain && !seen.contains("domain")) {
    return ErrorAt(rec->opcode_loc, "attribute 'domain' for domain", "none");
  }
  auto given = [&](AttrId id) -> const std::vector<NameRef>* {
    for (const auto& [role, names] : slots) {
      if (role == id) return &names;
    }
    return nullptr;
  };
  // Two opcodes take one of two forms, which required-ness cannot say.
  if (rec->opcode == HloOpcode::kConditional) {
    const std::vector<NameRef>* on_true = given(AttrId::kTrueComputation);
    const std::vector<NameRef>* on_false = given(AttrId::kFalseComputation);
    const std::vector<NameRef>* branches = given(AttrId::kBranchComputations);
    const bool pred_form = on_true != nullptr || on_false != nullptr;
    if (pred_form && branches != nullptr) {
      return ErrorAt(rec->opcode_loc,
                     "either branch_computations or true_computation/"
                     "false_computation for conditional",
                     "both");
    }
    if (pred_form && (on_true == nullptr || on_false == nullptr)) {
      return ErrorAt(rec->opcode_loc,
                     "both true_computation and false_computation for "
                     "conditional",
                     "only one");
    }
    if (!pred_form && (branches == nullptr || branches->empty())) {
      return ErrorAt(rec->opcode_loc,
                     "attribute 'branch_computations' (or true_computation "
                     "and false_computation) for conditional",
                     "none");
    }
  }
  if (rec->opcode == HloOpcode::kCustomCall &&
      given(AttrId::kToApply) != nullptr &&
      given(AttrId::kCalledComputations) != nullptr) {
    return ErrorAt(rec->opcode_loc,
                   "either to_apply or called_computations for custom-call",
                   "both");
  }
  // The table's order is the order Instruction::called_computations()
  // documents (while: condition, body; select-and-scatter: select,
  // scatter).
  for (const AttrSpec& spec : AttributesOf(rec->opcode)) {
    if (const std::vector<NameRef>* names = given(spec.id)) {
      rec->called.insert(rec->called.end(), names->begin(), names->end());
    }
  }
  return absl::OkStatus();
}

}  // namespace plexa::text_internal
