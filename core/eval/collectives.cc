// all-reduce, replica-id and partition-id.
//
// RunReplicated runs each replica on its own thread. An all-reduce
// instruction's k-th execution on every replica of a group meets at a
// rendezvous (CollectiveHub, core/runtime/rendezvous.h) keyed by (instruction,
// k, group); once every member has contributed, each computes the same result:
// the reducer folded over the contributions in group order,
//   r = v[g0]; r = f(r, v[g1]); ...; r = f(r, v[gN-1])
// elementwise. A replica that finishes or fails without joining releases the
// others with an Aborted error instead of a hang.
#include <algorithm>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/eval/eval_internal.h"

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

}  // namespace

absl::StatusOr<Literal> EvalAllReduce(Interpreter& interp,
                                      const Instruction& instr, Operands ops) {
  // Operands: N arrays (or, in older HLO, one tuple of arrays); the result
  // has the same structure.
  std::vector<Literal> values;
  bool tuple_operand = false;
  if (ops.size() == 1 && ops[0]->shape().IsTuple()) {
    tuple_operand = true;
    for (int64_t i = 0; i < ops[0]->tuple_element_count(); ++i) {
      values.push_back(Literal(ops[0]->tuple_element(i)));
    }
  } else {
    for (const Literal* op : ops) values.push_back(Literal(*op));
  }
  for (const Literal& v : values) {
    if (!v.shape().IsArray()) return Invalid(instr, "operands must be arrays");
  }
  const int64_t replicas = interp.replica_count();
  const int64_t me = interp.replica_id();
  std::vector<int64_t> group;
  if (instr.attrs().replica_groups.empty()) {
    for (int64_t r = 0; r < replicas; ++r) group.push_back(r);
  } else {
    for (const auto& g : instr.attrs().replica_groups) {
      if (std::find(g.begin(), g.end(), me) != g.end()) {
        group.assign(g.begin(), g.end());
        break;
      }
    }
    if (group.empty()) {
      return Invalid(instr, absl::StrCat("replica ", me,
                                         " is in none of the replica_groups"));
    }
  }
  for (int64_t r : group) {
    if (r < 0 || r >= replicas) {
      return Invalid(instr, absl::StrCat("replica_groups mention replica ", r,
                                         " but ", replicas, " replica(s) run"));
    }
  }
  if (group.size() > 1) {
    PLEXA_ASSIGN_OR_RETURN(ScalarFn * fn,
                           interp.GetScalarFn(*instr.to_apply()));
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
    if (interp.hub() == nullptr) {
      return Invalid(instr, "a multi-replica all-reduce needs RunReplicated");
    }
    const std::string key =
        absl::StrCat(reinterpret_cast<uintptr_t>(&instr), "#",
                     interp.NextExecutionCount(&instr));
    PLEXA_ASSIGN_OR_RETURN(
        std::vector<std::vector<Literal>> all,
        interp.hub()->Exchange(key, group, me, std::move(values)));
    values = std::move(all[0]);
    for (size_t k = 1; k < all.size(); ++k) {
      for (size_t i = 0; i < values.size(); ++i) {
        if (!ShapeUtil::SameDimensions(values[i].shape(), all[k][i].shape())) {
          return Invalid(instr, "replicas contributed different shapes");
        }
        PLEXA_RETURN_IF_ERROR(Combine(fn, values[i], all[k][i]));
      }
    }
  }
  if (tuple_operand || instr.shape().IsTuple()) {
    return Literal::MakeTuple(std::move(values));
  }
  if (values.size() != 1) return Invalid(instr, "result structure mismatch");
  return std::move(values[0]);
}

absl::StatusOr<Literal> EvalReplicaId(Interpreter& interp,
                                      const Instruction& instr, Operands) {
  Literal out = MakeLiteral(instr.shape());
  PLEXA_RETURN_IF_ERROR(ArrayTypeSwitch(
      instr.shape().element_type(), [&](auto tag) -> absl::Status {
        using T = typename decltype(tag)::type;
        MutableDataOf<T>(out)[0] = ConvertElement<T>(interp.replica_id());
        return absl::OkStatus();
      }));
  return out;
}

absl::StatusOr<Literal> EvalPartitionId(Interpreter&, const Instruction& instr,
                                        Operands) {
  // One partition: partition-id is always 0.
  return MakeLiteral(instr.shape());
}

}  // namespace plexa::eval
