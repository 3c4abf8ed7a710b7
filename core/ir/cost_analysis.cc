#include "core/ir/cost_analysis.h"

#include <algorithm>

#include "core/shape/shape_util.h"

namespace plexa {
namespace {

bool IsTranscendental(HloOpcode op) {
  switch (op) {
    case HloOpcode::kExp:
    case HloOpcode::kExpm1:
    case HloOpcode::kLog:
    case HloOpcode::kLog1p:
    case HloOpcode::kLogistic:
    case HloOpcode::kTanh:
    case HloOpcode::kSqrt:
    case HloOpcode::kRsqrt:
    case HloOpcode::kCbrt:
    case HloOpcode::kPower:
    case HloOpcode::kSin:
    case HloOpcode::kCos:
    case HloOpcode::kAcos:
    case HloOpcode::kAcosh:
    case HloOpcode::kAsin:
    case HloOpcode::kAsinh:
    case HloOpcode::kAtan:
    case HloOpcode::kAtanh:
    case HloOpcode::kCosh:
    case HloOpcode::kSinh:
    case HloOpcode::kTan:
    case HloOpcode::kErf:
    case HloOpcode::kAtan2:
      return true;
    default:
      return false;
  }
}

bool IsFree(HloOpcode op) {
  return op == HloOpcode::kParameter || op == HloOpcode::kConstant ||
         op == HloOpcode::kTuple || op == HloOpcode::kGetTupleElement ||
         op == HloOpcode::kBitcast;
}

double Elements(const Shape& s) {
  return s.IsArray() ? static_cast<double>(ShapeUtil::ElementsIn(s)) : 0;
}

// Bytes of every array leaf of `s`.
double Bytes(const Shape& s) {
  if (s.IsArray()) return static_cast<double>(ShapeUtil::ByteSizeOf(s));
  double total = 0;
  if (s.IsTuple()) {
    for (const Shape& e : s.tuple_shapes()) total += Bytes(e);
  }
  return total;
}

double InstructionsIn(const Computation* c) {
  if (c == nullptr) return 1;
  double n = 0;
  for (const Instruction* i : c->instructions()) {
    if (!IsFree(i->opcode())) ++n;
  }
  return std::max(n, 1.0);
}

class Analyzer {
 public:
  // Adds the cost of `c`'s instructions; `count_bytes`: false inside a
  // fusion (its bytes are the fusion's).
  void AddComputation(const plexa::Computation& c, bool count_bytes,
                      ModuleCost* cost) {
    for (const Instruction* i : c.instructions()) {
      AddInstruction(*i, count_bytes, cost);
    }
  }

 private:
  void AddInstruction(const plexa::Instruction& i, bool count_bytes,
                      ModuleCost* cost) {
    const HloOpcode op = i.opcode();
    if (IsFree(op)) return;
    if (count_bytes) {
      double bytes = Bytes(i.shape());
      for (const plexa::Instruction* o : i.operands())
        bytes += Bytes(o->shape());
      cost->bytes_accessed += bytes;
    }
    const InstructionAttrs& a = i.attrs();
    switch (op) {
      case HloOpcode::kFusion:
        for (const plexa::Computation* f : i.called_computations()) {
          AddComputation(*f, /*count_bytes=*/false, cost);
        }
        return;
      case HloOpcode::kWhile:
      case HloOpcode::kCall:
        for (const plexa::Computation* f : i.called_computations()) {
          AddComputation(*f, count_bytes, cost);
        }
        return;
      case HloOpcode::kConditional: {
        ModuleCost most;
        for (const plexa::Computation* f : i.called_computations()) {
          ModuleCost branch;
          AddComputation(*f, count_bytes, &branch);
          if (branch.flops + branch.transcendentals >
              most.flops + most.transcendentals) {
            most = branch;
          }
        }
        cost->flops += most.flops;
        cost->transcendentals += most.transcendentals;
        cost->bytes_accessed += most.bytes_accessed;
        return;
      }
      case HloOpcode::kDot:
      case HloOpcode::kConvolution:
        cost->flops += DotOrConvolutionFlops(i);
        return;
      case HloOpcode::kReduce: {
        const double ops = InstructionsIn(i.to_apply());
        const int64_t n = i.operand_count() / 2;
        for (int64_t k = 0; k < n; ++k) {
          cost->flops += Elements(i.operand(k)->shape()) * ops;
        }
        return;
      }
      case HloOpcode::kReduceWindow: {
        double window = 1;
        if (a.window) {
          for (const WindowDimension& w : a.window->dimensions) {
            window *= static_cast<double>(w.size);
          }
        }
        const Shape& out =
            i.shape().IsTuple() ? i.shape().tuple_shapes(0) : i.shape();
        cost->flops += Elements(out) * window * InstructionsIn(i.to_apply());
        return;
      }
      default:
        break;
    }
    if (IsElementwise(op)) {
      (IsTranscendental(op) ? cost->transcendentals : cost->flops) +=
          Elements(i.shape());
    }
  }
};

}  // namespace

double DotOrConvolutionFlops(const Instruction& i) {
  const InstructionAttrs& a = i.attrs();
  if (i.opcode() == HloOpcode::kDot) {
    double k = 1;
    if (a.dot_dimension_numbers) {
      for (int64_t d : a.dot_dimension_numbers->lhs_contracting_dimensions) {
        k *= static_cast<double>(i.operand(0)->shape().dimensions(d));
      }
    }
    return 2 * Elements(i.shape()) * k;
  }
  if (i.opcode() == HloOpcode::kConvolution) {
    double window = 1;
    if (a.window) {
      for (const WindowDimension& w : a.window->dimensions) {
        window *= static_cast<double>(w.size);
      }
    }
    double features = 1;
    if (a.convolution_dimension_numbers) {
      features = static_cast<double>(i.operand(1)->shape().dimensions(
          a.convolution_dimension_numbers->kernel_input_feature_dimension));
    }
    return 2 * Elements(i.shape()) * window * features;
  }
  return 0;
}

ModuleCost AnalyzeCost(const Module& module) {
  ModuleCost cost;
  if (module.entry_computation() != nullptr) {
    Analyzer().AddComputation(*module.entry_computation(), true, &cost);
  }
  return cost;
}

}  // namespace plexa
