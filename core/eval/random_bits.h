// The counter-based random bit generators behind rng-bit-generator, bit for
// bit as XLA computes them (XLA's RngBitGeneratorExpander lowers the op
// with xla/hlo/builder/lib/prng.cc; docs/evaluator.md "rng-bit-generator"
// describes the layout of the state and of the generated bits).
//
// Both primitives are from Salmon, Moraes, Dror, Shaw, "Parallel random
// numbers: as easy as 1, 2, 3" (SC 2011, the Random123 library): a keyed
// bijection applied to a counter, so element i of the output depends only
// on (key, counter + i), with no sequential state to carry.
#ifndef PLEXA_CORE_EVAL_RANDOM_BITS_H_
#define PLEXA_CORE_EVAL_RANDOM_BITS_H_

#include <array>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/ir/attributes.h"

namespace plexa::eval {

// Threefry-2x32 with 20 rounds (Random123's threefry2x32_20).
std::array<uint32_t, 2> Threefry2x32(std::array<uint32_t, 2> key,
                                     std::array<uint32_t, 2> counter);

// Philox-4x32 with 10 rounds (Random123's philox4x32_10).
std::array<uint32_t, 4> Philox4x32(std::array<uint32_t, 2> key,
                                   std::array<uint32_t, 4> counter);

// The algorithm rng_default stands for: Philox, as on XLA's CPU and GPU
// backends (both run RngBitGeneratorExpander(RNG_PHILOX)).
inline RandomAlgorithm ResolveRandomAlgorithm(RandomAlgorithm a) {
  return a == RandomAlgorithm::kDefault ? RandomAlgorithm::kPhilox : a;
}

// rng-bit-generator on host values: fills `out` (row-major elements of
// `dims`, each `bit_width` bits = 8, 16, 32 or 64, little-endian; its size
// must be ElementCount(dims) * bit_width / 8) and returns the new state.
// `state` is the u64 state operand (2 words for three_fry, 2 or 3 for
// philox/default). InvalidArgument for any other size, width or algorithm.
absl::StatusOr<std::vector<uint64_t>> GenerateRandomBits(
    RandomAlgorithm algorithm, absl::Span<const uint64_t> state,
    absl::Span<const int64_t> dims, int bit_width, absl::Span<uint8_t> out);

}  // namespace plexa::eval

#endif  // PLEXA_CORE_EVAL_RANDOM_BITS_H_
