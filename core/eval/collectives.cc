// all-reduce, all-gather, reduce-scatter, all-to-all, collective-broadcast,
// collective-permute, replica-id and partition-id.
//
// RunReplicated runs each replica on its own thread. A collective
// instruction's k-th execution on every replica of a group meets at a
// rendezvous (CollectiveHub, core/runtime/rendezvous.h) keyed by (instruction,
// k, group); once every member has contributed its operands, each has every
// member's in group order and computes its own result from them:
//   all-reduce      the reducer folded over the contributions in group
//                   order, r = v[g0]; r = f(r, v[g1]); ...; elementwise;
//   all-gather      the contributions concatenated along dimensions={d};
//   reduce-scatter  the all-reduce's result, cut along d into group-size
//                   pieces: the member at position i of the group keeps
//                   piece i;
//   all-to-all      with dimensions={d}: the operand cut along d into
//                   group-size pieces, piece i sent to the i-th member,
//                   the received pieces concatenated along d in group
//                   order; without: operand i to the i-th member, result
//                   j from the j-th (a tuple);
//   collective-broadcast  every member takes the operand of the group's
//                   first member;
//   collective-permute  every replica meets; a replica named as target
//                   in source_target_pairs takes its source's operand,
//                   any other gets zeros (also a send's exchange across
//                   replicas, channels.cc).
// A replica that finishes or fails without joining releases the others
// with an Aborted error instead of a hang. With partitions, every replica
// and partition is a device of its own; the groups and pairs are XLA's
// (core/ir/collective_groups.h): each member above is a device.
#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/eval/eval_internal.h"
#include "core/ir/ragged_all_to_all.h"

namespace plexa::eval {

namespace {

absl::Status Invalid(const Instruction& instr, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("evaluator: ", InstrName(instr), ": ", what));
}

// dst = f(dst, src) elementwise.
absl::Status Combine(ScalarFn* fn, Literal& dst, const Literal& src) {
  const int64_t n = ElementCount(dst.shape().dimensions());
  const int64_t w = primitive_util::ByteWidth(dst.shape().element_type());
  uint8_t* d = dst.mutable_data().data();
  const uint8_t* s = src.data().data();
  for (int64_t i = 0; i < n; ++i) {
    const void* args[2] = {d + i * w, s + i * w};
    void* out = d + i * w;
    PLEXA_RETURN_IF_ERROR(fn->Call(args, &out));
  }
  return absl::OkStatus();
}

// The operands as a list of arrays: N arrays, or (older HLO) one tuple.
absl::StatusOr<std::vector<Literal>> OperandValues(const Instruction& instr,
                                                   Operands ops,
                                                   bool* tuple_operand) {
  std::vector<Literal> values;
  *tuple_operand = false;
  if (ops.size() == 1 && ops[0]->shape().IsTuple()) {
    *tuple_operand = true;
    for (int64_t i = 0; i < ops[0]->tuple_element_count(); ++i) {
      values.push_back(Literal(ops[0]->tuple_element(i)));
    }
  } else {
    for (const Literal* op : ops) values.push_back(Literal(*op));
  }
  for (const Literal& v : values) {
    if (!v.shape().IsArray()) return Invalid(instr, "operands must be arrays");
  }
  return values;
}

// Every member's operand values, in group order (a group of one: its own,
// without a meeting).
absl::StatusOr<std::vector<std::vector<Literal>>> Meet(
    Interpreter& interp, const Instruction& instr,
    const std::vector<int64_t>& group, std::vector<Literal> values) {
  if (group.size() == 1) {
    std::vector<std::vector<Literal>> one;
    one.push_back(std::move(values));
    return one;
  }
  if (interp.hub() == nullptr) {
    return Invalid(
        instr, absl::StrCat("a multi-replica ", HloOpcodeString(instr.opcode()),
                            " needs RunReplicated"));
  }
  const std::string key = absl::StrCat(reinterpret_cast<uintptr_t>(&instr), "#",
                                       interp.NextExecutionCount(&instr));
  PLEXA_ASSIGN_OR_RETURN(
      std::vector<std::vector<Literal>> all,
      interp.hub()->Exchange(key, group, interp.device(), std::move(values),
                             HloOpcodeString(instr.opcode())));
  for (size_t k = 1; k < all.size(); ++k) {
    for (size_t i = 0; i < all[0].size(); ++i) {
      if (!ShapeUtil::SameDimensions(all[0][i].shape(), all[k][i].shape())) {
        return Invalid(instr, "replicas contributed different shapes");
      }
    }
  }
  return all;
}

// The reduction computation, checked against the values' element types.
absl::StatusOr<ScalarFn*> Reducer(Interpreter& interp, const Instruction& instr,
                                  const std::vector<Literal>& values) {
  PLEXA_ASSIGN_OR_RETURN(ScalarFn * fn, interp.GetScalarFn(*instr.to_apply()));
  if (fn->num_params() != 2 || fn->num_results() != 1) {
    return Invalid(instr, "the reduction computation must be binary");
  }
  for (const Literal& v : values) {
    if (fn->param_type(0) != v.shape().element_type() ||
        fn->param_type(1) != v.shape().element_type() ||
        fn->result_type(0) != v.shape().element_type()) {
      return Invalid(instr, "reduction computation type mismatch");
    }
  }
  return fn;
}

// The contributions folded by the reducer in group order (all[0] receives
// the result).
// A reducer over whole arrays ((T[s], T[s]) -> T[s], the operand's shape;
// shape inference checked it) rather than over scalars.
bool WholeArrayReducer(const Instruction& instr) {
  const Computation* f = instr.to_apply();
  return f != nullptr && f->num_parameters() == 2 &&
         f->parameter_instruction(0)->shape().IsArray() &&
         f->parameter_instruction(0)->shape().rank() > 0;
}

absl::StatusOr<std::vector<Literal>> ReduceAll(
    Interpreter& interp, const Instruction& instr,
    std::vector<std::vector<Literal>> all) {
  std::vector<Literal> values = std::move(all[0]);
  if (all.size() == 1) return values;
  if (WholeArrayReducer(instr)) {
    for (size_t k = 1; k < all.size(); ++k) {
      for (size_t i = 0; i < values.size(); ++i) {
        const Literal* args[] = {&values[i], &all[k][i]};
        PLEXA_ASSIGN_OR_RETURN(values[i],
                               interp.Evaluate(*instr.to_apply(), args));
      }
    }
    return values;
  }
  PLEXA_ASSIGN_OR_RETURN(ScalarFn * fn, Reducer(interp, instr, values));
  for (size_t k = 1; k < all.size(); ++k) {
    for (size_t i = 0; i < values.size(); ++i) {
      PLEXA_RETURN_IF_ERROR(Combine(fn, values[i], all[k][i]));
    }
  }
  return values;
}

// The result: a tuple for several operands (or a tuple operand), else the
// one array.
absl::StatusOr<Literal> Result(const Instruction& instr,
                               std::vector<Literal> values,
                               bool tuple_operand) {
  if (tuple_operand || CollectiveResultShape(instr).IsTuple()) {
    return Literal::MakeTuple(std::move(values));
  }
  if (values.size() != 1) return Invalid(instr, "result structure mismatch");
  return std::move(values[0]);
}

// The leaf shape of result i (default layout).
Shape ResultLeaf(const Instruction& instr, size_t i) {
  const Shape& c = CollectiveResultShape(instr);
  return StripLayout(c.IsTuple() ? c.tuple_shapes(i) : c);
}

// Row-major bytes of an array seen as [outer, dims[d] * inner]: the number of
// rows (product of dimensions before d) and the bytes of one row.
std::pair<int64_t, int64_t> RowsAndRowBytes(const Shape& s, int64_t d) {
  int64_t outer = 1;
  for (int64_t i = 0; i < d; ++i) outer *= s.dimensions(i);
  const int64_t row =
      ElementCount(s.dimensions()) / std::max<int64_t>(outer, 1);
  return {outer, row * primitive_util::ByteWidth(s.element_type())};
}

// What a device brings to a collective: its operands as arrays, its group
// (device numbers, in XLA's order) and its position in the group.
struct Contribution {
  std::vector<Literal> values;
  bool tuple_operand = false;
  std::vector<int64_t> group;
  int64_t me = 0;
};
absl::StatusOr<Contribution> Contribute(const Interpreter& interp,
                                        const Instruction& instr,
                                        Operands ops) {
  Contribution c;
  PLEXA_ASSIGN_OR_RETURN(c.values, OperandValues(instr, ops, &c.tuple_operand));
  PLEXA_ASSIGN_OR_RETURN(
      DeviceGroup group,
      CollectiveDeviceGroupOf(instr, interp.grid(), interp.device()));
  c.group = std::move(group.devices);
  c.me = group.position;
  return c;
}

// The collective's one dimension (all-gather's, reduce-scatter's).
int64_t CollectiveDim(const Instruction& instr) {
  return instr.attrs().dimensions.empty() ? 0 : instr.attrs().dimensions[0];
}

}  // namespace

absl::StatusOr<Literal> EvalAllReduce(Interpreter& interp,
                                      const Instruction& instr, Operands ops) {
  // Operands: N arrays (or, in older HLO, one tuple of arrays); the result
  // has the same structure.
  PLEXA_ASSIGN_OR_RETURN(Contribution c, Contribute(interp, instr, ops));
  std::vector<Literal> values = std::move(c.values);
  const std::vector<int64_t>& group = c.group;
  const bool tuple_operand = c.tuple_operand;
  if (group.size() > 1 && !WholeArrayReducer(instr)) {
    // Check the reducer before meeting, so that a bad one fails alone.
    PLEXA_RETURN_IF_ERROR(Reducer(interp, instr, values).status());
  }
  PLEXA_ASSIGN_OR_RETURN(std::vector<std::vector<Literal>> all,
                         Meet(interp, instr, group, std::move(values)));
  PLEXA_ASSIGN_OR_RETURN(values, ReduceAll(interp, instr, std::move(all)));
  return Result(instr, std::move(values), tuple_operand);
}

absl::StatusOr<Literal> EvalAllGather(Interpreter& interp,
                                      const Instruction& instr, Operands ops) {
  PLEXA_ASSIGN_OR_RETURN(Contribution c, Contribute(interp, instr, ops));
  std::vector<Literal> values = std::move(c.values);
  const std::vector<int64_t>& group = c.group;
  const bool tuple_operand = c.tuple_operand;
  const int64_t d = CollectiveDim(instr);
  const int64_t n = static_cast<int64_t>(group.size());
  PLEXA_ASSIGN_OR_RETURN(std::vector<std::vector<Literal>> all,
                         Meet(interp, instr, group, std::move(values)));
  std::vector<Literal> results;
  for (size_t i = 0; i < all[0].size(); ++i) {
    const Shape& in = all[0][i].shape();
    const Shape out_shape = ResultLeaf(instr, i);
    if (d >= in.rank() || out_shape.rank() != in.rank() ||
        out_shape.dimensions(d) != in.dimensions(d) * n) {
      return Invalid(
          instr, absl::StrCat("the result ", out_shape.ToString(),
                              " does not hold the operands ", in.ToString(),
                              " of ", n, " replica(s) along dimension ", d));
    }
    // Row o of the result is row o of every member, in group order.
    Literal out = MakeLiteral(out_shape);
    const auto [rows, row_bytes] = RowsAndRowBytes(in, d);
    uint8_t* dst = out.mutable_data().data();
    for (int64_t o = 0; o < rows; ++o) {
      for (int64_t k = 0; k < n; ++k) {
        std::memcpy(dst + (o * n + k) * row_bytes,
                    all[k][i].data().data() + o * row_bytes, row_bytes);
      }
    }
    results.push_back(std::move(out));
  }
  return Result(instr, std::move(results), tuple_operand);
}

absl::StatusOr<Literal> EvalReduceScatter(Interpreter& interp,
                                          const Instruction& instr,
                                          Operands ops) {
  PLEXA_ASSIGN_OR_RETURN(Contribution c, Contribute(interp, instr, ops));
  std::vector<Literal> values = std::move(c.values);
  const std::vector<int64_t>& group = c.group;
  const bool tuple_operand = c.tuple_operand;
  const int64_t d = CollectiveDim(instr);
  const int64_t n = static_cast<int64_t>(group.size());
  const int64_t me = c.me;
  PLEXA_RETURN_IF_ERROR(Reducer(interp, instr, values).status());
  PLEXA_ASSIGN_OR_RETURN(std::vector<std::vector<Literal>> all,
                         Meet(interp, instr, group, std::move(values)));
  PLEXA_ASSIGN_OR_RETURN(values, ReduceAll(interp, instr, std::move(all)));
  std::vector<Literal> results;
  for (size_t i = 0; i < values.size(); ++i) {
    const Shape& in = values[i].shape();
    const Shape out_shape = ResultLeaf(instr, i);
    if (d >= in.rank() || out_shape.rank() != in.rank() ||
        out_shape.dimensions(d) * n != in.dimensions(d)) {
      return Invalid(
          instr, absl::StrCat("the result ", out_shape.ToString(),
                              " is not the operand ", in.ToString(), " split ",
                              n, " ways along dimension ", d));
    }
    // Row o of the reduced operand holds n pieces; this member keeps
    // piece `me`.
    Literal out = MakeLiteral(out_shape);
    const auto [rows, row_bytes] = RowsAndRowBytes(in, d);
    const int64_t piece = row_bytes / n;
    const uint8_t* src = values[i].data().data();
    for (int64_t o = 0; o < rows; ++o) {
      std::memcpy(out.mutable_data().data() + o * piece,
                  src + o * row_bytes + me * piece, piece);
    }
    results.push_back(std::move(out));
  }
  return Result(instr, std::move(results), tuple_operand);
}

absl::StatusOr<Literal> EvalAllToAll(Interpreter& interp,
                                     const Instruction& instr, Operands ops) {
  PLEXA_ASSIGN_OR_RETURN(Contribution c, Contribute(interp, instr, ops));
  const std::vector<int64_t>& group = c.group;
  const int64_t n = static_cast<int64_t>(group.size());
  const int64_t me = c.me;
  const bool split = !instr.attrs().dimensions.empty();
  if (split ? c.values.size() != 1
            : static_cast<int64_t>(c.values.size()) != n) {
    return Invalid(
        instr, absl::StrCat(c.values.size(), " operand(s) for a group of ", n));
  }
  const int64_t d = CollectiveDim(instr);
  if (split && (d >= c.values[0].shape().rank() ||
                c.values[0].shape().dimensions(d) % n != 0)) {
    return Invalid(instr, absl::StrCat("dimension ", d, " of ",
                                       c.values[0].shape().ToString(),
                                       " does not split ", n, " ways"));
  }
  PLEXA_ASSIGN_OR_RETURN(std::vector<std::vector<Literal>> all,
                         Meet(interp, instr, group, std::move(c.values)));
  if (!split) {
    // Result j is member j's operand `me`.
    std::vector<Literal> results;
    for (int64_t j = 0; j < n; ++j) {
      if (!ShapeUtil::SameDimensions(all[j][me].shape(),
                                     ResultLeaf(instr, j))) {
        return Invalid(
            instr,
            absl::StrCat("member ", j, " sends ", all[j][me].shape().ToString(),
                         " for ", ResultLeaf(instr, j).ToString()));
      }
      results.push_back(std::move(all[j][me]));
    }
    return Literal::MakeTuple(std::move(results));
  }
  // Row o of every member's operand holds n pieces along d; piece `me` of
  // member k's row o becomes piece k of this replica's row o.
  const Shape& s = all[0][0].shape();
  Literal out = MakeLiteral(StripLayout(s));
  const auto [rows, row_bytes] = RowsAndRowBytes(s, d);
  const int64_t piece = row_bytes / n;
  for (int64_t o = 0; o < rows; ++o) {
    for (int64_t k = 0; k < n; ++k) {
      std::memcpy(out.mutable_data().data() + o * row_bytes + k * piece,
                  all[k][0].data().data() + o * row_bytes + me * piece, piece);
    }
  }
  return out;
}

absl::StatusOr<Literal> PermuteAcrossReplicas(
    Interpreter& interp, const Instruction& instr,
    absl::Span<const std::pair<int64_t, int64_t>> pairs, Operands operands,
    const Shape& result_shape) {
  // Every device meets (the pairs may connect any two); each takes the
  // operand of the device paired with it as source, or zeros. The pairs
  // name replicas or partitions (DevicePairs).
  PLEXA_ASSIGN_OR_RETURN(auto device_pairs,
                         DevicePairs(instr, pairs, interp.grid()));
  const int64_t me = interp.device();
  std::optional<int64_t> source;
  for (const auto& [s, t] : device_pairs) {
    if (t == me) source = s;
  }
  std::vector<int64_t> everyone(interp.grid().size());
  for (int64_t d = 0; d < interp.grid().size(); ++d) everyone[d] = d;
  std::vector<Literal> mine;
  for (const Literal* operand : operands) mine.push_back(Literal(*operand));
  PLEXA_ASSIGN_OR_RETURN(std::vector<std::vector<Literal>> all,
                         Meet(interp, instr, everyone, std::move(mine)));
  if (!source.has_value()) return MakeLiteral(StripLayout(result_shape));
  if (operands.size() == 1) return std::move(all[*source][0]);
  return Literal::MakeTuple(std::move(all[*source]));
}

absl::StatusOr<Literal> EvalCollectivePermute(Interpreter& interp,
                                              const Instruction& instr,
                                              Operands ops) {
  return PermuteAcrossReplicas(interp, instr, instr.attrs().source_target_pairs,
                               ops, CollectiveResultShape(instr));
}

absl::StatusOr<Literal> EvalCollectiveBroadcast(Interpreter& interp,
                                                const Instruction& instr,
                                                Operands ops) {
  // The group meets; every member takes the first member's operand.
  PLEXA_ASSIGN_OR_RETURN(Contribution c, Contribute(interp, instr, ops));
  if (c.tuple_operand || c.values.size() != 1) {
    return Invalid(instr, "collective-broadcast takes one array operand");
  }
  PLEXA_ASSIGN_OR_RETURN(std::vector<std::vector<Literal>> all,
                         Meet(interp, instr, c.group, std::move(c.values)));
  return std::move(all[0][0]);
}

namespace {

// A -start's element 0: its one operand, or the tuple of its several.
Literal OperandsAsOne(Operands ops) {
  if (ops.size() == 1) return Literal(*ops[0]);
  std::vector<Literal> ins;
  for (const Literal* op : ops) ins.push_back(Literal(*op));
  return Literal::MakeTuple(std::move(ins));
}

}  // namespace

absl::StatusOr<Literal> EvalAsyncStart(Interpreter& interp,
                                       const Instruction& instr, Operands ops) {
  // Synchronous: the -start computes; its -done forwards.
  switch (instr.opcode()) {
    case HloOpcode::kAllReduceStart:
      return EvalAllReduce(interp, instr, ops);
    case HloOpcode::kAllGatherStart: {
      PLEXA_ASSIGN_OR_RETURN(Literal result, EvalAllGather(interp, instr, ops));
      std::vector<Literal> parts;
      parts.push_back(OperandsAsOne(ops));
      parts.push_back(std::move(result));
      return Literal::MakeTuple(std::move(parts));
    }
    case HloOpcode::kCollectivePermuteStart: {
      PLEXA_ASSIGN_OR_RETURN(Literal result,
                             EvalCollectivePermute(interp, instr, ops));
      std::vector<Literal> parts;
      parts.push_back(OperandsAsOne(ops));
      parts.push_back(std::move(result));
      parts.push_back(MakeLiteral(instr.shape().tuple_shapes(2)));
      parts.push_back(MakeLiteral(instr.shape().tuple_shapes(3)));
      return Literal::MakeTuple(std::move(parts));
    }
    default:
      return Invalid(instr, "not an async collective start");
  }
}

absl::StatusOr<Literal> EvalAsyncDone(Interpreter&, const Instruction& instr,
                                      Operands ops) {
  if (instr.opcode() == HloOpcode::kAllReduceDone) return Literal(*ops[0]);
  if (!ops[0]->shape().IsTuple() || ops[0]->tuple_element_count() < 2) {
    return Invalid(instr, "its operand is not a -start's tuple");
  }
  return Literal(ops[0]->tuple_element(1));
}

namespace {

absl::StatusOr<Literal> IdLiteral(const Instruction& instr, int64_t id) {
  Literal out = MakeLiteral(instr.shape());
  PLEXA_RETURN_IF_ERROR(ArrayTypeSwitch(
      instr.shape().element_type(), [&](auto tag) -> absl::Status {
        using T = typename decltype(tag)::type;
        MutableDataOf<T>(out)[0] = ConvertElement<T>(id);
        return absl::OkStatus();
      }));
  return out;
}

}  // namespace

absl::StatusOr<Literal> EvalReplicaId(Interpreter& interp,
                                      const Instruction& instr, Operands) {
  return IdLiteral(instr, interp.replica_id());
}

absl::StatusOr<Literal> EvalPartitionId(Interpreter& interp,
                                        const Instruction& instr, Operands) {
  return IdLiteral(instr, interp.partition_id());
}

}  // namespace plexa::eval

namespace plexa::eval {

absl::StatusOr<Literal> EvalCollectiveReduce(Interpreter& interp,
                                             const Instruction& instr,
                                             Operands ops) {
  // XLA's collective-reduce (its GPU thunk: ncclReduce): each data operand
  // is folded by to_apply over the group, in group order, onto the group's
  // root: rank 0, or with has_dynamic_root the rank the trailing s32
  // operand names for that data operand. XLA leaves the other members'
  // results unspecified (ncclReduce does not write them); Plexa gives them
  // their own operand unchanged (docs/opcodes.md).
  Operands data = ops;
  std::vector<int64_t> roots;
  if (instr.attrs().has_dynamic_root) {
    if (ops.size() < 2) return Invalid(instr, "no roots operand");
    data = ops.first(ops.size() - 1);
    const Literal& r = *ops.back();
    for (int64_t i = 0; i < r.element_count(); ++i) {
      roots.push_back(r.GetAsInt64({i}));
    }
  }
  PLEXA_ASSIGN_OR_RETURN(Contribution c, Contribute(interp, instr, data));
  const int64_t n = static_cast<int64_t>(c.group.size());
  roots.resize(c.values.size(), 0);
  for (size_t i = 0; i < roots.size(); ++i) {
    if (roots[i] < 0 || roots[i] >= n) {
      return Invalid(instr, absl::StrCat("collective-reduce dynamic root ",
                                         roots[i], " at index ", i,
                                         " is out of range [0, ", n, ")"));
    }
  }
  std::vector<Literal> mine;
  for (const Literal& v : c.values) mine.push_back(Literal(v));
  if (n > 1 && !WholeArrayReducer(instr)) {
    PLEXA_RETURN_IF_ERROR(Reducer(interp, instr, mine).status());
  }
  PLEXA_ASSIGN_OR_RETURN(std::vector<std::vector<Literal>> all,
                         Meet(interp, instr, c.group, std::move(c.values)));
  PLEXA_ASSIGN_OR_RETURN(std::vector<Literal> folded,
                         ReduceAll(interp, instr, std::move(all)));
  std::vector<Literal> results;
  for (size_t i = 0; i < folded.size(); ++i) {
    results.push_back(roots[i] == c.me ? std::move(folded[i])
                                       : std::move(mine[i]));
  }
  return Result(instr, std::move(results), c.tuple_operand);
}

absl::StatusOr<Literal> EvalRaggedAllToAll(Interpreter& interp,
                                           const Instruction& instr,
                                           Operands ops) {
  // XLA's ragged-all-to-all (its GPU thunk and RaggedAllToAllDecomposer):
  // with N members and k = len(offsets) / N updates per peer, member s
  // sends, for peer p and update j (idx = p*k + j), its input rows
  // [input_offsets[idx], +send_sizes[idx]) (rows along dimension 0) to
  // rows [output_offsets[idx], +send_sizes[idx]) of p's result: the
  // sender's output offsets index the receiver's buffer. The result starts
  // as the output operand; rows nobody writes keep it. recv_sizes is the
  // receiver's count of each update: it must match what is sent.
  if (ops.size() != 6) return Invalid(instr, "expected six operands");
  const Literal& input = *ops[0];
  const Literal& output = *ops[1];
  const Shape& in_s = input.shape();
  const Shape& out_s = output.shape();
  if (in_s.rank() < 1 || out_s.rank() != in_s.rank() ||
      in_s.element_type() != out_s.element_type() ||
      !std::equal(in_s.dimensions().begin() + 1, in_s.dimensions().end(),
                  out_s.dimensions().begin() + 1)) {
    return Invalid(instr, absl::StrCat("input ", in_s.ToString(),
                                       " and output ", out_s.ToString(),
                                       " must have one element type and the "
                                       "same dimensions after the first"));
  }
  for (int i = 2; i < 6; ++i) {
    const Shape& s = ops[i]->shape();
    if (s.rank() != 1 || !primitive_util::IsIntegralType(s.element_type())) {
      return Invalid(instr,
                     absl::StrCat("offsets and sizes must be integer vectors; "
                                  "operand ",
                                  i, " is ", s.ToString(),
                                  (s.rank() == 2 ? " (rank-2 offsets are not "
                                                   "supported: XLA does not "
                                                   "define their meaning)"
                                                 : "")));
    }
  }
  PLEXA_ASSIGN_OR_RETURN(
      DeviceGroup group,
      CollectiveDeviceGroupOf(instr, interp.grid(), interp.device()));
  const int64_t n = static_cast<int64_t>(group.devices.size());
  const int64_t me = group.position;
  const int64_t total = ops[2]->shape().dimensions(0);
  if (total % n != 0) {
    return Invalid(instr, absl::StrCat(total, " offsets do not divide among ",
                                       n, " group member(s)"));
  }
  // Every member brings its input, input offsets, send sizes and output
  // offsets; the receiver checks its recv_sizes against the send sizes.
  std::vector<Literal> values;
  for (int i : {0, 2, 3, 4}) values.push_back(Literal(*ops[i]));
  PLEXA_ASSIGN_OR_RETURN(std::vector<std::vector<Literal>> all,
                         Meet(interp, instr, group.devices, std::move(values)));
  // all[s] holds (input, input_offsets, send_sizes, output_offsets).
  auto value = [&](int64_t member, RaggedOperand operand, int64_t i) {
    if (operand == RaggedOperand::kRecvSizes) return ops[5]->GetAsInt64({i});
    return all[member][static_cast<int>(operand) - 1].GetAsInt64({i});
  };
  auto input_rows = [&](int64_t member) {
    return all[member][0].shape().dimensions(0);
  };
  absl::StatusOr<std::vector<RaggedUpdate>> updates =
      RaggedUpdatesTo(n, total, me, value, input_rows, out_s.dimensions(0));
  if (!updates.ok()) return Invalid(instr, updates.status().message());
  Literal result(output);
  const int64_t row_bytes = RowsAndRowBytes(out_s, 1).second;
  for (const RaggedUpdate& u : *updates) {
    if (u.size == 0) continue;
    std::memcpy(result.mutable_data().data() + u.to * row_bytes,
                all[u.sender][0].data().data() + u.from * row_bytes,
                u.size * row_bytes);
  }
  return result;
}

}  // namespace plexa::eval
