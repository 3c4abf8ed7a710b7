#include "plugins/cpu/cpu_program.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <optional>
#include <type_traits>
#include <utility>

#include "abi/sdk/custom_call.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/eval/evaluator.h"
#include "core/passes/dce.h"
#include "core/passes/default_pipeline.h"
#include "core/passes/fusion.h"
#include "core/shape/index_util.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "core/verifier/verifier.h"
#include "plugins/cpu/buffer_assignment.h"
#include "plugins/cpu/codegen/jit.h"
#include "plugins/cpu/codegen/kernel_emitter.h"
#include "plugins/cpu/reduction_splitter.h"
#include "plugins/cpu/runtime/conv.h"
#include "plugins/cpu/runtime/gemm.h"
#include "plugins/cpu/runtime/scatter.h"
#include "plugins/cpu/runtime/select_and_scatter.h"

namespace plexa::cpu {

absl::Status RunCpuPipeline(Module* module) {
  PipelineOptions options;
  options.expand_batch_norm = true;
  absl::StatusOr<bool> changed = RunDefaultPipeline(module, options);
  if (!changed.ok()) return changed.status();
  // Then the CPU's own choices: split reductions with tiny results, fuse
  // loops and reductions with their producers (dots stay GEMM calls).
  ReductionSplitter splitter;
  InstructionFusion::Options fusion;
  fusion.output_fusion = false;
  InstructionFusion fuse(fusion);
  DeadCodeElimination dce;
  for (Pass* pass : std::initializer_list<Pass*>{&splitter, &fuse, &dce}) {
    absl::StatusOr<bool> r = pass->Run(*module);
    if (!r.ok()) return r.status();
  }
  return VerifyModule(*module);
}

namespace {

// ---- Slots and frames -------------------------------------------------------

enum class SlotKind { kParameter, kConstant, kTemp, kResult };

struct Slot {
  Shape shape;  // an array (or token: 0 bytes), with a layout
  int64_t bytes = 0;
  SlotKind kind = SlotKind::kTemp;
  int64_t index = 0;                  // parameter leaf / result leaf number
  const uint8_t* constant = nullptr;  // kConstant
  int64_t offset = 0;                 // kTemp: in the arena
};

struct CompiledComputation;

// One execution of one replica.
struct ExecContext {
  ThreadPool* pool = nullptr;
  int64_t replica_id = 0;
  int64_t replica_count = 1;
  ReplicaHub* hub = nullptr;
  HostFeeds* feeds = nullptr;  // infeed/outfeed; null: none given
  std::unique_ptr<InstructionEvaluator> evaluator;  // created on first use
  std::vector<AlignedMemory> arenas;                // per computation id
};

struct Frame {
  const CompiledComputation* cc = nullptr;
  std::vector<uint8_t*> ptr;  // per slot
  ExecContext* ctx = nullptr;
};

class Thunk {
 public:
  virtual ~Thunk() = default;
  virtual absl::Status Run(Frame& f) const = 0;
  // True when the thunk's one output may share the memory of inputs[0]
  // (it then only updates it: dynamic-update-slice, scatter). Whether it
  // does is decided per program by MakeUpdatesInPlace.
  virtual bool CanUpdateInPlace() const { return false; }
  std::vector<int> inputs;   // slots read
  std::vector<int> outputs;  // slots written
};

struct CompiledComputation {
  const Computation* computation = nullptr;
  int id = 0;
  std::vector<Slot> slots;
  std::vector<std::unique_ptr<Thunk>> thunks;
  std::vector<int> param_leaves;
  std::vector<int> result_leaves;
  int64_t arena_bytes = 0;
  int64_t unshared_bytes = 0;
};

Shape WithLayout(Shape s) {
  if (s.IsArray()) LayoutUtil::SetToDefaultLayoutIfEmpty(&s);
  return s;
}

void FlattenLeafShapes(const Shape& shape, std::vector<Shape>* out) {
  if (shape.IsTuple()) {
    for (const Shape& e : shape.tuple_shapes()) FlattenLeafShapes(e, out);
    return;
  }
  out->push_back(WithLayout(shape));
}

int64_t LeafCount(const Shape& shape) {
  if (!shape.IsTuple()) return 1;
  int64_t n = 0;
  for (const Shape& e : shape.tuple_shapes()) n += LeafCount(e);
  return n;
}

int64_t SlotBytes(const Shape& s) {
  return s.IsArray() ? ShapeUtil::ByteSizeOf(s) : 0;
}

absl::Status RunComputation(const CompiledComputation& cc,
                            absl::Span<uint8_t* const> params, ExecContext& ctx,
                            std::vector<uint8_t*>* results,
                            absl::Span<void* const> bound_results);

// ---- Thunks
// -------------------------------------------------------------------

class KernelThunk : public Thunk {
 public:
  KernelThunk(std::string name, KernelShape shape)
      : name_(std::move(name)), shape_(shape) {}
  const std::string& name() const { return name_; }
  void set_fn(KernelFn fn) { fn_ = fn; }
  KernelFn fn() const { return fn_; }
  // The kernel's buffer array (kernel_emitter.h): results, then operands.
  void CollectBuffers(const Frame& f, void** out) const {
    size_t k = 0;
    for (int s : outputs) out[k++] = f.ptr[s];
    for (int s : inputs) out[k++] = f.ptr[s];
  }
  const KernelShape& shape() const { return shape_; }
  absl::Status Run(Frame& f) const override {
    void* buffers[64];
    std::vector<void*> heap;
    void** b = buffers;
    const size_t n = outputs.size() + inputs.size();
    if (n > 64) {
      heap.resize(n);
      b = heap.data();
    }
    CollectBuffers(f, b);
    const int64_t rows = shape_.rows;
    if (rows == 0) return absl::OkStatus();
    const int64_t per_row =
        std::max<int64_t>(1, shape_.row_length * shape_.cost_per_element);
    // About 32K element-operations per chunk keeps the split worth it.
    const int64_t min_rows = std::max<int64_t>(1, 32768 / per_row);
    KernelFn fn = fn_;
    void* const* bp = b;
    f.ctx->pool->ParallelFor(
        rows, min_rows, [fn, bp](int64_t lo, int64_t hi) { fn(bp, lo, hi); });
    return absl::OkStatus();
  }

 private:
  std::string name_;
  KernelShape shape_;
  KernelFn fn_ = nullptr;
};

class CopyThunk : public Thunk {
 public:
  CopyThunk(int src, int dst, int64_t bytes) : bytes_(bytes) {
    inputs = {src};
    outputs = {dst};
  }
  absl::Status Run(Frame& f) const override {
    if (bytes_ > 0 && f.ptr[outputs[0]] != f.ptr[inputs[0]]) {
      std::memcpy(f.ptr[outputs[0]], f.ptr[inputs[0]], bytes_);
    }
    return absl::OkStatus();
  }

 private:
  int64_t bytes_;
};

// dynamic-update-slice as copies: the operand into the result (skipped in
// place, when the result shares the operand's memory: see MakeUpdatesInPlace),
// then the update into its window, whose start indices are clamped so the
// window fits (XLA). Operand and result share a layout; the update may have
// any dense layout.
class DusThunk : public Thunk {
 public:
  // inputs: operand, update, one scalar start index per dimension;
  // outputs: the result.
  DusThunk(const Shape& result, const Shape& update,
           std::vector<PrimitiveType> index_types)
      : dims_(result.dimensions().begin(), result.dimensions().end()),
        update_dims_(update.dimensions().begin(), update.dimensions().end()),
        out_strides_(IndexUtil::LayoutStrides(result)),
        update_strides_(IndexUtil::LayoutStrides(update)),
        index_types_(std::move(index_types)),
        element_bytes_(primitive_util::ByteWidth(result.element_type())),
        bytes_(ShapeUtil::ByteSizeOf(result)) {
    const Layout layout = LayoutUtil::EffectiveLayout(update);
    minor_ = layout.minor_to_major().empty() ? -1 : layout.minor_to_major(0);
    update_elements_ = ShapeUtil::ElementsIn(update);
  }
  bool CanUpdateInPlace() const override { return true; }

  absl::Status Run(Frame& f) const override {
    uint8_t* out = f.ptr[outputs[0]];
    const uint8_t* in = f.ptr[inputs[0]];
    if (bytes_ > 0 && out != in) std::memcpy(out, in, bytes_);
    if (update_elements_ == 0) return absl::OkStatus();
    const uint8_t* update = f.ptr[inputs[1]];
    const int64_t rank = static_cast<int64_t>(dims_.size());
    int64_t base = 0;  // element offset of the window in the result
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t start =
          std::clamp<int64_t>(ReadIndex(f.ptr[inputs[2 + d]], index_types_[d]),
                              0, dims_[d] - update_dims_[d]);
      base += start * out_strides_[d];
    }
    if (rank == 0) {
      std::memmove(out, update, element_bytes_);
      return absl::OkStatus();
    }
    // Runs along the update's most-minor dimension; an odometer over the
    // other dimensions.
    const int64_t run = update_dims_[minor_];
    const bool contiguous = out_strides_[minor_] == 1;
    std::vector<int64_t> index(rank, 0);
    while (true) {
      int64_t o = base, u = 0;
      for (int64_t d = 0; d < rank; ++d) {
        o += index[d] * out_strides_[d];
        u += index[d] * update_strides_[d];
      }
      if (contiguous) {
        std::memmove(out + o * element_bytes_, update + u * element_bytes_,
                     run * element_bytes_);
      } else {
        for (int64_t i = 0; i < run; ++i) {
          std::memmove(out + (o + i * out_strides_[minor_]) * element_bytes_,
                       update + (u + i) * element_bytes_, element_bytes_);
        }
      }
      int64_t d = rank - 1;
      for (; d >= 0; --d) {
        if (d == minor_) continue;
        if (++index[d] < update_dims_[d]) break;
        index[d] = 0;
      }
      if (d < 0) break;
    }
    return absl::OkStatus();
  }

 private:
  static int64_t ReadIndex(const uint8_t* p, PrimitiveType t) {
    switch (t) {
      case PrimitiveType::S8:
        return Load<int8_t>(p);
      case PrimitiveType::S16:
        return Load<int16_t>(p);
      case PrimitiveType::S32:
        return Load<int32_t>(p);
      case PrimitiveType::S64:
        return Load<int64_t>(p);
      case PrimitiveType::U8:
        return Load<uint8_t>(p);
      case PrimitiveType::U16:
        return Load<uint16_t>(p);
      case PrimitiveType::U32:
        return Load<uint32_t>(p);
      // Beyond int64: clamped to the largest start anyway.
      default: {
        const uint64_t v = Load<uint64_t>(p);
        return v > uint64_t{INT64_MAX} ? INT64_MAX : static_cast<int64_t>(v);
      }
    }
  }
  template <typename T>
  static int64_t Load(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return static_cast<int64_t>(v);
  }

  std::vector<int64_t> dims_, update_dims_, out_strides_, update_strides_;
  std::vector<PrimitiveType> index_types_;
  int64_t element_bytes_;
  int64_t bytes_;
  int64_t minor_ = -1;
  int64_t update_elements_ = 0;
};

// dot as a (batched) GEMM with strided operands.
template <typename T>
class GemmThunk : public Thunk {
 public:
  explicit GemmThunk(GemmArgs<T> args) : args_(args) {}
  absl::Status Run(Frame& f) const override {
    GemmArgs<T> a = args_;
    a.a = reinterpret_cast<const T*>(f.ptr[inputs[a_operand_]]);
    a.b = reinterpret_cast<const T*>(f.ptr[inputs[1 - a_operand_]]);
    a.c = reinterpret_cast<T*>(f.ptr[outputs[0]]);
    Gemm(a, f.ctx->pool);
    return absl::OkStatus();
  }
  int a_operand_ = 0;  // 1 when the operands were swapped (C^T = B^T A^T)

 private:
  GemmArgs<T> args_;
};

template <typename T>
class ConvThunk : public Thunk {
 public:
  explicit ConvThunk(ConvDims dims) : dims_(std::move(dims)) {}

  // The loop fusion that consumes the convolution elementwise runs on each
  // block of output rows as soon as the convolution has written it, while
  // it is in cache. `row_strides[d]` is the kernel-row stride of output
  // dimension d (0 for the most-minor one), `pieces` the kernel rows per
  // most-minor line.
  void SetEpilogue(std::unique_ptr<KernelThunk> kernel, Shape out,
                   int64_t batch_dim, int64_t spatial0_dim) {
    epilogue_ = std::move(kernel);
    out_ = std::move(out);
    batch_dim_ = batch_dim;
    spatial0_dim_ = spatial0_dim;
    const Layout layout = LayoutUtil::EffectiveLayout(out_);
    const int64_t minor = layout.minor_to_major(0);
    pieces_ = epilogue_->shape().row_length > 0
                  ? out_.dimensions(minor) / epilogue_->shape().row_length
                  : 1;
    row_strides_.assign(out_.rank(), 0);
    int64_t stride = pieces_;
    for (int64_t i = 1; i < out_.rank(); ++i) {
      const int64_t d = layout.minor_to_major(i);
      row_strides_[d] = stride;
      stride *= out_.dimensions(d);
    }
    for (int64_t d = 0; d < out_.rank(); ++d) {
      if (d != minor && d != batch_dim_ && d != spatial0_dim_) {
        others_.push_back(d);
      }
    }
  }

  absl::Status Run(Frame& f) const override {
    const T* lhs = reinterpret_cast<const T*>(f.ptr[inputs[0]]);
    const T* rhs = reinterpret_cast<const T*>(f.ptr[inputs[1]]);
    T* out = reinterpret_cast<T*>(f.ptr[outputs[0]]);
    if (epilogue_ == nullptr) return Conv(dims_, lhs, rhs, out, f.ctx->pool);
    // The epilogue kernel's buffers: its result, then its operands.
    std::vector<void*> buffers(epilogue_->outputs.size() +
                               epilogue_->inputs.size());
    epilogue_->CollectBuffers(f, buffers.data());
    void* const* bp = buffers.data();
    const KernelFn fn = epilogue_->fn();
    ConvDims dims = dims_;
    dims.on_rows_done = [&](int64_t b, int64_t y0, int64_t y1) {
      if (spatial0_dim_ < 0) {
        y0 = 0;
        y1 = 1;
      }
      // Every combination of the other non-minor dimensions.
      std::vector<int64_t> idx(others_.size(), 0);
      while (true) {
        int64_t base = b * row_strides_[batch_dim_];
        for (size_t j = 0; j < others_.size(); ++j) {
          base += idx[j] * row_strides_[others_[j]];
        }
        for (int64_t y = y0; y < y1; ++y) {
          const int64_t r =
              base + (spatial0_dim_ >= 0 ? y * row_strides_[spatial0_dim_] : 0);
          fn(bp, r, r + pieces_);
        }
        size_t j = 0;
        for (; j < others_.size(); ++j) {
          if (++idx[j] < out_.dimensions(others_[j])) break;
          idx[j] = 0;
        }
        if (j == others_.size()) break;
      }
    };
    return Conv(dims, lhs, rhs, out, f.ctx->pool);
  }

 private:
  ConvDims dims_;
  std::unique_ptr<KernelThunk> epilogue_;
  Shape out_;
  int64_t batch_dim_ = -1, spatial0_dim_ = -1, pieces_ = 1;
  std::vector<int64_t> row_strides_;
  std::vector<int64_t> others_;
};

class CustomCallThunk : public Thunk {
 public:
  CustomCallThunk(CustomCallTargetFn target, std::string name,
                  std::vector<int> operand_leaf_counts, bool tuple_result,
                  std::string backend_config)
      : target_(target),
        name_(std::move(name)),
        operand_leaf_counts_(std::move(operand_leaf_counts)),
        tuple_result_(tuple_result),
        backend_config_(std::move(backend_config)) {}
  absl::Status Run(Frame& f) const override {
    if (target_.api_version == 1) return RunTyped(f);
    // Tuple operands and results are arrays of pointers to their leaves
    // (flattened one level, as XLA CPU passes them).
    std::vector<std::vector<const void*>> tuples;
    tuples.reserve(operand_leaf_counts_.size());
    std::vector<const void*> in;
    size_t k = 0;
    for (int count : operand_leaf_counts_) {
      if (count == -1) {
        in.push_back(f.ptr[inputs[k++]]);
        continue;
      }
      tuples.emplace_back();
      for (int j = 0; j < count; ++j)
        tuples.back().push_back(f.ptr[inputs[k++]]);
      in.push_back(tuples.back().data());
    }
    std::vector<void*> outs;
    void* out = nullptr;
    if (tuple_result_) {
      for (int s : outputs) outs.push_back(f.ptr[s]);
      out = outs.data();
    } else {
      out = f.ptr[outputs[0]];
    }
    reinterpret_cast<CustomCallFn>(target_.function)(out, in.data());
    return absl::OkStatus();
  }

 private:
  // api_version 1: a PLX_CallFrame with one buffer per array leaf of the
  // operands (tuples flattened, tokens left out) and of the result, each
  // row-major with its element type and dimensions, and the instruction's
  // backend_config. A non-zero return fails the execution with the
  // target's message.
  absl::Status RunTyped(Frame& f) const {
    auto frame_buffers = [&](const std::vector<int>& slots) {
      std::vector<PLX_CallFrameBuffer> out;
      for (int s : slots) {
        const Shape& shape = f.cc->slots[s].shape;
        if (shape.IsArray()) {
          out.push_back(sdk::MakeCallFrameBuffer(f.ptr[s], shape));
        }
      }
      return out;
    };
    return sdk::CallTypedCustomCall(target_.function, name_,
                                    frame_buffers(inputs),
                                    frame_buffers(outputs), backend_config_);
  }

  CustomCallTargetFn target_;
  std::string name_;
  std::vector<int> operand_leaf_counts_;  // -1: an array operand
  bool tuple_result_;
  std::string backend_config_;
};

// sort: along one dimension, every operand permuted by the order the
// JIT-compiled comparator gives (std::stable_sort, whatever is_stable
// says: a stable order is a valid unstable one, and merge sort stays in
// bounds even for a comparator that is not a strict weak order).
class SortThunk : public Thunk {
 public:
  SortThunk(std::string name, std::vector<Shape> shapes, int64_t dimension)
      : name_(std::move(name)), shapes_(std::move(shapes)), dim_(dimension) {
    for (const Shape& s : shapes_) {
      strides_.push_back(IndexUtil::LayoutStrides(s));
      widths_.push_back(primitive_util::ByteWidth(s.element_type()));
    }
  }
  const std::string& name() const { return name_; }
  void set_fn(ComparatorFn fn) { fn_ = fn; }

  absl::Status Run(Frame& f) const override {
    const Shape& s = shapes_[0];
    const int64_t n = s.dimensions(dim_);
    const int64_t total = ShapeUtil::ElementsIn(s);
    if (total == 0) return absl::OkStatus();
    const int64_t lines = total / n;
    const size_t k = shapes_.size();
    // The other dimensions, enumerated row-major.
    std::vector<int64_t> others;
    for (int64_t d = 0; d < s.rank(); ++d) {
      if (d != dim_) others.push_back(d);
    }
    auto body = [&](int64_t lo, int64_t hi) {
      std::vector<int64_t> idx(n);
      std::vector<int64_t> base(k);
      std::vector<const void*> args(2 * k);
      for (int64_t line = lo; line < hi; ++line) {
        int64_t rest = line;
        std::fill(base.begin(), base.end(), 0);
        for (auto it = others.rbegin(); it != others.rend(); ++it) {
          const int64_t i = rest % s.dimensions(*it);
          rest /= s.dimensions(*it);
          for (size_t o = 0; o < k; ++o) base[o] += i * strides_[o][*it];
        }
        for (int64_t i = 0; i < n; ++i) idx[i] = i;
        std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) {
          for (size_t o = 0; o < k; ++o) {
            const uint8_t* in = f.ptr[inputs[o]];
            const int64_t st = strides_[o][dim_];
            args[2 * o] = in + (base[o] + a * st) * widths_[o];
            args[2 * o + 1] = in + (base[o] + b * st) * widths_[o];
          }
          return fn_(args.data()) != 0;
        });
        for (size_t o = 0; o < k; ++o) {
          const uint8_t* in = f.ptr[inputs[o]];
          uint8_t* out = f.ptr[outputs[o]];
          const int64_t st = strides_[o][dim_];
          const int64_t w = widths_[o];
          for (int64_t i = 0; i < n; ++i) {
            std::memcpy(out + (base[o] + i * st) * w,
                        in + (base[o] + idx[i] * st) * w, w);
          }
        }
      }
    };
    f.ctx->pool->ParallelFor(lines, std::max<int64_t>(1, 4096 / n), body);
    return absl::OkStatus();
  }

 private:
  std::string name_;
  std::vector<Shape> shapes_;
  int64_t dim_;
  std::vector<std::vector<int64_t>> strides_;
  std::vector<int64_t> widths_;
  ComparatorFn fn_ = nullptr;
};

// An instruction run by the reference evaluator.
class ReferenceThunk : public Thunk {
 public:
  explicit ReferenceThunk(const Instruction* instr) : instr_(instr) {}
  absl::Status Run(Frame& f) const override {
    if (f.ctx->evaluator == nullptr) {
      EvaluatorOptions options;
      options.verify_module = false;
      options.feeds = f.ctx->feeds;
      f.ctx->evaluator = std::make_unique<InstructionEvaluator>(
          std::move(options), f.ctx->replica_id, f.ctx->replica_count);
    }
    std::vector<Literal> operands;
    size_t k = 0;
    for (const Instruction* op : instr_->operands()) {
      operands.push_back(Assemble(op->shape(), f, &k));
    }
    std::vector<const Literal*> ptrs;
    for (const Literal& l : operands) ptrs.push_back(&l);
    absl::StatusOr<Literal> result = f.ctx->evaluator->Evaluate(*instr_, ptrs);
    if (!result.ok()) return result.status();
    size_t out = 0;
    return Scatter(std::move(*result), f, &out);
  }

 private:
  Literal Assemble(const Shape& shape, Frame& f, size_t* k) const {
    if (shape.IsTuple()) {
      std::vector<Literal> elements;
      for (const Shape& e : shape.tuple_shapes()) {
        elements.push_back(Assemble(e, f, k));
      }
      return Literal::MakeTuple(std::move(elements));
    }
    const int s = inputs[(*k)++];
    const Slot& slot = f.cc->slots[s];
    Literal lit(slot.shape);
    if (slot.bytes > 0) {
      std::memcpy(lit.mutable_data().data(), f.ptr[s], slot.bytes);
    }
    return lit;
  }

  absl::Status Scatter(Literal value, Frame& f, size_t* k) const {
    if (value.shape().IsTuple()) {
      for (Literal& e : std::move(value).DecomposeTuple()) {
        if (absl::Status s = Scatter(std::move(e), f, k); !s.ok()) return s;
      }
      return absl::OkStatus();
    }
    const int s = outputs[(*k)++];
    const Slot& slot = f.cc->slots[s];
    if (slot.bytes == 0) return absl::OkStatus();
    const Layout want = LayoutUtil::EffectiveLayout(slot.shape);
    if (!(LayoutUtil::EffectiveLayout(value.shape()) == want)) {
      absl::StatusOr<Literal> relaid = value.Relayout(want);
      if (!relaid.ok()) return relaid.status();
      value = std::move(*relaid);
    }
    std::memcpy(f.ptr[s], value.data().data(), slot.bytes);
    return absl::OkStatus();
  }

  const Instruction* instr_;
};

// all-reduce across replicas with a reducer matched to add, multiply,
// maximum, minimum, and, or.
class AllReduceThunk : public Thunk {
 public:
  AllReduceThunk(HloOpcode reducer, std::vector<Shape> shapes,
                 std::vector<std::vector<int64_t>> groups)
      : reducer_(reducer),
        shapes_(std::move(shapes)),
        groups_(std::move(groups)) {}

  absl::Status Run(Frame& f) const override {
    ExecContext& ctx = *f.ctx;
    std::vector<const void*> mine;
    for (int s : inputs) mine.push_back(f.ptr[s]);
    if (ctx.replica_count == 1 || ctx.hub == nullptr) {
      for (size_t i = 0; i < inputs.size(); ++i) {
        const int64_t bytes = f.cc->slots[outputs[i]].bytes;
        if (bytes > 0) std::memcpy(f.ptr[outputs[i]], mine[i], bytes);
      }
      return absl::OkStatus();
    }
    absl::StatusOr<std::vector<std::vector<const void*>>> all =
        ctx.hub->Arrive(ctx.replica_id, mine);
    if (!all.ok()) return all.status();
    std::vector<int64_t> group;
    for (const auto& g : groups_) {
      if (std::find(g.begin(), g.end(), ctx.replica_id) != g.end()) group = g;
    }
    if (group.empty()) {
      for (int64_t r = 0; r < ctx.replica_count; ++r) group.push_back(r);
    }
    for (size_t i = 0; i < inputs.size(); ++i) {
      std::vector<const void*> sources;
      for (int64_t r : group) sources.push_back((*all)[r][i]);
      Reduce(shapes_[i], sources, f.ptr[outputs[i]]);
    }
    return ctx.hub->Leave();
  }

 private:
  template <typename T>
  static T Apply(HloOpcode op, T a, T b) {
    switch (op) {
      case HloOpcode::kAdd:
        if constexpr (std::is_integral_v<T>) {
          // Wraps (two's complement), without signed-overflow UB.
          using U = std::make_unsigned_t<T>;
          return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
        } else {
          return a + b;
        }
      case HloOpcode::kMultiply:
        if constexpr (std::is_integral_v<T>) {
          using U = std::make_unsigned_t<T>;
          // uint16 * uint16 promotes to int: multiply as uint64.
          return static_cast<T>(
              static_cast<U>(static_cast<uint64_t>(static_cast<U>(a)) *
                             static_cast<uint64_t>(static_cast<U>(b))));
        } else {
          return a * b;
        }
      case HloOpcode::kMaximum:
        if (a != a) return a;
        if (b != b) return b;
        return a < b ? b : a;
      case HloOpcode::kMinimum:
        if (a != a) return a;
        if (b != b) return b;
        return b < a ? b : a;
      case HloOpcode::kAnd:
        if constexpr (std::is_integral_v<T>) return static_cast<T>(a & b);
        return a;
      case HloOpcode::kOr:
        if constexpr (std::is_integral_v<T>) return static_cast<T>(a | b);
        return a;
      default:
        return a;
    }
  }
  template <typename T>
  void ReduceTyped(int64_t n, const std::vector<const void*>& src,
                   void* dst) const {
    T* out = static_cast<T*>(dst);
    for (int64_t i = 0; i < n; ++i) {
      T acc = static_cast<const T*>(src[0])[i];
      for (size_t r = 1; r < src.size(); ++r) {
        acc = Apply<T>(reducer_, acc, static_cast<const T*>(src[r])[i]);
      }
      out[i] = acc;
    }
  }
  void Reduce(const Shape& s, const std::vector<const void*>& src,
              void* dst) const {
    const int64_t n = ShapeUtil::ElementsIn(s);
    switch (s.element_type()) {
      case PrimitiveType::F32:
        return ReduceTyped<float>(n, src, dst);
      case PrimitiveType::F64:
        return ReduceTyped<double>(n, src, dst);
      case PrimitiveType::S8:
        return ReduceTyped<int8_t>(n, src, dst);
      case PrimitiveType::S16:
        return ReduceTyped<int16_t>(n, src, dst);
      case PrimitiveType::S32:
        return ReduceTyped<int32_t>(n, src, dst);
      case PrimitiveType::S64:
        return ReduceTyped<int64_t>(n, src, dst);
      case PrimitiveType::U8:
        return ReduceTyped<uint8_t>(n, src, dst);
      case PrimitiveType::U16:
        return ReduceTyped<uint16_t>(n, src, dst);
      case PrimitiveType::U32:
        return ReduceTyped<uint32_t>(n, src, dst);
      case PrimitiveType::U64:
        return ReduceTyped<uint64_t>(n, src, dst);
      case PrimitiveType::PRED: {
        uint8_t* out = static_cast<uint8_t*>(dst);
        for (int64_t i = 0; i < n; ++i) {
          bool acc = static_cast<const uint8_t*>(src[0])[i] != 0;
          for (size_t r = 1; r < src.size(); ++r) {
            const bool v = static_cast<const uint8_t*>(src[r])[i] != 0;
            acc = (reducer_ == HloOpcode::kAnd ||
                   reducer_ == HloOpcode::kMultiply ||
                   reducer_ == HloOpcode::kMinimum)
                      ? (acc && v)
                      : (acc || v);
          }
          out[i] = acc ? 1 : 0;
        }
        return;
      }
      default:
        return;
    }
  }

  HloOpcode reducer_;
  std::vector<Shape> shapes_;
  std::vector<std::vector<int64_t>> groups_;
};

// scatter of one array whose update computation is a combiner
// (runtime/scatter.h): the operand is copied into the result, then the
// updates are applied to it in place, one window after the other in update
// order (as the evaluator does).
class ScatterThunk : public Thunk {
 public:
  // inputs: operand, indices, updates; outputs: the result. `desc`
  // describes the result's layout; `operand` may have another one.
  ScatterThunk(ScatterDesc desc, const Shape& operand)
      : desc_(std::move(desc)), bytes_(ShapeUtil::ByteSizeOf(operand)) {
    std::vector<int64_t> strides = IndexUtil::LayoutStrides(operand);
    if (strides == desc_.operand.strides) return;
    // Another layout: the copy is itself a scatter, assigning the whole
    // operand as one window at the origin (an empty index vector).
    ScatterDesc copy;
    copy.element_type = desc_.element_type;
    copy.combiner = ScatterCombiner::kAssign;
    copy.operand = desc_.operand;
    copy.index_type = ScatterType::kS32;
    copy.indices.dims = {0};
    copy.indices.strides = {1};
    copy.updates.dims = desc_.operand.dims;
    copy.updates.strides = std::move(strides);
    for (size_t d = 0; d < copy.operand.dims.size(); ++d) {
      copy.update_window_dims.push_back(static_cast<int64_t>(d));
    }
    copy.index_vector_dim = 0;
    relayout_ = std::move(copy);
  }
  absl::Status Run(Frame& f) const override {
    uint8_t* out = f.ptr[outputs[0]];
    const uint8_t* operand = f.ptr[inputs[0]];
    if (relayout_.has_value()) {
      if (absl::Status s =
              ::plexa::cpu::Scatter(*relayout_, out, nullptr, operand);
          !s.ok()) {
        return s;
      }
    } else if (bytes_ > 0 && out != operand) {
      std::memcpy(out, operand, bytes_);
    }
    return ::plexa::cpu::Scatter(desc_, out, f.ptr[inputs[1]],
                                 f.ptr[inputs[2]]);
  }
  bool CanUpdateInPlace() const override { return !relayout_.has_value(); }

 private:
  ScatterDesc desc_;
  int64_t bytes_;
  std::optional<ScatterDesc> relayout_;
};

std::optional<ScatterType> ToScatterType(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::PRED:
      return ScatterType::kPred;
    case PrimitiveType::S8:
      return ScatterType::kS8;
    case PrimitiveType::S16:
      return ScatterType::kS16;
    case PrimitiveType::S32:
      return ScatterType::kS32;
    case PrimitiveType::S64:
      return ScatterType::kS64;
    case PrimitiveType::U8:
      return ScatterType::kU8;
    case PrimitiveType::U16:
      return ScatterType::kU16;
    case PrimitiveType::U32:
      return ScatterType::kU32;
    case PrimitiveType::U64:
      return ScatterType::kU64;
    case PrimitiveType::F32:
      return ScatterType::kF32;
    case PrimitiveType::F64:
      return ScatterType::kF64;
    default:
      return std::nullopt;
  }
}

// The combiner an update computation applies to (current, update): its root
// is parameter(1) (assign), or add/multiply/maximum/minimum/and/or of its
// two parameters in either order. Anything else: nullopt.
std::optional<ScatterCombiner> MatchScatterCombiner(const Computation& c,
                                                    bool* update_first) {
  const Instruction* root = c.root_instruction();
  if (c.num_parameters() != 2 || root == nullptr) return std::nullopt;
  *update_first = false;
  if (root->opcode() == HloOpcode::kParameter) {
    if (root->parameter_number() != 1) return std::nullopt;
    return ScatterCombiner::kAssign;
  }
  if (root->operand_count() != 2) return std::nullopt;
  const Instruction* a = root->operand(0);
  const Instruction* b = root->operand(1);
  if (a->opcode() != HloOpcode::kParameter ||
      b->opcode() != HloOpcode::kParameter ||
      a->parameter_number() == b->parameter_number()) {
    return std::nullopt;
  }
  *update_first = a->parameter_number() == 1;
  switch (root->opcode()) {
    case HloOpcode::kAdd:
      return ScatterCombiner::kAdd;
    case HloOpcode::kMultiply:
      return ScatterCombiner::kMultiply;
    case HloOpcode::kMaximum:
      return ScatterCombiner::kMax;
    case HloOpcode::kMinimum:
      return ScatterCombiner::kMin;
    case HloOpcode::kAnd:
      return ScatterCombiner::kAnd;
    case HloOpcode::kOr:
      return ScatterCombiner::kOr;
    default:
      return std::nullopt;
  }
}

// The runtime description of a single-operand scatter over dense arrays of
// supported types with a combiner, writing the result's layout; nullopt for
// anything else (the reference kernel runs those).
std::optional<ScatterDesc> MakeScatterDesc(const Instruction& h) {
  if (h.operand_count() != 3 || !h.shape().IsArray() ||
      h.to_apply() == nullptr ||
      !h.attrs().scatter_dimension_numbers.has_value()) {
    return std::nullopt;
  }
  const Shape result = WithLayout(h.shape());
  const Shape operand = WithLayout(h.operand(0)->shape());
  const Shape indices = WithLayout(h.operand(1)->shape());
  const Shape updates = WithLayout(h.operand(2)->shape());
  for (const Shape* s : {&result, &operand, &indices, &updates}) {
    if (!ShapeUtil::IsDenseArray(*s)) return std::nullopt;
  }
  const PrimitiveType et = result.element_type();
  if (operand.element_type() != et || updates.element_type() != et) {
    return std::nullopt;
  }
  const std::optional<ScatterType> type = ToScatterType(et);
  const std::optional<ScatterType> index_type =
      ToScatterType(indices.element_type());
  if (!type.has_value() || !index_type.has_value() ||
      *index_type == ScatterType::kPred) {
    return std::nullopt;
  }
  const Instruction* root = h.to_apply()->root_instruction();
  if (root == nullptr || !root->shape().IsArray() ||
      root->shape().element_type() != et) {
    return std::nullopt;
  }
  bool update_first = false;
  const std::optional<ScatterCombiner> combiner =
      MatchScatterCombiner(*h.to_apply(), &update_first);
  if (!combiner.has_value()) return std::nullopt;
  auto array = [](const Shape& s) {
    ScatterArray a;
    a.dims.assign(s.dimensions().begin(), s.dimensions().end());
    a.strides = IndexUtil::LayoutStrides(s);
    return a;
  };
  const ScatterDimensionNumbers& dn = *h.attrs().scatter_dimension_numbers;
  ScatterDesc d;
  d.element_type = *type;
  d.combiner = *combiner;
  d.update_first = update_first;
  d.operand = array(result);
  d.index_type = *index_type;
  d.indices = array(indices);
  d.updates = array(updates);
  d.update_window_dims = dn.update_window_dims;
  d.inserted_window_dims = dn.inserted_window_dims;
  d.scatter_dims_to_operand_dims = dn.scatter_dims_to_operand_dims;
  d.index_vector_dim = dn.index_vector_dim;
  d.input_batching_dims = dn.input_batching_dims;
  d.scatter_indices_batching_dims = dn.scatter_indices_batching_dims;
  // and/or of floats, bad dimension numbers: the reference kernel decides.
  if (!ValidateScatter(d).ok()) return std::nullopt;
  return d;
}

// select-and-scatter as a selection and a scatter: the result is filled with
// the init value, SelectInWindows picks each window's element, and the
// source is scattered into the picked positions with the matched combiner
// (one scatter position per source element, every operand dimension
// inserted, windows lying wholly in the padding skipped through index -1).
class SelectAndScatterThunk : public Thunk {
 public:
  // inputs: operand, source, init value; outputs: the result.
  SelectAndScatterThunk(WindowSelectDesc select, ScatterDesc scatter,
                        int64_t element_bytes)
      : select_(std::move(select)),
        scatter_(std::move(scatter)),
        element_bytes_(element_bytes) {
    sources_ = 1;
    for (int64_t n : select_.source_dims) sources_ *= n;
    elements_ = 1;
    for (int64_t n : scatter_.operand.dims) elements_ *= n;
  }
  absl::Status Run(Frame& f) const override {
    uint8_t* out = f.ptr[outputs[0]];
    const uint8_t* init = f.ptr[inputs[2]];
    for (int64_t i = 0; i < elements_; ++i) {
      std::memcpy(out + i * element_bytes_, init, element_bytes_);
    }
    const int64_t rank = static_cast<int64_t>(select_.source_dims.size());
    std::vector<int64_t> selected(std::max<int64_t>(1, sources_ * rank));
    if (absl::Status s = SelectInWindows(select_, f.ptr[inputs[0]],
                                         selected.data(), f.ctx->pool);
        !s.ok()) {
      return s;
    }
    return ::plexa::cpu::Scatter(scatter_, out, selected.data(),
                                 f.ptr[inputs[1]]);
  }

 private:
  WindowSelectDesc select_;
  ScatterDesc scatter_;
  int64_t element_bytes_;
  int64_t sources_ = 1;
  int64_t elements_ = 1;
};

// The select computation as `x DIR c` of its parameters (x the current
// selection, c the candidate), when it is one comparison of them that is
// not a total order; nullopt otherwise.
std::optional<SelectDirection> MatchSelect(const Computation& c) {
  const Instruction* root = c.root_instruction();
  if (c.num_parameters() != 2 || root == nullptr ||
      root->opcode() != HloOpcode::kCompare ||
      root->attrs().comparison_type == ComparisonType::kFloatTotalOrder) {
    return std::nullopt;
  }
  const Instruction* a = root->operand(0);
  const Instruction* b = root->operand(1);
  if (a->opcode() != HloOpcode::kParameter ||
      b->opcode() != HloOpcode::kParameter ||
      a->parameter_number() == b->parameter_number()) {
    return std::nullopt;
  }
  const bool swapped = a->parameter_number() == 1;  // c DIR x
  switch (root->attrs().comparison_direction) {
    case ComparisonDirection::kGe:
      return swapped ? SelectDirection::kLe : SelectDirection::kGe;
    case ComparisonDirection::kGt:
      return swapped ? SelectDirection::kLt : SelectDirection::kGt;
    case ComparisonDirection::kLe:
      return swapped ? SelectDirection::kGe : SelectDirection::kLe;
    case ComparisonDirection::kLt:
      return swapped ? SelectDirection::kGt : SelectDirection::kLt;
    default:
      return std::nullopt;
  }
}

// A SelectAndScatterThunk for `h` when its window has no dilation or
// reversal, its operand, source, init value and result share one supported
// element type (not pred) in dense arrays, and both computations match;
// null otherwise (the reference kernel runs it).
std::unique_ptr<Thunk> MakeSelectAndScatter(const Instruction& h) {
  const Shape operand = WithLayout(h.operand(0)->shape());
  const Shape source = WithLayout(h.operand(1)->shape());
  const Shape result = WithLayout(h.shape());
  const PrimitiveType et = result.element_type();
  const std::optional<ScatterType> type = ToScatterType(et);
  if (!type.has_value() || *type == ScatterType::kPred ||
      operand.element_type() != et || source.element_type() != et ||
      h.operand(2)->shape().element_type() != et ||
      !ShapeUtil::IsDenseArray(operand) || !ShapeUtil::IsDenseArray(source) ||
      !ShapeUtil::IsDenseArray(result) || !h.attrs().window.has_value() ||
      h.select() == nullptr || h.scatter() == nullptr) {
    return nullptr;
  }
  const int64_t rank = operand.rank();
  const Window& window = *h.attrs().window;
  if (static_cast<int64_t>(window.dimensions.size()) != rank ||
      source.rank() != rank) {
    return nullptr;
  }
  const std::optional<SelectDirection> direction = MatchSelect(*h.select());
  bool update_first = false;
  const std::optional<ScatterCombiner> combiner =
      MatchScatterCombiner(*h.scatter(), &update_first);
  if (!direction.has_value() || !combiner.has_value()) return nullptr;
  WindowSelectDesc select;
  select.element_type = *type;
  select.direction = *direction;
  select.operand.dims.assign(operand.dimensions().begin(),
                             operand.dimensions().end());
  select.operand.strides = IndexUtil::LayoutStrides(operand);
  select.source_dims.assign(source.dimensions().begin(),
                            source.dimensions().end());
  for (const WindowDimension& w : window.dimensions) {
    if (w.window_dilation != 1 || w.base_dilation != 1 || w.window_reversal ||
        w.padding_low < 0) {
      return nullptr;
    }
    select.window_size.push_back(w.size);
    select.window_stride.push_back(w.stride);
    select.padding_low.push_back(w.padding_low);
  }
  ScatterDesc scatter;
  scatter.element_type = *type;
  scatter.combiner = *combiner;
  scatter.update_first = update_first;
  scatter.operand.dims = select.operand.dims;
  scatter.operand.strides = IndexUtil::LayoutStrides(result);
  scatter.index_type = ScatterType::kS64;
  scatter.indices.dims = select.source_dims;
  scatter.indices.dims.push_back(rank);
  scatter.indices.strides.assign(rank + 1, 1);
  for (int64_t k = rank - 1; k >= 0; --k) {
    scatter.indices.strides[k] =
        scatter.indices.strides[k + 1] * scatter.indices.dims[k + 1];
  }
  scatter.updates.dims = select.source_dims;
  scatter.updates.strides = IndexUtil::LayoutStrides(source);
  for (int64_t k = 0; k < rank; ++k) {
    scatter.inserted_window_dims.push_back(k);
    scatter.scatter_dims_to_operand_dims.push_back(k);
  }
  scatter.index_vector_dim = rank;
  if (!ValidateScatter(scatter).ok()) return nullptr;
  return std::make_unique<SelectAndScatterThunk>(
      std::move(select), std::move(scatter), primitive_util::ByteWidth(et));
}

class WhileThunk : public Thunk {
 public:
  WhileThunk(const CompiledComputation* cond, const CompiledComputation* body)
      : cond_(cond), body_(body) {}
  // inputs: the operand's leaves; outputs: the loop state (= result).
  absl::Status Run(Frame& f) const override {
    const size_t n = outputs.size();
    std::vector<uint8_t*> state(n);
    for (size_t i = 0; i < n; ++i) {
      state[i] = f.ptr[outputs[i]];
      const int64_t bytes = f.cc->slots[outputs[i]].bytes;
      if (bytes > 0 && state[i] != f.ptr[inputs[i]]) {
        std::memcpy(state[i], f.ptr[inputs[i]], bytes);
      }
    }
    std::vector<uint8_t*> results;
    while (true) {
      if (absl::Status s = RunComputation(*cond_, state, *f.ctx, &results, {});
          !s.ok()) {
        return s;
      }
      if (*results[0] == 0) break;
      if (absl::Status s = RunComputation(*body_, state, *f.ctx, &results, {});
          !s.ok()) {
        return s;
      }
      for (size_t i = 0; i < n; ++i) {
        const int64_t bytes = f.cc->slots[outputs[i]].bytes;
        if (bytes > 0 && results[i] != state[i]) {
          std::memcpy(state[i], results[i], bytes);
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  const CompiledComputation* cond_;
  const CompiledComputation* body_;
};

// conditional (branch index or pred) and call (one branch, no selector).
class BranchThunk : public Thunk {
 public:
  // inputs: [selector leaf (if has_selector)] then each branch's operand
  // leaves in order (counts in branch_leaves).
  BranchThunk(std::vector<const CompiledComputation*> branches,
              std::vector<int> branch_leaves, bool has_selector,
              bool pred_selector)
      : branches_(std::move(branches)),
        branch_leaves_(std::move(branch_leaves)),
        has_selector_(has_selector),
        pred_selector_(pred_selector) {}
  absl::Status Run(Frame& f) const override {
    int64_t branch = 0;
    size_t k = 0;
    if (has_selector_) {
      const uint8_t* sel = f.ptr[inputs[k++]];
      if (pred_selector_) {
        branch = *sel != 0 ? 0 : 1;  // true -> first, false -> second
      } else {
        int32_t index;
        std::memcpy(&index, sel, sizeof(index));
        const int64_t n = static_cast<int64_t>(branches_.size());
        // Out of range selects the last branch (XLA).
        branch = (index < 0 || index >= n) ? n - 1 : index;
      }
    }
    for (int64_t b = 0; b < branch; ++b) k += branch_leaves_[b];
    std::vector<uint8_t*> params;
    for (int j = 0; j < branch_leaves_[branch]; ++j) {
      params.push_back(f.ptr[inputs[k + j]]);
    }
    std::vector<uint8_t*> results;
    if (absl::Status s =
            RunComputation(*branches_[branch], params, *f.ctx, &results, {});
        !s.ok()) {
      return s;
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      const int64_t bytes = f.cc->slots[outputs[i]].bytes;
      if (bytes > 0) std::memcpy(f.ptr[outputs[i]], results[i], bytes);
    }
    return absl::OkStatus();
  }

 private:
  std::vector<const CompiledComputation*> branches_;
  std::vector<int> branch_leaves_;
  bool has_selector_;
  bool pred_selector_;
};

absl::Status RunComputation(const CompiledComputation& cc,
                            absl::Span<uint8_t* const> params, ExecContext& ctx,
                            std::vector<uint8_t*>* results,
                            absl::Span<void* const> bound_results) {
  AlignedMemory& arena = ctx.arenas[cc.id];
  if (absl::Status s = arena.Reserve(cc.arena_bytes); !s.ok()) return s;
  Frame f;
  f.cc = &cc;
  f.ctx = &ctx;
  f.ptr.resize(cc.slots.size());
  uint8_t* base = static_cast<uint8_t*>(arena.data());
  for (size_t s = 0; s < cc.slots.size(); ++s) {
    const Slot& slot = cc.slots[s];
    switch (slot.kind) {
      case SlotKind::kParameter:
        f.ptr[s] = params[slot.index];
        break;
      case SlotKind::kConstant:
        f.ptr[s] = const_cast<uint8_t*>(slot.constant);
        break;
      case SlotKind::kTemp:
        f.ptr[s] = base + slot.offset;
        break;
      case SlotKind::kResult:
        f.ptr[s] = static_cast<uint8_t*>(bound_results[slot.index]);
        break;
    }
  }
  for (const auto& t : cc.thunks) {
    if (absl::Status s = t->Run(f); !s.ok()) return s;
  }
  results->clear();
  for (int s : cc.result_leaves) results->push_back(f.ptr[s]);
  return absl::OkStatus();
}

// ---- Compilation
// ---------------------------------------------------------------

// (size, stride) of dims collapsed into one, if their strides allow it.
struct Collapsed {
  bool ok = true;
  int64_t size = 1;
  int64_t stride = 0;
};

Collapsed Collapse(const std::vector<int64_t>& strides, const Shape& s,
                   const std::vector<int64_t>& dims) {
  Collapsed c;
  int64_t prev_stride = -1;
  for (int64_t d : dims) {
    const int64_t n = s.dimensions(d);
    if (n == 1) continue;
    if (prev_stride != -1 && prev_stride != strides[d] * n) {
      c.ok = false;
      return c;
    }
    c.size *= n;
    c.stride = strides[d];
    prev_stride = strides[d];
  }
  if (c.size == 1) c.stride = 0;
  return c;
}

std::vector<int64_t> Range(int64_t lo, int64_t hi) {
  std::vector<int64_t> r;
  for (int64_t i = lo; i < hi; ++i) r.push_back(i);
  return r;
}

class ProgramCompiler {
 public:
  ProgramCompiler(const ProgramCompileOptions& options,
                  const CustomCallLookup& custom_calls, KernelModule* kernels,
                  ProgramStats* stats)
      : options_(options),
        custom_calls_(custom_calls),
        kernels_(kernels),
        stats_(stats) {}

  absl::StatusOr<CompiledComputation*> Compile(const Computation& c,
                                               bool is_entry);
  std::vector<std::unique_ptr<CompiledComputation>> TakeComputations() {
    return std::move(computations_);
  }
  std::vector<KernelThunk*>& kernel_thunks() { return kernel_thunks_; }
  std::vector<SortThunk*>& sort_thunks() { return sort_thunks_; }
  std::vector<std::unique_ptr<Literal>>& constants() { return constants_; }

 private:
  int NewSlot(CompiledComputation& cc, const Shape& shape, SlotKind kind) {
    Slot s;
    s.shape = WithLayout(shape);
    s.bytes = SlotBytes(s.shape);
    s.kind = kind;
    cc.slots.push_back(std::move(s));
    return static_cast<int>(cc.slots.size()) - 1;
  }
  std::vector<int> NewLeaves(CompiledComputation& cc, const Shape& shape) {
    std::vector<Shape> leaves;
    FlattenLeafShapes(shape, &leaves);
    std::vector<int> out;
    for (const Shape& l : leaves)
      out.push_back(NewSlot(cc, l, SlotKind::kTemp));
    return out;
  }
  absl::Status EmitInstruction(CompiledComputation& cc, const Instruction& h);
  absl::Status EmitDot(CompiledComputation& cc, const Instruction& h,
                       bool* handled);
  absl::Status EmitConv(CompiledComputation& cc, const Instruction& h,
                        bool* handled);
  void EmitReference(CompiledComputation& cc, const Instruction& h);
  void EmitDynamicUpdateSlice(CompiledComputation& cc, const Instruction& h,
                              bool* handled);
  // Lets each dynamic-update-slice or scatter of `c` whose operand buffer
  // nothing reads afterwards write into that buffer (see the definition).
  void MakeUpdatesInPlace(CompiledComputation& cc, const Computation& c,
                          bool parameters_writable);
  // True when `c` is called only as the body of while loops: its
  // parameters are then the loop state, which the body may overwrite.
  bool OnlyAWhileBody(const Computation& c);
  void Add(CompiledComputation& cc, std::unique_ptr<Thunk> t) {
    cc.thunks.push_back(std::move(t));
  }
  // A runtime thunk for `h`: it reads h's operands' leaves and writes new
  // leaves for h's result.
  void AddRuntimeThunk(CompiledComputation& cc, const Instruction& h,
                       std::unique_ptr<Thunk> t) {
    t->inputs = OperandLeaves(h);
    t->outputs = NewLeaves(cc, h.shape());
    leaves_[&h] = t->outputs;
    Add(cc, std::move(t));
    ++stats_->runtime_thunks;
  }
  std::vector<int> OperandLeaves(const Instruction& h) {
    std::vector<int> out;
    for (const Instruction* op : h.operands()) {
      const std::vector<int>& l = leaves_[op];
      out.insert(out.end(), l.begin(), l.end());
    }
    return out;
  }
  absl::Status AssignBuffersFor(CompiledComputation& cc, bool is_entry);
  absl::StatusOr<bool> FuseIntoConvolution(CompiledComputation& cc,
                                           const Instruction& h);
  absl::flat_hash_map<const Instruction*, ConvThunk<float>*> f32_convs_;

  const ProgramCompileOptions& options_;
  const CustomCallLookup& custom_calls_;
  KernelModule* kernels_;
  ProgramStats* stats_;
  std::vector<std::unique_ptr<CompiledComputation>> computations_;
  absl::flat_hash_map<const Computation*, CompiledComputation*> compiled_;
  absl::flat_hash_map<const Instruction*, std::vector<int>> leaves_;
  std::vector<KernelThunk*> kernel_thunks_;
  std::vector<SortThunk*> sort_thunks_;
  std::vector<std::unique_ptr<Literal>> constants_;
};

absl::StatusOr<CompiledComputation*> ProgramCompiler::Compile(
    const Computation& c, bool is_entry) {
  if (auto it = compiled_.find(&c); it != compiled_.end()) return it->second;
  auto owned = std::make_unique<CompiledComputation>();
  CompiledComputation& cc = *owned;
  cc.computation = &c;
  cc.id = static_cast<int>(computations_.size());
  computations_.push_back(std::move(owned));
  compiled_[&c] = &cc;

  // Parameters first: their leaves are numbered in order.
  int64_t param_leaf = 0;
  for (const Instruction* p : c.parameter_instructions()) {
    std::vector<Shape> shapes;
    FlattenLeafShapes(p->shape(), &shapes);
    std::vector<int> ls;
    for (const Shape& s : shapes) {
      const int slot = NewSlot(cc, s, SlotKind::kParameter);
      cc.slots[slot].index = param_leaf++;
      cc.param_leaves.push_back(slot);
      ls.push_back(slot);
    }
    leaves_[p] = std::move(ls);
  }
  for (const Instruction* h : c.MakeInstructionPostOrder()) {
    if (h->opcode() == HloOpcode::kParameter) continue;
    if (absl::Status s = EmitInstruction(cc, *h); !s.ok()) return s;
  }
  MakeUpdatesInPlace(cc, c, !is_entry && OnlyAWhileBody(c));
  // Results: a leaf that is a parameter, a constant or repeated is copied
  // into a fresh temporary, so a computation's results never alias its
  // inputs or each other (while bodies rely on it).
  std::vector<int> roots = leaves_[c.root_instruction()];
  absl::flat_hash_map<int, int> seen;
  for (size_t i = 0; i < roots.size(); ++i) {
    // A copy: NewSlot below may move the slots.
    const Slot slot = cc.slots[roots[i]];
    const bool fresh = slot.kind == SlotKind::kTemp && !seen.contains(roots[i]);
    seen[roots[i]] = 1;
    if (fresh) continue;
    if (!is_entry && slot.kind == SlotKind::kParameter &&
        slot.index == static_cast<int64_t>(i)) {
      continue;  // passes straight through (the while state stays put)
    }
    const int copy = NewSlot(cc, slot.shape, SlotKind::kTemp);
    Add(cc, std::make_unique<CopyThunk>(roots[i], copy, slot.bytes));
    roots[i] = copy;
  }
  cc.result_leaves = roots;
  if (is_entry) {
    // The caller's result buffers are the array leaves (tokens have none).
    int64_t next = 0;
    for (int root : roots) {
      if (cc.slots[root].shape.IsToken()) continue;
      cc.slots[root].kind = SlotKind::kResult;
      cc.slots[root].index = next++;
    }
  }
  if (absl::Status s = AssignBuffersFor(cc, is_entry); !s.ok()) return s;
  return &cc;
}

absl::Status ProgramCompiler::AssignBuffersFor(CompiledComputation& cc,
                                               bool is_entry) {
  (void)is_entry;
  const int64_t n = static_cast<int64_t>(cc.slots.size());
  std::vector<int64_t> def(n, -1), last(n, -1);
  for (size_t t = 0; t < cc.thunks.size(); ++t) {
    for (int s : cc.thunks[t]->outputs) {
      if (def[s] == -1) def[s] = static_cast<int64_t>(t);
      last[s] = std::max<int64_t>(last[s], static_cast<int64_t>(t));
    }
    for (int s : cc.thunks[t]->inputs) {
      last[s] = std::max<int64_t>(last[s], static_cast<int64_t>(t));
    }
  }
  const int64_t end = static_cast<int64_t>(cc.thunks.size());
  for (int s : cc.result_leaves) last[s] = end;
  std::vector<LiveValue> values;
  std::vector<int> which;
  for (int64_t s = 0; s < n; ++s) {
    if (cc.slots[s].kind != SlotKind::kTemp) continue;
    LiveValue v;
    v.bytes = cc.slots[s].bytes;
    v.def = def[s] == -1 ? 0 : def[s];
    v.last_use = std::max(v.def, last[s]);
    values.push_back(v);
    which.push_back(static_cast<int>(s));
  }
  BufferAssignment a = AssignBuffers(values);
  for (size_t i = 0; i < which.size(); ++i) {
    cc.slots[which[i]].offset = a.offsets[i];
  }
  cc.arena_bytes = a.arena_bytes;
  cc.unshared_bytes = a.total_bytes;
  stats_->peak_temp_bytes += a.arena_bytes;
  stats_->unshared_temp_bytes += a.total_bytes;
  return absl::OkStatus();
}

void ProgramCompiler::EmitDynamicUpdateSlice(CompiledComputation& cc,
                                             const Instruction& h,
                                             bool* handled) {
  const Shape result = WithLayout(h.shape());
  const Shape operand = WithLayout(h.operand(0)->shape());
  const Shape update = WithLayout(h.operand(1)->shape());
  const int64_t rank = result.rank();
  if (!ShapeUtil::IsDenseArray(result) || !ShapeUtil::IsDenseArray(operand) ||
      !ShapeUtil::IsDenseArray(update) ||
      !(LayoutUtil::EffectiveLayout(result) ==
        LayoutUtil::EffectiveLayout(operand)) ||
      h.operand_count() != 2 + rank) {
    return;
  }
  std::vector<PrimitiveType> index_types;
  for (int64_t i = 2; i < h.operand_count(); ++i) {
    const Shape& s = h.operand(i)->shape();
    if (!s.IsScalar() || !primitive_util::IsIntegralType(s.element_type())) {
      return;
    }
    index_types.push_back(s.element_type());
  }
  std::vector<int> inputs = OperandLeaves(h);
  std::vector<int> outputs = NewLeaves(cc, h.shape());
  auto t = std::make_unique<DusThunk>(cc.slots[outputs[0]].shape,
                                      cc.slots[inputs[1]].shape,
                                      std::move(index_types));
  t->inputs = std::move(inputs);
  t->outputs = std::move(outputs);
  leaves_[&h] = t->outputs;
  Add(cc, std::move(t));
  ++stats_->runtime_thunks;
  *handled = true;
}

// A dynamic-update-slice or a scatter (Thunk::CanUpdateInPlace) may write
// into its operand's buffer instead of a copy when no thunk after it reads
// that buffer (the operand is dead), the
// buffer is not a result of the computation, and it is a temporary of this
// computation or, in a while body, the loop state (WhileThunk hands the body
// its own state buffers; the condition has already run). The result then
// IS that buffer: later readers of the result and the computation's results
// are renamed to it. A scan's carried array is updated in place this way,
// and passes straight through the body (no copy per iteration).
void ProgramCompiler::MakeUpdatesInPlace(CompiledComputation& cc,
                                         const Computation& c,
                                         bool parameters_writable) {
  for (size_t p = 0; p < cc.thunks.size(); ++p) {
    Thunk* t = cc.thunks[p].get();
    if (!t->CanUpdateInPlace()) continue;
    const int s = t->inputs[0];
    const int r = t->outputs[0];
    const SlotKind kind = cc.slots[s].kind;
    if (kind != SlotKind::kTemp &&
        !(parameters_writable && kind == SlotKind::kParameter)) {
      continue;
    }
    const std::vector<int>& roots = leaves_[c.root_instruction()];
    bool read = std::find(roots.begin(), roots.end(), s) != roots.end();
    for (size_t i = 1; i < t->inputs.size(); ++i) read |= t->inputs[i] == s;
    for (size_t q = p + 1; q < cc.thunks.size() && !read; ++q) {
      for (int i : cc.thunks[q]->inputs) read |= i == s;
    }
    if (read) continue;
    for (size_t q = p + 1; q < cc.thunks.size(); ++q) {
      for (int& i : cc.thunks[q]->inputs) {
        if (i == r) i = s;
      }
    }
    for (const Instruction* inst : c.instructions()) {
      auto it = leaves_.find(inst);
      if (it == leaves_.end()) continue;
      for (int& l : it->second) {
        if (l == r) l = s;
      }
    }
    t->outputs[0] = s;
    cc.slots[r].bytes = 0;  // never used now
    ++stats_->in_place_updates;
  }
}

bool ProgramCompiler::OnlyAWhileBody(const Computation& c) {
  bool body = false;
  for (const Computation* other : c.parent()->computations()) {
    for (const Instruction* inst : other->instructions()) {
      for (const Computation* called : inst->called_computations()) {
        if (called != &c) continue;
        if (inst->opcode() == HloOpcode::kWhile && inst->while_body() == &c &&
            inst->while_condition() != &c) {
          body = true;
        } else {
          return false;
        }
      }
    }
  }
  return body;
}

void ProgramCompiler::EmitReference(CompiledComputation& cc,
                                    const Instruction& h) {
  auto t = std::make_unique<ReferenceThunk>(&h);
  t->inputs = OperandLeaves(h);
  t->outputs = NewLeaves(cc, h.shape());
  leaves_[&h] = t->outputs;
  Add(cc, std::move(t));
  ++stats_->reference_thunks;
  const std::string op(HloOpcodeString(h.opcode()));
  if (std::find(stats_->reference_ops.begin(), stats_->reference_ops.end(),
                op) == stats_->reference_ops.end()) {
    stats_->reference_ops.push_back(op);
  }
}

absl::Status ProgramCompiler::EmitDot(CompiledComputation& cc,
                                      const Instruction& h, bool* handled) {
  *handled = false;
  const Shape& ls = h.operand(0)->shape();
  const Shape& rs = h.operand(1)->shape();
  const Shape out = WithLayout(h.shape());
  const PrimitiveType t = out.element_type();
  if ((t != PrimitiveType::F32 && t != PrimitiveType::F64) ||
      ls.element_type() != t || rs.element_type() != t ||
      !ShapeUtil::IsDenseArray(ls) || !ShapeUtil::IsDenseArray(rs) ||
      !ShapeUtil::IsDenseArray(out)) {
    return absl::OkStatus();
  }
  const DotDimensionNumbers& dn = *h.attrs().dot_dimension_numbers;
  auto free_dims = [](const Shape& s, const std::vector<int64_t>& batch,
                      const std::vector<int64_t>& contract) {
    std::vector<int64_t> f;
    for (int64_t d = 0; d < s.rank(); ++d) {
      if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
          std::find(contract.begin(), contract.end(), d) == contract.end()) {
        f.push_back(d);
      }
    }
    return f;
  };
  const std::vector<int64_t> lf =
      free_dims(ls, dn.lhs_batch_dimensions, dn.lhs_contracting_dimensions);
  const std::vector<int64_t> rf =
      free_dims(rs, dn.rhs_batch_dimensions, dn.rhs_contracting_dimensions);
  const std::vector<int64_t> lst = IndexUtil::LayoutStrides(ls),
                             rst = IndexUtil::LayoutStrides(rs),
                             ost = IndexUtil::LayoutStrides(out);
  const int64_t nb = static_cast<int64_t>(dn.lhs_batch_dimensions.size());
  const int64_t nlf = static_cast<int64_t>(lf.size());
  const Collapsed lb = Collapse(lst, ls, dn.lhs_batch_dimensions);
  const Collapsed rb = Collapse(rst, rs, dn.rhs_batch_dimensions);
  const Collapsed ob = Collapse(ost, out, Range(0, nb));
  const Collapsed lm = Collapse(lst, ls, lf);
  const Collapsed lk = Collapse(lst, ls, dn.lhs_contracting_dimensions);
  const Collapsed rk = Collapse(rst, rs, dn.rhs_contracting_dimensions);
  const Collapsed rn = Collapse(rst, rs, rf);
  const Collapsed om = Collapse(ost, out, Range(nb, nb + nlf));
  const Collapsed on = Collapse(ost, out, Range(nb + nlf, out.rank()));
  if (!(lb.ok && rb.ok && ob.ok && lm.ok && lk.ok && rk.ok && rn.ok && om.ok &&
        on.ok)) {
    return absl::OkStatus();
  }
  auto make = [&](auto tag) -> std::unique_ptr<Thunk> {
    using T = decltype(tag);
    GemmArgs<T> a{};
    a.a = nullptr;
    a.b = nullptr;
    a.c = nullptr;
    a.batch_count = lb.size;
    a.accumulate = false;
    const int64_t m = lm.size, n = rn.size, k = lk.size;
    const int64_t cm = om.size == 1 ? 0 : om.stride;
    const int64_t cn = on.size == 1 ? 1 : on.stride;
    std::unique_ptr<GemmThunk<T>> thunk;
    if (cn == 1 && (m == 1 || cm >= n)) {
      a.m = m;
      a.n = n;
      a.k = k;
      a.a_row_stride = lm.stride;
      a.a_col_stride = lk.stride;
      a.b_row_stride = rk.stride;
      a.b_col_stride = rn.stride;
      a.ldc = m == 1 ? n : cm;
      a.a_batch_stride = lb.stride;
      a.b_batch_stride = rb.stride;
      a.c_batch_stride = ob.stride;
      thunk = std::make_unique<GemmThunk<T>>(a);
      thunk->a_operand_ = 0;
    } else if ((om.size == 1 || om.stride == 1) && (n == 1 || cn >= m)) {
      // C^T[n, m] = B^T A^T.
      a.m = n;
      a.n = m;
      a.k = k;
      a.a_row_stride = rn.stride;
      a.a_col_stride = rk.stride;
      a.b_row_stride = lk.stride;
      a.b_col_stride = lm.stride;
      a.ldc = n == 1 ? m : cn;
      a.a_batch_stride = rb.stride;
      a.b_batch_stride = lb.stride;
      a.c_batch_stride = ob.stride;
      thunk = std::make_unique<GemmThunk<T>>(a);
      thunk->a_operand_ = 1;
    } else {
      return nullptr;
    }
    return thunk;
  };
  std::unique_ptr<Thunk> thunk =
      t == PrimitiveType::F32 ? make(float{}) : make(double{});
  if (thunk == nullptr) return absl::OkStatus();
  thunk->inputs = OperandLeaves(h);
  thunk->outputs = NewLeaves(cc, h.shape());
  leaves_[&h] = thunk->outputs;
  Add(cc, std::move(thunk));
  ++stats_->runtime_thunks;
  *handled = true;
  return absl::OkStatus();
}

absl::Status ProgramCompiler::EmitConv(CompiledComputation& cc,
                                       const Instruction& h, bool* handled) {
  *handled = false;
  const Shape& ls = h.operand(0)->shape();
  const Shape& rs = h.operand(1)->shape();
  const Shape out = WithLayout(h.shape());
  const PrimitiveType t = out.element_type();
  if ((t != PrimitiveType::F32 && t != PrimitiveType::F64) ||
      ls.element_type() != t || rs.element_type() != t ||
      !ShapeUtil::IsDenseArray(ls) || !ShapeUtil::IsDenseArray(rs) ||
      !ShapeUtil::IsDenseArray(out) ||
      !h.attrs().convolution_dimension_numbers.has_value()) {
    return absl::OkStatus();
  }
  const ConvolutionDimensionNumbers& dn =
      *h.attrs().convolution_dimension_numbers;
  const std::vector<int64_t> lst = IndexUtil::LayoutStrides(ls),
                             rst = IndexUtil::LayoutStrides(rs),
                             ost = IndexUtil::LayoutStrides(out);
  ConvDims d;
  d.num_spatial = static_cast<int>(dn.input_spatial_dimensions.size());
  d.batch = ls.dimensions(dn.input_batch_dimension);
  d.in_features = ls.dimensions(dn.input_feature_dimension);
  d.out_features = rs.dimensions(dn.kernel_output_feature_dimension);
  d.lhs_batch_stride = lst[dn.input_batch_dimension];
  d.lhs_feature_stride = lst[dn.input_feature_dimension];
  d.rhs_in_stride = rst[dn.kernel_input_feature_dimension];
  d.rhs_out_stride = rst[dn.kernel_output_feature_dimension];
  d.out_batch_stride = ost[dn.output_batch_dimension];
  d.out_feature_stride = ost[dn.output_feature_dimension];
  for (int i = 0; i < d.num_spatial; ++i) {
    const int64_t li = dn.input_spatial_dimensions[i];
    const int64_t ki = dn.kernel_spatial_dimensions[i];
    const int64_t oi = dn.output_spatial_dimensions[i];
    d.in_spatial.push_back(ls.dimensions(li));
    d.kernel_spatial.push_back(rs.dimensions(ki));
    d.out_spatial.push_back(out.dimensions(oi));
    d.lhs_spatial_strides.push_back(lst[li]);
    d.rhs_spatial_strides.push_back(rst[ki]);
    d.out_spatial_strides.push_back(ost[oi]);
    WindowDimension w;
    if (h.attrs().window.has_value() &&
        i < static_cast<int>(h.attrs().window->dimensions.size())) {
      w = h.attrs().window->dimensions[i];
    }
    d.window_strides.push_back(w.stride);
    d.padding_low.push_back(w.padding_low);
    d.padding_high.push_back(w.padding_high);
    d.lhs_dilation.push_back(w.base_dilation);
    d.rhs_dilation.push_back(w.window_dilation);
    d.window_reversal.push_back(w.window_reversal);
  }
  d.feature_group_count = h.attrs().feature_group_count;
  d.batch_group_count = h.attrs().batch_group_count;
  std::unique_ptr<Thunk> thunk;
  if (t == PrimitiveType::F32) {
    auto conv = std::make_unique<ConvThunk<float>>(std::move(d));
    f32_convs_[&h] = conv.get();
    thunk = std::move(conv);
  } else {
    thunk = std::make_unique<ConvThunk<double>>(std::move(d));
  }
  thunk->inputs = OperandLeaves(h);
  thunk->outputs = NewLeaves(cc, h.shape());
  leaves_[&h] = thunk->outputs;
  Add(cc, std::move(thunk));
  ++stats_->runtime_thunks;
  *handled = true;
  return absl::OkStatus();
}

// A loop fusion whose only use of a f32 convolution is elementwise (its
// result element i reads the convolution's element i) and which is that
// convolution's only user becomes the convolution's epilogue: it runs on
// each block of rows the convolution finishes, while they are in cache.
absl::StatusOr<bool> ProgramCompiler::FuseIntoConvolution(
    CompiledComputation& cc, const Instruction& h) {
  if (h.opcode() != HloOpcode::kFusion ||
      h.attrs().fusion_kind != FusionKind::kLoop) {
    return false;
  }
  int64_t k = -1;
  for (int64_t i = 0; i < h.operand_count(); ++i) {
    if (f32_convs_.contains(h.operand(i))) {
      if (k >= 0) return false;  // two convolutions (or the same twice)
      k = i;
    }
  }
  if (k < 0) return false;
  const Instruction* conv = h.operand(k);
  ConvThunk<float>* thunk = f32_convs_[conv];
  if (conv->user_count() != 1 || conv->parent() != h.parent()) return false;
  const Shape out = WithLayout(h.shape());
  const Shape conv_out = WithLayout(conv->shape());
  if (out.dimensions() != conv_out.dimensions() ||
      !(LayoutUtil::EffectiveLayout(out) ==
        LayoutUtil::EffectiveLayout(conv_out))) {
    return false;
  }
  // Everything that depends on the convolution inside the fusion is
  // elementwise over the result's dimensions.
  const Computation& fused = *h.to_apply();
  std::vector<const Instruction*> work = {fused.parameter_instruction(k)};
  absl::flat_hash_set<const Instruction*> seen;
  while (!work.empty()) {
    const Instruction* x = work.back();
    work.pop_back();
    for (const Instruction* u : x->users()) {
      if (!seen.insert(u).second) continue;
      if (!IsElementwise(u->opcode()) ||
          u->shape().dimensions() != out.dimensions()) {
        return false;
      }
      work.push_back(u);
    }
  }
  const ConvolutionDimensionNumbers& dn =
      *conv->attrs().convolution_dimension_numbers;
  const int64_t batch_dim = dn.output_batch_dimension;
  const int64_t spatial0 = dn.output_spatial_dimensions.size() >= 2
                               ? dn.output_spatial_dimensions[0]
                               : -1;
  const int64_t minor = LayoutUtil::EffectiveLayout(out).minor_to_major(0);
  if (minor == batch_dim || minor == spatial0) return false;
  auto it = std::find_if(cc.thunks.begin(), cc.thunks.end(),
                         [&](const auto& t) { return t.get() == thunk; });
  if (it == cc.thunks.end()) return false;
  const std::string name = absl::StrCat("plexa_k", kernel_thunks_.size());
  absl::StatusOr<KernelShape> ks = kernels_->AddKernel(h, name);
  if (!ks.ok()) return false;  // the ordinary path decides what runs it
  // The convolution's thunk moves here (after the epilogue's other
  // operands); nothing between needs its result (this is its only user).
  std::unique_ptr<Thunk> owned = std::move(*it);
  cc.thunks.erase(it);
  auto kt = std::make_unique<KernelThunk>(name, *ks);
  kt->inputs = OperandLeaves(h);
  kt->outputs = NewLeaves(cc, h.shape());
  leaves_[&h] = kt->outputs;
  kernel_thunks_.push_back(kt.get());
  ++stats_->kernels;
  // The combined thunk reads the epilogue's operands and writes both
  // results (the convolution's stays a temporary the epilogue reads).
  for (int s : kt->inputs) thunk->inputs.push_back(s);
  for (int s : kt->outputs) thunk->outputs.push_back(s);
  thunk->SetEpilogue(std::move(kt), out, batch_dim, spatial0);
  ++stats_->conv_epilogues;
  Add(cc, std::move(owned));
  return true;
}

absl::Status ProgramCompiler::EmitInstruction(CompiledComputation& cc,
                                              const Instruction& h) {
  switch (h.opcode()) {
    case HloOpcode::kTuple:
      leaves_[&h] = OperandLeaves(h);
      return absl::OkStatus();
    case HloOpcode::kOptimizationBarrier:
      leaves_[&h] = OperandLeaves(h);  // a copy (inserting may rehash)
      return absl::OkStatus();
    case HloOpcode::kGetTupleElement: {
      const Shape& ts = h.operand(0)->shape();
      int64_t start = 0;
      for (int64_t i = 0; i < h.tuple_index(); ++i) {
        start += LeafCount(ts.tuple_shapes(i));
      }
      const std::vector<int>& all = leaves_[h.operand(0)];
      const int64_t count = LeafCount(h.shape());
      leaves_[&h] =
          std::vector<int>(all.begin() + start, all.begin() + start + count);
      return absl::OkStatus();
    }
    case HloOpcode::kConstant: {
      const Literal& lit = h.literal();
      std::vector<Literal> leaf_values;
      std::function<void(const Literal&)> flatten = [&](const Literal& l) {
        if (l.shape().IsTuple()) {
          for (Literal& e : Literal(l).DecomposeTuple()) flatten(e);
        } else {
          leaf_values.push_back(Literal(l));
        }
      };
      flatten(lit);
      std::vector<Shape> shapes;
      FlattenLeafShapes(h.shape(), &shapes);
      std::vector<int> ls;
      for (size_t i = 0; i < shapes.size(); ++i) {
        Literal v = std::move(leaf_values[i]);
        const Layout want = LayoutUtil::EffectiveLayout(shapes[i]);
        if (shapes[i].IsArray() &&
            !(LayoutUtil::EffectiveLayout(v.shape()) == want)) {
          absl::StatusOr<Literal> relaid = v.Relayout(want);
          if (!relaid.ok()) return relaid.status();
          v = std::move(*relaid);
        }
        constants_.push_back(std::make_unique<Literal>(std::move(v)));
        const int slot = NewSlot(cc, shapes[i], SlotKind::kConstant);
        cc.slots[slot].constant = constants_.back()->data().data();
        ls.push_back(slot);
      }
      leaves_[&h] = std::move(ls);
      return absl::OkStatus();
    }
    case HloOpcode::kWhile: {
      absl::StatusOr<CompiledComputation*> cond =
          Compile(*h.while_condition(), false);
      if (!cond.ok()) return cond.status();
      absl::StatusOr<CompiledComputation*> body =
          Compile(*h.while_body(), false);
      if (!body.ok()) return body.status();
      auto t = std::make_unique<WhileThunk>(*cond, *body);
      AddRuntimeThunk(cc, h, std::move(t));
      return absl::OkStatus();
    }
    case HloOpcode::kConditional:
    case HloOpcode::kCall: {
      const bool is_call = h.opcode() == HloOpcode::kCall;
      std::vector<const CompiledComputation*> branches;
      for (const Computation* c : h.called_computations()) {
        absl::StatusOr<CompiledComputation*> b = Compile(*c, false);
        if (!b.ok()) return b.status();
        branches.push_back(*b);
      }
      std::vector<int> branch_leaves;
      std::vector<int> inputs;
      if (is_call) {
        inputs = OperandLeaves(h);
        branch_leaves.push_back(static_cast<int>(inputs.size()));
      } else {
        inputs = leaves_[h.operand(0)];
        for (int64_t i = 1; i < h.operand_count(); ++i) {
          const std::vector<int>& l = leaves_[h.operand(i)];
          inputs.insert(inputs.end(), l.begin(), l.end());
          branch_leaves.push_back(static_cast<int>(l.size()));
        }
      }
      const bool pred = !is_call && h.operand(0)->shape().element_type() ==
                                        PrimitiveType::PRED;
      auto t = std::make_unique<BranchThunk>(
          std::move(branches), std::move(branch_leaves), !is_call, pred);
      t->inputs = std::move(inputs);
      t->outputs = NewLeaves(cc, h.shape());
      leaves_[&h] = t->outputs;
      Add(cc, std::move(t));
      ++stats_->runtime_thunks;
      return absl::OkStatus();
    }
    case HloOpcode::kCustomCall: {
      const std::string& target = h.attrs().custom_call_target;
      absl::StatusOr<CustomCallTargetFn> fn = custom_calls_(target);
      if (!fn.ok()) {
        return absl::Status(
            fn.status().code(),
            absl::StrCat(h.name(), ": ", fn.status().message()));
      }
      if (fn->api_version != 0 && fn->api_version != 1) {
        return absl::UnimplementedError(absl::StrCat(
            h.name(), ": custom-call target '", target, "' has api_version ",
            fn->api_version, "; the CPU plugin calls 0 and 1"));
      }
      if (h.attrs().api_version == CustomCallApiVersion::kTypedFfi &&
          fn->api_version != 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            h.name(), ": the program calls '", target,
            "' with api_version=API_VERSION_TYPED_FFI but the target is "
            "registered with api_version 0 (void(void*, const void**))"));
      }
      std::vector<int> counts;
      for (const Instruction* op : h.operands()) {
        counts.push_back(op->shape().IsTuple()
                             ? static_cast<int>(LeafCount(op->shape()))
                             : -1);
      }
      auto t = std::make_unique<CustomCallThunk>(
          *fn, h.name(), std::move(counts), h.shape().IsTuple(),
          h.attrs().backend_config);
      AddRuntimeThunk(cc, h, std::move(t));
      return absl::OkStatus();
    }
    case HloOpcode::kScatter: {
      std::optional<ScatterDesc> desc = MakeScatterDesc(h);
      if (!desc.has_value()) {
        EmitReference(cc, h);  // variadic, other types or computations
        return absl::OkStatus();
      }
      auto t = std::make_unique<ScatterThunk>(
          std::move(*desc), WithLayout(h.operand(0)->shape()));
      AddRuntimeThunk(cc, h, std::move(t));
      return absl::OkStatus();
    }
    case HloOpcode::kSelectAndScatter: {
      std::unique_ptr<Thunk> t = MakeSelectAndScatter(h);
      if (t == nullptr) {
        EmitReference(cc, h);  // dilated windows, other computations
        return absl::OkStatus();
      }
      AddRuntimeThunk(cc, h, std::move(t));
      return absl::OkStatus();
    }
    case HloOpcode::kAllReduce: {
      const Instruction* root = h.to_apply()->root_instruction();
      const HloOpcode r = root->opcode();
      const bool matched =
          (r == HloOpcode::kAdd || r == HloOpcode::kMultiply ||
           r == HloOpcode::kMaximum || r == HloOpcode::kMinimum ||
           r == HloOpcode::kAnd || r == HloOpcode::kOr) &&
          root->operand(0)->opcode() == HloOpcode::kParameter &&
          root->operand(1)->opcode() == HloOpcode::kParameter;
      std::vector<Shape> shapes;
      FlattenLeafShapes(h.shape(), &shapes);
      bool types_ok = true;
      for (const Shape& s : shapes) {
        const PrimitiveType et = s.element_type();
        types_ok &= et == PrimitiveType::F32 || et == PrimitiveType::F64 ||
                    primitive_util::IsIntegralType(et) ||
                    et == PrimitiveType::PRED;
        types_ok &= ShapeUtil::IsDenseArray(s);
      }
      if ((r == HloOpcode::kAnd || r == HloOpcode::kOr)) {
        for (const Shape& s : shapes) {
          types_ok &= !primitive_util::IsFloatingPointType(s.element_type());
        }
      }
      if (!matched || !types_ok) {
        if (options_.num_replicas == 1) {
          EmitReference(cc, h);  // one replica: the identity
          return absl::OkStatus();
        }
        return absl::UnimplementedError(absl::StrCat(
            h.name(),
            ": all-reduce across replicas supports the reducers "
            "add, multiply, maximum, minimum, and, or on f32, f64, "
            "integers and pred; this one applies ",
            h.to_apply()->name()));
      }
      auto t = std::make_unique<AllReduceThunk>(r, std::move(shapes),
                                                h.attrs().replica_groups);
      AddRuntimeThunk(cc, h, std::move(t));
      return absl::OkStatus();
    }
    case HloOpcode::kSort: {
      std::vector<Shape> shapes;
      bool ok = KernelModule::CanEmitComparator(*h.to_apply()).ok();
      for (const Instruction* op : h.operands()) {
        ok &= ShapeUtil::IsDenseArray(op->shape()) && op->shape().rank() > 0;
        shapes.push_back(WithLayout(op->shape()));
      }
      std::vector<Shape> out_shapes;
      FlattenLeafShapes(h.shape(), &out_shapes);
      for (size_t i = 0; ok && i < out_shapes.size(); ++i) {
        ok &= LayoutUtil::EffectiveLayout(out_shapes[i]) ==
              LayoutUtil::EffectiveLayout(shapes[i]);
      }
      if (!ok) {
        EmitReference(cc, h);
        return absl::OkStatus();
      }
      const std::string name = absl::StrCat("plexa_cmp", sort_thunks_.size());
      if (absl::Status s = kernels_->AddComparator(*h.to_apply(), name);
          !s.ok()) {
        return s;
      }
      auto t =
          std::make_unique<SortThunk>(name, std::move(shapes), h.dimensions(0));
      t->inputs = OperandLeaves(h);
      t->outputs = NewLeaves(cc, h.shape());
      leaves_[&h] = t->outputs;
      sort_thunks_.push_back(t.get());
      Add(cc, std::move(t));
      ++stats_->runtime_thunks;
      return absl::OkStatus();
    }
    case HloOpcode::kInfeed:
    case HloOpcode::kOutfeed:
      // Through the evaluator, which talks to the execution's HostFeeds
      // (ExecContext::feeds): feeds are host round trips, not kernels.
      EmitReference(cc, h);
      ++stats_->runtime_thunks;
      return absl::OkStatus();
    case HloOpcode::kDot: {
      bool handled = false;
      if (absl::Status s = EmitDot(cc, h, &handled); !s.ok()) return s;
      if (!handled) EmitReference(cc, h);
      return absl::OkStatus();
    }
    case HloOpcode::kConvolution: {
      bool handled = false;
      if (absl::Status s = EmitConv(cc, h, &handled); !s.ok()) return s;
      if (!handled) EmitReference(cc, h);
      return absl::OkStatus();
    }
    case HloOpcode::kDynamicUpdateSlice: {
      bool handled = false;
      EmitDynamicUpdateSlice(cc, h, &handled);
      if (handled) return absl::OkStatus();
      break;  // a generated kernel (other layouts)
    }
    default:
      break;
  }
  if (KernelModule::CanEmit(h).ok()) {
    if (absl::StatusOr<bool> fused = FuseIntoConvolution(cc, h);
        !fused.ok() || *fused) {
      return fused.status();
    }
    const std::string name = absl::StrCat("plexa_k", kernel_thunks_.size());
    absl::StatusOr<KernelShape> ks = kernels_->AddKernel(h, name);
    if (!ks.ok()) {
      // An operation the emitter turned down after all: the reference
      // kernel runs it.
      EmitReference(cc, h);
      return absl::OkStatus();
    }
    auto t = std::make_unique<KernelThunk>(name, *ks);
    t->inputs = OperandLeaves(h);
    t->outputs = NewLeaves(cc, h.shape());
    leaves_[&h] = t->outputs;
    kernel_thunks_.push_back(t.get());
    Add(cc, std::move(t));
    ++stats_->kernels;
    return absl::OkStatus();
  }
  EmitReference(cc, h);
  return absl::OkStatus();
}

}  // namespace

// ---- CpuProgram
// -----------------------------------------------------------------

struct CpuProgram::State {
  std::vector<std::unique_ptr<CompiledComputation>> computations;
  CompiledComputation* entry = nullptr;
  std::vector<std::unique_ptr<Literal>> constants;
  std::unique_ptr<JitLibrary> library;
  // Arenas of finished runs, reused by the next ones (no allocation or
  // page faults per execution once warm). One set per concurrent run.
  std::mutex arenas_mu;
  std::vector<std::vector<AlignedMemory>> free_arenas;
};

CpuProgram::~CpuProgram() = default;

std::string CpuProgram::object_code() const {
  return PackObjects(state_->library ? state_->library->objects()
                                     : std::vector<std::string>{});
}

absl::StatusOr<std::shared_ptr<const CpuProgram>> CompileProgram(
    std::unique_ptr<Module> module, const ProgramCompileOptions& options,
    const CustomCallLookup& custom_calls) {
  const auto start = std::chrono::steady_clock::now();
  std::shared_ptr<CpuProgram> program(new CpuProgram());
  program->state_ = std::make_unique<CpuProgram::State>();
  KernelModule kernels(module->name(), options.compile_threads);
  ProgramCompiler compiler(options, custom_calls, &kernels, &program->stats_);
  absl::StatusOr<CompiledComputation*> entry =
      compiler.Compile(*module->entry_computation(), /*is_entry=*/true);
  if (!entry.ok()) return entry.status();
  CpuProgram::State& st = *program->state_;
  st.entry = *entry;
  st.computations = compiler.TakeComputations();
  st.constants = std::move(compiler.constants());

  if (!compiler.kernel_thunks().empty() || !compiler.sort_thunks().empty()) {
    std::vector<std::string> objects;
    if (options.object_code != nullptr) {
      absl::StatusOr<std::vector<std::string>> unpacked =
          UnpackObjects(*options.object_code);
      if (!unpacked.ok()) return unpacked.status();
      objects = std::move(*unpacked);
    } else {
      absl::StatusOr<std::vector<std::string>> compiled =
          kernels.Compile(options.ir_dump);
      if (!compiled.ok()) return compiled.status();
      objects = std::move(*compiled);
    }
    absl::StatusOr<std::unique_ptr<JitLibrary>> lib =
        JitLibrary::Load(std::move(objects));
    if (!lib.ok()) return lib.status();
    st.library = std::move(*lib);
    for (KernelThunk* t : compiler.kernel_thunks()) {
      absl::StatusOr<void*> fn = st.library->Lookup(t->name());
      if (!fn.ok()) return fn.status();
      t->set_fn(reinterpret_cast<KernelFn>(*fn));
    }
    for (SortThunk* t : compiler.sort_thunks()) {
      absl::StatusOr<void*> fn = st.library->Lookup(t->name());
      if (!fn.ok()) return fn.status();
      t->set_fn(reinterpret_cast<ComparatorFn>(*fn));
    }
  }
  // The ABI's flattening: array leaves only (tokens hold no data).
  for (int s : st.entry->param_leaves) {
    const Shape& shape = st.entry->slots[s].shape;
    if (shape.IsArray()) program->parameter_shapes_.push_back(shape);
  }
  for (int s : st.entry->result_leaves) {
    const Shape& shape = st.entry->slots[s].shape;
    if (shape.IsArray()) program->result_shapes_.push_back(shape);
  }
  program->module_ = std::move(module);
  program->stats_.compile_ms = std::chrono::duration<double, std::milli>(
                                   std::chrono::steady_clock::now() - start)
                                   .count();
  return std::shared_ptr<const CpuProgram>(std::move(program));
}

absl::Status CpuProgram::Run(absl::Span<const void* const> args,
                             absl::Span<void* const> results, ThreadPool* pool,
                             int64_t replica_id, int64_t replica_count,
                             ReplicaHub* hub, HostFeeds* feeds) const {
  const CompiledComputation& entry = *state_->entry;
  // Entry parameters arrive as their array leaves; token leaves have no
  // memory.
  if (args.size() != parameter_shapes_.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the program takes ", parameter_shapes_.size(),
                     " parameter arrays, got ", args.size()));
  }
  ExecContext ctx;
  ctx.pool = pool;
  ctx.replica_id = replica_id;
  ctx.replica_count = replica_count;
  ctx.hub = hub;
  ctx.feeds = feeds;
  {
    std::lock_guard<std::mutex> lock(state_->arenas_mu);
    if (!state_->free_arenas.empty()) {
      ctx.arenas = std::move(state_->free_arenas.back());
      state_->free_arenas.pop_back();
    }
  }
  ctx.arenas.resize(state_->computations.size());
  std::vector<uint8_t*> params;
  size_t next = 0;
  for (int s : entry.param_leaves) {
    params.push_back(
        entry.slots[s].shape.IsToken()
            ? nullptr
            : static_cast<uint8_t*>(const_cast<void*>(args[next++])));
  }
  std::vector<uint8_t*> out;
  absl::Status status = RunComputation(entry, params, ctx, &out, results);
  std::lock_guard<std::mutex> lock(state_->arenas_mu);
  state_->free_arenas.push_back(std::move(ctx.arenas));
  return status;
}

// ---- ReplicaHub
// -------------------------------------------------------------------

struct ReplicaHub::Impl {
  int64_t n;
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::vector<const void*>> slots;
  int64_t arrived = 0;
  int64_t left = 0;
  int64_t generation = 0;
  absl::Status cancelled;
};

ReplicaHub::ReplicaHub(int64_t replica_count)
    : impl_(std::make_unique<Impl>()) {
  impl_->n = replica_count;
  impl_->slots.resize(replica_count);
}
ReplicaHub::~ReplicaHub() = default;

absl::StatusOr<std::vector<std::vector<const void*>>> ReplicaHub::Arrive(
    int64_t replica, std::vector<const void*> leaves) {
  Impl& m = *impl_;
  std::unique_lock<std::mutex> lock(m.mu);
  // Wait for the previous exchange to be fully left.
  m.cv.wait(lock, [&] { return !m.cancelled.ok() || m.left == 0; });
  if (!m.cancelled.ok()) return m.cancelled;
  m.slots[replica] = std::move(leaves);
  const int64_t gen = m.generation;
  if (++m.arrived == m.n) {
    m.arrived = 0;
    m.left = m.n;
    ++m.generation;
    m.cv.notify_all();
  } else {
    m.cv.wait(lock, [&] { return !m.cancelled.ok() || m.generation != gen; });
    if (!m.cancelled.ok()) return m.cancelled;
  }
  return m.slots;
}

absl::Status ReplicaHub::Leave() {
  Impl& m = *impl_;
  std::unique_lock<std::mutex> lock(m.mu);
  if (--m.left == 0) m.cv.notify_all();
  // Nobody may reuse the inputs until every replica has read them.
  m.cv.wait(lock, [&] { return !m.cancelled.ok() || m.left == 0; });
  return m.cancelled;
}

void ReplicaHub::Cancel(const absl::Status& status) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (impl_->cancelled.ok()) impl_->cancelled = status;
  impl_->cv.notify_all();
}

}  // namespace plexa::cpu
