// Evaluating part of a computation at compile time with the reference
// evaluator (constant folding, while-loop trip counts).
#ifndef PLEXA_CORE_PASSES_EVALUATE_UTIL_H_
#define PLEXA_CORE_PASSES_EVALUATE_UTIL_H_

#include <cstdint>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "core/ir/instruction.h"
#include "core/literal/literal.h"

namespace plexa {

struct SubgraphEvaluationLimits {
  // Give up on subgraphs with more instructions than this (not counting
  // called computations).
  int64_t max_instructions = 64;
  // A while loop inside the subgraph that would run more iterations than
  // this makes the evaluation give up.
  int64_t max_while_iterations = 1000;
};

// The value of `root`, computed from constants and from `known` values of
// some instructions of its computation (e.g. get-tuple-element of a
// parameter). Returns nullopt (not an error) when the value cannot be
// known at compile time: the subgraph reaches a parameter or an
// instruction that is not in `known`, contains an instruction that is not
// foldable (IsNotFoldable, looking through called computations), exceeds
// `limits`, or the evaluator fails on it.
std::optional<Literal> EvaluateSubgraph(
    const Instruction& root,
    const absl::flat_hash_map<const Instruction*, const Literal*>& known,
    const SubgraphEvaluationLimits& limits = {});

}  // namespace plexa

#endif  // PLEXA_CORE_PASSES_EVALUATE_UTIL_H_
