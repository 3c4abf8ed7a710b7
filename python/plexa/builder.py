"""A numpy-like front end over Plexa's C++ builder (core/builder).

Inside ``plexa.jit`` (or ``plexa.builder.trace``) the arguments of the
traced function are ``plexa.builder.Array`` values: operations on them add
HLO instructions through the C++ builder, which checks every operation with
shape inference and lowers implicit broadcasting to explicit ``broadcast``
instructions (seed 003). What is added here is numpy's spelling:

* numpy broadcasting: a lower-rank operand is matched to the trailing
  dimensions of the higher-rank one (``broadcast_dimensions`` = the last
  dimensions), then size-1 dimensions stretch ("degenerate" broadcasting);
  the XLA form is there too: ``plexa.add(x, v, broadcast_dimensions=(0,))``.
* numpy's type promotion: ``np.promote_types`` between arrays and numpy's
  value-based rule for Python scalars (``x + 1`` keeps ``x``'s dtype), the
  conversions made explicit (``convert``);
* numpy's integer division and modulo (floor, sign of the divisor), true
  division and transcendental functions of integers in float64, ``sum`` of
  small integers in int64 — what numpy gives, so numpy is the oracle.
"""

import builtins
import numbers
import operator

import numpy as np

from . import _plexa
from ._errors import InvalidArgumentError

_TYPE_NAMES = {
    np.dtype(np.bool_): "pred",
    np.dtype(np.int8): "s8", np.dtype(np.int16): "s16",
    np.dtype(np.int32): "s32", np.dtype(np.int64): "s64",
    np.dtype(np.uint8): "u8", np.dtype(np.uint16): "u16",
    np.dtype(np.uint32): "u32", np.dtype(np.uint64): "u64",
    np.dtype(np.float16): "f16", np.dtype(np.float32): "f32",
    np.dtype(np.float64): "f64",
    np.dtype(np.complex64): "c64", np.dtype(np.complex128): "c128",
}
try:  # bfloat16 only with ml_dtypes
    import ml_dtypes
    _TYPE_NAMES[np.dtype(ml_dtypes.bfloat16)] = "bf16"
except ImportError:
    pass
_DTYPES = {v: k for k, v in _TYPE_NAMES.items()}


def type_name(dtype):
    """Plexa's spelling of a numpy dtype ("f32")."""
    dtype = np.dtype(dtype)
    try:
        return _TYPE_NAMES[dtype]
    except KeyError:
        raise InvalidArgumentError(
            f"numpy dtype {dtype} has no Plexa element type") from None


class _Trace:
    """One traced function: its builder and parameter count."""

    def __init__(self, name):
        self.builder = _plexa.Builder(name)

    def wrap(self, op):
        type_, dims = self.builder.shape(op)
        if type_ == "tuple":
            raise InvalidArgumentError("a tuple-shaped value is not an array")
        return Array(self, op, tuple(dims), _DTYPES[type_])

    def constant(self, value, dtype=None):
        array = np.asarray(value, dtype=dtype)
        type_name(array.dtype)  # refuses object arrays etc. by name
        return self.wrap(self.builder.constant(array))


class Array:
    """A traced array: a value of the function being built."""

    __array_priority__ = 1000  # numpy_array + Array -> Array.__radd__

    def __init__(self, trace, op, shape, dtype):
        self._trace = trace
        self._op = op
        self.shape = shape
        self.dtype = np.dtype(dtype)

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))
    T = property(lambda self: transpose(self))

    def __repr__(self):
        return f"plexa.Array({self.dtype}{list(self.shape)})"

    def __bool__(self):
        raise InvalidArgumentError(
            "a traced array has no Python truth value (its value is known "
            "only when the program runs): use plexa.where for data-dependent "
            "choices")

    def __len__(self):
        if not self.shape:
            raise InvalidArgumentError("len() of a 0-d array")
        return self.shape[0]

    def __iter__(self):
        raise InvalidArgumentError(
            "iterating over a traced array is not supported; index it")

    def __array__(self, dtype=None):
        raise InvalidArgumentError(
            "a traced array cannot become a numpy array while tracing")

    # Arithmetic (numpy's operators).
    __add__ = lambda self, o: add(self, o)
    __radd__ = lambda self, o: add(o, self)
    __sub__ = lambda self, o: subtract(self, o)
    __rsub__ = lambda self, o: subtract(o, self)
    __mul__ = lambda self, o: multiply(self, o)
    __rmul__ = lambda self, o: multiply(o, self)
    __truediv__ = lambda self, o: divide(self, o)
    __rtruediv__ = lambda self, o: divide(o, self)
    __floordiv__ = lambda self, o: floor_divide(self, o)
    __rfloordiv__ = lambda self, o: floor_divide(o, self)
    __mod__ = lambda self, o: mod(self, o)
    __rmod__ = lambda self, o: mod(o, self)
    __pow__ = lambda self, o: power(self, o)
    __rpow__ = lambda self, o: power(o, self)
    __matmul__ = lambda self, o: matmul(self, o)
    __rmatmul__ = lambda self, o: matmul(o, self)
    __and__ = lambda self, o: bitwise_and(self, o)
    __rand__ = lambda self, o: bitwise_and(o, self)
    __or__ = lambda self, o: bitwise_or(self, o)
    __ror__ = lambda self, o: bitwise_or(o, self)
    __xor__ = lambda self, o: bitwise_xor(self, o)
    __rxor__ = lambda self, o: bitwise_xor(o, self)
    __neg__ = lambda self: negative(self)
    __pos__ = lambda self: self
    __abs__ = lambda self: absolute(self)
    __invert__ = lambda self: invert(self)
    __lt__ = lambda self, o: less(self, o)
    __le__ = lambda self, o: less_equal(self, o)
    __gt__ = lambda self, o: greater(self, o)
    __ge__ = lambda self, o: greater_equal(self, o)
    __eq__ = lambda self, o: equal(self, o)
    __ne__ = lambda self, o: not_equal(self, o)
    __hash__ = None

    def reshape(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return reshape(self, shape)

    def transpose(self, *axes):
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        return transpose(self, axes or None)

    def astype(self, dtype):
        return astype(self, dtype)

    def sum(self, axis=None, keepdims=False):
        return sum(self, axis=axis, keepdims=keepdims)

    def prod(self, axis=None, keepdims=False):
        return prod(self, axis=axis, keepdims=keepdims)

    def max(self, axis=None, keepdims=False):
        return max(self, axis=axis, keepdims=keepdims)

    def min(self, axis=None, keepdims=False):
        return min(self, axis=axis, keepdims=keepdims)

    def mean(self, axis=None, keepdims=False):
        return mean(self, axis=axis, keepdims=keepdims)

    def __getitem__(self, index):
        return _getitem(self, index)


def _trace_of(*values):
    trace = None
    for v in values:
        if isinstance(v, Array):
            if trace is not None and v._trace is not trace:
                raise InvalidArgumentError(
                    "the operands come from different traced functions")
            trace = v._trace
    if trace is None:
        raise InvalidArgumentError(
            "plexa operations take at least one traced array (call them "
            "inside a function given to plexa.jit)")
    return trace


def _is_scalar(v):
    return isinstance(v, (bool, numbers.Number)) and not isinstance(
        v, np.ndarray)


def _result_dtype(values):
    """numpy's promotion: arrays by np.result_type, Python scalars by
    numpy's value-based rule against the arrays."""
    arrays = [v.dtype if isinstance(v, Array) else np.asarray(v).dtype
              for v in values if not _is_scalar(v)]
    scalars = [v for v in values if _is_scalar(v)]
    if not arrays:
        return np.result_type(*scalars)
    # 0-d numpy arrays stand in for the arrays' dtypes so that numpy 1.24
    # applies its scalar rule exactly as it would to the real arrays.
    return np.result_type(*[np.empty((1,), d) for d in arrays], *scalars)


def _as_array(trace, v, dtype):
    if isinstance(v, Array):
        return astype(v, dtype) if v.dtype != dtype else v
    return trace.constant(v, dtype)


def _promote(*values, dtype=None, trace=None):
    trace = trace or _trace_of(*values)
    dtype = np.dtype(dtype) if dtype is not None else _result_dtype(values)
    type_name(dtype)
    return trace, [_as_array(trace, v, dtype) for v in values]


def _numpy_bdims(x, y, broadcast_dimensions):
    """broadcast_dimensions for the builder: the caller's (XLA style), or
    numpy's trailing alignment of the lower-rank operand."""
    if broadcast_dimensions is not None:
        return [int(d) for d in broadcast_dimensions]
    if x.ndim == y.ndim or x.ndim == 0 or y.ndim == 0:
        return []
    lo, hi = sorted((x.ndim, y.ndim))
    return list(range(hi - lo, hi))


def _binary(opcode, x, y, broadcast_dimensions=None, dtype=None):
    trace, (x, y) = _promote(x, y, dtype=dtype)
    bdims = _numpy_bdims(x, y, broadcast_dimensions)
    return trace.wrap(trace.builder.binary(opcode, x._op, y._op, bdims))


def _compare(direction, x, y, broadcast_dimensions=None):
    trace, (x, y) = _promote(x, y)
    bdims = _numpy_bdims(x, y, broadcast_dimensions)
    return trace.wrap(trace.builder.compare(direction, x._op, y._op, bdims))


def _float_dtype(dtype):
    dtype = np.dtype(dtype)
    return dtype if dtype.kind in "fc" else np.dtype(np.float64)


def _unary(opcode, x, to_float=False):
    trace = _trace_of(x)
    if to_float and x.dtype.kind not in "fc" and x.dtype != _float_dtype(
            x.dtype):
        x = astype(x, np.float64)
    return trace.wrap(trace.builder.unary(opcode, x._op))


# ---------------------------------------------------------------- binary

def _arithmetic(name, opcode):
    def fn(x, y, broadcast_dimensions=None):
        return _binary(opcode, x, y, broadcast_dimensions)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"numpy's {name} (HLO {opcode}); broadcast_dimensions "
                  f"as XLA's, else numpy's broadcasting.")
    return fn


add = _arithmetic("add", "add")
subtract = _arithmetic("subtract", "subtract")
multiply = _arithmetic("multiply", "multiply")
maximum = _arithmetic("maximum", "maximum")
minimum = _arithmetic("minimum", "minimum")
power = _arithmetic("power", "power")


def divide(x, y, broadcast_dimensions=None):
    """True division: integers divide in float64, as numpy."""
    dtype = _float_dtype(_result_dtype([x, y]))
    return _binary("divide", x, y, broadcast_dimensions, dtype=dtype)


true_divide = divide


def arctan2(x, y, broadcast_dimensions=None):
    dtype = _float_dtype(_result_dtype([x, y]))
    return _binary("atan2", x, y, broadcast_dimensions, dtype=dtype)


def bitwise_and(x, y):
    return _binary("and", x, y)


def bitwise_or(x, y):
    return _binary("or", x, y)


def bitwise_xor(x, y):
    return _binary("xor", x, y)


logical_and = bitwise_and
logical_or = bitwise_or


def remainder(x, y):
    """C's fmod (HLO remainder): the sign of the dividend."""
    return _binary("remainder", x, y)


def mod(x, y):
    """numpy's mod: the sign of the divisor."""
    _, (x, y) = _promote(x, y)
    r = remainder(x, y)
    fix = bitwise_and(not_equal(r, 0), not_equal(less(r, 0), less(y, 0)))
    return where(fix, add(r, y), r)


def floor_divide(x, y):
    """numpy's floor division."""
    _, (x, y) = _promote(x, y)
    if x.dtype.kind in "fc":
        return floor(divide(x, y))
    q = _binary("divide", x, y)  # truncates
    if x.dtype.kind == "u":
        return q
    r = remainder(x, y)
    fix = bitwise_and(not_equal(r, 0), not_equal(less(r, 0), less(y, 0)))
    return where(fix, subtract(q, 1), q)


# ------------------------------------------------------------ comparisons

def _comparison(name, direction):
    def fn(x, y, broadcast_dimensions=None):
        return _compare(direction, x, y, broadcast_dimensions)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"numpy's {name}: HLO compare, direction={direction}."
    return fn


equal = _comparison("equal", "EQ")
not_equal = _comparison("not_equal", "NE")
less = _comparison("less", "LT")
less_equal = _comparison("less_equal", "LE")
greater = _comparison("greater", "GT")
greater_equal = _comparison("greater_equal", "GE")


# ---------------------------------------------------------------- unary

def negative(x):
    return _unary("negate", x)


def absolute(x):
    return _unary("abs", x)


abs = absolute


def invert(x):
    return _unary("not", x)


logical_not = invert


def _transcendental(name, opcode):
    """numpy's ``name``: HLO ``opcode``; integers and bools in float64."""

    def fn(x):
        return _unary(opcode, x, to_float=True)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"numpy's {name} (HLO {opcode}); integers in float64."
    return fn


exp = _transcendental("exp", "exponential")
log = _transcendental("log", "log")
sqrt = _transcendental("sqrt", "sqrt")
rsqrt = _transcendental("rsqrt", "rsqrt")
sin = _transcendental("sin", "sine")
cos = _transcendental("cos", "cosine")
tan = _transcendental("tan", "tan")
tanh = _transcendental("tanh", "tanh")
log1p = _transcendental("log1p", "log-plus-one")
expm1 = _transcendental("expm1", "exponential-minus-one")
sigmoid = _transcendental("sigmoid", "logistic")


def floor(x):
    return _unary("floor", x) if x.dtype.kind == "f" else x


def ceil(x):
    return _unary("ceil", x) if x.dtype.kind == "f" else x


def sign(x):
    return _unary("sign", x)


def astype(x, dtype):
    trace = _trace_of(x)
    dtype = np.dtype(dtype)
    if x.dtype == dtype:
        return x
    return trace.wrap(trace.builder.convert(x._op, type_name(dtype)))


# ------------------------------------------------------ shapes and select

def _shape_tuple(shape):
    if isinstance(shape, numbers.Integral):
        return (int(shape),)
    return tuple(int(d) for d in shape)


def reshape(x, shape):
    trace = _trace_of(x)
    shape = list(_shape_tuple(shape))
    if shape.count(-1) > 1:
        raise InvalidArgumentError(f"reshape: more than one -1 in {shape}")
    if -1 in shape:
        known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
        if known == 0 or x.size % known:
            raise InvalidArgumentError(
                f"reshape: cannot reshape {x.dtype}{list(x.shape)} into "
                f"{shape}")
        shape[shape.index(-1)] = x.size // known
    return trace.wrap(trace.builder.reshape(x._op, shape))


def transpose(x, axes=None):
    trace = _trace_of(x)
    if axes is None:
        axes = tuple(reversed(range(x.ndim)))
    axes = [_axis(a, x.ndim) for a in axes]
    return trace.wrap(trace.builder.transpose(x._op, axes))


def broadcast_to(x, shape):
    """numpy's broadcast_to: trailing alignment, size-1 dimensions stretch."""
    trace = _trace_of(x)
    shape = _shape_tuple(shape)
    if x.shape == shape:
        return x
    if x.ndim > len(shape):
        raise InvalidArgumentError(
            f"broadcast_to: {x.dtype}{list(x.shape)} has more dimensions "
            f"than {list(shape)}")
    bdims = list(range(len(shape) - x.ndim, len(shape)))
    return trace.wrap(trace.builder.broadcast_in_dim(x._op, list(shape), bdims))


def where(condition, x, y):
    """numpy's where: the three broadcast together."""
    trace = _trace_of(condition, x, y)
    _, (x, y) = _promote(x, y, trace=trace)
    if not isinstance(condition, Array):
        condition = trace.constant(condition, np.bool_)
    elif condition.dtype != np.bool_:
        condition = not_equal(condition, 0)
    shape = np.broadcast_shapes(condition.shape, x.shape, y.shape)
    c, x, y = (broadcast_to(v, shape) for v in (condition, x, y))
    return trace.wrap(trace.builder.select(c._op, x._op, y._op))


def clip(x, lo, hi):
    return minimum(maximum(x, lo), hi)


def concatenate(arrays, axis=0):
    trace = _trace_of(*arrays)
    _, arrays = _promote(*arrays)
    axis = _axis(axis, arrays[0].ndim)
    return trace.wrap(trace.builder.concatenate([a._op for a in arrays], axis))


def expand_dims(x, axis):
    axis = _axis(axis, x.ndim + 1)
    return reshape(x, x.shape[:axis] + (1,) + x.shape[axis:])


def squeeze(x, axis=None):
    if axis is None:
        return reshape(x, tuple(d for d in x.shape if d != 1))
    axes = {_axis(a, x.ndim) for a in (axis if isinstance(axis, (tuple, list))
                                       else (axis,))}
    for a in axes:
        if x.shape[a] != 1:
            raise InvalidArgumentError(
                f"squeeze: dimension {a} of {list(x.shape)} is not 1")
    return reshape(x, tuple(d for i, d in enumerate(x.shape) if i not in axes))


def _axis(axis, ndim):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise InvalidArgumentError(
            f"axis {axis} is out of range for an array of {ndim} dimension(s)")
    return axis % ndim if ndim else 0


def _getitem(x, index):
    if not isinstance(index, tuple):
        index = (index,)
    if any(isinstance(i, (Array, np.ndarray, list)) for i in index):
        raise InvalidArgumentError(
            "indexing with arrays (gather) is not supported; use ints, "
            "slices, None and ...")
    if index.count(Ellipsis) > 1:
        raise InvalidArgumentError("an index can have only one ellipsis")
    used = builtins.sum(1 for i in index if i is not None and i is not Ellipsis)
    if used > x.ndim:
        raise InvalidArgumentError(
            f"too many indices for an array of {x.ndim} dimension(s)")
    if Ellipsis in index:
        at = index.index(Ellipsis)
        index = index[:at] + (slice(None),) * (x.ndim - used) + index[at + 1:]
    else:
        index = index + (slice(None),) * (x.ndim - used)
    start, limit, strides, out_shape = [], [], [], []
    reverse = []
    dim = 0
    for i in index:
        if i is None:
            out_shape.append(("new", 1))
            continue
        n = x.shape[dim]
        if isinstance(i, slice):
            s, e, st = i.indices(n)
            if st < 0:
                # A negative step: reverse the dimension, then step forward.
                count = len(range(s, e, st))
                reverse.append(dim)
                s = n - 1 - s
                e = s + (count - 1) * (-st) + 1 if count else s
                st = -st
            else:
                count = len(range(s, e, st))
                e = s + (count - 1) * st + 1 if count else s
            start.append(s)
            limit.append(e)
            strides.append(st)
            out_shape.append(("keep", count))
        else:
            k = operator.index(i)
            if not -n <= k < n:
                raise InvalidArgumentError(
                    f"index {k} is out of bounds for dimension {dim} of "
                    f"size {n}")
            k %= n
            start.append(k)
            limit.append(k + 1)
            strides.append(1)
            out_shape.append(("drop", 1))
        dim += 1
    trace = x._trace
    v = x
    if reverse:
        v = trace.wrap(trace.builder.rev(v._op, reverse))
    v = trace.wrap(trace.builder.slice(v._op, start, limit, strides))
    final = tuple(n for kind, n in out_shape if kind != "drop")
    return reshape(v, final) if final != v.shape else v


# ---------------------------------------------------------------- linalg

def matmul(x, y):
    """numpy's matmul: 1-D operands are vectors, leading dimensions are
    batch dimensions broadcast together."""
    trace, (x, y) = _promote(x, y)
    if x.ndim == 0 or y.ndim == 0:
        raise InvalidArgumentError("matmul: operands must not be scalars")
    b = trace.builder
    if x.ndim == 1 and y.ndim == 1:
        return trace.wrap(b.dot_general(x._op, y._op, [0], [0], [], []))
    if x.ndim <= 2 and y.ndim <= 2:
        return trace.wrap(b.dot_general(x._op, y._op, [x.ndim - 1], [0], [],
                                        []))
    squeeze_x = x.ndim == 1
    squeeze_y = y.ndim == 1
    if squeeze_x:
        x = reshape(x, (1,) + x.shape)
    if squeeze_y:
        y = reshape(y, y.shape + (1,))
    batch = np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
    x = broadcast_to(x, batch + x.shape[-2:])
    y = broadcast_to(y, batch + y.shape[-2:])
    nb = len(batch)
    out = trace.wrap(b.dot_general(x._op, y._op, [nb + 1], [nb],
                                   list(range(nb)), list(range(nb))))
    if squeeze_x:
        out = squeeze(out, nb)
    if squeeze_y:
        out = squeeze(out, -1)
    return out


def dot(x, y):
    """numpy's dot for 1-D and 2-D operands (matmul)."""
    if x.ndim > 2 or y.ndim > 2:
        raise InvalidArgumentError(
            "dot: operands of more than 2 dimensions are not supported; use "
            "matmul")
    return matmul(x, y)


# ------------------------------------------------------------ reductions

def _axes(axis, ndim):
    if axis is None:
        return list(range(ndim))
    if isinstance(axis, (tuple, list)):
        axes = sorted({_axis(a, ndim) for a in axis})
    else:
        axes = [_axis(axis, ndim)]
    return axes


def _reduce(opcode, x, init, axis, keepdims):
    trace = _trace_of(x)
    axes = _axes(axis, x.ndim)
    init_op = trace.constant(init, x.dtype)
    out = trace.wrap(trace.builder.reduce(x._op, init_op._op, opcode, axes))
    if keepdims:
        out = reshape(out, tuple(1 if i in axes else d
                                 for i, d in enumerate(x.shape)))
    return out


def _sum_dtype(dtype):
    if dtype.kind == "b" or (dtype.kind == "i" and dtype.itemsize < 8):
        return np.dtype(np.int64)
    if dtype.kind == "u" and dtype.itemsize < 8:
        return np.dtype(np.uint64)
    return dtype


def sum(x, axis=None, keepdims=False):
    x = astype(x, _sum_dtype(x.dtype))
    return _reduce("add", x, 0, axis, keepdims)


def prod(x, axis=None, keepdims=False):
    x = astype(x, _sum_dtype(x.dtype))
    return _reduce("multiply", x, 1, axis, keepdims)


def _lowest(dtype):
    if dtype.kind == "b":
        return False
    if dtype.kind in "iu":
        return np.iinfo(dtype).min
    return -np.inf


def _highest(dtype):
    if dtype.kind == "b":
        return True
    if dtype.kind in "iu":
        return np.iinfo(dtype).max
    return np.inf


def max(x, axis=None, keepdims=False):
    if x.dtype.kind == "c":
        raise InvalidArgumentError("max of complex numbers is not defined")
    return _reduce("maximum", x, _lowest(x.dtype), axis, keepdims)


def min(x, axis=None, keepdims=False):
    if x.dtype.kind == "c":
        raise InvalidArgumentError("min of complex numbers is not defined")
    return _reduce("minimum", x, _highest(x.dtype), axis, keepdims)


amax = max
amin = min


def mean(x, axis=None, keepdims=False):
    count = int(np.prod([x.shape[a] for a in _axes(axis, x.ndim)],
                        dtype=np.int64))
    x = astype(x, _float_dtype(x.dtype))
    return divide(_reduce("add", x, 0, axis, keepdims), x.dtype.type(count))


def iota(dtype, shape, dimension=0, *, like):
    """0, 1, ... along ``dimension`` (HLO iota), in the trace of ``like``."""
    trace = _trace_of(like)
    shape = _shape_tuple(shape)
    return trace.wrap(trace.builder.iota(type_name(dtype), list(shape),
                                         _axis(dimension, len(shape))))


def custom_call(target, operands, shape, dtype, *, opaque="", api_version=0,
                has_side_effect=False):
    """A custom-call instruction calling ``target`` (registered with
    Plugin.register_custom_call or exported by a library named in
    ``custom_call_libraries``) with array operands, returning one array."""
    trace = _trace_of(*operands)
    return trace.wrap(trace.builder.custom_call(
        target, [o._op for o in operands], type_name(dtype),
        list(_shape_tuple(shape)), opaque, int(api_version),
        bool(has_side_effect)))


# ---------------------------------------------------------------- tracing

class ArraySpec:
    """The abstract value a parameter is traced with: shape and dtype."""

    def __init__(self, shape, dtype):
        self.shape = _shape_tuple(shape)
        self.dtype = np.dtype(dtype)
        type_name(self.dtype)

    def __repr__(self):
        return f"ArraySpec({self.shape}, {self.dtype})"


def _leaves_to_root(trace, out):
    if isinstance(out, (tuple, list)):
        return trace.builder.tuple([_leaves_to_root(trace, o) for o in out])
    if isinstance(out, Array):
        if out._trace is not trace:
            raise InvalidArgumentError(
                "the function returned a value of another traced function")
        return out._op
    if out is None:
        raise InvalidArgumentError(
            "the traced function returned None; return an array or a tuple "
            "of arrays")
    return trace.constant(out)._op


def trace(fn, specs, name=None):
    """Traces ``fn`` on parameters of the given ArraySpecs into a
    plexa.Module. ``specs`` may also hold non-ArraySpec values, passed to
    ``fn`` as they are (static arguments)."""
    name = name or getattr(fn, "__name__", "traced")
    t = _Trace(name if name != "<lambda>" else "lambda")
    args = []
    number = 0
    for s in specs:
        if isinstance(s, ArraySpec):
            op = t.builder.parameter(number, type_name(s.dtype),
                                     list(s.shape), f"arg{number}")
            args.append(Array(t, op, s.shape, s.dtype))
            number += 1
        else:
            args.append(s)
    out = fn(*args)
    root = _leaves_to_root(t, out)
    return t.builder.build(root)
