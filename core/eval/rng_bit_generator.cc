// rng-bit-generator(state), algorithm=rng_three_fry | rng_philox |
// rng_default: XLA's counter-based bit generators, bit for bit.
//
// What XLA computes (RngBitGeneratorExpander + prng.cc), which this file
// reproduces; docs/evaluator.md "rng-bit-generator" has the same with
// examples:
//
//   key = state[0] for both algorithms, split into 32-bit words
//   (low, high); the key is returned unchanged as new_state[0].
//
//   rng_three_fry (state u64[2]): a 64-bit counter c = state[1].
//     64-bit elements: element i (row-major) = Threefry(key, c + i) with
//       the two output words as (low, high); c advances by the element
//       count.
//     32-bit and narrower: one Threefry call yields two elements. The
//       output is split along one dimension d (the first of even size, else
//       the first of the largest size; a scalar is a [1]) into pairs of
//       neighbours: element with index k along d takes word k % 2 of the
//       call for the "half" index where k is replaced by k / 2, and the
//       counter of that call is c + (row-major position of the half index
//       in the half shape, whose d-th size is ceil(size_d / 2)). c advances
//       by the number of half elements. 8/16-bit elements keep the low bits
//       of the 32-bit word.
//
//   rng_philox (state u64[2] or u64[3]): a 128-bit counter whose low word
//     is state[1] and whose high word is state[2], or, with a two-element
//     state, the key itself. Block b (0, 1, ...) is Philox(key, counter + b)
//     = four 32-bit words. 32-bit and narrower elements take the words in
//     order: element i = word i % 4 of block i / 4 (narrow: low bits).
//     64-bit elements take them in pairs: element i = (low, high) words
//     (2 (i % 2), 2 (i % 2) + 1) of block i / 2. The counter advances by
//     the number of blocks, ceil(total 32-bit words / 4); a two-element
//     state returns only the new low word (the high word was the key).
//
//   rng_default is rng_philox (XLA's CPU and GPU compilers both run
//     RngBitGeneratorExpander(RNG_PHILOX)).
//
//   A signed or floating-point result holds the generated bits of its
//   width unchanged (XLA's generators produce unsigned bits of the
//   element's width; prng.cc accepts every 8- to 64-bit type but pred).
#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/eval/eval_internal.h"
#include "core/eval/random_bits.h"

namespace plexa::eval {

namespace {

constexpr uint32_t Low32(uint64_t v) { return static_cast<uint32_t>(v); }
constexpr uint32_t High32(uint64_t v) { return static_cast<uint32_t>(v >> 32); }
constexpr uint64_t Join64(uint32_t low, uint32_t high) {
  return static_cast<uint64_t>(low) | (static_cast<uint64_t>(high) << 32);
}
constexpr uint32_t RotateLeft(uint32_t v, int distance) {
  return (v << distance) | (v >> (32 - distance));
}

}  // namespace

std::array<uint32_t, 2> Threefry2x32(std::array<uint32_t, 2> key,
                                     std::array<uint32_t, 2> counter) {
  // Threefry is Threefish (the block cipher of the Skein hash) with the
  // tweak removed and fewer rounds: each round adds one word into the
  // other, rotates the second by a fixed distance and xors the sum into it
  // (an add-rotate-xor "MIX"). Every four rounds a subkey is injected: the
  // key schedule is (k0, k1, k0 ^ k1 ^ 0x1BD11BDA) used cyclically, plus
  // the injection number in the second word so the subkeys differ.
  constexpr int kRotations[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  const uint32_t schedule[3] = {key[0], key[1], key[0] ^ key[1] ^ 0x1BD11BDAu};
  uint32_t x0 = counter[0] + schedule[0];
  uint32_t x1 = counter[1] + schedule[1];
  for (int round = 0; round < 20; ++round) {
    x0 += x1;
    x1 = RotateLeft(x1, kRotations[round % 8]);
    x1 ^= x0;
    if (round % 4 == 3) {
      const uint32_t injection = static_cast<uint32_t>(round / 4 + 1);
      x0 += schedule[injection % 3];
      x1 += schedule[(injection + 1) % 3] + injection;
    }
  }
  return {x0, x1};
}

std::array<uint32_t, 4> Philox4x32(std::array<uint32_t, 2> key,
                                   std::array<uint32_t, 4> counter) {
  // Philox replaces Threefry's many cheap rounds by few rounds built on
  // 32x32->64-bit multiplications: words 0 and 2 are multiplied by fixed
  // odd constants; the high halves of the products, xored with the other
  // two words and the round key, and the low halves become the next
  // state, with a word permutation. The round key is bumped by Weyl
  // constants (the golden ratio and sqrt(3) - 1, as 32-bit fractions)
  // after every round.
  constexpr uint32_t kMultiplier0 = 0xD2511F53u;
  constexpr uint32_t kMultiplier1 = 0xCD9E8D57u;
  constexpr uint32_t kWeyl0 = 0x9E3779B9u;
  constexpr uint32_t kWeyl1 = 0xBB67AE85u;
  std::array<uint32_t, 4> x = counter;
  uint32_t k0 = key[0];
  uint32_t k1 = key[1];
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = static_cast<uint64_t>(kMultiplier0) * x[0];
    const uint64_t p1 = static_cast<uint64_t>(kMultiplier1) * x[2];
    x = {High32(p1) ^ x[1] ^ k0, Low32(p1), High32(p0) ^ x[3] ^ k1, Low32(p0)};
    k0 += kWeyl0;
    k1 += kWeyl1;
  }
  return x;
}

namespace {

// Stores the low `bytes` bytes of `bits` as element `i` of `out`, in the
// host's byte order (the order Literal data is in).
void StoreBits(absl::Span<uint8_t> out, int bytes, int64_t i, uint64_t bits) {
  uint8_t* dst = out.data() + i * bytes;
  switch (bytes) {
    case 1: {
      const uint8_t v = static_cast<uint8_t>(bits);
      std::memcpy(dst, &v, 1);
      break;
    }
    case 2: {
      const uint16_t v = static_cast<uint16_t>(bits);
      std::memcpy(dst, &v, 2);
      break;
    }
    case 4: {
      const uint32_t v = static_cast<uint32_t>(bits);
      std::memcpy(dst, &v, 4);
      break;
    }
    default:
      std::memcpy(dst, &bits, 8);
      break;
  }
}

// Three Fry, elements of 32 bits or fewer: one call fills two neighbours
// along the split dimension (see the file comment). Returns the number of
// calls (the counter advance).
uint64_t ThreeFryNarrow(std::array<uint32_t, 2> key, uint64_t counter,
                        absl::Span<const int64_t> dims, int bytes,
                        absl::Span<uint8_t> out) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  int64_t split = -1;
  for (int64_t d = 0; d < rank && split < 0; ++d) {
    if (dims[d] % 2 == 0) split = d;
  }
  if (split < 0) {  // no even size: the first largest dimension
    for (int64_t d = 0; d < rank; ++d) {
      if (split < 0 || dims[d] > dims[split]) split = d;
    }
  }
  // The output as [outer, size, inner] around the split dimension (a scalar
  // is [1, 1, 1]); the half shape is [outer, ceil(size / 2), inner].
  int64_t outer = 1;
  int64_t size = 1;
  int64_t inner = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (d < split) outer *= dims[d];
    if (d == split) size = dims[d];
    if (d > split) inner *= dims[d];
  }
  const int64_t half = (size + 1) / 2;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t m = 0; m < half; ++m) {
      for (int64_t i = 0; i < inner; ++i) {
        const uint64_t position =
            static_cast<uint64_t>((o * half + m) * inner + i);
        const uint64_t c = counter + position;
        const std::array<uint32_t, 2> words =
            Threefry2x32(key, {Low32(c), High32(c)});
        for (int64_t j = 0; j < 2; ++j) {
          const int64_t k = 2 * m + j;
          if (k < size)
            StoreBits(out, bytes, (o * size + k) * inner + i, words[j]);
        }
      }
    }
  }
  return static_cast<uint64_t>(outer * half * inner);
}

}  // namespace

absl::StatusOr<std::vector<uint64_t>> GenerateRandomBits(
    RandomAlgorithm algorithm, absl::Span<const uint64_t> state,
    absl::Span<const int64_t> dims, int bit_width, absl::Span<uint8_t> out) {
  algorithm = ResolveRandomAlgorithm(algorithm);
  if (bit_width != 8 && bit_width != 16 && bit_width != 32 && bit_width != 64) {
    return absl::InvalidArgumentError(absl::StrCat(
        "random bits of width ", bit_width, "; expected 8, 16, 32 or 64"));
  }
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return absl::InvalidArgumentError("negative dimension");
    n *= d;
  }
  const int bytes = bit_width / 8;
  if (static_cast<int64_t>(out.size()) != n * bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("output buffer of ", out.size(), " bytes for ", n,
                     " elements of ", bit_width, " bits"));
  }
  const size_t words = state.size();
  const bool three_fry = algorithm == RandomAlgorithm::kThreeFry;
  if (!three_fry && algorithm != RandomAlgorithm::kPhilox) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown rng algorithm ", static_cast<int>(algorithm)));
  }
  if (words < 2 || words > (three_fry ? 2u : 3u)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the state has ", words, " words; ", RandomAlgorithmString(algorithm),
        three_fry ? " needs 2" : " needs 2 or 3"));
  }
  const std::array<uint32_t, 2> key = {Low32(state[0]), High32(state[0])};
  std::vector<uint64_t> new_state(state.begin(), state.end());

  if (three_fry) {
    const uint64_t counter = state[1];
    if (bit_width == 64) {
      for (int64_t i = 0; i < n; ++i) {
        const uint64_t c = counter + static_cast<uint64_t>(i);
        const std::array<uint32_t, 2> w =
            Threefry2x32(key, {Low32(c), High32(c)});
        StoreBits(out, bytes, i, Join64(w[0], w[1]));
      }
      new_state[1] = counter + static_cast<uint64_t>(n);
    } else {
      new_state[1] = counter + ThreeFryNarrow(key, counter, dims, bytes, out);
    }
    return new_state;
  }

  // Philox: a 128-bit counter (low, high).
  const uint64_t low = state[1];
  const uint64_t high = words == 3 ? state[2] : state[0];
  const uint64_t words32 = static_cast<uint64_t>(n) * (bit_width == 64 ? 2 : 1);
  const uint64_t blocks = (words32 + 3) / 4;
  for (uint64_t b = 0; b < blocks; ++b) {
    const uint64_t l = low + b;
    const uint64_t h = high + (l < low ? 1 : 0);  // carry into the high word
    const std::array<uint32_t, 4> w =
        Philox4x32(key, {Low32(l), High32(l), Low32(h), High32(h)});
    if (bit_width == 64) {
      for (uint64_t j = 0; j < 2; ++j) {
        const uint64_t e = 2 * b + j;
        if (e < static_cast<uint64_t>(n)) {
          StoreBits(out, bytes, static_cast<int64_t>(e),
                    Join64(w[2 * j], w[2 * j + 1]));
        }
      }
    } else {
      for (uint64_t j = 0; j < 4; ++j) {
        const uint64_t e = 4 * b + j;
        if (e < static_cast<uint64_t>(n)) {
          StoreBits(out, bytes, static_cast<int64_t>(e), w[j]);
        }
      }
    }
  }
  const uint64_t new_low = low + blocks;
  new_state[1] = new_low;
  if (words == 3) new_state[2] = high + (new_low < low ? 1 : 0);
  return new_state;
}

absl::StatusOr<Literal> EvalRngBitGenerator(Interpreter&,
                                            const Instruction& instr,
                                            Operands ops) {
  auto invalid = [&](absl::string_view what) {
    return absl::InvalidArgumentError(
        absl::StrCat("evaluator: ", InstrName(instr), ": ", what));
  };
  const Shape& shape = instr.shape();
  if (ops.size() != 1 || !shape.IsTuple() || shape.tuple_shapes_size() != 2 ||
      !shape.tuple_shapes(1).IsArray()) {
    return invalid("expected one state operand and a (state, data) result");
  }
  const Shape& state_shape = ops[0]->shape();
  if (!state_shape.IsArray() ||
      state_shape.element_type() != PrimitiveType::U64 ||
      state_shape.rank() != 1) {
    return invalid(absl::StrCat("the state must be a u64 vector; got ",
                                state_shape.ToString()));
  }
  const Shape& data_shape = shape.tuple_shapes(1);
  const PrimitiveType type = data_shape.element_type();
  if (!primitive_util::IsIntegralType(type) &&
      !primitive_util::IsFloatingPointType(type)) {
    return invalid(absl::StrCat("cannot generate random bits of type ",
                                primitive_util::Name(type)));
  }
  const int64_t words = state_shape.dimensions(0);
  Literal data = MakeLiteral(StripLayout(data_shape));
  absl::StatusOr<std::vector<uint64_t>> new_state = GenerateRandomBits(
      instr.attrs().rng_algorithm,
      absl::MakeConstSpan(DataOf<uint64_t>(*ops[0]), words),
      data_shape.dimensions(), static_cast<int>(primitive_util::BitWidth(type)),
      data.mutable_data());
  if (!new_state.ok()) return invalid(new_state.status().message());
  Literal state(Shape(PrimitiveType::U64, {words}));
  std::memcpy(state.mutable_data().data(), new_state->data(),
              new_state->size() * sizeof(uint64_t));
  std::vector<Literal> elements;
  elements.push_back(std::move(state));
  elements.push_back(std::move(data));
  return Literal::MakeTuple(std::move(elements));
}

}  // namespace plexa::eval
