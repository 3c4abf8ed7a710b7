// triangular-solve and cholesky, on the two minor dimensions with any
// leading batch dimensions.
//
// Both compute in double (complex<double> for complex types) and round once
// to the element type: the oracle should be at least as accurate as any
// backend.
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/eval/eval_internal.h"

namespace plexa::eval {
namespace {

absl::Status Invalid(const Instruction& instr, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("evaluator: ", InstrName(instr), ": ", what));
}

// Double-precision work type: double for real, complex<double> for complex.
template <typename T>
using Work = std::conditional_t<kIsComplex<T>, std::complex<double>, double>;

template <typename T>
Work<T> ToWork(T v) {
  if constexpr (kIsComplex<T>) {
    return {static_cast<double>(v.real()), static_cast<double>(v.imag())};
  } else {
    return ToDouble(v);
  }
}
template <typename T>
T FromWork(Work<T> v) {
  if constexpr (kIsComplex<T>) {
    using R = typename T::value_type;
    return T(static_cast<R>(v.real()), static_cast<R>(v.imag()));
  } else {
    return ConvertElement<T>(v);
  }
}
inline double Conj(double v) { return v; }
inline std::complex<double> Conj(std::complex<double> v) {
  return std::conj(v);
}

// Solves one system. a is k x k; b is rows x cols (row-major); x replaces b.
template <typename T>
void SolveOne(const TriangularSolveOptions& opt, const T* a, int64_t k, T* b,
              int64_t rows, int64_t cols) {
  using W = Work<T>;
  // op(A) with only the referenced triangle (and a unit diagonal if asked).
  std::vector<W> t(k * k, W(0));
  for (int64_t i = 0; i < k; ++i) {
    for (int64_t j = 0; j < k; ++j) {
      const bool in_triangle = opt.lower ? j <= i : j >= i;
      W v = W(0);
      if (i == j && opt.unit_diagonal) {
        v = W(1);
      } else if (in_triangle) {
        v = ToWork(a[i * k + j]);
      }
      switch (opt.transpose_a) {
        case TriangularSolveTranspose::kNoTranspose:
          t[i * k + j] = v;
          break;
        case TriangularSolveTranspose::kTranspose:
          t[j * k + i] = v;
          break;
        case TriangularSolveTranspose::kAdjoint:
          t[j * k + i] = Conj(v);
          break;
      }
    }
  }
  const bool t_lower =
      opt.lower == (opt.transpose_a == TriangularSolveTranspose::kNoTranspose);
  std::vector<W> rhs(k), x(k);
  // left_side: op(A) X = B, one column of B at a time.
  // right side: X op(A) = B <=> op(A)^T X^T = B^T, one row at a time; the
  // transposed matrix has the other triangle.
  const bool left = opt.left_side;
  const bool lower = left ? t_lower : !t_lower;
  auto m = [&](int64_t i, int64_t j) {
    return left ? t[i * k + j] : t[j * k + i];
  };
  const int64_t systems = left ? cols : rows;
  for (int64_t s = 0; s < systems; ++s) {
    for (int64_t i = 0; i < k; ++i) {
      rhs[i] = ToWork(left ? b[i * cols + s] : b[s * cols + i]);
    }
    if (lower) {
      for (int64_t i = 0; i < k; ++i) {
        W v = rhs[i];
        for (int64_t j = 0; j < i; ++j) v -= m(i, j) * x[j];
        x[i] = v / m(i, i);
      }
    } else {
      for (int64_t i = k - 1; i >= 0; --i) {
        W v = rhs[i];
        for (int64_t j = i + 1; j < k; ++j) v -= m(i, j) * x[j];
        x[i] = v / m(i, i);
      }
    }
    for (int64_t i = 0; i < k; ++i) {
      (left ? b[i * cols + s] : b[s * cols + i]) = FromWork<T>(x[i]);
    }
  }
}

}  // namespace

absl::StatusOr<Literal> EvalTriangularSolve(Interpreter&,
                                            const Instruction& instr,
                                            Operands ops) {
  if (ops.size() != 2) return Invalid(instr, "expected a and b");
  const Shape& as = ops[0]->shape();
  const Shape& bs = ops[1]->shape();
  const TriangularSolveOptions& opt = instr.attrs().triangular_solve_options;
  if (!as.IsArray() || !bs.IsArray() || as.rank() < 2 ||
      as.rank() != bs.rank() || as.element_type() != bs.element_type()) {
    return Invalid(instr, "a and b must be arrays of equal rank >= 2");
  }
  const int64_t rank = as.rank();
  const int64_t k = as.dimensions(rank - 1);
  const int64_t rows = bs.dimensions(rank - 2);
  const int64_t cols = bs.dimensions(rank - 1);
  if (as.dimensions(rank - 2) != k || (opt.left_side ? rows : cols) != k) {
    return Invalid(instr, "a must be square and match b");
  }
  int64_t batch = 1;
  for (int64_t d = 0; d + 2 < rank; ++d) {
    if (as.dimensions(d) != bs.dimensions(d)) {
      return Invalid(instr, "batch dimensions differ");
    }
    batch *= as.dimensions(d);
  }
  if (!instr.shape().IsArray() ||
      !ShapeUtil::SameDimensions(instr.shape(), bs) ||
      instr.shape().element_type() != bs.element_type()) {
    return Invalid(instr, "the result must have b's shape");
  }
  Literal out(*ops[1]);
  PLEXA_RETURN_IF_ERROR(
      ArrayTypeSwitch(as.element_type(), [&](auto tag) -> absl::Status {
        using T = typename decltype(tag)::type;
        if constexpr (kIsFloat<T> || kIsComplex<T>) {
          const T* a = DataOf<T>(*ops[0]);
          T* b = MutableDataOf<T>(out);
          for (int64_t i = 0; i < batch; ++i) {
            SolveOne<T>(opt, a + i * k * k, k, b + i * rows * cols, rows, cols);
          }
          return absl::OkStatus();
        } else {
          return absl::UnimplementedError(absl::StrCat(
              InstrName(instr), " needs a floating-point or complex type; got ",
              as.ToString()));
        }
      }));
  return out;
}

absl::StatusOr<Literal> EvalCholesky(Interpreter&, const Instruction& instr,
                                     Operands ops) {
  if (ops.size() != 1) return Invalid(instr, "expected one operand");
  const Shape& as = ops[0]->shape();
  if (!as.IsArray() || as.rank() < 2 ||
      as.dimensions(as.rank() - 1) != as.dimensions(as.rank() - 2)) {
    return Invalid(instr, "expected square matrices");
  }
  const int64_t n = as.dimensions(as.rank() - 1);
  int64_t batch = 1;
  for (int64_t d = 0; d + 2 < as.rank(); ++d) batch *= as.dimensions(d);
  const bool lower = instr.attrs().cholesky_lower;
  if (!instr.shape().IsArray() ||
      !ShapeUtil::SameDimensions(instr.shape(), as) ||
      instr.shape().element_type() != as.element_type()) {
    return Invalid(instr, "the result must have the operand's shape");
  }
  Literal out = MakeLiteral(instr.shape());
  PLEXA_RETURN_IF_ERROR(
      ArrayTypeSwitch(as.element_type(), [&](auto tag) -> absl::Status {
        using T = typename decltype(tag)::type;
        if constexpr (kIsFloat<T> || kIsComplex<T>) {
          using W = Work<T>;
          const T* a_all = DataOf<T>(*ops[0]);
          T* o_all = MutableDataOf<T>(out);
          std::vector<W> l(n * n);
          for (int64_t bi = 0; bi < batch; ++bi) {
            const T* a = a_all + bi * n * n;
            T* o = o_all + bi * n * n;
            // Work on the lower triangle of A (for lower=false, the
            // conjugate transpose of A's upper triangle: A = U^H U with
            // U = L^H).
            auto elem = [&](int64_t i, int64_t j) -> W {
              return lower ? ToWork(a[i * n + j]) : Conj(ToWork(a[j * n + i]));
            };
            std::fill(l.begin(), l.end(), W(0));
            bool ok = true;
            for (int64_t j = 0; j < n && ok; ++j) {
              double d = std::real(elem(j, j));
              for (int64_t p = 0; p < j; ++p) d -= std::norm(l[j * n + p]);
              if (!(d > 0)) {
                ok = false;  // not positive definite (or NaN)
                break;
              }
              const double root = std::sqrt(d);
              l[j * n + j] = W(root);
              for (int64_t i = j + 1; i < n; ++i) {
                W v = elem(i, j);
                for (int64_t p = 0; p < j; ++p) {
                  v -= l[i * n + p] * Conj(l[j * n + p]);
                }
                l[i * n + j] = v / root;
              }
            }
            for (int64_t i = 0; i < n; ++i) {
              for (int64_t j = 0; j < n; ++j) {
                if (!ok) {
                  // XLA: a matrix that is not positive definite gives NaN
                  // everywhere.
                  o[i * n + j] =
                      FromWork<T>(W(std::numeric_limits<double>::quiet_NaN()));
                } else if (lower) {
                  o[i * n + j] = FromWork<T>(l[i * n + j]);
                } else {
                  o[i * n + j] = FromWork<T>(Conj(l[j * n + i]));
                }
              }
            }
          }
          return absl::OkStatus();
        } else {
          return absl::UnimplementedError(absl::StrCat(
              InstrName(instr), " needs a floating-point or complex type; got ",
              as.ToString()));
        }
      }));
  return out;
}

}  // namespace plexa::eval
