// scan and shuffle: two of XLA's 2026 opcodes, run as XLA's expanders
// define them (ScanExpander, ShuffleExpander and xla/shuffle.cc).
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/eval/eval_internal.h"
#include "core/infer/shape_inference.h"

namespace plexa::eval {

namespace {

template <typename... Args>
absl::Status Invalid(const Instruction& instr, const Args&... what) {
  return absl::InvalidArgumentError(
      absl::StrCat("evaluator: ", InstrName(instr), ": ", what...));
}

// An array seen, around dimension d, as [outer, n, inner]: the elements
// before d, the length of d, and the bytes after it.
struct AroundDim {
  int64_t outer = 1;
  int64_t n = 0;
  int64_t inner_bytes = 0;
};

AroundDim Around(const Shape& s, int64_t d) {
  AroundDim a;
  for (int64_t i = 0; i < d; ++i) a.outer *= s.dimensions(i);
  a.n = s.dimensions(d);
  int64_t inner = 1;
  for (int64_t i = d + 1; i < s.rank(); ++i) inner *= s.dimensions(i);
  a.inner_bytes = inner * primitive_util::ByteWidth(s.element_type());
  return a;
}

// Slice t of `in` along d (the dimension removed) into `out`.
void TakeSlice(const Literal& in, int64_t d, int64_t t, Literal* out) {
  const AroundDim a = Around(in.shape(), d);
  for (int64_t o = 0; o < a.outer; ++o) {
    std::memcpy(out->mutable_data().data() + o * a.inner_bytes,
                in.data().data() + (o * a.n + t) * a.inner_bytes,
                a.inner_bytes);
  }
}

// `slice` written at t along d of `out`.
void PutSlice(const Literal& slice, int64_t d, int64_t t, Literal* out) {
  const AroundDim a = Around(out->shape(), d);
  for (int64_t o = 0; o < a.outer; ++o) {
    std::memcpy(out->mutable_data().data() + (o * a.n + t) * a.inner_bytes,
                slice.data().data() + o * a.inner_bytes, a.inner_bytes);
  }
}

Shape Leaf(const Shape& s, int64_t i) {
  return StripLayout(s.IsTuple() ? s.tuple_shapes(i) : s);
}

}  // namespace

absl::StatusOr<Literal> EvalScan(Interpreter& interp, const Instruction& instr,
                                 Operands ops) {
  // XLA's ScanExpander: carries start as the inits; step k reads index
  // (is_reverse ? n-1-k : k) of every input along d, calls to_apply on
  // (slices..., carries...), writes its outputs at that same index and
  // takes its carries. A scan of length 0 returns the inits.
  const Computation* f = instr.to_apply();
  if (f == nullptr) return Invalid(instr, "scan has no to_apply");
  std::vector<const Shape*> shapes;
  for (const Literal* op : ops) shapes.push_back(&op->shape());
  PLEXA_ASSIGN_OR_RETURN(int64_t carries, shape_inference::ScanNumCarries(
                                              shapes, instr.attrs().dimensions,
                                              instr.attrs().num_carries,
                                              f->ComputeProgramShape()));
  const int64_t d = instr.attrs().dimensions[0];
  const int64_t inputs = static_cast<int64_t>(ops.size()) - carries;
  const Shape& result = instr.shape();
  const int64_t leaves = result.IsTuple() ? result.tuple_shapes_size() : 1;
  const int64_t outputs = leaves - carries;
  const int64_t n = ops[0]->shape().dimensions(d);

  std::vector<Literal> state;  // the carries
  for (int64_t j = 0; j < carries; ++j)
    state.push_back(Literal(*ops[inputs + j]));
  std::vector<Literal> out;
  for (int64_t k = 0; k < outputs; ++k) {
    out.push_back(MakeLiteral(Leaf(result, k)));
  }
  std::vector<Literal> slices;
  for (int64_t i = 0; i < inputs; ++i) {
    slices.push_back(
        MakeLiteral(StripLayout(f->parameter_instruction(i)->shape())));
  }
  for (int64_t step = 0; step < n; ++step) {
    const int64_t t = instr.attrs().is_reverse ? n - 1 - step : step;
    std::vector<const Literal*> args;
    for (int64_t i = 0; i < inputs; ++i) {
      TakeSlice(*ops[i], d, t, &slices[i]);
      args.push_back(&slices[i]);
    }
    for (const Literal& c : state) args.push_back(&c);
    PLEXA_ASSIGN_OR_RETURN(Literal r, interp.Evaluate(*f, args));
    // A tuple result: outputs then carries; one value: the one output, or
    // the one carry.
    std::vector<Literal> parts;
    if (r.shape().IsTuple()) {
      parts = std::move(r).DecomposeTuple();
    } else {
      parts.push_back(std::move(r));
    }
    if (static_cast<int64_t>(parts.size()) != outputs + carries) {
      return Invalid(instr, "to_apply returned ", parts.size(),
                     " element(s) for ", outputs, " output(s) and ", carries,
                     " carry(ies)");
    }
    for (int64_t k = 0; k < outputs; ++k) PutSlice(parts[k], d, t, &out[k]);
    for (int64_t j = 0; j < carries; ++j) {
      state[j] = std::move(parts[outputs + j]);
    }
  }
  for (Literal& c : state) out.push_back(std::move(c));
  if (!result.IsTuple()) return std::move(out[0]);
  return Literal::MakeTuple(std::move(out));
}

absl::StatusOr<Literal> EvalShuffle(Interpreter&, const Instruction& instr,
                                    Operands ops) {
  // Every result element reads one operand element: the same index but in
  // the shuffled dimensions, where it reads
  //   rotate:       (i + shift) mod n           (a left rotation)
  //   permute:      indices[i broadcast][k]     (coordinate k of dims[k])
  //   multi_rotate: (i + multi_shifts[i with the dimension at 0]) mod n
  // with shifts normalized into [0, n) (xla::shuffle::NormalizeShift).
  const InstructionAttrs& a = instr.attrs();
  const Literal& x = *ops[0];
  const Shape& s = x.shape();
  Literal out = MakeLiteral(StripLayout(s));
  const int64_t bytes = primitive_util::ByteWidth(s.element_type());
  const std::vector<int64_t> strides = RowMajorStrides(s.dimensions());
  auto norm = [](int64_t v, int64_t n) {
    return n == 0 ? 0 : ((v % n) + n) % n;
  };
  // A literal's element at `index`, its dimensions of size 1 read at 0,
  // with `last` appended when the literal has one dimension more.
  auto read = [](const Literal& l, absl::Span<const int64_t> index,
                 int64_t last) {
    std::vector<int64_t> at;
    for (size_t i = 0; i < index.size(); ++i) {
      at.push_back(l.shape().dimensions(i) == 1 ? 0 : index[i]);
    }
    if (l.shape().rank() > static_cast<int64_t>(index.size())) {
      at.push_back(last);
    }
    return l.GetAsInt64(at);
  };
  std::vector<int64_t> src(s.rank());
  int64_t flat = 0;
  absl::Status bad = absl::OkStatus();
  ForEachIndexRowMajor(s.dimensions(), [&](absl::Span<const int64_t> index) {
    for (int64_t i = 0; i < s.rank(); ++i) src[i] = index[i];
    for (size_t k = 0; k < a.dimensions.size(); ++k) {
      const int64_t dim = a.dimensions[k];
      const int64_t n = s.dimensions(dim);
      switch (a.shuffle_mode) {
        case ShuffleMode::kRotate:
          src[dim] = norm(index[dim] + norm(a.shuffle_shifts[k], n), n);
          break;
        case ShuffleMode::kPermute:
          src[dim] = read(*a.shuffle_indices, index, static_cast<int64_t>(k));
          break;
        case ShuffleMode::kMultiRotate:
          src[dim] = norm(
              index[dim] + norm(read(*a.shuffle_multi_shifts, index, 0), n), n);
          break;
      }
      if (src[dim] < 0 || src[dim] >= n) {
        bad = Invalid(instr, "index ", src[dim], " out of range for ",
                      "dimension ", dim, " of size ", n);
        return;
      }
    }
    int64_t from = 0;
    for (int64_t i = 0; i < s.rank(); ++i) from += src[i] * strides[i];
    std::memcpy(out.mutable_data().data() + flat * bytes,
                x.data().data() + from * bytes, bytes);
    ++flat;
  });
  PLEXA_RETURN_IF_ERROR(bad);
  return out;
}

}  // namespace plexa::eval
