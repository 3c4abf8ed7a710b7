#include "plugins/onednn/onednn_plan.h"

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/passes/pass_util.h"
#include "core/shape/index_util.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "plugins/onednn/pattern_util.h"

namespace plexa::onednn {
namespace {

using dnnl::memory;

constexpr int64_t kAlignment = 64;

int64_t AlignUp(int64_t n) {
  return (n + kAlignment - 1) / kAlignment * kAlignment;
}

bool SameLayout(const Shape& a, const Shape& b) {
  return LayoutUtil::EffectiveLayout(a) == LayoutUtil::EffectiveLayout(b);
}

// A scalar constant (or a broadcast of one) equal to `value`.
bool IsScalarConstant(const Instruction& i, double value) {
  const Instruction* c = &i;
  if (c->opcode() == HloOpcode::kBroadcast) c = c->operand(0);
  return c->opcode() == HloOpcode::kConstant && c->shape().IsArray() &&
         c->shape().rank() == 0 && IsAllEqualTo(*c, value);
}

// `i` (a scalar constant or a broadcast of one) and what it reads, operands
// first.
void AddConstant(const Instruction& i, std::vector<const Instruction*>* out) {
  if (i.opcode() == HloOpcode::kBroadcast) out->push_back(i.operand(0));
  out->push_back(&i);
}

// The other operand of a binary post-op: a value of the result's shape, or
// a broadcast (of anything with a dense layout) to it.
bool SetBinarySource(const Instruction& x, const Shape& result, PostOp* p) {
  if (x.opcode() == HloOpcode::kBroadcast && x.operand(0)->shape().IsArray() &&
      DnnlType(x.operand(0)->shape().element_type()) &&
      ShapeUtil::IsDenseArray(x.operand(0)->shape()) &&
      x.control_predecessors().empty()) {
    const std::vector<int64_t>& dims = x.attrs().dimensions;
    if (!std::is_sorted(dims.begin(), dims.end())) return false;
    p->broadcast = &x;
    p->source = x.operand(0);
    return true;
  }
  if (!IsPlainArray(x.shape()) ||
      x.shape().dimensions() != result.dimensions()) {
    return false;
  }
  p->source = &x;
  return true;
}

// The post-op that `u` (the only user of `v`) would be, if any.
std::optional<PostOp> AsPostOp(const Instruction& u, const Instruction& v,
                               const Shape& result,
                               const MatchOptions& options) {
  if (!u.control_predecessors().empty() || !u.control_successors().empty() ||
      u.shape().element_type() != result.element_type() ||
      u.shape().dimensions() != result.dimensions() ||
      !u.shape().has_layout() || !SameLayout(u.shape(), result)) {
    return std::nullopt;
  }
  PostOp p;
  p.op = &u;
  auto eltwise = [&](dnnl::algorithm alg, float alpha, float beta) {
    p.kind = PostOp::Kind::kEltwise;
    p.alg = alg;
    p.alpha = alpha;
    p.beta = beta;
    return p;
  };
  switch (u.opcode()) {
    case HloOpcode::kTanh:
      return eltwise(dnnl::algorithm::eltwise_tanh, 0, 0);
    case HloOpcode::kLogistic:
      return eltwise(dnnl::algorithm::eltwise_logistic, 0, 0);
    // oneDNN 2.6's exp returns inf for NaN (checked on this machine), and
    // its linear (alpha * x + beta) turns -0 into +0: relaxed mode only.
    case HloOpcode::kExp:
      if (!options.relaxed_nan) return std::nullopt;
      return eltwise(dnnl::algorithm::eltwise_exp, 0, 0);
    case HloOpcode::kNegate:
      if (!options.relaxed_nan) return std::nullopt;
      return eltwise(dnnl::algorithm::eltwise_linear, -1, 0);
    case HloOpcode::kClamp: {
      if (!options.relaxed_nan || u.operand(1) != &v) return std::nullopt;
      std::optional<double> lo = ScalarConstantValue(*u.operand(0));
      std::optional<double> hi = ScalarConstantValue(*u.operand(2));
      if (!lo || !hi) return std::nullopt;
      AddConstant(*u.operand(0), &p.constants);
      AddConstant(*u.operand(2), &p.constants);
      return eltwise(dnnl::algorithm::eltwise_clip_v2, static_cast<float>(*lo),
                     static_cast<float>(*hi));
    }
    case HloOpcode::kAdd:
    case HloOpcode::kMultiply:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kSubtract:
    case HloOpcode::kDivide: {
      const bool commutative = u.opcode() != HloOpcode::kSubtract &&
                               u.opcode() != HloOpcode::kDivide;
      const bool nan_sensitive = u.opcode() == HloOpcode::kMaximum ||
                                 u.opcode() == HloOpcode::kMinimum;
      if (nan_sensitive && !options.relaxed_nan) return std::nullopt;
      if (u.operand(0) == u.operand(1)) return std::nullopt;  // x op x
      const Instruction* other = nullptr;
      if (u.operand(0) == &v) {
        other = u.operand(1);
      } else if (commutative && u.operand(1) == &v) {
        other = u.operand(0);
      } else {
        return std::nullopt;
      }
      if (u.opcode() == HloOpcode::kMaximum && IsScalarConstant(*other, 0.0)) {
        AddConstant(*other, &p.constants);
        return eltwise(dnnl::algorithm::eltwise_relu, 0, 0);
      }
      p.kind = PostOp::Kind::kBinary;
      p.alg = *BinaryAlgorithm(u.opcode());
      if (!SetBinarySource(*other, result, &p)) return std::nullopt;
      return p;
    }
    default:
      return std::nullopt;
  }
}

// ---- Tensor views ------------------------------------------------------

// One dimension of a primitive's tensor: a group of the array's logical
// dimensions that is contiguous in memory (each dimension's stride is the
// next one's stride times its size), collapsed into one.
struct View {
  memory::dims dims, strides;
};

// Collapses `group` (logical dimensions of `shape`, major to minor) into
// one dimension; an empty group is a dimension of size 1.
bool AppendGroup(const Shape& shape, const std::vector<int64_t>& strides,
                 absl::Span<const int64_t> group, View* v) {
  // Dimensions of size 1 take no place in memory: the others must be
  // contiguous, and the innermost of them gives the stride.
  std::vector<int64_t> steps;
  int64_t size = 1;
  for (int64_t d : group) {
    size *= shape.dimensions(d);
    if (shape.dimensions(d) > 1) steps.push_back(d);
  }
  for (size_t i = 0; i + 1 < steps.size(); ++i) {
    if (strides[steps[i]] !=
        strides[steps[i + 1]] * shape.dimensions(steps[i + 1])) {
      return false;
    }
  }
  v->dims.push_back(size);
  v->strides.push_back(steps.empty() ? 1 : strides[steps.back()]);
  return true;
}

// A dimension of size 1 is never stepped over, so its stride is free; but
// oneDNN recognizes its fast layouts ("ab", "abc", ...) by the strides of
// every dimension. Such a dimension gets the stride it would have if it
// sat where it is in a row-major array: its inner neighbour's extent.
memory::desc UserDesc(View v, PrimitiveType t) {
  for (int64_t i = static_cast<int64_t>(v.dims.size()) - 1; i >= 0; --i) {
    if (v.dims[i] != 1) continue;
    v.strides[i] = i + 1 < static_cast<int64_t>(v.dims.size())
                       ? v.strides[i + 1] * v.dims[i + 1]
                       : 1;
  }
  return memory::desc(v.dims, *DnnlType(t), v.strides);
}

// A binary post-op's operand in the primitive's dst dimensions: `groups`
// lists, per dst dimension, the result's logical dimensions it covers.
// Dimensions the broadcast does not map are size 1 (oneDNN broadcasts
// them); a group partly broadcast cannot be expressed.
std::optional<memory::desc> BinarySourceDesc(
    const PostOp& p, const Shape& result,
    const std::vector<std::vector<int64_t>>& groups) {
  const Shape& s = p.source->shape();
  const std::vector<int64_t> strides = IndexUtil::LayoutStrides(s);
  // For each result dimension, the source dimension that supplies it.
  std::vector<int64_t> from(result.rank(), -1);
  if (p.broadcast != nullptr) {
    const std::vector<int64_t>& dims = p.broadcast->attrs().dimensions;
    for (size_t j = 0; j < dims.size(); ++j)
      from[dims[j]] = static_cast<int64_t>(j);
  } else {
    for (int64_t d = 0; d < result.rank(); ++d) from[d] = d;
  }
  View v;
  for (const std::vector<int64_t>& g : groups) {
    bool any = false, all = true;
    for (int64_t d : g) {
      const bool mapped = from[d] >= 0 && s.dimensions(from[d]) > 1;
      any |= mapped;
      all &= from[d] >= 0;
    }
    if (!any) {
      v.dims.push_back(1);
      v.strides.push_back(1);
      continue;
    }
    if (!all) return std::nullopt;
    std::vector<int64_t> src_group;
    for (int64_t d : g) src_group.push_back(from[d]);
    if (!AppendGroup(s, strides, src_group, &v)) return std::nullopt;
  }
  return UserDesc(v, s.element_type());
}

absl::Status Unsupported(const Instruction& anchor, absl::string_view why) {
  return absl::UnimplementedError(
      absl::StrCat("oneDNN does not take ", anchor.name(), ": ", why));
}

// The post-ops' attribute and binary arguments (appended to plan->inputs).
// `sum_for_full_add`: an add of a value of the result's own shape (a
// residual connection) becomes a sum post-op — the value is reordered into
// the destination before the primitive runs, which then adds its result to
// it — so the convolution keeps its blocked destination (a full-size binary
// operand in the program's plain layout would force a plain one, and
// oneDNN's slow im2col kernel with it). One sum at most.
absl::StatusOr<dnnl::primitive_attr> PostOpAttr(
    const Chain& chain, const Shape& result,
    const std::vector<std::vector<int64_t>>& groups, bool sum_for_full_add,
    Plan* plan) {
  dnnl::post_ops ops;
  int index = 0;
  bool has_sum = false;
  for (const PostOp& p : chain.post_ops) {
    if (p.kind == PostOp::Kind::kEltwise) {
      ops.append_eltwise(1.0f, p.alg, p.alpha, p.beta);
    } else if (sum_for_full_add && p.broadcast == nullptr) {
      std::optional<memory::desc> md = BinarySourceDesc(p, result, groups);
      if (p.alg != dnnl::algorithm::binary_add || has_sum || !md) {
        return Unsupported(*chain.anchor,
                           absl::StrCat("a full-size operand of ", p.op->name(),
                                        " other than one add"));
      }
      has_sum = true;
      ops.append_sum(1.0f);
      PlanArg a;
      a.dnnl_arg = kSumArg;
      a.source = p.source;
      a.user = a.staged = a.prim = *md;  // staged: set to the destination's
      plan->inputs.push_back(std::move(a));
    } else {
      std::optional<memory::desc> md = BinarySourceDesc(p, result, groups);
      if (!md) {
        return Unsupported(*chain.anchor,
                           absl::StrCat("the operand of ", p.op->name(),
                                        " does not map to its dimensions"));
      }
      ops.append_binary(p.alg, *md);
      PlanArg a;
      a.dnnl_arg = DNNL_ARG_ATTR_MULTIPLE_POST_OP(index) | DNNL_ARG_SRC_1;
      a.source = p.source;
      a.user = a.staged = a.prim = *md;
      plan->inputs.push_back(std::move(a));
    }
    ++index;
  }
  plan->post_op_count = index;
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

// ---- matmul ------------------------------------------------------------

std::vector<int64_t> FreeDims(int64_t rank, const std::vector<int64_t>& batch,
                              const std::vector<int64_t>& contracting) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
        std::find(contracting.begin(), contracting.end(), d) ==
            contracting.end()) {
      out.push_back(d);
    }
  }
  return out;
}

std::vector<int64_t> Range(int64_t begin, int64_t end) {
  std::vector<int64_t> out;
  for (int64_t i = begin; i < end; ++i) out.push_back(i);
  return out;
}

memory::dims Dims(const Shape& s) {
  return memory::dims(s.dimensions().begin(), s.dimensions().end());
}

// An operand of the matmul as the primitive sees it: `groups` lists, per
// primitive dimension, the array's logical dimensions it collapses.
struct Operand {
  memory::desc user, staged, prim;
};

// The array's memory as it is, when every group is contiguous in it.
std::optional<Operand> DirectOperand(
    const Shape& s, const std::vector<std::vector<int64_t>>& groups) {
  const std::vector<int64_t> strides = IndexUtil::LayoutStrides(s);
  View v;
  for (const std::vector<int64_t>& g : groups) {
    if (!AppendGroup(s, strides, g, &v)) return std::nullopt;
  }
  Operand o;
  o.user = o.staged = UserDesc(View{Dims(s), strides}, s.element_type());
  o.prim = UserDesc(v, s.element_type());
  return o;
}

// A dense copy whose dimensions are in the groups' order (a reorder per
// execution): every group is then contiguous.
Operand StagedOperand(const Shape& s,
                      const std::vector<std::vector<int64_t>>& groups) {
  std::vector<int64_t> order;
  for (const std::vector<int64_t>& g : groups) {
    order.insert(order.end(), g.begin(), g.end());
  }
  std::vector<int64_t> dense(s.rank(), 1);
  int64_t stride = 1;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    dense[*it] = stride;
    stride *= s.dimensions(*it);
  }
  View v;
  for (const std::vector<int64_t>& g : groups) AppendGroup(s, dense, g, &v);
  Operand o;
  o.user =
      UserDesc(View{Dims(s), IndexUtil::LayoutStrides(s)}, s.element_type());
  o.staged = UserDesc(View{Dims(s), dense}, s.element_type());
  o.prim = UserDesc(v, s.element_type());
  return o;
}

PlanArg MakeArg(int dnnl_arg, const Instruction* source, const Operand& o) {
  PlanArg a;
  a.dnnl_arg = dnnl_arg;
  a.source = source;
  a.user = o.user;
  a.staged = o.staged;
  a.prim = o.prim;
  return a;
}

absl::StatusOr<Plan> BuildMatmul(const Chain& chain,
                                 const dnnl::engine& engine) {
  const Instruction& dot = *chain.anchor;
  const Shape& ls = dot.operand(0)->shape();
  const Shape& rs = dot.operand(1)->shape();
  const Shape& os = dot.shape();
  if (!IsPlainArray(ls) || !IsPlainArray(rs) || !IsPlainArray(os) ||
      ls.rank() == 0 || rs.rank() == 0 || os.rank() == 0) {
    return Unsupported(dot, "not dense f32/bf16 arrays with layouts");
  }
  const bool f32 = ls.element_type() == PrimitiveType::F32 &&
                   rs.element_type() == PrimitiveType::F32 &&
                   os.element_type() == PrimitiveType::F32;
  const bool bf16 = ls.element_type() == PrimitiveType::BF16 &&
                    rs.element_type() == PrimitiveType::BF16;
  if (!f32 && !bf16) return Unsupported(dot, "element types");
  if (!dot.attrs().dot_dimension_numbers) {
    return Unsupported(dot, "no dimension numbers");
  }
  const DotDimensionNumbers& dn = *dot.attrs().dot_dimension_numbers;
  const int64_t nb = static_cast<int64_t>(dn.lhs_batch_dimensions.size());
  if (nb + 2 > DNNL_MAX_NDIMS) {
    return Unsupported(dot, "too many batch dimensions");
  }
  // Primitive dimensions: src [batch..., M, K], weights [batch..., K, N],
  // dst [batch..., M, N]; M and N collapse the free dimensions, K the
  // contracting ones (a missing group is a dimension of size 1).
  const std::vector<int64_t> lfree = FreeDims(
      ls.rank(), dn.lhs_batch_dimensions, dn.lhs_contracting_dimensions);
  const std::vector<int64_t> rfree = FreeDims(
      rs.rank(), dn.rhs_batch_dimensions, dn.rhs_contracting_dimensions);
  const int64_t nl = static_cast<int64_t>(lfree.size());
  const int64_t nr = static_cast<int64_t>(rfree.size());
  std::vector<std::vector<int64_t>> lg, rg, og;
  for (int64_t i = 0; i < nb; ++i) {
    lg.push_back({dn.lhs_batch_dimensions[i]});
    rg.push_back({dn.rhs_batch_dimensions[i]});
    og.push_back({i});
  }
  lg.push_back(lfree);
  lg.push_back(dn.lhs_contracting_dimensions);
  rg.push_back(dn.rhs_contracting_dimensions);
  rg.push_back(rfree);
  og.push_back(Range(nb, nb + nl));
  og.push_back(Range(nb + nl, nb + nl + nr));
  // First the arrays as they are (a non-contiguous one staged); where
  // oneDNN has only its reference loops for those strides, every operand
  // staged dense.
  std::string refused;
  for (bool all_staged : {false, true}) {
    auto operand = [&](const Shape& s,
                       const std::vector<std::vector<int64_t>>& g) {
      std::optional<Operand> o =
          all_staged ? std::nullopt : DirectOperand(s, g);
      return o ? *o : StagedOperand(s, g);
    };
    Plan plan;
    plan.kind = Plan::Kind::kMatmul;
    plan.inputs = {MakeArg(DNNL_ARG_SRC, dot.operand(0), operand(ls, lg)),
                   MakeArg(DNNL_ARG_WEIGHTS, dot.operand(1), operand(rs, rg))};
    plan.dst = MakeArg(DNNL_ARG_DST, nullptr, operand(os, og));
    absl::StatusOr<dnnl::primitive_attr> attr =
        PostOpAttr(chain, os, og, /*sum_for_full_add=*/false, &plan);
    if (!attr.ok()) return attr.status();
    try {
      dnnl::matmul::primitive_desc pd(
          dnnl::matmul::desc(plan.inputs[0].prim, plan.inputs[1].prim,
                             plan.dst.prim),
          *attr, engine);
      plan.impl = pd.impl_info_str();
      if (absl::StartsWith(plan.impl, "ref")) {
        // oneDNN's reference loops: the CPU plugin's code is faster.
        refused = "oneDNN has only its reference matmul for it";
        continue;
      }
      plan.primitive = dnnl::matmul(pd);
      LayOutScratch(pd.scratchpad_desc(), &plan);
      return plan;
    } catch (const dnnl::error& e) {
      refused = absl::StrCat("no oneDNN matmul (", e.what(), ")");
    }
  }
  return Unsupported(dot, refused);
}

// ---- convolution -------------------------------------------------------

absl::StatusOr<Plan> BuildConvolution(const Chain& chain,
                                      const dnnl::engine& engine,
                                      const PlanHints& hints) {
  const Instruction& conv = *chain.anchor;
  const Shape& ls = conv.operand(0)->shape();
  const Shape& rs = conv.operand(1)->shape();
  const Shape& os = conv.shape();
  if (!IsPlainArray(ls) || !IsPlainArray(rs) || !IsPlainArray(os)) {
    return Unsupported(conv, "not dense f32/bf16 arrays with layouts");
  }
  const bool f32 = ls.element_type() == PrimitiveType::F32 &&
                   rs.element_type() == PrimitiveType::F32 &&
                   os.element_type() == PrimitiveType::F32;
  const bool bf16 = ls.element_type() == PrimitiveType::BF16 &&
                    rs.element_type() == PrimitiveType::BF16;
  if (!f32 && !bf16) return Unsupported(conv, "element types");
  const InstructionAttrs& at = conv.attrs();
  if (!at.convolution_dimension_numbers || !at.window) {
    return Unsupported(conv, "no dimension numbers or window");
  }
  const ConvolutionDimensionNumbers& cd = *at.convolution_dimension_numbers;
  const int64_t ns = static_cast<int64_t>(cd.input_spatial_dimensions.size());
  if (ns < 1 || ns > 3) return Unsupported(conv, "1 to 3 spatial dimensions");
  if (at.batch_group_count != 1) return Unsupported(conv, "batch_group_count");
  const int64_t g = at.feature_group_count;
  memory::dims strides, dilates, pad_l, pad_r;
  for (const WindowDimension& w : at.window->dimensions) {
    if (w.base_dilation != 1 || w.window_reversal || w.padding_low < 0 ||
        w.padding_high < 0) {
      return Unsupported(conv, "lhs dilation, reversal or negative padding");
    }
    strides.push_back(w.stride);
    dilates.push_back(w.window_dilation - 1);
    pad_l.push_back(w.padding_low);
    pad_r.push_back(w.padding_high);
  }
  const std::vector<int64_t> lst = IndexUtil::LayoutStrides(ls);
  const std::vector<int64_t> rst = IndexUtil::LayoutStrides(rs);
  const std::vector<int64_t> ost = IndexUtil::LayoutStrides(os);
  View src, wei, dst;
  std::vector<std::vector<int64_t>> groups;
  auto add = [](View& v, const Shape& s, const std::vector<int64_t>& st,
                int64_t d) {
    v.dims.push_back(s.dimensions(d));
    v.strides.push_back(st[d]);
  };
  add(src, ls, lst, cd.input_batch_dimension);
  add(src, ls, lst, cd.input_feature_dimension);
  add(dst, os, ost, cd.output_batch_dimension);
  add(dst, os, ost, cd.output_feature_dimension);
  groups.push_back({cd.output_batch_dimension});
  groups.push_back({cd.output_feature_dimension});
  const int64_t out_features =
      rs.dimensions(cd.kernel_output_feature_dimension);
  if (g > 1) {
    // (G, O/G, I/G, spatial...): output feature o = group * (O/G) + o'.
    wei.dims.push_back(g);
    wei.strides.push_back(rst[cd.kernel_output_feature_dimension] *
                          (out_features / g));
    wei.dims.push_back(out_features / g);
    wei.strides.push_back(rst[cd.kernel_output_feature_dimension]);
  } else {
    add(wei, rs, rst, cd.kernel_output_feature_dimension);
  }
  add(wei, rs, rst, cd.kernel_input_feature_dimension);
  for (int64_t i = 0; i < ns; ++i) {
    add(src, ls, lst, cd.input_spatial_dimensions[i]);
    add(wei, rs, rst, cd.kernel_spatial_dimensions[i]);
    add(dst, os, ost, cd.output_spatial_dimensions[i]);
    groups.push_back({cd.output_spatial_dimensions[i]});
  }
  Plan plan;
  plan.kind = Plan::Kind::kConvolution;
  PlanArg a_src, a_wei;
  a_src.dnnl_arg = DNNL_ARG_SRC;
  a_src.source = conv.operand(0);
  a_src.user = UserDesc(src, ls.element_type());
  a_wei.dnnl_arg = DNNL_ARG_WEIGHTS;
  a_wei.source = conv.operand(1);
  a_wei.user = UserDesc(wei, rs.element_type());
  plan.dst.dnnl_arg = DNNL_ARG_DST;
  plan.dst.user = UserDesc(dst, os.element_type());
  plan.inputs = {a_src, a_wei};
  absl::StatusOr<dnnl::primitive_attr> attr =
      PostOpAttr(chain, os, groups, /*sum_for_full_add=*/true, &plan);
  if (!attr.ok()) return attr.status();
  try {
    // The primitive picks its layouts (blocked, e.g. nChw16c); the
    // program's arrays are reordered to and from them.
    auto any = [](const memory::desc& md) {
      return memory::desc(md.dims(), md.data_type(), memory::format_tag::any);
    };
    dnnl::convolution_forward::primitive_desc pd(
        dnnl::convolution_forward::desc(
            dnnl::prop_kind::forward_inference,
            dnnl::algorithm::convolution_auto, any(a_src.user), any(a_wei.user),
            any(plan.dst.user), strides, dilates, pad_l, pad_r),
        *attr, engine);
    plan.impl = pd.impl_info_str();
    if (absl::StartsWith(plan.impl, "ref")) {
      return Unsupported(conv,
                         "oneDNN has only its reference convolution for it");
    }
    plan.inputs[0].staged = plan.inputs[0].prim = pd.src_desc();
    plan.inputs[1].staged = plan.inputs[1].prim = pd.weights_desc();
    plan.dst.staged = plan.dst.prim = pd.dst_desc();
    for (PlanArg& a : plan.inputs) {
      if (a.dnnl_arg == kSumArg) a.staged = a.prim = pd.dst_desc();
    }
    if (hints.src_layout) {
      if (hints.src_layout->get_size() != plan.inputs[0].user.get_size()) {
        return Unsupported(conv, "its input's layout has another size");
      }
      plan.inputs[0].user = *hints.src_layout;
    }
    if (hints.keep_dst_layout &&
        pd.dst_desc().get_size() == plan.dst.user.get_size()) {
      plan.dst.user = pd.dst_desc();
      plan.dst_in_primitive_layout = true;
    }
    plan.primitive = dnnl::convolution_forward(pd);
    LayOutScratch(pd.scratchpad_desc(), &plan);
  } catch (const dnnl::error& e) {
    return Unsupported(conv,
                       absl::StrCat("no oneDNN convolution (", e.what(), ")"));
  }
  return plan;
}

}  // namespace

std::optional<memory::data_type> DnnlType(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::F32:
      return memory::data_type::f32;
    case PrimitiveType::BF16:
      return memory::data_type::bf16;
    default:
      return std::nullopt;
  }
}

// A dense array with a layout and at least one element: what the
// primitives read and write.
bool IsPlainArray(const Shape& s) {
  return s.IsArray() && s.has_layout() && ShapeUtil::IsDenseArray(s) &&
         ShapeUtil::ElementsIn(s) > 0 && DnnlType(s.element_type());
}

std::optional<double> ScalarConstantValue(const Instruction& i) {
  const Instruction* c = &i;
  if (c->opcode() == HloOpcode::kBroadcast) c = c->operand(0);
  if (c->opcode() != HloOpcode::kConstant || !c->shape().IsArray() ||
      c->shape().rank() != 0 || c->attrs().literal == nullptr) {
    return std::nullopt;
  }
  if (!primitive_util::IsFloatingPointType(c->shape().element_type()) &&
      !primitive_util::IsIntegralType(c->shape().element_type())) {
    return std::nullopt;
  }
  return c->attrs().literal->GetAsDouble({});
}

memory::desc PermutedDesc(const Shape& s, absl::Span<const int64_t> order) {
  const std::vector<int64_t> strides = IndexUtil::LayoutStrides(s);
  View v;
  for (int64_t d : order) {
    v.dims.push_back(d < 0 ? 1 : s.dimensions(d));
    v.strides.push_back(d < 0 ? 1 : strides[d]);
  }
  return UserDesc(v, s.element_type());
}

memory::desc PlainDesc(const Shape& s) {
  std::vector<int64_t> order;
  for (int64_t d = 0; d < s.rank(); ++d) order.push_back(d);
  return PermutedDesc(s, order);
}

const char* KindName(Plan::Kind kind) {
  switch (kind) {
    case Plan::Kind::kMatmul:
      return "matmul";
    case Plan::Kind::kConvolution:
      return "convolution";
    case Plan::Kind::kSoftmax:
      return "softmax";
    case Plan::Kind::kPooling:
      return "pooling";
    case Plan::Kind::kReduction:
      return "reduction";
    case Plan::Kind::kLayerNorm:
      return "layer_normalization";
    case Plan::Kind::kBatchNorm:
      return "batch_normalization";
    case Plan::Kind::kEltwise:
      return "eltwise";
    case Plan::Kind::kBinary:
      return "binary";
    case Plan::Kind::kReorder:
      return "reorder";
    case Plan::Kind::kConcat:
      return "concat";
  }
  return "?";
}

// Lays out the scratch: the primitive's scratchpad, then a copy for each
// argument that is reordered.
void LayOutScratch(const dnnl::memory::desc& scratchpad, Plan* plan) {
  plan->scratchpad = scratchpad;
  plan->scratchpad_bytes = static_cast<int64_t>(scratchpad.get_size());
  int64_t offset = AlignUp(plan->scratchpad_bytes);
  auto place = [&](PlanArg& a) {
    if (a.dnnl_arg == kSumArg) {  // reordered into the destination
      a.reorder = true;
      ++plan->reorders;
      return;
    }
    a.reorder = a.user != a.staged;
    if (!a.reorder) return;
    a.scratch_offset = offset;
    offset += AlignUp(static_cast<int64_t>(a.staged.get_size()));
    ++plan->reorders;
  };
  for (PlanArg& a : plan->inputs) place(a);
  place(plan->dst);
  for (PlanArg& a : plan->more_outputs) place(a);
  plan->scratch_bytes = offset;
}

std::vector<Instruction*> Chain::Members() const {
  std::vector<Instruction*> out = {const_cast<Instruction*>(anchor)};
  // A broadcast or constant that two post-ops share is one member.
  auto add = [&](const Instruction* i) {
    if (std::find(out.begin(), out.end(), i) == out.end()) {
      out.push_back(const_cast<Instruction*>(i));
    }
  };
  for (const PostOp& p : post_ops) {
    if (p.broadcast != nullptr) add(p.broadcast);
    for (const Instruction* c : p.constants) add(c);
    out.push_back(const_cast<Instruction*>(p.op));
  }
  return out;
}

std::vector<PostOp> MatchPostOps(const Instruction& anchor,
                                 const MatchOptions& options) {
  std::vector<PostOp> out;
  const Instruction* v = &anchor;
  while (static_cast<int>(out.size()) < options.max_post_ops &&
         v->parent() != nullptr && v->parent()->root_instruction() != v) {
    // gelu(v): several instructions, all of v's users among them.
    if (std::optional<EltwiseOp> gelu = MatchGeluOf(*v)) {
      PostOp p;
      p.op = gelu->members.back();
      p.kind = PostOp::Kind::kEltwise;
      p.alg = gelu->alg;
      p.constants.assign(gelu->members.begin(), gelu->members.end() - 1);
      out.push_back(std::move(p));
      v = out.back().op;
      continue;
    }
    if (v->user_count() != 1) break;
    const Instruction& u = *v->users()[0];
    std::optional<PostOp> p = AsPostOp(u, *v, anchor.shape(), options);
    if (!p) break;
    out.push_back(*p);
    v = &u;
  }
  return out;
}

absl::StatusOr<Plan> BuildPlan(const Chain& chain, const dnnl::engine& engine,
                               const PlanHints& hints) {
  try {
    switch (chain.anchor->opcode()) {
      case HloOpcode::kDot:
        return BuildMatmul(chain, engine);
      case HloOpcode::kConvolution:
        return BuildConvolution(chain, engine, hints);
      default:
        return Unsupported(*chain.anchor, "not a dot or a convolution");
    }
  } catch (const dnnl::error& e) {
    // A memory descriptor oneDNN refuses (strides it cannot express).
    return Unsupported(*chain.anchor, e.what());
  }
}

}  // namespace plexa::onednn
