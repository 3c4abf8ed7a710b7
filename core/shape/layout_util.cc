#include "core/shape/layout_util.h"

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace plexa {

Layout LayoutUtil::GetDefaultLayoutForRank(int64_t rank) {
  // Seed 000: "the default layout of a newly created shape is: dimension
  // order is major-to-minor", i.e. minor_to_major = {rank-1, ..., 1, 0}.
  std::vector<int64_t> m2m(rank > 0 ? rank : 0);
  for (int64_t i = 0; i < rank; ++i) m2m[i] = rank - 1 - i;
  return Layout(m2m);
}

Layout LayoutUtil::MakeLayout(absl::Span<const int64_t> minor_to_major) {
  return Layout(minor_to_major);
}

void LayoutUtil::SetToDefaultLayoutIfEmpty(Shape* shape) {
  if (shape->IsTuple()) {
    for (Shape& s : *shape->mutable_tuple_shapes()) {
      SetToDefaultLayoutIfEmpty(&s);
    }
    return;
  }
  if (!shape->IsArray()) return;
  if (!shape->has_layout()) {
    shape->set_layout(GetDefaultLayoutForRank(shape->rank()));
  } else if (shape->layout().minor_to_major().empty() && shape->rank() > 0) {
    // A layout that carries only other fields (e.g. built through
    // mutable_layout()) gets the default dimension order.
    Layout* l = shape->mutable_layout();
    l->set_minor_to_major(
        GetDefaultLayoutForRank(shape->rank()).minor_to_major());
  }
}

void LayoutUtil::SetToDefaultLayout(Shape* shape) {
  if (shape->IsTuple()) {
    for (Shape& s : *shape->mutable_tuple_shapes()) SetToDefaultLayout(&s);
    return;
  }
  if (!shape->IsArray()) return;
  shape->set_layout(GetDefaultLayoutForRank(shape->rank()));
}

Layout LayoutUtil::EffectiveLayout(const Shape& shape) {
  if (!shape.has_layout()) return GetDefaultLayoutForRank(shape.rank());
  Layout l = shape.layout();
  if (l.minor_to_major().empty() && shape.rank() > 0) {
    l.set_minor_to_major(
        GetDefaultLayoutForRank(shape.rank()).minor_to_major());
  }
  return l;
}

bool LayoutUtil::IsMonotonicWithDim0Major(const Layout& layout) {
  const int64_t n = static_cast<int64_t>(layout.minor_to_major().size());
  for (int64_t i = 0; i < n; ++i) {
    if (layout.minor_to_major(i) != n - 1 - i) return false;
  }
  return true;
}

bool LayoutUtil::IsMonotonicWithDim0Minor(const Layout& layout) {
  const int64_t n = static_cast<int64_t>(layout.minor_to_major().size());
  for (int64_t i = 0; i < n; ++i) {
    if (layout.minor_to_major(i) != i) return false;
  }
  return true;
}

bool LayoutUtil::IsPadded(const Shape& shape) {
  // As XLA's original IsPadded: padded_dimensions present and at least one
  // dimension actually widened.
  if (!shape.IsArray() || !shape.has_layout()) return false;
  absl::Span<const int64_t> pd = shape.layout().padded_dimensions();
  if (static_cast<int64_t>(pd.size()) != shape.rank()) return false;
  for (int64_t i = 0; i < shape.rank(); ++i) {
    if (pd[i] > shape.dimensions(i)) return true;
  }
  return false;
}

bool LayoutUtil::IsTiled(const Shape& shape) {
  return shape.IsArray() && shape.has_layout() &&
         !shape.layout().tiles().empty();
}

absl::Status LayoutUtil::ValidateLayoutForShape(const Layout& layout,
                                                const Shape& shape) {
  auto error = [&](absl::string_view what) {
    return absl::InvalidArgumentError(
        absl::StrCat("layout ", layout.ToString(), " is invalid for shape ",
                     shape.ToString(/*print_layout=*/false), ": ", what));
  };
  if (!shape.IsArray()) {
    return error("only array shapes have layouts");
  }
  const int64_t rank = shape.rank();
  absl::Span<const int64_t> m2m = layout.minor_to_major();
  if (static_cast<int64_t>(m2m.size()) != rank) {
    return error(absl::StrCat("minor_to_major has ", m2m.size(),
                              " entries, the shape has rank ", rank));
  }
  std::vector<bool> seen(rank, false);
  for (int64_t d : m2m) {
    if (d < 0 || d >= rank) {
      return error(absl::StrCat("dimension ", d, " out of range [0, ", rank,
                                ") in minor_to_major"));
    }
    if (seen[d]) {
      return error(
          absl::StrCat("dimension ", d, " appears twice in minor_to_major"));
    }
    seen[d] = true;
  }
  absl::Span<const int64_t> pd = layout.padded_dimensions();
  if (!pd.empty()) {
    if (static_cast<int64_t>(pd.size()) != rank) {
      return error(absl::StrCat("padded_dimensions has ", pd.size(),
                                " entries, the shape has rank ", rank));
    }
    for (int64_t i = 0; i < rank; ++i) {
      if (pd[i] < shape.dimensions(i)) {
        return error(absl::StrCat("padded dimension ", i, " (", pd[i],
                                  ") is smaller than the dimension (",
                                  shape.dimensions(i), ")"));
      }
    }
  }
  for (const Tile& tile : layout.tiles()) {
    if (tile.dimensions().empty()) return error("empty tile ()");
    for (int64_t t : tile.dimensions()) {
      if (t != Tile::kCombineDimension && t <= 0) {
        return error(
            absl::StrCat("tile ", tile.ToString(), " has a non-positive size"));
      }
    }
    if (tile.dimensions().back() == Tile::kCombineDimension) {
      // '*' merges a dimension into the next more minor one; the most minor
      // tile dimension has none.
      return error(absl::StrCat("tile ", tile.ToString(),
                                " ends with '*' (nothing to combine with)"));
    }
  }
  if (layout.tail_padding_alignment_in_elements() < 1) {
    return error("tail_padding_alignment_in_elements must be >= 1");
  }
  if (layout.memory_space() < 0) return error("negative memory space");
  if (layout.element_size_in_bits() < 0) {
    return error("negative element_size_in_bits");
  }
  return absl::OkStatus();
}

std::vector<int64_t> LayoutUtil::MajorToMinor(const Layout& layout) {
  absl::Span<const int64_t> m2m = layout.minor_to_major();
  return std::vector<int64_t>(m2m.rbegin(), m2m.rend());
}

int64_t LayoutUtil::PhysicalPosition(const Layout& layout, int64_t dimension) {
  absl::Span<const int64_t> m2m = layout.minor_to_major();
  for (size_t i = 0; i < m2m.size(); ++i) {
    if (m2m[i] == dimension) return static_cast<int64_t>(i);
  }
  return -1;
}

}  // namespace plexa
