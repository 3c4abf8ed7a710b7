#include "core/ir/opcode.h"

#include "absl/container/flat_hash_map.h"

namespace plexa {

absl::string_view HloOpcodeString(HloOpcode opcode) {
  switch (opcode) {
#define PLEXA_OPCODE_STR(e, s, a) \
  case HloOpcode::e:              \
    return s;
    PLEXA_OPCODES(PLEXA_OPCODE_STR)
#undef PLEXA_OPCODE_STR
  }
  return "<invalid-opcode>";
}

std::optional<HloOpcode> StringToHloOpcode(absl::string_view name) {
  static const auto* const kMap = [] {
    auto* m = new absl::flat_hash_map<absl::string_view, HloOpcode>();
#define PLEXA_OPCODE_MAP(e, s, a) m->emplace(s, HloOpcode::e);
    PLEXA_OPCODES(PLEXA_OPCODE_MAP)
#undef PLEXA_OPCODE_MAP
    return m;
  }();
  auto it = kMap->find(name);
  if (it == kMap->end()) return std::nullopt;
  return it->second;
}

int HloOpcodeArity(HloOpcode opcode) {
  switch (opcode) {
#define PLEXA_OPCODE_ARITY(e, s, a) \
  case HloOpcode::e:                \
    return a;
    PLEXA_OPCODES(PLEXA_OPCODE_ARITY)
#undef PLEXA_OPCODE_ARITY
  }
  return kVariadic;
}

bool IsElementwiseUnary(HloOpcode op) {
  switch (op) {
    case HloOpcode::kAbs:
    case HloOpcode::kCbrt:
    case HloOpcode::kCeil:
    case HloOpcode::kClz:
    case HloOpcode::kCopy:
    case HloOpcode::kCos:
    case HloOpcode::kErf:
    case HloOpcode::kExp:
    case HloOpcode::kExpm1:
    case HloOpcode::kFloor:
    case HloOpcode::kImag:
    case HloOpcode::kIsFinite:
    case HloOpcode::kLog:
    case HloOpcode::kLog1p:
    case HloOpcode::kLogistic:
    case HloOpcode::kNegate:
    case HloOpcode::kNot:
    case HloOpcode::kPopulationCount:
    case HloOpcode::kReal:
    case HloOpcode::kRoundNearestAfz:
    case HloOpcode::kRoundNearestEven:
    case HloOpcode::kRsqrt:
    case HloOpcode::kSign:
    case HloOpcode::kSin:
    case HloOpcode::kSqrt:
    case HloOpcode::kAcos:
    case HloOpcode::kAcosh:
    case HloOpcode::kAsin:
    case HloOpcode::kAsinh:
    case HloOpcode::kAtan:
    case HloOpcode::kAtanh:
    case HloOpcode::kCosh:
    case HloOpcode::kSinh:
    case HloOpcode::kTan:
    case HloOpcode::kTanh:
      return true;
    default:
      return false;
  }
}

bool IsElementwiseBinary(HloOpcode op) {
  switch (op) {
    case HloOpcode::kAdd:
    case HloOpcode::kAnd:
    case HloOpcode::kAtan2:
    case HloOpcode::kComplex:
    case HloOpcode::kDivide:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kMulhi:
    case HloOpcode::kMultiply:
    case HloOpcode::kOr:
    case HloOpcode::kPower:
    case HloOpcode::kRemainder:
    case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightArithmetic:
    case HloOpcode::kShiftRightLogical:
    case HloOpcode::kSubtract:
    case HloOpcode::kXor:
      return true;
    default:
      return false;
  }
}

bool IsElementwise(HloOpcode op) {
  if (IsElementwiseUnary(op) || IsElementwiseBinary(op)) return true;
  switch (op) {
    case HloOpcode::kClamp:
    case HloOpcode::kSelect:
    case HloOpcode::kCompare:
    case HloOpcode::kConvert:
    case HloOpcode::kBitcastConvert:
    case HloOpcode::kReducePrecision:
    case HloOpcode::kMap:
      return true;
    default:
      return false;
  }
}

std::optional<HloOpcode> AsyncDoneOf(HloOpcode start) {
  switch (start) {
    case HloOpcode::kAllGatherStart:
      return HloOpcode::kAllGatherDone;
    case HloOpcode::kAllReduceStart:
      return HloOpcode::kAllReduceDone;
    case HloOpcode::kCollectivePermuteStart:
      return HloOpcode::kCollectivePermuteDone;
    default:
      return std::nullopt;
  }
}

std::optional<HloOpcode> AsyncStartOf(HloOpcode done) {
  for (HloOpcode start :
       {HloOpcode::kAllGatherStart, HloOpcode::kAllReduceStart,
        HloOpcode::kCollectivePermuteStart}) {
    if (AsyncDoneOf(start) == done) return start;
  }
  return std::nullopt;
}

bool IsCollective(HloOpcode op) {
  if (AsyncDoneOf(op).has_value() || AsyncStartOf(op).has_value()) {
    return true;
  }
  switch (op) {
    case HloOpcode::kAllGather:
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllToAll:
    case HloOpcode::kCollectiveBroadcast:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kReduceScatter:
      return true;
    default:
      return false;
  }
}

bool IsSendRecv(HloOpcode op) {
  return op == HloOpcode::kSend || op == HloOpcode::kRecv ||
         op == HloOpcode::kSendDone || op == HloOpcode::kRecvDone;
}

bool IsFloatingPointOnlyUnary(HloOpcode op) {
  switch (op) {
    case HloOpcode::kCbrt:
    case HloOpcode::kCeil:
    case HloOpcode::kErf:
    case HloOpcode::kFloor:
    case HloOpcode::kIsFinite:
    case HloOpcode::kRoundNearestAfz:
    case HloOpcode::kRoundNearestEven:
      return true;
    default:
      return false;
  }
}

}  // namespace plexa
