#include "plugins/onednn/softmax.h"

#include <cmath>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/passes/pass_util.h"
#include "core/shape/index_util.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "plugins/common/reducer.h"

namespace plexa::onednn {
namespace {

// `b` broadcasts a rank-(n-1) value over every dimension of its rank-n
// result but `axis`.
bool BroadcastsAllBut(const Instruction& b, int64_t axis) {
  if (b.opcode() != HloOpcode::kBroadcast) return false;
  const std::vector<int64_t>& dims = b.attrs().dimensions;
  const int64_t rank = b.shape().rank();
  if (static_cast<int64_t>(dims.size()) != rank - 1) return false;
  int64_t k = 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == axis) continue;
    if (dims[k++] != d) return false;
  }
  return true;
}

// `r` is reduce(operand, init) over exactly `axis`... with the reducer
// `op` and an init that is `init_value` (a scalar constant).
bool IsReduce(const Instruction& r, HloOpcode op, double init_value,
              int64_t* axis) {
  if (r.opcode() != HloOpcode::kReduce || r.operand_count() != 2 ||
      r.attrs().dimensions.size() != 1 || r.to_apply() == nullptr) {
    return false;
  }
  std::optional<backend::MatchedReducer> m =
      backend::MatchReducer(*r.to_apply());
  if (!m || m->opcode != op) return false;
  const Instruction& init = *r.operand(1);
  if (init.opcode() != HloOpcode::kConstant ||
      init.attrs().literal == nullptr || init.shape().rank() != 0) {
    return false;
  }
  const double v = init.attrs().literal->GetAsDouble({});
  if (std::isinf(init_value) ? !(std::isinf(v) && v < 0) : v != init_value) {
    return false;
  }
  *axis = r.attrs().dimensions[0];
  return true;
}

bool OnlyUsedBy(const Instruction& i,
                std::initializer_list<const Instruction*> users) {
  if (i.user_count() != static_cast<int64_t>(users.size())) return false;
  for (const Instruction* u : i.users()) {
    if (std::find(users.begin(), users.end(), u) == users.end()) return false;
  }
  return true;
}

}  // namespace

std::optional<SoftmaxMatch> MatchSoftmax(const Instruction& root) {
  SoftmaxMatch m;
  const Instruction* e = nullptr;   // exponential(s)
  const Instruction* zb = nullptr;  // broadcast of z or log(z)
  const Instruction* lg = nullptr;  // log(z), log-softmax only
  const Instruction* s = nullptr;   // subtract(x, broadcast(max))
  if (root.opcode() == HloOpcode::kDivide) {
    e = root.operand(0);
    zb = root.operand(1);
    if (e->opcode() != HloOpcode::kExp) return std::nullopt;
    s = e->operand(0);
  } else if (root.opcode() == HloOpcode::kSubtract) {
    m.log = true;
    s = root.operand(0);
    zb = root.operand(1);
    if (zb->opcode() != HloOpcode::kBroadcast ||
        zb->operand(0)->opcode() != HloOpcode::kLog) {
      return std::nullopt;
    }
    lg = zb->operand(0);
  } else {
    return std::nullopt;
  }
  if (s->opcode() != HloOpcode::kSubtract ||
      zb->opcode() != HloOpcode::kBroadcast) {
    return std::nullopt;
  }
  const Instruction* x = s->operand(0);
  const Instruction* mb = s->operand(1);
  if (mb->opcode() != HloOpcode::kBroadcast) return std::nullopt;
  const Instruction* mx = mb->operand(0);
  int64_t axis = -1, sum_axis = -2;
  if (!IsReduce(*mx, HloOpcode::kMaximum, -INFINITY, &axis) ||
      mx->operand(0) != x) {
    return std::nullopt;
  }
  const Instruction* z = m.log ? lg->operand(0) : zb->operand(0);
  if (!IsReduce(*z, HloOpcode::kAdd, 0.0, &sum_axis) || sum_axis != axis) {
    return std::nullopt;
  }
  if (m.log) {
    e = z->operand(0);
    if (e->opcode() != HloOpcode::kExp || e->operand(0) != s)
      return std::nullopt;
  } else if (z->operand(0) != e) {
    return std::nullopt;
  }
  if (!BroadcastsAllBut(*mb, axis) || !BroadcastsAllBut(*zb, axis)) {
    return std::nullopt;
  }
  // Nothing of the pattern is used outside it.
  const bool private_values =
      OnlyUsedBy(*mx, {mb}) && OnlyUsedBy(*mb, {s}) &&
      OnlyUsedBy(*z, {m.log ? lg : zb}) && OnlyUsedBy(*zb, {&root}) &&
      (m.log ? OnlyUsedBy(*s, {e, &root}) && OnlyUsedBy(*e, {z}) &&
                   OnlyUsedBy(*lg, {zb})
             : OnlyUsedBy(*s, {e}) && OnlyUsedBy(*e, {z, &root}));
  if (!private_values || root.parent() == nullptr) return std::nullopt;
  for (const Instruction* i : {&root, s, e, z, zb, mx, mb}) {
    if (!i->control_predecessors().empty() ||
        !i->control_successors().empty()) {
      return std::nullopt;
    }
  }
  m.input = x;
  m.axis = axis;
  auto add = [&](const Instruction* i) {
    m.members.push_back(const_cast<Instruction*>(i));
  };
  add(mx->operand(1));
  add(mx);
  add(mb);
  add(s);
  add(e);
  add(z->operand(1));
  add(z);
  if (m.log) add(lg);
  add(zb);
  add(&root);
  return m;
}

absl::StatusOr<Plan> BuildSoftmaxPlan(const SoftmaxMatch& match,
                                      const Shape& result,
                                      const dnnl::engine& engine) {
  const Shape& xs = match.input->shape();
  auto refuse = [&](absl::string_view why) {
    return absl::UnimplementedError(
        absl::StrCat("oneDNN does not take the softmax of ",
                     match.input->name(), ": ", why));
  };
  if (!xs.IsArray() || !xs.has_layout() || !ShapeUtil::IsDenseArray(xs) ||
      xs.rank() == 0 || ShapeUtil::ElementsIn(xs) == 0 ||
      xs.element_type() != PrimitiveType::F32) {
    return refuse("not a dense f32 array with a layout");
  }
  if (xs.layout().minor_to_major(0) != match.axis) {
    return refuse("its axis is not the innermost (oneDNN's fast kernels)");
  }
  if (!result.has_layout() || !(LayoutUtil::EffectiveLayout(result) ==
                                LayoutUtil::EffectiveLayout(xs))) {
    return refuse("the result's layout differs from the input's");
  }
  try {
    const std::vector<int64_t> strides = IndexUtil::LayoutStrides(xs);
    const dnnl::memory::desc md(
        dnnl::memory::dims(xs.dimensions().begin(), xs.dimensions().end()),
        dnnl::memory::data_type::f32,
        dnnl::memory::dims(strides.begin(), strides.end()));
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    Plan plan;
    plan.kind = Plan::Kind::kSoftmax;
    PlanArg src;
    src.dnnl_arg = DNNL_ARG_SRC;
    src.source = match.input;
    src.user = src.staged = src.prim = md;
    plan.inputs = {src};
    plan.dst.dnnl_arg = DNNL_ARG_DST;
    plan.dst.user = plan.dst.staged = plan.dst.prim = md;
    const int axis = static_cast<int>(match.axis);
    dnnl::memory::desc scratchpad;
    if (match.log) {
      dnnl::logsoftmax_forward::primitive_desc pd(
          dnnl::logsoftmax_forward::desc(dnnl::prop_kind::forward_inference, md,
                                         axis),
          attr, engine);
      plan.impl = pd.impl_info_str();
      plan.primitive = dnnl::logsoftmax_forward(pd);
      scratchpad = pd.scratchpad_desc();
    } else {
      dnnl::softmax_forward::primitive_desc pd(
          dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, md,
                                      axis),
          attr, engine);
      plan.impl = pd.impl_info_str();
      plan.primitive = dnnl::softmax_forward(pd);
      scratchpad = pd.scratchpad_desc();
    }
    if (absl::StartsWith(plan.impl, "ref")) {
      return refuse("oneDNN has only its reference softmax for it");
    }
    LayOutScratch(scratchpad, &plan);
    return plan;
  } catch (const dnnl::error& e) {
    return refuse(e.what());
  }
}

}  // namespace plexa::onednn
