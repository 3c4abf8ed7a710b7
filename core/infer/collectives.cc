// Shape inference of all-gather, reduce-scatter, all-to-all,
// collective-broadcast and collective-permute (XLA's
// ShapeInference::InferAllGatherShape / InferReduceScatterShape /
// InferAllToAllShape / InferAllToAllTupleShape /
// InferCollectiveBroadcastShape / InferCollectivePermuteShape), with the
// replica-group and source-target checks of XLA's verifier (hlo_verifier.cc).
//
// The group size is what the shapes depend on. With explicit groups it is
// their (uniform) size; with replica_groups={} every replica is in the one
// group and the size is the replica count, which a module does not carry:
// the written result shape then tells it, and the run checks it.
#include <vector>

#include "core/infer/infer_util.h"
#include "core/infer/shape_inference.h"

namespace plexa::shape_inference {

using internal::ExpectArray;
using internal::Invalid;
using internal::NoLayout;
using internal::Str;

absl::StatusOr<int64_t> CheckReplicaGroups(
    absl::string_view op, absl::Span<const std::vector<int64_t>> groups) {
  if (groups.empty()) return 0;
  std::vector<bool> seen;
  for (const std::vector<int64_t>& g : groups) {
    if (g.empty()) return Invalid(op, ": a replica group is empty.");
    if (g.size() != groups[0].size()) {
      return Invalid(op, ": replica groups must have one size; got a group of ",
                     groups[0].size(), " and one of ", g.size(), " (", Str(g),
                     ").");
    }
    for (int64_t r : g) {
      if (r < 0) return Invalid(op, ": negative replica id ", r, ".");
      if (r >= static_cast<int64_t>(seen.size())) seen.resize(r + 1, false);
      if (seen[r]) {
        return Invalid(op, ": replica ", r,
                       " is named more than once in replica_groups.");
      }
      seen[r] = true;
    }
  }
  for (size_t r = 0; r < seen.size(); ++r) {
    if (!seen[r]) {
      return Invalid(op, ": replica ", r,
                     " is not named in replica_groups (every replica from 0 "
                     "to the largest named must be in one group).");
    }
  }
  return static_cast<int64_t>(groups[0].size());
}

namespace {

// The one entry of dimensions=, in range for every operand.
absl::StatusOr<int64_t> CollectiveDimension(
    absl::string_view op, absl::Span<const Shape* const> operands,
    absl::Span<const int64_t> dimensions) {
  if (operands.empty()) {
    return Invalid(op, " expects at least one operand.");
  }
  if (dimensions.size() != 1) {
    return Invalid(op, " expects exactly one entry in dimensions; got ",
                   Str(dimensions), ".");
  }
  const int64_t d = dimensions[0];
  for (const Shape* s : operands) {
    PLEXA_RETURN_IF_ERROR(ExpectArray(*s, absl::StrCat("operand of ", op)));
    if (d < 0 || d >= s->rank()) {
      return Invalid(op, ": dimension ", d, " is out of range for operand ",
                     Str(*s), " of rank ", s->rank(), ".");
    }
  }
  return d;
}

// The declared leaf for operand i (array result: the result itself).
const Shape* DeclaredLeaf(const Shape* declared, size_t i, size_t n) {
  if (declared == nullptr) return nullptr;
  if (n == 1 && declared->IsArray()) return declared;
  if (declared->IsTuple() &&
      static_cast<size_t>(declared->tuple_shapes_size()) == n) {
    return &declared->tuple_shapes(i);
  }
  return nullptr;
}

// Each operand with dimension d resized by `resize`; one operand: an
// array, several: a tuple.
template <typename F>
absl::StatusOr<Shape> ResizeEach(absl::Span<const Shape* const> operands,
                                 int64_t d, F resize) {
  std::vector<Shape> parts;
  for (size_t i = 0; i < operands.size(); ++i) {
    Shape s = NoLayout(*operands[i]);
    PLEXA_ASSIGN_OR_RETURN(int64_t size, resize(i, s.dimensions(d)));
    s.set_dimensions(d, size);
    parts.push_back(std::move(s));
  }
  if (parts.size() == 1) return std::move(parts[0]);
  return Shape(std::move(parts));
}

absl::Status NeedDeclared(absl::string_view op, const Shape* leaf) {
  if (leaf != nullptr && leaf->IsArray()) return absl::OkStatus();
  return Invalid(op,
                 " with replica_groups={} (every replica) needs its result "
                 "shape written: the group size is the replica count.");
}

}  // namespace

absl::StatusOr<Shape> InferAllGatherShape(
    absl::Span<const Shape* const> operands,
    absl::Span<const std::vector<int64_t>> replica_groups,
    absl::Span<const int64_t> dimensions, const Shape* declared,
    bool times_partitions) {
  constexpr absl::string_view op = "all-gather";
  PLEXA_ASSIGN_OR_RETURN(int64_t d,
                         CollectiveDimension(op, operands, dimensions));
  PLEXA_ASSIGN_OR_RETURN(int64_t group, CheckReplicaGroups(op, replica_groups));
  // The result's dimension d is the operand's times the group size (times
  // the partitions, which the declared shape tells).
  return ResizeEach(
      operands, d, [&](size_t i, int64_t size) -> absl::StatusOr<int64_t> {
        const Shape* leaf = DeclaredLeaf(declared, i, operands.size());
        const bool from_declared =
            times_partitions && leaf != nullptr && leaf->IsArray();
        if (group > 0 && !from_declared) return size * group;
        PLEXA_RETURN_IF_ERROR(NeedDeclared(op, leaf));
        const int64_t unit = group > 0 ? size * group : size;
        const int64_t want = leaf->rank() > d ? leaf->dimensions(d) : -1;
        if (want < 0 || (unit == 0 ? want != 0 : want % unit != 0)) {
          return Invalid(op, ": result ", Str(*leaf), " dimension ", d,
                         " is not a multiple of operand ", Str(*operands[i]),
                         "'s.");
        }
        return want;
      });
}

absl::StatusOr<Shape> InferReduceScatterShape(
    absl::Span<const Shape* const> operands,
    absl::Span<const std::vector<int64_t>> replica_groups,
    absl::Span<const int64_t> dimensions, const ProgramShape& to_apply,
    const Shape* declared, bool times_partitions) {
  constexpr absl::string_view op = "reduce-scatter";
  PLEXA_ASSIGN_OR_RETURN(int64_t d,
                         CollectiveDimension(op, operands, dimensions));
  PLEXA_RETURN_IF_ERROR(internal::VerifyBinaryReducer(op, operands, to_apply));
  PLEXA_ASSIGN_OR_RETURN(int64_t group, CheckReplicaGroups(op, replica_groups));
  // The result's dimension d is the operand's divided by the group size
  // (times the partitions, which the declared shape tells).
  return ResizeEach(
      operands, d, [&](size_t i, int64_t size) -> absl::StatusOr<int64_t> {
        int64_t shards = group;
        const Shape* leaf = DeclaredLeaf(declared, i, operands.size());
        if (shards == 0 ||
            (times_partitions && leaf != nullptr && leaf->IsArray())) {
          PLEXA_RETURN_IF_ERROR(NeedDeclared(op, leaf));
          const int64_t got = leaf->rank() > d ? leaf->dimensions(d) : -1;
          if (got <= 0 || size % got != 0 ||
              (shards > 0 && (size / got) % shards != 0)) {
            return Invalid(op, ": result ", Str(*leaf), " dimension ", d,
                           " does not divide operand ", Str(*operands[i]),
                           "'s.");
          }
          return got;
        }
        if (size % shards != 0) {
          return Invalid(op, ": operand ", Str(*operands[i]), " dimension ", d,
                         " (", size, ") is not divisible by the group size ",
                         shards, ".");
        }
        return size / shards;
      });
}

absl::StatusOr<Shape> InferAllToAllShape(
    absl::Span<const Shape* const> operands,
    absl::Span<const std::vector<int64_t>> replica_groups,
    absl::Span<const int64_t> dimensions) {
  constexpr absl::string_view op = "all-to-all";
  PLEXA_ASSIGN_OR_RETURN(int64_t group, CheckReplicaGroups(op, replica_groups));
  if (dimensions.empty()) {
    // The tuple form: operand i goes to the i-th member, result j comes
    // from the j-th; one operand per member.
    if (operands.empty()) return Invalid(op, " expects at least one operand.");
    if (group > 0 && static_cast<int64_t>(operands.size()) != group) {
      return Invalid(op,
                     " without dimensions= takes one operand per member "
                     "of the group (",
                     group, "); got ", operands.size(), ": ", Str(operands),
                     ".");
    }
    std::vector<Shape> parts;
    for (const Shape* s : operands) {
      PLEXA_RETURN_IF_ERROR(ExpectArray(*s, "operand of all-to-all"));
      parts.push_back(NoLayout(*s));
    }
    return Shape(std::move(parts));
  }
  // The array form: split along d into group-size pieces, piece i to the
  // i-th member, the received pieces concatenated along d.
  if (operands.size() != 1) {
    return Invalid(op, " with dimensions= takes one operand; got ",
                   operands.size(), ": ", Str(operands), ".");
  }
  PLEXA_ASSIGN_OR_RETURN(int64_t d,
                         CollectiveDimension(op, operands, dimensions));
  const Shape& s = *operands[0];
  if (group > 0 && s.dimensions(d) % group != 0) {
    return Invalid(op, ": operand ", Str(s), " dimension ", d, " (",
                   s.dimensions(d), ") is not divisible by the group size ",
                   group, ".");
  }
  return NoLayout(s);
}

absl::StatusOr<Shape> InferAllGatherStartShape(
    absl::Span<const Shape* const> operands,
    absl::Span<const std::vector<int64_t>> replica_groups,
    absl::Span<const int64_t> dimensions, const Shape* declared,
    bool times_partitions) {
  // XLA: (operand, result) for one operand, ((operands...), (results...))
  // for several.
  const Shape* declared_result = declared != nullptr && declared->IsTuple() &&
                                         declared->tuple_shapes_size() == 2
                                     ? &declared->tuple_shapes(1)
                                     : nullptr;
  PLEXA_ASSIGN_OR_RETURN(
      Shape result, InferAllGatherShape(operands, replica_groups, dimensions,
                                        declared_result, times_partitions));
  if (operands.size() == 1) {
    return Shape(std::vector<Shape>{NoLayout(*operands[0]), std::move(result)});
  }
  std::vector<Shape> ins;
  for (const Shape* s : operands) ins.push_back(NoLayout(*s));
  return Shape(std::vector<Shape>{Shape(std::move(ins)), std::move(result)});
}

absl::StatusOr<Shape> InferCollectivePermuteStartShape(
    absl::Span<const Shape* const> operands,
    absl::Span<const std::pair<int64_t, int64_t>> source_target_pairs) {
  // XLA: (operand, result, u32[] context, u32[] context); with several
  // operands, their tuple in place of the operand.
  PLEXA_ASSIGN_OR_RETURN(
      Shape result, InferCollectivePermuteShape(operands, source_target_pairs));
  const Shape context = internal::MakeArray(PrimitiveType::U32, {});
  return Shape(std::vector<Shape>{result, result, context, context});
}

absl::StatusOr<Shape> InferAsyncDoneShape(HloOpcode done, const Shape& start) {
  if (done == HloOpcode::kAllReduceDone) {
    PLEXA_RETURN_IF_ERROR(internal::ExpectArrayOrTupleOfArrays(
        start, "operand of all-reduce-done"));
    return NoLayout(start);
  }
  // all-gather-done, collective-permute-done: the -start's element 1.
  if (!start.IsTuple() || start.tuple_shapes_size() < 2) {
    return Invalid(HloOpcodeString(done),
                   " expects the tuple its -start returns; got ", Str(start),
                   ".");
  }
  return NoLayout(start.tuple_shapes(1));
}

absl::StatusOr<Shape> InferCollectiveBroadcastShape(
    const Shape& operand,
    absl::Span<const std::vector<int64_t>> replica_groups) {
  constexpr absl::string_view op = "collective-broadcast";
  PLEXA_RETURN_IF_ERROR(
      ExpectArray(operand, "operand of collective-broadcast"));
  PLEXA_RETURN_IF_ERROR(CheckReplicaGroups(op, replica_groups).status());
  return NoLayout(operand);
}

absl::StatusOr<Shape> InferCollectivePermuteShape(
    absl::Span<const Shape* const> operands,
    absl::Span<const std::pair<int64_t, int64_t>> source_target_pairs) {
  constexpr absl::string_view op = "collective-permute";
  if (operands.empty()) return Invalid(op, " needs at least one operand.");
  std::vector<Shape> results;
  for (const Shape* operand : operands) {
    if (operands.size() == 4 && operand->IsTuple()) {
      // XLA's in-place form: (input, output, input offsets, output offsets)
      // with slice_sizes=, a TPU form whose per-pair offsets XLA does not
      // specify outside its TPU runtime.
      return Invalid(op,
                     ": the in-place form (input, output, offset tuples, "
                     "slice_sizes=) is not supported; got an operand "
                     "of shape ",
                     Str(*operand), ".");
    }
    PLEXA_RETURN_IF_ERROR(
        ExpectArray(*operand, "operand of collective-permute"));
    results.push_back(NoLayout(*operand));
  }
  // XLA's verifier: each replica sends at most once and receives at most
  // once (CheckDuplicatedSourceOrTarget).
  std::vector<bool> sources, targets;
  auto once = [&](std::vector<bool>& seen, int64_t r,
                  absl::string_view role) -> absl::Status {
    if (r < 0) {
      return Invalid(op, ": negative replica id ", r,
                     " in source_target_pairs.");
    }
    if (r >= static_cast<int64_t>(seen.size())) seen.resize(r + 1, false);
    if (seen[r]) {
      return Invalid(op, ": ", role, " ", r,
                     " appears more than once in source_target_pairs.");
    }
    seen[r] = true;
    return absl::OkStatus();
  };
  for (const auto& [source, target] : source_target_pairs) {
    PLEXA_RETURN_IF_ERROR(once(sources, source, "source"));
    PLEXA_RETURN_IF_ERROR(once(targets, target, "target"));
  }
  if (results.size() == 1) return std::move(results[0]);
  return Shape(std::move(results));
}

}  // namespace plexa::shape_inference

namespace plexa::shape_inference {

absl::StatusOr<Shape> InferRaggedAllToAllShape(
    absl::Span<const Shape* const> operands,
    absl::Span<const std::vector<int64_t>> replica_groups) {
  // XLA's InferRaggedAllToAllShape and ShapeVerifier::HandleRaggedAllToAll:
  // (input, output, input_offsets, send_sizes, output_offsets, recv_sizes);
  // the four offset and size operands have one shape, of rank 1 or 2; the
  // result is the output operand's shape.
  constexpr absl::string_view op = "ragged-all-to-all";
  if (operands.size() != 6) {
    return Invalid(op, " expects 6 operands (input, output, input_offsets, ",
                   "send_sizes, output_offsets, recv_sizes), got ",
                   operands.size(), ".");
  }
  PLEXA_RETURN_IF_ERROR(
      ExpectArray(*operands[0], "operand 0 (input) of ragged-all-to-all"));
  PLEXA_RETURN_IF_ERROR(
      ExpectArray(*operands[1], "operand 1 (output) of ragged-all-to-all"));
  constexpr absl::string_view kNames[] = {"input_offsets", "send_sizes",
                                          "output_offsets", "recv_sizes"};
  for (int i = 2; i < 6; ++i) {
    const Shape& s = *operands[i];
    PLEXA_RETURN_IF_ERROR(ExpectArray(s, "offsets of ragged-all-to-all"));
    if (s.rank() != 1 && s.rank() != 2) {
      return Invalid(op, ": operand ", i, " (", kNames[i - 2],
                     ") must be of rank 1 or 2; got ", Str(s), ".");
    }
    if (!internal::EqualIgnoringLayout(s, *operands[2])) {
      return Invalid(op, ": operands 2 to 5 (offsets and sizes) must have ",
                     "one shape; ", kNames[i - 2], " is ", Str(s),
                     " but input_offsets is ", Str(*operands[2]), ".");
    }
  }
  PLEXA_RETURN_IF_ERROR(CheckReplicaGroups(op, replica_groups).status());
  return NoLayout(*operands[1]);
}

absl::StatusOr<Shape> InferCollectiveReduceShape(
    absl::Span<const Shape* const> operands,
    absl::Span<const std::vector<int64_t>> replica_groups,
    bool has_dynamic_root, const ProgramShape& to_apply) {
  // XLA's collective-reduce: all-reduce's operands and reducer, the result
  // on each group's root; with has_dynamic_root a trailing s32 vector
  // names each data operand's root (a rank in the group).
  constexpr absl::string_view op = "collective-reduce";
  std::vector<const Shape*> data(operands.begin(), operands.end());
  if (has_dynamic_root) {
    if (data.size() < 2) {
      return Invalid(op, ": has_dynamic_root=true needs the data operand(s) ",
                     "and then an s32 vector of roots; got ", Str(operands),
                     ".");
    }
    const Shape& roots = *data.back();
    data.pop_back();
    if (!roots.IsArray() || roots.element_type() != PrimitiveType::S32 ||
        roots.rank() != 1 ||
        roots.dimensions(0) != static_cast<int64_t>(data.size())) {
      return Invalid(op, ": the roots operand must be s32[", data.size(),
                     "] (one root per data operand); got ", Str(roots), ".");
    }
  }
  PLEXA_RETURN_IF_ERROR(CheckReplicaGroups(op, replica_groups).status());
  absl::StatusOr<Shape> result = InferAllReduceShape(data, to_apply);
  if (!result.ok()) {
    return Invalid(op, ": ", result.status().message());
  }
  return result;
}

}  // namespace plexa::shape_inference
