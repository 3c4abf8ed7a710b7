#include "core/passes/batchnorm_expander.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/passes/pass_util.h"
#include "core/shape/shape_util.h"

namespace plexa {
namespace {

// Builds the expansion of one batch-norm instruction next to it.
class Expansion {
 public:
  Expansion(Instruction* bn,
            absl::flat_hash_map<PrimitiveType, Computation*>* adders)
      : bn_(bn),
        c_(bn->parent()),
        adders_(adders),
        x_dims_(bn->operand(0)->shape().dimensions().begin(),
                bn->operand(0)->shape().dimensions().end()),
        feature_(bn->attrs().feature_index) {
    const PrimitiveType t = bn->operand(0)->shape().element_type();
    type_ = t;
    acc_ = (t == F16 || t == BF16) ? F32 : t;
    for (int64_t d = 0; d < static_cast<int64_t>(x_dims_.size()); ++d) {
      if (d == feature_) continue;
      reduce_dims_.push_back(d);
      count_ *= x_dims_[d];
    }
  }

  // Operand i in the accumulation type.
  absl::StatusOr<Instruction*> Operand(int64_t i) {
    return ToType(bn_->mutable_operand(i), acc_);
  }
  absl::StatusOr<Instruction*> ToType(Instruction* v, PrimitiveType type) {
    if (v->shape().element_type() == type) return v;
    const Shape declared(type, v->shape().dimensions());
    return AddInstruction(c_, HloOpcode::kConvert, {v}, {}, {}, &declared);
  }
  absl::StatusOr<Instruction*> Out(Instruction* v) { return ToType(v, type_); }

  absl::StatusOr<Instruction*> Bin(HloOpcode op, Instruction* a,
                                   Instruction* b) {
    return AddInstruction(c_, op, {a, b});
  }
  absl::StatusOr<Instruction*> Rsqrt(Instruction* a) {
    return AddInstruction(c_, HloOpcode::kRsqrt, {a});
  }
  // A per-feature vector [C] broadcast along the feature dimension of x.
  absl::StatusOr<Instruction*> PerElement(Instruction* v) {
    return AddBroadcast(c_, v, x_dims_, {feature_});
  }
  // A scalar of the accumulation type broadcast to a per-feature vector.
  absl::StatusOr<Instruction*> PerFeatureScalar(double value) {
    PLEXA_ASSIGN_OR_RETURN(Instruction * k, AddScalarConstant(c_, acc_, value));
    return AddBroadcast(c_, k, {x_dims_[feature_]}, {});
  }
  // Sum over every dimension but the feature one: [C].
  absl::StatusOr<Instruction*> Sum(Instruction* v) {
    PLEXA_ASSIGN_OR_RETURN(Instruction * zero, AddScalarConstant(c_, acc_, 0));
    Computation*& add = (*adders_)[acc_];
    if (add == nullptr) {
      add = AddScalarBinaryComputation(c_->parent(), HloOpcode::kAdd, acc_);
    }
    InstructionAttrs attrs;
    attrs.dimensions = reduce_dims_;
    return AddInstruction(c_, HloOpcode::kReduce, {v, zero}, std::move(attrs),
                          {add});
  }
  // scale * rsqrt(var + eps), per feature.
  absl::StatusOr<Instruction*> ScaleOverStd(Instruction* scale,
                                            Instruction* var) {
    PLEXA_ASSIGN_OR_RETURN(Instruction * eps,
                           PerFeatureScalar(bn_->attrs().epsilon));
    PLEXA_ASSIGN_OR_RETURN(Instruction * shifted,
                           Bin(HloOpcode::kAdd, var, eps));
    PLEXA_ASSIGN_OR_RETURN(Instruction * rstd, Rsqrt(shifted));
    return Bin(HloOpcode::kMultiply, scale, rstd);
  }
  // (x - mean) * (scale * rsqrt(var + eps)) + offset.
  absl::StatusOr<Instruction*> Normalize(Instruction* centered,
                                         Instruction* scale,
                                         Instruction* offset,
                                         Instruction* var) {
    PLEXA_ASSIGN_OR_RETURN(Instruction * factor, ScaleOverStd(scale, var));
    PLEXA_ASSIGN_OR_RETURN(Instruction * factor_b, PerElement(factor));
    PLEXA_ASSIGN_OR_RETURN(Instruction * scaled,
                           Bin(HloOpcode::kMultiply, centered, factor_b));
    PLEXA_ASSIGN_OR_RETURN(Instruction * offset_b, PerElement(offset));
    return Bin(HloOpcode::kAdd, scaled, offset_b);
  }

  absl::StatusOr<Instruction*> Training() {
    PLEXA_ASSIGN_OR_RETURN(Instruction * x, Operand(0));
    PLEXA_ASSIGN_OR_RETURN(Instruction * scale, Operand(1));
    PLEXA_ASSIGN_OR_RETURN(Instruction * offset, Operand(2));
    PLEXA_ASSIGN_OR_RETURN(Instruction * count,
                           PerFeatureScalar(static_cast<double>(count_)));
    PLEXA_ASSIGN_OR_RETURN(Instruction * sum, Sum(x));
    PLEXA_ASSIGN_OR_RETURN(Instruction * mean,
                           Bin(HloOpcode::kDivide, sum, count));
    PLEXA_ASSIGN_OR_RETURN(Instruction * mean_b, PerElement(mean));
    PLEXA_ASSIGN_OR_RETURN(Instruction * centered,
                           Bin(HloOpcode::kSubtract, x, mean_b));
    PLEXA_ASSIGN_OR_RETURN(Instruction * squares,
                           Bin(HloOpcode::kMultiply, centered, centered));
    PLEXA_ASSIGN_OR_RETURN(Instruction * square_sum, Sum(squares));
    PLEXA_ASSIGN_OR_RETURN(Instruction * var,
                           Bin(HloOpcode::kDivide, square_sum, count));
    PLEXA_ASSIGN_OR_RETURN(Instruction * y,
                           Normalize(centered, scale, offset, var));
    PLEXA_ASSIGN_OR_RETURN(Instruction * y_out, Out(y));
    PLEXA_ASSIGN_OR_RETURN(Instruction * mean_out, Out(mean));
    PLEXA_ASSIGN_OR_RETURN(Instruction * var_out, Out(var));
    return AddInstruction(c_, HloOpcode::kTuple, {y_out, mean_out, var_out});
  }

  absl::StatusOr<Instruction*> Inference() {
    PLEXA_ASSIGN_OR_RETURN(Instruction * x, Operand(0));
    PLEXA_ASSIGN_OR_RETURN(Instruction * scale, Operand(1));
    PLEXA_ASSIGN_OR_RETURN(Instruction * offset, Operand(2));
    PLEXA_ASSIGN_OR_RETURN(Instruction * mean, Operand(3));
    PLEXA_ASSIGN_OR_RETURN(Instruction * var, Operand(4));
    PLEXA_ASSIGN_OR_RETURN(Instruction * mean_b, PerElement(mean));
    PLEXA_ASSIGN_OR_RETURN(Instruction * centered,
                           Bin(HloOpcode::kSubtract, x, mean_b));
    PLEXA_ASSIGN_OR_RETURN(Instruction * y,
                           Normalize(centered, scale, offset, var));
    return Out(y);
  }

  absl::StatusOr<Instruction*> Grad() {
    PLEXA_ASSIGN_OR_RETURN(Instruction * x, Operand(0));
    PLEXA_ASSIGN_OR_RETURN(Instruction * scale, Operand(1));
    PLEXA_ASSIGN_OR_RETURN(Instruction * mean, Operand(2));
    PLEXA_ASSIGN_OR_RETURN(Instruction * var, Operand(3));
    PLEXA_ASSIGN_OR_RETURN(Instruction * dy, Operand(4));
    PLEXA_ASSIGN_OR_RETURN(Instruction * eps,
                           PerFeatureScalar(bn_->attrs().epsilon));
    PLEXA_ASSIGN_OR_RETURN(Instruction * shifted,
                           Bin(HloOpcode::kAdd, var, eps));
    PLEXA_ASSIGN_OR_RETURN(Instruction * rstd, Rsqrt(shifted));
    PLEXA_ASSIGN_OR_RETURN(Instruction * mean_b, PerElement(mean));
    PLEXA_ASSIGN_OR_RETURN(Instruction * centered,
                           Bin(HloOpcode::kSubtract, x, mean_b));
    PLEXA_ASSIGN_OR_RETURN(Instruction * rstd_b, PerElement(rstd));
    PLEXA_ASSIGN_OR_RETURN(Instruction * xhat,
                           Bin(HloOpcode::kMultiply, centered, rstd_b));
    PLEXA_ASSIGN_OR_RETURN(Instruction * grad_offset, Sum(dy));
    PLEXA_ASSIGN_OR_RETURN(Instruction * dy_xhat,
                           Bin(HloOpcode::kMultiply, dy, xhat));
    PLEXA_ASSIGN_OR_RETURN(Instruction * grad_scale, Sum(dy_xhat));
    PLEXA_ASSIGN_OR_RETURN(Instruction * count,
                           PerFeatureScalar(static_cast<double>(count_)));
    PLEXA_ASSIGN_OR_RETURN(Instruction * mean_dy,
                           Bin(HloOpcode::kDivide, grad_offset, count));
    PLEXA_ASSIGN_OR_RETURN(Instruction * mean_dy_xhat,
                           Bin(HloOpcode::kDivide, grad_scale, count));
    PLEXA_ASSIGN_OR_RETURN(Instruction * mean_dy_b, PerElement(mean_dy));
    PLEXA_ASSIGN_OR_RETURN(Instruction * mean_dy_xhat_b,
                           PerElement(mean_dy_xhat));
    PLEXA_ASSIGN_OR_RETURN(Instruction * a,
                           Bin(HloOpcode::kSubtract, dy, mean_dy_b));
    PLEXA_ASSIGN_OR_RETURN(Instruction * b,
                           Bin(HloOpcode::kMultiply, xhat, mean_dy_xhat_b));
    PLEXA_ASSIGN_OR_RETURN(Instruction * inner,
                           Bin(HloOpcode::kSubtract, a, b));
    PLEXA_ASSIGN_OR_RETURN(Instruction * factor,
                           Bin(HloOpcode::kMultiply, scale, rstd));
    PLEXA_ASSIGN_OR_RETURN(Instruction * factor_b, PerElement(factor));
    PLEXA_ASSIGN_OR_RETURN(Instruction * grad_x,
                           Bin(HloOpcode::kMultiply, factor_b, inner));
    PLEXA_ASSIGN_OR_RETURN(Instruction * grad_x_out, Out(grad_x));
    PLEXA_ASSIGN_OR_RETURN(Instruction * grad_scale_out, Out(grad_scale));
    PLEXA_ASSIGN_OR_RETURN(Instruction * grad_offset_out, Out(grad_offset));
    return AddInstruction(c_, HloOpcode::kTuple,
                          {grad_x_out, grad_scale_out, grad_offset_out});
  }

 private:
  Instruction* bn_;
  Computation* c_;
  absl::flat_hash_map<PrimitiveType, Computation*>* adders_;
  std::vector<int64_t> x_dims_;
  int64_t feature_;
  PrimitiveType type_;
  PrimitiveType acc_;
  std::vector<int64_t> reduce_dims_;
  int64_t count_ = 1;
};

}  // namespace

absl::StatusOr<bool> BatchNormExpander::Run(Module& module) {
  bool changed = false;
  SideEffects side_effects;
  absl::flat_hash_map<PrimitiveType, Computation*> adders;
  for (Computation* c : module.MakeComputationPostOrder()) {
    for (Instruction* inst : c->MakeInstructionPostOrder()) {
      const HloOpcode op = inst->opcode();
      const bool expand =
          (op == HloOpcode::kBatchNormTraining && options_.expand_training) ||
          (op == HloOpcode::kBatchNormInference && options_.expand_inference) ||
          (op == HloOpcode::kBatchNormGrad && options_.expand_grad);
      if (!expand || inst->operand(0)->shape().is_dynamic() ||
          (options_.keep && options_.keep(*inst))) {
        continue;
      }
      Expansion e(inst, &adders);
      absl::StatusOr<Instruction*> r =
          op == HloOpcode::kBatchNormTraining    ? e.Training()
          : op == HloOpcode::kBatchNormInference ? e.Inference()
                                                 : e.Grad();
      if (!r.ok()) return r.status();
      *(*r)->mutable_shape() = inst->shape();
      PLEXA_RETURN_IF_ERROR(ReplaceInstruction(inst, *r, &side_effects));
      changed = true;
    }
  }
  return changed;
}

}  // namespace plexa
