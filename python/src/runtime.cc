#include "runtime.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "abi/host/plugin_host.h"
#include "abi/host/replicated_run.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/passes/default_pipeline.h"
#include "core/passes/dynamic_padder.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "core/text/hlo_parser.h"
#include "core/text/hlo_printer.h"
#include "core/verifier/verifier.h"
#include "dtypes.h"
#include "ir.h"
#include "status.h"

namespace py = pybind11;

namespace plexa::python {
namespace {

struct PyClient;

struct PyPlugin {
  std::shared_ptr<host::Plugin> plugin;
};

struct PyClient {
  std::shared_ptr<host::Plugin> plugin;
  std::shared_ptr<host::Client> client;
};

struct PyDevice {
  std::shared_ptr<PyClient> client;
  int64_t index = 0;
};

struct PyBuffer {
  std::shared_ptr<PyClient> client;
  std::unique_ptr<host::Buffer> buffer;
  int64_t device = 0;
};

// An asynchronous download: `array` is written until `event` is ready, so
// a transfer dropped before that waits for it (the plugin must not write
// into an array numpy has freed).
struct PyTransfer {
  std::shared_ptr<host::Plugin> plugin;
  py::array array;
  std::unique_ptr<host::Event> event;
  ~PyTransfer() {
    if (event != nullptr && !event->IsReady()) {
      py::gil_scoped_release release;
      event->Await().IgnoreError();
    }
  }
};

// A plugin event: a user event (Client.create_user_event) the host sets,
// which executions can wait for.
struct PyEvent {
  std::unique_ptr<host::Event> event;
};

absl::StatusCode StatusCodeByName(const std::string& name) {
  for (int c = 0; c <= 16; ++c) {
    if (StatusCodeName(static_cast<absl::StatusCode>(c)) == name) {
      return static_cast<absl::StatusCode>(c);
    }
  }
  throw StatusError(absl::InvalidArgumentError(
      absl::StrCat("'", name,
                   "' is not a status code name (OK, CANCELLED, "
                   "INVALID_ARGUMENT, ...)")));
}

struct PyExecutable {
  std::shared_ptr<PyClient> client;
  std::unique_ptr<host::Executable> executable;
  std::vector<int64_t> device_assignment;  // empty: replica r on r % devices
  std::string module_text;                 // what was compiled
  // How LowerDynamicShapes changed the entry's signature (changed=false
  // for a program without dynamic parameters or results).
  DynamicSignature dynamic;
};

std::string ShapeText(const Shape& shape) { return shape.ToString(true); }

std::vector<std::string> ShapeTexts(const std::vector<Shape>& shapes) {
  std::vector<std::string> out;
  for (const Shape& s : shapes) out.push_back(ShapeText(s));
  return out;
}

py::tuple Dims(const Shape& shape) {
  py::tuple t(shape.dimensions().size());
  for (size_t i = 0; i < shape.dimensions().size(); ++i) {
    t[i] = shape.dimensions()[i];
  }
  return t;
}

py::dict PluginAttributes(const host::Plugin& plugin) {
  const host::PluginAttributes& a = plugin.attributes();
  py::dict d;
  d["name"] = a.name;
  d["vendor"] = a.vendor;
  d["version"] = a.version;
  d["platform"] = a.platform;
  d["abi_version"] = py::make_tuple(a.abi_major, a.abi_minor);
  d["formats"] = a.formats;
  d["capabilities"] = host::CapabilityNames(a.capabilities);
  d["path"] = plugin.path();
  return d;
}

// A numpy array (or anything np.asarray takes, converted to `want` when
// given) on `device` of `client`. A C-contiguous array goes as dense data;
// any other view as its strides (ABI 1.2 byte_strides: a transposed view is
// taken as a layout, others gathered by the plugin), never copied here.
std::unique_ptr<host::Buffer> Upload(PyClient& client, py::handle value,
                                     int64_t device,
                                     const std::optional<Shape>& want,
                                     const std::string& context) {
  py::array array;
  if (py::isinstance<py::array>(value)) {
    array = py::reinterpret_borrow<py::array>(value);
  } else {
    if (value.is_none()) {
      throw StatusError(absl::InvalidArgumentError(
          absl::StrCat(context, ": None is not an array")));
    }
    py::object dtype = py::none();
    if (want.has_value())
      dtype = ValueOrThrow(DtypeFromType(want->element_type()));
    try {
      array = py::module_::import("numpy").attr("asarray")(value, dtype);
    } catch (const py::error_already_set& e) {
      throw StatusError(absl::InvalidArgumentError(absl::StrCat(
          context, ": cannot make an array of ",
          py::str(py::type::of(value)).cast<std::string>(), ": ", e.what())));
    }
  }
  const PrimitiveType type =
      ValueOrThrow(TypeFromDtype(array.dtype(), context));
  std::vector<int64_t> dims(array.shape(), array.shape() + array.ndim());
  Shape shape = ShapeUtil::MakeShape(type, dims);
  LayoutUtil::SetToDefaultLayout(&shape);
  if (want.has_value() && !Shape::Equal().IgnoreLayout()(shape, *want)) {
    throw StatusError(absl::InvalidArgumentError(absl::StrCat(
        context, ": the executable takes ", want->ToString(false), " but got ",
        array.dtype().attr("name").cast<std::string>(), " array of shape (",
        absl::StrJoin(dims, ", "), dims.size() == 1 ? ",)" : ")", " (",
        shape.ToString(false), ")")));
  }
  const int64_t itemsize = array.itemsize();
  const bool contiguous =
      (array.flags() & py::array::c_style) != 0 || array.size() == 0;
  std::vector<int64_t> strides;
  size_t data_size = static_cast<size_t>(array.nbytes());
  if (!contiguous) {
    int64_t low = 0, high = itemsize;
    for (py::ssize_t d = 0; d < array.ndim(); ++d) {
      const int64_t stride = array.strides()[d];
      strides.push_back(stride);
      const int64_t span = (array.shape()[d] - 1) * stride;
      if (span < 0)
        low += span;
      else
        high += span;
    }
    data_size = static_cast<size_t>(high - low);
  }
  const void* data = array.data();
  host::UploadOptions options;
  options.device_index = device;
  absl::StatusOr<std::unique_ptr<host::Buffer>> buffer;
  {
    py::gil_scoped_release release;
    buffer = client.client->BufferFromHostData(data, data_size, shape, strides,
                                               options);
  }
  if (!buffer.ok()) {
    throw StatusError(
        absl::Status(buffer.status().code(),
                     absl::StrCat(context, ": ", buffer.status().message())));
  }
  return *std::move(buffer);
}

Shape BufferShape(const PyBuffer& b) { return ValueOrThrow(b.buffer->shape()); }

// Where an array of `shape` goes: a new C-contiguous numpy array.
py::array NewArray(const Shape& shape) {
  py::dtype dtype = ValueOrThrow(DtypeFromType(shape.element_type()));
  std::vector<py::ssize_t> dims(shape.dimensions().begin(),
                                shape.dimensions().end());
  return py::array(dtype, dims);
}

// One copy, from the plugin's buffer into the new array's memory: the ABI
// has no call that lends a buffer's memory to the host (even where it is
// host memory, PLX_CAPABILITY_DEVICE_MEMORY_IS_HOST), so no array can
// alias it; PLX_Buffer_ToHost writes straight into numpy's storage.
py::array ToNumpy(PyBuffer& b) {
  const Shape shape = BufferShape(b);
  py::array out = NewArray(shape);
  absl::Status status;
  {
    py::gil_scoped_release release;
    if (out.nbytes() == 0) {
      // Nothing to copy; still report a failed producer.
      absl::StatusOr<std::unique_ptr<host::Event>> ready =
          b.buffer->ReadyEvent();
      status = ready.ok() ? (*ready)->Await() : ready.status();
    } else {
      status = b.buffer->ToHostBuffer(out.mutable_data(),
                                      static_cast<size_t>(out.nbytes()));
    }
  }
  ThrowIfError(status);
  return out;
}

std::unique_ptr<PyTransfer> ToNumpyAsync(PyBuffer& b) {
  const Shape shape = BufferShape(b);
  auto t = std::make_unique<PyTransfer>();
  t->plugin = b.client->plugin;
  t->array = NewArray(shape);
  if (t->array.nbytes() == 0) {
    t->event = ValueOrThrow(b.buffer->ReadyEvent());
    return t;
  }
  t->event = ValueOrThrow(b.buffer->ToHostBufferAsync(
      t->array.mutable_data(), static_cast<size_t>(t->array.nbytes())));
  return t;
}

void Await(const host::Event& event) {
  absl::Status status;
  {
    py::gil_scoped_release release;
    status = event.Await();
  }
  ThrowIfError(status);
}

std::vector<host::Plugin::Option> ClientOptions(const py::dict& options) {
  std::vector<host::Plugin::Option> out;
  for (auto item : options) {
    host::Plugin::Option o;
    o.name = py::str(item.first).cast<std::string>();
    py::handle v = item.second;
    if (py::isinstance<py::bool_>(v)) {
      o.kind = PLX_Value_BOOL;
      o.bool_value = v.cast<bool>();
    } else if (py::isinstance<py::int_>(v)) {
      o.kind = PLX_Value_INT64;
      o.int64_value = v.cast<int64_t>();
    } else if (py::isinstance<py::float_>(v)) {
      o.kind = PLX_Value_FLOAT;
      o.float_value = v.cast<double>();
    } else if (py::isinstance<py::str>(v)) {
      o.kind = PLX_Value_STRING;
      o.string_value = v.cast<std::string>();
    } else {
      throw StatusError(absl::InvalidArgumentError(
          absl::StrCat("client option '", o.name,
                       "': expected an int, float, bool or str, "
                       "got ",
                       py::str(py::type::of(v)).cast<std::string>())));
    }
    out.push_back(std::move(o));
  }
  return out;
}

py::dict DeviceAttributes(const host::DeviceInfo& d) {
  py::dict attrs;
  for (const auto& [name, value] : d.attributes) attrs[py::str(name)] = value;
  return attrs;
}

// The module to compile: parsed and verified when given as text; its
// dynamic shapes lowered (docs/dynamic_shapes.md: `dynamic` says how the
// signature changed); run through the default pipeline (on a copy) unless
// optimize is false.
std::unique_ptr<Module> ModuleToCompile(py::handle program, bool optimize,
                                        DynamicSignature* dynamic) {
  std::unique_ptr<Module> module;
  if (py::isinstance<py::str>(program) || py::isinstance<py::bytes>(program)) {
    const std::string text = program.cast<std::string>();
    module = ValueOrThrow(ParseHloModule(text));
    ThrowIfError(VerifyModule(*module));
  } else if (py::isinstance<PyModule>(program)) {
    module = ValueOrThrow(CloneModule(*program.cast<PyModule&>().module));
  } else {
    throw StatusError(absl::InvalidArgumentError(
        absl::StrCat("compile: expected a plexa.Module or HLO text, got ",
                     py::str(py::type::of(program)).cast<std::string>())));
  }
  *dynamic = ValueOrThrow(LowerDynamicShapes(module.get()));
  if (optimize) ValueOrThrow(RunDefaultPipeline(module.get()));
  return module;
}

// The dynamic signature for the Python side (None when unchanged):
// {"parameters": [(bounds, dynamic flags)], "parameter_sizes": [(p, d)],
//  "result_sizes": [(element or -1, d)]}.
py::object DynamicSignatureDict(const DynamicSignature& sig) {
  if (!sig.changed) return py::none();
  py::list params;
  for (const Shape& s : sig.parameters) {
    std::vector<int64_t> bounds;
    std::vector<bool> flags;
    if (s.IsArray()) {
      bounds.assign(s.dimensions().begin(), s.dimensions().end());
      flags.assign(s.dynamic_dimensions().begin(),
                   s.dynamic_dimensions().end());
    }
    params.append(py::make_tuple(py::tuple(py::cast(bounds)),
                                 py::tuple(py::cast(flags))));
  }
  py::dict d;
  d["parameters"] = params;
  d["parameter_sizes"] = py::cast(sig.parameter_sizes);
  d["result_sizes"] = py::cast(sig.result_sizes);
  return d;
}

int64_t ReplicaDevice(const PyExecutable& e, int64_t replica) {
  if (!e.device_assignment.empty()) return e.device_assignment[replica];
  const int64_t n = static_cast<int64_t>(e.client->client->devices().size());
  return n == 0 ? 0 : replica % n;
}

// per_replica[r][i]: a Buffer of this client or an array-like. Returns
// outputs[r][i] (the result's array leaves).
std::vector<std::vector<std::unique_ptr<PyBuffer>>> Execute(
    PyExecutable& e, const std::vector<std::vector<py::object>>& per_replica,
    const std::vector<int64_t>& donated, bool async,
    const std::vector<PyEvent*>& wait_for) {
  std::vector<host::Event*> wait;
  for (PyEvent* event : wait_for) {
    if (event == nullptr) {
      throw StatusError(absl::InvalidArgumentError("wait_for holds None"));
    }
    wait.push_back(event->event.get());
  }
  const host::Executable& exe = *e.executable;
  // One argument list per device: replicas x partitions.
  const int64_t replicas = exe.num_replicas() * exe.num_partitions();
  if (static_cast<int64_t>(per_replica.size()) != replicas) {
    throw StatusError(absl::InvalidArgumentError(absl::StrCat(
        "the executable runs ", exe.num_replicas(), " replica(s)",
        exe.num_partitions() > 1
            ? absl::StrCat(" x ", exe.num_partitions(), " partition(s)")
            : std::string(),
        " but ", per_replica.size(), " argument list(s) were given")));
  }
  const std::vector<Shape>& params = exe.parameter_shapes();
  std::vector<std::unique_ptr<host::Buffer>> uploaded;
  std::vector<std::vector<host::Buffer*>> args(per_replica.size());
  for (size_t r = 0; r < per_replica.size(); ++r) {
    const std::vector<py::object>& in = per_replica[r];
    if (in.size() != params.size()) {
      std::vector<std::string> want;
      for (const Shape& s : params) want.push_back(s.ToString(false));
      throw StatusError(absl::InvalidArgumentError(absl::StrCat(
          "the executable takes ", params.size(), " argument(s) (",
          absl::StrJoin(want, ", "), ") but ", in.size(), " were given",
          replicas > 1 ? absl::StrCat(" for replica ", r) : "")));
    }
    const int64_t device = ReplicaDevice(e, static_cast<int64_t>(r));
    for (size_t i = 0; i < in.size(); ++i) {
      const std::string context =
          replicas > 1 ? absl::StrCat("replica ", r, " argument ", i)
                       : absl::StrCat("argument ", i);
      if (py::isinstance<PyBuffer>(in[i])) {
        PyBuffer& b = in[i].cast<PyBuffer&>();
        if (b.client->client.get() != e.client->client.get()) {
          throw StatusError(absl::InvalidArgumentError(absl::StrCat(
              context, ": the buffer belongs to another client (plugin '",
              b.client->plugin->attributes().name,
              "'); copy it with to_numpy() first")));
        }
        args[r].push_back(b.buffer.get());
        continue;
      }
      uploaded.push_back(Upload(*e.client, in[i], device, params[i], context));
      args[r].push_back(uploaded.back().get());
    }
  }
  absl::StatusOr<std::vector<std::vector<std::unique_ptr<host::Buffer>>>>
      outputs;
  {
    py::gil_scoped_release release;
    if (async) {
      absl::StatusOr<host::Executable::Async> a =
          e.executable->ExecuteAsync(args, donated, wait);
      // Completion events are dropped: each output's ready event tells
      // the same, and destroying an event does not cancel the work.
      if (a.ok()) {
        outputs = std::move(a->outputs);
      } else {
        outputs = a.status();
      }
    } else {
      // The host library's synchronous Execute has no wait list: wait here.
      absl::Status waited;
      for (host::Event* event : wait) {
        waited.Update(event->Await());
      }
      outputs =
          waited.ok()
              ? e.executable->Execute(args, donated)
              : absl::StatusOr<
                    std::vector<std::vector<std::unique_ptr<host::Buffer>>>>(
                    waited);
    }
  }
  ThrowIfError(outputs.status());
  std::vector<std::vector<std::unique_ptr<PyBuffer>>> result;
  for (size_t r = 0; r < outputs->size(); ++r) {
    result.emplace_back();
    for (std::unique_ptr<host::Buffer>& b : (*outputs)[r]) {
      auto pb = std::make_unique<PyBuffer>();
      pb->client = e.client;
      pb->buffer = std::move(b);
      pb->device = ReplicaDevice(e, static_cast<int64_t>(r));
      result.back().push_back(std::move(pb));
    }
  }
  return result;
}

// The result's structure over its array leaves: an int (the leaf's index)
// for an array, a tuple for a tuple, None for a token.
py::object Structure(const Shape& shape, int64_t* next) {
  if (shape.IsTuple()) {
    py::tuple t(shape.tuple_shapes().size());
    for (size_t i = 0; i < shape.tuple_shapes().size(); ++i) {
      t[i] = Structure(shape.tuple_shapes()[i], next);
    }
    return t;
  }
  if (shape.IsToken()) return py::none();
  return py::int_((*next)++);
}

py::object ResultStructure(const PyExecutable& e) {
  const auto& program = e.executable->program_shape();
  int64_t next = 0;
  if (program.has_value()) return Structure(program->result, &next);
  // A 1.0 plugin gives no program shape: one output is an array, more a
  // flat tuple.
  const size_t n = e.executable->output_shapes().size();
  if (n == 1) return py::int_(0);
  py::tuple t(n);
  for (size_t i = 0; i < n; ++i) t[i] = py::int_(i);
  return t;
}

}  // namespace

void RegisterRuntime(py::module_& m) {
  py::class_<PyPlugin, std::shared_ptr<PyPlugin>>(m, "Plugin")
      .def_static(
          "load",
          [](const std::string& name_or_path) {
            auto p = std::make_shared<PyPlugin>();
            p->plugin = ValueOrThrow(host::Plugin::Load(name_or_path));
            return p;
          },
          py::arg("name_or_path"))
      .def_static("search_directories", &host::Plugin::SearchDirectories)
      .def_property_readonly(
          "attributes",
          [](const PyPlugin& p) { return PluginAttributes(*p.plugin); })
      .def_property_readonly(
          "name", [](const PyPlugin& p) { return p.plugin->attributes().name; })
      .def_property_readonly(
          "platform",
          [](const PyPlugin& p) { return p.plugin->attributes().platform; })
      .def_property_readonly("abi_version",
                             [](const PyPlugin& p) {
                               return py::make_tuple(
                                   p.plugin->attributes().abi_major,
                                   p.plugin->attributes().abi_minor);
                             })
      .def_property_readonly("path",
                             [](const PyPlugin& p) { return p.plugin->path(); })
      .def(
          "_register_custom_call",
          [](PyPlugin& p, const std::string& name, uintptr_t address,
             int32_t api_version, const std::string& platform) {
            if (address == 0) {
              throw StatusError(absl::InvalidArgumentError(absl::StrCat(
                  "register_custom_call('", name, "'): the function is NULL")));
            }
            ThrowIfError(p.plugin->RegisterCustomCall(
                name, reinterpret_cast<void*>(address), api_version, platform));
          },
          py::arg("name"), py::arg("address"), py::arg("api_version"),
          py::arg("platform"))
      .def(
          "_create_client",
          [](std::shared_ptr<PyPlugin> p, py::dict options) {
            std::vector<host::Plugin::Option> opts = ClientOptions(options);
            auto c = std::make_shared<PyClient>();
            c->plugin = p->plugin;
            absl::StatusOr<std::unique_ptr<host::Client>> client;
            {
              py::gil_scoped_release release;
              client = p->plugin->CreateClient(opts);
            }
            c->client =
                std::shared_ptr<host::Client>(ValueOrThrow(std::move(client)));
            return c;
          },
          py::arg("options"));

  py::class_<PyClient, std::shared_ptr<PyClient>>(m, "Client")
      .def_property_readonly(
          "platform",
          [](const PyClient& c) { return c.plugin->attributes().platform; })
      .def_property_readonly(
          "devices",
          [](std::shared_ptr<PyClient> c) {
            std::vector<PyDevice> out;
            for (size_t i = 0; i < c->client->devices().size(); ++i) {
              out.push_back(PyDevice{c, static_cast<int64_t>(i)});
            }
            return out;
          })
      .def(
          "buffer_from_numpy",
          [](std::shared_ptr<PyClient> c, py::object array, int64_t device) {
            if (device < 0 ||
                device >= static_cast<int64_t>(c->client->devices().size())) {
              throw StatusError(absl::InvalidArgumentError(absl::StrCat(
                  "buffer_from_numpy: device ", device, " is not one of the ",
                  c->client->devices().size(), " device(s) of the client")));
            }
            auto b = std::make_unique<PyBuffer>();
            b->client = c;
            b->device = device;
            b->buffer = Upload(*c, array, device, std::nullopt, "array");
            return b;
          },
          py::arg("array"), py::arg("device") = 0)
      .def(
          "_deserialize",
          [](std::shared_ptr<PyClient> c, py::bytes bytes,
             std::vector<int64_t> device_assignment) {
            const std::string data = bytes;
            absl::StatusOr<std::unique_ptr<host::Executable>> exe;
            {
              py::gil_scoped_release release;
              exe = c->client->DeserializeExecutable(data);
            }
            auto e = std::make_unique<PyExecutable>();
            e->client = c;
            e->executable = ValueOrThrow(std::move(exe));
            e->device_assignment = std::move(device_assignment);
            return e;
          },
          py::arg("bytes"), py::arg("device_assignment"))
      .def("create_user_event",
           [](PyClient& c) {
             auto e = std::make_unique<PyEvent>();
             e->event = ValueOrThrow(c.client->CreateUserEvent());
             return e;
           })
      .def(
          "_compile",
          [](std::shared_ptr<PyClient> c, py::object program,
             int64_t num_replicas, int64_t num_partitions,
             std::vector<int64_t> device_assignment, int32_t optimization_level,
             std::vector<std::string> custom_call_libraries, bool optimize) {
            DynamicSignature dynamic;
            std::unique_ptr<Module> module =
                ModuleToCompile(program, optimize, &dynamic);
            host::CompileOptions options;
            options.num_replicas = num_replicas;
            options.num_partitions = num_partitions;
            options.device_assignment = device_assignment;
            options.optimization_level = optimization_level;
            options.custom_call_libraries = std::move(custom_call_libraries);
            absl::StatusOr<std::unique_ptr<host::Executable>> exe;
            {
              py::gil_scoped_release release;
              exe = host::CompileModule(*c->client, *module, options);
            }
            auto e = std::make_unique<PyExecutable>();
            e->client = c;
            e->executable = ValueOrThrow(std::move(exe));
            e->device_assignment = std::move(device_assignment);
            e->module_text = PrintModule(*module);
            e->dynamic = std::move(dynamic);
            return e;
          },
          py::arg("program"), py::arg("num_replicas"),
          py::arg("num_partitions"), py::arg("device_assignment"),
          py::arg("optimization_level"), py::arg("custom_call_libraries"),
          py::arg("optimize"));

  py::class_<PyDevice>(m, "Device")
      .def_property_readonly("id",
                             [](const PyDevice& d) {
                               return d.client->client->devices()[d.index].id;
                             })
      .def_property_readonly("index", [](const PyDevice& d) { return d.index; })
      .def_property_readonly("kind",
                             [](const PyDevice& d) {
                               return d.client->client->devices()[d.index].kind;
                             })
      .def_property_readonly(
          "memory_bytes",
          [](const PyDevice& d) {
            return d.client->client->devices()[d.index].memory_bytes;
          })
      .def_property_readonly("platform",
                             [](const PyDevice& d) {
                               return d.client->plugin->attributes().platform;
                             })
      .def_property_readonly(
          "attributes",
          [](const PyDevice& d) {
            return DeviceAttributes(d.client->client->devices()[d.index]);
          })
      .def_property_readonly(
          "memories",
          [](const PyDevice& d) {
            std::vector<host::MemoryInfo> memories =
                ValueOrThrow(d.client->client->Memories(d.index));
            py::list out;
            for (const host::MemoryInfo& mi : memories) {
              py::dict md;
              md["id"] = mi.id;
              md["kind"] = host::MemoryKindName(mi.kind);
              md["kind_name"] = mi.kind_name;
              out.append(md);
            }
            return out;
          })
      .def("__repr__", [](const PyDevice& d) {
        const host::DeviceInfo& info = d.client->client->devices()[d.index];
        return absl::StrCat("Device(id=", info.id, ", kind='", info.kind,
                            "', platform='",
                            d.client->plugin->attributes().platform, "')");
      });

  py::class_<PyBuffer>(m, "Buffer")
      .def_property_readonly(
          "shape", [](const PyBuffer& b) { return Dims(BufferShape(b)); })
      .def_property_readonly(
          "dtype",
          [](const PyBuffer& b) {
            return ValueOrThrow(DtypeFromType(BufferShape(b).element_type()));
          })
      .def_property_readonly(
          "hlo_shape",
          [](const PyBuffer& b) { return ShapeText(BufferShape(b)); })
      .def_property_readonly("device",
                             [](const PyBuffer& b) {
                               return PyDevice{b.client, b.device};
                             })
      .def("to_numpy", &ToNumpy,
           "Copies the buffer into a new numpy array (waits for it).")
      .def(
          "__array__",
          [](PyBuffer& b, py::object dtype) {
            py::array a = ToNumpy(b);
            if (dtype.is_none()) return a;
            return py::array(a.attr("astype")(dtype));
          },
          py::arg("dtype") = py::none())
      .def("to_numpy_async", &ToNumpyAsync,
           "Starts a copy into a new numpy array; .result() waits for it.")
      .def(
          "block_until_ready",
          [](PyBuffer& b) -> PyBuffer& {
            std::unique_ptr<host::Event> e =
                ValueOrThrow(b.buffer->ReadyEvent());
            Await(*e);
            return b;
          },
          py::return_value_policy::reference_internal)
      .def("is_ready",
           [](PyBuffer& b) {
             return ValueOrThrow(b.buffer->ReadyEvent())->IsReady();
           })
      .def("delete", [](PyBuffer& b) { ThrowIfError(b.buffer->Delete()); })
      .def_property_readonly(
          "is_deleted",
          [](PyBuffer& b) { return ValueOrThrow(b.buffer->IsDeleted()); })
      .def(
          "copy_to_device",
          [](PyBuffer& b, int64_t device) {
            auto out = std::make_unique<PyBuffer>();
            out->client = b.client;
            out->device = device;
            out->buffer =
                ValueOrThrow(b.client->client->CopyToDevice(*b.buffer, device));
            return out;
          },
          py::arg("device"))
      .def("__repr__", [](const PyBuffer& b) {
        absl::StatusOr<Shape> s = b.buffer->shape();
        return absl::StrCat("Buffer(", s.ok() ? s->ToString(false) : "?",
                            ", device=", b.device, ")");
      });

  py::class_<PyTransfer>(m, "Transfer")
      .def("done", [](PyTransfer& t) { return t.event->IsReady(); })
      .def("result", [](PyTransfer& t) {
        Await(*t.event);
        return t.array;
      });

  py::class_<PyExecutable>(m, "Executable")
      .def_property_readonly(
          "num_replicas",
          [](const PyExecutable& e) { return e.executable->num_replicas(); })
      .def_property_readonly(
          "num_partitions",
          [](const PyExecutable& e) { return e.executable->num_partitions(); })
      .def_property_readonly(
          "parameter_shapes",
          [](const PyExecutable& e) {
            return ShapeTexts(e.executable->parameter_shapes());
          })
      .def_property_readonly("output_shapes",
                             [](const PyExecutable& e) {
                               return ShapeTexts(e.executable->output_shapes());
                             })
      .def_property_readonly("program_shape",
                             [](const PyExecutable& e) -> py::object {
                               const auto& p = e.executable->program_shape();
                               if (!p.has_value()) return py::none();
                               return py::str(p->ToString());
                             })
      .def_property_readonly("_result_structure", &ResultStructure)
      .def_property_readonly(
          "_dynamic",
          [](const PyExecutable& e) { return DynamicSignatureDict(e.dynamic); })
      .def("as_text", [](const PyExecutable& e) { return e.module_text; })
      .def("serialize",
           [](const PyExecutable& e) {
             return py::bytes(ValueOrThrow(e.executable->Serialize()));
           })
      .def("statistics",
           [](const PyExecutable& e) {
             host::Executable::Statistics s =
                 ValueOrThrow(e.executable->GetStatistics());
             py::dict d;
             d["fingerprint"] = s.fingerprint;
             d["flops"] = s.flops;
             d["transcendentals"] = s.transcendentals;
             d["bytes_accessed"] = s.bytes_accessed;
             d["argument_bytes"] = s.argument_bytes;
             d["output_bytes"] = s.output_bytes;
             d["temp_bytes"] = s.temp_bytes;
             d["generated_code_bytes"] = s.generated_code_bytes;
             return d;
           })
      .def("_execute", &Execute, py::arg("per_replica"), py::arg("donated"),
           py::arg("async_"), py::arg("wait_for"));

  py::class_<PyEvent>(m, "Event")
      .def("is_ready", [](PyEvent& e) { return e.event->IsReady(); })
      .def("wait", [](PyEvent& e) { Await(*e.event); })
      .def(
          "set",
          [](PyEvent& e, const std::string& code, const std::string& message) {
            ThrowIfError(
                e.event->Set(absl::Status(StatusCodeByName(code), message)));
          },
          py::arg("code") = "OK", py::arg("message") = "",
          "Makes a user event ready: OK, or an error code name and message "
          "that the work waiting on it fails with.");
}

}  // namespace plexa::python
