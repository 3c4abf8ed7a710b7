#include "dtypes.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace py = pybind11;

namespace plexa::python {
namespace {

// ml_dtypes' name for a Plexa type that numpy lacks, or "".
const char* MlDtypesName(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::BF16:
      return "bfloat16";
    case PrimitiveType::F8E5M2:
      return "float8_e5m2";
    case PrimitiveType::F8E4M3FN:
      return "float8_e4m3fn";
    case PrimitiveType::F8E4M3B11FNUZ:
      return "float8_e4m3b11fnuz";
    case PrimitiveType::F8E5M2FNUZ:
      return "float8_e5m2fnuz";
    case PrimitiveType::F8E4M3FNUZ:
      return "float8_e4m3fnuz";
    default:
      return "";
  }
}

}  // namespace

absl::StatusOr<PrimitiveType> TypeFromDtype(const py::dtype& dtype,
                                            absl::string_view context) {
  const char kind = dtype.kind();
  const int64_t size = static_cast<int64_t>(dtype.itemsize());
  const std::string name = dtype.attr("name").cast<std::string>();
  const char byteorder = dtype.attr("byteorder").cast<std::string>()[0];
  if (byteorder == '>') {
    return absl::InvalidArgumentError(
        absl::StrCat(context, ": dtype ", name,
                     " is big-endian; Plexa's buffers are little-endian (use "
                     "array.astype(array.dtype.newbyteorder('<')))"));
  }
  switch (kind) {
    case 'b':
      if (size == 1) return PrimitiveType::PRED;
      break;
    case 'i':
      if (size == 1) return PrimitiveType::S8;
      if (size == 2) return PrimitiveType::S16;
      if (size == 4) return PrimitiveType::S32;
      if (size == 8) return PrimitiveType::S64;
      break;
    case 'u':
      if (size == 1) return PrimitiveType::U8;
      if (size == 2) return PrimitiveType::U16;
      if (size == 4) return PrimitiveType::U32;
      if (size == 8) return PrimitiveType::U64;
      break;
    case 'f':
      if (size == 2) return PrimitiveType::F16;
      if (size == 4) return PrimitiveType::F32;
      if (size == 8) return PrimitiveType::F64;
      break;
    case 'c':
      if (size == 8) return PrimitiveType::C64;
      if (size == 16) return PrimitiveType::C128;
      break;
    case 'V':
      // ml_dtypes registers its types as numpy void-kind dtypes.
      for (PrimitiveType t :
           {PrimitiveType::BF16, PrimitiveType::F8E5M2, PrimitiveType::F8E4M3FN,
            PrimitiveType::F8E4M3B11FNUZ, PrimitiveType::F8E5M2FNUZ,
            PrimitiveType::F8E4M3FNUZ}) {
        if (name == MlDtypesName(t)) return t;
      }
      break;
    default:
      break;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      context, ": numpy dtype ", name,
      " has no Plexa element type (bool, int8..int64, uint8..uint64, "
      "float16, float32, float64, complex64, complex128; bfloat16 with "
      "ml_dtypes)"));
}

absl::StatusOr<py::dtype> DtypeFromType(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::PRED:
      return py::dtype::of<bool>();
    case PrimitiveType::S8:
      return py::dtype::of<int8_t>();
    case PrimitiveType::S16:
      return py::dtype::of<int16_t>();
    case PrimitiveType::S32:
      return py::dtype::of<int32_t>();
    case PrimitiveType::S64:
      return py::dtype::of<int64_t>();
    case PrimitiveType::U8:
      return py::dtype::of<uint8_t>();
    case PrimitiveType::U16:
      return py::dtype::of<uint16_t>();
    case PrimitiveType::U32:
      return py::dtype::of<uint32_t>();
    case PrimitiveType::U64:
      return py::dtype::of<uint64_t>();
    case PrimitiveType::F16:
      return py::dtype("float16");
    case PrimitiveType::F32:
      return py::dtype::of<float>();
    case PrimitiveType::F64:
      return py::dtype::of<double>();
    case PrimitiveType::C64:
      return py::dtype("complex64");
    case PrimitiveType::C128:
      return py::dtype("complex128");
    default:
      break;
  }
  if (const char* ml = MlDtypesName(type); ml[0] != '\0') {
    py::module_ ml_dtypes;
    try {
      ml_dtypes = py::module_::import("ml_dtypes");
    } catch (const py::error_already_set&) {
      return absl::UnimplementedError(
          absl::StrCat("element type ", primitive_util::Name(type),
                       " has no numpy dtype without the ml_dtypes package "
                       "(not installed)"));
    }
    return py::dtype::from_args(ml_dtypes.attr(ml));
  }
  return absl::UnimplementedError(absl::StrCat(
      "element type ", primitive_util::Name(type), " has no numpy dtype"));
}

}  // namespace plexa::python
