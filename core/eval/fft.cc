// fft: FFT, IFFT, RFFT and IRFFT over the 1 to 3 innermost dimensions, as
// numpy.fft computes them (fftn, ifftn, rfftn, irfftn): the forward
// transform unnormalized, the inverse ones scaled by 1/N.
//
// Every transform runs in complex<double> (c64 values too, rounded once when
// stored): radix-2 for power-of-two lengths, Bluestein's chirp-z (through a
// power-of-two radix-2 convolution) for any other length, so every length
// costs O(n log n). Twiddles come from cos/sin of the exact angle, not a
// recurrence.
//
// Per fft dimension the transform reads fft_length elements of the operand
// (zero-padded when the operand is shorter, truncated when it is longer,
// XLA's evaluator's reading of FFT/IFFT, whose shape inference does not tie
// the two) and writes the result's extent (zeros past fft_length).
#include <cmath>
#include <complex>
#include <numbers>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/eval/eval_internal.h"
#include "core/eval/fft_topk_kernels.h"

namespace plexa::eval {
namespace {

using Cd = std::complex<double>;

absl::Status Invalid(const Instruction& instr, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("evaluator: ", InstrName(instr), ": ", what));
}

// exp(sign * 2*pi*i * num / den) with num reduced modulo den first, so the
// angle is exact up to one rounding.
Cd Twiddle(int64_t num, int64_t den, int sign) {
  num %= den;
  if (num < 0) num += den;
  const double angle = sign * 2.0 * std::numbers::pi *
                       static_cast<double>(num) / static_cast<double>(den);
  return Cd(std::cos(angle), std::sin(angle));
}

// In-place radix-2 transform of a power-of-two length, unnormalized;
// sign -1 forward, +1 inverse.
void Radix2(std::vector<Cd>& a, int sign) {
  const int64_t n = static_cast<int64_t>(a.size());
  for (int64_t i = 1, j = 0; i < n; ++i) {
    int64_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  std::vector<Cd> w;
  for (int64_t len = 2; len <= n; len <<= 1) {
    const int64_t half = len / 2;
    w.resize(half);
    for (int64_t k = 0; k < half; ++k) w[k] = Twiddle(k, len, sign);
    for (int64_t i = 0; i < n; i += len) {
      for (int64_t k = 0; k < half; ++k) {
        const Cd u = a[i + k];
        const Cd v = a[i + k + half] * w[k];
        a[i + k] = u + v;
        a[i + k + half] = u - v;
      }
    }
  }
}

// Bluestein: X[k] = conj(c[k]) * sum_j (x[j] conj(c[j])) c[k-j] with the
// chirp c[m] = exp(-sign * pi*i * m^2 / n), a convolution computed with
// radix-2 transforms of a power-of-two length >= 2n-1.
void Bluestein(std::vector<Cd>& a, int sign) {
  const int64_t n = static_cast<int64_t>(a.size());
  int64_t m = 1;
  while (m < 2 * n - 1) m <<= 1;
  std::vector<Cd> chirp(n);
  for (int64_t j = 0; j < n; ++j) {
    // m^2 / (2n) turns: reduce j^2 modulo 2n in integers.
    const int64_t sq =
        static_cast<int64_t>((static_cast<unsigned __int128>(j) * j) % (2 * n));
    chirp[j] = Twiddle(sq, 2 * n, -sign);  // exp(-sign*pi*i*j^2/n)
  }
  std::vector<Cd> x(m, Cd(0)), y(m, Cd(0));
  for (int64_t j = 0; j < n; ++j) x[j] = a[j] * std::conj(chirp[j]);
  y[0] = chirp[0];
  for (int64_t j = 1; j < n; ++j) y[j] = y[m - j] = chirp[j];
  Radix2(x, -1);
  Radix2(y, -1);
  for (int64_t i = 0; i < m; ++i) x[i] *= y[i];
  Radix2(x, +1);
  const double scale = 1.0 / static_cast<double>(m);
  for (int64_t k = 0; k < n; ++k) a[k] = x[k] * scale * std::conj(chirp[k]);
}

// Unnormalized DFT of any length: sign -1 forward, +1 inverse.
void Transform(std::vector<Cd>& a, int sign) {
  const size_t n = a.size();
  if (n <= 1) return;
  if ((n & (n - 1)) == 0) {
    Radix2(a, sign);
  } else {
    Bluestein(a, sign);
  }
}

// Transforms every line along `axis` of a row-major block of `dims`.
void TransformAxis(std::vector<Cd>& block, absl::Span<const int64_t> dims,
                   size_t axis, int sign) {
  const int64_t n = dims[axis];
  if (n <= 1) return;
  int64_t inner = 1;
  for (size_t d = axis + 1; d < dims.size(); ++d) inner *= dims[d];
  int64_t outer = 1;
  for (size_t d = 0; d < axis; ++d) outer *= dims[d];
  std::vector<Cd> line(n);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = o * n * inner + i;
      for (int64_t j = 0; j < n; ++j) line[j] = block[base + j * inner];
      Transform(line, sign);
      for (int64_t j = 0; j < n; ++j) block[base + j * inner] = line[j];
    }
  }
}

// Copies the overlap of a row-major `src` block of `src_dims` into `dst` of
// `dst_dims` (same rank; the rest of dst untouched).
template <typename Get, typename Put>
void CopyOverlap(absl::Span<const int64_t> src_dims,
                 absl::Span<const int64_t> dst_dims, Get get, Put put) {
  const size_t r = src_dims.size();
  std::vector<int64_t> common(r);
  for (size_t d = 0; d < r; ++d) {
    common[d] = std::min(src_dims[d], dst_dims[d]);
  }
  const std::vector<int64_t> ss = RowMajorStrides(src_dims);
  const std::vector<int64_t> ds = RowMajorStrides(dst_dims);
  ForEachIndexRowMajor(common, [&](absl::Span<const int64_t> idx) {
    int64_t s = 0, t = 0;
    for (size_t d = 0; d < r; ++d) {
      s += idx[d] * ss[d];
      t += idx[d] * ds[d];
    }
    put(t, get(s));
  });
}

template <typename T>
Cd ToCd(T v) {
  if constexpr (kIsComplex<T>) {
    return Cd(v.real(), v.imag());
  } else {
    return Cd(static_cast<double>(v), 0.0);
  }
}

template <typename T>
T FromCd(Cd v) {
  if constexpr (kIsComplex<T>) {
    using R = typename T::value_type;
    return T(static_cast<R>(v.real()), static_cast<R>(v.imag()));
  } else {
    return static_cast<T>(v.real());
  }
}

// One batch: `in` points at the operand's block (dims in_dims), `out` at the
// result's (out_dims); both are the fft dimensions only.
template <typename In, typename Out>
void RunOne(FftType type, absl::Span<const int64_t> len, const In* in,
            absl::Span<const int64_t> in_dims, Out* out,
            absl::Span<const int64_t> out_dims) {
  const size_t r = len.size();
  int64_t total = 1;
  for (int64_t n : len) total *= n;
  if (type == FftType::kIrfft) {
    // numpy's irfftn: inverse transforms over all but the last axis of the
    // half spectrum, then a Hermitian inverse along the last one.
    std::vector<int64_t> half(len.begin(), len.end());
    const int64_t n = len[r - 1];
    half[r - 1] = n / 2 + 1;
    int64_t half_count = 1;
    for (int64_t h : half) half_count *= h;
    std::vector<Cd> spec(half_count, Cd(0));
    CopyOverlap(
        in_dims, half, [&](int64_t s) { return ToCd(in[s]); },
        [&](int64_t t, Cd v) { spec[t] = v; });
    for (size_t axis = 0; axis + 1 < r; ++axis) {
      TransformAxis(spec, half, axis, +1);
    }
    std::vector<Cd> full(total, Cd(0));
    const int64_t rows = half_count / half[r - 1];
    std::vector<Cd> line(n);
    for (int64_t row = 0; row < rows; ++row) {
      const Cd* h = spec.data() + row * half[r - 1];
      for (int64_t k = 0; k < n; ++k) {
        // Imaginary parts of X[0] and X[n/2] only reach the imaginary part
        // of the result, which is dropped: numpy's c2r ignores them too.
        line[k] = k <= n / 2 ? h[k] : std::conj(h[n - k]);
      }
      Transform(line, +1);
      for (int64_t k = 0; k < n; ++k) full[row * n + k] = line[k];
    }
    const double scale = total > 0 ? 1.0 / static_cast<double>(total) : 1.0;
    CopyOverlap(
        len, out_dims, [&](int64_t s) { return full[s] * scale; },
        [&](int64_t t, Cd v) { out[t] = FromCd<Out>(v); });
    return;
  }
  std::vector<Cd> buf(total, Cd(0));
  CopyOverlap(
      in_dims, len, [&](int64_t s) { return ToCd(in[s]); },
      [&](int64_t t, Cd v) { buf[t] = v; });
  const int sign = type == FftType::kIfft ? +1 : -1;
  for (size_t axis = 0; axis < r; ++axis) TransformAxis(buf, len, axis, sign);
  const double scale = type == FftType::kIfft && total > 0
                           ? 1.0 / static_cast<double>(total)
                           : 1.0;
  // RFFT: the result's last extent is fft_length/2+1, so the overlap keeps
  // the non-negative frequencies.
  CopyOverlap(
      len, out_dims, [&](int64_t s) { return buf[s] * scale; },
      [&](int64_t t, Cd v) { out[t] = FromCd<Out>(v); });
}

template <typename In, typename Out>
void RunAll(FftType type, absl::Span<const int64_t> len,
            absl::Span<const int64_t> in_all, const void* in_v,
            absl::Span<const int64_t> out_all, void* out_v) {
  const size_t r = len.size();
  const size_t rank = in_all.size();
  absl::Span<const int64_t> in_dims = in_all.subspan(rank - r);
  absl::Span<const int64_t> out_dims = out_all.subspan(rank - r);
  int64_t batch = 1;
  for (size_t d = 0; d + r < rank; ++d) batch *= in_all[d];
  const int64_t in_block = ElementCount(in_dims);
  const int64_t out_block = ElementCount(out_dims);
  const In* in = static_cast<const In*>(in_v);
  Out* out = static_cast<Out*>(out_v);
  for (int64_t b = 0; b < batch; ++b) {
    RunOne<In, Out>(type, len, in + b * in_block, in_dims, out + b * out_block,
                    out_dims);
  }
}

}  // namespace

absl::Status FftKernel(FftType type, absl::Span<const int64_t> fft_length,
                       PrimitiveType it, absl::Span<const int64_t> in_dims,
                       const void* in, PrimitiveType ot,
                       absl::Span<const int64_t> out_dims, void* out) {
  const size_t r = fft_length.size();
  if (r < 1 || r > 3 || in_dims.size() < r ||
      out_dims.size() != in_dims.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "fft: fft_length {", absl::StrJoin(fft_length, ","),
        "} does not fit operand dimensions {", absl::StrJoin(in_dims, ","),
        "} and result dimensions {", absl::StrJoin(out_dims, ","), "}"));
  }
  for (size_t d = 0; d + r < in_dims.size(); ++d) {
    if (in_dims[d] != out_dims[d]) {
      return absl::InvalidArgumentError(
          "fft: the batch dimensions of operand and result differ");
    }
  }
  int64_t total = 1;
  for (int64_t n : fft_length) {
    if (n < 0) return absl::InvalidArgumentError("fft: negative fft_length");
    // A bound on the work buffer: FFT/IFFT's fft_length is not tied to the
    // operand's extent, so it could ask for any amount of memory.
    if (n > 0 && total > (int64_t{1} << 28) / n) {
      return absl::UnimplementedError(
          absl::StrCat("fft: fft_length {", absl::StrJoin(fft_length, ","),
                       "} exceeds 2^28 elements"));
    }
    total *= n;
  }
  using C64 = std::complex<float>;
  using C128 = std::complex<double>;
  const bool complex_to_complex =
      type == FftType::kFft || type == FftType::kIfft;
  if (complex_to_complex && it == PrimitiveType::C64 &&
      ot == PrimitiveType::C64) {
    RunAll<C64, C64>(type, fft_length, in_dims, in, out_dims, out);
  } else if (complex_to_complex && it == PrimitiveType::C128 &&
             ot == PrimitiveType::C128) {
    RunAll<C128, C128>(type, fft_length, in_dims, in, out_dims, out);
  } else if (type == FftType::kRfft && it == PrimitiveType::F32 &&
             ot == PrimitiveType::C64) {
    RunAll<float, C64>(type, fft_length, in_dims, in, out_dims, out);
  } else if (type == FftType::kRfft && it == PrimitiveType::F64 &&
             ot == PrimitiveType::C128) {
    RunAll<double, C128>(type, fft_length, in_dims, in, out_dims, out);
  } else if (type == FftType::kIrfft && it == PrimitiveType::C64 &&
             ot == PrimitiveType::F32) {
    RunAll<C64, float>(type, fft_length, in_dims, in, out_dims, out);
  } else if (type == FftType::kIrfft && it == PrimitiveType::C128 &&
             ot == PrimitiveType::F64) {
    RunAll<C128, double>(type, fft_length, in_dims, in, out_dims, out);
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "fft: ", FftTypeString(type), " does not take ",
        primitive_util::Name(it), " to ", primitive_util::Name(ot)));
  }
  return absl::OkStatus();
}

absl::StatusOr<Literal> EvalFft(Interpreter&, const Instruction& instr,
                                Operands ops) {
  if (ops.size() != 1) return Invalid(instr, "expected one operand");
  const Shape& is = ops[0]->shape();
  if (!is.IsArray() || !instr.shape().IsArray()) {
    return Invalid(instr, absl::StrCat("cannot transform ", is.ToString(),
                                       " into ", instr.shape().ToString()));
  }
  Literal out = MakeLiteral(instr.shape());
  absl::Status st = FftKernel(
      instr.attrs().fft_type, instr.attrs().fft_length, is.element_type(),
      is.dimensions(), ops[0]->data().data(), instr.shape().element_type(),
      instr.shape().dimensions(), out.mutable_data().data());
  if (!st.ok()) {
    return absl::Status(st.code(), absl::StrCat("evaluator: ", InstrName(instr),
                                                ": ", st.message()));
  }
  return out;
}

}  // namespace plexa::eval
