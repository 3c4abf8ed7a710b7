// rng-bit-generator: the two primitives against Random123's published
// known answers, the op against values published by a front end that runs
// it through XLA, and the layout of the bits derived by hand from XLA's
// description (RngBitGeneratorExpander, prng.cc) on top of the checked
// primitives.
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/eval/eval_test_util.h"
#include "core/eval/random_bits.h"
#include "gtest/gtest.h"

namespace plexa::eval {
namespace {

using eval_test::L;
using eval_test::RunHlo;
using eval_test::RunOk;

// ---- The primitives: Random123 tests/kat_vectors --------------------------

TEST(Threefry2x32Test, Random123KnownAnswers) {
  // threefry2x32 20: counter, key -> output.
  EXPECT_EQ(Threefry2x32({0, 0}, {0, 0}),
            (std::array<uint32_t, 2>{0x6b200159, 0x99ba4efe}));
  EXPECT_EQ(Threefry2x32({0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}),
            (std::array<uint32_t, 2>{0x1cb996fc, 0xbb002be7}));
  EXPECT_EQ(Threefry2x32({0x13198a2e, 0x03707344}, {0x243f6a88, 0x85a308d3}),
            (std::array<uint32_t, 2>{0xc4923a9c, 0x483df7a0}));
}

TEST(Philox4x32Test, Random123KnownAnswers) {
  // philox4x32 10: counter, key -> output.
  EXPECT_EQ(Philox4x32({0, 0}, {0, 0, 0, 0}),
            (std::array<uint32_t, 4>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c,
                                     0x9b00dbd8}));
  EXPECT_EQ(Philox4x32({0xffffffff, 0xffffffff},
                       {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}),
            (std::array<uint32_t, 4>{0x408f276d, 0x41c83b0e, 0xa20bc7c6,
                                     0x6d5451fd}));
  EXPECT_EQ(Philox4x32({0xa4093822, 0x299f31d0},
                       {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}),
            (std::array<uint32_t, 4>{0xd16cfe09, 0x94fdcceb, 0x5001e420,
                                     0x24126ea1}));
}

// ---- The op ----------------------------------------------------------------

// A module with one rng-bit-generator of `algorithm` on a constant state.
std::string RbgModule(absl::string_view state_shape, absl::string_view state,
                      absl::string_view data_shape,
                      absl::string_view algorithm) {
  return absl::StrCat("HloModule m\nENTRY e {\n  s = ", state_shape,
                      " constant(", state, ")\n  ROOT r = (", state_shape, ", ",
                      data_shape,
                      ") rng-bit-generator(s), algorithm=", algorithm, "\n}\n");
}

std::vector<uint64_t> StateOf(const Literal& result) {
  const Literal& s = result.tuple_element(0);
  std::vector<uint64_t> out(s.element_count());
  std::memcpy(out.data(), s.data().data(), out.size() * 8);
  return out;
}

template <typename T>
std::vector<T> BitsOf(const Literal& result) {
  const Literal& d = result.tuple_element(1);
  std::vector<T> out(d.element_count());
  std::memcpy(out.data(), d.data().data(), out.size() * sizeof(T));
  return out;
}

std::array<uint32_t, 2> ThreeFry(uint64_t key, uint64_t counter) {
  return Threefry2x32(
      {static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32)},
      {static_cast<uint32_t>(counter), static_cast<uint32_t>(counter >> 32)});
}

std::array<uint32_t, 4> Philox(uint64_t key, uint64_t low, uint64_t high) {
  return Philox4x32(
      {static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32)},
      {static_cast<uint32_t>(low), static_cast<uint32_t>(low >> 32),
       static_cast<uint32_t>(high), static_cast<uint32_t>(high >> 32)});
}

// r-xla/anvil (a front end running StableHLO through XLA's CPU plugin)
// documents nvl_rng_bit_generator with THREE_FRY, state {0, 0}, shape
// [3,2]: values {{1.7973e9, 2.5791e9}, {1.3515e9, 3.2358e9},
// {1.6886e9, 4.2293e9}} and new state {0, 3}.
TEST(RngBitGeneratorTest, ThreeFryMatchesXlaThroughAnvil) {
  Literal r = RunOk(RbgModule("u64[2]", "{0, 0}", "u32[3,2]", "rng_three_fry"));
  EXPECT_EQ(StateOf(r), (std::vector<uint64_t>{0, 3}));
  const std::vector<uint32_t> bits = BitsOf<uint32_t>(r);
  const double published[6] = {1.7973e9, 2.5791e9, 1.3515e9,
                               3.2358e9, 1.6886e9, 4.2293e9};
  for (int i = 0; i < 6; ++i) {
    char printed[32];
    std::snprintf(printed, sizeof printed, "%.5g",
                  static_cast<double>(bits[i]));
    EXPECT_EQ(std::strtod(printed, nullptr), published[i]) << i;
  }
  // Row i is the Threefry block of counter i (the first one a Random123
  // known answer).
  EXPECT_EQ(bits[0], 0x6b200159u);
  EXPECT_EQ(bits[1], 0x99ba4efeu);
  for (uint64_t i = 0; i < 3; ++i) {
    EXPECT_EQ(bits[2 * i], ThreeFry(0, i)[0]);
    EXPECT_EQ(bits[2 * i + 1], ThreeFry(0, i)[1]);
  }
}

// r-xla/anvil's test of p_rng_bit_generator: THREE_FRY, state {1, 2},
// 64-bit elements [2,2]: new state {1, 6}; its R integers are the low 32
// bits, column by column: 43444564, 1672743891, -315321645, 2109414752.
TEST(RngBitGeneratorTest, ThreeFry64MatchesXlaThroughAnvil) {
  for (const char* type : {"u64[2,2]", "s64[2,2]"}) {
    SCOPED_TRACE(type);
    Literal r = RunOk(RbgModule("u64[2]", "{1, 2}", type, "rng_three_fry"));
    EXPECT_EQ(StateOf(r), (std::vector<uint64_t>{1, 6}));
    const std::vector<uint64_t> bits = BitsOf<uint64_t>(r);
    const int32_t low_column_major[4] = {
        static_cast<int32_t>(bits[0]), static_cast<int32_t>(bits[2]),
        static_cast<int32_t>(bits[1]), static_cast<int32_t>(bits[3])};
    EXPECT_EQ(low_column_major[0], 43444564);
    EXPECT_EQ(low_column_major[1], 1672743891);
    EXPECT_EQ(low_column_major[2], -315321645);
    EXPECT_EQ(low_column_major[3], 2109414752);
    // Element i is the block of counter 2 + i, (low, high).
    for (uint64_t i = 0; i < 4; ++i) {
      const std::array<uint32_t, 2> w = ThreeFry(1, 2 + i);
      EXPECT_EQ(bits[i], w[0] | (static_cast<uint64_t>(w[1]) << 32));
    }
  }
}

// 32-bit three_fry splits the first even dimension into neighbour pairs;
// without one, the first largest; a scalar takes word 0.
TEST(RngBitGeneratorTest, ThreeFryPairsAlongTheSplitDimension) {
  const uint64_t key = 0x0123456789abcdefull;
  const uint64_t c = 1000;
  const std::string state = absl::StrCat("{", key, ", ", c, "}");
  {  // [2,3]: dimension 0 is even, half shape [1,3]: column j is block c+j.
    Literal r = RunOk(RbgModule("u64[2]", state, "u32[2,3]", "rng_three_fry"));
    EXPECT_EQ(StateOf(r), (std::vector<uint64_t>{key, c + 3}));
    const std::vector<uint32_t> b = BitsOf<uint32_t>(r);
    for (int row = 0; row < 2; ++row) {
      for (int col = 0; col < 3; ++col) {
        EXPECT_EQ(b[row * 3 + col], ThreeFry(key, c + col)[row]);
      }
    }
  }
  {  // [3,5]: no even size; dimension 1 (5) is largest, half [3,3].
    Literal r = RunOk(RbgModule("u64[2]", state, "u32[3,5]", "rng_three_fry"));
    EXPECT_EQ(StateOf(r), (std::vector<uint64_t>{key, c + 9}));
    const std::vector<uint32_t> b = BitsOf<uint32_t>(r);
    for (int row = 0; row < 3; ++row) {
      for (int k = 0; k < 5; ++k) {
        EXPECT_EQ(b[row * 5 + k], ThreeFry(key, c + row * 3 + k / 2)[k % 2]);
      }
    }
  }
  {  // [5,5]: both largest; the first one (dimension 0) is split.
    Literal r = RunOk(RbgModule("u64[2]", state, "u32[5,5]", "rng_three_fry"));
    EXPECT_EQ(StateOf(r), (std::vector<uint64_t>{key, c + 15}));
    const std::vector<uint32_t> b = BitsOf<uint32_t>(r);
    for (int k = 0; k < 5; ++k) {
      for (int col = 0; col < 5; ++col) {
        EXPECT_EQ(b[k * 5 + col], ThreeFry(key, c + (k / 2) * 5 + col)[k % 2]);
      }
    }
  }
  {  // A scalar: half shape [1].
    Literal r = RunOk(RbgModule("u64[2]", state, "s32[]", "rng_three_fry"));
    EXPECT_EQ(StateOf(r), (std::vector<uint64_t>{key, c + 1}));
    EXPECT_EQ(static_cast<uint32_t>(BitsOf<int32_t>(r)[0]),
              ThreeFry(key, c)[0]);
  }
  {  // Zero elements: the state does not move.
    Literal r = RunOk(RbgModule("u64[2]", state, "u32[3,0]", "rng_three_fry"));
    EXPECT_EQ(StateOf(r), (std::vector<uint64_t>{key, c}));
  }
}

TEST(RngBitGeneratorTest, ThreeFryCounterWraps) {
  Literal r = RunOk(RbgModule("u64[2]", "{5, 18446744073709551615}", "u64[2]",
                              "rng_three_fry"));
  EXPECT_EQ(StateOf(r), (std::vector<uint64_t>{5, 1}));
  const std::vector<uint64_t> b = BitsOf<uint64_t>(r);
  const std::array<uint32_t, 2> w0 = ThreeFry(5, ~0ull);
  const std::array<uint32_t, 2> w1 = ThreeFry(5, 0);
  EXPECT_EQ(b[0], w0[0] | (static_cast<uint64_t>(w0[1]) << 32));
  EXPECT_EQ(b[1], w1[0] | (static_cast<uint64_t>(w1[1]) << 32));
}

// 8- and 16-bit elements keep the low bits of the 32-bit ones.
TEST(RngBitGeneratorTest, NarrowTypesTruncateThe32BitWords) {
  for (const char* algorithm : {"rng_three_fry", "rng_philox"}) {
    SCOPED_TRACE(algorithm);
    Literal wide = RunOk(RbgModule("u64[2]", "{3, 4}", "u32[3,5]", algorithm));
    Literal u8 = RunOk(RbgModule("u64[2]", "{3, 4}", "u8[3,5]", algorithm));
    Literal s16 = RunOk(RbgModule("u64[2]", "{3, 4}", "s16[3,5]", algorithm));
    EXPECT_EQ(StateOf(u8), StateOf(wide));
    EXPECT_EQ(StateOf(s16), StateOf(wide));
    const std::vector<uint32_t> w = BitsOf<uint32_t>(wide);
    const std::vector<uint8_t> b = BitsOf<uint8_t>(u8);
    const std::vector<int16_t> h = BitsOf<int16_t>(s16);
    for (size_t i = 0; i < w.size(); ++i) {
      EXPECT_EQ(b[i], static_cast<uint8_t>(w[i]));
      EXPECT_EQ(static_cast<uint16_t>(h[i]), static_cast<uint16_t>(w[i]));
    }
  }
}

// Philox: words in order, four per block; a two-element state's counter
// has the key as its high word.
TEST(RngBitGeneratorTest, PhiloxWordsInOrder) {
  const uint64_t key = 0xfedcba9876543210ull;
  const std::string state = absl::StrCat("{", key, ", 77}");
  Literal r = RunOk(RbgModule("u64[2]", state, "u32[2,5]", "rng_philox"));
  EXPECT_EQ(StateOf(r), (std::vector<uint64_t>{key, 80}));  // ceil(10/4)
  const std::vector<uint32_t> b = BitsOf<uint32_t>(r);
  for (uint64_t i = 0; i < 10; ++i) {
    EXPECT_EQ(b[i], Philox(key, 77 + i / 4, key)[i % 4]) << i;
  }
  // 64-bit: two elements per block, (low, high) word pairs.
  Literal r64 = RunOk(RbgModule("u64[3]", absl::StrCat("{", key, ", 77, 9}"),
                                "s64[5]", "rng_philox"));
  EXPECT_EQ(StateOf(r64), (std::vector<uint64_t>{key, 80, 9}));
  const std::vector<uint64_t> b64 = BitsOf<uint64_t>(r64);
  for (uint64_t i = 0; i < 5; ++i) {
    const std::array<uint32_t, 4> w = Philox(key, 77 + i / 2, 9);
    const uint64_t want =
        w[2 * (i % 2)] | (static_cast<uint64_t>(w[2 * (i % 2) + 1]) << 32);
    EXPECT_EQ(b64[i], want) << i;
  }
}

TEST(RngBitGeneratorTest, PhiloxCounterCarriesIntoTheHighWord) {
  const uint64_t max = ~0ull;
  {  // Three words: the carry reaches state[2].
    Literal r =
        RunOk(RbgModule("u64[3]", absl::StrCat("{1, ", max - 1, ", 41}"),
                        "u32[12]", "rng_philox"));
    EXPECT_EQ(StateOf(r), (std::vector<uint64_t>{1, 1, 42}));
    const std::vector<uint32_t> b = BitsOf<uint32_t>(r);
    EXPECT_EQ(b[0], Philox(1, max - 1, 41)[0]);
    EXPECT_EQ(b[4], Philox(1, max, 41)[0]);
    EXPECT_EQ(b[8], Philox(1, 0, 42)[0]);
  }
  {  // Two words: the high word is the key (+ carry inside the call); the
     // new state keeps only the low word.
    Literal r = RunOk(RbgModule("u64[2]", absl::StrCat("{1, ", max, "}"),
                                "u32[8]", "rng_philox"));
    EXPECT_EQ(StateOf(r), (std::vector<uint64_t>{1, 1}));
    const std::vector<uint32_t> b = BitsOf<uint32_t>(r);
    EXPECT_EQ(b[3], Philox(1, max, 1)[3]);
    EXPECT_EQ(b[4], Philox(1, 0, 2)[0]);
  }
}

// rng_default is Philox (XLA's CPU and GPU compilers).
TEST(RngBitGeneratorTest, DefaultIsPhilox) {
  for (const char* state_shape : {"u64[2]", "u64[3]"}) {
    const char* state =
        std::string(state_shape) == "u64[2]" ? "{9, 8}" : "{9, 8, 7}";
    Literal d = RunOk(RbgModule(state_shape, state, "u64[3,3]", "rng_default"));
    Literal p = RunOk(RbgModule(state_shape, state, "u64[3,3]", "rng_philox"));
    EXPECT_TRUE(d == p) << d.ToString() << "\n" << p.ToString();
  }
}

// Signed and floating-point results hold the same bits as the unsigned
// result of their width.
TEST(RngBitGeneratorTest, SignedAndFloatResultsHoldTheBits) {
  Literal u = RunOk(RbgModule("u64[2]", "{3, 4}", "u32[6]", "rng_three_fry"));
  Literal s = RunOk(RbgModule("u64[2]", "{3, 4}", "s32[6]", "rng_three_fry"));
  Literal f = RunOk(RbgModule("u64[2]", "{3, 4}", "f32[6]", "rng_three_fry"));
  EXPECT_EQ(u.tuple_element(1).data(), s.tuple_element(1).data());
  EXPECT_EQ(u.tuple_element(1).data(), f.tuple_element(1).data());
  Literal u16 = RunOk(RbgModule("u64[2]", "{3, 4}", "u16[6]", "rng_philox"));
  Literal bf16 = RunOk(RbgModule("u64[2]", "{3, 4}", "bf16[6]", "rng_philox"));
  EXPECT_EQ(u16.tuple_element(1).data(), bf16.tuple_element(1).data());
}

// The state threads from one generator to the next: two draws of 3 equal
// one draw of 6 (three_fry 64-bit: counters are consecutive).
TEST(RngBitGeneratorTest, StateThreadsThroughGetTupleElement) {
  Literal chained = RunOk(R"(HloModule m
ENTRY e {
  s = u64[2] parameter(0)
  a = (u64[2], u64[3]) rng-bit-generator(s), algorithm=rng_three_fry
  s1 = u64[2] get-tuple-element(a), index=0
  b = (u64[2], u64[3]) rng-bit-generator(s1), algorithm=rng_three_fry
  a1 = u64[3] get-tuple-element(a), index=1
  b1 = u64[3] get-tuple-element(b), index=1
  s2 = u64[2] get-tuple-element(b), index=0
  c = u64[6] concatenate(a1, b1), dimensions={0}
  ROOT t = (u64[2], u64[6]) tuple(s2, c)
})",
                          [] {
                            std::vector<Literal> args;
                            args.push_back(L("u64[2]", "{11, 12}"));
                            return args;
                          }());
  Literal once =
      RunOk(RbgModule("u64[2]", "{11, 12}", "u64[6]", "rng_three_fry"));
  EXPECT_TRUE(chained == once) << chained.ToString() << "\n" << once.ToString();
}

TEST(RngBitGeneratorTest, BadInputIsAnErrorNamingTheInstruction) {
  // Rejected by the verifier (shape inference), before evaluation.
  absl::StatusOr<Literal> r =
      RunHlo(RbgModule("u64[3]", "{1, 2, 3}", "u32[4]", "rng_three_fry"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'r'"), std::string::npos) << r.status();
  EXPECT_NE(r.status().message().find("must be u64[2]"), std::string::npos)
      << r.status();
  // GenerateRandomBits itself validates what it is given.
  std::vector<uint8_t> out(16);
  const uint64_t state[4] = {1, 2, 3, 4};
  EXPECT_FALSE(GenerateRandomBits(RandomAlgorithm::kPhilox, state, {4}, 32,
                                  absl::MakeSpan(out))
                   .ok());
  EXPECT_FALSE(GenerateRandomBits(RandomAlgorithm::kThreeFry,
                                  absl::MakeConstSpan(state, 2), {4}, 24,
                                  absl::MakeSpan(out))
                   .ok());
  EXPECT_FALSE(GenerateRandomBits(RandomAlgorithm::kThreeFry,
                                  absl::MakeConstSpan(state, 2), {5}, 32,
                                  absl::MakeSpan(out))
                   .ok());
  EXPECT_FALSE(GenerateRandomBits(static_cast<RandomAlgorithm>(7),
                                  absl::MakeConstSpan(state, 2), {4}, 32,
                                  absl::MakeSpan(out))
                   .ok());
  EXPECT_TRUE(GenerateRandomBits(RandomAlgorithm::kDefault,
                                 absl::MakeConstSpan(state, 3), {4}, 32,
                                 absl::MakeSpan(out))
                  .ok());
}

}  // namespace
}  // namespace plexa::eval
