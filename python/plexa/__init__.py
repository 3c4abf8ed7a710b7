"""Plexa from Python: load plugins, compile HLO modules, run them on numpy
arrays, build programs with numpy-like operations and ``plexa.jit``.
See docs/python.md."""

from . import _plexa
from ._errors import (PlexaError, CancelledError, UnknownError,
                      InvalidArgumentError, DeadlineExceededError,
                      NotFoundError, AlreadyExistsError,
                      PermissionDeniedError, ResourceExhaustedError,
                      FailedPreconditionError, AbortedError, OutOfRangeError,
                      UnimplementedError, InternalError, UnavailableError,
                      DataLossError, UnauthenticatedError, ERROR_CLASSES)

_plexa._set_error_classes(ERROR_CLASSES)

from ._runtime import (Plugin, Client, Executable, PluginInfo, client,
                       load_plugin, plugins, plugin_search_path)
from . import builder
from .builder import (Array, ArraySpec, add, subtract, multiply, divide,
                      true_divide, floor_divide, mod, remainder, power,
                      maximum, minimum, arctan2, bitwise_and, bitwise_or,
                      bitwise_xor, logical_and, logical_or, logical_not,
                      invert, equal, not_equal, less, less_equal, greater,
                      greater_equal, negative, absolute, exp, log, sqrt,
                      rsqrt, sin, cos, tan, tanh, log1p, expm1, floor, ceil,
                      sign, sigmoid, astype, reshape, transpose,
                      broadcast_to, where, clip, concatenate, expand_dims,
                      squeeze, matmul, dot, sum, prod, max, min, amax, amin,
                      mean, iota, custom_call)
from .jit import jit, Jitted, Lowered, Compiled

Module = _plexa.Module
Buffer = _plexa.Buffer
Device = _plexa.Device
Event = _plexa.Event
Module.verify = Module.check
ABI_VERSION = _plexa.ABI_VERSION
registered_passes = _plexa.registered_passes


def parse(text):
    """Parses HLO text into a Module (INVALID_ARGUMENT with LINE:COL)."""
    if not isinstance(text, str):
        raise InvalidArgumentError(
            f"parse: expected HLO text (str), got {type(text).__name__}")
    return Module.parse(text)
