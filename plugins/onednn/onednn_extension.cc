#include "plugins/onednn/onednn_extension.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "core/ir/cost_analysis.h"
#include "core/passes/pass_util.h"
#include "core/shape/shape_util.h"
#include "plugins/cpu/conv_thunk.h"
#include "plugins/cpu/runtime/conv.h"
#include "plugins/onednn/onednn_thunk.h"
#include "plugins/onednn/primitives.h"

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
  return ((i.opcode() == HloOpcode::kDot && i.attrs().dot_sparsity.empty()) ||
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

void OneDnnExtension::Refused(const Module* module, absl::Status why) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (stats_.size() > 64) stats_.clear();
  stats_[module].refused.push_back(std::string(why.message()));
}

absl::StatusOr<bool> OneDnnExtension::FusePatterns(Module* module,
                                                   Computation* c,
                                                   bool elementwise) {
  // Consumers first, so a larger pattern (a layer norm) takes its
  // reductions before the reduction pattern sees them; a match is taken
  // only if none of its members is taken already. Collected, then fused,
  // so no match points at an instruction an earlier fusion removed.
  std::vector<Instruction*> order = c->MakeInstructionPostOrder();
  absl::flat_hash_set<const Instruction*> taken;
  std::vector<std::pair<PatternMatch, Plan::Kind>> matches;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Instruction* i = *it;
    if (taken.contains(i) || i->opcode() == HloOpcode::kFusion) continue;
    for (const PrimitivePattern* p : PrimitivePatterns()) {
      if (p->elementwise() != elementwise) continue;
      std::optional<PatternMatch> m = MatchGuarded(*p, *i, options_, engine_);
      if (!m) continue;
      if (std::any_of(m->members.begin(), m->members.end(),
                      [&](Instruction* x) { return taken.contains(x); })) {
        continue;
      }
      if (!m->plan.ok()) {
        Refused(module, m->plan.status());
        continue;
      }
      taken.insert(m->members.begin(), m->members.end());
      matches.push_back({std::move(*m), p->kind()});
      break;
    }
  }
  for (const auto& [m, kind] : matches) {
    Instruction* root = m.members.back();
    const std::string name = absl::StrCat("onednn_", root->name());
    absl::StatusOr<Instruction*> fusion = FuseInstructions(
        c, m.members, root, FusionKind::kCustom,
        absl::StrCat(kConfigPrefix, "\"", KindName(kind), "\"}"));
    if (!fusion.ok()) return fusion.status();
    (*fusion)->set_name(c->UniqueName(name));
  }
  return !matches.empty();
}

bool OneDnnExtension::KeepBatchNorm(const Instruction& bn) const {
  // What BatchNormPattern takes (f32, rank 2 to 5): the rewrite then makes
  // it a oneDNN fusion, with oneDNN's reference kernel if need be.
  if (bn.opcode() != HloOpcode::kBatchNormTraining || bn.operand_count() != 3) {
    return false;
  }
  for (const Instruction* op : bn.operands()) {
    if (!op->shape().IsArray() ||
        op->shape().element_type() != PrimitiveType::F32 ||
        op->shape().is_dynamic()) {
      return false;
    }
  }
  // oneDNN's jit batch norm wants the features innermost (channels last:
  // 7x the CPU plugin's expansion for [8,56,56,64]); with them outermost
  // it has only a slow generic kernel (3x slower than the expansion for
  // [8,64,56,56]). The layout is not assigned yet: the default one puts
  // the last dimension innermost.
  const int64_t rank = bn.operand(0)->shape().rank();
  return rank >= 2 && rank <= 5 &&
         (options_.all_primitives || bn.attrs().feature_index == rank - 1);
}

absl::StatusOr<bool> OneDnnExtension::RewriteBeforeFusion(Module* module) {
  bool changed = false;
  for (Computation* c : ControlFlowComputations(*module)) {
    // Softmaxes, layer norms, batch norms, pooling, reductions, concats
    // first: their members are never anchors, and no chain reaches into
    // them (an anchor feeding one has several users).
    absl::StatusOr<bool> fused = FusePatterns(module, c, false);
    if (!fused.ok()) return fused.status();
    changed |= *fused;
    // Anchors next: rewriting one removes only its own post-ops.
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
        Refused(module, chain.status());
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
    // Last, the elementwise ops no chain took and no CPU fusion would.
    fused = FusePatterns(module, c, true);
    if (!fused.ok()) return fused.status();
    changed |= *fused;
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
  if (!absl::StrContains(h.attrs().backend_config, "\"matmul\"") &&
      !absl::StrContains(h.attrs().backend_config, "\"convolution\"")) {
    return MakePatternThunk(h);
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
    s.primitives[KindName(plan->kind)] += 1;
    s.post_ops += plan->post_op_count;
    s.reorders += plan->reorders;
    s.impls[plan->impl] += 1;
  }
  cpu::ExtensionThunk out;
  out.scratch_bytes = plan->scratch_bytes;
  const std::string kind = absl::StrCat("onednn.", KindName(plan->kind));
  out.thunk = std::make_unique<OneDnnThunk>(
      std::move(*plan), std::move(input_index), engine_, num_threads_);
  out.thunk->kind = kind;
  return out;
}

absl::StatusOr<cpu::ExtensionThunk> OneDnnExtension::MakePatternThunk(
    const Instruction& h) {
  const std::string& config = h.attrs().backend_config;
  // {"onednn":"<kind>"}
  absl::string_view kind = config;
  const bool well_formed = absl::ConsumePrefix(&kind, kConfigPrefix) &&
                           absl::ConsumePrefix(&kind, "\"") &&
                           absl::ConsumeSuffix(&kind, "\"}");
  const PrimitivePattern* pattern = well_formed ? FindPattern(kind) : nullptr;
  if (pattern == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        h.name(), ": unknown oneDNN fusion kind in backend_config ", config));
  }
  // The rewrite chose it: every option that gates a match is open here.
  MatchOptions all;
  all.relaxed_nan = true;
  all.min_flops = 0;
  all.min_elements = 0;
  all.all_primitives = true;
  const Computation& fc = *h.called_computations()[0];
  std::optional<PatternMatch> m =
      MatchGuarded(*pattern, *fc.root_instruction(), all, engine_);
  if (!m) {
    return absl::InvalidArgumentError(
        absl::StrCat(h.name(), ": the fused computation is not a oneDNN ",
                     KindName(pattern->kind())));
  }
  // On a machine where oneDNN does not take it (a deserialized program),
  // the CPU plugin runs the fusion.
  if (!m->plan.ok()) return cpu::ExtensionThunk{};
  Plan& plan = *m->plan;
  std::vector<int> input_index;
  for (const PlanArg& a : plan.inputs) {
    if (a.source->opcode() != HloOpcode::kParameter) {
      return absl::InvalidArgumentError(absl::StrCat(
          h.name(), ": ", a.source->name(),
          " is computed inside the oneDNN fusion; it must be an operand"));
    }
    input_index.push_back(static_cast<int>(a.source->attrs().parameter_number));
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stats_.size() > 64) stats_.clear();
    Stats& s = stats_[h.parent()->parent()];
    s.primitives[KindName(plan.kind)] += 1;
    s.reorders += plan.reorders;
    s.impls[plan.impl] += 1;
  }
  cpu::ExtensionThunk out;
  out.scratch_bytes = plan.scratch_bytes;
  const std::string thunk_kind = absl::StrCat("onednn.", KindName(plan.kind));
  out.thunk = std::make_unique<OneDnnThunk>(
      std::move(plan), std::move(input_index), engine_, num_threads_);
  out.thunk->kind = thunk_kind;
  return out;
}

std::string OneDnnExtension::Report(const Module& optimized) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = stats_.find(&optimized);
  if (it == stats_.end()) return "no oneDNN primitive";
  const Stats s = it->second;
  stats_.erase(it);
  auto sorted = [](const absl::flat_hash_map<std::string, int>& m) {
    std::vector<std::pair<std::string, int>> v(m.begin(), m.end());
    std::sort(v.begin(), v.end());
    return v;
  };
  // matmul, convolution and softmax always; the other kinds when present.
  int total = 0;
  std::vector<std::string> kinds;
  for (const char* kind : {"matmul", "convolution", "softmax"}) {
    auto it = s.primitives.find(kind);
    kinds.push_back(
        absl::StrCat(kind, " ", it == s.primitives.end() ? 0 : it->second));
  }
  for (const auto& [kind, n] : sorted(s.primitives)) {
    total += n;
    if (kind != "matmul" && kind != "convolution" && kind != "softmax") {
      kinds.push_back(absl::StrCat(kind, " ", n));
    }
  }
  std::vector<std::string> impls;
  for (const auto& [name, n] : sorted(s.impls)) {
    impls.push_back(absl::StrCat(name, " x", n));
  }
  std::string out = absl::StrCat(total, " oneDNN primitives (",
                                 absl::StrJoin(kinds, ", "), ")");
  absl::StrAppend(&out, ", ", s.post_ops, " post-ops fused, ", s.reorders,
                  " reorders per execution");
  if (!impls.empty()) absl::StrAppend(&out, "; ", absl::StrJoin(impls, ", "));
  if (!s.refused.empty()) {
    // The first few reasons; a large model has many small reductions.
    constexpr size_t kShown = 8;
    std::vector<std::string> shown(
        s.refused.begin(),
        s.refused.begin() + std::min(kShown, s.refused.size()));
    absl::StrAppend(&out,
                    "; left to the CPU plugin: ", absl::StrJoin(shown, "; "));
    if (s.refused.size() > kShown) {
      absl::StrAppend(&out, "; and ", s.refused.size() - kShown, " more");
    }
  }
  return out;
}

}  // namespace plexa::onednn
