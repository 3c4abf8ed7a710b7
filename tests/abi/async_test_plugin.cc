// libplexa_plugin_asynctest.so: a test-only SDK plugin whose work really
// is asynchronous, so that the ABI tests can observe what the synchronous
// plugins never show: events that are not ready yet, PLX_Event_OnReady
// calling back later from another thread, errors carried by events, and
// (ABI 1.2) buffers that are still being produced or read while the host
// goes on: chains of executions on pending buffers, wait events, deferred
// frees and donation. It also serves as the second plugin loaded next to
// the reference one.
//
// Each device has a worker thread that runs the device's work (uploads,
// downloads, copies, executions) one at a time, in the order it becomes
// runnable: a piece of work is handed to the worker only once everything
// it waits for (its arguments' ready events, the host's wait events) is
// ready, so one pending dependency never holds up unrelated work.
//
// Client options:
//   gate_fd   (int64) a file descriptor (the read end of a pipe). Each
//             execution waits for one byte on it before completing: 'F'
//             fails the execution, anything else completes it. Without it,
//             executions complete without waiting.
//   delay_ms  (int64, default 0) a deliberate delay before every upload,
//             download, copy and execution, so that their events are
//             pending for a while.
//   num_devices (int64, 1..8, default 1) devices, each with its worker.
//
// Programs: only `ROOT r = f32[...] negate(parameter(0))` is supported;
// anything else is rejected at compile time naming the instruction. A
// donated argument's memory is reused for the output (negated in place).
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "abi/sdk/async_work.h"
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

// The devices' worker threads of one client. Work is submitted with what
// it waits for and runs on its device's thread once that is all ready. The
// destructor (the client going) waits for every submitted piece of work to
// run, then joins the threads: nothing is left running or half done.
class Workers {
 public:
  Workers(int64_t num_devices, int gate_fd, int64_t delay_ms)
      : gate_fd_(gate_fd), delay_ms_(delay_ms), queues_(num_devices) {
    for (int64_t d = 0; d < num_devices; ++d) {
      threads_.emplace_back([this, d] { Loop(d); });
    }
  }
  ~Workers() {
    {
      // Everything submitted reaches a queue first (its dependencies come
      // from this client's work, the SDK's drained queue, or user events
      // the SDK cancels before the client goes).
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return waiting_ == 0; });
      stopping_ = true;
    }
    cv_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

  // Runs work(status) on `device`'s thread once every event in `after` is
  // ready; status is the first error among them (the work then only
  // reports it).
  void Submit(int64_t device, const sdk::EventList& after,
              std::function<void(absl::Status)> work) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++waiting_;
    }
    sdk::JoinEvents(after)->OnReady(
        [this, device, work = std::move(work)](absl::Status s) mutable {
          std::lock_guard<std::mutex> lock(mu_);
          queues_[device].push_back(
              [work = std::move(work), s = std::move(s)] { work(s); });
          --waiting_;
          cv_.notify_all();
        });
  }

  // The deliberate delay before each piece of work.
  void Delay() const {
    if (delay_ms_ > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms_));
    }
  }

  // 0: proceed, 1: fail, -1: stopping (the client is going).
  int WaitForGate() {
    if (gate_fd_ < 0) return 0;
    while (true) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (stopping_) return -1;
      }
      pollfd p{gate_fd_, POLLIN, 0};
      if (poll(&p, 1, 10) == 1) {
        char c = 0;
        if (read(gate_fd_, &c, 1) == 1) return c == 'F' ? 1 : 0;
        return 1;  // the write end was closed
      }
    }
  }

 private:
  void Loop(int64_t device) {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      cv_.wait(lock, [&] { return stopping_ || !queues_[device].empty(); });
      if (queues_[device].empty()) return;  // stopping, nothing left
      std::function<void()> work = std::move(queues_[device].front());
      queues_[device].pop_front();
      lock.unlock();
      work();
      work = nullptr;
      lock.lock();
    }
  }

  const int gate_fd_;
  const int64_t delay_ms_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::deque<std::function<void()>>> queues_;  // guarded by mu_
  int64_t waiting_ = 0;    // submitted, not yet queued; guarded by mu_
  bool stopping_ = false;  // guarded by mu_
  std::vector<std::thread> threads_;
};

class AsyncBuffer : public sdk::Buffer {
 public:
  AsyncBuffer(Shape shape, sdk::Device* device, std::shared_ptr<Storage> data,
              Workers* workers, sdk::Memory* memory = nullptr)
      : Buffer(std::move(shape), device, memory),
        data_(std::move(data)),
        workers_(workers) {}
  size_t on_device_size() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return data_ ? data_->size() * sizeof(float) : 0;
  }
  absl::Status ToHost(void* dst, const Shape& host_shape) override {
    if (absl::Status s = CheckRowMajorF32(host_shape, "ToHost layout");
        !s.ok()) {
      return s;
    }
    std::shared_ptr<Storage> data = this->data();
    if (!data) return absl::FailedPreconditionError("buffer was deleted");
    if (!data->empty()) {
      std::memcpy(dst, data->data(), data->size() * sizeof(float));
    }
    return absl::OkStatus();
  }
  // The download runs on the device's worker, after the delay.
  absl::StatusOr<std::shared_ptr<sdk::Event>> ToHostAsync(
      void* dst, const Shape& host_shape) override {
    if (absl::Status s = CheckRowMajorF32(host_shape, "ToHost layout");
        !s.ok()) {
      return s;
    }
    std::shared_ptr<Storage> data = this->data();
    if (!data) return absl::FailedPreconditionError("buffer was deleted");
    auto done = sdk::Event::Create();
    Workers* workers = workers_;
    workers->Submit(device()->id(), {ready_event()},
                    [workers, data, dst, done](absl::Status s) {
                      if (s.ok()) {
                        workers->Delay();
                        if (!data->empty()) {
                          std::memcpy(dst, data->data(),
                                      data->size() * sizeof(float));
                        }
                      }
                      done->Set(s);
                    });
    return done;
  }
  // The memory goes when the last piece of work holding it is done (each
  // holds a reference): a pending producer or consumer is not disturbed.
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
  std::shared_ptr<Storage> data_;  // guarded by mu_
  Workers* const workers_;
};

class AsyncExecutable : public sdk::Executable {
 public:
  AsyncExecutable(Shape shape, Workers* workers)
      : shapes_{shape}, workers_(workers) {}
  const std::vector<Shape>& parameter_shapes() const override {
    return shapes_;
  }
  const std::vector<Shape>& output_shapes() const override { return shapes_; }
  // The argument may still be pending; so may the host's wait events: the
  // execution waits for them on the device's worker.
  bool AcceptsPendingArguments() const override { return true; }

  absl::StatusOr<sdk::ExecuteResult> ExecuteWithOptions(
      absl::Span<const std::vector<sdk::Buffer*>> args,
      const sdk::ExecuteOptions& options) override {
    auto* in = static_cast<AsyncBuffer*>(args[0][0]);
    std::shared_ptr<Storage> input = in->data();
    if (!input) return absl::FailedPreconditionError("argument was deleted");
    // A donated argument's memory becomes the output's: negated in place.
    bool donated = false;
    for (int64_t d : options.donated) donated |= d == 0;
    auto output = donated ? input : std::make_shared<Storage>(input->size());
    auto out = std::make_unique<AsyncBuffer>(shapes_[0], in->device(), output,
                                             workers_);
    auto done = sdk::Event::Create();
    out->set_ready_event(done);
    sdk::EventList after = options.wait_events;
    after.push_back(in->ready_event());
    Workers* workers = workers_;
    workers->Submit(
        in->device()->id(), after,
        [workers, input, output, done](absl::Status s) {
          if (!s.ok()) {
            done->Set(s);  // a dependency failed: so do we
            return;
          }
          switch (workers->WaitForGate()) {
            case 0:
              workers->Delay();
              for (size_t i = 0; i < input->size(); ++i) {
                (*output)[i] = -(*input)[i];
              }
              done->Set(absl::OkStatus());
              break;
            case 1:
              done->Set(
                  absl::AbortedError("asynctest: execution failed as the gate "
                                     "requested"));
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
  AsyncClient(int64_t num_devices, int gate_fd, int64_t delay_ms)
      : workers_(std::make_unique<Workers>(num_devices, gate_fd, delay_ms)) {
    for (int64_t d = 0; d < num_devices; ++d) {
      devices_owned_.push_back(
          std::make_unique<sdk::Device>(d, absl::StrCat("asynctest:", d)));
      // A second memory (ABI 1.2) that buffers can be placed on: host
      // memory the "device" reads directly, 1 MiB of it.
      devices_owned_.back()->AddMemory(PLX_MemoryKind_HOST_VISIBLE,
                                       "pinned_host", 1 << 20);
      devices_.push_back(devices_owned_.back().get());
    }
  }
  ~AsyncClient() override {
    workers_.reset();  // every piece of work runs before the devices go
  }
  absl::Span<sdk::Device* const> devices() const override { return devices_; }

  // The upload runs on the device's worker, after the delay; the SDK keeps
  // `data` valid until the buffer's ready event (done_with_host_buffer).
  absl::StatusOr<std::unique_ptr<sdk::Buffer>> BufferFromHost(
      const void* data, const Shape& shape, sdk::Device* device) override {
    return BufferFromHostOn(data, shape, device, device->default_memory());
  }
  // ABI 1.2 device_layout requests: only the row-major f32 it holds.
  absl::Status CheckDeviceLayout(const Shape& shape) const override {
    return CheckRowMajorF32(shape, "a buffer");
  }
  // Either memory: the pinned one refuses what would pass its limit.
  absl::StatusOr<std::unique_ptr<sdk::Buffer>> BufferFromHostOn(
      const void* data, const Shape& shape, sdk::Device* device,
      sdk::Memory* memory) override {
    if (absl::Status s = CheckRowMajorF32(shape, "a buffer"); !s.ok()) return s;
    const sdk::MemoryStatistics stats = memory->Statistics();
    const int64_t bytes = ShapeUtil::ByteSizeOf(shape);
    if (stats.bytes_limit >= 0 &&
        stats.bytes_in_use + bytes > stats.bytes_limit) {
      return absl::ResourceExhaustedError(
          absl::StrCat("asynctest: ", bytes, " bytes do not fit in the '",
                       memory->kind_name(), "' memory (", stats.bytes_in_use,
                       " of ", stats.bytes_limit, " in use)"));
    }
    auto storage = std::make_shared<Storage>(ShapeUtil::ElementsIn(shape));
    auto b = std::make_unique<AsyncBuffer>(shape, device, storage,
                                           workers_.get(), memory);
    auto done = sdk::Event::Create();
    b->set_ready_event(done);
    Workers* workers = workers_.get();
    workers->Submit(
        device->id(), {}, [workers, data, storage, done](absl::Status) {
          workers->Delay();
          if (!storage->empty()) {
            std::memcpy(storage->data(), data, storage->size() * sizeof(float));
          }
          done->Set(absl::OkStatus());
        });
    return b;
  }

  // The copy runs on the destination device's worker, after the delay.
  absl::StatusOr<std::unique_ptr<sdk::Buffer>> CopyToDevice(
      sdk::Buffer* buffer, sdk::Device* device) override {
    std::shared_ptr<Storage> src = static_cast<AsyncBuffer*>(buffer)->data();
    if (!src) return absl::FailedPreconditionError("buffer was deleted");
    auto storage = std::make_shared<Storage>(src->size());
    auto b = std::make_unique<AsyncBuffer>(buffer->shape(), device, storage,
                                           workers_.get());
    auto done = sdk::Event::Create();
    b->set_ready_event(done);
    Workers* workers = workers_.get();
    workers->Submit(device->id(), {buffer->ready_event()},
                    [workers, src, storage, done](absl::Status s) {
                      if (s.ok()) {
                        workers->Delay();
                        // Elements only: the vector itself (its size) is
                        // read meanwhile by the SDK's memory accounting.
                        std::copy(src->begin(), src->end(), storage->begin());
                      }
                      done->Set(s);
                    });
    return b;
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
    return std::make_unique<AsyncExecutable>(shape, workers_.get());
  }

 private:
  std::vector<std::unique_ptr<sdk::Device>> devices_owned_;
  std::vector<sdk::Device*> devices_;
  std::unique_ptr<Workers> workers_;
};

// A vendor extension table (ABI 1.2, PLX_Api.extension_start): what a
// plugin adds beyond the slots on its own schedule. Type 0x10042, version
// 1: the number of worker threads (one per device) of a client.
struct AsyncTestExtension {
  size_t struct_size;
  int32_t type;
  PLX_Extension* next;
  int32_t version;
  PLX_Error* (*NumWorkers)(PLX_Client* client, int64_t* out);
};
static_assert(offsetof(AsyncTestExtension, version) ==
              offsetof(PLX_ApiExtension, version));

PLX_Error* NumWorkers(PLX_Client* client, int64_t* out) {
  absl::StatusOr<sdk::Client*> c =
      sdk::ClientFromHandle(client, "AsyncTestExtension.NumWorkers");
  if (!c.ok()) return sdk::StatusToError(c.status());
  if (out == nullptr) {
    return sdk::StatusToError(absl::InvalidArgumentError(
        "AsyncTestExtension.NumWorkers: out is NULL"));
  }
  *out = static_cast<int64_t>((*c)->devices().size());
  return nullptr;
}

const AsyncTestExtension kExtension = {
    PLX_STRUCT_SIZE(AsyncTestExtension, NumWorkers), 0x10042, nullptr, 1,
    NumWorkers};

class AsyncPlugin : public sdk::Plugin {
 public:
  const PLX_Extension* ApiExtensions() const override {
    return reinterpret_cast<const PLX_Extension*>(&kExtension);
  }
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
    static constexpr const char* kKnown[] = {"gate_fd", "delay_ms",
                                             "num_devices"};
    if (absl::Status s = sdk::CheckKnownOptions(options, kKnown, "asynctest");
        !s.ok()) {
      return s;
    }
    auto fd = sdk::GetIntOption(options, "gate_fd", -1);
    if (!fd.ok()) return fd.status();
    auto delay = sdk::GetIntOptionInRange(options, "delay_ms", 0, 0, 10000);
    if (!delay.ok()) return delay.status();
    auto devices = sdk::GetIntOptionInRange(options, "num_devices", 1, 1, 8);
    if (!devices.ok()) return devices.status();
    return std::make_unique<AsyncClient>(*devices, static_cast<int>(*fd),
                                         *delay);
  }
};

std::unique_ptr<sdk::Plugin> MakeAsyncPlugin() {
  return std::make_unique<AsyncPlugin>();
}

}  // namespace
}  // namespace plexa::asynctest

PLEXA_DEFINE_PLUGIN(plexa::asynctest::MakeAsyncPlugin)
