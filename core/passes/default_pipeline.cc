#include "core/passes/default_pipeline.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/passes/algebraic_simplifier.h"
#include "core/passes/async_to_sync.h"
#include "core/passes/batchnorm_expander.h"
#include "core/passes/call_inliner.h"
#include "core/passes/clamp_expander.h"
#include "core/passes/cse.h"
#include "core/passes/dce.h"
#include "core/passes/dynamic_padder.h"
#include "core/passes/map_inliner.h"
#include "core/passes/operand_upcaster.h"
#include "core/passes/ragged_dot_rewriter.h"
#include "core/passes/reduce_window_rewriter.h"
#include "core/passes/scan_expander.h"
#include "core/passes/send_recv_lowering.h"
#include "core/passes/sharding_remover.h"
#include "core/passes/sparse_dot_expander.h"
#include "core/passes/topk_custom_call_rewriter.h"
#include "core/passes/tuple_simplifier.h"
#include "core/passes/while_loop_simplifier.h"

namespace plexa {
namespace {

using Factory = std::function<std::unique_ptr<Pass>(const PipelineOptions&)>;

const std::map<std::string, Factory>& Registry() {
  static const auto* registry = new std::map<std::string, Factory>{
      {"dce",
       [](const PipelineOptions&) {
         return std::make_unique<DeadCodeElimination>();
       }},
      {"cse",
       [](const PipelineOptions&) {
         return std::make_unique<CommonSubexpressionElimination>();
       }},
      {"constant-folding",
       [](const PipelineOptions& o) {
         return std::make_unique<ConstantFolding>(o.constant_folding);
       }},
      {"algebraic-simplifier",
       [](const PipelineOptions& o) {
         AlgebraicSimplifier::Options s;
         s.canonicalize_dots = o.canonicalize_dots;
         return std::make_unique<AlgebraicSimplifier>(s);
       }},
      {"dot-canonicalizer",
       [](const PipelineOptions&) {
         AlgebraicSimplifier::Options s;
         s.canonicalize_dots = true;
         return std::make_unique<AlgebraicSimplifier>(s);
       }},
      {"tuple-simplifier",
       [](const PipelineOptions&) {
         return std::make_unique<TupleSimplifier>();
       }},
      {"while-loop-simplifier",
       [](const PipelineOptions&) {
         return std::make_unique<WhileLoopSimplifier>();
       }},
      {"async-to-sync",
       [](const PipelineOptions&) { return std::make_unique<AsyncToSync>(); }},
      {"send-recv-lowering",
       [](const PipelineOptions&) {
         return std::make_unique<SendRecvLowering>();
       }},
      {"dynamic-padder",
       [](const PipelineOptions&) {
         return std::make_unique<DynamicPadder>();
       }},
      {"sharding-remover",
       [](const PipelineOptions&) {
         return std::make_unique<ShardingRemover>();
       }},
      {"topk-custom-call-rewriter",
       [](const PipelineOptions&) {
         return std::make_unique<TopKCustomCallRewriter>();
       }},
      {"ragged-dot-rewriter",
       [](const PipelineOptions&) {
         return std::make_unique<RaggedDotRewriter>();
       }},
      {"scan-expander",
       [](const PipelineOptions&) { return std::make_unique<ScanExpander>(); }},
      {"sparse-dot-expander",
       [](const PipelineOptions&) {
         return std::make_unique<SparseDotExpander>();
       }},
      {"operand-upcaster",
       [](const PipelineOptions&) {
         return std::make_unique<OperandUpcaster>();
       }},
      {"call-inliner",
       [](const PipelineOptions&) { return std::make_unique<CallInliner>(); }},
      {"map-inliner",
       [](const PipelineOptions&) { return std::make_unique<MapInliner>(); }},
      {"batchnorm-expander",
       [](const PipelineOptions&) {
         return std::make_unique<BatchNormExpander>();
       }},
      {"reduce-window-rewriter",
       [](const PipelineOptions&) {
         return std::make_unique<ReduceWindowRewriter>();
       }},
      {"clamp-expander",
       [](const PipelineOptions&) {
         return std::make_unique<ClampExpander>();
       }},
      {"pin-entry-layout",
       [](const PipelineOptions&) {
         return std::make_unique<EntryLayoutPinning>();
       }},
      {"layout-assignment",
       [](const PipelineOptions& o) {
         return std::make_unique<LayoutAssignment>(o.layout_preferences);
       }},
      {"fusion",
       [](const PipelineOptions& o) {
         return std::make_unique<InstructionFusion>(o.fusion_options);
       }},
      {"default",
       [](const PipelineOptions& o) -> std::unique_ptr<Pass> {
         return MakeDefaultPipeline(o);
       }},
  };
  return *registry;
}

PipelineConfig ConfigOf(const PipelineOptions& options) {
  PipelineConfig config;
  config.verify = options.verify;
  config.dump_dir = options.dump_dir;
  config.dump_callback = options.dump_callback;
  return config;
}

}  // namespace

std::unique_ptr<Pipeline> MakeDefaultPipeline(const PipelineOptions& options) {
  auto p = std::make_unique<Pipeline>("default", ConfigOf(options));
  p->AddPass<EntryLayoutPinning>();
  p->AddPass<AsyncToSync>();
  p->AddPass<SendRecvLowering>();
  p->AddPass<ShardingRemover>();
  p->AddPass<TopKCustomCallRewriter>();
  // Ahead of the simplifications: the loop it makes is theirs to tidy.
  if (options.expand_scan) p->AddPass<ScanExpander>();
  p->AddPass<CallInliner>();
  p->AddPass<MapInliner>();
  // Ahead of every pass that rewrites dots: none of them handles a
  // metadata operand.
  p->AddPass<SparseDotExpander>();
  p->AddPass<DynamicPadder>();
  if (options.expand_batch_norm) {
    BatchNormExpander::Options b;
    b.keep = options.keep_batch_norm;
    p->AddPass<BatchNormExpander>(b);
  }
  Pipeline& simplify =
      p->AddFixpoint("simplify", options.max_fixpoint_iterations);
  AlgebraicSimplifier::Options s;
  s.canonicalize_dots = options.canonicalize_dots;
  simplify.AddPass<AlgebraicSimplifier>(s);
  simplify.AddPass<TupleSimplifier>();
  simplify.AddPass<ConstantFolding>(options.constant_folding);
  simplify.AddPass<WhileLoopSimplifier>();
  simplify.AddPass<CommonSubexpressionElimination>();
  simplify.AddPass<DeadCodeElimination>();
  p->AddPass<OperandUpcaster>();
  p->AddPass<ReduceWindowRewriter>();
  if (options.expand_clamp) p->AddPass<ClampExpander>();
  if (options.assign_layouts) {
    p->AddPass<LayoutAssignment>(options.layout_preferences);
  }
  if (options.fusion) {
    p->AddPass<InstructionFusion>(options.fusion_options);
    p->AddPass<DeadCodeElimination>();
  }
  return p;
}

absl::StatusOr<bool> RunDefaultPipeline(Module* module,
                                        const PipelineOptions& options) {
  std::unique_ptr<Pipeline> p = MakeDefaultPipeline(options);
  absl::StatusOr<bool> changed = p->Run(*module);
  if (options.stats != nullptr) *options.stats = p->stats();
  return changed;
}

std::vector<std::string> RegisteredPassNames() {
  std::vector<std::string> names;
  for (const auto& [name, factory] : Registry()) names.push_back(name);
  return names;
}

absl::StatusOr<std::unique_ptr<Pass>> CreatePass(
    absl::string_view name, const PipelineOptions& options) {
  auto it = Registry().find(std::string(name));
  if (it == Registry().end()) {
    return absl::NotFoundError(absl::StrCat(
        "unknown pass '", name,
        "'; known passes: ", absl::StrJoin(RegisteredPassNames(), ", ")));
  }
  return it->second(options);
}

}  // namespace plexa
