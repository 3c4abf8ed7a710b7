#include "plugins/onednn/onednn_extension.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/ir/cost_analysis.h"
#include "core/passes/pass_util.h"
#include "core/shape/shape_util.h"
#include "plugins/cpu/conv_thunk.h"
#include "plugins/cpu/runtime/conv.h"
#include "plugins/onednn/onednn_thunk.h"
#include "plugins/onednn/softmax.h"

namespace plexa::onednn {
namespace {

constexpr absl::string_view kConfigPrefix = "{\"onednn\":";

std::string ConfigFor(const Instruction& anchor) {
  return absl::StrCat(
      kConfigPrefix,
      anchor.opcode() == HloOpcode::kDot ? "\"matmul\"" : "\"convolution\"",
      "}");
}

bool IsAnchor(const Instruction& i) {
  return (i.opcode() == HloOpcode::kDot ||
          i.opcode() == HloOpcode::kConvolution) &&
         i.control_predecessors().empty() && i.control_successors().empty();
}

// The chain of `anchor` with as many of its matched post-ops as oneDNN
// takes (a post-op it refuses ends the chain there).
absl::StatusOr<Chain> LongestBuildableChain(const Instruction& anchor,
                                            const MatchOptions& options,
                                            const dnnl::engine& engine) {
  Chain chain;
  chain.anchor = &anchor;
  chain.post_ops = MatchPostOps(anchor, options);
  while (true) {
    absl::StatusOr<Plan> plan = BuildPlan(chain, engine);
    if (plan.ok()) return chain;
    if (chain.post_ops.empty()) return plan.status();
    chain.post_ops.pop_back();
  }
}

// An f32 dot or convolution too small for a library call to pay.
bool TooSmall(const Instruction& anchor, const MatchOptions& options) {
  return anchor.shape().element_type() == PrimitiveType::F32 &&
         DotOrConvolutionFlops(anchor) < options.min_flops;
}

// An f32 convolution the CPU plugin runs with its Winograd kernel, which is
// left there unless the client asked for all_convolutions.
bool LeftToWinograd(const Instruction& anchor, const MatchOptions& options) {
  if (options.all_convolutions || anchor.opcode() != HloOpcode::kConvolution ||
      anchor.shape().element_type() != PrimitiveType::F32) {
    return false;
  }
  std::optional<cpu::ConvDims> dims = cpu::MakeConvDims(anchor);
  return dims.has_value() && cpu::ConvTakesWinograd(*dims);
}

}  // namespace

bool IsOneDnnFusion(const Instruction& h) {
  return h.opcode() == HloOpcode::kFusion &&
         h.attrs().fusion_kind == FusionKind::kCustom &&
         absl::StartsWith(h.attrs().backend_config, kConfigPrefix) &&
         h.called_computations().size() == 1;
}

absl::StatusOr<std::shared_ptr<OneDnnExtension>> OneDnnExtension::Create(
    MatchOptions options, int num_threads) {
  try {
    dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    return std::shared_ptr<OneDnnExtension>(
        new OneDnnExtension(std::move(engine), options, num_threads));
  } catch (const dnnl::error& e) {
    return absl::UnavailableError(
        absl::StrCat("oneDNN has no CPU engine: ", e.what()));
  }
}

absl::StatusOr<bool> OneDnnExtension::RewriteBeforeFusion(Module* module) {
  bool changed = false;
  for (Computation* c : ControlFlowComputations(*module)) {
    // Softmax patterns first (their members are elementwise ops and
    // reductions, never anchors): collected, then fused, so no match
    // points at an instruction an earlier fusion removed.
    std::vector<SoftmaxMatch> softmaxes;
    for (Instruction* i : c->MakeInstructionPostOrder()) {
      std::optional<SoftmaxMatch> m = MatchSoftmax(*i);
      if (!m) continue;
      const double flops =
          5.0 * static_cast<double>(ShapeUtil::ElementsIn(i->shape()));
      absl::StatusOr<Plan> plan =
          !options_.relaxed_nan
              ? absl::FailedPreconditionError(absl::StrCat(
                    "the softmax ", i->name(),
                    ": oneDNN's drops NaNs (relaxed_nan=1 maps it)"))
          : flops < options_.min_flops
              ? absl::FailedPreconditionError(absl::StrCat(
                    "the softmax ", i->name(),
                    ": fewer than min_flops=", options_.min_flops, " flops"))
              : BuildSoftmaxPlan(*m, i->shape(), engine_);
      if (!plan.ok()) {
        std::lock_guard<std::mutex> lock(mu_);
        if (stats_.size() > 64) stats_.clear();
        stats_[module].refused.push_back(std::string(plan.status().message()));
        continue;
      }
      softmaxes.push_back(std::move(*m));
    }
    for (const SoftmaxMatch& m : softmaxes) {
      Instruction* root = m.members.back();
      const std::string name = absl::StrCat("onednn_", root->name());
      absl::StatusOr<Instruction*> fusion =
          FuseInstructions(c, m.members, root, FusionKind::kCustom,
                           absl::StrCat(kConfigPrefix, "\"softmax\"}"));
      if (!fusion.ok()) return fusion.status();
      (*fusion)->set_name(c->UniqueName(name));
      changed = true;
    }
    // Anchors first: rewriting one removes only its own post-ops.
    std::vector<Instruction*> anchors;
    for (Instruction* i : c->MakeInstructionPostOrder()) {
      if (IsAnchor(*i)) anchors.push_back(i);
    }
    for (Instruction* anchor : anchors) {
      absl::StatusOr<Chain> chain =
          TooSmall(*anchor, options_)
              ? absl::FailedPreconditionError(absl::StrCat(
                    anchor->name(),
                    ": fewer than min_flops=", options_.min_flops, " flops"))
          : LeftToWinograd(*anchor, options_)
              ? absl::FailedPreconditionError(
                    absl::StrCat(anchor->name(),
                                 ": the CPU plugin's Winograd kernel is faster "
                                 "(all_convolutions=1 maps it)"))
              : LongestBuildableChain(*anchor, options_, engine_);
      if (!chain.ok()) {  // the CPU plugin runs it
        std::lock_guard<std::mutex> lock(mu_);
        if (stats_.size() > 64) stats_.clear();
        stats_[module].refused.push_back(std::string(chain.status().message()));
        continue;
      }
      // Named before fusing: the anchor goes with it.
      const std::string name = absl::StrCat("onednn_", anchor->name());
      absl::StatusOr<Instruction*> fusion = FuseInstructions(
          c, chain->Members(), const_cast<Instruction*>(chain->last()),
          FusionKind::kCustom, ConfigFor(*anchor));
      if (!fusion.ok()) return fusion.status();
      (*fusion)->set_name(c->UniqueName(name));
      changed = true;
    }
  }
  return changed;
}

namespace {

// The chain a oneDNN fusion holds: its one anchor with every post-op.
absl::StatusOr<Chain> FusionChain(const Instruction& h) {
  const Computation& fc = *h.called_computations()[0];
  const Instruction* anchor = nullptr;
  int anchors = 0;
  for (const Instruction* i : fc.instructions()) {
    if (IsAnchor(*i)) {
      anchor = i;
      ++anchors;
    }
  }
  if (anchors != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        h.name(), ": a oneDNN fusion holds one dot or convolution, not ",
        anchors));
  }
  // The rewrite already chose the post-ops: take every one there is.
  MatchOptions all;
  all.relaxed_nan = true;
  all.max_post_ops = 1 << 20;
  Chain chain;
  chain.anchor = anchor;
  chain.post_ops = MatchPostOps(*anchor, all);
  if (chain.last() != fc.root_instruction()) {
    return absl::InvalidArgumentError(
        absl::StrCat(h.name(),
                     ": the fused computation is not one oneDNN primitive with "
                     "post-ops"));
  }
  return chain;
}

bool IsConvolutionFusion(const Instruction& h) {
  return IsOneDnnFusion(h) &&
         absl::StrContains(h.attrs().backend_config, "\"convolution\"");
}

// The operand of oneDNN convolution fusion `u` that its convolution reads
// as its input, when nothing else in the fusion reads it; else null.
const Instruction* ConvolutionInput(const Instruction& u) {
  if (!IsConvolutionFusion(u)) return nullptr;
  absl::StatusOr<Chain> chain = FusionChain(u);
  if (!chain.ok()) return nullptr;
  const Instruction* src = chain->anchor->operand(0);
  if (src->opcode() != HloOpcode::kParameter || src->user_count() != 1) {
    return nullptr;
  }
  const Instruction* op = u.operand(src->attrs().parameter_number);
  return std::count(u.operands().begin(), u.operands().end(), op) == 1
             ? op
             : nullptr;
}

// True when the oneDNN convolution fusion `h` is only the input of another
// one: it then leaves its result in its primitive's layout.
bool FeedsAConvolution(const Instruction& h) {
  return IsConvolutionFusion(h) && h.user_count() == 1 &&
         h.parent()->root_instruction() != &h &&
         ConvolutionInput(*h.users()[0]) == &h;
}

}  // namespace

absl::StatusOr<cpu::ExtensionThunk> OneDnnExtension::MakeThunk(
    const Instruction& h) {
  if (!IsOneDnnFusion(h)) return cpu::ExtensionThunk{};
  if (absl::StrContains(h.attrs().backend_config, "\"softmax\"")) {
    return MakeSoftmaxThunk(h);
  }
  absl::StatusOr<Chain> chain = FusionChain(h);
  if (!chain.ok()) return chain.status();
  PlanHints hints;
  hints.keep_dst_layout = FeedsAConvolution(h);
  // The layout the producer of this convolution's input left it in: built
  // again here (the same primitive descriptor), so no state passes between
  // thunks.
  const Instruction* input = ConvolutionInput(h);
  if (input != nullptr && FeedsAConvolution(*input)) {
    absl::StatusOr<Chain> producer = FusionChain(*input);
    if (!producer.ok()) return producer.status();
    PlanHints keep;
    keep.keep_dst_layout = true;
    absl::StatusOr<Plan> p = BuildPlan(*producer, engine_, keep);
    if (p.ok() && p->dst_in_primitive_layout) hints.src_layout = p->dst.user;
  }
  absl::StatusOr<Plan> plan = BuildPlan(*chain, engine_, hints);
  if (!plan.ok()) {
    if (hints.keep_dst_layout || hints.src_layout) {
      // Its neighbour counts on the agreed layout: running this one on the
      // CPU plugin would hand it the wrong bytes.
      return plan.status();
    }
    // On a machine where oneDNN does not take it (a deserialized program),
    // the CPU plugin runs the fusion.
    return cpu::ExtensionThunk{};
  }
  std::vector<int> input_index;
  for (const PlanArg& a : plan->inputs) {
    if (a.source->opcode() != HloOpcode::kParameter) {
      return absl::InvalidArgumentError(absl::StrCat(
          h.name(), ": ", a.source->name(),
          " is computed inside the oneDNN fusion; it must be an operand"));
    }
    input_index.push_back(static_cast<int>(a.source->attrs().parameter_number));
  }
  for (const Instruction* op : h.operands()) {
    if (!op->shape().IsArray()) {
      return absl::InvalidArgumentError(
          absl::StrCat(h.name(), ": a oneDNN fusion takes arrays only"));
    }
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stats_.size() > 64) stats_.clear();
    Stats& s = stats_[h.parent()->parent()];
    (plan->kind == Plan::Kind::kMatmul ? s.matmuls : s.convolutions) += 1;
    s.post_ops += plan->post_op_count;
    s.reorders += plan->reorders;
    s.impls[plan->impl] += 1;
  }
  cpu::ExtensionThunk out;
  out.scratch_bytes = plan->scratch_bytes;
  const char* kind = plan->kind == Plan::Kind::kMatmul ? "onednn.matmul"
                                                       : "onednn.convolution";
  out.thunk = std::make_unique<OneDnnThunk>(
      std::move(*plan), std::move(input_index), engine_, num_threads_);
  out.thunk->kind = kind;
  return out;
}

absl::StatusOr<cpu::ExtensionThunk> OneDnnExtension::MakeSoftmaxThunk(
    const Instruction& h) {
  const Computation& fc = *h.called_computations()[0];
  std::optional<SoftmaxMatch> m = MatchSoftmax(*fc.root_instruction());
  if (!m || m->input->opcode() != HloOpcode::kParameter) {
    return absl::InvalidArgumentError(absl::StrCat(
        h.name(), ": the fused computation is not a softmax of a parameter"));
  }
  absl::StatusOr<Plan> plan = BuildSoftmaxPlan(*m, h.shape(), engine_);
  if (!plan.ok()) return cpu::ExtensionThunk{};  // the CPU plugin runs it
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stats_.size() > 64) stats_.clear();
    Stats& s = stats_[h.parent()->parent()];
    s.softmaxes += 1;
    s.impls[plan->impl] += 1;
  }
  cpu::ExtensionThunk out;
  out.scratch_bytes = plan->scratch_bytes;
  const int input = static_cast<int>(m->input->attrs().parameter_number);
  out.thunk = std::make_unique<OneDnnThunk>(
      std::move(*plan), std::vector<int>{input}, engine_, num_threads_);
  out.thunk->kind = m->log ? "onednn.logsoftmax" : "onednn.softmax";
  return out;
}

std::string OneDnnExtension::Report(const Module& optimized) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = stats_.find(&optimized);
  if (it == stats_.end()) return "no dot or convolution";
  const Stats s = it->second;
  stats_.erase(it);
  std::vector<std::string> impls;
  for (const auto& [name, n] : s.impls) {
    impls.push_back(absl::StrCat(name, " x", n));
  }
  std::sort(impls.begin(), impls.end());
  std::string out =
      absl::StrCat(s.matmuls + s.convolutions + s.softmaxes,
                   " oneDNN primitives (matmul ", s.matmuls, ", convolution ",
                   s.convolutions, ", softmax ", s.softmaxes, "), ", s.post_ops,
                   " post-ops fused, ", s.reorders, " reorders per execution");
  if (!impls.empty()) absl::StrAppend(&out, "; ", absl::StrJoin(impls, ", "));
  if (!s.refused.empty()) {
    absl::StrAppend(
        &out, "; left to the CPU plugin: ", absl::StrJoin(s.refused, "; "));
  }
  return out;
}

}  // namespace plexa::onednn
