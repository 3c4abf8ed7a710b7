// Shape inference for fft and topk, as XLA's ShapeInference::InferFftShape
// and InferTopKShape (the verifier checks a declared shape against these).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/infer/infer_util.h"
#include "core/infer/shape_inference.h"
#include "core/ir/instruction.h"
#include "core/shape/shape_util.h"

namespace plexa::shape_inference {

using internal::ExpectArray;
using internal::Invalid;
using internal::IsComplex;
using internal::NoLayout;
using internal::Str;

absl::StatusOr<Shape> InferFftShape(const Shape& in, FftType fft_type,
                                    absl::Span<const int64_t> fft_length) {
  const absl::string_view type = FftTypeString(fft_type);
  PLEXA_RETURN_IF_ERROR(ExpectArray(in, "operand of fft"));
  const int64_t fft_rank = static_cast<int64_t>(fft_length.size());
  if (fft_rank < 1 || fft_rank > 3) {
    return Invalid("fft (", type, ") of ", Str(in),
                   ": fft_length must name 1 to 3 dimensions; got ",
                   Str(fft_length), ".");
  }
  for (int64_t n : fft_length) {
    if (n < 0) {
      return Invalid("fft (", type, ") of ", Str(in), ": negative fft_length ",
                     Str(fft_length), ".");
    }
  }
  if (in.rank() < fft_rank) {
    return Invalid("fft (", type, ") of rank ", fft_rank, " requires an ",
                   "operand of at least that rank; got ", Str(in), ".");
  }
  const int64_t first = in.rank() - fft_rank;  // the outermost fft dimension
  Shape result = NoLayout(in);
  switch (fft_type) {
    case FftType::kFft:
    case FftType::kIfft:
      // XLA checks only the type and rank here: the transform reads and
      // writes fft_length elements per dimension (zero-padded, truncated).
      if (!IsComplex(in.element_type())) {
        return Invalid("fft (", type, ") requires a complex operand; got ",
                       Str(in), ".");
      }
      return result;
    case FftType::kRfft: {
      if (in.element_type() != PrimitiveType::F32 &&
          in.element_type() != PrimitiveType::F64) {
        return Invalid("fft (RFFT) requires an f32 or f64 operand; got ",
                       Str(in), ".");
      }
      for (int64_t i = 0; i < fft_rank; ++i) {
        if (in.dimensions(first + i) != fft_length[i]) {
          return Invalid("fft (RFFT) of ", Str(in),
                         ": the innermost dimensions must match fft_length ",
                         Str(fft_length), ", but dimension ", first + i, " is ",
                         in.dimensions(first + i), " and should be ",
                         fft_length[i], ".");
        }
      }
      result.set_element_type(in.element_type() == PrimitiveType::F32
                                  ? PrimitiveType::C64
                                  : PrimitiveType::C128);
      // XLA keeps a zero-sized last dimension zero.
      if (fft_length[fft_rank - 1] != 0) {
        result.set_dimensions(in.rank() - 1, fft_length[fft_rank - 1] / 2 + 1);
      }
      return result;
    }
    case FftType::kIrfft: {
      if (!IsComplex(in.element_type())) {
        return Invalid("fft (IRFFT) requires a complex operand; got ", Str(in),
                       ".");
      }
      for (int64_t i = 0; i + 1 < fft_rank; ++i) {
        if (in.dimensions(first + i) != fft_length[i]) {
          return Invalid(
              "fft (IRFFT) of ", Str(in),
              ": all but the innermost fft dimension must match fft_length ",
              Str(fft_length), ", but dimension ", first + i, " is ",
              in.dimensions(first + i), " and should be ", fft_length[i], ".");
        }
      }
      const int64_t last = in.dimensions(in.rank() - 1);
      const int64_t n = fft_length[fft_rank - 1];
      if ((last != 0 || n != 0) && last != n / 2 + 1) {
        return Invalid("fft (IRFFT) of ", Str(in),
                       ": the innermost dimension must be fft_length/2+1 = ",
                       n / 2 + 1, " (fft_length ", Str(fft_length),
                       "), but dimension ", in.rank() - 1, " is ", last, ".");
      }
      result.set_element_type(in.element_type() == PrimitiveType::C64
                                  ? PrimitiveType::F32
                                  : PrimitiveType::F64);
      result.set_dimensions(in.rank() - 1, n);
      return result;
    }
  }
  return Invalid("fft of ", Str(in), ": unknown fft_type ",
                 static_cast<int>(fft_type), ".");
}

absl::StatusOr<Shape> InferTopKShape(const Shape& operand, int64_t k) {
  PLEXA_RETURN_IF_ERROR(ExpectArray(operand, "operand of topk"));
  if (operand.rank() < 1) {
    return Invalid("topk of ", Str(operand),
                   ": the operand must have rank >= 1 (top-k runs along the "
                   "last dimension).");
  }
  const int64_t last = operand.rank() - 1;
  if (k < 0) {
    return Invalid("topk of ", Str(operand), ": k=", k, " is negative.");
  }
  if (operand.dimensions(last) < k) {
    return Invalid("topk of ", Str(operand), ": k=", k,
                   " is larger than the last dimension of size ",
                   operand.dimensions(last), ".");
  }
  Shape values = NoLayout(operand);
  values.set_dimensions(last, k);
  Shape indices = values;
  indices.set_element_type(PrimitiveType::S32);
  return ShapeUtil::MakeTupleShape({values, indices});
}

absl::StatusOr<int64_t> TopKCustomCallK(const Instruction& call) {
  const std::string what = absl::StrCat("custom-call %", call.name(),
                                        " (custom_call_target=\"TopK\")");
  if (call.operand_count() != 1) {
    return Invalid(what, " expects one operand, got ", call.operand_count(),
                   ".");
  }
  const Shape& operand = call.operand(0)->shape();
  const Shape& result = call.shape();
  if (!operand.IsArray() || operand.rank() < 1 || operand.rank() > 2) {
    return Invalid(what, ": the operand must be [n] or [batch, n]; got ",
                   Str(operand), ".");
  }
  if (!result.IsTuple() || result.tuple_shapes().size() != 2 ||
      !result.tuple_shapes()[0].IsArray() ||
      result.tuple_shapes()[0].rank() != operand.rank()) {
    return Invalid(what, ": the result must be (values, s32 indices) of ",
                   "rank ", operand.rank(), "; got ", Str(result), ".");
  }
  const Shape& values = result.tuple_shapes()[0];
  const int64_t k = values.dimensions(values.rank() - 1);
  PLEXA_ASSIGN_OR_RETURN(Shape expected, InferTopKShape(operand, k));
  if (!internal::Compatible(expected, result)) {
    return Invalid(what, " of ", Str(operand), ": the result must be ",
                   Str(expected), " (k=", k, "); got ", Str(result), ".");
  }
  return k;
}

}  // namespace plexa::shape_inference
