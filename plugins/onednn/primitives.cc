#include "plugins/onednn/primitives.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/ir/window_util.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "plugins/common/reducer.h"
#include "plugins/onednn/pattern_util.h"
#include "plugins/onednn/softmax.h"

namespace plexa::onednn {

using dnnl::memory;

bool PrivateMembers(absl::Span<Instruction* const> members,
                    const Instruction& root) {
  absl::flat_hash_set<const Instruction*> set(members.begin(), members.end());
  for (const Instruction* m : members) {
    if (!m->control_predecessors().empty() ||
        !m->control_successors().empty()) {
      return false;
    }
    if (m == &root) continue;
    // A scalar constant (or a broadcast of one) that others read too is
    // duplicated into the fusion (FuseInstructions).
    if (ScalarConstantValue(*m).has_value()) continue;
    if (m->parent() != nullptr && m->parent()->root_instruction() == m) {
      return false;
    }
    for (const Instruction* u : m->users()) {
      if (!set.contains(u)) return false;
    }
  }
  return true;
}

namespace {

// ---- softmax (softmax.h) -------------------------------------------------

class SoftmaxPattern : public PrimitivePattern {
 public:
  Plan::Kind kind() const override { return Plan::Kind::kSoftmax; }
  std::optional<PatternMatch> Match(const Instruction& root,
                                    const MatchOptions& options,
                                    const dnnl::engine& engine) const override {
    std::optional<SoftmaxMatch> m = MatchSoftmax(root);
    if (!m) return std::nullopt;
    PatternMatch out;
    out.members = m->members;
    const double flops =
        5.0 * static_cast<double>(ShapeUtil::ElementsIn(root.shape()));
    if (!options.relaxed_nan) {
      out.plan = absl::FailedPreconditionError(
          absl::StrCat("the softmax ", root.name(),
                       ": oneDNN's drops NaNs (relaxed_nan=1 maps it)"));
    } else if (flops < options.min_flops) {
      out.plan = absl::FailedPreconditionError(
          absl::StrCat("the softmax ", root.name(),
                       ": fewer than min_flops=", options.min_flops, " flops"));
    } else {
      out.plan = BuildSoftmaxPlan(*m, root.shape(), engine);
    }
    return out;
  }
};

// ---- pooling -------------------------------------------------------------

class PoolingPattern : public PrimitivePattern {
 public:
  Plan::Kind kind() const override { return Plan::Kind::kPooling; }
  std::optional<PatternMatch> Match(const Instruction& root,
                                    const MatchOptions& options,
                                    const dnnl::engine& engine) const override {
    // avg: reduce-window add from 0, divided by the window's size (or
    // multiplied by its inverse); max: reduce-window max from -inf.
    const Instruction* rw = &root;
    const Instruction* scale = nullptr;
    bool avg = false;
    if (root.opcode() == HloOpcode::kDivide ||
        root.opcode() == HloOpcode::kMultiply) {
      const int w =
          root.operand(0)->opcode() == HloOpcode::kReduceWindow ? 0
          : root.opcode() == HloOpcode::kMultiply &&
                  root.operand(1)->opcode() == HloOpcode::kReduceWindow
              ? 1
              : -1;
      if (w < 0) return std::nullopt;
      rw = root.operand(w);
      scale = root.operand(1 - w);
      avg = true;
    }
    if (rw->opcode() != HloOpcode::kReduceWindow || rw->operand_count() != 2 ||
        !rw->shape().IsArray() || !rw->attrs().window ||
        rw->to_apply() == nullptr) {
      return std::nullopt;
    }
    std::optional<backend::MatchedReducer> reducer =
        backend::MatchReducer(*rw->to_apply());
    std::optional<double> init = ScalarConstantValue(*rw->operand(1));
    if (!reducer || !init) return std::nullopt;
    if (avg ? reducer->opcode != HloOpcode::kAdd || *init != 0.0
            : reducer->opcode != HloOpcode::kMaximum ||
                  !(std::isinf(*init) && *init < 0)) {
      return std::nullopt;
    }
    const Window& window = WindowOf(*rw);
    int64_t window_elements = 1;
    for (const WindowDimension& d : window.dimensions) {
      window_elements *= d.size;
    }
    if (avg) {
      std::optional<double> c = ScalarConstantValue(*scale);
      const double want = root.opcode() == HloOpcode::kDivide
                              ? static_cast<double>(window_elements)
                              : 1.0 / static_cast<double>(window_elements);
      if (!c || std::abs(*c - want) > 1e-6 * want) return std::nullopt;
    }
    PatternMatch out;
    out.members.push_back(const_cast<Instruction*>(rw->operand(1)));
    out.members.push_back(const_cast<Instruction*>(rw));
    if (avg) {
      if (scale->opcode() == HloOpcode::kBroadcast) {
        out.members.push_back(const_cast<Instruction*>(scale->operand(0)));
      }
      out.members.push_back(const_cast<Instruction*>(scale));
      out.members.push_back(const_cast<Instruction*>(&root));
    }
    if (!PrivateMembers(out.members, root) ||
        ReadsAFusibleProducer(out.members)) {
      return std::nullopt;
    }
    out.plan = Build(root, *rw->operand(0), window, avg, options, engine);
    return out;
  }

 private:
  static absl::StatusOr<Plan> Build(const Instruction& root,
                                    const Instruction& x, const Window& window,
                                    bool avg, const MatchOptions& options,
                                    const dnnl::engine& engine) {
    if (!avg && !options.relaxed_nan) {
      return absl::FailedPreconditionError(
          absl::StrCat(root.name(),
                       ": oneDNN's max pooling drops NaNs (relaxed_nan=1 "
                       "maps it)"));
    }
    if (absl::Status s = RefuseUnlessLarge(root, x.shape(), options); !s.ok()) {
      return s;
    }
    const Shape& xs = x.shape();
    if (!IsPlainArray(xs) || !IsPlainArray(root.shape()) ||
        xs.element_type() != root.shape().element_type()) {
      return Refuse(root, "not a dense f32 or bf16 array");
    }
    // Dimensions the window does not touch are N and C; the others are
    // spatial (1 to 3 of them).
    std::vector<int64_t> free, spatial;
    for (int64_t d = 0; d < xs.rank(); ++d) {
      const WindowDimension& w = window.dimensions[d];
      if (w.base_dilation != 1 || w.window_dilation != 1 || w.window_reversal ||
          w.padding_low < 0 || w.padding_high < 0) {
        return Refuse(root, "a dilated, reversed or negatively padded window");
      }
      const bool untouched = w.size == 1 && w.stride == 1 &&
                             w.padding_low == 0 && w.padding_high == 0;
      (untouched ? free : spatial).push_back(d);
    }
    if (spatial.empty() || spatial.size() > 3 || free.size() > 2) {
      return Refuse(root, "not 1 to 3 pooled dimensions beside N and C");
    }
    while (free.size() < 2) free.insert(free.begin(), -1);
    std::vector<int64_t> order = free;
    order.insert(order.end(), spatial.begin(), spatial.end());
    memory::dims strides, kernel, pad_l, pad_r;
    for (int64_t d : spatial) {
      const WindowDimension& w = window.dimensions[d];
      strides.push_back(w.stride);
      kernel.push_back(w.size);
      pad_l.push_back(w.padding_low);
      pad_r.push_back(w.padding_high);
    }
    Plan plan;
    plan.kind = Plan::Kind::kPooling;
    const memory::desc src = PermutedDesc(xs, order);
    const memory::desc dst = PermutedDesc(root.shape(), order);
    plan.inputs = {InPlace(DNNL_ARG_SRC, &x, src)};
    plan.dst = InPlace(DNNL_ARG_DST, nullptr, dst);
    // HLO pads an average's window with the init (0) and divides by the
    // whole window: oneDNN's include_padding.
    dnnl::pooling_forward::primitive_desc pd(
        dnnl::pooling_forward::desc(
            dnnl::prop_kind::forward_inference,
            avg ? dnnl::algorithm::pooling_avg_include_padding
                : dnnl::algorithm::pooling_max,
            src, dst, strides, kernel, pad_l, pad_r),
        UserScratchpad(), engine);
    return FinishPlan(root, std::move(plan), pd);
  }
};

// ---- reduction -----------------------------------------------------------

class ReductionPattern : public PrimitivePattern {
 public:
  Plan::Kind kind() const override { return Plan::Kind::kReduction; }
  std::optional<PatternMatch> Match(const Instruction& root,
                                    const MatchOptions& options,
                                    const dnnl::engine& engine) const override {
    if (root.opcode() != HloOpcode::kReduce || root.operand_count() != 2 ||
        !root.shape().IsArray() || root.to_apply() == nullptr) {
      return std::nullopt;
    }
    std::optional<backend::MatchedReducer> reducer =
        backend::MatchReducer(*root.to_apply());
    std::optional<double> init = ScalarConstantValue(*root.operand(1));
    if (!reducer || !init) return std::nullopt;
    dnnl::algorithm alg;
    bool identity = false;
    switch (reducer->opcode) {
      case HloOpcode::kAdd:
        alg = dnnl::algorithm::reduction_sum;
        identity = *init == 0.0;
        break;
      case HloOpcode::kMultiply:
        alg = dnnl::algorithm::reduction_mul;
        identity = *init == 1.0;
        break;
      case HloOpcode::kMaximum:
        alg = dnnl::algorithm::reduction_max;
        identity = std::isinf(*init) && *init < 0;
        break;
      case HloOpcode::kMinimum:
        alg = dnnl::algorithm::reduction_min;
        identity = std::isinf(*init) && *init > 0;
        break;
      default:
        return std::nullopt;
    }
    if (!identity) return std::nullopt;
    PatternMatch out;
    out.members = {const_cast<Instruction*>(root.operand(1)),
                   const_cast<Instruction*>(&root)};
    if (!PrivateMembers(out.members, root) ||
        ReadsAFusibleProducer(out.members)) {
      return std::nullopt;
    }
    out.plan = Build(root, alg, options, engine);
    return out;
  }

 private:
  static absl::StatusOr<Plan> Build(const Instruction& root,
                                    dnnl::algorithm alg,
                                    const MatchOptions& options,
                                    const dnnl::engine& engine) {
    const bool nan_sensitive = alg == dnnl::algorithm::reduction_max ||
                               alg == dnnl::algorithm::reduction_min;
    if (nan_sensitive && !options.relaxed_nan) {
      return absl::FailedPreconditionError(absl::StrCat(
          root.name(),
          ": oneDNN's max/min reduction drops NaNs (relaxed_nan=1 maps it)"));
    }
    const Instruction& x = *root.operand(0);
    // A [4096,1024] row sum: 91 µs on oneDNN, 78 µs on the CPU plugin.
    if (absl::Status s = RefuseUnlessLarge(root, x.shape(), options,
                                           /*slower_here=*/true);
        !s.ok()) {
      return s;
    }
    const Shape& xs = x.shape();
    if (!IsPlainArray(xs) || !IsPlainArray(root.shape()) ||
        xs.element_type() != root.shape().element_type() || xs.rank() > 5 ||
        root.shape().rank() == 0) {
      // oneDNN's reduction has no rank-0 destination: a full reduction
      // stays on the CPU plugin (its tree reduction is as fast).
      return Refuse(root, "not a partial reduction of a dense array");
    }
    // The destination keeps the reduced dimensions with size 1.
    const std::vector<int64_t>& reduced = root.attrs().dimensions;
    std::vector<int64_t> dst_order;
    int64_t k = 0;
    for (int64_t d = 0; d < xs.rank(); ++d) {
      const bool r =
          std::find(reduced.begin(), reduced.end(), d) != reduced.end();
      dst_order.push_back(r ? -1 : k++);
    }
    Plan plan;
    plan.kind = Plan::Kind::kReduction;
    const memory::desc src = PlainDesc(xs);
    const memory::desc dst = PermutedDesc(root.shape(), dst_order);
    plan.inputs = {InPlace(DNNL_ARG_SRC, &x, src)};
    plan.dst = InPlace(DNNL_ARG_DST, nullptr, dst);
    dnnl::reduction::primitive_desc pd(
        dnnl::reduction::desc(alg, src, dst, 0.0f, 0.0f), UserScratchpad(),
        engine);
    return FinishPlan(root, std::move(plan), pd);
  }
};

// A pattern of one instruction.
class OneInstructionPattern : public PrimitivePattern {
 public:
  std::optional<PatternMatch> Match(const Instruction& root,
                                    const MatchOptions& options,
                                    const dnnl::engine& engine) const final {
    if (!Takes(root)) return std::nullopt;
    PatternMatch out;
    out.members = {const_cast<Instruction*>(&root)};
    if (!PrivateMembers(out.members, root) ||
        (fuses_with_neighbours() && !Isolated(root, out.members))) {
      return std::nullopt;
    }
    out.plan = Build(root, options, engine);
    return out;
  }

 protected:
  virtual bool Takes(const Instruction& root) const = 0;
  // The CPU plugin fuses such instructions with their producers and
  // consumers: they are taken only where it would not (Isolated).
  virtual bool fuses_with_neighbours() const { return true; }
  virtual absl::StatusOr<Plan> Build(const Instruction& root,
                                     const MatchOptions& options,
                                     const dnnl::engine& engine) const = 0;
};

// ---- batch-norm-training -------------------------------------------------

class BatchNormPattern : public OneInstructionPattern {
 public:
  Plan::Kind kind() const override { return Plan::Kind::kBatchNorm; }

 protected:
  bool Takes(const Instruction& root) const override {
    return root.opcode() == HloOpcode::kBatchNormTraining &&
           root.operand_count() == 3;
  }
  bool fuses_with_neighbours() const override { return false; }
  absl::StatusOr<Plan> Build(const Instruction& root,
                             const MatchOptions& options,
                             const dnnl::engine& engine) const override {
    const Instruction& x = *root.operand(0);
    const Shape& xs = x.shape();
    const int64_t feature = root.attrs().feature_index;
    if (!root.shape().IsTuple() || root.shape().tuple_shapes().size() != 3 ||
        !IsPlainArray(xs) || xs.element_type() != PrimitiveType::F32 ||
        xs.rank() < 2 || xs.rank() > 5 || feature < 0 || feature >= xs.rank()) {
      return Refuse(root, "not f32 data of rank 2 to 5");
    }
    const Shape& y = root.shape().tuple_shapes(0);
    for (const Shape* s :
         {&y, &root.shape().tuple_shapes(1), &root.shape().tuple_shapes(2),
          &root.operand(1)->shape(), &root.operand(2)->shape()}) {
      if (!IsPlainArray(*s) || s->element_type() != PrimitiveType::F32) {
        return Refuse(root, "its scale, offset or results are not dense f32");
      }
    }
    // C is the feature dimension; the others, in order, are N and spatial.
    std::vector<int64_t> order;
    for (int64_t d = 0; d < xs.rank(); ++d) {
      if (d != feature) order.push_back(d);
    }
    order.insert(order.begin() + 1, feature);
    Plan plan;
    plan.kind = Plan::Kind::kBatchNorm;
    const memory::desc src = PermutedDesc(xs, order);
    const memory::desc dst = PermutedDesc(y, order);
    if (src != dst) {
      return Refuse(root, "its result's layout differs from its operand's");
    }
    plan.inputs = {InPlace(DNNL_ARG_SRC, &x, src),
                   InPlace(DNNL_ARG_SCALE, root.operand(1),
                           PlainDesc(root.operand(1)->shape())),
                   InPlace(DNNL_ARG_SHIFT, root.operand(2),
                           PlainDesc(root.operand(2)->shape()))};
    plan.dst = InPlace(DNNL_ARG_DST, nullptr, dst);
    plan.more_outputs = {InPlace(DNNL_ARG_MEAN, nullptr,
                                 PlainDesc(root.shape().tuple_shapes(1))),
                         InPlace(DNNL_ARG_VARIANCE, nullptr,
                                 PlainDesc(root.shape().tuple_shapes(2)))};
    dnnl::batch_normalization_forward::primitive_desc pd(
        dnnl::batch_normalization_forward::desc(
            dnnl::prop_kind::forward_training, src, root.attrs().epsilon,
            dnnl::normalization_flags::use_scale |
                dnnl::normalization_flags::use_shift),
        UserScratchpad(), engine);
    if (pd.workspace_desc().get_size() != 0) {
      return Refuse(root, "oneDNN wants a workspace for it");
    }
    // The pipeline kept it unexpanded for oneDNN (KeepBatchNorm): whatever
    // implementation oneDNN has runs it.
    return FinishPlan(root, std::move(plan), pd, /*allow_reference=*/true);
  }
};

// ---- concatenate -----------------------------------------------------------

class ConcatPattern : public OneInstructionPattern {
 public:
  Plan::Kind kind() const override { return Plan::Kind::kConcat; }

 protected:
  bool Takes(const Instruction& root) const override {
    return root.opcode() == HloOpcode::kConcatenate &&
           root.operand_count() >= 2;
  }
  absl::StatusOr<Plan> Build(const Instruction& root,
                             const MatchOptions& options,
                             const dnnl::engine& engine) const override {
    if (absl::Status s = RefuseUnlessLarge(root, root.shape(), options);
        !s.ok()) {
      return s;
    }
    if (!IsPlainArray(root.shape()) || root.shape().rank() > 6) {
      return Refuse(root, "not a dense array of rank 1 to 6");
    }
    Plan plan;
    plan.kind = Plan::Kind::kConcat;
    std::vector<memory::desc> srcs;
    for (int64_t i = 0; i < root.operand_count(); ++i) {
      const Instruction* op = root.operand(i);
      // Every operand must be a distinct argument of the primitive; one
      // value read twice is two arguments of the same memory (allowed).
      if (!IsPlainArray(op->shape()) ||
          op->shape().element_type() != root.shape().element_type()) {
        return Refuse(root, "an operand is not a dense array of its type");
      }
      srcs.push_back(PlainDesc(op->shape()));
      plan.inputs.push_back(InPlace(DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i),
                                    op, srcs.back()));
    }
    const memory::desc dst = PlainDesc(root.shape());
    plan.dst = InPlace(DNNL_ARG_DST, nullptr, dst);
    dnnl::concat::primitive_desc pd(
        dst, static_cast<int>(root.attrs().dimensions[0]), srcs, engine,
        UserScratchpad());
    return FinishPlan(root, std::move(plan), pd);
  }
};

// ---- transpose and copy -----------------------------------------------------

class ReorderPattern : public OneInstructionPattern {
 public:
  Plan::Kind kind() const override { return Plan::Kind::kReorder; }
  bool elementwise() const override { return true; }

 protected:
  bool Takes(const Instruction& root) const override {
    return root.opcode() == HloOpcode::kTranspose ||
           root.opcode() == HloOpcode::kCopy;
  }
  absl::StatusOr<Plan> Build(const Instruction& root,
                             const MatchOptions& options,
                             const dnnl::engine& engine) const override {
    if (absl::Status s = RefuseUnlessLarge(root, root.shape(), options);
        !s.ok()) {
      return s;
    }
    const Instruction& x = *root.operand(0);
    if (!IsPlainArray(x.shape()) || !IsPlainArray(root.shape()) ||
        x.shape().element_type() != root.shape().element_type() ||
        root.shape().rank() == 0 || root.shape().rank() > 6) {
      return Refuse(root, "not a dense array of rank 1 to 6");
    }
    // The operand read in the result's dimension order.
    std::vector<int64_t> order;
    for (int64_t d = 0; d < root.shape().rank(); ++d) {
      order.push_back(root.opcode() == HloOpcode::kTranspose
                          ? root.attrs().dimensions[d]
                          : d);
    }
    const memory::desc src = PermutedDesc(x.shape(), order);
    const memory::desc dst = PlainDesc(root.shape());
    if (src == dst) return Refuse(root, "it moves no byte");
    Plan plan;
    plan.kind = Plan::Kind::kReorder;
    plan.inputs = {InPlace(DNNL_ARG_FROM, &x, src)};
    plan.dst = InPlace(DNNL_ARG_TO, nullptr, dst);
    dnnl::reorder::primitive_desc pd(engine, src, engine, dst,
                                     UserScratchpad());
    return FinishPlan(root, std::move(plan), pd);
  }
};

// ---- unary elementwise and gelu ---------------------------------------------

class EltwisePattern : public PrimitivePattern {
 public:
  Plan::Kind kind() const override { return Plan::Kind::kEltwise; }
  bool elementwise() const override { return true; }
  std::optional<PatternMatch> Match(const Instruction& root,
                                    const MatchOptions& options,
                                    const dnnl::engine& engine) const override {
    std::optional<EltwiseOp> op = MatchEltwise(root);
    if (!op || !Isolated(root, op->members)) return std::nullopt;
    PatternMatch out;
    out.members = op->members;
    if (!PrivateMembers(out.members, root)) return std::nullopt;
    out.plan = Build(root, *op, options, engine);
    return out;
  }

 private:
  static absl::StatusOr<Plan> Build(const Instruction& root,
                                    const EltwiseOp& op,
                                    const MatchOptions& options,
                                    const dnnl::engine& engine) {
    if (absl::Status s = RefuseUnlessLarge(root, root.shape(), options,
                                           /*slower_here=*/true);
        !s.ok()) {
      return s;
    }
    const Shape& xs = op.x->shape();
    if (!IsPlainArray(xs) || !IsPlainArray(root.shape()) ||
        xs.element_type() != root.shape().element_type()) {
      return Refuse(root, "not a dense f32 or bf16 array");
    }
    const memory::desc src = PlainDesc(xs);
    if (src != PlainDesc(root.shape())) {
      return Refuse(root, "its result's layout differs from its operand's");
    }
    Plan plan;
    plan.kind = Plan::Kind::kEltwise;
    plan.inputs = {InPlace(DNNL_ARG_SRC, op.x, src)};
    plan.dst = InPlace(DNNL_ARG_DST, nullptr, src);
    dnnl::eltwise_forward::primitive_desc pd(
        dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference, op.alg,
                                    src, op.alpha, op.beta),
        UserScratchpad(), engine);
    return FinishPlan(root, std::move(plan), pd);
  }
};

// ---- binary -----------------------------------------------------------------

class BinaryPattern : public PrimitivePattern {
 public:
  Plan::Kind kind() const override { return Plan::Kind::kBinary; }
  bool elementwise() const override { return true; }
  std::optional<PatternMatch> Match(const Instruction& root,
                                    const MatchOptions& options,
                                    const dnnl::engine& engine) const override {
    std::optional<dnnl::algorithm> alg = BinaryAlgorithm(root.opcode());
    if (!alg || root.operand_count() != 2 || !root.shape().IsArray()) {
      return std::nullopt;
    }
    // src0 is full size; src1 may be a broadcast (read through it). The
    // operands of a commutative op swap to get there.
    int lhs = 0;
    if (root.operand(0)->opcode() == HloOpcode::kBroadcast &&
        root.operand(1)->opcode() != HloOpcode::kBroadcast) {
      if (root.opcode() == HloOpcode::kSubtract ||
          root.opcode() == HloOpcode::kDivide) {
        return std::nullopt;
      }
      lhs = 1;
    }
    const Instruction* a = root.operand(lhs);
    const Instruction* b = root.operand(1 - lhs);
    if (a->opcode() == HloOpcode::kBroadcast) return std::nullopt;
    PatternMatch out;
    const Instruction* source = b;
    if (b->opcode() == HloOpcode::kBroadcast && b->user_count() == 1 &&
        b != a) {
      out.members.push_back(const_cast<Instruction*>(b));
      source = b->operand(0);
    }
    out.members.push_back(const_cast<Instruction*>(&root));
    if (!PrivateMembers(out.members, root) || !Isolated(root, out.members)) {
      return std::nullopt;
    }
    out.plan = Build(root, *alg, *a, *source, source == b ? nullptr : b,
                     options, engine);
    return out;
  }

 private:
  static absl::StatusOr<Plan> Build(const Instruction& root,
                                    dnnl::algorithm alg, const Instruction& a,
                                    const Instruction& b,
                                    const Instruction* broadcast,
                                    const MatchOptions& options,
                                    const dnnl::engine& engine) {
    if ((alg == dnnl::algorithm::binary_max ||
         alg == dnnl::algorithm::binary_min) &&
        !options.relaxed_nan) {
      return absl::FailedPreconditionError(absl::StrCat(
          root.name(),
          ": oneDNN's binary max/min drop NaNs (relaxed_nan=1 maps it)"));
    }
    if (absl::Status s = RefuseUnlessLarge(root, root.shape(), options,
                                           /*slower_here=*/true);
        !s.ok()) {
      return s;
    }
    const Shape& rs = root.shape();
    if (!IsPlainArray(rs) || !IsPlainArray(a.shape()) ||
        !IsPlainArray(b.shape()) || rs.rank() == 0 || rs.rank() > 6) {
      return Refuse(root, "not dense arrays of rank 1 to 6");
    }
    // The broadcast's operand with size-1 dimensions where it broadcasts.
    std::vector<int64_t> order(rs.rank(), -1);
    if (broadcast != nullptr) {
      const std::vector<int64_t>& dims = broadcast->attrs().dimensions;
      for (size_t j = 0; j < dims.size(); ++j) {
        order[dims[j]] = static_cast<int64_t>(j);
      }
    } else {
      for (int64_t d = 0; d < rs.rank(); ++d) order[d] = d;
    }
    Plan plan;
    plan.kind = Plan::Kind::kBinary;
    const memory::desc src0 = PlainDesc(a.shape());
    const memory::desc src1 = PermutedDesc(b.shape(), order);
    const memory::desc dst = PlainDesc(rs);
    plan.inputs = {InPlace(DNNL_ARG_SRC_0, &a, src0),
                   InPlace(DNNL_ARG_SRC_1, &b, src1)};
    plan.dst = InPlace(DNNL_ARG_DST, nullptr, dst);
    dnnl::binary::primitive_desc pd(dnnl::binary::desc(alg, src0, src1, dst),
                                    UserScratchpad(), engine);
    return FinishPlan(root, std::move(plan), pd);
  }
};

const SoftmaxPattern kSoftmax;
const PoolingPattern kPooling;
const ReductionPattern kReduction;
const BatchNormPattern kBatchNorm;
const ConcatPattern kConcat;
const ReorderPattern kReorder;
const EltwisePattern kEltwise;
const BinaryPattern kBinary;

}  // namespace

std::optional<PatternMatch> MatchGuarded(const PrimitivePattern& pattern,
                                         const Instruction& root,
                                         const MatchOptions& options,
                                         const dnnl::engine& engine) {
  try {
    return pattern.Match(root, options, engine);
  } catch (const dnnl::error& e) {
    // Thrown while building the plan: the match stands, oneDNN refuses it.
    // Match again without building (min_elements beyond any array makes
    // every pattern stop before it calls oneDNN) for the members.
    MatchOptions probe = options;
    probe.min_elements = std::numeric_limits<int64_t>::max();
    probe.relaxed_nan = true;
    probe.min_flops = 0;
    probe.all_primitives = true;
    std::optional<PatternMatch> m;
    try {
      m = pattern.Match(root, probe, engine);
    } catch (const dnnl::error&) {
      return std::nullopt;
    }
    if (!m) return std::nullopt;
    m->plan = Refuse(root, absl::StrCat("no oneDNN ", KindName(pattern.kind()),
                                        " (", e.what(), ")"));
    return m;
  }
}

absl::Span<const PrimitivePattern* const> PrimitivePatterns() {
  static const PrimitivePattern* const kAll[] = {
      &LayerNormPattern(), &kSoftmax,   &kBatchNorm,
      &kPooling,           &kReduction, &kConcat,
      &kEltwise,           &kBinary,    &kReorder};
  return kAll;
}

const PrimitivePattern* FindPattern(absl::string_view kind) {
  for (const PrimitivePattern* p : PrimitivePatterns()) {
    if (kind == KindName(p->kind())) return p;
  }
  return nullptr;
}

}  // namespace plexa::onednn
