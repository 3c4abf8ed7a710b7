// Layer normalization over one axis a, as Flax, Haiku and hand-written JAX
// produce it after the default pipeline:
//
//   mean = reduce(x, 0, add, {a}) / n                      (or * (1/n))
//   d    = x - broadcast(mean)
//   var  = reduce(d * d, 0, add, {a}) / n                  (two passes)
//        | [max(0,] reduce(x * x, 0, add, {a}) / n - mean * mean [)]
//   y    = d * broadcast(rsqrt(var + eps)) [* broadcast(scale)]
//          [+ broadcast(bias)]
//
// The products in any order and association (Flax multiplies rsqrt by the
// scale first); the broadcasts possibly of a reshape that only adds
// size-1 dimensions (jnp.mean(..., keepdims=True)); scale and bias
// vectors over a. It runs as oneDNN's layer_normalization_forward: one
// pass for the statistics and one for the result, where the CPU plugin's
// fusions read x three or four times.
#include <algorithm>
#include <cmath>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/shape/shape_util.h"
#include "plugins/common/reducer.h"
#include "plugins/onednn/pattern_util.h"
#include "plugins/onednn/primitives.h"

namespace plexa::onednn {
namespace {

using dnnl::memory;

// The dimensions of `s` but those of size 1.
std::vector<int64_t> NonDegenerate(const Shape& s) {
  std::vector<int64_t> out;
  for (int64_t d : s.dimensions()) {
    if (d != 1) out.push_back(d);
  }
  return out;
}

// What `b` broadcasts along the dimensions `along` of its result (every
// other dimension comes from the operand, in order): the operand, or the
// operand of a reshape that only adds or removes size-1 dimensions. The
// broadcast and reshape are appended to `nodes`.
const Instruction* BroadcastAlong(const Instruction& b,
                                  const std::vector<int64_t>& along,
                                  std::vector<const Instruction*>* nodes) {
  if (b.opcode() != HloOpcode::kBroadcast || !b.shape().IsArray()) {
    return nullptr;
  }
  const Instruction* src = b.operand(0);
  const std::vector<int64_t>& dims = b.attrs().dimensions;
  if (!std::is_sorted(dims.begin(), dims.end())) return nullptr;
  // The result's dimensions that vary with the operand, in order.
  std::vector<int64_t> kept;
  for (size_t j = 0; j < dims.size(); ++j) {
    const bool broadcast_along =
        std::find(along.begin(), along.end(), dims[j]) != along.end();
    if (src->shape().dimensions(j) != 1 && broadcast_along) return nullptr;
    if (!broadcast_along) kept.push_back(dims[j]);
  }
  std::vector<int64_t> want;
  for (int64_t d = 0; d < b.shape().rank(); ++d) {
    if (std::find(along.begin(), along.end(), d) == along.end()) {
      want.push_back(b.shape().dimensions(d));
    }
  }
  // Every dimension but `along` must come from the operand.
  std::vector<int64_t> got;
  for (int64_t d : kept) got.push_back(b.shape().dimensions(d));
  if (got.size() != want.size()) {
    // Missing dimensions are fine only if they have size 1.
    std::vector<int64_t> want_nd, got_nd;
    for (int64_t v : want)
      if (v != 1) want_nd.push_back(v);
    for (int64_t v : got)
      if (v != 1) got_nd.push_back(v);
    if (want_nd != got_nd) return nullptr;
  } else if (got != want) {
    return nullptr;
  }
  nodes->push_back(&b);
  if (src->opcode() == HloOpcode::kReshape && src->user_count() == 1 &&
      NonDegenerate(src->shape()) == NonDegenerate(src->operand(0)->shape())) {
    nodes->push_back(src);
    src = src->operand(0);
  }
  return src;
}

// All dimensions of rank `rank` but `axis`.
std::vector<int64_t> AllBut(int64_t rank, int64_t axis) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != axis) out.push_back(d);
  }
  return out;
}

// A vector over dimension `axis` broadcast to rank `rank` (a scale or a
// bias), or null.
const Instruction* VectorAlong(const Instruction& b, int64_t rank, int64_t axis,
                               std::vector<const Instruction*>* nodes) {
  if (rank < 2) return nullptr;
  std::vector<const Instruction*> mine;
  const Instruction* v = BroadcastAlong(b, AllBut(rank, axis), &mine);
  if (v == nullptr || v->shape().rank() != 1) return nullptr;
  nodes->insert(nodes->end(), mine.begin(), mine.end());
  return v;
}

// Factors of a product (multiplies used only inside it, and the top).
void Factors(const Instruction& i, bool top,
             std::vector<const Instruction*>* factors,
             std::vector<const Instruction*>* nodes) {
  if (i.opcode() == HloOpcode::kMultiply && (top || i.user_count() == 1)) {
    nodes->push_back(&i);
    Factors(*i.operand(0), false, factors, nodes);
    Factors(*i.operand(1), false, factors, nodes);
    return;
  }
  factors->push_back(&i);
}

// reduce(v, 0, add, {axis}) / n or * (1/n): v.
const Instruction* MeanOf(const Instruction& m, int64_t axis, int64_t n,
                          std::vector<const Instruction*>* nodes) {
  const Instruction* r = nullptr;
  const Instruction* c = nullptr;
  if (m.opcode() == HloOpcode::kDivide) {
    r = m.operand(0);
    c = m.operand(1);
    std::optional<double> v = ScalarConstantValue(*c);
    if (!v || std::abs(*v - n) > 1e-6 * n) return nullptr;
  } else if (m.opcode() == HloOpcode::kMultiply) {
    for (int k = 0; k < 2 && r == nullptr; ++k) {
      std::optional<double> v = ScalarConstantValue(*m.operand(k));
      if (v && std::abs(*v * n - 1.0) < 1e-6) {
        c = m.operand(k);
        r = m.operand(1 - k);
      }
    }
  }
  if (r != nullptr && r->opcode() == HloOpcode::kReshape &&
      r->user_count() == 1 &&
      NonDegenerate(r->shape()) == NonDegenerate(r->operand(0)->shape())) {
    nodes->push_back(r);  // keepdims
    r = r->operand(0);
  }
  if (r == nullptr || r->opcode() != HloOpcode::kReduce ||
      r->operand_count() != 2 || r->attrs().dimensions.size() != 1 ||
      r->attrs().dimensions[0] != axis || r->to_apply() == nullptr) {
    return nullptr;
  }
  std::optional<backend::MatchedReducer> red =
      backend::MatchReducer(*r->to_apply());
  std::optional<double> init = ScalarConstantValue(*r->operand(1));
  if (!red || red->opcode != HloOpcode::kAdd || !init || *init != 0.0) {
    return nullptr;
  }
  nodes->push_back(&m);
  if (c->opcode() == HloOpcode::kBroadcast) nodes->push_back(c->operand(0));
  nodes->push_back(c);
  nodes->push_back(r);
  nodes->push_back(r->operand(1));
  return r->operand(0);
}

struct LayerNorm {
  const Instruction* x = nullptr;
  const Instruction* scale = nullptr;  // [C] or null
  const Instruction* bias = nullptr;   // [C] or null
  int64_t axis = 0;
  float epsilon = 0.0f;
  std::vector<const Instruction*> nodes;
};

// var as the pattern writes it, given d = x - mean.
bool MatchVariance(const Instruction& var, const Instruction& x,
                   const Instruction& mean, const Instruction* d, int64_t axis,
                   int64_t n, std::vector<const Instruction*>* nodes) {
  const Instruction* v = &var;
  if (v->opcode() == HloOpcode::kMaximum) {  // max(0, ...)
    const int k = ScalarConstantValue(*v->operand(0)) == 0.0   ? 0
                  : ScalarConstantValue(*v->operand(1)) == 0.0 ? 1
                                                               : -1;
    if (k < 0) return false;
    nodes->push_back(v);
    if (v->operand(k)->opcode() == HloOpcode::kBroadcast) {
      nodes->push_back(v->operand(k)->operand(0));
    }
    nodes->push_back(v->operand(k));
    v = v->operand(1 - k);
  }
  if (v->opcode() == HloOpcode::kSubtract) {
    // mean(x * x) - mean * mean
    const Instruction* sq = v->operand(1);
    if (sq->opcode() != HloOpcode::kMultiply || sq->operand(0) != &mean ||
        sq->operand(1) != &mean) {
      return false;
    }
    const Instruction* xx = MeanOf(*v->operand(0), axis, n, nodes);
    if (xx == nullptr || xx->opcode() != HloOpcode::kMultiply ||
        xx->operand(0) != &x || xx->operand(1) != &x) {
      return false;
    }
    nodes->push_back(v);
    nodes->push_back(sq);
    nodes->push_back(xx);
    return true;
  }
  // mean(d * d), d the same subtraction (CSE made it one).
  const Instruction* dd = MeanOf(*v, axis, n, nodes);
  if (dd == nullptr || dd->opcode() != HloOpcode::kMultiply ||
      dd->operand(0) != d || dd->operand(1) != d) {
    return false;
  }
  nodes->push_back(dd);
  return true;
}

std::optional<LayerNorm> MatchLayerNorm(const Instruction& root) {
  if (!root.shape().IsArray() || root.shape().rank() == 0) return std::nullopt;
  const int64_t rank = root.shape().rank();
  LayerNorm ln;
  const Instruction* product = &root;
  if (root.opcode() == HloOpcode::kAdd) {  // + broadcast(bias)
    for (int k = 0; k < 2 && ln.bias == nullptr; ++k) {
      for (int64_t a = 0; a < rank && ln.bias == nullptr; ++a) {
        std::vector<const Instruction*> nodes;
        const Instruction* v = VectorAlong(*root.operand(k), rank, a, &nodes);
        if (v == nullptr) continue;
        ln.bias = v;
        ln.axis = a;
        ln.nodes = nodes;
        product = root.operand(1 - k);
      }
    }
    if (ln.bias == nullptr) return std::nullopt;
    if (product->user_count() != 1) return std::nullopt;
  }
  std::vector<const Instruction*> factors;
  Factors(*product, true, &factors, &ln.nodes);
  if (factors.size() != 2 && factors.size() != 3) return std::nullopt;
  // d = x - broadcast(mean) is the factor that is a subtract.
  const Instruction* d = nullptr;
  for (const Instruction* f : factors) {
    if (f->opcode() == HloOpcode::kSubtract) d = f;
  }
  if (d == nullptr) return std::nullopt;
  ln.x = d->operand(0);
  const Instruction& mb = *d->operand(1);
  // The axis: the one dimension the mean's broadcast adds (with a bias,
  // the bias's).
  std::optional<int64_t> axis;
  for (int64_t a = 0; a < rank; ++a) {
    if (ln.bias != nullptr && a != ln.axis) continue;
    std::vector<const Instruction*> probe;
    if (BroadcastAlong(mb, {a}, &probe) != nullptr) {
      axis = a;
      break;
    }
  }
  if (!axis) return std::nullopt;
  ln.axis = *axis;
  const int64_t n = root.shape().dimensions(ln.axis);
  const Instruction* mean = BroadcastAlong(mb, {ln.axis}, &ln.nodes);
  const Instruction* mean_of = MeanOf(*mean, ln.axis, n, &ln.nodes);
  if (mean_of != ln.x) return std::nullopt;
  ln.nodes.push_back(d);
  for (const Instruction* f : factors) {
    if (f == d) continue;
    std::vector<const Instruction*> nodes;
    // broadcast(scale) over a, or broadcast(rsqrt(var + eps)).
    if (ln.scale == nullptr) {
      ln.scale = VectorAlong(*f, rank, ln.axis, &ln.nodes);
      if (ln.scale != nullptr) continue;
    }
    const Instruction* rs = BroadcastAlong(*f, {ln.axis}, &nodes);
    if (rs == nullptr || rs->opcode() != HloOpcode::kRsqrt) {
      // Flax: broadcast(rsqrt(var + eps) reshaped) * broadcast(scale) as
      // one factor (a multiply with other users is not flattened).
      return std::nullopt;
    }
    nodes.push_back(rs);
    const Instruction* sum = rs->operand(0);
    if (sum->opcode() != HloOpcode::kAdd) return std::nullopt;
    int k = -1;
    for (int j = 0; j < 2; ++j) {
      if (ScalarConstantValue(*sum->operand(j))) k = j;
    }
    if (k < 0) return std::nullopt;
    ln.epsilon = static_cast<float>(*ScalarConstantValue(*sum->operand(k)));
    nodes.push_back(sum);
    if (sum->operand(k)->opcode() == HloOpcode::kBroadcast) {
      nodes.push_back(sum->operand(k)->operand(0));
    }
    nodes.push_back(sum->operand(k));
    if (!MatchVariance(*sum->operand(1 - k), *ln.x, *mean, d, ln.axis, n,
                       &nodes)) {
      return std::nullopt;
    }
    ln.nodes.insert(ln.nodes.end(), nodes.begin(), nodes.end());
    nodes.clear();
  }
  if (factors.size() == 3 && ln.scale == nullptr) return std::nullopt;
  ln.nodes.push_back(&root);
  return ln;
}

class LayerNormPatternImpl : public PrimitivePattern {
 public:
  Plan::Kind kind() const override { return Plan::Kind::kLayerNorm; }
  std::optional<PatternMatch> Match(const Instruction& root,
                                    const MatchOptions& options,
                                    const dnnl::engine& engine) const override {
    std::optional<LayerNorm> ln = MatchLayerNorm(root);
    if (!ln) return std::nullopt;
    // Members, operands first: a post-order of root's graph over them.
    absl::flat_hash_set<const Instruction*> in(ln->nodes.begin(),
                                               ln->nodes.end());
    if (in.contains(ln->x) || (ln->scale && in.contains(ln->scale)) ||
        (ln->bias && in.contains(ln->bias))) {
      return std::nullopt;
    }
    PatternMatch out;
    for (Instruction* i : root.parent()->MakeInstructionPostOrder()) {
      if (in.contains(i)) out.members.push_back(i);
    }
    if (out.members.empty() || out.members.back() != &root ||
        !PrivateMembers(out.members, root)) {
      return std::nullopt;
    }
    out.plan = Build(root, *ln, options, engine);
    return out;
  }

 private:
  static absl::StatusOr<Plan> Build(const Instruction& root,
                                    const LayerNorm& ln,
                                    const MatchOptions& options,
                                    const dnnl::engine& engine) {
    if (absl::Status s = RefuseUnlessLarge(root, root.shape(), options,
                                           /*slower_here=*/true);
        !s.ok()) {
      return s;
    }
    const Shape& xs = ln.x->shape();
    if (!IsPlainArray(xs) || xs.element_type() != PrimitiveType::F32 ||
        !IsPlainArray(root.shape()) ||
        root.shape().element_type() != PrimitiveType::F32 || xs.rank() > 5) {
      return Refuse(root, "not f32 data of rank 1 to 5");
    }
    for (const Instruction* v : {ln.scale, ln.bias}) {
      if (v != nullptr && (!IsPlainArray(v->shape()) ||
                           v->shape().element_type() != PrimitiveType::F32)) {
        return Refuse(root, "its scale or bias is not a dense f32 vector");
      }
    }
    // The normalized axis last.
    std::vector<int64_t> order = AllBut(xs.rank(), ln.axis);
    order.push_back(ln.axis);
    const memory::desc src = PermutedDesc(xs, order);
    if (src != PermutedDesc(root.shape(), order)) {
      return Refuse(root, "its result's layout differs from its input's");
    }
    Plan plan;
    plan.kind = Plan::Kind::kLayerNorm;
    plan.inputs = {InPlace(DNNL_ARG_SRC, ln.x, src)};
    dnnl::normalization_flags flags = dnnl::normalization_flags::none;
    if (ln.scale != nullptr) {
      flags = flags | dnnl::normalization_flags::use_scale;
      plan.inputs.push_back(
          InPlace(DNNL_ARG_SCALE, ln.scale, PlainDesc(ln.scale->shape())));
    }
    if (ln.bias != nullptr) {
      flags = flags | dnnl::normalization_flags::use_shift;
      plan.inputs.push_back(
          InPlace(DNNL_ARG_SHIFT, ln.bias, PlainDesc(ln.bias->shape())));
    }
    plan.dst = InPlace(DNNL_ARG_DST, nullptr, src);
    dnnl::layer_normalization_forward::primitive_desc pd(
        dnnl::layer_normalization_forward::desc(
            dnnl::prop_kind::forward_inference, src, ln.epsilon, flags),
        UserScratchpad(), engine);
    return FinishPlan(root, std::move(plan), pd);
  }
};

}  // namespace

const PrimitivePattern& LayerNormPattern() {
  static const LayerNormPatternImpl kPattern;
  return kPattern;
}

}  // namespace plexa::onednn
