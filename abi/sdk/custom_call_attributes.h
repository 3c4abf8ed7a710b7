// The typed attributes of a custom call (ABI 1.2, PLX_Attribute): XLA's
// MLIR attribute dictionary in the backend_config of an
// api_version=API_VERSION_TYPED_FFI custom call, parsed once at compile
// time into PLX_Attribute entries sorted by name.
//
// Accepted values (what XLA's FFI passes as scalars, strings and arrays):
//   n = 4 : i32          INT64 (i1..i64, si.., ui.., index; a missing type
//                        is i64); the value must fit the type; ui64 values
//                        above 2^63-1 keep their bits (read them as uint64)
//   flag = true          BOOL (also `1 : i1`)
//   eps = 1.0e-05 : f32  DOUBLE (f16, bf16, f32, f64; a missing type is
//                        f64), rounded to the type; hexadecimal bits
//                        (0x7F800000 : f32) as MLIR prints inf and nan
//   name = "x"           STRING (escapes \" \\ \n \t and \XX hex)
//   dims = array<i64: 1, 2>   INT64_ARRAY (array<i1|iN|uN|siN...>)
//   fs = array<f32: 1.5, 2.0> DOUBLE_ARRAY (array<f16|bf16|f32|f64...>)
// Names are identifiers ([A-Za-z_][A-Za-z0-9_$.]*) or quoted strings; a
// name may appear once. `{}` and the empty text have no attributes.
// Anything else (nested dictionaries, [..] lists, dense<..>, unit
// attributes) is an InvalidArgument naming the offset in the text.
//
// Example: `{dims = array<i64: 1, 2>, n = 4 : i32}` gives two entries,
// dims (INT64_ARRAY {1, 2}) then n (INT64 4).
#ifndef PLEXA_ABI_SDK_CUSTOM_CALL_ATTRIBUTES_H_
#define PLEXA_ABI_SDK_CUSTOM_CALL_ATTRIBUTES_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "plexa/plexa_c_api.h"

namespace plexa::sdk {

class CustomCallAttributes {
 public:
  // Errors: InvalidArgument "at offset N (near '...'): expected ...". The
  // result never moves, so attributes() stays valid while it is held.
  static absl::StatusOr<std::shared_ptr<const CustomCallAttributes>> Parse(
      absl::string_view text);

  CustomCallAttributes(const CustomCallAttributes&) = delete;
  CustomCallAttributes& operator=(const CustomCallAttributes&) = delete;

  // Sorted by name; the strings and arrays point into this object.
  absl::Span<const PLX_Attribute> attributes() const { return view_; }

 private:
  struct Entry {
    std::string name;
    PLX_AttributeKind kind = PLX_Attribute_INT64;
    int64_t int64_value = 0;
    double double_value = 0;
    std::string string_value;
    std::vector<int64_t> int64_array;
    std::vector<double> double_array;
  };
  friend class AttributeParser;
  CustomCallAttributes() = default;
  void BuildView();

  std::vector<Entry> entries_;
  std::vector<PLX_Attribute> view_;
};

}  // namespace plexa::sdk

#endif  // PLEXA_ABI_SDK_CUSTOM_CALL_ATTRIBUTES_H_
