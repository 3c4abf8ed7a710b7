"""plexa.jit: trace a Python function over arrays once per signature,
compile it on a backend, cache the executable by signature, run it."""

import functools
import threading

import numpy as np

from . import _plexa
from . import builder as _builder
from ._errors import InvalidArgumentError
from ._runtime import client as _client


def _spec_of(value, position):
    if isinstance(value, _plexa.Buffer):
        return _builder.ArraySpec(value.shape, value.dtype)
    array = value if isinstance(value, np.ndarray) else np.asarray(value)
    if array.dtype == object:
        raise InvalidArgumentError(
            f"argument {position}: {type(value).__name__} is not an array "
            f"(mark it static with static_argnums)")
    try:
        return _builder.ArraySpec(array.shape, array.dtype)
    except InvalidArgumentError as e:
        raise InvalidArgumentError(f"argument {position}: {e.message}") from None


class Lowered:
    """A traced function: its module (``as_text()``), ready to compile."""

    def __init__(self, jitted, module):
        self._jitted = jitted
        self.module = module

    def as_text(self):
        return self.module.as_text()

    def compile(self):
        exe = self._jitted._client().compile(
            self.module, **self._jitted._compile_options)
        return Compiled(exe, self._jitted._dynamic_donations())


class Compiled:
    """An executable made by jit: call it with the traced arguments
    (static ones left out)."""

    def __init__(self, executable, donate_argnums=()):
        self.executable = executable
        self._donate = tuple(donate_argnums)

    def __call__(self, *args):
        return self.executable.execute(*args, donate_argnums=self._donate)

    def as_text(self):
        return self.executable.as_text()


class Jitted:
    """The function ``plexa.jit`` returns."""

    def __init__(self, fn, backend, static_argnums, client_options,
                 compile_options, donate_argnums=()):
        self._fn = fn
        self._backend = backend
        self._static = tuple(sorted(set(static_argnums)))
        self._donate = tuple(sorted(set(donate_argnums)))
        overlap = set(self._static) & set(self._donate)
        if overlap:
            raise InvalidArgumentError(
                f"jit: arguments {sorted(overlap)} are both static and "
                f"donated")
        self._client_options = dict(client_options)
        self._compile_options = dict(compile_options)
        self._cache = {}
        self._lock = threading.Lock()
        self.trace_count = 0
        functools.update_wrapper(self, fn)

    def _dynamic_donations(self):
        """donate_argnums counted among the non-static arguments (what the
        executable takes)."""
        return tuple(i - sum(1 for s in self._static if s < i)
                     for i in self._donate)

    def _client(self):
        return _client(self._backend, **self._client_options)

    def _signature(self, args):
        specs, key, dynamic = [], [], []
        for i, a in enumerate(args):
            if i in self._static:
                try:
                    hash(a)
                except TypeError:
                    raise InvalidArgumentError(
                        f"static argument {i} ({type(a).__name__}) is not "
                        f"hashable") from None
                specs.append(a)
                key.append(("static", a))
            else:
                s = _spec_of(a, i)
                specs.append(s)
                key.append((s.shape, s.dtype.str))
                dynamic.append(a)
        return specs, tuple(key), dynamic

    def _trace(self, specs):
        module = _builder.trace(self._fn, specs)
        self.trace_count += 1
        return module

    def lower(self, *args):
        """Traces for these arguments' shapes and dtypes (always anew)."""
        specs, _, _ = self._signature(args)
        return Lowered(self, self._trace(specs))

    def __call__(self, *args):
        specs, key, dynamic = self._signature(args)
        with self._lock:
            compiled = self._cache.get(key)
        if compiled is None:
            compiled = Lowered(self, self._trace(specs)).compile()
            with self._lock:
                compiled = self._cache.setdefault(key, compiled)
        return compiled(*dynamic)

    def cache_size(self):
        return len(self._cache)


def jit(fn=None, *, backend="cpu", static_argnums=(), donate_argnums=(),
        client_options=None, **compile_options):
    """Decorates ``fn(*arrays)``: traced into a module once per signature
    (the shapes and dtypes of its array arguments and the values of its
    static ones), compiled on ``backend`` (a plugin name or path), cached,
    run. ``donate_argnums``: Buffer arguments whose memory the execution
    may reuse (they are invalid afterwards). Extra keyword arguments go to
    Client.compile (``custom_call_libraries=[...]``, ``optimize=False``)."""
    if isinstance(static_argnums, int):
        static_argnums = (static_argnums,)
    if isinstance(donate_argnums, int):
        donate_argnums = (donate_argnums,)
    if fn is None:
        return functools.partial(jit, backend=backend,
                                 static_argnums=static_argnums,
                                 donate_argnums=donate_argnums,
                                 client_options=client_options,
                                 **compile_options)
    return Jitted(fn, backend, static_argnums, client_options or {},
                  compile_options, donate_argnums)
