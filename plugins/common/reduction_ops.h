// The element operations of the reducers a backend runs natively
// (reducer.h matches them): add, multiply, maximum, minimum, and, or, with
// the evaluator's semantics, plus assign for scatter. Each is a struct with
// a static Apply(first argument, second argument) so kernels can take it as
// a template parameter. Header only, standard C++ only: any kernel library
// may include it.
#ifndef PLEXA_PLUGINS_COMMON_REDUCTION_OPS_H_
#define PLEXA_PLUGINS_COMMON_REDUCTION_OPS_H_

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace plexa::backend {

template <typename T>
struct AssignOp {
  static T Apply(T, T update) { return update; }
};

// Integers as unsigned: wrapping arithmetic without signed overflow.
template <typename U>
struct WrapAddOp {
  static U Apply(U a, U b) { return static_cast<U>(a + b); }
};

template <typename U>
struct WrapMulOp {
  // Multiplied as uint64 so narrow types do not promote to (overflowing) int.
  static U Apply(U a, U b) {
    return static_cast<U>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  }
};

template <typename U>
struct AndOp {
  static U Apply(U a, U b) { return static_cast<U>(a & b); }
};

template <typename U>
struct OrOp {
  static U Apply(U a, U b) { return static_cast<U>(a | b); }
};

template <typename F>
struct FloatAddOp {
  static F Apply(F a, F b) { return a + b; }
};

template <typename F>
struct FloatMulOp {
  static F Apply(F a, F b) { return a * b; }
};

// The evaluator's maximum/minimum: NaN-propagating (the first NaN wins),
// else std::max/std::min, which return the first argument on ties.
template <typename T>
struct MaxOp {
  static T Apply(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
    }
    return a < b ? b : a;
  }
};

template <typename T>
struct MinOp {
  static T Apply(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
    }
    return b < a ? b : a;
  }
};

struct PredOrOp {
  static uint8_t Apply(uint8_t a, uint8_t b) {
    return static_cast<uint8_t>((a != 0) || (b != 0));
  }
};

struct PredAndOp {
  static uint8_t Apply(uint8_t a, uint8_t b) {
    return static_cast<uint8_t>((a != 0) && (b != 0));
  }
};

// combiner(update, current).
template <typename Op>
struct UpdateFirst {
  template <typename T>
  static T Apply(T current, T update) {
    return Op::Apply(update, current);
  }
};

}  // namespace plexa::backend

#endif  // PLEXA_PLUGINS_COMMON_REDUCTION_OPS_H_
