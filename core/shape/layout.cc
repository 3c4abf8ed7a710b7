#include "core/shape/layout.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace plexa {

std::string Tile::ToString() const {
  std::string out = "(";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i) out += ",";
    if (dims_[i] == kCombineDimension) {
      out += "*";
    } else {
      absl::StrAppend(&out, dims_[i]);
    }
  }
  out += ")";
  return out;
}

bool Layout::Equal::operator()(const Layout& a, const Layout& b) const {
  if (a.minor_to_major_ != b.minor_to_major_) return false;
  if (!ignore_tiles_ && a.tiles_ != b.tiles_) return false;
  if (!ignore_memory_space_ && a.memory_space_ != b.memory_space_) {
    return false;
  }
  if (!ignore_padding_ && (a.padded_dimensions_ != b.padded_dimensions_ ||
                           a.padding_value_ != b.padding_value_ ||
                           a.tail_padding_alignment_in_elements_ !=
                               b.tail_padding_alignment_in_elements_)) {
    return false;
  }
  if (!ignore_element_size_ &&
      a.element_size_in_bits_ != b.element_size_in_bits_) {
    return false;
  }
  return true;
}

namespace {
absl::string_view PaddingValueName(PaddingValue v) {
  switch (v) {
    case PaddingValue::kZero:
      return "zero";
    case PaddingValue::kLowest:
      return "lowest";
    case PaddingValue::kHighest:
      return "highest";
    case PaddingValue::kUnknown:
      return "unknown";
  }
  return "unknown";
}
}  // namespace

std::string Layout::ToString() const {
  // Order of the suffixes follows XLA's Layout::Print: tiles, L(tail
  // alignment), E(element size), S(memory space); then Plexa's PD/PV.
  std::string out = "{";
  absl::StrAppend(&out, absl::StrJoin(minor_to_major_, ","));
  bool colon = false;
  auto sep = [&] {
    if (!colon) {
      out += ":";
      colon = true;
    }
  };
  if (!tiles_.empty()) {
    sep();
    out += "T";
    for (const Tile& t : tiles_) out += t.ToString();
  }
  if (tail_padding_alignment_in_elements_ != 1) {
    sep();
    absl::StrAppend(&out, "L(", tail_padding_alignment_in_elements_, ")");
  }
  if (element_size_in_bits_ != 0) {
    sep();
    absl::StrAppend(&out, "E(", element_size_in_bits_, ")");
  }
  if (memory_space_ != 0) {
    sep();
    absl::StrAppend(&out, "S(", memory_space_, ")");
  }
  if (!padded_dimensions_.empty()) {
    sep();
    absl::StrAppend(&out, "PD(", absl::StrJoin(padded_dimensions_, ","), ")");
  }
  if (padding_value_ != PaddingValue::kZero) {
    sep();
    absl::StrAppend(&out, "PV(", PaddingValueName(padding_value_), ")");
  }
  out += "}";
  return out;
}

}  // namespace plexa
