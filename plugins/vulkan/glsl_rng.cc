// rng-bit-generator as one kernel: the evaluator's Philox4x32-10 and
// ThreeFry2x32-20 streams (core/eval/rng_bit_generator.cc) bit for bit,
// one invocation per element of the data; invocation 0 also writes the
// new state.
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "plugins/vulkan/glsl_emitter_internal.h"

namespace plexa::vulkan::glsl_internal {
namespace {

constexpr char kRandom[] = R"(
uvec4 philox4x32(uvec2 key, uvec4 x) {
  uint k0 = key.x, k1 = key.y;
  for (int r = 0; r < 10; ++r) {
    uint hi0, lo0, hi1, lo1;
    umulExtended(0xD2511F53u, x.x, hi0, lo0);
    umulExtended(0xCD9E8D57u, x.z, hi1, lo1);
    x = uvec4(hi1 ^ x.y ^ k0, lo1, hi0 ^ x.w ^ k1, lo0);
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return x;
}
uvec2 threefry2x32(uvec2 key, uvec2 c) {
  const int rot[8] = int[8](13, 15, 26, 6, 17, 29, 16, 24);
  uint ks[3] = uint[3](key.x, key.y, key.x ^ key.y ^ 0x1BD11BDAu);
  uint x0 = c.x + ks[0], x1 = c.y + ks[1];
  for (int r = 0; r < 20; ++r) {
    x0 += x1;
    x1 = (x1 << rot[r % 8]) | (x1 >> (32 - rot[r % 8]));
    x1 ^= x0;
    if (r % 4 == 3) {
      uint inj = uint(r / 4 + 1);
      x0 += ks[inj % 3u];
      x1 += ks[(inj + 1u) % 3u] + inj;
    }
  }
  return uvec2(x0, x1);
}
)";

}  // namespace

absl::StatusOr<GlslKernel> Emitter::EmitRngBitGenerator(const Instruction& h,
                                                        int max_buffers) {
  const Shape& shape = h.shape();
  if (h.operand_count() != 1 || !shape.IsTuple() ||
      shape.tuple_shapes().size() != 2) {
    return NoCode(h, "this rng-bit-generator");
  }
  const Shape& state = h.operand(0)->shape();
  const Shape& data = shape.tuple_shapes()[1];
  if (!state.IsArray() || state.element_type() != PrimitiveType::U64 ||
      state.rank() != 1 || !data.IsArray() || !ShapeUtil::IsDenseArray(data)) {
    return NoCode(h, "this rng-bit-generator");
  }
  const int64_t words = state.dimensions(0);
  const bool three_fry = h.attrs().rng_algorithm == RandomAlgorithm::kThreeFry;
  if (!three_fry && h.attrs().rng_algorithm != RandomAlgorithm::kPhilox &&
      h.attrs().rng_algorithm != RandomAlgorithm::kDefault) {
    return NoCode(h, "this rng algorithm");
  }
  // Wrong state sizes are the evaluator's error to report.
  if (words < 2 || words > (three_fry ? 2 : 3)) {
    return NoCode(h, "this rng state size");
  }
  const int width = Bits(data.element_type());
  if (data.element_type() == PrimitiveType::PRED || 3 > max_buffers) {
    return NoCode(h, "this rng-bit-generator");
  }
  const PrimitiveType bits_type = width == 8    ? PrimitiveType::U8
                                  : width == 16 ? PrimitiveType::U16
                                  : width == 32 ? PrimitiveType::U32
                                                : PrimitiveType::U64;
  if (absl::Status s = UseType(h, PrimitiveType::U64); !s.ok()) return s;
  if (absl::Status s = UseType(h, bits_type); !s.ok()) return s;
  const int64_t n = ShapeUtil::ElementsIn(data);
  if (n > std::numeric_limits<int32_t>::max() / 4) {
    return NoCode(h, "more than 2^29 random elements");
  }
  GlslKernel k;
  k.num_buffers = 3;           // the state; the new state and the data
  k.elements = n > 0 ? n : 1;  // invocation 0 writes the state
  absl::StrAppend(&functions_, kRandom);

  // ThreeFry below 64 bits pairs elements along one dimension (the first
  // even one, else the first largest), as the evaluator does.
  const int64_t rank = data.rank();
  int64_t split = -1, outer = 1, size = 1, inner = 1;
  for (int64_t d = 0; d < rank && split < 0; ++d) {
    if (data.dimensions(d) % 2 == 0) split = d;
  }
  if (split < 0) {
    for (int64_t d = 0; d < rank; ++d) {
      if (split < 0 || data.dimensions(d) > data.dimensions(split)) split = d;
    }
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (d < split) outer *= data.dimensions(d);
    if (d == split) size = data.dimensions(d);
    if (d > split) inner *= data.dimensions(d);
  }
  const int64_t half = (size + 1) / 2;
  const uint64_t philox_blocks =
      (static_cast<uint64_t>(n) * (width == 64 ? 2 : 1) + 3) / 4;
  const uint64_t three_fry_count =
      width == 64 ? static_cast<uint64_t>(n)
                  : static_cast<uint64_t>(outer * half * inner);

  std::string main = absl::StrCat(
      "void main() {\n"
      "  uint64_t s0 = Bu64(args.a[0]).v[0];\n"
      "  uint64_t s1 = Bu64(args.a[0]).v[1];\n"
      "  uint64_t s2 = ",
      words == 3 ? "Bu64(args.a[0]).v[2]" : "s0", ";\n",
      "  uvec2 key = unpack32(s0);\n"
      "  if (gl_GlobalInvocationID.x == 0u) {\n"
      "    Bu64(args.a[1]).v[0] = s0;\n");
  if (three_fry) {
    absl::StrAppend(&main, "    Bu64(args.a[1]).v[1] = s1 + uint64_t(",
                    three_fry_count, "ul);\n");
  } else {
    absl::StrAppend(&main, "    uint64_t low = s1 + uint64_t(", philox_blocks,
                    "ul);\n    Bu64(args.a[1]).v[1] = low;\n");
    if (words == 3) {
      absl::StrAppend(&main,
                      "    Bu64(args.a[1]).v[2] = s2 + (low < s1 ? 1ul : "
                      "0ul);\n");
    }
  }
  absl::StrAppend(&main, "  }\n", GridLoop(n, data));
  // The element's row-major number: the evaluator's order.
  std::string e = "0";
  for (int64_t d = 0; d < rank; ++d) {
    e = absl::StrCat("(", e, ") * ", data.dimensions(d), " + i", d);
  }
  absl::StrAppend(&main, "    uint64_t e = uint64_t(", e, ");\n");
  if (!three_fry) {
    const int per_block = width == 64 ? 2 : 4;
    absl::StrAppend(
        &main, "    uint64_t l = s1 + e / ", per_block, "ul;\n",
        "    uint64_t hh = s2 + (l < s1 ? 1ul : 0ul);\n",
        "    uvec2 lw = unpack32(l), hw = unpack32(hh);\n",
        "    uvec4 w = philox4x32(key, uvec4(lw.x, lw.y, hw.x, hw.y));\n",
        "    int j = int(e % ", per_block, "ul);\n");
    absl::StrAppend(&main, width == 64
                               ? "    uint64_t bits = pack64(uvec2(w[2 * j], "
                                 "w[2 * j + 1]));\n"
                               : "    uint bits = w[j];\n");
  } else if (width == 64) {
    absl::StrAppend(&main,
                    "    uvec2 w = threefry2x32(key, unpack32(s1 + e));\n",
                    "    uint64_t bits = pack64(w);\n");
  } else {
    absl::StrAppend(
        &main, "    uint64_t o = e / ", size * inner, "ul;\n",
        "    uint64_t kk = (e / ", inner, "ul) % ", size, "ul;\n",
        "    uint64_t ii = e % ", inner, "ul;\n",
        "    uint64_t position = (o * ", half, "ul + kk / 2ul) * ", inner,
        "ul + ii;\n",
        "    uvec2 w = threefry2x32(key, unpack32(s1 + position));\n",
        "    uint bits = w[int(kk % 2ul)];\n");
  }
  const char* store = width == 8    ? "uint8_t(bits)"
                      : width == 16 ? "uint16_t(bits)"
                      : width == 32 ? "uint(bits)"
                                    : "bits";
  absl::StrAppend(&main, "    ", Block(bits_type), "(args.a[2]).v[g] = ", store,
                  ";\n  }\n}\n");
  k.source = Source(main, k.num_buffers);
  return k;
}

}  // namespace plexa::vulkan::glsl_internal
