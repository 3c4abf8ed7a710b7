// triangular-solve and cholesky as kernels of their own (the semantics are
// the evaluator's, core/eval/linalg.cc, on the two minor dimensions with
// any leading batch dimensions), computed in the element type's register
// type (f16 and bf16 in f32; the evaluator computes in double and rounds
// once, so f32 results differ from it by rounding).
//
// triangular-solve: one invocation per system (a column of b on the left
// side, a row on the right), substituting forward or backward through
// op(a), each unknown read back from the result as the next ones need it.
// k(k+1)/2 multiply-adds per invocation.
//
// cholesky: one workgroup per matrix, left-looking: for each column j,
// invocation 0 takes the diagonal element's square root, then the
// workgroup computes the column's rows below it in parallel from the
// columns before (read back from the result, a `coherent` buffer, after a
// barrier). A matrix that is not positive definite (a diagonal that is
// not > 0, or NaN) becomes NaN everywhere, as in XLA; the triangle that is
// not computed is 0.
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/shape/shape_util.h"
#include "plugins/vulkan/glsl_emitter_internal.h"

namespace plexa::vulkan::glsl_internal {
namespace {

// The register type's arithmetic: complex (vec2/dvec2 with cmul, cdiv) or
// real.
struct Arith {
  bool complex = false;
  std::string reg;  // the register type
  std::string Mul(const std::string& a, const std::string& b) const {
    return complex ? absl::StrCat("cmul(", a, ", ", b, ")")
                   : absl::StrCat("(", a, ") * (", b, ")");
  }
  std::string Div(const std::string& a, const std::string& b) const {
    return complex ? absl::StrCat("cdiv(", a, ", ", b, ")")
                   : absl::StrCat("(", a, ") / (", b, ")");
  }
  std::string Conj(const std::string& a) const {
    if (!complex) return a;
    return absl::StrCat("((", a, ") * ", reg, "(1, -1))");
  }
};

// The dimensions of `s` before its two minor ones.
std::vector<int64_t> BatchDims(const Shape& s) {
  return std::vector<int64_t>(s.dimensions().begin(), s.dimensions().end() - 2);
}

// idx with two more indices.
Idx With(Idx idx, const std::string& a, const std::string& b) {
  idx.push_back(a);
  idx.push_back(b);
  return idx;
}

}  // namespace

absl::StatusOr<GlslKernel> Emitter::EmitTriangularSolve(const Instruction& h,
                                                        int max_buffers) {
  const Shape& as = h.operand(0)->shape();
  const Shape& bs = h.operand(1)->shape();
  const Shape& out = h.shape();
  const TriangularSolveOptions& opt = h.attrs().triangular_solve_options;
  for (const Shape* s : {&as, &bs, &out}) {
    if (!s->IsArray() || !ShapeUtil::IsDenseArray(*s) || s->rank() < 2) {
      return NoCode(h, "a triangular-solve of non-dense arrays");
    }
  }
  const PrimitiveType t = out.element_type();
  if (as.element_type() != t || bs.element_type() != t ||
      !(IsFloat(t) || IsComplex(t)) || !ShapeUtil::SameDimensions(out, bs)) {
    // The evaluator reports what is wrong.
    return NoCode(h, "these triangular-solve operands");
  }
  if (absl::Status s = UseType(h, t); !s.ok()) return s;
  GlslKernel k;
  k.num_buffers = 3;
  if (k.num_buffers > max_buffers) return NoCode(h, "3 buffers");
  const int64_t rank = bs.rank();
  const int64_t n = as.dimensions(rank - 1);
  const int64_t rows = bs.dimensions(rank - 2);
  const int64_t cols = bs.dimensions(rank - 1);
  if (as.dimensions(rank - 2) != n || (opt.left_side ? rows : cols) != n ||
      BatchDims(as) != BatchDims(bs)) {
    return NoCode(h, "these triangular-solve operands");
  }
  if (absl::Status s = CheckLoop(h, n * (n + 1) / 2 + 1); !s.ok()) return s;
  buffers_.emplace(h.operand(0), 0);
  buffers_.emplace(h.operand(1), 1);

  // The systems: the batch dimensions, then the system's number.
  std::vector<int64_t> dims = BatchDims(bs);
  dims.push_back(opt.left_side ? cols : rows);
  const Shape systems(PrimitiveType::S32, dims);
  k.elements = ShapeUtil::ElementsIn(systems);
  if (k.elements > std::numeric_limits<int32_t>::max()) {
    return NoCode(h, "more than 2^31 systems");
  }
  const Idx batch = IndexNames(rank - 2);
  const std::string sys = absl::StrCat("i", rank - 2);
  // Element (r, c) of the system's matrix m, lower or upper (see the
  // evaluator): op(a) on the left side, op(a) transposed on the right.
  const Arith ar{IsComplex(t), Reg(t)};
  const bool transposed =
      opt.transpose_a != TriangularSolveTranspose::kNoTranspose;
  const bool adjoint = opt.transpose_a == TriangularSolveTranspose::kAdjoint;
  const bool op_lower = opt.lower != transposed;
  const bool lower = opt.left_side ? op_lower : !op_lower;
  const bool swap = opt.left_side == transposed;
  auto m = [&](const std::string& r,
               const std::string& c) -> absl::StatusOr<std::string> {
    absl::StatusOr<std::string> v =
        Call(*h.operand(0), swap ? With(batch, c, r) : With(batch, r, c));
    if (!v.ok()) return v.status();
    return adjoint ? ar.Conj(*v) : *v;
  };
  // Element r of the system in b and in the result.
  auto at = [&](const std::string& r) {
    return opt.left_side ? With(batch, r, sys) : With(batch, sys, r);
  };
  absl::StatusOr<std::string> mrc = m("r", "c");
  if (!mrc.ok()) return mrc.status();
  absl::StatusOr<std::string> diag = m("r", "r");
  if (!diag.ok()) return diag.status();
  if (opt.unit_diagonal) diag = Const(t, 1);
  absl::StatusOr<std::string> rhs = Call(*h.operand(1), at("r"));
  if (!rhs.ok()) return rhs.status();
  const std::string result =
      absl::StrCat(Block(t), "(args.a[2]).v[", Offset(out, at("r")), "]");

  std::string main =
      absl::StrCat("void main() {\n", GridLoop(k.elements, systems));
  absl::StrAppend(
      &main, "    for (int step = 0; step < ", n, "; ++step) {\n",
      "      const int r = ", lower ? "step" : absl::StrCat(n - 1, " - step"),
      ";\n", "      ", Reg(t), " v = ", *rhs, ";\n",
      "      for (int c = ", lower ? "0" : "r + 1", "; c < ",
      lower ? "r" : absl::StrCat(n), "; ++c) {\n",
      "        v -= ", ar.Mul(*mrc, Load(2, out, at("c"))), ";\n", "      }\n",
      "      ", result, " = ", Store(t, Round(t, ar.Div("v", *diag))), ";\n",
      "    }\n", "  }\n}\n");
  k.source = Source(main, k.num_buffers);
  return k;
}

absl::StatusOr<GlslKernel> Emitter::EmitCholesky(const Instruction& h,
                                                 int max_buffers) {
  const Shape& as = h.operand(0)->shape();
  const Shape& out = h.shape();
  for (const Shape* s : {&as, &out}) {
    if (!s->IsArray() || !ShapeUtil::IsDenseArray(*s) || s->rank() < 2) {
      return NoCode(h, "a cholesky of non-dense arrays");
    }
  }
  const PrimitiveType t = out.element_type();
  const int64_t rank = as.rank();
  const int64_t n = as.dimensions(rank - 1);
  if (as.element_type() != t || !(IsFloat(t) || IsComplex(t)) ||
      !ShapeUtil::SameDimensions(out, as) || as.dimensions(rank - 2) != n) {
    return NoCode(h, "these cholesky operands");  // the evaluator says why
  }
  if (absl::Status s = UseType(h, t); !s.ok()) return s;
  GlslKernel k;
  k.num_buffers = 2;
  if (k.num_buffers > max_buffers) return NoCode(h, "2 buffers");
  buffers_.emplace(h.operand(0), 0);
  int64_t batch = 1;
  for (int64_t d : BatchDims(as)) batch *= d;
  k.elements = batch * n * n;
  if (k.elements > std::numeric_limits<int32_t>::max()) {
    return NoCode(h, "more than 2^31 elements");
  }
  // One workgroup per matrix, at most the 65,535 Vulkan promises; each
  // loops over its matrices.
  constexpr int64_t kMaxGroups = 65535;
  k.grid[0] = static_cast<uint32_t>(std::clamp<int64_t>(batch, 1, kMaxGroups));
  k.grid[1] = k.grid[2] = 1;
  {
    // Invocation 0's iterations (its share of the rows, the diagonal's
    // sum, the final pass) for each of its matrices.
    int64_t per_matrix = n + n * n / kWorkgroupSize + 1;
    for (int64_t j = 0; j < n; ++j) {
      per_matrix +=
          j + (n - j - 1 + kWorkgroupSize - 1) / kWorkgroupSize * (j + 1);
    }
    const int64_t matrices = (batch + kMaxGroups - 1) / kMaxGroups;
    if (absl::Status s = CheckLoop(h, matrices * (per_matrix + 1)); !s.ok()) {
      return s;
    }
  }
  const bool lower = h.attrs().cholesky_lower;
  const Arith ar{IsComplex(t), Reg(t)};
  const bool f64 = t == PrimitiveType::F64 || t == PrimitiveType::C128;
  const std::string real_t = f64 ? "double" : "float";
  const std::string w = Reg(t);
  // The batch multi-index from the matrix number `mat`, row-major.
  const std::vector<int64_t> bdims = BatchDims(as);
  std::string split = "      int rest = mat;\n";
  for (int64_t d = static_cast<int64_t>(bdims.size()) - 1; d >= 0; --d) {
    absl::StrAppend(&split, "      int b", d, " = rest % ", bdims[d],
                    "; rest /= ", bdims[d], ";\n");
  }
  const Idx b = IndexNames(rank - 2, "b");
  // A's element (i, j) of the lower triangle to factor, and L's element
  // (i, j) in the result: the conjugate transpose of both for lower=false.
  absl::StatusOr<std::string> a_ij =
      Call(*h.operand(0), lower ? With(b, "i", "j") : With(b, "j", "i"));
  if (!a_ij.ok()) return a_ij.status();
  if (!lower) a_ij = ar.Conj(*a_ij);
  absl::StatusOr<std::string> a_jj = Call(*h.operand(0), With(b, "j", "j"));
  if (!a_jj.ok()) return a_jj.status();
  // The result through a coherent block: other invocations read it back.
  const std::string cblock = absl::StrCat("C", Block(t));
  coherent_blocks_.insert(Block(t));
  auto l_ref = [&](const std::string& i, const std::string& j) {
    return absl::StrCat(cblock, "(args.a[1]).v[",
                        Offset(out, lower ? With(b, i, j) : With(b, j, i)),
                        "]");
  };
  auto l_load = [&](const std::string& i, const std::string& j) {
    const std::string v = Decode(t, l_ref(i, j));
    return lower ? v : ar.Conj(v);
  };
  auto l_store = [&](const std::string& i, const std::string& j,
                     const std::string& v) {
    return absl::StrCat(l_ref(i, j), " = ",
                        Store(t, Round(t, lower ? v : ar.Conj(v))), ";\n");
  };
  const std::string norm =
      ar.complex ? absl::StrCat("dot(lp, lp)") : absl::StrCat("lp * lp");
  const std::string part_nan = f64 ? "packDouble2x32(uvec2(0u, 0x7ff80000u))"
                                   : "uintBitsToFloat(0x7fc00000u)";
  const std::string nan_w =
      ar.complex ? absl::StrCat(w, "(", part_nan, ", ", part_nan, ")")
                 : part_nan;
  const std::string real_of = ar.complex ? ".x" : "";

  std::string main = absl::StrCat(
      "shared bool ok;\nshared ", real_t, " root;\n", "void main() {\n",
      "  const int me = int(gl_LocalInvocationID.x);\n",
      "  for (int mat = int(gl_WorkGroupID.x); mat < ", batch,
      "; mat += int(gl_NumWorkGroups.x)) {\n", split,
      "    if (me == 0) ok = true;\n", "    barrier();\n",
      "    for (int j = 0; j < ", n, "; ++j) {\n",
      "      if (me == 0 && ok) {\n", "        ", real_t, " d = (", *a_jj, ")",
      real_of, ";\n", "        for (int p = 0; p < j; ++p) {\n", "          ",
      w, " lp = ", l_load("j", "p"), ";\n", "          d -= ", norm, ";\n",
      "        }\n", "        if (!(d > ", real_t, "(0))) ok = false;\n",
      "        else {\n", "          root = sqrt(d);\n", "          ",
      l_store("j", "j", absl::StrCat(w, ar.complex ? "(root, 0)" : "(root)")),
      "        }\n", "      }\n",
      "      memoryBarrierBuffer();\n      memoryBarrierShared();\n",
      "      barrier();\n", "      if (ok) {\n",
      "        for (int i = j + 1 + me; i < ", n, "; i += ", kWorkgroupSize,
      ") {\n", "          ", w, " v = ", *a_ij, ";\n",
      "          for (int p = 0; p < j; ++p) {\n",
      "            v -= ", ar.Mul(l_load("i", "p"), ar.Conj(l_load("j", "p"))),
      ";\n", "          }\n", "          ", l_store("i", "j", "v / root"),
      "        }\n", "      }\n", "      memoryBarrierBuffer();\n",
      "      barrier();\n", "    }\n",
      // The other triangle is 0; a failed matrix NaN everywhere.
      "    for (int e = me; e < ", n * n, "; e += ", kWorkgroupSize, ") {\n",
      "      const int i = e / ", n, ", j = e % ", n, ";\n", "      if (!ok) ",
      l_ref("i", "j"), " = ", Store(t, nan_w), ";\n", "      else if (j > i) ",
      l_ref("i", "j"), " = ", Store(t, Const(t, 0)), ";\n", "    }\n",
      "    memoryBarrierBuffer();\n    barrier();\n", "  }\n", "}\n");
  k.source = Source(main, k.num_buffers);
  return k;
}

}  // namespace plexa::vulkan::glsl_internal
