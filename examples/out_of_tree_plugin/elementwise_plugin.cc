// libplexa_plugin_elementwise.so: a complete Plexa backend plugin built out
// of tree, against an installed Plexa (find_package(Plexa), Plexa::sdk).
//
// It runs f32 elementwise programs with its own kernels (parameters,
// constants, abs/negate/exp/log/sqrt/tanh, add/subtract/multiply/divide/
// maximum/minimum/power) and rejects any other program at compile time with
// an error naming the instruction. The SDK does the rest: argument checks,
// handles, errors, events, the C table.
//
//   plexa run --no-opt --print axpy.hlo
//       --backend=./libplexa_plugin_elementwise.so
#include <cmath>
#include <cstring>
#include <map>

#include "abi/sdk/plugin.h"
#include "absl/strings/str_cat.h"
#include "core/ir/computation.h"
#include "core/ir/instruction.h"
#include "core/literal/literal.h"
#include "core/shape/layout_util.h"

namespace {
using namespace plexa;              // NOLINT: an example, kept short
using Values = std::vector<float>;  // always row-major

const std::map<HloOpcode, float (*)(float)> kUnary = {
    {HloOpcode::kAbs, [](float a) { return std::fabs(a); }},
    {HloOpcode::kNegate, [](float a) { return -a; }},
    {HloOpcode::kExp, [](float a) { return std::exp(a); }},
    {HloOpcode::kLog, [](float a) { return std::log(a); }},
    {HloOpcode::kSqrt, [](float a) { return std::sqrt(a); }},
    {HloOpcode::kTanh, [](float a) { return std::tanh(a); }}};
const std::map<HloOpcode, float (*)(float, float)> kBinary = {
    {HloOpcode::kAdd, [](float a, float b) { return a + b; }},
    {HloOpcode::kSubtract, [](float a, float b) { return a - b; }},
    {HloOpcode::kMultiply, [](float a, float b) { return a * b; }},
    {HloOpcode::kDivide, [](float a, float b) { return a / b; }},
    {HloOpcode::kMaximum,  // XLA: NaN wins
     [](float a, float b) {
       return std::isnan(a) || std::isnan(b) ? NAN : std::fmax(a, b);
     }},
    {HloOpcode::kMinimum,
     [](float a, float b) {
       return std::isnan(a) || std::isnan(b) ? NAN : std::fmin(a, b);
     }},
    {HloOpcode::kPower, [](float a, float b) { return std::pow(a, b); }}};

// Row-major floats of an f32 literal in any layout.
absl::StatusOr<Values> RowMajor(const Literal& literal) {
  auto row_major = literal.Relayout(
      LayoutUtil::GetDefaultLayoutForRank(literal.shape().dimensions().size()));
  if (!row_major.ok()) return row_major.status();
  Values v(row_major->data().size() / sizeof(float));
  std::memcpy(v.data(), row_major->data().data(), row_major->data().size());
  return v;
}

class ElementwiseBuffer : public sdk::Buffer {
 public:
  ElementwiseBuffer(Shape shape, sdk::Device* device, Values values)
      : Buffer(std::move(shape), device), values_(std::move(values)) {}
  const Values& values() const { return values_; }
  size_t on_device_size() const override { return values_.size() * 4; }
  absl::Status ToHost(void* dst, const Shape& host_shape) override {
    Literal literal(shape());  // row-major, as stored
    std::memcpy(literal.mutable_data().data(), values_.data(),
                values_.size() * 4);
    auto out = literal.Relayout(LayoutUtil::EffectiveLayout(host_shape));
    if (!out.ok()) return out.status();
    std::memcpy(dst, out->data().data(), out->data().size());
    return absl::OkStatus();
  }
  void Delete() override {
    deleted_ = true;
    values_ = {};
  }
  bool IsDeleted() const override { return deleted_; }

 private:
  Values values_;
  bool deleted_ = false;
};

Shape RowMajorShape(Shape shape) {
  LayoutUtil::SetToDefaultLayout(&shape);
  return shape;
}

class ElementwiseExecutable : public sdk::Executable {
 public:
  ElementwiseExecutable(std::unique_ptr<Module> module, sdk::Device* device)
      : module_(std::move(module)), device_(device) {
    const Computation* entry = module_->entry_computation();
    for (const Instruction* p : entry->parameter_instructions()) {
      parameters_.push_back(RowMajorShape(p->shape()));
    }
    outputs_.push_back(RowMajorShape(entry->root_instruction()->shape()));
  }
  const std::vector<Shape>& parameter_shapes() const override {
    return parameters_;
  }
  const std::vector<Shape>& output_shapes() const override { return outputs_; }

  absl::StatusOr<sdk::ExecuteResult> Execute(
      absl::Span<const std::vector<sdk::Buffer*>> args) override {
    std::map<const Instruction*, Values> v;
    const Computation* entry = module_->entry_computation();
    for (const Instruction* i : entry->MakeInstructionPostOrder()) {
      Values& out = v[i];
      if (i->opcode() == HloOpcode::kParameter) {
        out = static_cast<ElementwiseBuffer*>(args[0][i->parameter_number()])
                  ->values();
      } else if (i->opcode() == HloOpcode::kConstant) {
        auto values = RowMajor(i->literal());
        if (!values.ok()) return values.status();
        out = std::move(*values);
      } else if (auto u = kUnary.find(i->opcode()); u != kUnary.end()) {
        for (float a : v[i->operand(0)]) out.push_back(u->second(a));
      } else {
        const auto f = kBinary.at(i->opcode());
        const Values &a = v[i->operand(0)], &b = v[i->operand(1)];
        for (size_t k = 0; k < a.size(); ++k) out.push_back(f(a[k], b[k]));
      }
    }
    sdk::ExecuteResult result;
    result.outputs.emplace_back();
    result.outputs[0].push_back(std::make_unique<ElementwiseBuffer>(
        outputs_[0], device_, std::move(v[entry->root_instruction()])));
    return result;
  }

 private:
  std::unique_ptr<Module> module_;
  sdk::Device* device_;
  std::vector<Shape> parameters_, outputs_;
};

class ElementwiseClient : public sdk::Client {
 public:
  absl::Span<sdk::Device* const> devices() const override { return devices_; }
  absl::StatusOr<std::unique_ptr<sdk::Buffer>> BufferFromHost(
      const void* data, const Shape& shape, sdk::Device* device) override {
    if (shape.element_type() != PrimitiveType::F32) {
      return absl::UnimplementedError(
          "the elementwise plugin holds only f32 arrays");
    }
    Literal literal(shape);  // in the caller's layout
    std::memcpy(literal.mutable_data().data(), data, literal.data().size());
    auto values = RowMajor(literal);
    if (!values.ok()) return values.status();
    return std::make_unique<ElementwiseBuffer>(RowMajorShape(shape), device,
                                               std::move(*values));
  }
  absl::StatusOr<std::unique_ptr<sdk::Executable>> Compile(
      std::unique_ptr<Module> module, const sdk::CompileOptions& options,
      const sdk::CustomCallResolver&) override {
    for (const Instruction* i : module->entry_computation()->instructions()) {
      const HloOpcode op = i->opcode();
      const bool supported = op == HloOpcode::kParameter ||
                             op == HloOpcode::kConstant || kUnary.count(op) ||
                             kBinary.count(op);
      if (!supported || i->shape().element_type() != PrimitiveType::F32) {
        return absl::UnimplementedError(
            absl::StrCat("instruction '", i->name(), "' (", HloOpcodeString(op),
                         ", ", i->shape().ToString(),
                         ") is not an f32 elementwise operation; the "
                         "elementwise plugin runs only those"));
      }
    }
    if (options.num_replicas != 1) {
      return absl::UnimplementedError(
          "the elementwise plugin runs one replica");
    }
    return std::make_unique<ElementwiseExecutable>(std::move(module), &device_);
  }

 private:
  sdk::Device device_{0, "elementwise:cpu"};
  std::vector<sdk::Device*> devices_ = {&device_};
};

class ElementwisePlugin : public sdk::Plugin {
 public:
  sdk::PluginInfo Info() const override {
    sdk::PluginInfo info;
    info.name = "elementwise";
    info.vendor = "Plexa examples";
    info.version = "1.0";
    info.platform = "elementwise";
    return info;
  }
  absl::StatusOr<std::unique_ptr<sdk::Client>> CreateClient(
      const sdk::Options& options) override {
    if (absl::Status s = sdk::CheckKnownOptions(options, {}, "elementwise");
        !s.ok()) {
      return s;
    }
    return std::make_unique<ElementwiseClient>();
  }
};

std::unique_ptr<sdk::Plugin> MakePlugin() {
  return std::make_unique<ElementwisePlugin>();
}

}  // namespace

PLEXA_DEFINE_PLUGIN(MakePlugin)
