// Shape inference for rng, rng-bit-generator, infeed, outfeed and after-all.
#include "core/infer/infer_util.h"
#include "core/infer/shape_inference.h"

namespace plexa::shape_inference {

using internal::Compatible;
using internal::ExpectArray;
using internal::Invalid;
using internal::IsFloating;
using internal::IsIntegral;
using internal::NoLayout;
using internal::Str;

namespace {

bool ContainsToken(const Shape& s) {
  if (s.IsToken()) return true;
  for (const Shape& t : s.tuple_shapes()) {
    if (ContainsToken(t)) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<Shape> InferRngShape(const Shape& a, const Shape& b,
                                    RandomDistribution distribution,
                                    const Shape& declared) {
  const std::string what =
      absl::StrCat("rng(", Str(a), ", ", Str(b),
                   "), distribution=", RandomDistributionString(distribution),
                   " -> ", Str(declared));
  PLEXA_RETURN_IF_ERROR(ExpectArray(declared, what));
  if (!a.IsScalar() || !b.IsScalar()) {
    return Invalid(what, ": both parameters must be scalars.");
  }
  const PrimitiveType t = declared.element_type();
  if (a.element_type() != t || b.element_type() != t) {
    return Invalid(what,
                   ": the parameters must have the result's element type.");
  }
  for (int64_t d : declared.dimensions()) {
    if (d < 0) return Invalid(what, ": negative result dimension.");
  }
  switch (distribution) {
    case RandomDistribution::kUniform:
      // [a, b) over floats or integers (seed 004: F32, S32, U32, ...).
      if (!IsFloating(t) && !IsIntegral(t)) {
        return Invalid(what,
                       ": rng_uniform needs a floating-point or integral "
                       "element type.");
      }
      break;
    case RandomDistribution::kNormal:
      if (!IsFloating(t)) {
        return Invalid(what,
                       ": rng_normal needs a floating-point element type.");
      }
      break;
    default:
      return Invalid(what, ": unknown distribution.");
  }
  return NoLayout(declared);
}

absl::StatusOr<Shape> InferRngBitGeneratorShape(const Shape& state,
                                                RandomAlgorithm algorithm,
                                                const Shape& declared) {
  const std::string what = absl::StrCat(
      "rng-bit-generator(", Str(state),
      "), algorithm=", RandomAlgorithmString(algorithm), " -> ", Str(declared));
  // The state sizes are what XLA's RngBitGeneratorExpander can lower (and
  // StableHLO's rng_bit_generator constraint C2): key = state[0]; three_fry
  // counts in state[1]; philox's 128-bit counter is state[1] (low) and
  // state[2] (high), or with two elements state[1] (low) and the key (high).
  // rng_default is Philox on Plexa, as on XLA's CPU and GPU backends.
  int64_t min_size = 2;
  int64_t max_size = 2;
  switch (algorithm) {
    case RandomAlgorithm::kThreeFry:
      break;
    case RandomAlgorithm::kPhilox:
    case RandomAlgorithm::kDefault:
      max_size = 3;
      break;
    default:
      return Invalid(what, ": unknown algorithm.");
  }
  if (!state.IsArray() || state.element_type() != PrimitiveType::U64 ||
      state.rank() != 1 || state.dimensions(0) < min_size ||
      state.dimensions(0) > max_size) {
    return Invalid(what, ": the state must be ",
                   max_size == 2 ? "u64[2]" : "u64[2] or u64[3]", " for ",
                   RandomAlgorithmString(algorithm), ".");
  }
  // XLA's verifier: a (state, data) tuple whose state matches the operand.
  if (!declared.IsTuple() || declared.tuple_shapes_size() != 2) {
    return Invalid(what, ": the result must be a (state, data) tuple.");
  }
  if (!Compatible(declared.tuple_shapes(0), state)) {
    return Invalid(what, ": the result's state ", Str(declared.tuple_shapes(0)),
                   " differs from the operand ", Str(state), ".");
  }
  const Shape& data = declared.tuple_shapes(1);
  PLEXA_RETURN_IF_ERROR(ExpectArray(data, what));
  // XLA's bit generators fill 8-, 16-, 32- and 64-bit elements (prng.cc
  // rejects pred and complex); a signed or floating-point result holds the
  // generated bits unchanged (Plexa: the bits are the value).
  const PrimitiveType t = data.element_type();
  if (!IsIntegral(t) && !IsFloating(t)) {
    return Invalid(what,
                   ": the data must have an integral or floating-point "
                   "element type.");
  }
  for (int64_t d : data.dimensions()) {
    if (d < 0) return Invalid(what, ": negative result dimension.");
  }
  return NoLayout(declared);
}

absl::StatusOr<Shape> InferInfeedShape(const Shape& token,
                                       const Shape& declared) {
  // infeed(token) -> (data, token) (SEMANTICS.md "Infeed").
  if (!token.IsToken()) {
    return Invalid("infeed expects a token operand; got ", Str(token), ".");
  }
  if (!declared.IsTuple() || declared.tuple_shapes_size() != 2 ||
      !declared.tuple_shapes(1).IsToken()) {
    return Invalid("infeed must produce a (data, token[]) tuple; declared ",
                   Str(declared), ".");
  }
  const Shape& data = declared.tuple_shapes(0);
  if (ContainsToken(data) ||
      data.element_type() == PrimitiveType::PRIMITIVE_TYPE_INVALID) {
    return Invalid(
        "infeed data must be an array or a tuple of arrays; "
        "declared ",
        Str(declared), ".");
  }
  return NoLayout(declared);
}

absl::StatusOr<Shape> InferOutfeedShape(const Shape& operand,
                                        const Shape& token) {
  if (!token.IsToken()) {
    return Invalid("outfeed expects a token as its second operand; got ",
                   Str(token), " (data ", Str(operand), ").");
  }
  if (ContainsToken(operand) ||
      operand.element_type() == PrimitiveType::PRIMITIVE_TYPE_INVALID) {
    return Invalid("outfeed data must be an array or a tuple of arrays; got ",
                   Str(operand), ".");
  }
  return Shape(PrimitiveType::TOKEN, {});
}

absl::StatusOr<Shape> InferAfterAllShape(
    absl::Span<const Shape* const> tokens) {
  for (const Shape* s : tokens) {
    if (!s->IsToken()) {
      return Invalid("after-all expects only token operands; got ", Str(tokens),
                     ".");
    }
  }
  return Shape(PrimitiveType::TOKEN, {});
}

// ---- Channels: send, recv, send-done, recv-done ---------------------------
// XLA's shapes: the u32[] is a context scalar (a request id in XLA's
// runtimes; Plexa runs transfers synchronously and writes 0).

namespace {

bool IsU32Scalar(const Shape& s) {
  return s.IsArray() && s.element_type() == PrimitiveType::U32 && s.rank() == 0;
}

// (data, u32[], token[]) with an array `data`: a send's or a recv's shape.
bool IsChannelStartShape(const Shape& s) {
  return s.IsTuple() && s.tuple_shapes_size() == 3 &&
         s.tuple_shapes(0).IsArray() && IsU32Scalar(s.tuple_shapes(1)) &&
         s.tuple_shapes(2).IsToken();
}

}  // namespace

absl::StatusOr<Shape> InferSendShape(const Shape& data, const Shape& token) {
  if (!data.IsArray()) {
    return Invalid("send sends an array; got ", Str(data), ".");
  }
  if (!token.IsToken()) {
    return Invalid("send expects a token as its second operand; got ",
                   Str(token), ".");
  }
  return Shape(std::vector<Shape>{NoLayout(data), Shape(PrimitiveType::U32, {}),
                                  Shape(PrimitiveType::TOKEN, {})});
}

absl::StatusOr<Shape> InferRecvShape(const Shape& token,
                                     const Shape& declared) {
  if (!token.IsToken()) {
    return Invalid("recv expects a token operand; got ", Str(token), ".");
  }
  if (!IsChannelStartShape(declared)) {
    return Invalid(
        "recv must produce a (data, u32[], token[]) tuple with an "
        "array as data; declared ",
        Str(declared), ".");
  }
  return NoLayout(declared);
}

absl::StatusOr<Shape> InferSendDoneShape(const Shape& send) {
  if (!IsChannelStartShape(send)) {
    return Invalid(
        "send-done expects a send's (data, u32[], token[]) as "
        "its operand; got ",
        Str(send), ".");
  }
  return Shape(PrimitiveType::TOKEN, {});
}

absl::StatusOr<Shape> InferRecvDoneShape(const Shape& recv) {
  if (!IsChannelStartShape(recv)) {
    return Invalid(
        "recv-done expects a recv's (data, u32[], token[]) as "
        "its operand; got ",
        Str(recv), ".");
  }
  return Shape(std::vector<Shape>{NoLayout(recv.tuple_shapes(0)),
                                  Shape(PrimitiveType::TOKEN, {})});
}

}  // namespace plexa::shape_inference
