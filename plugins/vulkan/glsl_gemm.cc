#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "plugins/vulkan/glsl_emitter.h"

namespace plexa::vulkan {
namespace {

// Element strides of every dimension of a dense array in its layout.
std::vector<int64_t> Strides(const Shape& s) {
  std::vector<int64_t> strides(s.rank());
  const Layout l = LayoutUtil::EffectiveLayout(s);
  int64_t stride = 1;
  for (int64_t k = 0; k < s.rank(); ++k) {
    strides[l.minor_to_major(k)] = stride;
    stride *= s.dimensions(l.minor_to_major(k));
  }
  return strides;
}

// C[b, m, n] = sum_k A[b, m, k] * B[b, k, n] over strided operands. Each
// invocation keeps a 4x4 block of C in registers; a k-step of 16 stages
// a 64x16 tile of A and a 16x64 tile of B in shared memory. The sum over
// k runs in increasing k for every element, as the one-invocation-per-
// element loop does.
constexpr char kGemm[] = R"(#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
layout(local_size_x = 16, local_size_y = 16) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Bf32 { float v[]; };
layout(push_constant) uniform Args { uvec2 a[3]; } args;
shared float As[16][65];
shared float Bs[16][65];
void main() {
  const int M = $M, N = $N, K = $K;
  Bf32 A = Bf32(args.a[0]);
  Bf32 B = Bf32(args.a[1]);
  Bf32 C = Bf32(args.a[2]);
  int tx = int(gl_LocalInvocationID.x), ty = int(gl_LocalInvocationID.y);
  int tid = ty * 16 + tx;
  int m0 = int(gl_WorkGroupID.y) * 64, n0 = int(gl_WorkGroupID.x) * 64;
  int b = int(gl_WorkGroupID.z);
  int abase = b * $ASB, bbase = b * $BSB, cbase = b * $CSB;
  float acc[4][4];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) acc[i][j] = 0.0;
  for (int k0 = 0; k0 < K; k0 += 16) {
    for (int r = 0; r < 4; ++r) {
      int e = tid + r * 256;
      int mm = e % 64, kk = e / 64;
      int gm = m0 + mm, gk = k0 + kk;
      As[kk][mm] = (gm < M && gk < K) ? A.v[abase + gm * $ASM + gk * $ASK] : 0.0;
      int nn = e % 64;
      int gn = n0 + nn;
      Bs[kk][nn] = (gn < N && gk < K) ? B.v[bbase + gk * $BSK + gn * $BSN] : 0.0;
    }
    barrier();
    for (int kk = 0; kk < 16; ++kk) {
      float av[4], bv[4];
      for (int i = 0; i < 4; ++i) av[i] = As[kk][ty * 4 + i];
      for (int j = 0; j < 4; ++j) bv[j] = Bs[kk][tx * 4 + j];
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) acc[i][j] += av[i] * bv[j];
    }
    barrier();
  }
  for (int i = 0; i < 4; ++i) {
    int m = m0 + ty * 4 + i;
    if (m >= M) continue;
    for (int j = 0; j < 4; ++j) {
      int n = n0 + tx * 4 + j;
      if (n < N) C.v[cbase + m * $CSM + n * $CSN] = acc[i][j];
    }
  }
}
)";

// The same product for devices with subgroups of at least 8 invocations
// that can broadcast (llvmpipe: 8 lanes of one SIMD register). No shared
// memory and no barrier (on llvmpipe a barrier is a coroutine switch of
// every invocation). The 64 invocations of a workgroup are lanes over n:
// each keeps an 8x2 block of C in registers (rows m0..m0+7, columns n and
// n + 64), so B's loads are contiguous across lanes. A is read 8 k at a
// time: lane l of each group of 8 loads A[m, k0 + l], and
// subgroupBroadcast hands A[m, k0 + kk] to every lane (a register splat on
// llvmpipe, instead of a gather per element). The k tail (K mod 8) reads A
// directly. Indices past the edge of M and N are clamped (the loads stay
// in bounds) and their results not stored. The sum over k runs in
// increasing k for every element, as the one-invocation-per-element loop
// does.
constexpr char kSubgroupGemm[] = R"(#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 64) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Bf32 { float v[]; };
layout(push_constant) uniform Args { uvec2 a[3]; } args;
void main() {
  const int M = $M, N = $N, K = $K;
  Bf32 A = Bf32(args.a[0]);
  Bf32 B = Bf32(args.a[1]);
  Bf32 C = Bf32(args.a[2]);
  int lane = int(gl_LocalInvocationID.x);
  int sl = int(gl_SubgroupInvocationID) & 7;
  int n0 = int(gl_WorkGroupID.x) * 128 + lane, n1 = n0 + 64;
  int m0 = int(gl_WorkGroupID.y) * 8;
  int b = int(gl_WorkGroupID.z);
  int abase = b * $ASB, bbase = b * $BSB, cbase = b * $CSB;
  int bn0 = bbase + min(n0, N - 1) * $BSN, bn1 = bbase + min(n1, N - 1) * $BSN;
  int arow[8];
  for (int i = 0; i < 8; ++i) arow[i] = abase + min(m0 + i, M - 1) * $ASM;
  float acc0[8], acc1[8];
  for (int i = 0; i < 8; ++i) { acc0[i] = 0.0; acc1[i] = 0.0; }
  const int KB = K - K % 8;
  for (int k0 = 0; k0 < KB; k0 += 8) {
    float av[8];
    for (int i = 0; i < 8; ++i) av[i] = A.v[arow[i] + (k0 + sl) * $ASK];
$UNROLLED  }
  for (int k = KB; k < K; ++k) {
    float b0 = B.v[bn0 + k * $BSK], b1 = B.v[bn1 + k * $BSK];
    for (int i = 0; i < 8; ++i) {
      float a = A.v[arow[i] + k * $ASK];
      acc0[i] += a * b0;
      acc1[i] += a * b1;
    }
  }
  for (int i = 0; i < 8; ++i) {
    int m = m0 + i;
    if (m >= M) break;
    if (n0 < N) C.v[cbase + m * $CSM + n0 * $CSN] = acc0[i];
    if (n1 < N) C.v[cbase + m * $CSM + n1 * $CSN] = acc1[i];
  }
}
)";

// The k step kk of kSubgroupGemm's 8-deep block, written out (the lane
// given to subgroupBroadcast must be a constant).
std::string SubgroupGemmBlock() {
  std::string out;
  for (int kk = 0; kk < 8; ++kk) {
    absl::StrAppend(&out, "    {\n      int k = k0 + ", kk,
                    ";\n      float b0 = B.v[bn0 + k * $BSK], "
                    "b1 = B.v[bn1 + k * $BSK];\n");
    for (int i = 0; i < 8; ++i) {
      absl::StrAppend(&out, "      { float a = subgroupBroadcast(av[", i, "], ",
                      kk, "); acc0[", i, "] += a * b0; acc1[", i,
                      "] += a * b1; }\n");
    }
    out += "    }\n";
  }
  return out;
}

}  // namespace

absl::StatusOr<GlslKernel> EmitTiledGemm(const Instruction& h,
                                         const uint32_t max_groups[3],
                                         bool subgroup_broadcast_8,
                                         int64_t max_loop_iterations) {
  auto no = [](absl::string_view why) {
    return absl::NotFoundError(absl::StrCat("no tiled GEMM: ", why));
  };
  if (h.opcode() != HloOpcode::kDot || !h.attrs().dot_dimension_numbers ||
      !h.attrs().dot_sparsity.empty()) {
    return no("not a dense dot");
  }
  const DotDimensionNumbers& dn = *h.attrs().dot_dimension_numbers;
  const Shape& ls = h.operand(0)->shape();
  const Shape& rs = h.operand(1)->shape();
  const Shape& os = h.shape();
  for (const Shape* s : {&ls, &rs, &os}) {
    if (!s->IsArray() || s->element_type() != PrimitiveType::F32 ||
        !ShapeUtil::IsDenseArray(*s)) {
      return no("not dense f32");
    }
  }
  const size_t nb = dn.lhs_batch_dimensions.size();
  if (nb > 1 || dn.lhs_contracting_dimensions.size() != 1 ||
      ls.rank() != static_cast<int64_t>(nb) + 2 ||
      rs.rank() != static_cast<int64_t>(nb) + 2) {
    return no("not a (batched) matrix product");
  }
  if (ShapeUtil::ElementsIn(ls) >= (int64_t{1} << 31) ||
      ShapeUtil::ElementsIn(rs) >= (int64_t{1} << 31) ||
      ShapeUtil::ElementsIn(os) >= (int64_t{1} << 31)) {
    return no("2^31 elements or more");
  }
  const int64_t lk = dn.lhs_contracting_dimensions[0];
  const int64_t rk = dn.rhs_contracting_dimensions[0];
  auto free_dim = [&](int64_t rank, int64_t contracting,
                      const std::vector<int64_t>& batch) {
    for (int64_t d = 0; d < rank; ++d) {
      if (d != contracting && (batch.empty() || d != batch[0])) return d;
    }
    return int64_t{-1};
  };
  const int64_t lm = free_dim(ls.rank(), lk, dn.lhs_batch_dimensions);
  const int64_t rn = free_dim(rs.rank(), rk, dn.rhs_batch_dimensions);
  // The result: [batch,] m, n.
  const int64_t om = static_cast<int64_t>(nb), on = om + 1;
  const int64_t batch = nb ? os.dimensions(0) : 1;
  const int64_t M = ls.dimensions(lm), N = rs.dimensions(rn),
                K = ls.dimensions(lk);
  // kSubgroupGemm: 128 columns x 8 rows per workgroup; kGemm: 64 x 64.
  const bool subgroups = subgroup_broadcast_8;
  // Loop iterations one invocation runs: the k loop (kSubgroupGemm: K / 8
  // blocks and up to 7 tail steps; kGemm: K / 16 steps). The inner loops
  // have constant trip counts and are unrolled by the shader compiler (on
  // llvmpipe a product with K / 8 = 50,000 is right with no check, and one
  // with K / 8 = 75,000 is not: VulkanPluginTest.ProductsLonger...).
  if (max_loop_iterations > 0 &&
      (subgroups ? K / 8 + 7 : K / 16 + 1) > max_loop_iterations) {
    return no("the k loop exceeds the device's loop limit");
  }
  const uint64_t gx = subgroups ? (N + 127) / 128 : (N + 63) / 64;
  const uint64_t gy = subgroups ? (M + 7) / 8 : (M + 63) / 64;
  if (M == 0 || N == 0 || gx > max_groups[0] || gy > max_groups[1] ||
      static_cast<uint64_t>(batch) > max_groups[2]) {
    return no("the grid");
  }
  const std::vector<int64_t> sa = Strides(ls), sb = Strides(rs),
                             sc = Strides(os);
  GlslKernel k;
  k.num_buffers = 3;
  k.elements = ShapeUtil::ElementsIn(os);
  k.grid[0] = static_cast<uint32_t>(gx);
  k.grid[1] = static_cast<uint32_t>(gy);
  k.grid[2] = static_cast<uint32_t>(batch);
  auto s = [](int64_t v) { return absl::StrCat(v); };
  const std::string source =
      subgroups ? absl::StrReplaceAll(kSubgroupGemm,
                                      {{"$UNROLLED", SubgroupGemmBlock()}})
                : std::string(kGemm);
  k.source = absl::StrReplaceAll(
      source, {{"$M", s(M)},
               {"$N", s(N)},
               {"$K", s(K)},
               {"$ASB", s(nb ? sa[dn.lhs_batch_dimensions[0]] : 0)},
               {"$BSB", s(nb ? sb[dn.rhs_batch_dimensions[0]] : 0)},
               {"$CSB", s(nb ? sc[0] : 0)},
               {"$ASM", s(sa[lm])},
               {"$ASK", s(sa[lk])},
               {"$BSK", s(sb[rk])},
               {"$BSN", s(sb[rn])},
               {"$CSM", s(sc[om])},
               {"$CSN", s(sc[on])}});
  return k;
}

}  // namespace plexa::vulkan
