// Layout: how an array is laid out in linear memory (seeds 000, 001, 002).
//
//   minor_to_major   dimension order, most minor first ({1,0} = row major)
//   tiles            T(8,128)(2,1): tiling applied to the minor dimensions
//   memory_space     S(n): 0 = device memory (omitted), 1 = VMEM, 5 = host
//   padded_dimensions/padding_value
//                    seed 000's padding: every dimension padded to a width
//   tail_padding_alignment_in_elements
//                    seed 001: after tiling, the element count is padded up
//                    to a multiple of this (printed L(n) as XLA does)
//   element_size_in_bits
//                    E(n): sub-byte packing of elements (0 = natural size)
//
// The text form follows XLA's printer, e.g. {3,2,0,1:T(8,128)(2,1)S(1)}.
// padded_dimensions has no XLA text spelling (XLA dropped the field); Plexa
// prints it as PD(3,5) and a non-zero padding value as PV(lowest|highest|
// unknown), an extension documented in docs/ops.md.
#ifndef PLEXA_CORE_SHAPE_LAYOUT_H_
#define PLEXA_CORE_SHAPE_LAYOUT_H_

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"

namespace plexa {

// One tile: sizes for the most-minor dimensions it covers (XLA's Tile).
// kCombineDimension ('*' in text) merges a dimension into the next one.
class Tile {
 public:
  static constexpr int64_t kCombineDimension =
      std::numeric_limits<int64_t>::min();

  Tile() = default;
  explicit Tile(absl::Span<const int64_t> dims)
      : dims_(dims.begin(), dims.end()) {}

  absl::Span<const int64_t> dimensions() const { return dims_; }
  int64_t dimension(int64_t i) const { return dims_[i]; }
  void add_dimension(int64_t d) { dims_.push_back(d); }

  bool operator==(const Tile& o) const { return dims_ == o.dims_; }
  bool operator!=(const Tile& o) const { return !(*this == o); }
  template <typename H>
  friend H AbslHashValue(H h, const Tile& t) {
    return H::combine(std::move(h), t.dims_);
  }

  // "(8,128)"; "*" for a combined dimension.
  std::string ToString() const;

 private:
  absl::InlinedVector<int64_t, 2> dims_;
};

// Seed 000's PaddingValue.
enum class PaddingValue : int32_t {
  kZero = 0,
  kLowest = 1,
  kHighest = 2,
  kUnknown = 3,
};

class Layout {
 public:
  Layout() = default;
  explicit Layout(absl::Span<const int64_t> minor_to_major)
      : minor_to_major_(minor_to_major.begin(), minor_to_major.end()) {}

  absl::Span<const int64_t> minor_to_major() const { return minor_to_major_; }
  int64_t minor_to_major(int64_t i) const { return minor_to_major_[i]; }
  std::vector<int64_t>* mutable_minor_to_major() { return &minor_to_major_; }
  Layout& set_minor_to_major(absl::Span<const int64_t> m2m) {
    minor_to_major_.assign(m2m.begin(), m2m.end());
    return *this;
  }

  absl::Span<const Tile> tiles() const { return tiles_; }
  std::vector<Tile>* mutable_tiles() { return &tiles_; }
  Layout& add_tile(Tile t) {
    tiles_.push_back(std::move(t));
    return *this;
  }

  int64_t memory_space() const { return memory_space_; }
  Layout& set_memory_space(int64_t s) {
    memory_space_ = s;
    return *this;
  }

  absl::Span<const int64_t> padded_dimensions() const {
    return padded_dimensions_;
  }
  Layout& set_padded_dimensions(absl::Span<const int64_t> p) {
    padded_dimensions_.assign(p.begin(), p.end());
    return *this;
  }
  PaddingValue padding_value() const { return padding_value_; }
  Layout& set_padding_value(PaddingValue v) {
    padding_value_ = v;
    return *this;
  }

  int64_t tail_padding_alignment_in_elements() const {
    return tail_padding_alignment_in_elements_;
  }
  Layout& set_tail_padding_alignment_in_elements(int64_t a) {
    tail_padding_alignment_in_elements_ = a;
    return *this;
  }

  int64_t element_size_in_bits() const { return element_size_in_bits_; }
  Layout& set_element_size_in_bits(int64_t b) {
    element_size_in_bits_ = b;
    return *this;
  }

  // Equality with options, as XLA's Layout::Equal.
  class Equal {
   public:
    bool operator()(const Layout& a, const Layout& b) const;
    Equal& IgnoreTiles() {
      ignore_tiles_ = true;
      return *this;
    }
    Equal& IgnoreMemorySpace() {
      ignore_memory_space_ = true;
      return *this;
    }
    Equal& MinorToMajorOnly() {
      ignore_tiles_ = ignore_memory_space_ = ignore_padding_ = true;
      ignore_element_size_ = true;
      return *this;
    }

   private:
    bool ignore_tiles_ = false;
    bool ignore_memory_space_ = false;
    bool ignore_padding_ = false;
    bool ignore_element_size_ = false;
  };

  bool operator==(const Layout& o) const { return Equal()(*this, o); }
  bool operator!=(const Layout& o) const { return !(*this == o); }

  template <typename H>
  friend H AbslHashValue(H h, const Layout& l) {
    return H::combine(
        std::move(h), l.minor_to_major_, l.tiles_, l.memory_space_,
        l.padded_dimensions_, static_cast<int>(l.padding_value_),
        l.tail_padding_alignment_in_elements_, l.element_size_in_bits_);
  }

  // "{1,0:T(8,128)(2,1)S(1)}" as XLA prints it.
  std::string ToString() const;

 private:
  std::vector<int64_t> minor_to_major_;
  std::vector<Tile> tiles_;
  int64_t memory_space_ = 0;
  std::vector<int64_t> padded_dimensions_;
  PaddingValue padding_value_ = PaddingValue::kZero;
  int64_t tail_padding_alignment_in_elements_ = 1;
  int64_t element_size_in_bits_ = 0;
};

}  // namespace plexa

#endif  // PLEXA_CORE_SHAPE_LAYOUT_H_
