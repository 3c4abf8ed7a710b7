// Malformed input: every error is InvalidArgument
// "LINE:COL: expected X, found Y" pointing at the offending token.
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/text/hlo_parser.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

std::string ErrorOf(absl::string_view text) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseHloModule(text);
  if (m.ok()) return "<parsed>";
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(m.status().message());
}

// Line 1 "HloModule m", line 2 "ENTRY %e {", then `body` from line 3.
std::string EntryError(absl::string_view body) {
  return ErrorOf(absl::StrCat("HloModule m\nENTRY %e {\n", body, "\n}\n"));
}

TEST(ErrorsTest, UnknownOpcode) {
  // "  ROOT %r = f32[] " is 18 characters: the opcode starts at column 19.
  EXPECT_EQ(EntryError("  %p = f32[] parameter(0)\n"
                       "  ROOT %r = f32[] frobnicate(%p)"),
            "4:19: expected an opcode, found 'frobnicate'");
}

TEST(ErrorsTest, UnknownOperandName) {
  // "  ROOT %r = f32[] negate(f32[] " is 31 characters.
  EXPECT_EQ(EntryError("  %p = f32[] parameter(0)\n"
                       "  ROOT %r = f32[] negate(f32[] %q)"),
            "4:32: expected the name of an instruction in computation 'e', "
            "found 'q'");
}

TEST(ErrorsTest, WrongOperandCount) {
  EXPECT_EQ(EntryError("  %p = f32[] parameter(0)\n"
                       "  ROOT %r = f32[] add(%p)"),
            "4:19: expected 2 operands for add, found 1");
  EXPECT_EQ(EntryError("  %p = f32[] parameter(0)\n"
                       "  ROOT %r = f32[] negate(%p, %p)"),
            "4:19: expected 1 operand for negate, found 2");
}

TEST(ErrorsTest, MalformedSparsity) {
  // "  ROOT %r = f32[2,2] dot(%a, %b, %m), lhs_contracting_dims={1}, "
  // "rhs_contracting_dims={0}, sparsity=" is 99 characters.
  EXPECT_EQ(EntryError("  %a = f32[2,2] parameter(0)\n"
                       "  %b = f32[4,2] parameter(1)\n"
                       "  %m = u16[2,1] parameter(2)\n"
                       "  ROOT %r = f32[2,2] dot(%a, %b, %m), "
                       "lhs_contracting_dims={1}, rhs_contracting_dims={0}, "
                       "sparsity=X.1@2:4"),
            "6:100: expected sparsity like L.1@2:4 or L.1@2:4_R.0@2:4, "
            "found 'X.1@2:4'");
  EXPECT_NE(EntryError("  %a = f32[2,2] parameter(0)\n"
                       "  %b = f32[4,2] parameter(1)\n"
                       "  %m = u16[2,1] parameter(2)\n"
                       "  ROOT %r = f32[2,2] dot(%a, %b, %m), "
                       "lhs_contracting_dims={1}, rhs_contracting_dims={0}, "
                       "sparsity=L.1@2"),
            "<parsed>");
}

TEST(ErrorsTest, DuplicateInstructionName) {
  EXPECT_EQ(EntryError("  %p = f32[] parameter(0)\n"
                       "  %p = f32[] parameter(1)"),
            "4:3: expected a unique instruction name in computation 'e', "
            "found a second 'p'");
}

TEST(ErrorsTest, DuplicateComputationAndEntry) {
  EXPECT_EQ(ErrorOf("HloModule m\n%c { ROOT %a = f32[] parameter(0) }\n"
                    "%c { ROOT %b = f32[] parameter(0) }"),
            "3:1: expected a unique computation name, found a second "
            "computation 'c'");
  EXPECT_EQ(ErrorOf("HloModule m\nENTRY %c { ROOT %a = f32[] parameter(0) }\n"
                    "ENTRY %d { ROOT %b = f32[] parameter(0) }"),
            "3:1: expected one ENTRY computation, found a second ENTRY (the "
            "first is at 2:1)");
}

TEST(ErrorsTest, IntegersThatOverflow) {
  // "  ROOT %c = s8[] constant(" is 26 characters.
  EXPECT_EQ(EntryError("  ROOT %c = s8[] constant(128)"),
            "3:27: expected an s8 value in [-128, 127], found '128'");
  EXPECT_EQ(EntryError("  ROOT %c = u8[] constant(-1)"),
            "3:27: expected an u8 value in [0, 255], found '-1'");
  // "  ROOT %c = s64[] constant(" is 27 characters.
  EXPECT_EQ(EntryError("  ROOT %c = s64[] constant(9223372036854775808)"),
            "3:28: expected an s64 value in [-9223372036854775808, "
            "9223372036854775807], found '9223372036854775808'");
  EXPECT_EQ(EntryError("  ROOT %c = u64[] constant(18446744073709551616)"),
            "3:28: expected an u64 value in [0, 18446744073709551615], found "
            "'18446744073709551616'");
  // "  ROOT %g = f32[] get-tuple-element(%t), index=" is 47 characters.
  EXPECT_EQ(EntryError("  %t = (f32[]) parameter(0)\n"
                       "  ROOT %g = f32[] get-tuple-element(%t), "
                       "index=99999999999999999999"),
            "4:48: expected an integer in the range of s64, found "
            "'99999999999999999999'");
  EXPECT_EQ(EntryError("  ROOT %c = f16[] constant(65536)"),
            "3:28: expected a f16 value (finite in f16), found '65536'");
  EXPECT_EQ(EntryError("  ROOT %p = f32[99999999999999999999] parameter(0)"),
            "3:17: expected a non-negative dimension size in the range of "
            "s64, found '99999999999999999999'");
}

TEST(ErrorsTest, UnterminatedStringAndComment) {
  // The string starts at column 38 of line 3.
  EXPECT_EQ(EntryError("  ROOT %p = f32[] parameter(0), note=\"abc}"),
            "3:38: expected a closing \" ending the string, found end of "
            "input");
  EXPECT_EQ(ErrorOf("HloModule m\nENTRY %e {\n  /* never closed\n"
                    "  ROOT %p = f32[] parameter(0)\n}"),
            "3:3: expected '*/' closing the comment, found end of input");
}

TEST(ErrorsTest, DeepNestingIsAnErrorNotACrash) {
  const std::string deep_shape =
      absl::StrCat(std::string(100, '('), "f32[]", std::string(100, ')'));
  const std::string msg =
      EntryError(absl::StrCat("  ROOT %p = ", deep_shape, " parameter(0)"));
  // The 65th '(' (column 12 + 64) is one level too deep.
  EXPECT_EQ(msg, "3:77: expected nesting at most 64 levels deep, found '('");
  std::string nested_ops = "%x";
  for (int i = 0; i < 200; ++i) {
    nested_ops = absl::StrCat("f32[] negate(", nested_ops, ")");
  }
  EXPECT_NE(EntryError(absl::StrCat("  %x = f32[] parameter(0)\n  ROOT %r = ",
                                    nested_ops))
                .find("expected nesting at most 64 levels deep"),
            std::string::npos);
  const std::string deep_value = absl::StrCat(
      "  ROOT %p = f32[] parameter(0), x=", std::string(100000, '{'),
      std::string(100000, '}'));
  EXPECT_EQ(EntryError(deep_value), "<parsed>");
}

TEST(ErrorsTest, RngBitGeneratorAlgorithm) {
  // "  ROOT %r = (u64[2]{0}, u32[4]{0}) " is 35 characters and
  // "rng-bit-generator(%s), algorithm=" 33 more.
  EXPECT_EQ(EntryError("  %s = u64[2]{0} parameter(0)\n"
                       "  ROOT %r = (u64[2]{0}, u32[4]{0}) "
                       "rng-bit-generator(%s), algorithm=rng_mersenne"),
            "4:69: expected an rng algorithm (rng_default, rng_three_fry, "
            "rng_philox), found 'rng_mersenne'");
  EXPECT_EQ(EntryError("  %s = u64[2]{0} parameter(0)\n"
                       "  ROOT %r = (u64[2]{0}, u32[4]{0}) "
                       "rng-bit-generator(%s)"),
            "4:36: expected attribute 'algorithm' for rng-bit-generator, "
            "found none");
}

TEST(ErrorsTest, FftAndTopKAttributes) {
  // "  ROOT %r = c64[8]{0} fft(%x), fft_type=" is 40 characters.
  EXPECT_EQ(EntryError("  %x = c64[8]{0} parameter(0)\n"
                       "  ROOT %r = c64[8]{0} fft(%x), fft_type=DCT, "
                       "fft_length={8}"),
            "4:41: expected an fft type (FFT, IFFT, RFFT, IRFFT), found 'DCT'");
  // "  ROOT %r = c64[8]{0} " is 22 characters: the opcode is at 23.
  EXPECT_EQ(EntryError("  %x = c64[8]{0} parameter(0)\n"
                       "  ROOT %r = c64[8]{0} fft(%x), fft_type=FFT"),
            "4:23: expected attribute 'fft_length' for fft, found none");
  // "  ROOT %r = (f32[2]{0}, s32[2]{0}) " is 35 characters.
  EXPECT_EQ(EntryError("  %x = f32[4]{0} parameter(0)\n"
                       "  ROOT %r = (f32[2]{0}, s32[2]{0}) topk(%x), "
                       "largest=false"),
            "4:36: expected attribute 'k' for topk, found none");
}

TEST(ErrorsTest, RaggedDotAttributes) {
  const std::string params =
      "  %x = f32[6,4]{1,0} parameter(0)\n"
      "  %y = f32[3,4,5]{2,1,0} parameter(1)\n"
      "  %g = s32[3]{0} parameter(2)\n";
  // "  ROOT %r = f32[6,5]{1,0} ragged-dot(%x, %y, %g), lhs_ragged_dims=" is
  // 66 characters.
  EXPECT_EQ(
      EntryError(params + "  ROOT %r = f32[6,5]{1,0} ragged-dot(%x, %y, %g), "
                          "lhs_ragged_dims=0"),
      "6:67: expected '{' starting 'lhs_ragged_dims', found '0'");
  // "  ROOT %r = f32[6,5]{1,0} " is 26 characters: the opcode is at 27.
  EXPECT_EQ(EntryError(params + "  ROOT %r = f32[6,5]{1,0} ragged-dot(%x, %y)"),
            "6:27: expected 3 operands for ragged-dot, found 2");
}

TEST(ErrorsTest, MissingPieces) {
  EXPECT_EQ(EntryError("  %p = f32[] parameter(0)\n"
                       "  ROOT %r = f32[] negate(%p"),
            "5:1: expected ',' or ')' in the operand list, found '}'");
  EXPECT_EQ(EntryError("  %p = f32[2]{0} parameter(0)\n"
                       "  ROOT %b = f32[3,2]{1,0} broadcast(%p)"),
            "4:27: expected attribute 'dimensions' for broadcast, found none");
  EXPECT_EQ(EntryError("  ROOT %p = parameter(0)"),
            "3:13: expected a shape before parameter (it cannot be "
            "inferred), found 'parameter'");
  // As XLA: only a scalar's broadcast may leave out dimensions={}.
  EXPECT_EQ(EntryError("  %p = f32[2]{0} parameter(0)\n"
                       "  ROOT %b = broadcast(%p)"),
            "4:13: expected attribute 'dimensions' for broadcast, found none");
  // Its shape cannot be inferred either.
  EXPECT_EQ(EntryError("  %p = f32[] parameter(0)\n"
                       "  ROOT %b = broadcast(%p)"),
            "4:13: expected a shape for 'b' (written without one, it cannot "
            "be inferred: broadcast: the result shape cannot be derived from "
            "the operands and must be given.), found broadcast");
  EXPECT_EQ(ErrorOf(""),
            "1:1: expected a computation name or ENTRY, found end "
            "of input");
  EXPECT_EQ(ErrorOf("HloModule m\nENTRY %e {\n}"),
            "3:1: expected an instruction (a computation is never empty), "
            "found '}'");
  EXPECT_EQ(ErrorOf("HloModule m\nENTRY %e {\n  ROOT %p = f32[] parameter(0)"),
            "3:31: expected '}' closing computation 'e', found end of input");
}

TEST(ErrorsTest, UnknownComputationAndCycle) {
  EXPECT_EQ(EntryError("  %p = f32[] parameter(0)\n"
                       "  ROOT %c = f32[] call(%p), to_apply=%nope"),
            "4:38: expected the name of a computation in this module, found "
            "'nope'");
  EXPECT_EQ(EntryError("  %a = f32[] negate(%b)\n"
                       "  ROOT %b = f32[] negate(%a)"),
            "3:3: expected instructions without cyclic dependencies, found a "
            "cycle through 'a'");
  EXPECT_EQ(EntryError("  ROOT %a = f32[] parameter(0), "
                       "control-predecessors={%a}"),
            "3:8: expected instructions without cyclic dependencies, found a "
            "cycle through 'a'");
}

TEST(ErrorsTest, ParametersAndRoots) {
  EXPECT_EQ(EntryError("  %a = f32[] parameter(0)\n"
                       "  ROOT %b = f32[] parameter(2)"),
            "4:19: expected parameter numbers 0..1 in computation 'e', found "
            "parameter(2)");
  EXPECT_EQ(EntryError("  %a = f32[] parameter(0)\n"
                       "  ROOT %b = f32[] parameter(0)"),
            "4:19: expected each parameter number once, found a second "
            "parameter(0)");
  EXPECT_EQ(EntryError("  ROOT %a = f32[] parameter(0)\n"
                       "  ROOT %b = f32[] negate(%a)"),
            "4:3: expected one ROOT per computation, found a second ROOT");
  EXPECT_EQ(ErrorOf("HloModule m\nENTRY %e () -> s32[] {\n"
                    "  ROOT %c = f32[] constant(1)\n}"),
            "2:16: expected the result shape of the root 'c' (f32[]), found "
            "s32[]");
}

TEST(ErrorsTest, ShapesLayoutsAndLiterals) {
  EXPECT_EQ(EntryError("  ROOT %p = f32[2,3]{0} parameter(0)"),
            "3:21: expected a layout with 2 dimension numbers (one per "
            "dimension), found 1");
  EXPECT_EQ(EntryError("  ROOT %p = f32[?] parameter(0)"),
            "3:17: expected a dimension size or '<=' bound (unbounded dynamic "
            "dimensions are not supported), found '?'");
  EXPECT_EQ(EntryError("  ROOT %p = f32[2]{0:Q(1)} parameter(0)"),
            "3:22: expected a layout item (T, L, E, S, PD, PV, ...) or '}', "
            "found 'Q'");
  EXPECT_EQ(EntryError("  ROOT %c = f32[3]{0} constant({1, 2})"),
            "3:37: expected ',' and 1 more element(s) of dimension 0 of "
            "f32[3]{0}, found '}'");
  EXPECT_EQ(EntryError("  ROOT %c = f32[2]{0} constant({1, 2, 3})"),
            "3:37: expected '}' after the 2 elements of dimension 0 of "
            "f32[2]{0}, found ','");
  EXPECT_EQ(EntryError("  ROOT %c = pred[] constant(2)"),
            "3:29: expected a pred value (true, false, 0 or 1), found '2'");
  EXPECT_NE(
      EntryError("  ROOT %c = f32[2]{0:T(0)} constant({1, 2})")
          .find("3:37: expected a valid shape and layout for the constant"),
      std::string::npos);
  EXPECT_EQ(EntryError("  ROOT %c = f32[100000,100000]{1,0} constant({...})"),
            "3:46: expected a constant of at most 268435456 bytes, found shape "
            "f32[100000,100000]{1,0}");
  EXPECT_EQ(EntryError("  ROOT %c = token[] constant(1)"),
            "3:30: expected a constant of array or tuple shape, found shape "
            "token[]");
}

TEST(ErrorsTest, AttributeValues) {
  EXPECT_EQ(EntryError("  %a = f32[2]{0} parameter(0)\n"
                       "  ROOT %c = pred[2]{0} compare(%a, %a), direction=XX"),
            "4:51: expected a comparison direction (EQ, NE, GE, GT, LE, LT), "
            "found 'XX'");
  EXPECT_EQ(EntryError("  %a = f32[2]{0} parameter(0)\n"
                       "  ROOT %n = f32[2]{0} negate(%a), x=1, x=2"),
            "4:40: expected each attribute at most once, found a second 'x'");
  EXPECT_EQ(
      EntryError("  %x = f32[1,4,4,3]{3,2,1,0} parameter(0)\n"
                 "  ROOT %c = f32[1,4,4,3]{3,2,1,0} convolution(%x, %x), "
                 "window={size=3x3 stride=2}, dim_labels=b01f_01io->b01f"),
      "4:73: expected 2 values in window stride (one per size), found "
      "1");
  EXPECT_EQ(EntryError("  %x = f32[1,4,4,3]{3,2,1,0} parameter(0)\n"
                       "  ROOT %c = f32[1,4,4,3]{3,2,1,0} convolution(%x, %x), "
                       "dim_labels=b01f_01ix->b01f"),
            "4:67: expected dim labels like b01f_01io->b01f (each of io and "
            "0..1 once in '01ix'), found 'b01f_01ix->b01f'");
  EXPECT_EQ(EntryError("  %a = f32[4]{0} parameter(0)\n"
                       "  ROOT %r = f32[4]{0} all-reduce(%a), "
                       "replica_groups=[2,3]<=[4], to_apply=%e"),
            "4:54: expected iota replica groups [groups,size]<=[dims]T(perm) "
            "with groups*size equal to the product of dims (at most 2^20) and "
            "perm a permutation, found an inconsistent form");
  // "  ROOT %r = f32[4]{0} collective-permute(%a), source_target_pairs={"
  // is 67 characters: the bad pair starts at column 68.
  EXPECT_EQ(EntryError("  %a = f32[4]{0} parameter(0)\n"
                       "  ROOT %r = f32[4]{0} collective-permute(%a), "
                       "source_target_pairs={{0,1,2}}"),
            "4:68: expected a source-target pair {source,target}, found 3 "
            "value(s)");
  EXPECT_EQ(EntryError("  %a = f32[4]{0} parameter(0)\n"
                       "  ROOT %r = f32[4]{0} collective-permute(%a)"),
            "4:23: expected attribute 'source_target_pairs' for "
            "collective-permute, found none");
  // XLA's parser no longer requires channel_id on send and recv (its
  // SendRecvWoChannelID test): the verifier and the run say what follows.
  EXPECT_EQ(EntryError("  %a = f32[4]{0} parameter(0)\n"
                       "  %t = token[] after-all()\n"
                       "  %s = (f32[4]{0}, u32[], token[]) send(%a, %t)\n"
                       "  ROOT %d = token[] send-done(%s), channel_id=1"),
            "<parsed>");
  // XLA's parser requires replica_groups on collective-broadcast.
  EXPECT_EQ(EntryError("  %a = f32[4]{0} parameter(0)\n"
                       "  ROOT %r = f32[4]{0} collective-broadcast(%a), "
                       "channel_id=1"),
            "4:23: expected attribute 'replica_groups' for "
            "collective-broadcast, found none");
}

TEST(ErrorsTest, StandaloneShapeLayoutLiteral) {
  EXPECT_EQ(ParseShape("f32[2]{0} x").status().message(),
            "1:11: expected end of input, found 'x'");
  EXPECT_EQ(ParseShape("tuple[2]").status().message(),
            "1:1: expected a shape (an element type such as f32, or '('), "
            "found 'tuple'");
  EXPECT_EQ(ParseLayout("{1,0:T(8,128}").status().message(),
            "1:13: expected ',' or ')' in the tile, found '}'");
  EXPECT_EQ(ParseLiteral("{1, x}", Shape(F32, {2})).status().message(),
            "1:5: expected a f32 value, found 'x'");
}

// XLA's parser requires delta on rng-get-and-update-state, domain= on a
// domain and the wrapped computation on async-start.
TEST(ErrorsTest, AsyncAndStateOpsNeedTheirAttributes) {
  // "  ROOT %r = u64[2] " is 19 characters.
  EXPECT_EQ(EntryError("  ROOT %r = u64[2] rng-get-and-update-state()"),
            "3:20: expected attribute 'delta' for rng-get-and-update-state, "
            "found none");
  // "  ROOT %r = f32[2] " is 19 characters.
  EXPECT_EQ(EntryError("  %p = f32[2] parameter(0)\n"
                       "  ROOT %r = f32[2] domain(%p)"),
            "4:20: expected attribute 'domain' for domain, found none");
  // "  %s = ((f32[2]), f32[2]) " is 26 characters.
  EXPECT_EQ(EntryError("  %p = f32[2] parameter(0)\n"
                       "  %s = ((f32[2]), f32[2]) async-start(%p)\n"
                       "  ROOT %d = f32[2] async-done(%s)"),
            "4:27: expected attribute 'calls' for async-start, found none");
  // "  ROOT %r = u64[2] rng-get-and-update-state(), delta=" is 53.
  EXPECT_EQ(EntryError("  ROOT %r = u64[2] rng-get-and-update-state(), "
                       "delta=x"),
            "3:54: expected an integer, found 'x'");
}

}  // namespace
}  // namespace plexa
