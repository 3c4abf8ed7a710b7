#include "tools/conformance/compare.h"

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/types/span.h"
#include "core/shape/shape_util.h"

namespace plexa {
namespace {

constexpr size_t kMaxLiteralText = 1500;

std::string Truncated(std::string s) {
  if (s.size() > kMaxLiteralText) {
    s.resize(kMaxLiteralText);
    s += " ...";
  }
  return s;
}

std::string IndexString(absl::Span<const int64_t> index) {
  return absl::StrCat("[", absl::StrJoin(index, ","), "]");
}

// A floating-point value with its raw bits and bit width.
struct FloatValue {
  double value;
  uint64_t bits;
  int width;
};

template <typename T, typename Bits>
FloatValue MakeFloat(T v) {
  Bits b;
  std::memcpy(&b, &v, sizeof(b));
  return {static_cast<double>(v), static_cast<uint64_t>(b),
          static_cast<int>(8 * sizeof(Bits))};
}

// The real components of element `index` (one for real types, two for
// complex ones).
std::vector<FloatValue> FloatComponents(const Literal& lit,
                                        absl::Span<const int64_t> index) {
  switch (lit.shape().element_type()) {
    case PrimitiveType::F16: {
      const Half h = lit.Get<Half>(index);
      return {{static_cast<double>(static_cast<float>(h)), h.bits, 16}};
    }
    case PrimitiveType::BF16: {
      const BFloat16 h = lit.Get<BFloat16>(index);
      return {{static_cast<double>(static_cast<float>(h)), h.bits, 16}};
    }
    case PrimitiveType::F32:
      return {MakeFloat<float, uint32_t>(lit.Get<float>(index))};
    case PrimitiveType::F64:
      return {MakeFloat<double, uint64_t>(lit.Get<double>(index))};
    case PrimitiveType::C64: {
      const std::complex<float> c = lit.Get<std::complex<float>>(index);
      return {MakeFloat<float, uint32_t>(c.real()),
              MakeFloat<float, uint32_t>(c.imag())};
    }
    case PrimitiveType::C128: {
      const std::complex<double> c = lit.Get<std::complex<double>>(index);
      return {MakeFloat<double, uint64_t>(c.real()),
              MakeFloat<double, uint64_t>(c.imag())};
    }
    default:
      if (primitive_util::IsF8Type(lit.shape().element_type()) ||
          lit.shape().element_type() == PrimitiveType::F4E2M1FN) {
        // One byte an element; GetAsDouble is exact for these types.
        const int width = static_cast<int>(
            primitive_util::BitWidth(lit.shape().element_type()));
        const uint8_t bits = lit.Get<uint8_t>(index);
        return {{lit.GetAsDouble(index), bits, width}};
      }
      return {};
  }
}

// Sign-magnitude bits mapped onto a line where adjacent floats differ by 1
// (-0 and +0 both map to 0).
int64_t OrderedBits(const FloatValue& f) {
  const uint64_t sign = f.bits >> (f.width - 1);
  const uint64_t magnitude =
      f.bits & ((f.width == 64 ? ~uint64_t{0} >> 1
                               : (uint64_t{1} << (f.width - 1)) - 1));
  return sign ? -static_cast<int64_t>(magnitude)
              : static_cast<int64_t>(magnitude);
}

bool FloatMatches(const FloatValue& e, const FloatValue& a,
                  const Tolerance& tol) {
  if (std::isnan(e.value) || std::isnan(a.value)) {
    return std::isnan(e.value) && std::isnan(a.value);
  }
  if (tol.bits) return e.bits == a.bits;
  if (e.value == a.value) return true;
  if (std::isinf(e.value) || std::isinf(a.value)) return false;
  if (std::fabs(a.value - e.value) <=
      tol.atol + tol.rtol * std::fabs(e.value)) {
    return true;
  }
  if (tol.ulps > 0) {
    const int64_t d = OrderedBits(e) - OrderedBits(a);
    if ((d < 0 ? -d : d) <= tol.ulps) return true;
  }
  return false;
}

std::string FloatString(const FloatValue& f) {
  return absl::StrFormat("%.*g (0x%0*x)", f.width == 64 ? 17 : 9, f.value,
                         f.width / 4, f.bits);
}

std::string ElementString(const Literal& lit, absl::Span<const int64_t> index) {
  const PrimitiveType t = lit.shape().element_type();
  if (t == PrimitiveType::PRED) {
    return lit.Get<bool>(index) ? "true" : "false";
  }
  if (primitive_util::IsSignedIntegralType(t)) {
    return absl::StrCat(lit.GetAsInt64(index));
  }
  if (primitive_util::IsUnsignedIntegralType(t)) {
    return absl::StrCat(lit.GetAsUint64(index));
  }
  std::vector<FloatValue> parts = FloatComponents(lit, index);
  if (parts.size() == 2) {
    return absl::StrCat("(", FloatString(parts[0]), ", ", FloatString(parts[1]),
                        ")");
  }
  return parts.empty() ? "?" : FloatString(parts[0]);
}

bool ElementMatches(const Literal& expected, const Literal& actual,
                    absl::Span<const int64_t> index, const Tolerance& tol) {
  const PrimitiveType t = expected.shape().element_type();
  if (t == PrimitiveType::PRED) {
    return expected.Get<bool>(index) == actual.Get<bool>(index);
  }
  if (primitive_util::IsSignedIntegralType(t)) {
    return expected.GetAsInt64(index) == actual.GetAsInt64(index);
  }
  if (primitive_util::IsUnsignedIntegralType(t)) {
    return expected.GetAsUint64(index) == actual.GetAsUint64(index);
  }
  std::vector<FloatValue> e = FloatComponents(expected, index);
  std::vector<FloatValue> a = FloatComponents(actual, index);
  if (e.empty() || e.size() != a.size()) return false;
  for (size_t i = 0; i < e.size(); ++i) {
    if (!FloatMatches(e[i], a[i], tol)) return false;
  }
  return true;
}

std::string CompareRec(const Literal& expected, const Literal& actual,
                       const Tolerance& tol, const std::string& where) {
  const Shape& es = expected.shape();
  const Shape& as = actual.shape();
  const std::string place = where.empty() ? "result" : "result" + where;
  if (es.IsTuple()) {
    if (!as.IsTuple() || as.tuple_shapes_size() != es.tuple_shapes_size()) {
      return absl::StrCat(place, ": expected shape ", es.ToString(false),
                          ", got ", as.ToString(false));
    }
    for (int64_t i = 0; i < expected.tuple_element_count(); ++i) {
      std::string m =
          CompareRec(expected.tuple_element(i), actual.tuple_element(i), tol,
                     absl::StrCat(where, "{", i, "}"));
      if (!m.empty()) return m;
    }
    return "";
  }
  if (es.IsToken()) {
    return as.IsToken() ? ""
                        : absl::StrCat(place, ": expected a token, got ",
                                       as.ToString(false));
  }
  if (!as.IsArray() || es.element_type() != as.element_type() ||
      !ShapeUtil::SameDimensions(es, as)) {
    return absl::StrCat(place, ": expected shape ", es.ToString(false),
                        ", got ", as.ToString(false));
  }
  int64_t mismatches = 0;
  std::vector<int64_t> first;
  ShapeUtil::ForEachIndex(es, [&](absl::Span<const int64_t> index) {
    if (!ElementMatches(expected, actual, index, tol)) {
      if (mismatches == 0) first.assign(index.begin(), index.end());
      ++mismatches;
    }
  });
  if (mismatches == 0) return "";
  return absl::StrCat(
      place, ": element ", IndexString(first), " differs: expected ",
      ElementString(expected, first), ", actual ", ElementString(actual, first),
      " (tolerance ", tol.ToString(), "); ", mismatches, " of ",
      ShapeUtil::ElementsIn(es),
      " elements differ\n  expected: ", Truncated(expected.ToString()),
      "\n  actual:   ", Truncated(actual.ToString()));
}

}  // namespace

std::string CompareLiterals(const Literal& expected, const Literal& actual,
                            const Tolerance& tol) {
  return CompareRec(expected, actual, tol, "");
}

std::string CheckLiteral(const ValueCheck& check, const Literal& actual) {
  const Shape& as = actual.shape();
  if (!as.IsArray() || as.element_type() != check.shape.element_type() ||
      !ShapeUtil::SameDimensions(as, check.shape)) {
    return absl::StrCat("check '", check.text, "': result shape ",
                        as.ToString(false), ", expected ",
                        check.shape.ToString(false));
  }
  const int64_t n = ShapeUtil::ElementsIn(as);
  std::string failure;
  double sum = 0, sum_sq = 0;
  ShapeUtil::ForEachIndex(as, [&](absl::Span<const int64_t> index) {
    const double v = actual.GetAsDouble(index);
    sum += v;
    sum_sq += v * v;
    if (check.kind != ValueCheck::Kind::kRange || !failure.empty()) return;
    const bool lo_ok = check.lo_inclusive ? v >= check.lo : v > check.lo;
    const bool hi_ok = check.hi_inclusive ? v <= check.hi : v < check.hi;
    if (!lo_ok || !hi_ok) {
      failure =
          absl::StrCat("check '", check.text, "': element ", IndexString(index),
                       " = ", absl::StrFormat("%.17g", v), " is out of range");
    }
  });
  if (!failure.empty()) {
    return absl::StrCat(failure, "\n  actual: ", Truncated(actual.ToString()));
  }
  if (check.kind == ValueCheck::Kind::kMoments) {
    if (n < 2) return absl::StrCat("check '", check.text, "': too few values");
    const double mean = sum / n;
    const double var = std::max(0.0, sum_sq / n - mean * mean);
    const double sd = std::sqrt(var);
    if (!(std::fabs(mean - check.mean) <= check.tol) ||
        !(std::fabs(sd - check.stddev) <= check.tol)) {
      return absl::StrCat("check '", check.text, "': mean ", mean, ", std ",
                          sd);
    }
  }
  return "";
}

}  // namespace plexa
