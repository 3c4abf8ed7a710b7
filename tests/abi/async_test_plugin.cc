// libplexa_plugin_asynctest.so: a test-only SDK plugin whose executions
// complete asynchronously, on a plugin thread, when the test says so. It
// lets the ABI tests observe what the reference plugin (synchronous) never
// shows: an event that is not ready yet, PLX_Event_OnReady calling back
// later from another thread, an event carrying an execution error, and
// ToHost waiting for a buffer that is still being computed. It also serves
// as the second plugin loaded next to the reference one.
//
// Client option "gate_fd" (int64): a file descriptor (the read end of a
// pipe). Each execution waits for one byte on it before completing: 'F'
// fails the execution, anything else completes it. Without the option,
// executions complete at once (still on the plugin thread).
//
// Programs: only `ROOT r = f32[...] negate(parameter(0))` is supported;
// anything else is rejected at compile time naming the instruction.
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "abi/sdk/plugin.h"
#include "absl/strings/str_cat.h"
#include "core/ir/computation.h"
#include "core/ir/instruction.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"

namespace plexa::asynctest {
namespace {

using Storage = std::vector<float>;

absl::Status CheckRowMajorF32(const Shape& shape, absl::string_view what) {
  if (shape.element_type() != PrimitiveType::F32 ||
      !(LayoutUtil::EffectiveLayout(shape) ==
        LayoutUtil::GetDefaultLayoutForRank(shape.dimensions().size()))) {
    return absl::UnimplementedError(absl::StrCat(
        "asynctest: ", what, " must be row-major f32, not ", shape.ToString()));
  }
  return absl::OkStatus();
}

class AsyncBuffer : public sdk::Buffer {
 public:
  AsyncBuffer(Shape shape, sdk::Device* device, std::shared_ptr<Storage> data)
      : Buffer(std::move(shape), device), data_(std::move(data)) {}
  size_t on_device_size() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return data_ ? data_->size() * sizeof(float) : 0;
  }
  absl::Status ToHost(void* dst, const Shape& host_shape) override {
    if (absl::Status s = CheckRowMajorF32(host_shape, "ToHost layout");
        !s.ok()) {
      return s;
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (!data_) return absl::FailedPreconditionError("buffer was deleted");
    std::memcpy(dst, data_->data(), data_->size() * sizeof(float));
    return absl::OkStatus();
  }
  void Delete() override {
    std::lock_guard<std::mutex> lock(mu_);
    data_.reset();
  }
  bool IsDeleted() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return data_ == nullptr;
  }
  std::shared_ptr<Storage> data() const {
    std::lock_guard<std::mutex> lock(mu_);
    return data_;
  }

 private:
  mutable std::mutex mu_;
  std::shared_ptr<Storage> data_;
};

// Owns the worker threads of one client; joins them when the client goes.
struct Workers {
  int gate_fd = -1;
  std::atomic<bool> stopping{false};
  std::mutex mu;
  std::vector<std::thread> threads;

  // 0: proceed, 1: fail, -1: stopping.
  int WaitForGate() {
    if (gate_fd < 0) return 0;
    while (!stopping.load()) {
      pollfd p{gate_fd, POLLIN, 0};
      if (poll(&p, 1, 10) == 1) {
        char c = 0;
        if (read(gate_fd, &c, 1) == 1) return c == 'F' ? 1 : 0;
        return 1;  // the write end was closed
      }
    }
    return -1;
  }
  ~Workers() {
    stopping.store(true);
    for (std::thread& t : threads) t.join();
  }
};

class AsyncExecutable : public sdk::Executable {
 public:
  AsyncExecutable(Shape shape, Workers* workers)
      : shapes_{shape}, workers_(workers) {}
  const std::vector<Shape>& parameter_shapes() const override {
    return shapes_;
  }
  const std::vector<Shape>& output_shapes() const override { return shapes_; }

  absl::StatusOr<sdk::ExecuteResult> Execute(
      absl::Span<const std::vector<sdk::Buffer*>> args) override {
    auto* in = static_cast<AsyncBuffer*>(args[0][0]);
    std::shared_ptr<Storage> input = in->data();
    if (!input) return absl::FailedPreconditionError("argument was deleted");
    auto output = std::make_shared<Storage>(input->size());
    auto out = std::make_unique<AsyncBuffer>(shapes_[0], in->device(), output);
    auto done = sdk::Event::Create();
    out->set_ready_event(done);
    Workers* workers = workers_;
    std::lock_guard<std::mutex> lock(workers->mu);
    workers->threads.emplace_back([workers, input, output, done] {
      switch (workers->WaitForGate()) {
        case 0:
          for (size_t i = 0; i < input->size(); ++i) {
            (*output)[i] = -(*input)[i];
          }
          done->Set(absl::OkStatus());
          break;
        case 1:
          done->Set(absl::AbortedError(
              "asynctest: execution failed as the gate requested"));
          break;
        default:
          done->Set(absl::CancelledError("asynctest: client destroyed"));
      }
    });
    sdk::ExecuteResult result;
    result.outputs.emplace_back();
    result.outputs[0].push_back(std::move(out));
    result.completion.push_back(done);
    return result;
  }

 private:
  std::vector<Shape> shapes_;
  Workers* workers_;
};

class AsyncClient : public sdk::Client {
 public:
  explicit AsyncClient(int gate_fd) : device_(0, "asynctest:0") {
    workers_.gate_fd = gate_fd;
    devices_.push_back(&device_);
  }
  absl::Span<sdk::Device* const> devices() const override { return devices_; }

  absl::StatusOr<std::unique_ptr<sdk::Buffer>> BufferFromHost(
      const void* data, const Shape& shape, sdk::Device* device) override {
    if (absl::Status s = CheckRowMajorF32(shape, "a buffer"); !s.ok()) return s;
    auto storage = std::make_shared<Storage>(ShapeUtil::ElementsIn(shape));
    std::memcpy(storage->data(), data, storage->size() * sizeof(float));
    return std::make_unique<AsyncBuffer>(shape, device, std::move(storage));
  }

  absl::StatusOr<std::unique_ptr<sdk::Executable>> Compile(
      std::unique_ptr<Module> module, const sdk::CompileOptions& options,
      const sdk::CustomCallResolver&) override {
    const Computation* entry = module->entry_computation();
    const Instruction* root = entry->root_instruction();
    if (root->opcode() != HloOpcode::kNegate ||
        root->operand(0)->opcode() != HloOpcode::kParameter ||
        entry->num_parameters() != 1 || options.num_replicas != 1) {
      return absl::UnimplementedError(absl::StrCat(
          "asynctest runs only `negate(parameter(0))` on one replica; "
          "instruction '",
          root->name(), "' is ", HloOpcodeString(root->opcode())));
    }
    Shape shape = root->shape();
    LayoutUtil::SetToDefaultLayoutIfEmpty(&shape);
    if (absl::Status s = CheckRowMajorF32(shape, "the program"); !s.ok()) {
      return s;
    }
    return std::make_unique<AsyncExecutable>(shape, &workers_);
  }

 private:
  sdk::Device device_;
  std::vector<sdk::Device*> devices_;
  Workers workers_;  // last member: joined before the rest goes
};

class AsyncPlugin : public sdk::Plugin {
 public:
  sdk::PluginInfo Info() const override {
    sdk::PluginInfo info;
    info.name = "asynctest";
    info.vendor = "Plexa tests";
    info.version = "1";
    info.platform = "asynctest";
    info.capabilities = PLX_CAPABILITY_ASYNC_TRANSFERS;
    return info;
  }
  absl::StatusOr<std::unique_ptr<sdk::Client>> CreateClient(
      const sdk::Options& options) override {
    static constexpr const char* kKnown[] = {"gate_fd"};
    if (absl::Status s = sdk::CheckKnownOptions(options, kKnown, "asynctest");
        !s.ok()) {
      return s;
    }
    auto fd = sdk::GetIntOption(options, "gate_fd", -1);
    if (!fd.ok()) return fd.status();
    return std::make_unique<AsyncClient>(static_cast<int>(*fd));
  }
};

std::unique_ptr<sdk::Plugin> MakeAsyncPlugin() {
  return std::make_unique<AsyncPlugin>();
}

}  // namespace
}  // namespace plexa::asynctest

PLEXA_DEFINE_PLUGIN(plexa::asynctest::MakeAsyncPlugin)
