#include "plugins/onednn/pattern_util.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/ir/computation.h"
#include "core/shape/shape_util.h"

namespace plexa::onednn {

using dnnl::memory;

absl::Status Refuse(const Instruction& root, absl::string_view why) {
  return absl::UnimplementedError(
      absl::StrCat("oneDNN does not take ", root.name(), ": ", why));
}

absl::Status RefuseUnlessLarge(const Instruction& root, const Shape& shape,
                               const MatchOptions& options, bool slower_here) {
  const int64_t n =
      shape.IsArray() ? ShapeUtil::ElementsIn(shape) : options.min_elements;
  if (n < options.min_elements) {
    return absl::FailedPreconditionError(absl::StrCat(
        root.name(), ": fewer than min_elements=", options.min_elements,
        " elements"));
  }
  if (slower_here && !options.all_primitives) {
    return absl::FailedPreconditionError(absl::StrCat(
        root.name(),
        ": the CPU plugin's fused loops are faster (all_primitives=1 maps "
        "it)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Plan> FinishPlan(const Instruction& root, Plan plan,
                                const dnnl::primitive_desc_base& pd,
                                bool allow_reference) {
  plan.impl = pd.impl_info_str();
  if (!allow_reference && absl::StartsWith(plan.impl, "ref")) {
    return Refuse(
        root, absl::StrCat("oneDNN has only its reference ",
                           KindName(plan.kind), " (", plan.impl, ") for it"));
  }
  plan.primitive = dnnl::primitive(pd.get());
  LayOutScratch(pd.scratchpad_desc(), &plan);
  return plan;
}

PlanArg InPlace(int dnnl_arg, const Instruction* source,
                const memory::desc& md) {
  PlanArg a;
  a.dnnl_arg = dnnl_arg;
  a.source = source;
  a.user = a.staged = a.prim = md;
  return a;
}

dnnl::primitive_attr UserScratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

namespace {

// Constants in a program of type t are rounded to t: compare with the
// precision it has.
bool Near(double value, double want, PrimitiveType t) {
  const double tolerance = t == PrimitiveType::F32   ? 1e-6
                           : t == PrimitiveType::F64 ? 1e-12
                                                     : 1e-2;
  return std::abs(value - want) <= tolerance * std::abs(want);
}

// A product of factors: multiplies (each but the top used only inside the
// product) and, at the top, a division by a constant; scalar constants
// (or broadcasts of them) are folded into `scale`.
struct Product {
  std::vector<const Instruction*> factors;
  double scale = 1.0;
  std::vector<const Instruction*> nodes;  // multiplies, divides, constants
};

void AddConstantNodes(const Instruction& c, Product* p) {
  if (c.opcode() == HloOpcode::kBroadcast) p->nodes.push_back(c.operand(0));
  p->nodes.push_back(&c);
}

void Flatten(const Instruction& i, bool top, Product* p) {
  if (i.opcode() == HloOpcode::kMultiply && (top || i.user_count() == 1)) {
    p->nodes.push_back(&i);
    Flatten(*i.operand(0), false, p);
    Flatten(*i.operand(1), false, p);
    return;
  }
  if (std::optional<double> c = ScalarConstantValue(i); c && !top) {
    p->scale *= *c;
    AddConstantNodes(i, p);
    return;
  }
  p->factors.push_back(&i);
}

Product ProductOf(const Instruction& top) {
  Product p;
  if (top.opcode() == HloOpcode::kDivide) {
    if (std::optional<double> c = ScalarConstantValue(*top.operand(1));
        c && *c != 0.0) {
      p.nodes.push_back(&top);
      AddConstantNodes(*top.operand(1), &p);
      // The dividend is a product of the pattern's own, or a leaf.
      const Instruction& dividend = *top.operand(0);
      if (dividend.user_count() == 1) {
        Flatten(dividend, true, &p);
      } else {
        p.factors.push_back(&dividend);
      }
      p.scale /= *c;
      return p;
    }
  }
  Flatten(top, true, &p);
  return p;
}

// `i` is add(1, f) or add(f, 1): f, with the add and its constant in
// `nodes`.
const Instruction* OnePlus(const Instruction& i,
                           std::vector<const Instruction*>* nodes) {
  if (i.opcode() != HloOpcode::kAdd || i.user_count() != 1) return nullptr;
  for (int k = 0; k < 2; ++k) {
    std::optional<double> c = ScalarConstantValue(*i.operand(k));
    if (c && *c == 1.0) {
      nodes->push_back(&i);
      if (i.operand(k)->opcode() == HloOpcode::kBroadcast) {
        nodes->push_back(i.operand(k)->operand(0));
      }
      nodes->push_back(i.operand(k));
      return i.operand(1 - k);
    }
  }
  return nullptr;
}

bool AllAre(const std::vector<const Instruction*>& v, const Instruction* x) {
  return std::all_of(v.begin(), v.end(),
                     [&](const Instruction* i) { return i == x; });
}

void Append(const std::vector<const Instruction*>& from,
            std::vector<const Instruction*>* to) {
  to->insert(to->end(), from.begin(), from.end());
}

// The members in an order where operands come first (a post-order of the
// root's operand graph restricted to them).
std::vector<Instruction*> InOrder(const Instruction& root,
                                  const std::vector<const Instruction*>& set) {
  absl::flat_hash_set<const Instruction*> in(set.begin(), set.end());
  in.insert(&root);
  std::vector<Instruction*> out;
  absl::flat_hash_set<const Instruction*> done;
  std::vector<std::pair<const Instruction*, size_t>> stack = {{&root, 0}};
  while (!stack.empty()) {
    auto& [i, next] = stack.back();
    if (next < static_cast<size_t>(i->operand_count())) {
      const Instruction* op = i->operand(next++);
      if (in.contains(op) && !done.contains(op)) stack.push_back({op, 0});
      continue;
    }
    if (done.insert(i).second) out.push_back(const_cast<Instruction*>(i));
    stack.pop_back();
  }
  return out;
}

std::optional<EltwiseOp> MatchGelu(const Instruction& root) {
  if (root.opcode() != HloOpcode::kMultiply &&
      root.opcode() != HloOpcode::kDivide) {
    return std::nullopt;
  }
  const PrimitiveType t = root.shape().element_type();
  const Product outer = ProductOf(root);
  if (outer.factors.size() != 2 || !Near(outer.scale, 0.5, t)) {
    return std::nullopt;
  }
  for (int k = 0; k < 2; ++k) {
    const Instruction* x = outer.factors[k];
    std::vector<const Instruction*> nodes = outer.nodes;
    const Instruction* f = OnePlus(*outer.factors[1 - k], &nodes);
    if (f == nullptr || f->user_count() != 1) continue;
    nodes.push_back(f);
    EltwiseOp op;
    op.x = x;
    if (f->opcode() == HloOpcode::kTanh) {
      // sqrt(2/pi) * (x + 0.044715 * x^3)
      const Product inner = ProductOf(*f->operand(0));
      if (inner.factors.size() != 1 ||
          !Near(inner.scale, std::sqrt(2.0 / M_PI), t)) {
        continue;
      }
      const Instruction* sum = inner.factors[0];
      if (sum->opcode() != HloOpcode::kAdd || sum->user_count() != 1) continue;
      const int xi = sum->operand(0) == x ? 0 : sum->operand(1) == x ? 1 : -1;
      if (xi < 0) continue;
      const Product cube = ProductOf(*sum->operand(1 - xi));
      if (cube.factors.size() != 3 || !AllAre(cube.factors, x) ||
          !Near(cube.scale, 0.044715, t) ||
          sum->operand(1 - xi)->user_count() != 1) {
        continue;
      }
      Append(inner.nodes, &nodes);
      nodes.push_back(sum);
      Append(cube.nodes, &nodes);
      op.alg = dnnl::algorithm::eltwise_gelu_tanh;
    } else if (f->opcode() == HloOpcode::kErf) {
      // erf(x / sqrt(2))
      const Product arg = ProductOf(*f->operand(0));
      if (arg.factors.size() != 1 || arg.factors[0] != x ||
          !Near(arg.scale, std::sqrt(0.5), t) || f->operand(0) == x) {
        continue;
      }
      Append(arg.nodes, &nodes);
      op.alg = dnnl::algorithm::eltwise_gelu_erf;
    } else {
      continue;
    }
    nodes.erase(std::remove(nodes.begin(), nodes.end(), &root), nodes.end());
    op.members = InOrder(root, nodes);
    // Everything but x and the root is private to the pattern.
    absl::flat_hash_set<const Instruction*> in(op.members.begin(),
                                               op.members.end());
    bool private_nodes = true;
    for (const Instruction* m : op.members) {
      if (m == &root) continue;
      for (const Instruction* u : m->users()) private_nodes &= in.contains(u);
    }
    if (!private_nodes || in.contains(x)) continue;
    return op;
  }
  return std::nullopt;
}

// Producers the CPU plugin's fusion would merge into their consumer.
bool FusesAsProducer(HloOpcode op) {
  switch (op) {
    case HloOpcode::kBroadcast:
    case HloOpcode::kReshape:
    case HloOpcode::kBitcast:
    case HloOpcode::kTranspose:
    case HloOpcode::kSlice:
    case HloOpcode::kPad:
    case HloOpcode::kConcatenate:
    case HloOpcode::kIota:
    case HloOpcode::kConvert:
    case HloOpcode::kReverse:
    case HloOpcode::kDynamicSlice:
      return true;
    default:
      return IsElementwise(op);
  }
}

// Consumers the CPU plugin's fusion would merge a producer into.
bool FusesAsConsumer(HloOpcode op) {
  return FusesAsProducer(op) || op == HloOpcode::kReduce ||
         op == HloOpcode::kReduceWindow;
}

}  // namespace

std::optional<EltwiseOp> MatchEltwise(const Instruction& root) {
  if (std::optional<EltwiseOp> gelu = MatchGelu(root)) return gelu;
  if (root.operand_count() != 1 || !root.shape().IsArray()) return std::nullopt;
  EltwiseOp op;
  op.x = root.operand(0);
  op.members = {const_cast<Instruction*>(&root)};
  switch (root.opcode()) {
    case HloOpcode::kTanh:
      op.alg = dnnl::algorithm::eltwise_tanh;
      break;
    case HloOpcode::kLogistic:
      op.alg = dnnl::algorithm::eltwise_logistic;
      break;
    // Not exponential (oneDNN 2.6's exp(NaN) is inf), log (its log(1) is
    // -1.4e-6, not 0), rsqrt (as pow(x, -0.5): 0 for -inf, not NaN) or
    // negate (alpha * x + beta makes +0 of -0), all checked on this
    // machine: those stay on the CPU plugin, as fast and exact.
    case HloOpcode::kSqrt:
      op.alg = dnnl::algorithm::eltwise_sqrt;
      break;
    case HloOpcode::kAbs:
      op.alg = dnnl::algorithm::eltwise_abs;
      break;
    default:
      return std::nullopt;
  }
  return op;
}

std::optional<EltwiseOp> MatchGeluOf(const Instruction& x) {
  // The root is a user of x, or (x * (1 + erf(...))) / 2) up to two single
  // users above one.
  std::vector<const Instruction*> roots;
  for (const Instruction* u : x.users()) {
    for (int up = 0; up < 3; ++up) {
      roots.push_back(u);
      if (u->user_count() != 1) break;
      u = u->users()[0];
    }
  }
  for (const Instruction* u : roots) {
    std::optional<EltwiseOp> op = MatchGelu(*u);
    if (!op || op->x != &x) continue;
    absl::flat_hash_set<const Instruction*> in(op->members.begin(),
                                               op->members.end());
    bool all = true;
    for (const Instruction* v : x.users()) all &= in.contains(v);
    if (all) return op;
  }
  return std::nullopt;
}

std::optional<dnnl::algorithm> BinaryAlgorithm(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAdd:
      return dnnl::algorithm::binary_add;
    case HloOpcode::kSubtract:
      return dnnl::algorithm::binary_sub;
    case HloOpcode::kMultiply:
      return dnnl::algorithm::binary_mul;
    case HloOpcode::kDivide:
      return dnnl::algorithm::binary_div;
    case HloOpcode::kMaximum:
      return dnnl::algorithm::binary_max;
    case HloOpcode::kMinimum:
      return dnnl::algorithm::binary_min;
    default:
      return std::nullopt;
  }
}

bool ReadsAFusibleProducer(absl::Span<Instruction* const> members) {
  absl::flat_hash_set<const Instruction*> in(members.begin(), members.end());
  for (const Instruction* m : members) {
    for (const Instruction* op : m->operands()) {
      if (in.contains(op) || op->opcode() == HloOpcode::kConstant ||
          !FusesAsProducer(op->opcode())) {
        continue;
      }
      bool only_here = true;
      for (const Instruction* u : op->users()) only_here &= in.contains(u);
      if (only_here) return true;
    }
  }
  return false;
}

bool Isolated(const Instruction& root, absl::Span<Instruction* const> members) {
  if (ReadsAFusibleProducer(members)) return false;
  for (const Instruction* u : root.users()) {
    if (FusesAsConsumer(u->opcode())) return false;
  }
  return true;
}

}  // namespace plexa::onednn
