"""Plugins, clients and executables: Python over Plexa's host library."""

import ctypes
import glob
import os
import threading
from collections import namedtuple

import numpy as np

from . import _plexa
from ._errors import InvalidArgumentError, NotFoundError

try:
    from . import _build_paths
    _BUILD_PLUGIN_DIRS = list(_build_paths.PLUGIN_DIRS)
except ImportError:  # an installed package has no build tree
    _BUILD_PLUGIN_DIRS = []

PluginInfo = namedtuple("PluginInfo", ["name", "path"])

_PREFIX = "libplexa_plugin_"


def plugin_search_path():
    """Where plugin names are looked up, in order: $PLEXA_PLUGIN_PATH
    (':'-separated), the build tree's bin/plugins, then the host library's
    own places (beside the program, DIR/plugins, DIR/../lib/plexa)."""
    dirs = [d for d in os.environ.get("PLEXA_PLUGIN_PATH", "").split(":") if d]
    dirs += _BUILD_PLUGIN_DIRS
    dirs += _plexa.Plugin.search_directories()
    seen, out = set(), []
    for d in dirs:
        if d not in seen:
            seen.add(d)
            out.append(d)
    return out


def plugins():
    """The plugins found on the search path (first of each name), as
    ``PluginInfo(name, path)``, without loading them."""
    found = {}
    for d in plugin_search_path():
        for path in sorted(glob.glob(os.path.join(d, _PREFIX + "*.so"))):
            name = os.path.basename(path)[len(_PREFIX):-len(".so")]
            found.setdefault(name, PluginInfo(name, path))
    return sorted(found.values())


_plugins_lock = threading.Lock()
_loaded = {}  # path -> Plugin
# ctypes function objects registered as custom calls: a plugin's registry
# is process-wide and keeps the pointer forever, so the object must live.
_kept_alive = []


def load_plugin(name_or_path):
    """Loads a plugin by name ("cpu", "reference", "onednn", "vulkan", ...)
    or by path (contains '/' or ends in '.so'). Loading the same file again
    returns the same Plugin."""
    if not isinstance(name_or_path, (str, os.PathLike)):
        raise InvalidArgumentError(
            f"load_plugin: expected a plugin name or path, got "
            f"{type(name_or_path).__name__}")
    name_or_path = os.fspath(name_or_path)
    if not name_or_path:
        raise InvalidArgumentError("load_plugin: the name is empty")
    if "/" in name_or_path or name_or_path.endswith(".so"):
        path = os.path.abspath(name_or_path)
        if not os.path.exists(path):
            raise NotFoundError(f"cannot load plugin '{name_or_path}': "
                                f"no such file")
    else:
        dirs = plugin_search_path()
        file = f"{_PREFIX}{name_or_path}.so"
        path = next((os.path.join(d, file) for d in dirs
                     if os.path.exists(os.path.join(d, file))), None)
        if path is None:
            raise NotFoundError(
                f"no plugin named '{name_or_path}': {file} is not in "
                f"{', '.join(dirs)} (set PLEXA_PLUGIN_PATH or give a path)")
    path = os.path.realpath(path)
    with _plugins_lock:
        if path not in _loaded:
            _loaded[path] = Plugin(_plexa.Plugin.load(path))
        return _loaded[path]


class Plugin:
    """A loaded backend plugin (a shared library speaking the C ABI)."""

    def __init__(self, impl):
        self._impl = impl

    @property
    def attributes(self):
        """name, vendor, version, platform, abi_version, formats,
        capabilities, path."""
        return self._impl.attributes

    name = property(lambda self: self._impl.name)
    platform = property(lambda self: self._impl.platform)
    abi_version = property(lambda self: self._impl.abi_version)
    path = property(lambda self: self._impl.path)

    def client(self, **options):
        """A new client; keyword arguments are the plugin's client options
        (``num_devices=2``, ``num_threads=4``, ``memory_limit_bytes=...``)."""
        return Client(self, self._impl._create_client(dict(options)))

    def register_custom_call(self, name, function, api_version=0,
                             platform="*"):
        """Registers a custom-call target with this plugin, process-wide.

        ``function`` is a ctypes function (``ctypes.CFUNCTYPE(None,
        c_void_p, POINTER(c_void_p))(fn)`` for api_version 0, the seed's
        ``void target(void* out, void** in)``; ``CFUNCTYPE(c_int32,
        c_void_p)`` for api_version 1, the typed call frame), a function
        of a ctypes.CDLL, or an integer address. The function object is
        kept alive for the rest of the process (the registry keeps the
        pointer)."""
        if not isinstance(name, str) or not name:
            raise InvalidArgumentError(
                "register_custom_call: the name must be a non-empty str")
        if api_version not in (0, 1):
            raise InvalidArgumentError(
                f"register_custom_call('{name}'): api_version is 0 (void "
                f"target(void* out, void** in)) or 1 (the typed call frame), "
                f"not {api_version!r}")
        if isinstance(function, int) and not isinstance(function, bool):
            address = function
        elif isinstance(function, ctypes._CFuncPtr):
            address = ctypes.cast(function, ctypes.c_void_p).value
        else:
            raise InvalidArgumentError(
                f"register_custom_call('{name}'): expected a ctypes function "
                f"or an integer address, got {type(function).__name__}")
        if not address:
            raise InvalidArgumentError(
                f"register_custom_call('{name}'): the function is NULL")
        self._impl._register_custom_call(name, address, api_version, platform)
        _kept_alive.append(function)

    def __repr__(self):
        major, minor = self.abi_version
        return (f"Plugin(name='{self.name}', platform='{self.platform}', "
                f"abi={major}.{minor}, path='{self.path}')")


def _result(structure, leaves):
    if structure is None:
        return None
    if isinstance(structure, tuple):
        return tuple(_result(s, leaves) for s in structure)
    return leaves[structure]


def _donated(donate_argnums, num_args):
    donated = sorted(set(int(i) for i in donate_argnums))
    for i in donated:
        if not 0 <= i < num_args:
            raise InvalidArgumentError(
                f"donate_argnums: {i} is not an argument index (the "
                f"executable takes {num_args})")
    return donated


class Client:
    """A plugin's client: its devices, buffers and executables."""

    def __init__(self, plugin, impl):
        self.plugin = plugin
        self._impl = impl

    platform = property(lambda self: self._impl.platform)

    @property
    def devices(self):
        return self._impl.devices

    def buffer_from_numpy(self, array, device=0):
        """Copies an array (any numpy view: strided views go as their
        strides, without a copy here) to a device buffer."""
        return self._impl.buffer_from_numpy(array, device)

    def deserialize_executable(self, data, *, device_assignment=None):
        """An executable from ``Executable.serialize()`` bytes of the same
        plugin build (plugins with the serialize-executable capability;
        another plugin's bytes are INVALID_ARGUMENT)."""
        if not isinstance(data, (bytes, bytearray)):
            raise InvalidArgumentError(
                f"deserialize_executable: expected bytes, got "
                f"{type(data).__name__}")
        return Executable(self, self._impl._deserialize(
            bytes(data), list(device_assignment or [])))

    def create_user_event(self):
        """An event the host sets (``event.set()``, or ``event.set(code,
        message)`` to fail what waits on it); executions given it in
        ``wait_for`` wait for it inside the plugin."""
        return self._impl.create_user_event()

    def compile(self, program, *, num_replicas=1, num_partitions=1,
                device_assignment=None, optimization_level=2,
                custom_call_libraries=(), optimize=True):
        """Compiles a ``plexa.Module`` or HLO text. The default pass
        pipeline runs first (on a copy) unless ``optimize=False``.
        ``num_partitions`` > 1 runs an SPMD-partitioned program on every
        replica and partition (``execute_replicated`` then takes one
        argument list per device, replica-major: replica r, partition p at
        ``r * num_partitions + p``).
        ``custom_call_libraries``: shared libraries whose exported
        functions are custom-call targets (searched after the registry,
        before the process)."""
        if isinstance(custom_call_libraries, (str, os.PathLike)):
            custom_call_libraries = [custom_call_libraries]
        libs = []
        for lib in custom_call_libraries:
            lib = os.fspath(lib)
            # A relative path means the working directory (dlopen would
            # search the library path for a bare name).
            libs.append(os.path.abspath(lib) if os.path.exists(lib) else lib)
        for name, count in (("num_replicas", num_replicas),
                            ("num_partitions", num_partitions)):
            if not isinstance(count, int) or count < 1:
                raise InvalidArgumentError(
                    f"compile: {name} must be a positive int, got {count!r}")
        impl = self._impl._compile(program, num_replicas, num_partitions,
                                   list(device_assignment or []),
                                   optimization_level, libs, optimize)
        return Executable(self, impl)

    def __repr__(self):
        return (f"Client(platform='{self.platform}', "
                f"devices={len(self.devices)})")


class Executable:
    """A compiled program. ``exe(*arrays)`` runs it on numpy arrays (or
    Buffers of the same client) and returns numpy arrays: one array, or a
    tuple for a tuple result."""

    def __init__(self, client, impl):
        self.client = client
        self._impl = impl

    num_replicas = property(lambda self: self._impl.num_replicas)
    num_partitions = property(lambda self: self._impl.num_partitions)
    parameter_shapes = property(lambda self: self._impl.parameter_shapes)
    output_shapes = property(lambda self: self._impl.output_shapes)
    program_shape = property(lambda self: self._impl.program_shape)

    def as_text(self):
        """The module that was compiled (after the host's passes)."""
        return self._impl.as_text()

    def statistics(self):
        """The plugin's PLX_Executable_Statistics: fingerprint, flops,
        bytes, temporaries (-1 where it does not know)."""
        return self._impl.statistics()

    def serialize(self):
        """The executable as bytes (Client.deserialize_executable loads
        them); UNIMPLEMENTED on a plugin without serialization."""
        return self._impl.serialize()

    def _pad_dynamic(self, args):
        """Arguments of dynamic parameters (f32[<=8]) at their run-time
        sizes: padded to their bounds, their sizes appended
        (docs/dynamic_shapes.md)."""
        dyn = self._impl._dynamic
        if dyn is None:
            return tuple(args)
        params = dyn["parameters"]
        if len(args) != len(params):
            raise InvalidArgumentError(
                f"the program takes {len(params)} argument(s), got "
                f"{len(args)}")
        out = []
        for p, (arg, (bounds, flags)) in enumerate(zip(args, params)):
            if not any(flags):
                out.append(arg)
                continue
            if not isinstance(arg, np.ndarray) and hasattr(arg, "to_numpy"):
                raise InvalidArgumentError(
                    f"argument {p}: a parameter with dynamic dimensions "
                    f"takes an array (its sizes are read from it), not a "
                    f"device Buffer")
            a = np.asarray(arg)
            if a.ndim != len(bounds) or any(
                    (a.shape[d] > b) if f else (a.shape[d] != b)
                    for d, (b, f) in enumerate(zip(bounds, flags))):
                want = ",".join(("<=" if f else "") + str(b)
                                for b, f in zip(bounds, flags))
                raise InvalidArgumentError(
                    f"argument {p} has shape {list(a.shape)} but parameter "
                    f"{p} is [{want}]")
            out.append(np.pad(a, [(0, b - n) for b, n in zip(bounds,
                                                             a.shape)]))
        for p, d in dyn["parameter_sizes"]:
            out.append(np.int32(np.asarray(args[p]).shape[d]))
        return tuple(out)

    def _cut_dynamic(self, result):
        """The lowered result (value, size...) cut to its run-time sizes."""
        dyn = self._impl._dynamic
        if dyn is None or not dyn["result_sizes"]:
            return result
        value, sizes = result[0], result[1:]
        parts = list(value) if isinstance(value, tuple) else [value]
        for (element, d), size in zip(dyn["result_sizes"], sizes):
            e = max(element, 0)
            index = [slice(None)] * parts[e].ndim
            index[d] = slice(0, int(size))
            parts[e] = parts[e][tuple(index)]
        return tuple(parts) if isinstance(value, tuple) else parts[0]

    def _run(self, per_replica, donate_argnums, async_, wait_for):
        per_replica = [self._pad_dynamic(a) for a in per_replica]
        nargs = len(per_replica[0]) if per_replica else 0
        donated = _donated(donate_argnums, nargs)
        return self._impl._execute([list(a) for a in per_replica], donated,
                                   async_, list(wait_for))

    def execute(self, *args, donate_argnums=(), wait_for=()):
        """Runs one replica; waits; returns numpy arrays. ``wait_for``:
        user events (Client.create_user_event) to wait for first."""
        self._one_replica("execute")
        outs = self._run([args], donate_argnums, False, wait_for)[0]
        return self._cut_dynamic(_result(self._impl._result_structure,
                                         [b.to_numpy() for b in outs]))

    __call__ = execute

    def execute_async(self, *args, donate_argnums=(), wait_for=()):
        """Runs one replica without waiting: returns device Buffers (one,
        or a tuple) that may still be computing. ``.block_until_ready()``
        waits, ``.to_numpy()`` waits and copies; they can be passed straight
        to another execution. The execution starts inside the plugin once
        its arguments and the user events in ``wait_for`` are ready; its
        error, if it fails, is raised by whatever waits for its buffers (or
        at once, when the plugin could run it at once)."""
        self._one_replica("execute_async")
        if self._impl._dynamic is not None and \
                self._impl._dynamic["result_sizes"]:
            raise InvalidArgumentError(
                "execute_async: the result has dynamic dimensions, whose "
                "sizes are known once it is computed; use execute")
        outs = self._run([args], donate_argnums, True, wait_for)[0]
        return _result(self._impl._result_structure, outs)

    def execute_replicated(self, per_replica_args, donate_argnums=(),
                           wait_for=()):
        """``per_replica_args[r]`` are replica r's arguments; returns a list
        with each replica's result (numpy arrays). With partitions, one
        entry per device: replica r, partition p at
        ``r * num_partitions + p``."""
        per_replica_args = [tuple(a) for a in per_replica_args]
        outs = self._run(per_replica_args, donate_argnums, False, wait_for)
        structure = self._impl._result_structure
        return [self._cut_dynamic(_result(structure,
                                          [b.to_numpy() for b in o]))
                for o in outs]

    def _one_replica(self, what):
        if self.num_replicas * self.num_partitions != 1:
            raise InvalidArgumentError(
                f"{what}: the executable runs {self.num_replicas} replicas "
                f"x {self.num_partitions} partitions; "
                f"use execute_replicated([args of replica 0, ...])")

    def __repr__(self):
        return f"Executable({self.program_shape})"


_default_clients = {}


def client(backend="cpu", **options):
    """The shared client of a backend (name or path) with these options,
    created on first use (what ``plexa.jit`` uses)."""
    key = (backend, tuple(sorted(options.items())))
    with _plugins_lock:
        c = _default_clients.get(key)
    if c is None:
        c = load_plugin(backend).client(**options)
        with _plugins_lock:
            c = _default_clients.setdefault(key, c)
    return c
