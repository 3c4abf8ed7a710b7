#!/usr/bin/python3
"""Generates the conformance cases in tests/conformance/cases/.

Run once (with Debian's /usr/bin/python3 and its numpy); the output is
committed and the tests never need numpy. Every expected value comes from a
numpy computation written here, or from a seed document / hand computation
written here with a comment naming its source -- never from Plexa's own code.

The script is deterministic (fixed seeds, RandomState) and regenerate-safe:
it deletes and rewrites the whole cases/ directory, except the cases
other generators write (OWN_GENERATOR_CASES).

    /usr/bin/python3 tests/conformance/gen_cases.py

File format: see tests/conformance/README.md.
"""

import math
import os
import struct
import sys
from collections import OrderedDict

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CASES_DIR = os.path.join(HERE, 'cases')

np.seterr(all='ignore')

# ----------------------------------------------------------------------------
# Element types
# ----------------------------------------------------------------------------

INT_BITS = {'s8': 8, 's16': 16, 's32': 32, 's64': 64,
            'u8': 8, 'u16': 16, 'u32': 32, 'u64': 64}
NP_DTYPE = {
    'pred': np.bool_, 's8': np.int8, 's16': np.int16, 's32': np.int32,
    's64': np.int64, 'u8': np.uint8, 'u16': np.uint16, 'u32': np.uint32,
    'u64': np.uint64, 'f16': np.float16,
    # bf16 has no numpy dtype: values are kept in float32 arrays and are
    # always exactly representable in bf16 (see bf16_from_f32/f64).
    'bf16': np.float32, 'f32': np.float32, 'f64': np.float64,
    'c64': np.complex64, 'c128': np.complex128,
}
FLOATS = ('f16', 'bf16', 'f32', 'f64')
COMPLEX = ('c64', 'c128')


def is_int(t):
    return t in INT_BITS


def is_signed(t):
    return t.startswith('s')


def is_float(t):
    return t in FLOATS


def is_complex(t):
    return t in COMPLEX


def int_min(t):
    return -(1 << (INT_BITS[t] - 1)) if is_signed(t) else 0


def int_max(t):
    b = INT_BITS[t]
    return (1 << (b - 1)) - 1 if is_signed(t) else (1 << b) - 1


def wrap(v, t):
    """Two's complement wrap-around of a Python int into type t."""
    b = INT_BITS[t]
    v = int(v) & ((1 << b) - 1)
    if is_signed(t) and v >= (1 << (b - 1)):
        v -= 1 << b
    return v


# ---- rounding to the narrow float types -------------------------------------

def bf16_from_f32(x):
    """float32 -> bf16 by bit manipulation: round-to-nearest-even of the
    upper 16 bits; NaN stays (quiet) NaN. Returns float32 values."""
    x = np.asarray(x, dtype=np.float32)
    shape = x.shape
    x = np.atleast_1d(x)
    b = x.view(np.uint32).astype(np.int64)
    r = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF
    r = np.where(np.isnan(x), (b >> 16) | 0x40, r)
    return (r.astype(np.uint32) << 16).view(np.float32).reshape(shape)


def _round_binary(x, prec, emin, maxval):
    """Exact round-to-nearest-even of a double to a binary format with
    `prec` significant bits, minimum normal exponent `emin` (frexp style,
    value = m * 2^e with m in [0.5, 1)) and largest finite value maxval."""
    x = float(x)
    if math.isnan(x) or math.isinf(x) or x == 0.0:
        return x
    m, e = math.frexp(abs(x))
    q = max(e, emin) - prec
    r = round(math.ldexp(abs(x), -q))  # Python rounds half to even
    v = math.ldexp(r, q)
    if v > maxval:
        v = math.inf
    return math.copysign(v, x)


def bf16_from_f64(x):
    """float64 -> bf16 rounded once (RNE). Returns float32 values."""
    x = np.asarray(x, dtype=np.float64)
    out = np.array([_round_binary(v, 8, -125, 3.3895313892515355e38)
                    for v in x.ravel()], dtype=np.float64)
    return out.astype(np.float32).reshape(x.shape)


def f16_from_f64(x):
    """float64 -> f16 rounded once (numpy converts double->half directly)."""
    return np.asarray(x, dtype=np.float64).astype(np.float16)


def round_result(t, x64):
    """Result of a float computation done in higher precision: f32/f64 are
    rounded once; f16/bf16 are computed in float32 then rounded to the type
    (how the evaluators compute narrow types)."""
    x64 = np.asarray(x64)
    if t == 'f64':
        return x64.astype(np.float64)
    if t == 'f32':
        return x64.astype(np.float32)
    if t == 'f16':
        return x64.astype(np.float32).astype(np.float16)
    if t == 'bf16':
        return bf16_from_f32(x64.astype(np.float32))
    if t == 'c64':
        return x64.astype(np.complex64)
    if t == 'c128':
        return x64.astype(np.complex128)
    raise ValueError(t)


def make(t, data):
    """A numpy array of type t from Python data (exactly rounded once)."""
    if t == 'pred':
        return np.asarray(data, dtype=np.bool_)
    if is_int(t):
        a = np.asarray(data, dtype=object)
        flat = [wrap(v, t) for v in a.ravel()]
        return np.array(flat, dtype=NP_DTYPE[t]).reshape(a.shape)
    if t == 'f16':
        return f16_from_f64(data)
    if t == 'bf16':
        return bf16_from_f64(data)
    return np.asarray(data, dtype=NP_DTYPE[t])


# ----------------------------------------------------------------------------
# Literal text
# ----------------------------------------------------------------------------

def fmt_float(t, v, signed_nan=True):
    v = float(v)
    if math.isnan(v):
        neg = math.copysign(1.0, v) < 0
        return '-nan' if (neg and signed_nan) else 'nan'
    if math.isinf(v):
        return 'inf' if v > 0 else '-inf'
    if t == 'f32':
        s = repr(np.float32(v))
        assert np.float32(float(s)) == np.float32(v), (s, v)
    else:
        # f64: shortest round trip; f16/bf16: the exact value (every f16 and
        # bf16 value is a double, and repr() of a double is exact enough to
        # read back the same double).
        s = repr(v)
        assert float(s) == v
    if s.endswith('.0'):
        s = s[:-2]
    return s


def fmt_scalar(t, v, signed_nan=True):
    if t == 'pred':
        return 'true' if bool(v) else 'false'
    if is_int(t):
        return str(int(v))
    if is_complex(t):
        ct = 'f32' if t == 'c64' else 'f64'
        v = complex(v)
        return '(%s, %s)' % (fmt_float(ct, v.real, signed_nan),
                             fmt_float(ct, v.imag, signed_nan))
    return fmt_float(t, v, signed_nan)


def fmt_array(t, a, signed_nan=True):
    a = np.asarray(a)
    if a.ndim == 0:
        return fmt_scalar(t, a[()], signed_nan)

    def rec(x):
        if x.ndim == 1:
            return '{' + ', '.join(fmt_scalar(t, v, signed_nan)
                                   for v in x) + '}'
        if x.shape[0] == 0:
            return '{}'
        return '{ ' + ', '.join(rec(s) for s in x) + ' }'
    return rec(a)


def shape_str(t, dims, layout=None):
    s = '%s[%s]' % (t, ','.join(str(d) for d in dims))
    if layout is not None:
        s += '{%s}' % ','.join(str(d) for d in layout)
    return s


class V:
    """An array value: element type, numpy data, optional layout."""

    def __init__(self, t, data, layout=None):
        self.t = t
        if isinstance(data, np.ndarray) and data.dtype == np.dtype(
                NP_DTYPE[t]):
            self.a = data
        else:
            self.a = make(t, data)
        if t == 'bf16':
            chk = bf16_from_f32(self.a)
            assert np.array_equal(chk, self.a, equal_nan=True), self.a
        self.layout = layout

    @property
    def dims(self):
        return list(self.a.shape)

    def shape(self, layout=True):
        return shape_str(self.t, self.dims, self.layout if layout else None)

    def lit(self, signed_nan=True):
        return fmt_array(self.t, self.a, signed_nan)

    def typed(self, signed_nan=True):
        return '%s %s' % (self.shape(), self.lit(signed_nan))


class Tup:
    def __init__(self, *elems):
        self.elems = list(elems)

    def shape(self, layout=True):
        return '(' + ', '.join(e.shape(layout) for e in self.elems) + ')'

    def typed(self, signed_nan=True):
        if not self.elems:
            return '( )'
        return '( ' + ', '.join(e.typed(signed_nan)
                                for e in self.elems) + ' )'


class Tok:
    def shape(self, layout=True):
        return 'token[]'

    def typed(self, signed_nan=True):
        return 'token[]'


def S(t, *dims, layout=None):
    """Shape text."""
    return shape_str(t, dims, layout)


# ----------------------------------------------------------------------------
# HLO text builder
# ----------------------------------------------------------------------------

class Comp:
    """One HLO computation, printed the way XLA prints it."""

    def __init__(self, name, entry=False):
        self.name = name
        self.entry = entry
        self.params = []
        self.lines = []
        self.root_shape = None
        self.used = set()
        self.has_root = False

    def _fresh(self, base):
        base = base.replace('-', '_')
        name = base
        i = 1
        while name in self.used:
            name = '%s.%d' % (base, i)
            i += 1
        self.used.add(name)
        return name

    def param(self, shape, name=None):
        i = len(self.params)
        name = self._fresh(name or 'p%d' % i)
        self.params.append((name, shape))
        self.lines.append('%%%s = %s parameter(%d)' % (name, shape, i))
        return '%' + name

    def op(self, shape, expr, name=None):
        base = name or expr.split('(')[0]
        name = self._fresh(base)
        self.lines.append('%%%s = %s %s' % (name, shape, expr))
        self.root_shape = shape
        return '%' + name

    def root(self, shape, expr, name=None):
        r = self.op(shape, expr, name)
        self.lines[-1] = 'ROOT ' + self.lines[-1]
        self.has_root = True
        return r

    def text(self):
        assert self.has_root, self.name
        sig = ', '.join('%s: %s' % (n, s) for n, s in self.params)
        head = '%s%%%s (%s) -> %s {' % ('ENTRY ' if self.entry else '',
                                        self.name, sig, self.root_shape)
        return head + '\n' + '\n'.join('  ' + l for l in self.lines) + '\n}\n'


def module(name, entry, *comps):
    parts = ['HloModule %s\n' % name]
    for c in comps:
        parts.append(c.text())
    parts.append(entry.text())
    return '\n'.join(parts)


def scalar_comp(name, opname, t, attrs=''):
    """(a: t[], b: t[]) -> t[] { ROOT op(a, b) } ."""
    c = Comp(name)
    a = c.param(S(t), 'a')
    b = c.param(S(t), 'b')
    out_t = 'pred' if opname == 'compare' else t
    c.root(S(out_t), '%s(%s, %s)%s' % (opname, a, b, attrs), 'r')
    return c


def add_comp(t):
    return scalar_comp('add_' + t, 'add', t)


def max_comp(t):
    return scalar_comp('max_' + t, 'maximum', t)


def min_comp(t):
    return scalar_comp('min_' + t, 'minimum', t)


def mul_comp(t):
    return scalar_comp('mul_' + t, 'multiply', t)


def lit_of(t, data):
    """constant() operand text for a value."""
    return fmt_array(t, make(t, data))


def const(c, t, data, dims=None, name='c'):
    a = make(t, data)
    return c.op(shape_str(t, a.shape), 'constant(%s)' % fmt_array(t, a),
                name)


# ----------------------------------------------------------------------------
# Case registry and writer
# ----------------------------------------------------------------------------

CASES = OrderedDict()


def tol_str(rtol=None, atol=None, ulps=None, bits=False):
    parts = []
    if rtol is not None:
        parts.append('rtol=%g' % rtol)
    if atol is not None:
        parts.append('atol=%g' % atol)
    if ulps is not None:
        parts.append('ulps=%d' % ulps)
    if bits:
        parts.append('bits')
    return ' '.join(parts)


# Tolerances used throughout.
TOL_TRANS_F32 = tol_str(rtol=1e-5, atol=1e-6)
TOL_TRANS_F64 = tol_str(rtol=1e-13, atol=1e-15)
TOL_ULP1 = tol_str(ulps=1)
TOL_SUM_F32 = tol_str(rtol=1e-5, atol=1e-5)


def tol_for(t, kind='trans'):
    if t in ('f16', 'bf16'):
        return TOL_ULP1
    if t in ('f32', 'c64'):
        return TOL_TRANS_F32 if kind == 'trans' else TOL_SUM_F32
    if t in ('f64', 'c128'):
        return TOL_TRANS_F64
    return None


def add_case(group, name, source, hlo, inputs, expect, tol=None,
             notes=(), replica_inputs=None, replica_expects=None,
             checks=None, infeed=None, outfeed=None):
    key = '%s/%s' % (group, name)
    assert key not in CASES, key
    assert all(ch.isalnum() or ch == '_' for ch in name), name
    assert '__' not in name and not name.startswith('_'), name
    lines = ['// source: %s' % source]
    for n in notes:
        lines.append('// note: %s' % n)
    if replica_inputs is not None:
        lines.append('// replicas: %d' % len(replica_inputs))
        for r, ins in enumerate(replica_inputs):
            for v in ins:
                lines.append('// replica %d input: %s' % (r, v.typed()))
    for v in inputs:
        lines.append('// input: %s' % v.typed())
    if infeed is not None:
        for v in infeed:
            lines.append('// infeed: %s' % v.typed())
    if outfeed is not None:
        for v in outfeed:
            lines.append('// outfeed: %s' % v.typed(signed_nan=False))
    if expect is not None:
        lines.append('// expect: %s' % expect.typed(signed_nan=False))
    if replica_expects is not None:
        for r, v in enumerate(replica_expects):
            lines.append('// replica %d expect: %s' %
                         (r, v.typed(signed_nan=False)))
    if checks is not None:
        for ck in checks:
            lines.append('// check: %s' % ck)
    if tol:
        lines.append('// tolerance: %s' % tol)
    CASES[key] = '\n'.join(lines) + '\n' + hlo


# Cases this script does not write (other generators', and some written by
# hand): a group and the name prefixes of its files ('' = the whole
# folder). The opcode check counts them, and write_all leaves them in place.
OWN_GENERATOR_CASES = OrderedDict([
    ('dynamic', ('',)),                  # gen_dynamic_cases.py
    ('ragged_dot', ('',)),               # gen_ragged_dot_cases.py
    ('mulhi', ('',)),                    # gen_new_opcode_cases.py ...
    ('scan', ('',)),
    ('shuffle', ('',)),
    ('scaled_dot', ('',)),
    ('sparse_dot', ('',)),
    ('collective', ('ragged_all_to_all_', 'collective_reduce_',
                    # written by hand (no generator), values by hand:
                    'all_reduce_column_major_one_replica',
                    'all_reduce_constrained_layout',
                    'collective_permute_combined',
                    'all_reduce_array_reducer')),
    # Written by hand, with their values worked out by hand or from numpy
    # once; no generator rewrites them.
    ('spmd', ('',)),
    ('dot', ('outer_product_f32_matrix', 'outer_product_s64', 'mixed_')),
    ('gather_scatter', ('gather_from_empty_operand',)),
    ('layout', ('conditional_tiled_operands',
                'copy_layout_change_before_bitcast',
                'dot_column_major_then_bitcast', 'tiled_bitcast_padded',
                'tuple_tiled_results', 'while_tiled_state')),
    ('reduce_window', ('scalar_no_window',)),
])


def is_own_generator_case(key):
    """key: 'group/name' (without .hlo)."""
    group, name = key.split('/', 1)
    return name.startswith(OWN_GENERATOR_CASES.get(group, ()))


def own_generator_files():
    """The case files other generators wrote, as paths under CASES_DIR."""
    out = []
    for group in OWN_GENERATOR_CASES:
        d = os.path.join(CASES_DIR, group)
        for fn in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if is_own_generator_case('%s/%s' % (group, fn[:-len('.hlo')])):
                out.append(os.path.join(d, fn))
    return out


def write_all():
    """Rewrites every case this script owns: all files under CASES_DIR
    except own_generator_files() are deleted first."""
    for key in CASES:
        assert not is_own_generator_case(key), key
    keep = set(own_generator_files())
    if os.path.isdir(CASES_DIR):
        for root, dirs, files in os.walk(CASES_DIR, topdown=False):
            for fn in files:
                path = os.path.join(root, fn)
                if path not in keep:
                    os.remove(path)
            if not os.listdir(root):
                os.rmdir(root)
    for key, text in CASES.items():
        path = os.path.join(CASES_DIR, key + '.hlo')
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w') as f:
            f.write(text)


RNG = np.random.RandomState(20240611)


def rnd(shape, lo=-4.0, hi=4.0):
    return RNG.uniform(lo, hi, size=shape)


def rnd_int(shape, lo, hi):
    return RNG.randint(lo, hi, size=shape)


# ----------------------------------------------------------------------------
# Elementwise helpers
# ----------------------------------------------------------------------------

def simple_unary(group, name, op, x, out, tol=None, source='numpy',
                 attrs='', notes=()):
    e = Comp('main', entry=True)
    p = e.param(x.shape())
    e.root(out.shape(), '%s(%s)%s' % (op, p, attrs), 'r')
    add_case(group, name, source, module(name, e), [x], out, tol, notes)


def simple_binary(group, name, op, x, y, out, tol=None, source='numpy',
                  attrs='', notes=()):
    e = Comp('main', entry=True)
    p0 = e.param(x.shape())
    p1 = e.param(y.shape())
    e.root(out.shape(), '%s(%s, %s)%s' % (op, p0, p1, attrs), 'r')
    add_case(group, name, source, module(name, e), [x, y], out, tol, notes)


def int_map(t, fn, *arrays):
    """Elementwise integer function on Python ints, wrapped into t."""
    arrs = [np.asarray(a) for a in arrays]
    flat = [fn(*[int(v) for v in vals])
            for vals in zip(*[a.ravel() for a in arrs])]
    return make(t, np.array(flat, dtype=object).reshape(arrs[0].shape))


def float_map(t, fn, *vals):
    """Elementwise: computes fn on the float64 values of the (already
    type-rounded) inputs and rounds the result to t."""
    arrs = [np.asarray(v.a if isinstance(v, V) else v, dtype=np.float64)
            for v in vals]
    with np.errstate(all='ignore'):
        r = fn(*arrs)
    return round_result(t, np.asarray(r, dtype=np.float64))


# ----------------------------------------------------------------------------
# unary: elementwise unary operations
# ----------------------------------------------------------------------------

NAN = float('nan')
INF = float('inf')
SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.75, INF, -INF, NAN]


def _sign(x):
    # XLA: copysign(x != 0, x); NaN stays NaN.
    return np.where(np.isnan(x), x, np.copysign((x != 0).astype(np.float64),
                                                 x))


def _round_afz(x):
    return np.copysign(np.floor(np.abs(x) + 0.5), x)


def _erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def _logistic(x):
    return 1.0 / (1.0 + np.exp(-x))


# op -> (numpy function on float64, exact?, interesting inputs)
FLOAT_UNARY = OrderedDict([
    ('abs', (np.abs, True, SPECIAL + [-1e-3, 65504.0])),
    ('negate', (np.negative, True, SPECIAL + [1e-3])),
    ('sign', (_sign, True, SPECIAL + [-1e-30, 2e5])),
    ('ceil', (np.ceil, True, SPECIAL + [-0.5, 1.25, -1.75, 2.5, 1e7 + 0.5])),
    ('floor', (np.floor, True, SPECIAL + [-0.5, 1.25, -1.75, 2.5])),
    ('round-nearest-even', (np.rint, True,
                            [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49, 2.51,
                             -0.0, 3.0, INF, NAN])),
    ('round-nearest-afz', (_round_afz, True,
                           [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49, 2.51,
                            -0.0, 3.0, -INF, NAN])),
    ('sqrt', (np.sqrt, True, [0.0, -0.0, 1.0, 2.0, 0.25, 1e-4, 100.0, -1.0,
                              INF, NAN])),
    ('rsqrt', (lambda x: 1.0 / np.sqrt(x), False,
               [1.0, 4.0, 0.25, 2.0, 10.0, 0.0, -1.0, INF])),
    ('cbrt', (np.cbrt, False, [0.0, 1.0, -8.0, 27.0, 2.0, -0.001, 1e6, INF,
                               -INF, NAN])),
    ('exponential', (np.exp, False, [0.0, 1.0, -1.0, 0.5, 10.0, -10.0, 88.0,
                                     -104.0, 89.0, INF, -INF, NAN])),
    ('exponential-minus-one', (np.expm1, False,
                               [0.0, 1e-7, -1e-7, 1e-3, 1.0, -1.0, 20.0,
                                -20.0, INF, -INF, NAN])),
    ('log', (np.log, False, [1.0, 2.0, 0.5, 10.0, 1e-30, 0.0, -1.0, INF,
                             NAN])),
    ('log-plus-one', (np.log1p, False, [0.0, 1e-7, -1e-7, 1e-3, 1.0, -0.5,
                                        100.0, -1.0, -2.0, INF, NAN])),
    ('logistic', (_logistic, False, [0.0, 1.0, -1.0, 5.0, -5.0, 20.0, -20.0,
                                     100.0, -100.0, INF, -INF])),
    ('sine', (np.sin, False, [0.0, 0.5, -0.5, 1.0, 3.0, -2.0, 10.0, 100.0,
                              1.5707964, INF, NAN])),
    ('cosine', (np.cos, False, [0.0, 0.5, -0.5, 1.0, 3.0, -2.0, 10.0, 100.0,
                                3.1415927, -INF, NAN])),
    ('tan', (np.tan, False, [0.0, 0.5, -0.5, 1.0, 1.5, -1.2, 3.0, 10.0,
                             NAN])),
    ('tanh', (np.tanh, False, [0.0, 0.5, -0.5, 1.0, -2.0, 5.0, 10.0, -20.0,
                               1e-4, INF, -INF, NAN])),
    ('erf', (_erf, False, [0.0, 0.1, -0.1, 0.5, 1.0, -1.0, 2.0, 3.0, -4.0,
                           INF, -INF, NAN])),
    # XLA's inverse and hyperbolic trigonometry (outside the domain: NaN;
    # atanh(+-1) = +-inf, as C and numpy).
    ('acos', (np.arccos, False, [1.0, -1.0, 0.0, 0.5, -0.5, 0.999, 1.5, -2.0,
                                 NAN])),
    ('acosh', (np.arccosh, False, [1.0, 1.5, 2.0, 10.0, 1e4, 0.5, INF,
                                   NAN])),
    ('asin', (np.arcsin, False, [0.0, 0.5, -0.5, 1.0, -1.0, 1e-4, 2.0,
                                 NAN])),
    ('asinh', (np.arcsinh, False, [0.0, 0.5, -0.5, 1.0, -3.0, 100.0, 1e-4,
                                   INF, -INF, NAN])),
    ('atan', (np.arctan, False, [0.0, 0.5, -0.5, 1.0, -1.0, 10.0, 1e6, INF,
                                 -INF, NAN])),
    ('atanh', (np.arctanh, False, [0.0, 0.5, -0.5, 0.9, -0.99, 1.0, -1.0,
                                   2.0, NAN])),
    ('cosh', (np.cosh, False, [0.0, 0.5, -0.5, 1.0, -3.0, 10.0, INF, -INF,
                               NAN])),
    ('sinh', (np.sinh, False, [0.0, 0.5, -0.5, 1.0, -3.0, 10.0, 1e-4, INF,
                               -INF, NAN])),
])


def gen_unary():
    g = 'unary'
    for op, (fn, exact, vals) in FLOAT_UNARY.items():
        for t in ('f32', 'f64', 'f16', 'bf16'):
            if op in ('tan', 'rsqrt') and t == 'bf16':
                continue
            x = V(t, vals)
            out = V(t, float_map(t, fn, x))
            if exact:
                tol = None
            elif t == 'f32':
                tol = TOL_TRANS_F32
            elif t == 'f64':
                tol = tol_str(rtol=1e-13, atol=1e-15)
            else:
                tol = TOL_ULP1
            simple_unary(g, '%s_%s' % (op.replace('-', '_'), t), op, x, out,
                         tol)
    # Signed zeros and exact bits: -0 is kept by negate/abs/ceil/floor/sign.
    x = V('f32', [0.0, -0.0, -0.25, 0.25, -1.0])
    simple_unary(g, 'negate_f32_signed_zero_bits', 'negate', x,
                 V('f32', -x.a), tol_str(bits=True))
    simple_unary(g, 'abs_f32_signed_zero_bits', 'abs', x,
                 V('f32', np.abs(x.a)), tol_str(bits=True))
    simple_unary(g, 'ceil_f32_signed_zero_bits', 'ceil', x,
                 V('f32', np.ceil(x.a)), tol_str(bits=True))
    simple_unary(g, 'sign_f32_signed_zero_bits', 'sign', x,
                 V('f32', _sign(x.a.astype(np.float64)).astype(np.float32)),
                 tol_str(bits=True))
    # Shapes: scalar, 2D, zero-size.
    x = V('f32', 2.25)
    simple_unary(g, 'sqrt_f32_scalar', 'sqrt', x, V('f32', 1.5))
    x = V('f32', rnd((3, 4), 0.1, 5.0))
    simple_unary(g, 'log_f32_2d', 'log', x, V('f32', float_map('f32', np.log,
                                                               x)),
                 TOL_TRANS_F32)
    x = V('f32', np.zeros((0, 3), np.float32))
    simple_unary(g, 'exponential_f32_zero_size', 'exponential', x,
                 V('f32', np.zeros((0, 3), np.float32)))
    x = V('f32', np.zeros((2, 0), np.float32))
    simple_unary(g, 'tanh_f32_zero_size_inner', 'tanh', x,
                 V('f32', np.zeros((2, 0), np.float32)))

    # is-finite -> pred
    for t in ('f32', 'f64', 'f16', 'bf16'):
        vals = [0.0, -0.0, 1.0, -3.5, 1e-30 if t != 'f16' else 1e-7,
                INF, -INF, NAN]
        x = V(t, vals)
        simple_unary(g, 'is_finite_%s' % t, 'is-finite', x,
                     V('pred', np.isfinite(x.a.astype(np.float64))))

    # Integer abs / negate / sign (two's complement wrap at the minimum).
    for t in ('s8', 's16', 's32', 's64'):
        vals = [0, 1, -1, 5, -7, int_max(t), int_min(t), int_min(t) + 1]
        x = V(t, vals)
        simple_unary(g, 'abs_%s' % t, 'abs', x, V(t, int_map(t, abs, x.a)),
                     notes=['abs of the minimum value wraps to itself'])
        simple_unary(g, 'negate_%s' % t, 'negate', x,
                     V(t, int_map(t, lambda v: -v, x.a)))
        simple_unary(g, 'sign_%s' % t, 'sign', x,
                     V(t, int_map(t, lambda v: (v > 0) - (v < 0), x.a)))
    # (abs and sign of unsigned integers are invalid HLO, as in XLA.)
    for t in ('u8', 'u32', 'u64'):
        vals = [0, 1, 2, int_max(t), int_max(t) - 1, 100]
        x = V(t, vals)
        simple_unary(g, 'negate_%s' % t, 'negate', x,
                     V(t, int_map(t, lambda v: -v, x.a)),
                     notes=['unsigned negate wraps modulo 2^bits'])

    # not: logical for pred, bitwise for integers.
    x = V('pred', [True, False, True])
    simple_unary(g, 'not_pred', 'not', x, V('pred', [False, True, False]))
    for t in ('s8', 's32', 'u8', 'u16', 's64', 'u64'):
        vals = [0, 1, -1, 0x55, int_min(t), int_max(t)]
        x = V(t, vals)
        simple_unary(g, 'not_%s' % t, 'not', x,
                     V(t, int_map(t, lambda v: ~v, x.a)))

    # popcnt / count-leading-zeros
    def popcnt(t):
        b = INT_BITS[t]
        return lambda v: bin(v & ((1 << b) - 1)).count('1')

    def clz(t):
        b = INT_BITS[t]
        return lambda v: b - (v & ((1 << b) - 1)).bit_length()
    for t in ('s8', 's16', 's32', 's64', 'u8', 'u16', 'u32', 'u64'):
        vals = [0, 1, 2, 3, 0x0F, 0x70, -1, int_min(t), int_max(t), 12345]
        x = V(t, vals)
        simple_unary(g, 'popcnt_%s' % t, 'popcnt', x,
                     V(t, int_map(t, popcnt(t), x.a)))
        simple_unary(g, 'count_leading_zeros_%s' % t, 'count-leading-zeros',
                     x, V(t, int_map(t, clz(t), x.a)))

    # copy
    x = V('s32', [[1, 2, 3], [4, 5, 6]])
    simple_unary(g, 'copy_s32', 'copy', x, V('s32', x.a.copy()))
    x = V('pred', [True, False])
    simple_unary(g, 'copy_pred', 'copy', x, V('pred', x.a.copy()))



# ----------------------------------------------------------------------------
# binary: elementwise binary operations
# ----------------------------------------------------------------------------

BIG = {'f16': 60000.0, 'bf16': 3e38, 'f32': 3e38, 'f64': 1.5e308}


def native_float_op(t, fn, x, y):
    """IEEE arithmetic in the type itself: f32/f64 natively, f16 by numpy's
    float16 arithmetic (float32 compute, then rounding), bf16 by float32
    compute then bf16 rounding."""
    if t == 'bf16':
        return bf16_from_f32(fn(x.a.astype(np.float32),
                                y.a.astype(np.float32)))
    with np.errstate(all='ignore'):
        return fn(x.a, y.a).astype(NP_DTYPE[t])


def idiv(t):
    def f(a, b):
        if b == 0:
            return -1 if is_signed(t) else int_max(t)
        if is_signed(t) and a == int_min(t) and b == -1:
            return a
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b >= 0) else -q
    return f


def irem(t):
    def f(a, b):
        if b == 0:
            return a
        if is_signed(t) and a == int_min(t) and b == -1:
            return 0
        return a - b * idiv(t)(a, b)
    return f


def ipow(t):
    def f(a, b):
        assert b >= 0
        return pow(a & ((1 << INT_BITS[t]) - 1), b, 1 << INT_BITS[t])
    return f


def shift_oob(t, b):
    return (b & ((1 << INT_BITS[t]) - 1)) >= INT_BITS[t]


def shl(t):
    return lambda a, b: 0 if shift_oob(t, b) else a << b


def sra(t):
    def f(a, b):
        sa = wrap(a, 's%d' % INT_BITS[t])
        if shift_oob(t, b):
            return -1 if sa < 0 else 0
        return sa >> b
    return f


def srl(t):
    def f(a, b):
        if shift_oob(t, b):
            return 0
        return (a & ((1 << INT_BITS[t]) - 1)) >> b
    return f


def gen_binary():
    g = 'binary'
    for t in ('f32', 'f64', 'f16', 'bf16'):
        big = BIG[t]
        tiny = 1e-3
        sets = {
            'add': ([1, -2.5, 0, -0.0, INF, INF, NAN, 3.25, big, tiny],
                    [2, 2.5, -0.0, -0.0, -INF, 1, 1, -0.125, big, tiny],
                    np.add),
            'subtract': ([1, -2.5, 0, -0.0, INF, INF, NAN, 3.25, -big, tiny],
                         [2, 2.5, -0.0, 0, INF, 1, 1, -0.125, big, 3 * tiny],
                         np.subtract),
            'multiply': ([2, -1.5, 0, -0.0, INF, INF, NAN, 3, big, 0.1],
                         [3, 4, -5, 2, 0, -2, 1, 0.5, 2, 0.1], np.multiply),
            'divide': ([1, -3, 0, 1, -1, 0, INF, NAN, 7, 1, 1],
                       [4, 2, 0, 0, 0, -1, INF, 1, -0.5, 3, 10],
                       np.divide),
            'remainder': ([5.5, -5.5, 5.5, -5.5, 1, INF, 3, 0, 7.25, -0.0,
                           NAN],
                          [2, 2, -2, -2, 0, 2, INF, 3, 0.5, 1, 1], np.fmod),
            'maximum': ([1, -1, NAN, 2, -INF, INF, 0.5, 3],
                        [2, -2, 1, NAN, 5, -3, 0.5, -0.25], np.maximum),
            'minimum': ([1, -1, NAN, 2, -INF, INF, 0.5, 3],
                        [2, -2, 1, NAN, 5, -3, 0.5, -0.25], np.minimum),
        }
        for op, (xs, ys, fn) in sets.items():
            x, y = V(t, xs), V(t, ys)
            out = V(t, native_float_op(t, fn, x, y))
            notes = []
            if op == 'remainder':
                notes = ['C fmod: the result has the sign of the dividend']
            if op in ('maximum', 'minimum'):
                notes = ['NaN in either operand gives NaN']
            simple_binary(g, '%s_%s' % (op, t), op, x, y, out, notes=notes)
        # power and atan2: transcendental.
        xs = [2, 2, -2, -2, 0, 0, 1, 4, 0.5, NAN, 1, 10, -8, 3]
        ys = [3, -1, 3, 0.5, 0, -1, NAN, 0.5, 2, 0, INF, -2, 1.0 / 3, 2.5]
        x, y = V(t, xs), V(t, ys)
        simple_binary(g, 'power_%s' % t, 'power', x, y,
                      V(t, float_map(t, np.power, x, y)), tol_for(t),
                      notes=['pow(x, 0) = 1 and pow(1, y) = 1 even for NaN'])
        ys_ = [0.0, -0.0, 1, -1, 1, -1, 0.0, -0.0, INF, 2, NAN, -INF]
        xs_ = [1, 1, 0, 0, -1, -1, -1, -1, 1, 3, 1, -INF]
        y, x = V(t, ys_), V(t, xs_)
        simple_binary(g, 'atan2_%s' % t, 'atan2', y, x,
                      V(t, float_map(t, np.arctan2, y, x)), tol_for(t))

    # 2-D and scalar and zero-size shapes.
    x = V('f32', rnd((2, 3)))
    y = V('f32', rnd((2, 3)))
    simple_binary(g, 'add_f32_2d', 'add', x, y, V('f32', x.a + y.a))
    simple_binary(g, 'multiply_f32_scalar', 'multiply', V('f32', 1.5),
                  V('f32', -4), V('f32', -6))
    z = V('f32', np.zeros((0, 4), np.float32))
    simple_binary(g, 'add_f32_zero_size', 'add', z, z, z)

    # Integers: wrap-around, truncating division, remainder with the sign of
    # the dividend, XLA's results for division by zero and MIN / -1.
    for t in ('s8', 's16', 's32', 's64', 'u8', 'u16', 'u32', 'u64'):
        mn, mx = int_min(t), int_max(t)
        xs = [7, -7, 7, -7, 0, 5, mn, mn, mx, mx, 100, -100, 1, 3]
        ys = [2, 2, -2, -2, 3, 0, -1, 1, 1, -1, 7, 9, mx, -5]
        x, y = V(t, xs), V(t, ys)
        simple_binary(g, 'add_%s' % t, 'add', x, y,
                      V(t, int_map(t, lambda a, b: a + b, x.a, y.a)))
        simple_binary(g, 'subtract_%s' % t, 'subtract', x, y,
                      V(t, int_map(t, lambda a, b: a - b, x.a, y.a)))
        simple_binary(g, 'multiply_%s' % t, 'multiply', x, y,
                      V(t, int_map(t, lambda a, b: a * b, x.a, y.a)))
        simple_binary(
            g, 'divide_%s' % t, 'divide', x, y,
            V(t, int_map(t, idiv(t), x.a, y.a)),
            notes=['truncates toward zero; x/0 = -1 (signed) or the maximum '
                   '(unsigned); MIN/-1 = MIN (XLA)'])
        simple_binary(
            g, 'remainder_%s' % t, 'remainder', x, y,
            V(t, int_map(t, irem(t), x.a, y.a)),
            notes=['sign of the dividend; x%0 = x; MIN%-1 = 0 (XLA)'])
        # shifts: amounts >= bit width (and negative ones, which are huge
        # when read as unsigned) give 0, or -1 for an arithmetic shift of a
        # negative value.
        bits = INT_BITS[t]
        xs = [1, 1, -1, -1, mn, mx, 0x35, -100, 5, 5, -5, 12]
        ys = [0, bits - 1, 1, bits - 1, 1, 1, 3, 2, bits, bits + 3, -1, 2]
        x, y = V(t, xs), V(t, ys)
        simple_binary(g, 'shift_left_%s' % t, 'shift-left', x, y,
                      V(t, int_map(t, shl(t), x.a, y.a)))
        simple_binary(g, 'shift_right_arithmetic_%s' % t,
                      'shift-right-arithmetic', x, y,
                      V(t, int_map(t, sra(t), x.a, y.a)))
        simple_binary(g, 'shift_right_logical_%s' % t,
                      'shift-right-logical', x, y,
                      V(t, int_map(t, srl(t), x.a, y.a)))
    for t in ('s8', 's32', 'u8', 'u32', 's64', 'u64'):
        mn, mx = int_min(t), int_max(t)
        xs = [1, -1, mn, mx, 0, 50, -50, 3]
        ys = [2, -2, mx, mn, 0, 49, 49, -3]
        x, y = V(t, xs), V(t, ys)
        simple_binary(g, 'maximum_%s' % t, 'maximum', x, y,
                      V(t, int_map(t, max, x.a, y.a)))
        simple_binary(g, 'minimum_%s' % t, 'minimum', x, y,
                      V(t, int_map(t, min, x.a, y.a)))
        xs = [2, 3, -2, -3, 0, 0, 1, 5, 3, 7]
        ys = [10, 4, 3, 2, 0, 3, 100, 0, 20, 1]
        x, y = V(t, xs), V(t, ys)
        simple_binary(g, 'power_%s' % t, 'power', x, y,
                      V(t, int_map(t, ipow(t), x.a, y.a)),
                      notes=['integer power wraps around like repeated '
                             'multiplication; x^0 = 1'])
        xs = [0, 1, -1, 0x5A, mn, mx, 12, -12]
        ys = [0, 1, 0x0F, 0x33, -1, mn, 10, 10]
        x, y = V(t, xs), V(t, ys)
        for op, fn in (('and', lambda a, b: a & b), ('or', lambda a, b: a | b),
                       ('xor', lambda a, b: a ^ b)):
            simple_binary(g, '%s_%s' % (op, t), op, x, y,
                          V(t, int_map(t, fn, x.a, y.a)))
    p = V('pred', [False, False, True, True])
    q = V('pred', [False, True, False, True])
    for op, fn in (('and', np.logical_and), ('or', np.logical_or),
                   ('xor', np.logical_xor), ('maximum', np.logical_or),
                   ('minimum', np.logical_and)):
        simple_binary(g, '%s_pred' % op, op, p, q, V('pred', fn(p.a, q.a)))



# ----------------------------------------------------------------------------
# compare
# ----------------------------------------------------------------------------

def float_bits(t, v):
    """Raw bits of a float value of type t as an unsigned int."""
    if t == 'f64':
        return struct.unpack('<Q', struct.pack('<d', float(v)))[0]
    if t == 'f32':
        return int(np.float32(v).view(np.uint32))
    if t == 'f16':
        return int(np.float16(v).view(np.uint16))
    if t == 'bf16':
        return int(np.float32(v).view(np.uint32)) >> 16
    raise ValueError(t)


FBITS = {'f16': 16, 'bf16': 16, 'f32': 32, 'f64': 64}


def total_order_key(t, v):
    """XLA's TOTALORDER: -NaN < -Inf < ... < -0 < +0 < ... < +Inf < +NaN."""
    b = FBITS[t]
    bits = float_bits(t, v)
    if bits >> (b - 1):
        return -(bits & ((1 << (b - 1)) - 1)) - 1
    return bits


DIRS = OrderedDict([
    ('EQ', lambda a, b: a == b), ('NE', lambda a, b: a != b),
    ('GE', lambda a, b: a >= b), ('GT', lambda a, b: a > b),
    ('LE', lambda a, b: a <= b), ('LT', lambda a, b: a < b),
])


def neg_nan(t):
    if t == 'f64':
        return struct.unpack('<d', struct.pack('<Q', 0xFFF8000000000000))[0]
    return float(np.array([0xFFC00000], np.uint32).view(np.float32)[0])


def compare_case(g, name, x, y, direction, ctype=None, notes=()):
    attrs = ', direction=%s' % direction
    if ctype:
        attrs += ', type=%s' % ctype
    t = x.t
    if ctype == 'TOTALORDER':
        ka = [total_order_key(t, v) for v in x.a.ravel()]
        kb = [total_order_key(t, v) for v in y.a.ravel()]
        r = [DIRS[direction](a, b) for a, b in zip(ka, kb)]
    elif t == 'pred' or is_int(t):
        r = [DIRS[direction](int(a), int(b))
             for a, b in zip(x.a.ravel(), y.a.ravel())]
    else:
        xa = x.a.astype(np.complex128 if is_complex(t) else np.float64)
        ya = y.a.astype(np.complex128 if is_complex(t) else np.float64)
        r = [bool(DIRS[direction](a, b))
             for a, b in zip(xa.ravel(), ya.ravel())]
    out = V('pred', np.array(r, np.bool_).reshape(x.a.shape))
    simple_binary(g, name, 'compare', x, y, out, attrs=attrs, notes=notes)


def gen_compare():
    g = 'compare'
    xs = [1, 2, 3, NAN, 1, NAN, -0.0, INF, -INF, 5]
    ys = [2, 2, 1, 1, NAN, NAN, 0.0, INF, INF, -5]
    for d in DIRS:
        compare_case(g, '%s_f32' % d.lower(), V('f32', xs), V('f32', ys), d,
                     notes=['IEEE: every comparison with NaN is false except '
                            'NE'] if d in ('EQ', 'NE') else ())
    for t in ('f32', 'f64', 'f16', 'bf16'):
        nn = neg_nan(t)
        xs = [nn, nn, -INF, -0.0, 0.0, -0.0, 1, INF, NAN, NAN, 2, -1]
        ys = [-INF, nn, -1e4, 0.0, -0.0, -0.0, NAN, NAN, INF, NAN, 2, -0.0]
        dirs = DIRS if t == 'f32' else ('LT', 'EQ')
        for d in dirs:
            compare_case(g, '%s_totalorder_%s' % (d.lower(), t), V(t, xs),
                         V(t, ys), d, 'TOTALORDER',
                         notes=['TOTALORDER: -NaN < -Inf < -x < -0 < +0 < x '
                                '< +Inf < +NaN'])
    for t in ('f64', 'f16', 'bf16'):
        xs = [1, 2, 3, NAN, -0.0, INF, 0.1]
        ys = [2, 2, 1, 1, 0.0, INF, 0.1]
        compare_case(g, 'ge_%s' % t, V(t, xs), V(t, ys), 'GE')
        compare_case(g, 'ne_%s' % t, V(t, xs), V(t, ys), 'NE')
    compare_case(g, 'lt_f32_explicit_float_type', V('f32', [1, 2, NAN]),
                 V('f32', [2, 1, 0]), 'LT', 'FLOAT')
    for t in ('s8', 's16', 's32', 's64', 'u8', 'u16', 'u32', 'u64'):
        mn, mx = int_min(t), int_max(t)
        xs = [1, 2, 3, -1, mn, mx, 0, 100]
        ys = [2, 2, 1, 1, mx, mn, -1, 100]
        dirs = DIRS if t in ('s32', 'u32') else ('LT', 'GE')
        for d in dirs:
            compare_case(g, '%s_%s' % (d.lower(), t), V(t, xs), V(t, ys), d)
    compare_case(g, 'lt_s32_explicit_signed_type', V('s32', [-1, 1]),
                 V('s32', [1, -1]), 'LT', 'SIGNED')
    compare_case(g, 'lt_u32_explicit_unsigned_type',
                 V('u32', [4294967295, 1]), V('u32', [1, 4294967295]), 'LT',
                 'UNSIGNED')
    p = V('pred', [False, False, True, True])
    q = V('pred', [False, True, False, True])
    for d in DIRS:
        compare_case(g, '%s_pred' % d.lower(), p, q, d,
                     notes=['pred compares as unsigned: false < true'])
    cx = V('c64', [1 + 2j, 1 + 2j, 3j, complex(NAN, 0), -0.0 + 0j])
    cy = V('c64', [1 + 2j, 1 - 2j, 3j, complex(NAN, 0), 0j])
    compare_case(g, 'eq_c64', cx, cy, 'EQ')
    compare_case(g, 'ne_c64', cx, cy, 'NE')
    a = V('f32', [[1, 5, 3], [0, -2, 7]])
    b = V('f32', [[2, 5, 1], [0, -3, 8]])
    compare_case(g, 'gt_f32_2d', a, b, 'GT')
    compare_case(g, 'le_s32_scalar', V('s32', 3), V('s32', 3), 'LE')
    z = V('s32', np.zeros((0,), np.int32))
    compare_case(g, 'eq_s32_zero_size', z, z, 'EQ')



# ----------------------------------------------------------------------------
# convert, bitcast-convert, reduce-precision
# ----------------------------------------------------------------------------

FMT = {'f16': (5, 10), 'bf16': (8, 7), 'f32': (8, 23), 'f64': (11, 52)}
FMAX = {'f16': 65504.0, 'bf16': 3.3895313892515355e38,
        'f32': 3.4028234663852886e38, 'f64': sys.float_info.max}


def from_bits(t, x):
    if t == 'f64':
        return struct.unpack('<d', struct.pack('<Q', x))[0]
    if t == 'f32':
        return float(np.array([x], np.uint32).view(np.float32)[0])
    if t == 'f16':
        return float(np.array([x], np.uint16).view(np.float16)[0])
    if t == 'bf16':
        return float(np.array([x << 16], np.uint32).view(np.float32)[0])
    raise ValueError(t)


def int_to_float(v, t):
    """Exact round-to-nearest-even of an integer to float type t."""
    e, m = FMT[t]
    prec = m + 1
    a = abs(int(v))
    n = a.bit_length()
    if n > prec:
        shift = n - prec
        q, r = divmod(a, 1 << shift)
        half = 1 << (shift - 1)
        if r > half or (r == half and (q & 1)):
            q += 1
        a = q << shift
    f = float(a) if a <= FMAX[t] else INF
    return -f if v < 0 else f


def float_to_int_sat(t):
    """SEMANTICS.md: truncate toward zero, saturate, NaN -> 0."""
    def f(v):
        v = float(v)
        if math.isnan(v):
            return 0
        if math.isinf(v):
            return int_max(t) if v > 0 else int_min(t)
        return max(int_min(t), min(int_max(t), int(v)))
    return f


def float_to_float(v, t):
    if t == 'f64':
        return float(v)
    if t == 'f32':
        return float(np.float64(v).astype(np.float32))
    if t == 'f16':
        return float(f16_from_f64(v))
    if t == 'bf16':
        return float(bf16_from_f64(v))
    raise ValueError(t)


def convert_case(g, name, x, to_t, notes=()):
    ft = x.t
    vals = x.a.ravel()
    if is_complex(to_t):
        out = V(to_t, x.a.astype(NP_DTYPE[to_t]))
    elif to_t == 'pred':
        out = V('pred', np.array([v != 0 for v in vals],
                                 np.bool_).reshape(x.a.shape))
    elif is_int(to_t):
        if is_float(ft):
            r = [float_to_int_sat(to_t)(v) for v in vals]
        else:
            r = [wrap(int(v), to_t) for v in vals]
        out = V(to_t, np.array(r, dtype=object).reshape(x.a.shape))
    else:
        if is_float(ft):
            r = [float_to_float(v, to_t) for v in vals]
        else:
            r = [int_to_float(int(v), to_t) for v in vals]
        out = V(to_t, np.array(r, np.float64).reshape(x.a.shape))
    simple_unary(g, name, 'convert', x, out, notes=notes)


def reduce_precision_value(t, v, eb, mb):
    E, M = FMT[t]
    total = 1 + E + M
    if math.isnan(float(v)):
        return float(v)
    x = float_bits(t, v)
    if mb < M:
        last = 1 << (M - mb)
        base_bias = (last >> 1) - 1
        x_last = (x & last) >> (M - mb)
        x = (x + x_last + base_bias) & ~(last - 1) & ((1 << total) - 1)
    if eb < E:
        sign = 1 << (total - 1)
        expmask = ((1 << E) - 1) << M
        bias = (1 << (E - 1)) - 1
        rbias = (1 << (eb - 1)) - 1
        xe = x & expmask
        if xe > ((bias + rbias) << M):
            x = (x & sign) | expmask
        elif xe <= ((bias - rbias) << M):
            x = x & sign
    return from_bits(t, x)


def gen_convert():
    g = 'convert'
    sat_note = ['float->int truncates toward zero, saturates, NaN -> 0 '
                '(SEMANTICS.md)']
    f2i = [
        ('f32', 's32', [1.9, -1.9, 0.5, -0.5, 2147483520.0, 2147483648.0,
                        -2147483648.0, -3e9, 1e20, INF, -INF, NAN]),
        ('f32', 'u8', [0, 1.5, 255, 255.9, 256, 300, -1, -0.5, INF, -INF,
                       NAN]),
        ('f32', 's8', [127.5, 128, -128.9, -129, 3.99, -3.99, NAN, 1e10]),
        ('f32', 's16', [32767.9, 32768, -32769, 1234.5, NAN, -INF]),
        ('f32', 's64', [9.3e18, -9.3e18, 1e15 + 0.5, -2.5, NAN, INF]),
        ('f32', 'u32', [4294967040.0, 5e9, -1, 3.7, NAN, INF]),
        ('f32', 'u64', [1.8e19, 2e19, -5, 1e10, NAN]),
        ('f64', 's32', [2147483647.9, 2147483648.0, -2147483648.9,
                        -2147483649.0, 0.999999, NAN]),
        ('f64', 's64', [9.2e18, 9.3e18, -9.3e18, -1.5, NAN, -INF]),
        ('f64', 'u64', [1.8e19, 1.9e19, -1, 123.75, NAN]),
        ('f16', 's16', [65504, -65504, 100.5, -0.75, INF, NAN]),
        ('f16', 'u8', [255, 256, 1000, -3, 12.9, NAN]),
        ('bf16', 's32', [3e9, -3e9, 1.5, -1.5, 16777216 * 3, NAN]),
        ('bf16', 'u16', [65535, 70000, -1, 300.5, INF]),
    ]
    for ft, tt, vals in f2i:
        convert_case(g, '%s_to_%s' % (ft, tt), V(ft, vals), tt, sat_note)
    rne_note = ['int->float rounds to nearest even']
    i2f = [
        ('s32', 'f32', [16777217, 16777219, 16777218, -16777217, 2147483647,
                        -2147483648, 0, -5]),
        ('s64', 'f32', [(1 << 62) + (1 << 38), (1 << 62) + (1 << 38) + 1,
                        -(1 << 40) - 1, 9223372036854775807]),
        ('u64', 'f32', [18446744073709551615, 16777217, 1 << 63]),
        ('u32', 'f32', [4294967295, 16777217, 33554435]),
        ('s32', 'f16', [65504, 65519, 65520, 2049, 2051, -2049, 100000, 0]),
        ('s32', 'bf16', [257, 259, 65535, -385, 1, 0]),
        ('s64', 'f64', [(1 << 53) + 1, (1 << 53) + 3, -(1 << 53) - 1, 7]),
        ('u32', 'f64', [4294967295, 0, 123]),
        ('s8', 'f32', [-128, 127, 0, -1]),
        ('u8', 'f16', [255, 0, 17]),
        ('s16', 'bf16', [-32768, 32767, 255, 257]),
    ]
    for ft, tt, vals in i2f:
        convert_case(g, '%s_to_%s' % (ft, tt), V(ft, vals), tt, rne_note)
    f2f = [
        ('f32', 'f16', [65504, 65519, 65520, 1e-8, 3e-8, 0.1, NAN, -INF,
                        1.0 / 3, 2049, 2051, -0.0, 6.1e-5]),
        ('f32', 'bf16', [1.00390625, 1.01171875, 1.0 + 2 ** -8 + 2 ** -20,
                         3.4e38, -1e-40, 0.1, NAN, INF, 65535]),
        ('f64', 'f32', [1e300, -1e300, 1e-50, 0.1, 16777217.0, 1e-40, NAN,
                        -0.0]),
        ('f64', 'f16', [1 + 2 ** -11 + 2 ** -40, 0.1, 65520, 1e-9, NAN]),
        ('f64', 'bf16', [1 + 2 ** -8 + 2 ** -30, 0.1, 3.4e38, -INF]),
        ('f16', 'f32', [65504, 6e-8, 0.1, -0.0, INF, NAN]),
        ('bf16', 'f32', [3.3895313892515355e38, 1e-38, 0.1, NAN]),
        ('f16', 'bf16', [0.1, 65504, 6e-8, 1.0009765625]),
        ('bf16', 'f16', [1e5, 1e-9, 0.1, -3.5, 65504]),
        ('f16', 'f64', [0.1, 65504, -6e-8]),
        ('f32', 'f64', [0.1, 3.4028234663852886e38, 1e-45]),
    ]
    for ft, tt, vals in f2f:
        notes = ['rounds to nearest even; overflow gives inf']
        if ft == 'f64' and tt in ('f16', 'bf16'):
            notes.append('f64 -> %s rounds once (not through f32: the first '
                         'value would become 1)' % tt)
        convert_case(g, '%s_to_%s' % (ft, tt), V(ft, vals), tt, notes)
    i2i = [
        ('s32', 's8', [127, 128, 255, 256, -129, -1, 1000]),
        ('s8', 's32', [-128, -1, 0, 127]),
        ('u8', 's8', [0, 127, 128, 255]),
        ('s8', 'u8', [-128, -1, 0, 127]),
        ('s32', 'u32', [-1, -2147483648, 5]),
        ('u32', 's32', [4294967295, 2147483648, 7]),
        ('s64', 's32', [4294967296 + 5, -4294967297, 2147483648]),
        ('s32', 'u64', [-1, -2, 3]),
        ('u64', 's8', [255, 256 + 7, 18446744073709551615]),
        ('s16', 'u16', [-1, -32768, 300]),
        ('u16', 's64', [65535, 0]),
    ]
    for ft, tt, vals in i2i:
        convert_case(g, '%s_to_%s' % (ft, tt), V(ft, vals), tt,
                     ['int->int keeps the low bits (two\'s complement)'])
    convert_case(g, 'pred_to_f32', V('pred', [True, False]), 'f32')
    convert_case(g, 'pred_to_s32', V('pred', [True, False, True]), 's32')
    convert_case(g, 'f32_to_pred', V('f32', [0, -0.0, 1, -2.5, NAN, INF]),
                 'pred', ['x != 0 (NaN is true)'])
    convert_case(g, 's32_to_pred', V('s32', [0, 1, -1, 256]), 'pred')
    convert_case(g, 'u8_to_pred', V('u8', [0, 128, 1]), 'pred')
    convert_case(g, 'f32_to_c64', V('f32', [1.5, -2, 0]), 'c64')
    convert_case(g, 's32_to_c64', V('s32', [3, -4]), 'c64')
    convert_case(g, 'c64_to_c128', V('c64', [1.5 - 2j, 0.1 + 0.2j]), 'c128')
    convert_case(g, 'f32_to_f32_identity', V('f32', [1, NAN, -0.0]), 'f32')
    convert_case(g, 'f32_to_s32_2d', V('f32', [[1.5, -1.5], [2.5, -2.5]]),
                 's32', sat_note)

    # bitcast-convert: same bit width, bits reinterpreted.
    def bc(name, x, to_t, bits=False):
        a = x.a
        if x.t == 'bf16':
            raw = (a.view(np.uint32) >> 16).astype(np.uint16)
            src = raw
        else:
            src = a
        if to_t == 'bf16':
            out = (src.view(np.uint16).astype(np.uint32) << 16).view(
                np.float32)
        else:
            out = src.view(NP_DTYPE[to_t])
        simple_unary(g, name, 'bitcast-convert', x, V(to_t, out),
                     tol_str(bits=True) if bits else None,
                     notes=['the bits are reinterpreted, not converted'])
    bc('bitcast_f32_to_s32', V('f32', [1, -2, 0, -0.0, INF, 1e-45, 0.1]),
       's32')
    bc('bitcast_f32_to_u32', V('f32', [1, -1, -INF]), 'u32')
    bc('bitcast_s32_to_f32',
       V('s32', [0x3F800000, -2147483648, 1, 0x7F800000, -1082130432, 0]),
       'f32', bits=True)
    bc('bitcast_u32_to_f32', V('u32', [0x40490FDB, 0xFF800000]), 'f32')
    bc('bitcast_f16_to_s16', V('f16', [1, -2, 65504, 6e-8, -0.0]), 's16')
    bc('bitcast_s16_to_f16', V('s16', [0x3C00, -1024, 0x7BFF, 1]), 'f16',
       bits=True)
    bc('bitcast_bf16_to_u16', V('bf16', [1, -2, 0.5, -INF]), 'u16')
    bc('bitcast_u16_to_bf16', V('u16', [0x3F80, 0xC000, 0x0001]), 'bf16')
    bc('bitcast_f64_to_s64', V('f64', [1, -0.1, INF]), 's64')
    bc('bitcast_s64_to_f64', V('s64', [0x3FF0000000000000, -1 << 63]), 'f64',
       bits=True)
    bc('bitcast_s8_to_u8', V('s8', [-1, -128, 5]), 'u8')
    bc('bitcast_u32_to_s32_2d', V('u32', [[4294967295, 1], [2147483648, 0]]),
       's32')

    # reduce-precision
    rp_note = ['round the mantissa to nearest even, then exponents above the '
               'range give inf and values below the smallest normal give 0 '
               '(no subnormals) (SEMANTICS.md)']
    rp = [
        ('f32', 5, 10, [1, 0.1, 65504, 65519, 65520, 1e5, 6.103515625e-05,
                        6e-5, -1e-10, 2049, 2051, NAN, INF, -INF, 1.0 / 3,
                        -0.0]),
        ('f32', 8, 7, [1 + 2 ** -8, 1 + 3 * 2 ** -8, 3.4e38, 0.1, 1e-40,
                       -1.5, NAN]),
        ('f32', 4, 3, [1, 1.0625, 1.1875, 240, 248, 0.015625, 0.01, -300,
                       NAN, -0.1]),
        ('f32', 8, 23, [0.1, 1e-40, 3.4028234663852886e38, NAN, -7.5]),
        ('f64', 8, 23, [0.1, 1e-40, 1e39, -1e-50, 1 + 2 ** -24, NAN]),
        ('f64', 11, 52, [0.1, 1e-310, -2.5]),
        ('f16', 5, 4, [1, 1.03125, 1.09375, 0.1, 60000, NAN]),
        ('f16', 3, 10, [1, 3.9, 4, 8, 0.3, 0.2]),
        ('bf16', 8, 3, [1, 1.0625, 1.1875, 3e38, NAN]),
    ]
    for t, eb, mb, vals in rp:
        x = V(t, vals)
        out = V(t, [reduce_precision_value(t, v, eb, mb) for v in x.a])
        simple_unary(g, 'reduce_precision_%s_e%d_m%d' % (t, eb, mb),
                     'reduce-precision', x, out,
                     attrs=', exponent_bits=%d, mantissa_bits=%d' % (eb, mb),
                     notes=rp_note)



# ----------------------------------------------------------------------------
# broadcast (explicit, and the builder's lowering of implicit broadcasting)
# ----------------------------------------------------------------------------

def dims_attr(d):
    return '{%s}' % ','.join(str(x) for x in d)


def dot_dims_attrs(lb, rb, lc, rc):
    """A dot's dimension numbers as XLA prints them (empty batch dims left
    out)."""
    attrs = ''
    if lb:
        attrs += ', lhs_batch_dims=%s' % dims_attr(lb)
    attrs += ', lhs_contracting_dims=%s' % dims_attr(lc)
    if rb:
        attrs += ', rhs_batch_dims=%s' % dims_attr(rb)
    attrs += ', rhs_contracting_dims=%s' % dims_attr(rc)
    return attrs


def broadcast_case(g, name, x, out_dims, bdims, source='numpy', out=None,
                   layout=None, notes=()):
    if out is None:
        # numpy: place operand dim i at output dim bdims[i].
        shape = [1] * len(out_dims)
        for i, d in enumerate(bdims):
            shape[d] = x.dims[i]
        perm = sorted(range(len(bdims)), key=lambda i: bdims[i])
        a = np.transpose(x.a, perm).reshape(shape) if x.a.ndim else x.a
        out = V(x.t, np.broadcast_to(a, out_dims).copy(), layout)
    e = Comp('main', entry=True)
    p = e.param(x.shape())
    e.root(out.shape(), 'broadcast(%s), dimensions=%s' % (p, dims_attr(bdims)),
           'r')
    add_case(g, name, source, module(name, e), [x], out, notes=notes)


def implicit_broadcast_module(name, op, x, y, out_t, out_dims, xsteps,
                              ysteps):
    """Builds x op y with the builder's lowering: each operand goes through
    steps ('reshape', dims) / ('broadcast', dims, bdims)."""
    e = Comp('main', entry=True)
    px = e.param(x.shape())
    py = e.param(y.shape())

    def lower(p, t, steps):
        for st in steps:
            if st[0] == 'reshape':
                p = e.op(S(t, *st[1]), 'reshape(%s)' % p, 'reshape')
            else:
                p = e.op(S(t, *st[1]), 'broadcast(%s), dimensions=%s' %
                         (p, dims_attr(st[2])), 'broadcast')
        return p
    a = lower(px, x.t, xsteps)
    b = lower(py, y.t, ysteps)
    e.root(S(out_t, *out_dims), '%s(%s, %s)' % (op, a, b), 'r')
    return module(name, e)


def gen_broadcast():
    g = 'broadcast'
    # seed 004 (Broadcast): scalar 2.0 broadcast to {2, 3}.
    broadcast_case(g, 'seed004_scalar_to_2x3', V('f32', 2.0), [2, 3], [],
                   'seed 004 (Broadcast example)',
                   out=V('f32', [[2, 2, 2], [2, 2, 2]]))
    # seed 003: |7 8 9| with broadcast dimension 1 / 0 onto 3x3.
    v = V('f32', [7, 8, 9])
    broadcast_case(g, 'seed003_vector_dim1_3x3', v, [3, 3], [1],
                   'seed 003 (broadcast dimension 1)',
                   out=V('f32', [[7, 8, 9], [7, 8, 9], [7, 8, 9]]))
    broadcast_case(g, 'seed003_vector_dim0_3x3', v, [3, 3], [0],
                   'seed 003 (broadcast dimension 0)',
                   out=V('f32', [[7, 7, 7], [8, 8, 8], [9, 9, 9]]))
    # seed 003: |1 2 3; 4 5 6| + 7 and + |7 8 9| (dims {1}).
    x = V('f32', [[1, 2, 3], [4, 5, 6]])
    hlo = implicit_broadcast_module('seed003_matrix_plus_scalar', 'add', x,
                                    V('f32', 7), 'f32', [2, 3], [],
                                    [('broadcast', [2, 3], [])])
    add_case(g, 'seed003_matrix_plus_scalar', 'seed 003 (scalar broadcast)',
             hlo, [x, V('f32', 7)], V('f32', [[8, 9, 10], [11, 12, 13]]))
    hlo = implicit_broadcast_module('seed003_matrix_plus_vector', 'add', x,
                                    v, 'f32', [2, 3], [],
                                    [('broadcast', [2, 3], [1])])
    add_case(g, 'seed003_matrix_plus_vector', 'seed 003 (first example)',
             hlo, [x, v], V('f32', [[8, 10, 12], [11, 13, 15]]))
    # seed 003 degenerate broadcasting: (2,1) + (1,3) -> (2,3) "outer".
    a = V('s32', [[1], [2]])
    b = V('s32', [[10, 20, 30]])
    hlo = implicit_broadcast_module(
        'seed003_outer_2x1_1x3', 'add', a, b, 's32', [2, 3],
        [('reshape', [2]), ('broadcast', [2, 3], [0])],
        [('reshape', [3]), ('broadcast', [2, 3], [1])])
    add_case(g, 'seed003_outer_2x1_1x3', 'seed 003 (degenerate: (2,1) and '
             '(1,3) broadcast to (2,3)); values hand-computed', hlo, [a, b],
             V('s32', [[11, 21, 31], [12, 22, 32]]),
             notes=['lowered as the builder does: reshape away the size-1 '
                    'dimension, then broadcast'])
    # (2,1) + (2,3)
    a = V('f32', [[1], [2]])
    b = V('f32', [[1, 2, 3], [4, 5, 6]])
    hlo = implicit_broadcast_module(
        'seed003_2x1_plus_2x3', 'multiply', a, b, 'f32', [2, 3],
        [('reshape', [2]), ('broadcast', [2, 3], [0])], [])
    add_case(g, 'seed003_2x1_times_2x3', 'seed 003 ((2,1) and (2,3) '
             'broadcast to (2,3)); numpy', hlo, [a, b], V('f32', a.a * b.a))
    # (1,2,5) + (7,2,5)
    a = V('s32', rnd_int((1, 2, 5), -9, 9))
    b = V('s32', rnd_int((7, 2, 5), -9, 9))
    hlo = implicit_broadcast_module(
        'seed003_1x2x5_plus_7x2x5', 'add', a, b, 's32', [7, 2, 5],
        [('reshape', [2, 5]), ('broadcast', [7, 2, 5], [1, 2])], [])
    add_case(g, 'seed003_1x2x5_plus_7x2x5', 'seed 003 ((1,2,5) and (7,2,5)); '
             'numpy', hlo, [a, b], V('s32', a.a + b.a))
    # (7,2,5) - (7,1,5)
    a = V('s32', rnd_int((7, 2, 5), -9, 9))
    b = V('s32', rnd_int((7, 1, 5), -9, 9))
    hlo = implicit_broadcast_module(
        'seed003_7x2x5_minus_7x1x5', 'subtract', a, b, 's32', [7, 2, 5], [],
        [('reshape', [7, 5]), ('broadcast', [7, 2, 5], [0, 2])])
    add_case(g, 'seed003_7x2x5_minus_7x1x5', 'seed 003 ((7,2,5) and (7,1,5)); '
             'numpy', hlo, [a, b], V('s32', a.a - b.a))
    # seed 003 composition: |1 2 3 4| + [5 6] (a 1x2 matrix), dims (0).
    a = V('f32', [1, 2, 3, 4])
    b = V('f32', [[5, 6]])
    hlo = implicit_broadcast_module(
        'seed003_composition_4_plus_1x2', 'add', a, b, 'f32', [4, 2],
        [('broadcast', [4, 2], [0])],
        [('reshape', [2]), ('broadcast', [4, 2], [1])])
    add_case(g, 'seed003_composition_4_plus_1x2',
             'seed 003 (broadcast composition example)', hlo, [a, b],
             V('f32', [[6, 7], [7, 8], [8, 9], [9, 10]]))
    # seed 003: 1x2 matrix + 4x3x1 array with broadcast dims (1,2) -> 4x3x2.
    a = V('f32', [[5, 6]])
    b = V('f32', np.arange(12, dtype=np.float32).reshape(4, 3, 1))
    hlo = implicit_broadcast_module(
        'seed003_1x2_plus_4x3x1', 'add', a, b, 'f32', [4, 3, 2],
        [('reshape', [2]), ('broadcast', [4, 3, 2], [2])],
        [('reshape', [4, 3]), ('broadcast', [4, 3, 2], [0, 1])])
    add_case(g, 'seed003_1x2_plus_4x3x1', 'seed 003 (1x2 + 4x3x1 with '
             'broadcast dimensions (1,2)); numpy', hlo, [a, b],
             V('f32', a.a.reshape(1, 1, 2) + b.a))
    # Plain broadcasts.
    x = V('s32', [[1, 2, 3], [4, 5, 6]])
    broadcast_case(g, 'rank2_to_rank3_dims02', x, [2, 4, 3], [0, 2])
    broadcast_case(g, 'rank2_to_rank3_dims01', x, [2, 3, 2], [0, 1])
    broadcast_case(g, 'rank2_to_rank4_leading', x, [2, 1, 2, 3], [2, 3])
    broadcast_case(g, 'transposing_dims10', x, [3, 2, 4], [1, 0],
                   notes=['dimensions need not be increasing: operand dim 0 '
                          '-> output dim 1, operand dim 1 -> output dim 0'])
    broadcast_case(g, 'pred_vector', V('pred', [True, False]), [3, 2], [1])
    broadcast_case(g, 'f16_scalar', V('f16', 0.1), [4], [])
    broadcast_case(g, 'bf16_vector', V('bf16', [1.5, -2]), [2, 2], [0])
    broadcast_case(g, 'u64_vector', V('u64', [18446744073709551615, 3]),
                   [2, 3], [0])
    broadcast_case(g, 'c64_scalar', V('c64', 1 - 2j), [2], [])
    broadcast_case(g, 'zero_size_output', V('f32', [1, 2, 3]), [0, 3], [1])
    broadcast_case(g, 'zero_size_operand', V('f32', np.zeros((0,),
                                                             np.float32)),
                   [2, 0], [1])
    broadcast_case(g, 'identity', V('s32', [[1, 2], [3, 4]]), [2, 2], [0, 1])
    broadcast_case(g, 'size1_dims', V('f32', [[7]]), [1, 3, 1, 2], [0, 2])
    broadcast_case(g, 'column_major_result', V('f32', [1, 2, 3]), [3, 2],
                   [0], layout=[0, 1])


# ----------------------------------------------------------------------------
# shape: reshape, transpose, reverse, iota, bitcast
# ----------------------------------------------------------------------------

SEED_V = [[[10, 11, 12], [15, 16, 17]],
          [[20, 21, 22], [25, 26, 27]],
          [[30, 31, 32], [35, 36, 37]],
          [[40, 41, 42], [45, 46, 47]]]


def reshape_case(g, name, x, out, source='numpy', via_transpose=None,
                 notes=()):
    e = Comp('main', entry=True)
    p = e.param(x.shape())
    if via_transpose is not None:
        tdims = [x.dims[i] for i in via_transpose]
        p = e.op(S(x.t, *tdims), 'transpose(%s), dimensions=%s' %
                 (p, dims_attr(via_transpose)), 'transpose')
    e.root(out.shape(), 'reshape(%s)' % p, 'r')
    add_case(g, name, source, module(name, e), [x], out, notes=notes)


def unary_attr_case(g, name, op, x, out, attrs, source='numpy', notes=(),
                    tol=None):
    e = Comp('main', entry=True)
    p = e.param(x.shape())
    e.root(out.shape(), '%s(%s)%s' % (op, p, attrs), 'r')
    add_case(g, name, source, module(name, e), [x], out, tol, notes)


def gen_shape():
    g = 'shape'
    v = V('f32', SEED_V)
    src = 'seed 004 (Reshape/Collapse example)'
    # Expected values copied from the seed text.
    reshape_case(g, 'seed004_v012_24', v, V('f32', [
        10, 11, 12, 15, 16, 17, 20, 21, 22, 25, 26, 27,
        30, 31, 32, 35, 36, 37, 40, 41, 42, 45, 46, 47]), src)
    reshape_case(g, 'seed004_v012_83', v, V('f32', [
        [10, 11, 12], [15, 16, 17], [20, 21, 22], [25, 26, 27],
        [30, 31, 32], [35, 36, 37], [40, 41, 42], [45, 46, 47]]), src)
    reshape_case(g, 'seed004_collapse_v01', v, V('f32', [
        [10, 11, 12, 15, 16, 17], [20, 21, 22, 25, 26, 27],
        [30, 31, 32, 35, 36, 37], [40, 41, 42, 45, 46, 47]]), src)
    # Out-of-order collapse = transpose then reshape (the builder's
    # lowering of Reshape(operand, dimensions, new_sizes)).
    reshape_case(g, 'seed004_v120_24', v, V('f32', [
        10, 20, 30, 40, 11, 21, 31, 41, 12, 22, 32, 42,
        15, 25, 35, 45, 16, 26, 36, 46, 17, 27, 37, 47]), src,
        via_transpose=[1, 2, 0])
    reshape_case(g, 'seed004_v120_83', v, V('f32', [
        [10, 20, 30], [40, 11, 21], [31, 41, 12], [22, 32, 42],
        [15, 25, 35], [45, 16, 26], [36, 46, 17], [27, 37, 47]]), src,
        via_transpose=[1, 2, 0])
    reshape_case(g, 'seed004_v120_262', v, V('f32', [
        [[10, 20], [30, 40], [11, 21], [31, 41], [12, 22], [32, 42]],
        [[15, 25], [35, 45], [16, 26], [36, 46], [17, 27], [37, 47]]]), src,
        via_transpose=[1, 2, 0])
    reshape_case(g, 'seed004_1x1_to_scalar', V('f32', [[5]]), V('f32', 5),
                 src)
    reshape_case(g, 'seed004_scalar_to_1x1', V('f32', 5), V('f32', [[5]]),
                 src)
    x = V('s32', np.arange(24).reshape(2, 3, 4))
    reshape_case(g, 'rank3_to_rank2_6x4', x, V('s32', x.a.reshape(6, 4)))
    reshape_case(g, 'rank3_to_rank4_split', x,
                 V('s32', x.a.reshape(2, 3, 2, 2)))
    reshape_case(g, 'zero_size', V('f32', np.zeros((0, 4), np.float32)),
                 V('f32', np.zeros((2, 0, 3), np.float32)))
    reshape_case(g, 'add_size1_dims', V('pred', [True, False, True]),
                 V('pred', [[[True]], [[False]], [[True]]]))
    xc = V('f32', [[1, 2, 3], [4, 5, 6]], layout=[0, 1])
    reshape_case(g, 'column_major_input', xc, V('f32', [1, 2, 3, 4, 5, 6]),
                 notes=['reshape is logical: the input layout does not '
                        'change the result'])
    reshape_case(g, 'column_major_output', V('s32', [1, 2, 3, 4, 5, 6]),
                 V('s32', [[1, 2, 3], [4, 5, 6]], layout=[0, 1]))

    # transpose
    x = V('s32', [[1, 2, 3], [4, 5, 6]])
    unary_attr_case(g, 'transpose_2d', 'transpose', x, V('s32', x.a.T),
                    ', dimensions={1,0}')
    x3 = V('f32', np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    for perm in ([2, 0, 1], [1, 2, 0], [0, 2, 1], [0, 1, 2]):
        unary_attr_case(g, 'transpose_3d_%s' % ''.join(map(str, perm)),
                        'transpose', x3, V('f32', np.transpose(x3.a, perm)),
                        ', dimensions=%s' % dims_attr(perm))
    x4 = V('s8', rnd_int((2, 1, 3, 2), -100, 100))
    unary_attr_case(g, 'transpose_4d_s8', 'transpose', x4,
                    V('s8', np.transpose(x4.a, [3, 1, 0, 2])),
                    ', dimensions={3,1,0,2}')
    unary_attr_case(g, 'transpose_zero_size', 'transpose',
                    V('f32', np.zeros((0, 3), np.float32)),
                    V('f32', np.zeros((3, 0), np.float32)),
                    ', dimensions={1,0}')
    xc = V('f32', [[1, 2, 3], [4, 5, 6]], layout=[0, 1])
    unary_attr_case(g, 'transpose_column_major_in_out', 'transpose', xc,
                    V('f32', xc.a.T, layout=[0, 1]), ', dimensions={1,0}')
    # reverse
    x = V('s32', [[1, 2, 3], [4, 5, 6]])
    unary_attr_case(g, 'reverse_dim0', 'reverse', x, V('s32', x.a[::-1]),
                    ', dimensions={0}')
    unary_attr_case(g, 'reverse_dim1', 'reverse', x, V('s32', x.a[:, ::-1]),
                    ', dimensions={1}')
    unary_attr_case(g, 'reverse_both', 'reverse', x,
                    V('s32', x.a[::-1, ::-1]), ', dimensions={0,1}')
    unary_attr_case(g, 'reverse_none', 'reverse', x, V('s32', x.a),
                    ', dimensions={}')
    unary_attr_case(g, 'reverse_3d_dims02', 'reverse', x3,
                    V('f32', x3.a[::-1, :, ::-1]), ', dimensions={0,2}')
    unary_attr_case(g, 'reverse_1d_f16', 'reverse', V('f16', [1, 2, 3, 4.5]),
                    V('f16', [4.5, 3, 2, 1]), ', dimensions={0}')
    unary_attr_case(g, 'reverse_zero_size', 'reverse',
                    V('f32', np.zeros((2, 0), np.float32)),
                    V('f32', np.zeros((2, 0), np.float32)),
                    ', dimensions={0,1}')
    unary_attr_case(g, 'reverse_column_major', 'reverse',
                    V('s32', [[1, 2, 3], [4, 5, 6]], layout=[0, 1]),
                    V('s32', [[3, 2, 1], [6, 5, 4]]), ', dimensions={1}')

    # iota
    def iota_case(name, t, dims, d, layout=None):
        idx = np.indices(dims)[d] if dims else np.zeros(())
        if is_float(t):
            vals = [int_to_float(int(v), t) if t != 'f64' else float(v)
                    for v in idx.ravel()]
            out = V(t, np.array(vals, np.float64).reshape(dims), layout)
        else:
            out = V(t, np.array([wrap(int(v), t) for v in idx.ravel()],
                                dtype=object).reshape(dims), layout)
        e = Comp('main', entry=True)
        e.root(out.shape(), 'iota(), iota_dimension=%d' % d, 'r')
        add_case(g, name, 'numpy', module(name, e), [], out,
                 notes=['iota values are converted to the element type with '
                        'round-to-nearest-even'] if t == 'bf16' else ())
    iota_case('iota_s32_1d', 's32', [6], 0)
    iota_case('iota_f32_2d_dim1', 'f32', [3, 4], 1)
    iota_case('iota_f32_2d_dim0', 'f32', [3, 4], 0)
    iota_case('iota_u8_wraps', 'u8', [260], 0)
    iota_case('iota_s64_3d_dim2', 's64', [2, 2, 3], 2)
    iota_case('iota_f16', 'f16', [5], 0)
    iota_case('iota_bf16_rounding', 'bf16', [264], 0)
    iota_case('iota_column_major', 's32', [3, 2], 0, layout=[0, 1])
    iota_case('iota_zero_size', 'f32', [0, 4], 1)

    # bitcast: reinterprets the physical buffer in the result's layout.
    def bitcast_case(name, x, out_t, out_dims, out_layout, notes=()):
        # physical order of x
        lay = x.layout if x.layout is not None else list(
            range(x.a.ndim))[::-1]
        phys = np.transpose(x.a, lay[::-1]).ravel()
        # fill the result's physical order
        olay = out_layout
        major = [out_dims[i] for i in olay[::-1]]
        arr = phys.reshape(major)
        inv = np.argsort(olay[::-1])
        out = V(out_t, np.transpose(arr, inv).copy(), out_layout)
        unary_attr_case(g, name, 'bitcast', x, out, '', notes=notes)
    x = V('f32', [[1, 2, 3], [4, 5, 6]], layout=[1, 0])
    bitcast_case('bitcast_2x3_to_6', x, 'f32', [6], [0])
    bitcast_case('bitcast_2x3_to_3x2_colmajor', x, 'f32', [3, 2], [0, 1],
                 notes=['same bytes read in the {0,1} layout: a transpose'])
    x = V('s32', np.arange(12).reshape(3, 4), layout=[0, 1])
    bitcast_case('bitcast_colmajor_to_4x3', x, 's32', [4, 3], [1, 0])



# ----------------------------------------------------------------------------
# slicing: slice, dynamic-slice, dynamic-update-slice, pad, concatenate
# ----------------------------------------------------------------------------

def pad_ref(x, val, cfg):
    a = x
    for d, (lo, hi, interior) in enumerate(cfg):
        n = a.shape[d]
        if interior and n > 0:
            m = n + (n - 1) * interior
            shape = list(a.shape)
            shape[d] = m
            b = np.full(shape, val, dtype=a.dtype)
            idx = [slice(None)] * a.ndim
            idx[d] = slice(0, m, interior + 1)
            b[tuple(idx)] = a
            a = b
        for side, amount in ((0, lo), (1, hi)):
            if amount > 0:
                shape = list(a.shape)
                shape[d] = amount
                fill = np.full(shape, val, dtype=a.dtype)
                a = np.concatenate([fill, a] if side == 0 else [a, fill],
                                   axis=d)
            elif amount < 0:
                idx = [slice(None)] * a.ndim
                idx[d] = slice(-amount, None) if side == 0 else slice(
                    0, a.shape[d] + amount)
                a = a[tuple(idx)]
    return a


def pad_attr(cfg):
    return 'x'.join('%d_%d' % (lo, hi) if not it else '%d_%d_%d' %
                    (lo, hi, it) for lo, hi, it in cfg)


def gen_slicing():
    g = 'slicing'
    # slice (seed 004 examples first)
    def slice_case(name, x, spec, source='numpy', expect=None):
        idx = tuple(slice(a, b, c) for a, b, c in spec)
        out = expect if expect is not None else V(x.t, x.a[idx].copy())
        attr = ', slice={%s}' % ', '.join(
            '[%d:%d]' % (a, b) if c == 1 else '[%d:%d:%d]' % (a, b, c)
            for a, b, c in spec)
        unary_attr_case(g, name, 'slice', x, out, attr, source)
    a = V('f32', [0, 1, 2, 3, 4])
    slice_case('seed004_slice_1d', a, [(2, 4, 1)], 'seed 004 (Slice 1-D '
               'example)', V('f32', [2, 3]))
    b = V('f32', np.arange(12, dtype=np.float32).reshape(4, 3))
    slice_case('seed004_slice_2d', b, [(2, 4, 1), (1, 3, 1)],
               'seed 004 (Slice 2-D example)', V('f32', [[7, 8], [10, 11]]))
    x = V('s32', np.arange(10))
    slice_case('strided_1d', x, [(1, 10, 3)])
    slice_case('strided_1d_stride_past_end', x, [(0, 9, 4)])
    x2 = V('f32', np.arange(35, dtype=np.float32).reshape(5, 7))
    slice_case('strided_2d', x2, [(0, 5, 2), (1, 7, 3)])
    slice_case('full', x2, [(0, 5, 1), (0, 7, 1)])
    slice_case('zero_size_result', x2, [(2, 2, 1), (0, 7, 1)])
    x3 = V('s8', rnd_int((3, 4, 5), -100, 100))
    slice_case('rank3_mixed', x3, [(1, 3, 1), (0, 4, 2), (4, 5, 1)])
    slice_case('column_major_input', V('f32', x2.a, layout=[0, 1]),
               [(1, 4, 2), (2, 6, 1)])

    # dynamic-slice: starts are clamped to [0, dim - size] (SEMANTICS.md).
    clamp_note = ['start indices are clamped to [0, dim - size] (SEMANTICS.md;'
                  ' the 2017 seed took them modulo the size)']

    def ds_case(name, x, starts, sizes, it='s32', source='numpy',
                vector_form=False, expect=None):
        st = [min(max(s_, 0), d - z) for s_, d, z in zip(starts, x.dims,
                                                        sizes)]
        idx = tuple(slice(a, a + z) for a, z in zip(st, sizes))
        out = expect if expect is not None else V(x.t, x.a[idx].copy())
        e = Comp('main', entry=True)
        p = e.param(x.shape())
        inputs = [x]
        if vector_form:
            iv = V(it, starts)
            pi = e.param(iv.shape())
            ops = [pi]
            inputs.append(iv)
        else:
            ops = []
            for s_ in starts:
                iv = V(it, s_)
                ops.append(e.param(iv.shape()))
                inputs.append(iv)
        e.root(out.shape(), 'dynamic-slice(%s, %s), dynamic_slice_sizes=%s' %
               (p, ', '.join(ops), dims_attr(sizes)), 'r')
        add_case(g, name, source, module(name, e), inputs, out,
                 notes=clamp_note)
    ds_case('dynamic_slice_seed004_1d', a, [2], [2],
            source='seed 004 (DynamicSlice 1-D example)',
            expect=V('f32', [2, 3]))
    ds_case('dynamic_slice_seed004_2d', b, [2, 1], [2, 2],
            source='seed 004 (DynamicSlice 2-D example)',
            expect=V('f32', [[7, 8], [10, 11]]))
    ds_case('dynamic_slice_clamped_high', b, [3, 2], [2, 2])
    ds_case('dynamic_slice_clamped_far', b, [100, 100], [2, 2])
    ds_case('dynamic_slice_negative_start', b, [-1, -5], [3, 2])
    ds_case('dynamic_slice_u32_index', x2, [4, 1], [1, 5], it='u32')
    ds_case('dynamic_slice_s64_index', x2, [1, 6], [4, 3], it='s64')
    ds_case('dynamic_slice_s8_index', x2, [-128, 127], [2, 2], it='s8')
    ds_case('dynamic_slice_full_size', b, [1, 1], [4, 3])
    ds_case('dynamic_slice_zero_size', b, [1, 1], [0, 2])
    ds_case('dynamic_slice_vector_index_form', b, [1, 2], [2, 1],
            vector_form=True)
    ds_case('dynamic_slice_rank3', x3, [1, 3, -2], [2, 2, 3])
    ds_case('dynamic_slice_scalar_operand_dims', V('s32', [5, 6, 7]), [2],
            [1])

    def dus_case(name, x, upd, starts, it='s32', source='numpy',
                 vector_form=False, expect=None):
        st = [min(max(s_, 0), d - z) for s_, d, z in zip(starts, x.dims,
                                                        upd.dims)]
        r = x.a.copy()
        idx = tuple(slice(a, a + z) for a, z in zip(st, upd.dims))
        r[idx] = upd.a
        out = expect if expect is not None else V(x.t, r)
        e = Comp('main', entry=True)
        p = e.param(x.shape())
        pu = e.param(upd.shape())
        inputs = [x, upd]
        if vector_form:
            iv = V(it, starts)
            ops = [e.param(iv.shape())]
            inputs.append(iv)
        else:
            ops = []
            for s_ in starts:
                iv = V(it, s_)
                ops.append(e.param(iv.shape()))
                inputs.append(iv)
        e.root(out.shape(), 'dynamic-update-slice(%s, %s, %s)' %
               (p, pu, ', '.join(ops)), 'r')
        add_case(g, name, source, module(name, e), inputs, out,
                 notes=clamp_note)
    dus_case('dynamic_update_slice_seed004_1d', a, V('f32', [5, 6]), [2],
             source='seed 004 (DynamicUpdateSlice 1-D example)',
             expect=V('f32', [0, 1, 5, 6, 4]))
    u = V('f32', [[12, 13], [14, 15], [16, 17]])
    dus_case('dynamic_update_slice_seed004_2d', b, u, [1, 1],
             source='seed 004 (DynamicUpdateSlice 2-D example)',
             expect=V('f32', [[0, 1, 2], [3, 12, 13], [6, 14, 15],
                              [9, 16, 17]]))
    dus_case('dynamic_update_slice_clamped', b, u, [3, 5])
    dus_case('dynamic_update_slice_negative', b, u, [-4, -1])
    dus_case('dynamic_update_slice_u64_index', b, V('f32', [[-1, -2, -3]]),
             [2, 0], it='u64')
    dus_case('dynamic_update_slice_zero_size_update', b,
             V('f32', np.zeros((0, 2), np.float32)), [1, 1])
    dus_case('dynamic_update_slice_full', V('s32', [[1, 2], [3, 4]]),
             V('s32', [[5, 6], [7, 8]]), [1, 1])
    dus_case('dynamic_update_slice_vector_index_form', b,
             V('f32', [[100], [200]]), [1, 2], vector_form=True)
    dus_case('dynamic_update_slice_pred', V('pred', [False] * 5),
             V('pred', [True, True]), [4])

    # pad: low/high (possibly negative) and interior; interior padding
    # happens first, then the (negative) edges (seed 004).
    def pad_case(name, x, val, cfg, layout=None):
        out = V(x.t, pad_ref(x.a, val.a[()], cfg), layout)
        e = Comp('main', entry=True)
        p = e.param(x.shape())
        pv = e.param(val.shape())
        e.root(out.shape(), 'pad(%s, %s), padding=%s' % (p, pv,
                                                         pad_attr(cfg)), 'r')
        add_case(g, name, 'numpy', module(name, e), [x, val], out,
                 notes=['interior padding first, then edge padding; '
                        'negative edges remove elements (seed 004)'])
    x = V('f32', [[1, 2, 3], [4, 5, 6]])
    zero = V('f32', 0.0)
    pad_case('pad_edges', x, zero, [(1, 2, 0), (0, 1, 0)])
    pad_case('pad_interior', x, V('f32', -1), [(0, 0, 1), (0, 0, 2)])
    pad_case('pad_edges_and_interior', x, V('f32', 9), [(1, 0, 1), (2, 1, 1)])
    pad_case('pad_negative_low', x, zero, [(-1, 0, 0), (-2, 1, 0)])
    pad_case('pad_negative_high', x, zero, [(0, -1, 0), (1, -2, 0)])
    pad_case('pad_negative_with_interior', x, V('f32', 7),
             [(-1, 0, 1), (-2, -1, 1)])
    pad_case('pad_to_zero_size', x, zero, [(0, -2, 0), (0, 0, 0)])
    pad_case('pad_zero_size_operand', V('f32', np.zeros((0,), np.float32)),
             V('f32', 3), [(2, 1, 5)])
    pad_case('pad_s32_1d', V('s32', [1, 2, 3]), V('s32', -5), [(2, 3, 1)])
    pad_case('pad_pred', V('pred', [True, True]), V('pred', False),
             [(1, 1, 1)])
    pad_case('pad_rank3', V('s8', rnd_int((2, 2, 2), -9, 9)), V('s8', 0),
             [(0, 1, 0), (1, 0, 1), (-1, 1, 0)])
    pad_case('pad_noop', x, zero, [(0, 0, 0), (0, 0, 0)])
    pad_case('pad_column_major', V('f32', x.a, layout=[0, 1]), zero,
             [(1, 0, 0), (0, 1, 1)])

    # concatenate (seed 004 examples first)
    def concat_case(name, xs, dim, source='numpy', expect=None, layout=None):
        out = expect if expect is not None else V(
            xs[0].t, np.concatenate([x.a for x in xs], axis=dim), layout)
        e = Comp('main', entry=True)
        ps = [e.param(x.shape()) for x in xs]
        e.root(out.shape(), 'concatenate(%s), dimensions={%d}' %
               (', '.join(ps), dim), 'r')
        add_case(g, name, source, module(name, e), xs, out)
    concat_case('concatenate_seed004_1d',
                [V('f32', [2, 3]), V('f32', [4, 5]), V('f32', [6, 7])], 0,
                'seed 004 (Concatenate 1-D example)',
                V('f32', [2, 3, 4, 5, 6, 7]))
    concat_case('concatenate_seed004_2d',
                [V('f32', [[1, 2], [3, 4], [5, 6]]), V('f32', [[7, 8]])], 0,
                'seed 004 (Concatenate 2-D example)',
                V('f32', [[1, 2], [3, 4], [5, 6], [7, 8]]))
    concat_case('concatenate_dim1', [V('s32', [[1], [2]]),
                                     V('s32', [[3, 4], [5, 6]]),
                                     V('s32', [[7], [8]])], 1)
    concat_case('concatenate_zero_size_operand',
                [V('f32', [1, 2]), V('f32', np.zeros((0,), np.float32)),
                 V('f32', [3])], 0)
    concat_case('concatenate_rank3_dim2',
                [V('u8', rnd_int((2, 2, 1), 0, 255)),
                 V('u8', rnd_int((2, 2, 3), 0, 255))], 2)
    concat_case('concatenate_single', [V('pred', [True, False])], 0)
    concat_case('concatenate_mixed_layouts',
                [V('f32', [[1, 2], [3, 4]], layout=[0, 1]),
                 V('f32', [[5, 6]], layout=[1, 0])], 0, layout=[0, 1])
    concat_case('concatenate_bf16', [V('bf16', [0.5, 1.5]),
                                     V('bf16', [-2])], 0)



# ----------------------------------------------------------------------------
# gather / scatter (XLA's general semantics)
# ----------------------------------------------------------------------------

def _index_vectors(indices, ivd):
    idx = indices
    if ivd == idx.ndim:
        idx = idx[..., None]
    idx = np.moveaxis(idx, ivd, -1)
    wo = [d for d in range(indices.ndim + (1 if ivd == indices.ndim else 0))
          if d != ivd]
    return idx, wo


def gather_ref(operand, indices, offset_dims, collapsed, start_index_map,
               ivd, slice_sizes, obd=(), sibd=()):
    idx, wo = _index_vectors(indices, ivd)
    batch_shape = idx.shape[:-1]
    off_operand = [d for d in range(operand.ndim)
                   if d not in collapsed and d not in obd]
    out_rank = len(batch_shape) + len(offset_dims)
    batch_out = [d for d in range(out_rank) if d not in offset_dims]
    out_shape = [0] * out_rank
    for i, d in enumerate(batch_out):
        out_shape[d] = batch_shape[i]
    for i, d in enumerate(offset_dims):
        out_shape[d] = slice_sizes[off_operand[i]]
    out = np.zeros(out_shape, operand.dtype)
    for oi in np.ndindex(*out_shape):
        G = tuple(oi[d] for d in batch_out)
        vec = idx[G]
        S_ = [0] * operand.ndim
        for k, od in enumerate(start_index_map):
            S_[od] = int(vec[k])
        for od, ib in zip(obd, sibd):
            S_[od] = G[wo.index(ib)]
        S_ = [min(max(v, 0), operand.shape[d] - slice_sizes[d])
              for d, v in enumerate(S_)]
        for i, od in enumerate(off_operand):
            S_[od] += oi[offset_dims[i]]
        out[oi] = operand[tuple(S_)]
    return out


def scatter_ref(operand, indices, updates, uwd, iwd, sdod, ivd, fn,
                ibd=(), sibd=()):
    out = operand.copy()
    idx, wo = _index_vectors(indices, ivd)
    usd = [d for d in range(updates.ndim) if d not in uwd]
    win_operand = [d for d in range(operand.ndim)
                   if d not in iwd and d not in ibd]
    for ui in np.ndindex(*updates.shape):
        G = tuple(ui[d] for d in usd)
        vec = idx[G]
        full = [0] * operand.ndim
        for k, od in enumerate(sdod):
            full[od] = int(vec[k])
        for od, ib in zip(ibd, sibd):
            full[od] = G[wo.index(ib)]
        for i, od in enumerate(win_operand):
            full[od] += ui[uwd[i]]
        assert all(0 <= v < operand.shape[d] for d, v in enumerate(full)), \
            'conformance cases keep scatter indices in bounds'
        out[tuple(full)] = fn(out[tuple(full)], updates[ui])
    return out


def gen_gather_scatter():
    g = 'gather_scatter'

    def gather_case(name, x, ind, offset_dims, collapsed, sim, ivd, sizes,
                    obd=(), sibd=(), notes=(), sorted_=False):
        out = V(x.t, gather_ref(x.a, ind.a, offset_dims, collapsed, sim, ivd,
                                sizes, obd, sibd))
        attrs = ', offset_dims=%s, collapsed_slice_dims=%s, ' \
                'start_index_map=%s' % (dims_attr(offset_dims),
                                        dims_attr(collapsed), dims_attr(sim))
        if obd:
            attrs += ', operand_batching_dims=%s, ' \
                     'start_indices_batching_dims=%s' % (dims_attr(obd),
                                                         dims_attr(sibd))
        attrs += ', index_vector_dim=%d, slice_sizes=%s' % (ivd,
                                                           dims_attr(sizes))
        if sorted_:
            attrs += ', indices_are_sorted=true'
        e = Comp('main', entry=True)
        p = e.param(x.shape())
        pi = e.param(ind.shape())
        e.root(out.shape(), 'gather(%s, %s)%s' % (p, pi, attrs), 'r')
        add_case(g, name, 'numpy', module(name, e), [x, ind], out,
                 notes=notes)
    table = V('f32', np.arange(15, dtype=np.float32).reshape(5, 3))
    gather_case('gather_embedding_lookup', table, V('s32', [3, 0, 3, 1]),
                [1], [0], [0], 1, [1, 3])
    gather_case('gather_embedding_batched', table,
                V('s32', [[4, 4, 0], [2, 1, 0]]), [2], [0], [0], 2, [1, 3])
    gather_case('gather_embedding_sorted_indices', table,
                V('s32', [0, 1, 1, 4]), [1], [0], [0], 1, [1, 3],
                sorted_=True)
    m = V('f32', np.arange(12, dtype=np.float32).reshape(3, 4) * 10)
    cols = np.array([[1, 3], [0, 0], [2, 1]])
    full = np.stack([np.broadcast_to(np.arange(3)[:, None], (3, 2)), cols],
                    axis=-1)
    gather_case('gather_torch_gather_dim1', m, V('s32', full), [], [0, 1],
                [0, 1], 2, [1, 1],
                notes=['torch.gather(m, 1, idx) with explicit (row, col) '
                       'index vectors'])
    gather_case('gather_torch_gather_batching_dims', m,
                V('s32', cols[..., None]), [], [1], [1], 2, [1, 1],
                obd=[0], sibd=[0],
                notes=['torch.gather(m, 1, idx) with operand_batching_dims'])
    sq = V('s32', np.arange(9).reshape(3, 3))
    gather_case('gather_2x2_windows_clamped', sq,
                V('s32', [[0, 1], [2, 2], [-1, 5]]), [1, 2], [], [0, 1], 1,
                [2, 2], notes=['window starts are clamped so the window fits'
                               ' in the operand'])
    gather_case('gather_index_vector_dim0', sq,
                V('s32', [[0, 2, 1], [1, 0, 2]]), [], [0, 1], [0, 1], 0,
                [1, 1])
    g5 = V('f32', np.arange(15, dtype=np.float32).reshape(3, 5))
    gather_case('gather_columns_offset_dim_first', g5,
                V('s32', [4, 0, 2, 2]), [0], [1], [1], 1, [3, 1])
    gather_case('gather_scalar_index', table, V('s32', 2), [0], [0], [0], 0,
                [1, 3])
    gather_case('gather_zero_size_indices', table,
                V('s32', np.zeros((0,), np.int32)), [1], [0], [0], 1, [1, 3])
    gather_case('gather_s64_indices_out_of_range', table,
                V('s64', [7, -3]), [1], [0], [0], 1, [1, 3],
                notes=['start indices are clamped'])
    gather_case('gather_u32_indices', table, V('u32', [1, 4]), [1], [0], [0],
                1, [1, 2])
    x3 = V('s32', np.arange(24).reshape(2, 3, 4))
    gather_case('gather_rank3_partial_slices', x3,
                V('s32', [[1, 0], [0, 2], [1, 2]]), [1, 2], [0], [0, 2], 1,
                [1, 2, 2])
    gather_case('gather_keep_window_dim', table, V('s32', [[1], [3]]),
                [1, 2], [], [0], 1, [2, 2])

    def scatter_case(name, x, ind, upd, uwd, iwd, sdod, ivd, comb='add',
                     ibd=(), sibd=(), notes=(), unique=False):
        t = x.t
        comps = []
        if comb == 'replace':
            c = Comp('assign_' + t)
            c.param(S(t), 'a')
            c.param(S(t), 'b')
            c.lines[-1] = 'ROOT ' + c.lines[-1]
            c.root_shape = S(t)
            c.has_root = True
            fn = (lambda a, b: b)
        else:
            opn = {'add': 'add', 'max': 'maximum', 'mul': 'multiply',
                   'min': 'minimum'}[comb]
            c = scalar_comp('%s_%s' % (comb, t), opn, t)
            fn = {'add': lambda a, b: a + b, 'max': max,
                  'mul': lambda a, b: a * b, 'min': min}[comb]
        comps.append(c)
        out = V(t, scatter_ref(x.a, ind.a, upd.a, uwd, iwd, sdod, ivd, fn,
                               ibd, sibd))
        attrs = ', update_window_dims=%s, inserted_window_dims=%s, ' \
                'scatter_dims_to_operand_dims=%s' % (dims_attr(uwd),
                                                     dims_attr(iwd),
                                                     dims_attr(sdod))
        if ibd:
            attrs += ', input_batching_dims=%s, ' \
                     'scatter_indices_batching_dims=%s' % (dims_attr(ibd),
                                                           dims_attr(sibd))
        attrs += ', index_vector_dim=%d' % ivd
        if unique:
            attrs += ', unique_indices=true'
        attrs += ', to_apply=%%%s' % c.name
        e = Comp('main', entry=True)
        p = e.param(x.shape())
        pi = e.param(ind.shape())
        pu = e.param(upd.shape())
        e.root(out.shape(), 'scatter(%s, %s, %s)%s' % (p, pi, pu, attrs), 'r')
        add_case(g, name, 'numpy', module(name, e, *comps), [x, ind, upd],
                 out, notes=notes)
    scatter_case('scatter_add_duplicates_1d', V('f32', [0, 0, 0, 0, 0]),
                 V('s32', [0, 2, 2, 4, 0, 2]),
                 V('f32', [1, 2, 3, 4, 5, 6]), [], [0], [0], 1,
                 notes=['duplicate indices accumulate'])
    scatter_case('scatter_add_duplicates_s32', V('s32', [10, 20, 30]),
                 V('s32', [[1], [1], [1], [0]]), V('s32', [1, 2, 3, 4]),
                 [], [0], [0], 1)
    base = V('f32', np.arange(12, dtype=np.float32).reshape(4, 3))
    scatter_case('scatter_replace_rows', base, V('s32', [3, 1]),
                 V('f32', [[-1, -2, -3], [-4, -5, -6]]), [1], [0], [0], 1,
                 'replace', unique=True)
    scatter_case('scatter_add_rows_duplicates', base, V('s32', [2, 0, 2]),
                 V('f32', [[1, 1, 1], [2, 2, 2], [10, 20, 30]]), [1], [0],
                 [0], 1)
    scatter_case('scatter_add_points', V('s32', np.zeros((3, 3), np.int32)),
                 V('s32', [[0, 0], [2, 1], [0, 0], [1, 2]]),
                 V('s32', [5, 6, 7, 8]), [], [0, 1], [0, 1], 1)
    scatter_case('scatter_add_2x2_blocks',
                 V('f32', np.zeros((4, 4), np.float32)),
                 V('s32', [[0, 0], [1, 2]]),
                 V('f32', np.arange(1, 9, dtype=np.float32).reshape(2, 2, 2)),
                 [1, 2], [], [0, 1], 1)
    scatter_case('scatter_max', V('f32', [1, 5, 3]), V('s32', [0, 1, 1, 2]),
                 V('f32', [4, 2, 9, -1]), [], [0], [0], 1, 'max')
    scatter_case('scatter_min_s8', V('s8', [1, 5, 3]), V('s32', [0, 0, 2]),
                 V('s8', [-4, 2, 9]), [], [0], [0], 1, 'min')
    scatter_case('scatter_multiply', V('s32', [1, 2, 3]),
                 V('s32', [2, 2, 0]), V('s32', [2, 3, 4]), [], [0], [0], 1,
                 'mul')
    scatter_case('scatter_index_vector_dim0',
                 V('s32', np.zeros((2, 3), np.int32)),
                 V('s32', [[0, 1, 1], [2, 0, 2]]), V('s32', [1, 2, 3]), [],
                 [0, 1], [0, 1], 0)
    scatter_case('scatter_columns', V('f32', np.zeros((3, 4), np.float32)),
                 V('s32', [3, 0]),
                 V('f32', [[1, 2], [3, 4], [5, 6]]), [0], [1], [1], 1)
    scatter_case('scatter_zero_size_updates', V('f32', [1, 2, 3]),
                 V('s32', np.zeros((0,), np.int32)),
                 V('f32', np.zeros((0,), np.float32)), [], [0], [0], 1)
    scatter_case('scatter_batching_dims',
                 V('s32', np.zeros((2, 4), np.int32)),
                 V('s32', [[[1], [3]], [[0], [1]]]),
                 V('s32', [[1, 2], [3, 4]]), [], [1], [1], 2, ibd=[0],
                 sibd=[0], notes=['input_batching_dims: row i of the '
                                  'updates goes to row i of the operand'])
    scatter_case('scatter_scalar_index_full_window', base, V('s32', 1),
                 V('f32', [10, 20, 30]), [0], [0], [0], 0)

    # Variadic scatter: two operands updated together.
    c = Comp('add_pair')
    a0 = c.param(S('f32'), 'a0')
    a1 = c.param(S('s32'), 'a1')
    b0 = c.param(S('f32'), 'b0')
    b1 = c.param(S('s32'), 'b1')
    r0 = c.op(S('f32'), 'add(%s, %s)' % (a0, b0), 's0')
    r1 = c.op(S('s32'), 'add(%s, %s)' % (a1, b1), 's1')
    c.root('(f32[], s32[])', 'tuple(%s, %s)' % (r0, r1), 't')
    x0, x1 = V('f32', [1, 2, 3]), V('s32', [10, 20, 30])
    ind = V('s32', [2, 0, 2])
    u0, u1 = V('f32', [0.5, 1, 2]), V('s32', [1, 2, 3])
    o0 = scatter_ref(x0.a, ind.a, u0.a, [], [0], [0], 1, lambda a, b: a + b)
    o1 = scatter_ref(x1.a, ind.a, u1.a, [], [0], [0], 1, lambda a, b: a + b)
    e = Comp('main', entry=True)
    ps = [e.param(v.shape()) for v in (x0, x1, ind, u0, u1)]
    e.root('(f32[3], s32[3])',
           'scatter(%s), update_window_dims={}, inserted_window_dims={0}, '
           'scatter_dims_to_operand_dims={0}, index_vector_dim=1, '
           'to_apply=%%add_pair' % ', '.join(ps), 'r')
    add_case(g, 'scatter_variadic_two_operands', 'numpy',
             module('scatter_variadic_two_operands', e, c),
             [x0, x1, ind, u0, u1], Tup(V('f32', o0), V('s32', o1)))



# ----------------------------------------------------------------------------
# reduce, reduce-window, select-and-scatter
# ----------------------------------------------------------------------------

IDENT = {'add': 0, 'maximum': -INF, 'minimum': INF, 'multiply': 1,
         'and': True, 'or': False}


def ident(opn, t):
    if is_int(t) and opn == 'maximum':
        return int_min(t)
    if is_int(t) and opn == 'minimum':
        return int_max(t)
    if t == 'pred' and opn in ('maximum', 'minimum'):
        return opn == 'minimum'
    return IDENT[opn]


def np_reduce(opn, a, dims, init):
    dims = tuple(dims)
    if opn == 'add':
        r = np.sum(a, axis=dims, dtype=object if a.dtype.kind in 'iu'
                   else np.float64) if a.size else np.zeros(
            [d for i, d in enumerate(a.shape) if i not in dims]) + 0
    elif opn == 'maximum':
        r = np.max(a, axis=dims, initial=init)
    elif opn == 'minimum':
        r = np.min(a, axis=dims, initial=init)
    elif opn == 'multiply':
        r = np.prod(a.astype(object) if a.dtype.kind in 'iu' else a,
                    axis=dims)
    elif opn == 'and':
        r = np.all(a, axis=dims)
    elif opn == 'or':
        r = np.any(a, axis=dims)
    if opn in ('add', 'multiply') and init not in (0, 1):
        raise ValueError('identity init only')
    return np.asarray(r)


def window_attr(size, stride=None, pad=None, lhs=None, rhs=None, rev=None):
    parts = ['size=' + 'x'.join(map(str, size))]
    if stride and any(x != 1 for x in stride):
        parts.append('stride=' + 'x'.join(map(str, stride)))
    if pad and any(p != (0, 0) for p in pad):
        parts.append('pad=' + 'x'.join('%d_%d' % p for p in pad))
    if lhs and any(x != 1 for x in lhs):
        parts.append('lhs_dilate=' + 'x'.join(map(str, lhs)))
    if rhs and any(x != 1 for x in rhs):
        parts.append('rhs_dilate=' + 'x'.join(map(str, rhs)))
    if rev and any(rev):
        parts.append('rhs_reversal=' + 'x'.join('1' if r else '0'
                                                for r in rev))
    return 'window={%s}' % ' '.join(parts)


def window_positions(shape, size, stride, pad, lhs, rhs):
    """Yields (output index, [operand indices in the window, lexicographic
    window order]) for reduce-window / select-and-scatter."""
    n = len(shape)
    outs = []
    for d in range(n):
        dil = (shape[d] - 1) * lhs[d] + 1 if shape[d] else 0
        padded = dil + pad[d][0] + pad[d][1]
        eff = (size[d] - 1) * rhs[d] + 1
        outs.append((padded - eff) // stride[d] + 1 if padded >= eff else 0)
    res = []
    for oi in np.ndindex(*outs):
        elems = []
        for ki in np.ndindex(*size):
            pos = []
            for d in range(n):
                u = oi[d] * stride[d] - pad[d][0] + ki[d] * rhs[d]
                if u % lhs[d]:
                    break
                i = u // lhs[d]
                if i < 0 or i >= shape[d]:
                    break
                pos.append(i)
            else:
                elems.append(tuple(pos))
        res.append((oi, elems))
    return outs, res


def gen_reduce():
    g = 'reduce'

    def reduce_case(name, x, dims, opn, init=None, source='numpy',
                    expect=None, tol=None, out_layout=None, notes=()):
        t = x.t
        if init is None:
            init = ident(opn, t)
        if expect is None:
            r = np_reduce(opn, x.a, dims, init)
            if is_int(t):
                r = make(t, r)
            expect = V(t, np.asarray(r).astype(NP_DTYPE[t])
                       if t not in ('bf16',) else bf16_from_f64(r),
                       out_layout)
        c = scalar_comp('%s_%s' % (opn, t), opn, t)
        e = Comp('main', entry=True)
        p = e.param(x.shape())
        ci = e.op(S(t), 'constant(%s)' % fmt_scalar(t, make(t, init)[()]),
                  'init')
        e.root(expect.shape(), 'reduce(%s, %s), dimensions=%s, to_apply=%%%s'
               % (p, ci, dims_attr(dims), c.name), 'r')
        add_case(g, name, source, module(name, e, c), [x], expect, tol,
                 notes)
    # seed 004 Reduce: a 4x2x3 array with 1..6 replicated along dim 0.
    v = V('f32', np.tile(np.arange(1, 7, dtype=np.float32).reshape(1, 2, 3),
                         (4, 1, 1)))
    src = 'seed 004 (Reduce 3-D example)'
    reduce_case('seed004_3d_dim0', v, [0], 'add', source=src,
                expect=V('f32', [[4, 8, 12], [16, 20, 24]]))
    reduce_case('seed004_3d_dim2', v, [2], 'add', source=src,
                expect=V('f32', [[6, 15]] * 4))
    reduce_case('seed004_3d_dims01', v, [0, 1], 'add', source=src,
                expect=V('f32', [20, 28, 36]))
    reduce_case('seed004_3d_all', v, [0, 1, 2], 'add', source=src,
                expect=V('f32', 84))
    m = V('f32', [[1, 2, 3], [4, 5, 6]])
    reduce_case('sum_2d_dim0', m, [0], 'add')
    reduce_case('sum_2d_dim1', m, [1], 'add')
    r = V('f32', rnd((3, 4, 5)))
    reduce_case('sum_f32_random_dims02', r, [0, 2], 'add', tol=TOL_SUM_F32)
    reduce_case('sum_f32_random_all', r, [0, 1, 2], 'add', tol=TOL_SUM_F32)
    reduce_case('max_f32', r, [1], 'maximum')
    reduce_case('min_f32', r, [0, 2], 'minimum')
    reduce_case('max_f32_with_nan', V('f32', [[1, NAN, 3], [4, 5, -INF]]),
                [1], 'maximum', notes=['maximum propagates NaN'])
    reduce_case('product_s32', V('s32', [[1, 2, 3], [-4, 5, 6]]), [1],
                'multiply')
    reduce_case('sum_u8_wraps', V('u8', [[200, 100, 10], [255, 1, 0]]), [1],
                'add', notes=['u8 addition wraps'])
    reduce_case('sum_s64', V('s64', [[1 << 40, 1 << 41], [-5, 7]]), [0],
                'add')
    reduce_case('all_pred', V('pred', [[True, True], [True, False]]), [1],
                'and')
    reduce_case('any_pred', V('pred', [[False, False], [True, False]]), [1],
                'or')
    reduce_case('sum_f16_exact', V('f16', rnd_int((4, 6), -8, 8)), [1], 'add',
                notes=['small integers: every order of summation is exact'])
    reduce_case('sum_bf16_exact', V('bf16', rnd_int((3, 4), -8, 8)), [0],
                'add', notes=['small integers: every order of summation is '
                              'exact'])
    reduce_case('sum_f64', V('f64', rnd((5, 3))), [0], 'add',
                tol=TOL_TRANS_F64)
    reduce_case('sum_zero_size_gives_init', V('f32', np.zeros((3, 0),
                                                              np.float32)),
                [1], 'add', expect=V('f32', [0, 0, 0]))
    reduce_case('max_zero_size_gives_init',
                V('f32', np.zeros((0, 2), np.float32)), [0], 'maximum',
                expect=V('f32', [-INF, -INF]))
    reduce_case('no_dimensions', m, [], 'add', expect=V('f32', m.a))
    reduce_case('size1_dimension', V('s32', [[[3], [4]]]), [0, 2], 'add')
    reduce_case('column_major_input',
                V('f32', [[1, 2, 3], [4, 5, 6]], layout=[0, 1]), [1], 'add')
    x3 = V('s32', rnd_int((2, 3, 4), -50, 50))
    reduce_case('column_major_output', x3, [1], 'add', out_layout=[0, 1])
    reduce_case('scalar_operand', V('f32', 3.5), [], 'add',
                expect=V('f32', 3.5))

    # Variadic reduce: argmax / argmin over values and their iota indices.
    def arg_case(name, vals, dim, mode):
        t = vals.t
        c = Comp('arg' + mode)
        av = c.param(S(t), 'a_v')
        ai = c.param(S('s32'), 'a_i')
        bv = c.param(S(t), 'b_v')
        bi = c.param(S('s32'), 'b_i')
        d = 'GT' if mode == 'max' else 'LT'
        better = c.op(S('pred'), 'compare(%s, %s), direction=%s' %
                      (av, bv, d), 'better')
        eq = c.op(S('pred'), 'compare(%s, %s), direction=EQ' % (av, bv), 'eq')
        lti = c.op(S('pred'), 'compare(%s, %s), direction=LT' % (ai, bi),
                   'lower_index')
        tie = c.op(S('pred'), 'and(%s, %s)' % (eq, lti), 'tie')
        pick = c.op(S('pred'), 'or(%s, %s)' % (better, tie), 'pick_a')
        sv = c.op(S(t), 'select(%s, %s, %s)' % (pick, av, bv), 'v')
        si = c.op(S('s32'), 'select(%s, %s, %s)' % (pick, ai, bi), 'i')
        c.root('(%s, s32[])' % S(t), 'tuple(%s, %s)' % (sv, si), 't')
        e = Comp('main', entry=True)
        p = e.param(vals.shape())
        io = e.op(shape_str('s32', vals.dims), 'iota(), iota_dimension=%d' %
                  dim, 'iota')
        init_v = -INF if mode == 'max' else INF
        if is_int(t):
            init_v = int_min(t) if mode == 'max' else int_max(t)
        iv = e.op(S(t), 'constant(%s)' % fmt_scalar(t, init_v), 'init_v')
        ii = e.op(S('s32'), 'constant(0)', 'init_i')
        rdims = [x for i, x in enumerate(vals.dims) if i != dim]
        fn = np.argmax if mode == 'max' else np.argmin
        idx = fn(vals.a, axis=dim)
        best = (np.max if mode == 'max' else np.min)(vals.a, axis=dim)
        out = Tup(V(t, best), V('s32', idx.astype(np.int32)))
        e.root('(%s, %s)' % (shape_str(t, rdims), shape_str('s32', rdims)),
               'reduce(%s, %s, %s, %s), dimensions={%d}, to_apply=%%%s' %
               (p, io, iv, ii, dim, c.name), 'r')
        add_case(g, name, 'numpy', module(name, e, c), [vals], out,
                 notes=['variadic reduce; ties pick the lower index'])
    arg_case('argmax_variadic', V('f32', [[1, 7, 3, 7], [2, -1, 2, 0]]), 1,
             'max')
    arg_case('argmin_variadic_dim0',
             V('f32', [[1, 7, 3], [0, 7, 5], [0, 9, -4]]), 0, 'min')
    arg_case('argmax_variadic_s32', V('s32', [[5, 5, 1], [-3, 4, 4]]), 1,
             'max')

    # reduce-window
    g = 'reduce_window'

    def rw_case(name, x, opn, size, stride=None, pad=None, lhs=None,
                rhs=None, source='numpy', tol=None, notes=()):
        t = x.t
        n = x.a.ndim
        stride = stride or [1] * n
        pad = pad or [(0, 0)] * n
        lhs = lhs or [1] * n
        rhs = rhs or [1] * n
        outs, wins = window_positions(x.dims, size, stride, pad, lhs, rhs)
        init = ident(opn, t)
        res = []
        for oi, elems in wins:
            vals = [x.a[p_] for p_ in elems]
            if opn == 'add':
                acc = sum((float(v) if is_float(t) else int(v)
                           for v in vals), 0)
            elif opn == 'maximum':
                acc = max([init] + [float(v) if is_float(t) else int(v)
                                    for v in vals])
            else:
                acc = min([init] + [float(v) if is_float(t) else int(v)
                                    for v in vals])
            res.append(acc)
        if is_int(t):
            arr = make(t, np.array(res, dtype=object).reshape(outs))
        else:
            arr = round_result(t, np.array(res, np.float64).reshape(outs))
        out = V(t, arr)
        c = scalar_comp('%s_%s' % (opn, t), opn, t)
        e = Comp('main', entry=True)
        p = e.param(x.shape())
        ci = e.op(S(t), 'constant(%s)' % fmt_scalar(t, make(t, init)[()]),
                  'init')
        e.root(out.shape(), 'reduce-window(%s, %s), %s, to_apply=%%%s' %
               (p, ci, window_attr(size, stride, pad, lhs, rhs), c.name), 'r')
        add_case(g, name, source, module(name, e, c), [x], out, tol, notes)
    x = V('f32', rnd_int((4, 6), -20, 20))
    rw_case('seed004_max_2x3_stride_2x3', x, 'maximum', [2, 3], [2, 3],
            source='seed 004 (ReduceWindow example: 4x6 input, 2x3 windows '
                   'and strides, max, valid padding); values numpy')
    rw_case('sum_2x2_stride1', x, 'add', [2, 2])
    rw_case('max_3x3_stride2_pad1', x, 'maximum', [3, 3], [2, 2],
            [(1, 1), (1, 1)], notes=['padding elements never take part'])
    rw_case('sum_pad_asymmetric', x, 'add', [2, 2], [1, 2], [(0, 1), (2, 0)])
    rw_case('sum_base_dilation', V('f32', [[1, 2, 3], [4, 5, 6]]), 'add',
            [2, 2], lhs=[2, 2], notes=['lhs_dilate inserts holes that take '
                                       'no part in the reduction'])
    rw_case('sum_window_dilation', x, 'add', [2, 2], rhs=[2, 3])
    rw_case('sum_1d_stride2_pad', V('s32', [1, 2, 3, 4, 5, 6, 7]), 'add', [3],
            [2], [(1, 1)])
    rw_case('max_s32_3d', V('s32', rnd_int((2, 3, 4), -99, 99)), 'maximum',
            [1, 2, 2], [1, 1, 2])
    rw_case('min_window_bigger_than_input_padded',
            V('f32', [3, -1, 2]), 'minimum', [5], [1], [(1, 1)])
    rw_case('sum_f16_exact', V('f16', rnd_int((3, 5), -8, 8)), 'add',
            [2, 3], [1, 2])
    rw_case('sum_f32_random', V('f32', rnd((5, 5))), 'add', [3, 3], [2, 1],
            [(1, 0), (0, 1)], tol=TOL_SUM_F32)
    rw_case('identity_window', V('u8', [[1, 2], [3, 4]]), 'add', [1, 1])
    rw_case('all_dilations_stride_pad', V('f32', rnd_int((4, 4), -5, 5)),
            'add', [2, 2], [2, 1], [(1, 2), (0, 1)], lhs=[2, 1], rhs=[1, 2])
    rw_case('zero_size_output', V('f32', [1, 2]), 'add', [3])
    # Scans as JAX writes them (cumsum, cummax; reverse=True pads after):
    # reduce-window-rewriter computes them in blocks of 128. Own random
    # state, so the cases above keep their values.
    scan_rng = np.random.RandomState(3003)
    rw_case('cumsum_s32_300', V('s32', scan_rng.randint(-50, 50, size=(300,))),
            'add', [300], [1], [(299, 0)],
            notes=['a scan: the window covers the whole dimension'])
    rw_case('cumsum_reverse_s32_2x500',
            V('s32', scan_rng.randint(-50, 50, size=(2, 500))), 'add',
            [1, 500], [1, 1], [(0, 0), (0, 499)],
            notes=['reverse=True: padded after'])
    rw_case('cummax_f32_1000', V('f32', scan_rng.randint(-1000, 1000,
                                                           size=(1000,))),
            'maximum', [1000], [1], [(999, 0)])

    # select-and-scatter
    g = 'select_and_scatter'

    def sas_case(name, x, src, size, stride, pad=None, select='GE',
                 init=0, notes=()):
        t = x.t
        n = x.a.ndim
        pad = pad or [(0, 0)] * n
        outs, wins = window_positions(x.dims, size, stride, pad, [1] * n,
                                      [1] * n)
        assert list(src.dims) == outs, (src.dims, outs)
        res = np.full(x.a.shape, init, dtype=np.float64 if is_float(t)
                      else object)
        for oi, elems in wins:
            sel = elems[0]
            for p_ in elems[1:]:
                cur, new = x.a[sel], x.a[p_]
                keep = cur >= new if select == 'GE' else cur <= new
                if not keep:
                    sel = p_
            res[sel] = res[sel] + (float(src.a[oi]) if is_float(t)
                                   else int(src.a[oi]))
        out = V(t, make(t, res) if is_int(t) else round_result(t, res))
        cs = scalar_comp('select_%s' % select.lower(), 'compare', t,
                         ', direction=%s' % select)
        ca = scalar_comp('add_' + t, 'add', t)
        e = Comp('main', entry=True)
        p = e.param(x.shape())
        ps = e.param(src.shape())
        ci = e.op(S(t), 'constant(%s)' % fmt_scalar(t, make(t, init)[()]),
                  'init')
        e.root(out.shape(), 'select-and-scatter(%s, %s, %s), %s, '
               'select=%%%s, scatter=%%%s' %
               (p, ps, ci, window_attr(size, stride, pad), cs.name, ca.name),
               'r')
        add_case(g, name, 'numpy', module(name, e, cs, ca), [x, src], out,
                 notes=['select picks the first element (in window order) '
                        'for which select(current, other) holds; padding is '
                        'never selected'] + list(notes))
    x = V('f32', [[1, 5, 2, 0], [3, 4, 8, 8], [7, 7, 1, 2], [0, 6, 3, 9]])
    sas_case('maxpool_grad_2x2_stride2', x, V('f32', [[1, 2], [3, 4]]),
             [2, 2], [2, 2], notes=['ties (7, 7 and 8, 8) pick the first'])
    x5 = V('f32', rnd_int((5, 5), 0, 10))
    sas_case('maxpool_grad_overlapping_3x3_stride2', x5,
             V('f32', [[2, 6], [3, 1]]), [3, 3], [2, 2],
             notes=['overlapping windows may select the same element: the '
                    'scattered values add up'])
    sas_case('maxpool_grad_padded', V('f32', rnd_int((3, 3), -5, 5)),
             V('f32', [[1, 2], [3, 4]]), [2, 2], [2, 2], [(0, 1), (0, 1)])
    sas_case('minpool_grad_1d', V('s32', [4, 2, 2, 9, 1, 5]),
             V('s32', [10, 20, 30]), [2], [2], select='LE')
    sas_case('init_value_nonzero', V('s32', [[1, 2], [3, 4]]),
             V('s32', [[5]]), [2, 2], [1, 1], init=100)
    sas_case('stride1_overlap_1d', V('f32', [1, 3, 2, 5, 4]),
             V('f32', [1, 10, 100]), [3], [1])



# ----------------------------------------------------------------------------
# convolution
# ----------------------------------------------------------------------------

def parse_dim_labels(labels):
    lhs, rest = labels.split('_')
    rhs, out = rest.split('->')
    n = len(lhs) - 2

    def perm(lbl, a, b):
        return [lbl.index(a), lbl.index(b)] + [lbl.index(str(i))
                                               for i in range(n)]
    return perm(lhs, 'b', 'f'), perm(rhs, 'o', 'i'), perm(out, 'b', 'f'), n


def conv_ref(lhs, rhs, labels, size, stride, pad, lhs_dil, rhs_dil,
             rev=None, fgc=1, bgc=1):
    """XLA convolution (seed 004 pseudo-code generalised to dilations,
    feature groups and batch groups) computed exactly (object / float64
    accumulation)."""
    lp, rp, op_, n = parse_dim_labels(labels)
    L = np.transpose(lhs, lp)
    R = np.transpose(rhs, rp)
    N, C = L.shape[:2]
    O, I = R.shape[:2]
    assert list(R.shape[2:]) == list(size)
    assert C == I * fgc and N % bgc == 0 and O % bgc == 0 and O % fgc == 0
    rev = rev or [False] * n
    outs = []
    for d in range(n):
        dil = (L.shape[2 + d] - 1) * lhs_dil[d] + 1 if L.shape[2 + d] else 0
        padded = dil + pad[d][0] + pad[d][1]
        eff = (size[d] - 1) * rhs_dil[d] + 1
        outs.append((padded - eff) // stride[d] + 1 if padded >= eff else 0)
    ON = N // bgc
    acc_t = object if lhs.dtype.kind in 'iu' else np.float64
    res = np.zeros([ON, O] + outs, dtype=acc_t)
    ogf = O // fgc
    ogb = O // bgc
    bgs = N // bgc
    for ob in range(ON):
        for o in range(O):
            fg = o // ogf
            b = ob + (o // ogb) * bgs
            for opos in np.ndindex(*outs):
                s_ = 0
                for kpos in np.ndindex(*size):
                    ipos = []
                    for d in range(n):
                        u = opos[d] * stride[d] - pad[d][0] + \
                            kpos[d] * rhs_dil[d]
                        if u % lhs_dil[d]:
                            break
                        i = u // lhs_dil[d]
                        if i < 0 or i >= L.shape[2 + d]:
                            break
                        ipos.append(i)
                    else:
                        kk = tuple(size[d] - 1 - kpos[d] if rev[d]
                                   else kpos[d] for d in range(n))
                        for iz in range(I):
                            lv = L[(b, fg * I + iz) + tuple(ipos)]
                            rv = R[(o, iz) + kk]
                            if acc_t is object:
                                s_ += int(lv) * int(rv)
                            else:
                                s_ += float(lv) * float(rv)
                res[(ob, o) + opos] = s_
    return np.transpose(res, np.argsort(op_))


def gen_conv():
    g = 'conv'

    def conv_case(name, lhs, rhs, labels, stride=None, pad=None, lhs_dil=None,
                  rhs_dil=None, rev=None, fgc=1, bgc=1, tol=None, notes=(),
                  out_t=None):
        lp, rp, op_, n = parse_dim_labels(labels)
        size = [rhs.dims[rp[2 + d]] for d in range(n)]
        stride = stride or [1] * n
        pad = pad or [(0, 0)] * n
        lhs_dil = lhs_dil or [1] * n
        rhs_dil = rhs_dil or [1] * n
        r = conv_ref(lhs.a, rhs.a, labels, size, stride, pad, lhs_dil,
                     rhs_dil, rev, fgc, bgc)
        t = out_t or lhs.t
        out = V(t, make(t, r) if is_int(t) else round_result(t, r))
        attrs = ', ' + window_attr(size, stride, pad, lhs_dil, rhs_dil, rev) \
            if n else ''
        attrs += ', dim_labels=%s' % labels
        if fgc != 1:
            attrs += ', feature_group_count=%d' % fgc
        if bgc != 1:
            attrs += ', batch_group_count=%d' % bgc
        e = Comp('main', entry=True)
        p0 = e.param(lhs.shape())
        p1 = e.param(rhs.shape())
        e.root(out.shape(), 'convolution(%s, %s)%s' % (p0, p1, attrs), 'r')
        add_case(g, name, 'numpy (direct loops over the seed 004 '
                 'definition)', module(name, e), [lhs, rhs], out, tol, notes)

    def ri(shape, lo=-3, hi=4):
        return rnd_int(shape, lo, hi)
    # NCHW / OIHW
    lhs = V('f32', ri((1, 2, 4, 4)))
    rhs = V('f32', ri((3, 2, 3, 3)))
    conv_case('nchw_valid', lhs, rhs, 'bf01_oi01->bf01')
    conv_case('nchw_same_padding', lhs, rhs, 'bf01_oi01->bf01',
              pad=[(1, 1), (1, 1)])
    conv_case('nchw_stride2', lhs, rhs, 'bf01_oi01->bf01', stride=[2, 2],
              pad=[(1, 1), (1, 1)])
    conv_case('nchw_negative_padding', lhs, V('f32', ri((1, 2, 2, 2))),
              'bf01_oi01->bf01', pad=[(-1, 0), (0, -1)],
              notes=['negative padding removes input elements'])
    conv_case('nchw_lhs_dilation', V('f32', ri((1, 1, 3, 3))),
              V('f32', ri((2, 1, 2, 2))), 'bf01_oi01->bf01',
              pad=[(1, 1), (1, 1)], lhs_dil=[2, 2],
              notes=['lhs dilation (transposed convolution)'])
    conv_case('nchw_rhs_dilation', V('f32', ri((2, 1, 5, 5))),
              V('f32', ri((1, 1, 2, 2))), 'bf01_oi01->bf01',
              rhs_dil=[2, 2], notes=['rhs dilation (atrous convolution)'])
    conv_case('nchw_window_reversal', lhs, rhs, 'bf01_oi01->bf01',
              rev=[True, False])
    conv_case('nchw_asymmetric_all', V('f32', ri((2, 2, 5, 4))),
              V('f32', ri((2, 2, 2, 3))), 'bf01_oi01->bf01', stride=[2, 1],
              pad=[(2, 0), (1, 2)], lhs_dil=[1, 2], rhs_dil=[2, 1])
    # NHWC / HWIO
    lhs = V('f32', ri((2, 4, 5, 3)))
    rhs = V('f32', ri((3, 3, 3, 2)))
    conv_case('nhwc_valid', lhs, rhs, 'b01f_01io->b01f')
    conv_case('nhwc_same_stride2', lhs, rhs, 'b01f_01io->b01f',
              stride=[2, 2], pad=[(1, 1), (1, 1)])
    conv_case('nhwc_to_nchw_output', lhs, rhs, 'b01f_01io->bf01',
              pad=[(0, 1), (1, 0)])
    conv_case('kernel_oi01_input_nhwc', lhs, V('f32', ri((2, 3, 2, 2))),
              'b01f_oi01->b01f')
    conv_case('feature_batch_swapped_fb01', V('f32', ri((3, 2, 4, 4))),
              V('f32', ri((3, 3, 2, 2))), 'fb01_io01->fb01')
    # groups
    conv_case('feature_group_count_2', V('f32', ri((1, 4, 4, 4))),
              V('f32', ri((6, 2, 3, 3))), 'bf01_oi01->bf01',
              pad=[(1, 1), (1, 1)], fgc=2,
              notes=['input features 0-1 feed outputs 0-2, features 2-3 '
                     'feed outputs 3-5'])
    conv_case('depthwise_nhwc', V('f32', ri((1, 5, 5, 3))),
              V('f32', ri((3, 3, 1, 3))), 'b01f_01io->b01f', fgc=3,
              notes=['depthwise: feature_group_count = input features'])
    conv_case('depthwise_multiplier2', V('f32', ri((2, 2, 4, 4))),
              V('f32', ri((4, 1, 2, 2))), 'bf01_oi01->bf01', fgc=2)
    conv_case('batch_group_count_2', V('f32', ri((4, 2, 3, 3))),
              V('f32', ri((4, 2, 2, 2))), 'bf01_oi01->bf01', bgc=2,
              notes=['batch groups: input batches 0-1 feed output features '
                     '0-1, batches 2-3 feed features 2-3; output batch = 2'])
    conv_case('batch_group_count_filter_grad', V('f32', ri((2, 4, 4, 3))),
              V('f32', ri((2, 2, 2, 3))), 'f01b_i01o->01bf', bgc=3,
              notes=['the shape of a filter-gradient convolution'])
    # 1D, 3D, scalar spatial
    conv_case('conv1d_nwc', V('f32', ri((2, 7, 3))), V('f32', ri((3, 3, 4))),
              'b0f_0io->b0f', stride=[2], pad=[(1, 1)])
    conv_case('conv1d_ncw_dilated', V('f32', ri((1, 2, 9))),
              V('f32', ri((2, 2, 3))), 'bf0_oi0->bf0', rhs_dil=[3],
              lhs_dil=[1])
    conv_case('conv3d_ndhwc', V('f32', ri((1, 3, 4, 3, 2))),
              V('f32', ri((2, 2, 2, 2, 2))), 'b012f_012io->b012f',
              pad=[(0, 0), (1, 0), (0, 1)], stride=[1, 2, 1])
    conv_case('conv0d_is_matmul', V('f32', ri((3, 4))),
              V('f32', ri((4, 2))), 'bf_io->bf',
              notes=['no spatial dimensions: a matrix product'])
    conv_case('conv_1x1_kernel', V('f32', ri((2, 3, 3, 4))),
              V('f32', ri((1, 1, 4, 5))), 'b01f_01io->b01f')
    # types
    conv_case('s32_exact', V('s32', ri((1, 2, 4, 4), -50, 50)),
              V('s32', ri((2, 2, 2, 2), -50, 50)), 'bf01_oi01->bf01',
              pad=[(1, 0), (0, 1)])
    conv_case('f16_exact', V('f16', ri((1, 2, 4, 4))),
              V('f16', ri((2, 2, 2, 2))), 'bf01_oi01->bf01',
              notes=['small integers: exact in any summation order'])
    conv_case('bf16_exact', V('bf16', ri((1, 3, 3, 2))),
              V('bf16', ri((2, 2, 2, 2))), 'b01f_01io->b01f')
    conv_case('f32_random', V('f32', rnd((2, 3, 6, 5))),
              V('f32', rnd((4, 3, 3, 2))), 'bf01_oi01->bf01',
              pad=[(1, 1), (0, 1)], stride=[2, 1], tol=TOL_SUM_F32)
    conv_case('f64_random', V('f64', rnd((1, 2, 5, 5))),
              V('f64', rnd((2, 2, 3, 3))), 'bf01_oi01->bf01',
              tol=TOL_TRANS_F64)
    conv_case('zero_size_batch', V('f32', np.zeros((0, 2, 3, 3), np.float32)),
              V('f32', ri((1, 2, 2, 2))), 'bf01_oi01->bf01')
    conv_case('window_larger_than_input_gives_empty',
              V('f32', ri((1, 1, 2, 2))), V('f32', ri((1, 1, 3, 3))),
              'bf01_oi01->bf01')
    lhs = V('f32', ri((1, 2, 3, 3)))
    conv_case('column_major_lhs',
              V('f32', lhs.a, layout=[0, 1, 2, 3]), V('f32', ri((2, 2, 2, 2))),
              'bf01_oi01->bf01')


# ----------------------------------------------------------------------------
# dot
# ----------------------------------------------------------------------------

def dot_ref(a, b, lb, rb, lc, rc):
    lfree = [d for d in range(a.ndim) if d not in lb and d not in lc]
    rfree = [d for d in range(b.ndim) if d not in rb and d not in rc]
    obj = a.dtype.kind in 'iu'
    A = np.transpose(a, list(lb) + lfree + list(lc))
    B = np.transpose(b, list(rb) + rfree + list(rc))
    bshape = A.shape[:len(lb)]
    fa = A.shape[len(lb):len(lb) + len(lfree)]
    fb = B.shape[len(rb):len(rb) + len(rfree)]
    k = int(np.prod(A.shape[len(lb) + len(lfree):], dtype=np.int64))
    nb = int(np.prod(bshape, dtype=np.int64))
    na = int(np.prod(fa, dtype=np.int64))
    nbf = int(np.prod(fb, dtype=np.int64))
    if obj:
        A2 = A.astype(object).reshape(nb, na, k)
        B2 = B.astype(object).reshape(nb, nbf, k)
    else:
        dt = np.complex128 if a.dtype.kind == 'c' else np.float64
        A2 = A.astype(dt).reshape(nb, na, k)
        B2 = B.astype(dt).reshape(nb, nbf, k)
    out = np.zeros((nb, na, nbf), dtype=A2.dtype)
    for i in range(nb):
        for j in range(na):
            for l in range(nbf):
                out[i, j, l] = sum((A2[i, j, q] * B2[i, l, q]
                                    for q in range(k)), A2.dtype.type(0)
                                   if not obj else 0)
    return out.reshape(tuple(bshape) + tuple(fa) + tuple(fb))


def gen_dot():
    g = 'dot'

    def dot_case(name, a, b, lb=(), rb=(), lc=None, rc=None, tol=None,
                 notes=(), out_layout=None, source='numpy'):
        if lc is None:
            lc = [a.a.ndim - 1]
        if rc is None:
            rc = [0] if b.a.ndim < 2 or not rb else [len(rb)]
        r = dot_ref(a.a, b.a, lb, rb, lc, rc)
        t = a.t
        out = V(t, make(t, r) if is_int(t) else round_result(t, r),
                out_layout)
        attrs = dot_dims_attrs(lb, rb, lc, rc)
        e = Comp('main', entry=True)
        p0 = e.param(a.shape())
        p1 = e.param(b.shape())
        e.root(out.shape(), 'dot(%s, %s)%s' % (p0, p1, attrs), 'r')
        add_case(g, name, source, module(name, e), [a, b], out, tol, notes)

    def ri(shape, lo=-5, hi=6):
        return rnd_int(shape, lo, hi)
    dot_case('vector_vector', V('f32', [1, 2, 3]), V('f32', [4, -5, 6]),
             lc=[0], rc=[0])
    dot_case('matrix_vector', V('f32', ri((2, 3))), V('f32', ri((3,))),
             rc=[0])
    dot_case('matrix_matrix', V('f32', ri((2, 3))), V('f32', ri((3, 4))))
    dot_case('matrix_matrix_transposed_lhs', V('f32', ri((3, 2))),
             V('f32', ri((3, 4))), lc=[0], rc=[0])
    dot_case('matrix_matrix_transposed_rhs', V('f32', ri((2, 3))),
             V('f32', ri((4, 3))), lc=[1], rc=[1])
    dot_case('batch_matmul', V('f32', ri((2, 2, 3))), V('f32', ri((2, 3, 2))),
             lb=[0], rb=[0], lc=[2], rc=[1])
    dot_case('batch_dims_not_leading', V('f32', ri((3, 2, 4))),
             V('f32', ri((3, 4, 2))), lb=[1], rb=[2], lc=[0], rc=[0],
             notes=['result dims: batch, lhs free, rhs free'])
    dot_case('two_batch_dims', V('s32', ri((2, 3, 2, 4))),
             V('s32', ri((2, 3, 4, 1))), lb=[0, 1], rb=[0, 1], lc=[3],
             rc=[2])
    dot_case('two_contracting_dims', V('f32', ri((2, 3, 4))),
             V('f32', ri((4, 3, 5))), lc=[1, 2], rc=[1, 0],
             notes=['contracting pairs (1,1) and (2,0)'])
    dot_case('outer_product_no_contraction', V('f32', [1, 2, 3]),
             V('f32', [4, 5]), lc=[], rc=[])
    dot_case('s32', V('s32', ri((3, 4), -1000, 1000)),
             V('s32', ri((4, 2), -1000, 1000)))
    dot_case('s8_wraps', V('s8', [[100, 100], [-128, 1]]),
             V('s8', [[2, 1], [1, 1]]),
             notes=['s8 accumulation wraps around in the s8 result'])
    dot_case('u32', V('u32', ri((2, 2), 0, 100000)),
             V('u32', ri((2, 2), 0, 100000)))
    dot_case('f16_exact', V('f16', ri((3, 4))), V('f16', ri((4, 2))),
             notes=['small integers: exact in any summation order'])
    dot_case('bf16_exact', V('bf16', ri((2, 5))), V('bf16', ri((5, 3))))
    dot_case('f64_random', V('f64', rnd((3, 4))), V('f64', rnd((4, 3))),
             tol=TOL_TRANS_F64)
    dot_case('f32_random', V('f32', rnd((4, 6))), V('f32', rnd((6, 3))),
             tol=TOL_SUM_F32)
    dot_case('c64', V('c64', ri((2, 2)) + 1j * ri((2, 2))),
             V('c64', ri((2, 2)) - 1j * ri((2, 2))),
             notes=['complex dot does not conjugate'])
    dot_case('zero_size_contraction', V('f32', np.zeros((2, 0), np.float32)),
             V('f32', np.zeros((0, 3), np.float32)),
             notes=['an empty sum is 0'])
    dot_case('zero_size_output', V('f32', np.zeros((0, 3), np.float32)),
             V('f32', ri((3, 2))))
    dot_case('column_major_operands_and_result',
             V('f32', ri((2, 3)), layout=[0, 1]),
             V('f32', ri((3, 2)), layout=[0, 1]), out_layout=[0, 1])
    dot_case('pred_is_not_used_scalar_result',
             V('f32', [0.5, 0.25]), V('f32', [4, 8]), lc=[0], rc=[0])



# ----------------------------------------------------------------------------
# sort
# ----------------------------------------------------------------------------

def gen_sort():
    g = 'sort'

    def sort_case(name, ops, dim, comp_builder, key_fn, stable=True,
                  notes=()):
        """key_fn(values tuple per element) -> comparable key; sorting is
        stable (Python's sort) by that key, ascending."""
        c = comp_builder
        moved = [np.moveaxis(o.a, dim, -1) for o in ops]
        res = [np.moveaxis(m_.copy(), -1, dim) for m_ in moved]
        res_m = [np.moveaxis(r, dim, -1) for r in res]
        for idx in np.ndindex(*moved[0].shape[:-1]):
            length = moved[0].shape[-1]
            order = sorted(range(length),
                           key=lambda i: key_fn(tuple(m_[idx + (i,)]
                                                      for m_ in moved)))
            for k, m_ in enumerate(moved):
                res_m[k][idx] = m_[idx][order]
        outs = [V(o.t, r) for o, r in zip(ops, res)]
        e = Comp('main', entry=True)
        ps = [e.param(o.shape()) for o in ops]
        shape = outs[0].shape() if len(ops) == 1 else \
            '(' + ', '.join(o.shape() for o in outs) + ')'
        e.root(shape, 'sort(%s), dimensions={%d}%s, to_apply=%%%s' %
               (', '.join(ps), dim, ', is_stable=true' if stable else '',
                c.name), 'r')
        expect = outs[0] if len(ops) == 1 else Tup(*outs)
        add_case(g, name, 'numpy (stable sort in Python)', module(name, e, c),
                 ops, expect, notes=notes)

    def cmp_comp(name, types, direction, ctype=None, key_index=0):
        # parameters in order lhs0, rhs0, lhs1, rhs1, ...
        c = Comp(name)
        ps = []
        for i, t in enumerate(types):
            ps.append(c.param(S(t), 'lhs_%d' % i))
            ps.append(c.param(S(t), 'rhs_%d' % i))
        attrs = ', direction=%s' % direction
        if ctype:
            attrs += ', type=%s' % ctype
        c.root(S('pred'), 'compare(%s, %s)%s' % (ps[2 * key_index],
                                                 ps[2 * key_index + 1],
                                                 attrs), 'lt')
        return c
    x = V('f32', [3, 1, 4, 1, 5, 9, 2, 6])
    sort_case('ascending_f32', [x], 0, cmp_comp('lt', ['f32'], 'LT'),
              lambda v: float(v[0]))
    sort_case('descending_f32', [x], 0, cmp_comp('gt', ['f32'], 'GT'),
              lambda v: -float(v[0]))
    m = V('s32', [[3, 1, 2], [9, 7, 8], [5, 6, 4]])
    sort_case('rows_dim1_s32', [m], 1, cmp_comp('lt', ['s32'], 'LT'),
              lambda v: int(v[0]))
    sort_case('columns_dim0_s32', [m], 0, cmp_comp('lt', ['s32'], 'LT'),
              lambda v: int(v[0]))
    keys = V('f32', [2, 1, 2, 1, 0, 2])
    vals = V('s32', [0, 1, 2, 3, 4, 5])
    sort_case('key_value_stable', [keys, vals], 0,
              cmp_comp('lt', ['f32', 's32'], 'LT'), lambda v: float(v[0]),
              notes=['stable: equal keys keep their order'])
    sort_case('key_value_descending_stable', [keys, vals], 0,
              cmp_comp('gt', ['f32', 's32'], 'GT'), lambda v: -float(v[0]),
              notes=['stable: equal keys keep their order'])
    # three operands, key is the second one
    a = V('s32', [10, 20, 30, 40])
    b = V('u8', [3, 0, 3, 1])
    c3 = V('f32', [0.5, 1.5, 2.5, 3.5])
    sort_case('three_operands_key_second', [a, b, c3], 0,
              cmp_comp('lt', ['s32', 'u8', 'f32'], 'LT', key_index=1),
              lambda v: int(v[1]))
    # lexicographic comparator over two keys
    cl = Comp('lexicographic')
    k0a = cl.param(S('s32'), 'k0_lhs')
    k0b = cl.param(S('s32'), 'k0_rhs')
    k1a = cl.param(S('f32'), 'k1_lhs')
    k1b = cl.param(S('f32'), 'k1_rhs')
    lt0 = cl.op(S('pred'), 'compare(%s, %s), direction=LT' % (k0a, k0b),
                'lt0')
    eq0 = cl.op(S('pred'), 'compare(%s, %s), direction=EQ' % (k0a, k0b),
                'eq0')
    lt1 = cl.op(S('pred'), 'compare(%s, %s), direction=LT' % (k1a, k1b),
                'lt1')
    both = cl.op(S('pred'), 'and(%s, %s)' % (eq0, lt1), 'tie_break')
    cl.root(S('pred'), 'or(%s, %s)' % (lt0, both), 'lt')
    sort_case('lexicographic_two_keys',
              [V('s32', [2, 1, 2, 1, 0]), V('f32', [5, 9, -1, 3, 7])], 0, cl,
              lambda v: (int(v[0]), float(v[1])))
    # total order: NaN and signed zeros
    nn = neg_nan('f32')
    tv = V('f32', [NAN, 1, -0.0, 0.0, -INF, nn, 3, -0.0, INF])
    sort_case('total_order_nan_signed_zero', [tv, V('s32', list(range(9)))],
              0, cmp_comp('lt', ['f32', 's32'], 'LT', 'TOTALORDER'),
              lambda v: total_order_key('f32', v[0]),
              notes=['TOTALORDER: -NaN < -Inf < -0 < +0 < +Inf < +NaN; the '
                     's32 operand shows where each element went'])
    sort_case('f16', [V('f16', [0.5, -2, 1e4, 0.1, -0.1])], 0,
              cmp_comp('lt', ['f16'], 'LT'), lambda v: float(v[0]))
    sort_case('bf16', [V('bf16', [3, -1, 2.5, 0])], 0,
              cmp_comp('lt', ['bf16'], 'LT'), lambda v: float(v[0]))
    sort_case('u64', [V('u64', [18446744073709551615, 0, 5, 1 << 63])], 0,
              cmp_comp('lt', ['u64'], 'LT'), lambda v: int(v[0]))
    sort_case('s8_descending', [V('s8', [-128, 127, 0, -1, 1])], 0,
              cmp_comp('gt', ['s8'], 'GT'), lambda v: -int(v[0]))
    sort_case('pred_keys', [V('pred', [True, False, True, False]),
                            V('s32', [0, 1, 2, 3])], 0,
              cmp_comp('lt', ['pred', 's32'], 'LT'), lambda v: bool(v[0]))
    r3 = V('f32', rnd_int((2, 3, 4), -9, 9))
    sort_case('rank3_dim1', [r3], 1, cmp_comp('lt', ['f32'], 'LT'),
              lambda v: float(v[0]))
    sort_case('single_element', [V('f32', [42])], 0,
              cmp_comp('lt', ['f32'], 'LT'), lambda v: float(v[0]))
    sort_case('zero_size', [V('f32', np.zeros((0,), np.float32))], 0,
              cmp_comp('lt', ['f32'], 'LT'), lambda v: float(v[0]))
    sort_case('zero_size_other_dim', [V('s32', np.zeros((0, 3), np.int32))],
              1, cmp_comp('lt', ['s32'], 'LT'), lambda v: int(v[0]))
    sort_case('unique_keys_not_marked_stable',
              [V('s32', [5, 3, 9, 1, 7])], 0, cmp_comp('lt', ['s32'], 'LT'),
              lambda v: int(v[0]), stable=False,
              notes=['distinct keys: any sort gives this result'])



# ----------------------------------------------------------------------------
# control: while, conditional, call, map, fusion
# ----------------------------------------------------------------------------

def gen_control():
    g = 'control'
    # while: scalar counter
    cond = Comp('cond')
    x = cond.param(S('s32'), 'x')
    lim = cond.op(S('s32'), 'constant(10)', 'limit')
    cond.root(S('pred'), 'compare(%s, %s), direction=LT' % (x, lim), 'lt')
    body = Comp('body')
    x = body.param(S('s32'), 'x')
    one = body.op(S('s32'), 'constant(1)', 'one')
    body.root(S('s32'), 'add(%s, %s)' % (x, one), 'next')
    e = Comp('main', entry=True)
    p = e.param(S('s32'))
    e.root(S('s32'), 'while(%s), condition=%%cond, body=%%body' % p, 'r')
    add_case(g, 'while_counter', 'hand', module('while_counter', e, cond,
                                                body),
             [V('s32', 3)], V('s32', 10))
    add_case(g, 'while_zero_iterations', 'hand',
             module('while_zero_iterations', e, cond, body),
             [V('s32', 25)], V('s32', 25),
             notes=['the condition is false at once: the result is the '
                    'initial value'])

    # seed 004 While example: (s32 counter, f32[10] accumulator), 1000
    # iterations adding a constant vector.
    st = '(s32[], f32[10])'
    cond = Comp('cond')
    t = cond.param(st, 'state')
    i = cond.op(S('s32'), 'get-tuple-element(%s), index=0' % t, 'i')
    lim = cond.op(S('s32'), 'constant(1000)', 'limit')
    cond.root(S('pred'), 'compare(%s, %s), direction=LT' % (i, lim), 'lt')
    body = Comp('body')
    t = body.param(st, 'state')
    i = body.op(S('s32'), 'get-tuple-element(%s), index=0' % t, 'i')
    acc = body.op(S('f32', 10), 'get-tuple-element(%s), index=1' % t, 'acc')
    one = body.op(S('s32'), 'constant(1)', 'one')
    cv = np.arange(1, 11) * 0.125
    vec = body.op(S('f32', 10), 'constant(%s)' % lit_of('f32', cv), 'vector')
    i2 = body.op(S('s32'), 'add(%s, %s)' % (i, one), 'iteration')
    acc2 = body.op(S('f32', 10), 'add(%s, %s)' % (acc, vec), 'new_vector')
    body.root(st, 'tuple(%s, %s)' % (i2, acc2), 'result')
    e = Comp('main', entry=True)
    zero = e.op(S('s32'), 'constant(0)', 'zero')
    zv = e.op(S('f32', 10), 'broadcast(%s), dimensions={}' %
              e.op(S('f32'), 'constant(0)', 'zero_f'), 'zero_vector')
    init = e.op(st, 'tuple(%s, %s)' % (zero, zv), 'init')
    e.root(st, 'while(%s), condition=%%cond, body=%%body' % init, 'r')
    add_case(g, 'while_seed004_accumulate', 'seed 004 (While example: 1000 '
             'iterations adding a constant vector; vector values chosen so '
             'every partial sum is exact)',
             module('while_seed004_accumulate', e, cond, body), [],
             Tup(V('s32', 1000), V('f32', cv * 1000)))

    # fibonacci with a 3-tuple state
    st = '(s32[], s64[], s64[])'
    cond = Comp('cond')
    t = cond.param(st, 'state')
    n = cond.op(S('s32'), 'get-tuple-element(%s), index=0' % t, 'n')
    z = cond.op(S('s32'), 'constant(0)', 'zero')
    cond.root(S('pred'), 'compare(%s, %s), direction=GT' % (n, z), 'gt')
    body = Comp('body')
    t = body.param(st, 'state')
    n = body.op(S('s32'), 'get-tuple-element(%s), index=0' % t, 'n')
    a = body.op(S('s64'), 'get-tuple-element(%s), index=1' % t, 'a')
    b = body.op(S('s64'), 'get-tuple-element(%s), index=2' % t, 'b')
    one = body.op(S('s32'), 'constant(1)', 'one')
    n2 = body.op(S('s32'), 'subtract(%s, %s)' % (n, one), 'n_next')
    ab = body.op(S('s64'), 'add(%s, %s)' % (a, b), 'sum')
    body.root(st, 'tuple(%s, %s, %s)' % (n2, b, ab), 'next')
    e = Comp('main', entry=True)
    p = e.param(S('s32'))
    a0 = e.op(S('s64'), 'constant(0)', 'f0')
    b0 = e.op(S('s64'), 'constant(1)', 'f1')
    init = e.op(st, 'tuple(%s, %s, %s)' % (p, a0, b0), 'init')
    w = e.op(st, 'while(%s), condition=%%cond, body=%%body' % init, 'loop')
    e.root(S('s64'), 'get-tuple-element(%s), index=1' % w, 'r')
    fib = [0, 1]
    for _ in range(90):
        fib.append(fib[-1] + fib[-2])
    add_case(g, 'while_fibonacci_s64', 'hand (Python integers)',
             module('while_fibonacci_s64', e, cond, body), [V('s32', 90)],
             V('s64', fib[90]))

    # nested while: outer i < 3, inner j < 4, counting inner iterations.
    st = '(s32[], s32[])'

    def lt_cond(name, limit):
        c = Comp(name)
        t = c.param(st, 'state')
        i = c.op(S('s32'), 'get-tuple-element(%s), index=0' % t, 'i')
        l_ = c.op(S('s32'), 'constant(%d)' % limit, 'limit')
        c.root(S('pred'), 'compare(%s, %s), direction=LT' % (i, l_), 'lt')
        return c
    inner_cond = lt_cond('inner_cond', 4)
    outer_cond = lt_cond('outer_cond', 3)
    inner_body = Comp('inner_body')
    t = inner_body.param(st, 'state')
    j = inner_body.op(S('s32'), 'get-tuple-element(%s), index=0' % t, 'j')
    acc = inner_body.op(S('s32'), 'get-tuple-element(%s), index=1' % t,
                        'acc')
    one = inner_body.op(S('s32'), 'constant(1)', 'one')
    j2 = inner_body.op(S('s32'), 'add(%s, %s)' % (j, one), 'j_next')
    acc2 = inner_body.op(S('s32'), 'add(%s, %s)' % (acc, j), 'acc_next')
    inner_body.root(st, 'tuple(%s, %s)' % (j2, acc2), 'next')
    outer_body = Comp('outer_body')
    t = outer_body.param(st, 'state')
    i = outer_body.op(S('s32'), 'get-tuple-element(%s), index=0' % t, 'i')
    acc = outer_body.op(S('s32'), 'get-tuple-element(%s), index=1' % t,
                        'acc')
    z = outer_body.op(S('s32'), 'constant(0)', 'zero')
    it = outer_body.op(st, 'tuple(%s, %s)' % (z, acc), 'inner_init')
    w = outer_body.op(st, 'while(%s), condition=%%inner_cond, '
                      'body=%%inner_body' % it, 'inner')
    acc2 = outer_body.op(S('s32'), 'get-tuple-element(%s), index=1' % w,
                         'acc_after')
    one = outer_body.op(S('s32'), 'constant(1)', 'one')
    i2 = outer_body.op(S('s32'), 'add(%s, %s)' % (i, one), 'i_next')
    outer_body.root(st, 'tuple(%s, %s)' % (i2, acc2), 'next')
    e = Comp('main', entry=True)
    p = e.param(st)
    e.root(st, 'while(%s), condition=%%outer_cond, body=%%outer_body' % p,
           'r')
    add_case(g, 'while_nested', 'hand: 3 outer iterations each adding '
             '0+1+2+3', module('while_nested', e, inner_cond, inner_body,
                               outer_cond, outer_body),
             [Tup(V('s32', 0), V('s32', 100))],
             Tup(V('s32', 3), V('s32', 118)),
             notes=['nesting is allowed (SEMANTICS.md)'])

    # conditional, predicate form
    tc = Comp('on_true')
    x = tc.param(S('f32', 2), 'x')
    tc.root(S('f32', 2), 'multiply(%s, %s)' % (x, x), 'square')
    fc = Comp('on_false')
    y = fc.param(S('s32'), 'y')
    cy = fc.op(S('f32'), 'convert(%s)' % y, 'as_float')
    fc.root(S('f32', 2), 'broadcast(%s), dimensions={}' % cy, 'splat')
    e = Comp('main', entry=True)
    pp = e.param(S('pred'))
    px = e.param(S('f32', 2))
    py = e.param(S('s32'))
    e.root(S('f32', 2), 'conditional(%s, %s, %s), true_computation=%%on_true,'
           ' false_computation=%%on_false' % (pp, px, py), 'r')
    hlo = module('conditional_pred', e, tc, fc)
    add_case(g, 'conditional_pred_true', 'hand', hlo,
             [V('pred', True), V('f32', [1.5, -3]), V('s32', 7)],
             V('f32', [2.25, 9]))
    add_case(g, 'conditional_pred_false', 'hand', hlo,
             [V('pred', False), V('f32', [1.5, -3]), V('s32', 7)],
             V('f32', [7, 7]))

    # conditional, index form; out-of-range indices run the last branch.
    branches = []
    for k in range(3):
        b = Comp('branch_%d' % k)
        x = b.param(S('f32'), 'x')
        if k == 0:
            b.root(S('f32'), 'negate(%s)' % x, 'r')
        elif k == 1:
            c2 = b.op(S('f32'), 'constant(10)', 'ten')
            b.root(S('f32'), 'add(%s, %s)' % (x, c2), 'plus_ten')
        else:
            b.root(S('f32'), 'multiply(%s, %s)' % (x, x), 'square')
        branches.append(b)
    e = Comp('main', entry=True)
    pi = e.param(S('s32'))
    px = e.param(S('f32'))
    e.root(S('f32'), 'conditional(%s, %s, %s, %s), branch_computations={'
           '%%branch_0, %%branch_1, %%branch_2}' % (pi, px, px, px), 'r')
    hlo = module('conditional_index', e, *branches)
    for idx, out in ((0, 2.5), (1, 7.5), (2, 6.25), (3, 6.25), (100, 6.25),
                     (-1, 6.25)):
        add_case(g, 'conditional_index_%s' % (str(idx).replace('-', 'm')),
                 'hand', hlo, [V('s32', idx), V('f32', -2.5)],
                 V('f32', out),
                 notes=['an index outside [0, N) runs the last branch'] if
                 idx not in (0, 1, 2) else ())
    # conditional returning a tuple
    tb = Comp('then_tuple')
    x = tb.param('(f32[], s32[])', 'x')
    a = tb.op(S('f32'), 'get-tuple-element(%s), index=0' % x, 'a')
    b = tb.op(S('s32'), 'get-tuple-element(%s), index=1' % x, 'b')
    tb.root('(s32[], f32[])', 'tuple(%s, %s)' % (b, a), 'swapped')
    eb = Comp('else_tuple')
    x = eb.param('(f32[], s32[])', 'x')
    c1 = eb.op(S('s32'), 'constant(-1)', 'm1')
    c2 = eb.op(S('f32'), 'constant(0.5)', 'half')
    eb.root('(s32[], f32[])', 'tuple(%s, %s)' % (c1, c2), 'fixed')
    e = Comp('main', entry=True)
    pp = e.param(S('pred'))
    px = e.param('(f32[], s32[])')
    e.root('(s32[], f32[])', 'conditional(%s, %s, %s), true_computation='
           '%%then_tuple, false_computation=%%else_tuple' % (pp, px, px), 'r')
    add_case(g, 'conditional_tuple_result', 'hand',
             module('conditional_tuple_result', e, tb, eb),
             [V('pred', True), Tup(V('f32', 1.25), V('s32', 9))],
             Tup(V('s32', 9), V('f32', 1.25)))

    # call, nested call
    inner = Comp('inner')
    a = inner.param(S('f32', 3), 'a')
    inner.root(S('f32', 3), 'multiply(%s, %s)' % (a, a), 'sq')
    outer = Comp('outer')
    a = outer.param(S('f32', 3), 'a')
    b = outer.param(S('f32', 3), 'b')
    c1 = outer.op(S('f32', 3), 'call(%s), to_apply=%%inner' % a, 'call_sq')
    outer.root(S('f32', 3), 'subtract(%s, %s)' % (c1, b), 'diff')
    e = Comp('main', entry=True)
    p0 = e.param(S('f32', 3))
    p1 = e.param(S('f32', 3))
    e.root(S('f32', 3), 'call(%s, %s), to_apply=%%outer' % (p0, p1), 'r')
    add_case(g, 'call_nested', 'hand', module('call_nested', e, inner, outer),
             [V('f32', [1, 2, -3]), V('f32', [1, 1, 1])],
             V('f32', [0, 3, 8]))
    noarg = Comp('forty_two')
    noarg.root(S('s32'), 'constant(42)', 'c')
    e = Comp('main', entry=True)
    e.root(S('s32'), 'call(), to_apply=%forty_two', 'r')
    add_case(g, 'call_no_arguments', 'hand',
             module('call_no_arguments', e, noarg), [], V('s32', 42))

    # map
    def map_case(name, xs, comp, out, dims):
        e = Comp('main', entry=True)
        ps = [e.param(v.shape()) for v in xs]
        e.root(out.shape(), 'map(%s), dimensions=%s, to_apply=%%%s' %
               (', '.join(ps), dims_attr(dims), comp.name), 'r')
        add_case(g, name, 'numpy', module(name, e, comp), xs, out)
    f = Comp('square_plus_one')
    a = f.param(S('f32'), 'a')
    sq = f.op(S('f32'), 'multiply(%s, %s)' % (a, a), 'sq')
    one = f.op(S('f32'), 'constant(1)', 'one')
    f.root(S('f32'), 'add(%s, %s)' % (sq, one), 'r')
    x = V('f32', [1, -2, 0.5, 3])
    map_case('map_unary', [x], f, V('f32', x.a * x.a + 1), [0])
    f = Comp('max_times_two')
    a = f.param(S('s32'), 'a')
    b = f.param(S('s32'), 'b')
    m = f.op(S('s32'), 'maximum(%s, %s)' % (a, b), 'm')
    two = f.op(S('s32'), 'constant(2)', 'two')
    f.root(S('s32'), 'multiply(%s, %s)' % (m, two), 'r')
    x, y = V('s32', [[1, 5], [-3, 2]]), V('s32', [[4, 2], [-7, 2]])
    map_case('map_binary_2d', [x, y], f, V('s32', np.maximum(x.a, y.a) * 2),
             [0, 1])
    f = Comp('is_positive')
    a = f.param(S('f32'), 'a')
    z = f.op(S('f32'), 'constant(0)', 'zero')
    f.root(S('pred'), 'compare(%s, %s), direction=GT' % (a, z), 'r')
    x = V('f32', [1, -2, 0, 3])
    map_case('map_changes_type', [x], f, V('pred', x.a > 0), [0])
    f = Comp('fma3')
    a = f.param(S('f32'), 'a')
    b = f.param(S('f32'), 'b')
    c = f.param(S('f32'), 'c')
    m = f.op(S('f32'), 'multiply(%s, %s)' % (a, b), 'm')
    f.root(S('f32'), 'add(%s, %s)' % (m, c), 'r')
    x, y, z = V('f32', [1, 2]), V('f32', [3, 4]), V('f32', [5, 6])
    map_case('map_three_operands', [x, y, z], f, V('f32', [8, 14]), [0])

    # fusion
    fc = Comp('fused_computation')
    a = fc.param(S('f32', 2, 2), 'param_0')
    b = fc.param(S('f32', 2, 2), 'param_1')
    m = fc.op(S('f32', 2, 2), 'multiply(%s, %s)' % (a, b), 'mul')
    fc.root(S('f32', 2, 2), 'add(%s, %s)' % (m, a), 'add')
    e = Comp('main', entry=True)
    p0 = e.param(S('f32', 2, 2))
    p1 = e.param(S('f32', 2, 2))
    e.root(S('f32', 2, 2), 'fusion(%s, %s), kind=kLoop, '
           'calls=%%fused_computation' % (p0, p1), 'r')
    x, y = V('f32', [[1, 2], [3, 4]]), V('f32', [[2, 0], [-1, 0.5]])
    add_case(g, 'fusion_loop', 'numpy', module('fusion_loop', e, fc), [x, y],
             V('f32', x.a * y.a + x.a))
    # A DAG with a shared subexpression.
    e = Comp('main', entry=True)
    p = e.param(S('f32', 3))
    a = e.op(S('f32', 3), 'exponential(%s)' % p, 'e')
    b = e.op(S('f32', 3), 'add(%s, %s)' % (a, a), 'twice')
    c = e.op(S('f32', 3), 'multiply(%s, %s)' % (a, b), 'prod')
    e.root(S('f32', 3), 'subtract(%s, %s)' % (c, a), 'r')
    x = V('f32', [0, 1, -1])
    ex = np.exp(x.a.astype(np.float64))
    add_case(g, 'dag_shared_operand', 'numpy', module('dag_shared_operand',
                                                      e), [x],
             V('f32', (ex * 2 * ex - ex).astype(np.float32)), TOL_TRANS_F32)


# ----------------------------------------------------------------------------
# misc: tuples, constants, parameters, opt-barrier, after-all,
#       get-dimension-size
# ----------------------------------------------------------------------------

def gen_misc():
    g = 'misc'
    # seed 004 GetTupleElement / Tuple example.
    e = Comp('main', entry=True)
    v = e.op(S('f32', 10), 'constant(%s)' % lit_of('f32', list(range(10))),
             'v')
    s_ = e.op(S('s32'), 'constant(5)', 's')
    t = e.op('(f32[10], s32[])', 'tuple(%s, %s)' % (v, s_), 't')
    e.root(S('s32'), 'get-tuple-element(%s), index=1' % t, 'element_1')
    add_case(g, 'seed004_get_tuple_element', 'seed 004 (GetTupleElement '
             'example)', module('seed004_get_tuple_element', e), [],
             V('s32', 5))
    e = Comp('main', entry=True)
    v = e.op(S('f32', 10), 'constant(%s)' % lit_of('f32', list(range(10))),
             'v')
    s_ = e.op(S('s32'), 'constant(5)', 's')
    e.root('(f32[10], s32[])', 'tuple(%s, %s)' % (v, s_), 't')
    add_case(g, 'seed004_tuple', 'seed 004 (Tuple example)',
             module('seed004_tuple', e), [],
             Tup(V('f32', list(range(10))), V('s32', 5)))
    # nested tuples, tuple parameter
    e = Comp('main', entry=True)
    p = e.param('((f32[2], s32[]), pred[])')
    inner = e.op('(f32[2], s32[])', 'get-tuple-element(%s), index=0' % p,
                 'inner')
    a = e.op(S('s32'), 'get-tuple-element(%s), index=1' % inner, 'a')
    b = e.op(S('pred'), 'get-tuple-element(%s), index=1' % p, 'b')
    e.root('(pred[], (s32[]), s32[])', 'tuple(%s, %s, %s)' %
           (b, e.op('(s32[])', 'tuple(%s)' % a, 'single'), a), 'r')
    add_case(g, 'nested_tuple_parameter', 'hand',
             module('nested_tuple_parameter', e),
             [Tup(Tup(V('f32', [1, 2]), V('s32', -7)), V('pred', True))],
             Tup(V('pred', True), Tup(V('s32', -7)), V('s32', -7)))
    e = Comp('main', entry=True)
    e.root('()', 'tuple()', 'empty')
    add_case(g, 'empty_tuple', 'hand', module('empty_tuple', e), [], Tup())
    # A parameter as root (ROOT is the parameter itself).
    e = Comp('main', entry=True)
    e.params.append(('x', S('u16', 3)))
    e.lines.append('ROOT %x = u16[3] parameter(0)')
    e.root_shape = S('u16', 3)
    e.has_root = True
    add_case(g, 'root_is_parameter', 'hand', module('root_is_parameter', e),
             [V('u16', [1, 65535, 7])], V('u16', [1, 65535, 7]))
    e = Comp('main', entry=True)
    e.param(S('f32', 2))
    p1 = e.param(S('s32'))
    e.root(S('s32'), 'negate(%s)' % p1, 'r')
    add_case(g, 'unused_parameter', 'hand', module('unused_parameter', e),
             [V('f32', [1, 2]), V('s32', 4)], V('s32', -4))

    # constants of every type
    consts = [
        ('f32_2d', V('f32', [[1.5, -2], [1e-30, 3e38]])),
        ('f32_specials', V('f32', [NAN, INF, -INF, -0.0])),
        ('f64', V('f64', [0.1, -1e-300, 1.7976931348623157e308])),
        ('f16', V('f16', [0.1, 65504, 6e-8])),
        ('bf16', V('bf16', [0.1, 3.3895313892515355e38, -1])),
        ('pred', V('pred', [True, False])),
        ('s8', V('s8', [-128, 127])), ('s16', V('s16', [-32768, 32767])),
        ('s64', V('s64', [-(1 << 63), (1 << 63) - 1])),
        ('u8', V('u8', [0, 255])), ('u32', V('u32', [4294967295])),
        ('u64', V('u64', [18446744073709551615])),
        ('c64', V('c64', [1 - 2j, 0.5j])), ('c128', V('c128', [0.1 + 0.2j])),
        ('scalar', V('s32', -17)),
        ('zero_size', V('f32', np.zeros((0,), np.float32))),
        ('zero_size_2d', V('s32', np.zeros((2, 0), np.int32))),
        ('rank3', V('s32', np.arange(8).reshape(2, 2, 2))),
    ]
    for name, val in consts:
        e = Comp('main', entry=True)
        e.root(val.shape(), 'constant(%s)' % val.lit(), 'c')
        add_case(g, 'constant_' + name, 'hand', module('constant_' + name, e),
                 [], val)
    e = Comp('main', entry=True)
    e.root('(f32[2], s32[])', 'constant(({1, 2}, 3))', 'c')
    add_case(g, 'constant_tuple', 'hand', module('constant_tuple', e), [],
             Tup(V('f32', [1, 2]), V('s32', 3)))
    e = Comp('main', entry=True)
    e.root(S('f32', 2, 2, layout=[0, 1]), 'constant({ {1, 2}, {3, 4} })', 'c')
    add_case(g, 'constant_column_major', 'hand',
             module('constant_column_major', e), [],
             V('f32', [[1, 2], [3, 4]], layout=[0, 1]),
             notes=['the literal text is in logical row-major order'])

    # opt-barrier
    e = Comp('main', entry=True)
    p0 = e.param(S('f32', 2))
    p1 = e.param(S('s32'))
    t = e.op('(f32[2], s32[])', 'tuple(%s, %s)' % (p0, p1), 't')
    e.root('(f32[2], s32[])', 'opt-barrier(%s)' % t, 'r')
    add_case(g, 'opt_barrier_tuple', 'hand', module('opt_barrier_tuple', e),
             [V('f32', [1, -1]), V('s32', 3)],
             Tup(V('f32', [1, -1]), V('s32', 3)))
    # after-all: tokens
    e = Comp('main', entry=True)
    p = e.param(S('f32', 2))
    t0 = e.op('token[]', 'after-all()', 'tok0')
    t1 = e.op('token[]', 'after-all()', 'tok1')
    t2 = e.op('token[]', 'after-all(%s, %s)' % (t0, t1), 'joined')
    e.root('(f32[2], token[])', 'tuple(%s, %s)' % (p, t2), 'r')
    add_case(g, 'after_all_token_result', 'hand',
             module('after_all_token_result', e), [V('f32', [5, 6])],
             Tup(V('f32', [5, 6]), Tok()),
             notes=['a token compares equal to any token'])
    # get-dimension-size
    for d in (0, 1):
        e = Comp('main', entry=True)
        p = e.param(S('f32', 3, 5))
        e.root(S('s32'), 'get-dimension-size(%s), dimensions={%d}' % (p, d),
               'r')
        add_case(g, 'get_dimension_size_%d' % d, 'hand',
                 module('get_dimension_size_%d' % d, e),
                 [V('f32', np.zeros((3, 5), np.float32))],
                 V('s32', [3, 5][d]))



# ----------------------------------------------------------------------------
# select / clamp
# ----------------------------------------------------------------------------

def gen_select_clamp():
    g = 'select_clamp'

    def select_case(name, p, a, b, source='numpy', expect=None):
        out = expect or V(a.t, np.where(p.a, a.a, b.a))
        e = Comp('main', entry=True)
        pp = e.param(p.shape())
        pa = e.param(a.shape())
        pb = e.param(b.shape())
        e.root(out.shape(), 'select(%s, %s, %s)' % (pp, pa, pb), 'r')
        add_case(g, name, source, module(name, e), [p, a, b], out)
    v1 = V('s32', [1, 2, 3, 4])
    v2 = V('s32', [100, 200, 300, 400])
    select_case('select_seed004', V('pred', [True, False, False, True]),
                v1, v2, 'seed 004 (Select example)',
                V('s32', [1, 200, 300, 4]))
    # seed 004 scalar predicate: today's HLO select takes a predicate of the
    # operands' shape, so the builder broadcasts the scalar first.
    e = Comp('main', entry=True)
    pp = e.param(S('pred'))
    pa = e.param(S('s32', 4))
    pb = e.param(S('s32', 4))
    bp = e.op(S('pred', 4), 'broadcast(%s), dimensions={}' % pp, 'pred4')
    e.root(S('s32', 4), 'select(%s, %s, %s)' % (bp, pa, pb), 'r')
    add_case(g, 'select_seed004_scalar_pred', 'seed 004 (Select scalar '
             'predicate example)', module('select_seed004_scalar_pred', e),
             [V('pred', True), v1, v2], V('s32', [1, 2, 3, 4]),
             notes=['the scalar predicate is broadcast as the builder '
                    'lowers it'])
    select_case('select_f32_2d_nan', V('pred', [[True, False], [False,
                                                                 True]]),
                V('f32', [[NAN, 1], [2, -INF]]), V('f32', [[0, NAN], [5, 6]]))
    select_case('select_pred_operands', V('pred', [True, False]),
                V('pred', [False, False]), V('pred', [True, True]))
    select_case('select_bf16', V('pred', [False, True, True]),
                V('bf16', [1, 2, 3]), V('bf16', [-1, -2, -3]))
    select_case('select_u64', V('pred', [False, True]),
                V('u64', [1, 2]), V('u64', [18446744073709551615, 3]))
    select_case('select_scalar', V('pred', False), V('f32', 1), V('f32', 2))
    select_case('select_zero_size', V('pred', np.zeros((0, 2), np.bool_)),
                V('f32', np.zeros((0, 2), np.float32)),
                V('f32', np.zeros((0, 2), np.float32)))

    def clamp_case(name, lo, x, hi, source='numpy', expect=None, notes=()):
        if expect is None:
            if is_float(x.t):
                r = np.minimum(np.maximum(x.a, lo.a), hi.a)
            else:
                r = np.minimum(np.maximum(x.a.astype(object), lo.a[()]
                                          if lo.a.ndim == 0 else lo.a),
                               hi.a[()] if hi.a.ndim == 0 else hi.a)
            expect = V(x.t, np.asarray(r).astype(NP_DTYPE[x.t]))
        e = Comp('main', entry=True)
        p0 = e.param(lo.shape())
        p1 = e.param(x.shape())
        p2 = e.param(hi.shape())
        e.root(expect.shape(), 'clamp(%s, %s, %s)' % (p0, p1, p2), 'r')
        add_case(g, name, source, module(name, e), [lo, x, hi], expect,
                 notes=['clamp(min, operand, max) = min(max(operand, min), '
                        'max) (SEMANTICS.md)'] + list(notes))
    clamp_case('clamp_seed004', V('s32', 0), V('s32', [-1, 5, 9]),
               V('s32', 6), 'seed 004 (Clamp example)', V('s32', [0, 5, 6]))
    clamp_case('clamp_f32_arrays', V('f32', [0, -1, 2, -INF]),
               V('f32', [-0.5, 3, 2.5, 7]), V('f32', [1, 1, 3, INF]))
    clamp_case('clamp_min_greater_than_max', V('f32', 5), V('f32', [0, 4, 9]),
               V('f32', 3), notes=['min > max: the result is max'])
    clamp_case('clamp_f32_nan', V('f32', 0), V('f32', [NAN, 1, -1]),
               V('f32', 0.5), expect=V('f32', [NAN, 0.5, 0]),
               notes=['a NaN operand gives NaN (as XLA does)'])
    clamp_case('clamp_s8', V('s8', -5), V('s8', [-128, -5, 0, 127]),
               V('s8', 5))
    clamp_case('clamp_u32', V('u32', [1, 10]),
               V('u32', [0, 4294967295]), V('u32', [5, 20]))
    clamp_case('clamp_f16', V('f16', -1), V('f16', [-2, 0.5, 65504]),
               V('f16', 1))
    clamp_case('clamp_bf16_2d', V('bf16', 0),
               V('bf16', [[-1.5, 0.25], [3, 1]]), V('bf16', 1))
    clamp_case('clamp_s64_min_array_max_scalar',
               V('s64', [1 << 40, -3]), V('s64', [0, 0]),
               V('s64', 1 << 41))


# ----------------------------------------------------------------------------
# batch-norm
# ----------------------------------------------------------------------------

def gen_batchnorm():
    g = 'batchnorm'

    def bcast(v, fi, nd):
        shape = [1] * nd
        shape[fi] = -1
        return v.reshape(shape)

    def cases(name, shape, fi, eps):
        x = V('f32', rnd(shape, -2, 2))
        C = shape[fi]
        scale = V('f32', rnd((C,), 0.5, 1.5))
        offset = V('f32', rnd((C,), -1, 1))
        axes = tuple(d for d in range(len(shape)) if d != fi)
        xd = x.a.astype(np.float64)
        e32 = float(np.float32(eps))
        mean = xd.mean(axis=axes)
        var = ((xd - bcast(mean, fi, xd.ndim)) ** 2).mean(axis=axes)
        inv = 1.0 / np.sqrt(var + e32)
        xhat = (xd - bcast(mean, fi, xd.ndim)) * bcast(inv, fi, xd.ndim)
        y = xhat * bcast(scale.a.astype(np.float64), fi, xd.ndim) + \
            bcast(offset.a.astype(np.float64), fi, xd.ndim)
        eps_txt = fmt_float('f32', eps)
        # training
        e = Comp('main', entry=True)
        ps = [e.param(v.shape()) for v in (x, scale, offset)]
        rs = '(%s, %s, %s)' % (x.shape(), S('f32', C), S('f32', C))
        e.root(rs, 'batch-norm-training(%s), epsilon=%s, feature_index=%d' %
               (', '.join(ps), eps_txt, fi), 'r')
        nm = 'training_' + name
        add_case(g, nm, 'numpy (float64)', module(nm, e), [x, scale, offset],
                 Tup(V('f32', y.astype(np.float32)),
                     V('f32', mean.astype(np.float32)),
                     V('f32', var.astype(np.float32))),
                 tol_str(rtol=1e-4, atol=1e-5),
                 notes=['biased (population) variance (SEMANTICS.md)'])
        # inference with given mean/variance
        mean_in = V('f32', rnd((C,), -0.5, 0.5))
        var_in = V('f32', rnd((C,), 0.5, 2))
        inv2 = 1.0 / np.sqrt(var_in.a.astype(np.float64) + e32)
        y2 = (xd - bcast(mean_in.a.astype(np.float64), fi, xd.ndim)) * \
            bcast(inv2 * scale.a, fi, xd.ndim) + \
            bcast(offset.a.astype(np.float64), fi, xd.ndim)
        e = Comp('main', entry=True)
        ps = [e.param(v.shape()) for v in (x, scale, offset, mean_in,
                                           var_in)]
        e.root(x.shape(), 'batch-norm-inference(%s), epsilon=%s, '
               'feature_index=%d' % (', '.join(ps), eps_txt, fi), 'r')
        nm = 'inference_' + name
        add_case(g, nm, 'numpy (float64)', module(nm, e),
                 [x, scale, offset, mean_in, var_in],
                 V('f32', y2.astype(np.float32)),
                 tol_str(rtol=1e-5, atol=1e-5))
        # grad
        gy = V('f32', rnd(shape, -1, 1))
        gyd = gy.a.astype(np.float64)
        mu = mean_in.a.astype(np.float64)
        xh = (xd - bcast(mu, fi, xd.ndim)) * bcast(inv2, fi, xd.ndim)
        gbeta = gyd.sum(axis=axes)
        ggamma = (gyd * xh).sum(axis=axes)
        m_gy = gyd.mean(axis=axes)
        m_gyx = (gyd * xh).mean(axis=axes)
        gx = bcast(scale.a.astype(np.float64) * inv2, fi, xd.ndim) * (
            gyd - bcast(m_gy, fi, xd.ndim) - xh * bcast(m_gyx, fi, xd.ndim))
        e = Comp('main', entry=True)
        ps = [e.param(v.shape()) for v in (x, scale, mean_in, var_in, gy)]
        e.root(rs, 'batch-norm-grad(%s), epsilon=%s, feature_index=%d' %
               (', '.join(ps), eps_txt, fi), 'r')
        nm = 'grad_' + name
        add_case(g, nm, 'numpy (float64), formulas of SEMANTICS.md',
                 module(nm, e), [x, scale, mean_in, var_in, gy],
                 Tup(V('f32', gx.astype(np.float32)),
                     V('f32', ggamma.astype(np.float32)),
                     V('f32', gbeta.astype(np.float32))),
                 tol_str(rtol=1e-4, atol=1e-5),
                 notes=['x^ = (x-mean)/sqrt(var+eps); grad_offset = sum(dy); '
                        'grad_scale = sum(dy*x^); grad_x = scale/sqrt(var+'
                        'eps) * (dy - mean(dy) - x^*mean(dy*x^)) '
                        '(SEMANTICS.md; the seed formulas are wrong)'])
    cases('nhwc_feature3', (2, 2, 3, 3), 3, 0.001)
    cases('nchw_feature1', (2, 3, 2, 2), 1, 1e-5)
    cases('2d_feature1', (5, 2), 1, 0.1)
    cases('3d_feature0', (2, 3, 4), 0, 0.01)


# ----------------------------------------------------------------------------
# linalg: cholesky, triangular-solve
# ----------------------------------------------------------------------------

def gen_linalg():
    g = 'linalg'

    def spd(n, batch=()):
        m = rnd(tuple(batch) + (n, n), -1, 1)
        return np.matmul(m, np.swapaxes(m, -1, -2)) + n * np.eye(n)

    def cholesky_case(name, t, n, lower, batch=()):
        a = spd(n, batch)
        L = np.linalg.cholesky(a)
        res = L if lower else np.swapaxes(L, -1, -2)
        # garbage in the triangle that must not be read
        mask = np.tril(np.ones((n, n), bool)) if lower else \
            np.triu(np.ones((n, n), bool))
        mask_b = np.broadcast_to(mask, a.shape)
        a_in = np.where(mask_b, a, 1000.0)
        x = V(t, a_in)
        out = V(t, np.where(mask_b, res, 0).astype(NP_DTYPE[t]))
        dims = list(a.shape)
        e = Comp('main', entry=True)
        p = e.param(x.shape())
        ch = e.op(x.shape(), 'cholesky(%s), lower=%s' %
                  (p, 'true' if lower else 'false'), 'chol')
        mk = e.op(shape_str('pred', dims), 'constant(%s)' %
                  fmt_array('pred', mask_b), 'triangle')
        z = e.op(S(t), 'constant(0)', 'zero')
        zb = e.op(shape_str(t, dims), 'broadcast(%s), dimensions={}' % z,
                  'zeros')
        e.root(x.shape(), 'select(%s, %s, %s)' % (mk, ch, zb), 'r')
        add_case(g, name, 'numpy.linalg.cholesky', module(name, e), [x], out,
                 tol_str(rtol=1e-5, atol=1e-5) if t == 'f32' else
                 tol_str(rtol=1e-12, atol=1e-12),
                 notes=['only the %s triangle of the input is read (the '
                        'other holds 1000s); the other triangle of the '
                        'result is implementation-defined, so the case '
                        'masks it' % ('lower' if lower else 'upper')])
    cholesky_case('cholesky_lower_f32', 'f32', 3, True)
    cholesky_case('cholesky_upper_f32', 'f32', 4, False)
    cholesky_case('cholesky_lower_f64', 'f64', 4, True)
    cholesky_case('cholesky_batched_f32', 'f32', 3, True, batch=(2,))

    def tri_case(name, t, n, m, left, lower, unit, trans, batch=()):
        a = rnd(tuple(batch) + (n, n), -1, 1)
        if is_complex(t):
            a = a + 1j * rnd(tuple(batch) + (n, n), -1, 1)
        a = a + np.eye(n) * 3
        keep = np.tril(np.ones((n, n), bool), -1 if unit else 0) if lower \
            else np.triu(np.ones((n, n), bool), 1 if unit else 0)
        keep_b = np.broadcast_to(keep, a.shape)
        eff = np.where(keep_b, a, 0)
        if unit:
            eff = eff + np.eye(n)
        a_in = np.where(keep_b, a, 77.0)  # never read
        opa = {'NO_TRANSPOSE': eff, 'TRANSPOSE': np.swapaxes(eff, -1, -2),
               'ADJOINT': np.conj(np.swapaxes(eff, -1, -2))}[trans]
        bshape = tuple(batch) + ((n, m) if left else (m, n))
        b = rnd(bshape, -2, 2)
        if is_complex(t):
            b = b + 1j * rnd(bshape, -2, 2)
        x_in = V(t, a_in)
        b_in = V(t, b)
        # solve with the rounded inputs
        ea = np.where(keep_b, x_in.a.astype(np.complex128 if is_complex(t)
                                            else np.float64), 0)
        if unit:
            ea = ea + np.eye(n)
        opa = {'NO_TRANSPOSE': ea, 'TRANSPOSE': np.swapaxes(ea, -1, -2),
               'ADJOINT': np.conj(np.swapaxes(ea, -1, -2))}[trans]
        bd = b_in.a.astype(ea.dtype)
        if left:
            xs = np.linalg.solve(opa, bd)
        else:
            xs = np.swapaxes(np.linalg.solve(np.swapaxes(opa, -1, -2),
                                             np.swapaxes(bd, -1, -2)), -1, -2)
        out = V(t, xs.astype(NP_DTYPE[t]))
        e = Comp('main', entry=True)
        p0 = e.param(x_in.shape())
        p1 = e.param(b_in.shape())
        tf = lambda v: 'true' if v else 'false'
        e.root(out.shape(), 'triangular-solve(%s, %s), left_side=%s, '
               'lower=%s, unit_diagonal=%s, transpose_a=%s' %
               (p0, p1, tf(left), tf(lower), tf(unit), trans), 'r')
        add_case(g, name, 'numpy.linalg.solve', module(name, e),
                 [x_in, b_in], out,
                 tol_str(rtol=1e-4, atol=1e-5) if t in ('f32', 'c64')
                 else tol_str(rtol=1e-11, atol=1e-12),
                 notes=['left_side: op(a) x = b, else x op(a) = b; only the '
                        '%s triangle of a is read (the other holds 77s)%s' %
                        ('lower' if lower else 'upper',
                         '; unit_diagonal: the diagonal is taken as 1 and '
                         'not read' if unit else '')])
    tri_case('triangular_solve_left_lower', 'f32', 3, 2, True, True, False,
             'NO_TRANSPOSE')
    tri_case('triangular_solve_left_upper_transpose', 'f32', 3, 2, True,
             False, False, 'TRANSPOSE')
    tri_case('triangular_solve_right_lower', 'f32', 3, 2, False, True, False,
             'NO_TRANSPOSE')
    tri_case('triangular_solve_right_upper_transpose', 'f32', 4, 1, False,
             False, False, 'TRANSPOSE')
    tri_case('triangular_solve_left_lower_unit_diagonal', 'f32', 3, 3, True,
             True, True, 'NO_TRANSPOSE')
    tri_case('triangular_solve_right_upper_unit_transpose', 'f32', 3, 2,
             False, False, True, 'TRANSPOSE')
    tri_case('triangular_solve_batched', 'f32', 3, 2, True, False, False,
             'NO_TRANSPOSE', batch=(2,))
    tri_case('triangular_solve_f64', 'f64', 4, 3, True, True, False,
             'TRANSPOSE')
    tri_case('triangular_solve_c64_adjoint', 'c64', 3, 2, True, True, False,
             'ADJOINT')
    tri_case('triangular_solve_c64_transpose_right', 'c64', 2, 2, False,
             False, False, 'TRANSPOSE')


# ----------------------------------------------------------------------------
# complex
# ----------------------------------------------------------------------------

def gen_complex():
    g = 'complex'
    re, im = V('f32', [1, -2, 0, 3.5]), V('f32', [0.5, 0, -1, 2])
    simple_binary(g, 'complex_f32', 'complex', re, im,
                  V('c64', re.a + 1j * im.a.astype(np.complex64)))
    re, im = V('f64', [0.1, -1e300]), V('f64', [1e-300, 2])
    simple_binary(g, 'complex_f64', 'complex', re, im,
                  V('c128', re.a + 1j * im.a))
    z = V('c64', [1 + 2j, -3.5 - 0.5j, 0j, 4j])
    simple_unary(g, 'real_c64', 'real', z, V('f32', z.a.real))
    simple_unary(g, 'imag_c64', 'imag', z, V('f32', z.a.imag))
    zz = V('c128', [0.1 + 0.2j, -7 + 1e-200j])
    simple_unary(g, 'real_c128', 'real', zz, V('f64', zz.a.real))
    simple_unary(g, 'imag_c128', 'imag', zz, V('f64', zz.a.imag))
    simple_unary(g, 'negate_c64', 'negate', z, V('c64', -z.a))
    simple_unary(g, 'abs_c64', 'abs', V('c64', [3 + 4j, -5j, 1 - 1j, 0j]),
                 V('f32', [5, 5, math.sqrt(2), 0]), tol_str(rtol=1e-6))
    simple_unary(g, 'abs_c128', 'abs', V('c128', [3 + 4j, 1e200 + 1e200j]),
                 V('f64', [5, math.sqrt(2) * 1e200]), tol_str(rtol=1e-14),
                 notes=['no overflow in |z| for large components'])
    simple_unary(g, 'sign_c64', 'sign', V('c64', [3 + 4j, -2j, 0j]),
                 V('c64', [0.6 + 0.8j, -1j, 0j]), tol_str(rtol=1e-6),
                 notes=['sign(z) = z/|z|, sign(0) = 0'])
    a = V('c64', [1 + 2j, -3 + 0.5j, 2 - 2j, 0.25j])
    b = V('c64', [2 - 1j, 1 + 1j, -1 - 3j, 4 + 0j])
    ad, bd = a.a.astype(np.complex128), b.a.astype(np.complex128)
    for op, fn in (('add', np.add), ('subtract', np.subtract),
                   ('multiply', np.multiply), ('divide', np.divide)):
        simple_binary(g, '%s_c64' % op, op, a, b,
                      V('c64', fn(ad, bd).astype(np.complex64)),
                      None if op in ('add', 'subtract') else
                      tol_str(rtol=1e-6, atol=1e-7))
    a2 = V('c128', [1 + 2j, -3 + 0.5j])
    b2 = V('c128', [2 - 1j, 1e-3 + 1j])
    simple_binary(g, 'multiply_c128', 'multiply', a2, b2,
                  V('c128', a2.a * b2.a), tol_str(rtol=1e-15))
    simple_binary(g, 'divide_c128', 'divide', a2, b2,
                  V('c128', a2.a / b2.a), tol_str(rtol=1e-14))
    zs = V('c64', [1 + 1j, -1 + 0.5j, 0.5 - 2j, 2 + 0j, -4 + 3j])
    zd = zs.a.astype(np.complex128)
    for op, fn in (('exponential', np.exp), ('log', np.log),
                   ('sqrt', np.sqrt), ('tanh', np.tanh), ('sine', np.sin),
                   ('cosine', np.cos),
                   ('rsqrt', lambda v: 1 / np.sqrt(v)),
                   ('exponential-minus-one', lambda v: np.exp(v) - 1),
                   ('log-plus-one', lambda v: np.log(1 + v)),
                   ('tan', np.tan), ('acos', np.arccos),
                   ('asin', np.arcsin), ('atan', np.arctan),
                   ('acosh', np.arccosh), ('asinh', np.arcsinh),
                   ('atanh', np.arctanh), ('cosh', np.cosh),
                   ('sinh', np.sinh)):
        simple_unary(g, '%s_c64' % op.replace('-', '_'), op, zs,
                     V('c64', fn(zd).astype(np.complex64)),
                     tol_str(rtol=1e-5, atol=1e-6),
                     notes=['principal branch'] if op in ('log', 'sqrt',
                                                          'rsqrt') else ())
    simple_unary(g, 'exponential_c128', 'exponential',
                 V('c128', [1 + 1j, -0.5 + 3j]),
                 V('c128', np.exp(np.array([1 + 1j, -0.5 + 3j]))),
                 tol_str(rtol=1e-14))
    p = V('c64', [1 + 1j, 2 + 0j, -1 + 0j, 0.5j])
    q = V('c64', [2 + 0j, 0.5 + 0.5j, 0.5 + 0j, 1 + 0j])
    simple_binary(g, 'power_c64', 'power', p, q,
                  V('c64', np.power(p.a.astype(np.complex128),
                                    q.a.astype(np.complex128))
                    .astype(np.complex64)), tol_str(rtol=1e-5, atol=1e-6))
    # reduce-sum of complex numbers
    c = add_comp('c64')
    x = V('c64', [[1 + 1j, 2 - 3j, 0.5j], [-1 + 0j, 4 + 4j, 2 + 0.25j]])
    e = Comp('main', entry=True)
    p0 = e.param(x.shape())
    z = e.op(S('c64'), 'constant((0, 0))', 'zero')
    e.root(S('c64', 2), 'reduce(%s, %s), dimensions={1}, to_apply=%%add_c64'
           % (p0, z), 'r')
    add_case(g, 'reduce_sum_c64', 'numpy', module('reduce_sum_c64', e, c),
             [x], V('c64', x.a.sum(axis=1)))
    # abs of a complex tensor built from parts with complex()
    e = Comp('main', entry=True)
    p0 = e.param(S('f32', 3))
    p1 = e.param(S('f32', 3))
    cz = e.op(S('c64', 3), 'complex(%s, %s)' % (p0, p1), 'z')
    e.root(S('f32', 3), 'abs(%s)' % cz, 'r')
    add_case(g, 'abs_of_complex_parts', 'numpy',
             module('abs_of_complex_parts', e),
             [V('f32', [3, 5, -8]), V('f32', [4, 12, 15])],
             V('f32', [5, 13, 17]), tol_str(rtol=1e-6))



# ----------------------------------------------------------------------------
# collective: all-reduce, replica-id, partition-id (2 replicas)
# ----------------------------------------------------------------------------

def gen_collective():
    g = 'collective'

    def ar_case(name, t, opn, per_replica, groups, source='numpy',
                expects=None, notes=()):
        c = scalar_comp('%s_%s' % (opn, t), opn, t)
        e = Comp('main', entry=True)
        x = per_replica[0]
        p = e.param(x.shape())
        e.root(x.shape(), 'all-reduce(%s), replica_groups=%s, to_apply=%%%s'
               % (p, groups, c.name), 'r')
        if expects is None:
            fn = {'add': np.add, 'maximum': np.maximum,
                  'multiply': np.multiply, 'minimum': np.minimum}[opn]
            r = per_replica[0].a
            for v in per_replica[1:]:
                r = fn(r, v.a)
            expects = [V(t, r)] * len(per_replica)
        add_case(g, name, source, module(name, e, c), [], None,
                 replica_inputs=[[v] for v in per_replica],
                 replica_expects=expects, notes=notes)
    # seed 004 CrossReplicaSum: (1.0, 2.5) and (3.0, 5.1) give (4.0, 7.6)
    # on both replicas (the f32 sum, computed by numpy).
    a, b = V('f32', [1.0, 2.5]), V('f32', [3.0, 5.1])
    ar_case('all_reduce_sum_seed004', 'f32', 'add', [a, b], '{{0,1}}',
            'seed 004 (CrossReplicaSum example); f32 sums by numpy',
            notes=['CrossReplicaSum is all-reduce with an add computation '
                   '(SEMANTICS.md)'])
    ar_case('all_reduce_max_s32_all_replicas', 's32', 'maximum',
            [V('s32', [[1, 9], [-4, 0]]), V('s32', [[3, -9], [-5, 7]])], '{}',
            notes=['replica_groups={} means all replicas'])
    ar_case('all_reduce_singleton_groups', 'f32', 'add',
            [V('f32', [1, 2]), V('f32', [10, 20])], '{{0},{1}}',
            expects=[V('f32', [1, 2]), V('f32', [10, 20])],
            notes=['each replica is alone in its group'])
    ar_case('all_reduce_multiply_f64', 'f64', 'multiply',
            [V('f64', [1.5, -2]), V('f64', [4, 0.25])], '{{0,1}}')
    ar_case('all_reduce_sum_u8_wraps', 'u8', 'add',
            [V('u8', [200, 1]), V('u8', [100, 2])], '{{0,1}}',
            expects=[V('u8', [44, 3])] * 2)
    # variadic all-reduce over two operands of the reducer's type
    c = add_comp('f32')
    e = Comp('main', entry=True)
    p0 = e.param(S('f32', 2))
    p1 = e.param(S('f32'))
    e.root('(f32[2], f32[])', 'all-reduce(%s, %s), replica_groups={{0,1}}, '
           'to_apply=%%add_f32' % (p0, p1), 'r')
    add_case(g, 'all_reduce_two_operands', 'numpy',
             module('all_reduce_two_operands', e, c), [], None,
             replica_inputs=[[V('f32', [1, 2]), V('f32', 3)],
                             [V('f32', [0.5, -2]), V('f32', 4)]],
             replica_expects=[Tup(V('f32', [1.5, 0]), V('f32', 7))] * 2,
             notes=['variadic all-reduce: a tuple of the reduced operands'])
    # replica-id
    e = Comp('main', entry=True)
    e.root(S('u32'), 'replica-id()', 'r')
    add_case(g, 'replica_id', 'hand', module('replica_id', e), [], None,
             replica_inputs=[[], []],
             replica_expects=[V('u32', 0), V('u32', 1)])
    # all-reduce of values derived from replica-id
    c = add_comp('f32')
    e = Comp('main', entry=True)
    p = e.param(S('f32', 3))
    rid = e.op(S('u32'), 'replica-id()', 'rid')
    rf = e.op(S('f32'), 'convert(%s)' % rid, 'rid_f32')
    ten = e.op(S('f32'), 'constant(10)', 'ten')
    sc = e.op(S('f32'), 'multiply(%s, %s)' % (rf, ten), 'scaled')
    bc = e.op(S('f32', 3), 'broadcast(%s), dimensions={}' % sc, 'splat')
    v = e.op(S('f32', 3), 'add(%s, %s)' % (p, bc), 'value')
    e.root(S('f32', 3), 'all-reduce(%s), replica_groups={{0,1}}, '
           'to_apply=%%add_f32' % v, 'r')
    add_case(g, 'all_reduce_of_replica_id', 'hand',
             module('all_reduce_of_replica_id', e, c), [], None,
             replica_inputs=[[V('f32', [1, 2, 3])], [V('f32', [4, 5, 6])]],
             replica_expects=[V('f32', [15, 17, 19])] * 2,
             notes=['replica 0 contributes x, replica 1 contributes x + 10'])
    # partition-id (a single partition)
    e = Comp('main', entry=True)
    e.root(S('u32'), 'partition-id()', 'r')
    add_case(g, 'partition_id_single_partition', 'hand',
             module('partition_id_single_partition', e), [], V('u32', 0))
    # replica-id without replicas
    e = Comp('main', entry=True)
    e.root(S('u32'), 'replica-id()', 'r')
    add_case(g, 'replica_id_single_replica', 'hand',
             module('replica_id_single_replica', e), [], V('u32', 0))


# ----------------------------------------------------------------------------
# collective: all-gather, reduce-scatter, collective-permute and all-to-all
# (replica groups as XLA writes them, the iota form included); expected
# values by numpy per replica
# ----------------------------------------------------------------------------

def iota_groups(num_groups, size, dims, perm=None):
    """XLA's iota replica groups [num_groups,size]<=[dims]T(perm):
    np.arange(prod(dims)).reshape(dims).transpose(perm), read row-major and
    cut into groups."""
    a = np.arange(int(np.prod(dims))).reshape(dims)
    if perm is not None:
        a = a.transpose(perm)
    return a.reshape(num_groups, size).tolist()


def group_of(groups, replicas, r):
    if not groups:
        return list(range(replicas))
    return [g for g in groups if r in g][0]


def gen_collective_gather_scatter():
    g = 'collective'

    def groups_text(groups):
        return '{%s}' % ','.join('{%s}' % ','.join(str(x) for x in grp)
                                 for grp in groups)

    def gather_case(name, t, per_replica, dim, groups, groups_str=None,
                    notes=()):
        n = len(group_of(groups, len(per_replica), 0))
        x = per_replica[0].a
        out_dims = list(x.shape)
        out_dims[dim] *= n
        e = Comp('main', entry=True)
        p = e.param(S(t, *x.shape))
        e.root(S(t, *out_dims), 'all-gather(%s), channel_id=1, '
               'replica_groups=%s, dimensions={%d}'
               % (p, groups_str or groups_text(groups), dim), 'r')
        expects = []
        for r in range(len(per_replica)):
            members = group_of(groups, len(per_replica), r)
            expects.append(V(t, np.concatenate(
                [per_replica[m].a for m in members], axis=dim)))
        add_case(g, name, 'numpy', module(name, e), [], None,
                 replica_inputs=[[v] for v in per_replica],
                 replica_expects=expects, notes=notes)

    def scatter_case(name, t, opn, per_replica, dim, groups,
                     groups_str=None, notes=()):
        c = scalar_comp('%s_%s' % (opn, t), opn, t)
        fn = {'add': np.add, 'maximum': np.maximum, 'minimum': np.minimum,
              'multiply': np.multiply}[opn]
        n = len(group_of(groups, len(per_replica), 0))
        x = per_replica[0].a
        out_dims = list(x.shape)
        out_dims[dim] //= n
        e = Comp('main', entry=True)
        p = e.param(S(t, *x.shape))
        e.root(S(t, *out_dims), 'reduce-scatter(%s), channel_id=1, '
               'replica_groups=%s, dimensions={%d}, to_apply=%%%s'
               % (p, groups_str or groups_text(groups), dim, c.name), 'r')
        expects = []
        for r in range(len(per_replica)):
            members = group_of(groups, len(per_replica), r)
            total = per_replica[members[0]].a
            for m in members[1:]:
                total = fn(total, per_replica[m].a)
            piece = np.split(total, n, axis=dim)[members.index(r)]
            expects.append(V(t, piece))
        add_case(g, name, 'numpy', module(name, e, c), [], None,
                 replica_inputs=[[v] for v in per_replica],
                 replica_expects=expects, notes=notes)

    rng = np.random.RandomState(1401)

    def ints(t, dims, replicas, lo=-20, hi=20):
        return [V(t, rng.randint(lo, hi, size=dims)) for _ in range(replicas)]

    # all-gather
    gather_case('all_gather_dim0', 'f32',
                [V('f32', [1.5, -2]), V('f32', [3, 4.25])], 0, [[0, 1]])
    gather_case('all_gather_dim1_all_replicas', 's32',
                ints('s32', [2, 3], 2), 1, [],
                notes=['replica_groups={}: every replica, in replica order'])
    gather_case('all_gather_reversed_group', 'f32',
                ints('f32', [2, 2], 2), 0, [[1, 0]],
                notes=['the group order, not the replica order, is the '
                       'concatenation order'])
    gather_case('all_gather_iota_groups', 's32', ints('s32', [1, 3], 4), 0,
                iota_groups(2, 2, [4]), groups_str='[2,2]<=[4]',
                notes=['[2,2]<=[4] is {{0,1},{2,3}}'])
    gather_case('all_gather_iota_transposed', 'f32',
                ints('f32', [2, 1, 2], 4), 1,
                iota_groups(2, 2, [2, 2], [1, 0]),
                groups_str='[2,2]<=[2,2]T(1,0)',
                notes=['[2,2]<=[2,2]T(1,0) is {{0,2},{1,3}}; gathered on '
                       'the middle dimension'])
    gather_case('all_gather_u8_four_replicas', 'u8',
                ints('u8', [3], 4, 0, 255), 0, [[0, 1, 2, 3]])
    # variadic all-gather: a tuple of the gathered operands
    e = Comp('main', entry=True)
    p0 = e.param(S('f32', 2))
    p1 = e.param(S('s32', 1, 2))
    e.root('(f32[4], s32[2,2])', 'all-gather(%s, %s), replica_groups={{0,1}}, '
           'dimensions={0}' % (p0, p1), 'r')
    a = [V('f32', [1, 2]), V('f32', [3, 4])]
    b = [V('s32', [[5, 6]]), V('s32', [[7, 8]])]
    add_case(g, 'all_gather_two_operands', 'numpy',
             module('all_gather_two_operands', e), [], None,
             replica_inputs=[[a[0], b[0]], [a[1], b[1]]],
             replica_expects=[Tup(V('f32', np.concatenate([a[0].a, a[1].a])),
                                  V('s32', np.concatenate([b[0].a, b[1].a])))]
             * 2,
             notes=['variadic all-gather: a tuple of the gathered operands'])

    # reduce-scatter
    scatter_case('reduce_scatter_add', 'f32', 'add',
                 [V('f32', [1, 2, 3, 4]), V('f32', [10, 20, 30, 40])], 0,
                 [[0, 1]])
    scatter_case('reduce_scatter_max_dim1', 's32', 'maximum',
                 ints('s32', [2, 4], 2), 1, [],
                 notes=['replica_groups={}: every replica'])
    scatter_case('reduce_scatter_reversed_group', 'f32', 'add',
                 ints('f32', [4, 2], 2), 0, [[1, 0]],
                 notes=['replica 1 is first in its group: it keeps piece 0'])
    scatter_case('reduce_scatter_iota_groups', 's32', 'add',
                 ints('s32', [2, 2], 4), 1, iota_groups(2, 2, [4]),
                 groups_str='[2,2]<=[4]')
    scatter_case('reduce_scatter_min_four_replicas', 'f64', 'minimum',
                 [V('f64', rng.uniform(-1, 1, size=[8])) for _ in range(4)],
                 0, [[0, 1, 2, 3]])


def gen_all_to_all():
    g = 'collective'
    rng = np.random.RandomState(1403)

    def groups_text(groups):
        return '{%s}' % ','.join('{%s}' % ','.join(str(x) for x in grp)
                                 for grp in groups)

    def split_case(name, t, per_replica, dim, groups, groups_str=None,
                   notes=()):
        x = per_replica[0].a
        e = Comp('main', entry=True)
        p = e.param(S(t, *x.shape))
        e.root(S(t, *x.shape), 'all-to-all(%s), channel_id=1, '
               'replica_groups=%s, dimensions={%d}'
               % (p, groups_str or groups_text(groups), dim), 'r')
        expects = []
        for r in range(len(per_replica)):
            members = group_of(groups, len(per_replica), r)
            me = members.index(r)
            n = len(members)
            expects.append(V(t, np.concatenate(
                [np.split(per_replica[m].a, n, axis=dim)[me]
                 for m in members], axis=dim)))
        add_case(g, name, 'numpy', module(name, e), [], None,
                 replica_inputs=[[v] for v in per_replica],
                 replica_expects=expects, notes=notes)

    def tuple_case(name, t, per_replica, groups, notes=()):
        # per_replica[r] is replica r's list of operands (one per member)
        shape = per_replica[0][0].a.shape
        n = len(per_replica[0])
        e = Comp('main', entry=True)
        ps = [e.param(S(t, *shape)) for _ in range(n)]
        e.root('(%s)' % ', '.join([S(t, *shape)] * n),
               'all-to-all(%s), replica_groups=%s'
               % (', '.join(ps), groups_text(groups)), 'r')
        expects = []
        for r in range(len(per_replica)):
            members = group_of(groups, len(per_replica), r)
            me = members.index(r)
            expects.append(Tup(*[per_replica[m][me] for m in members]))
        add_case(g, name, 'numpy', module(name, e), [], None,
                 replica_inputs=per_replica, replica_expects=expects,
                 notes=notes)

    def ints(t, dims, lo=-30, hi=30):
        return V(t, rng.randint(lo, hi, size=dims))

    split_case('all_to_all_split_dim0', 'f32',
               [V('f32', [1, 2, 3, 4]), V('f32', [10, 20, 30, 40])], 0,
               [[0, 1]], notes=['replica 0 gets {1, 2, 10, 20}, replica 1 '
                                '{3, 4, 30, 40}'])
    split_case('all_to_all_split_dim1_all_replicas', 's32',
               [ints('s32', [2, 4]) for _ in range(4)], 1, [],
               notes=['replica_groups={}: every replica'])
    split_case('all_to_all_iota_groups', 'f32',
               [ints('f32', [2, 3]) for _ in range(4)], 0,
               iota_groups(2, 2, [2, 2], [1, 0]),
               groups_str='[2,2]<=[2,2]T(1,0)',
               notes=['[2,2]<=[2,2]T(1,0) is {{0,2},{1,3}}'])
    tuple_case('all_to_all_tuple_form', 'f32',
               [[ints('f32', [2]) for _ in range(2)] for _ in range(2)],
               [[0, 1]],
               notes=['without dimensions=: operand i goes to member i, '
                      'result j comes from member j'])
    tuple_case('all_to_all_tuple_reversed_group', 's32',
               [[ints('s32', [1, 2]) for _ in range(2)] for _ in range(2)],
               [[1, 0]],
               notes=['replica 1 is member 0: it gets operand 0 of both'])


def gen_async_collectives():
    """all-gather-start/-done, collective-permute-start/-done,
    all-reduce-start/-done: run synchronously, the same values as the
    synchronous ops (numpy)."""
    g = 'collective'
    a = [V('f32', [1.5, -2]), V('f32', [3, 4.25]), V('f32', [-1, 8])]
    # all-gather-start: (operand, result); -done: the result
    e = Comp('main', entry=True)
    p = e.param(S('f32', 2))
    st = e.op('(f32[2], f32[4])', 'all-gather-start(%s), channel_id=1, '
              'replica_groups={{0,1}}, dimensions={0}' % p, 'ags')
    e.root(S('f32', 4), 'all-gather-done(%s)' % st, 'agd')
    add_case(g, 'all_gather_start_done', 'numpy',
             module('all_gather_start_done', e), [], None,
             replica_inputs=[[a[0]], [a[1]]],
             replica_expects=[V('f32', np.concatenate([a[0].a, a[1].a]))] * 2,
             notes=['the async pair runs synchronously'])
    # collective-permute-start: (operand, result, u32[], u32[])
    e = Comp('main', entry=True)
    p = e.param(S('f32', 2))
    st = e.op('(f32[2], f32[2], u32[], u32[])', 'collective-permute-start(%s), '
              'channel_id=2, source_target_pairs={{0,1},{1,2}}' % p, 'cps')
    e.root(S('f32', 2), 'collective-permute-done(%s)' % st, 'cpd')
    add_case(g, 'collective_permute_start_done', 'numpy',
             module('collective_permute_start_done', e), [], None,
             replica_inputs=[[v] for v in a],
             replica_expects=[V('f32', np.zeros(2)), a[0], a[1]],
             notes=['replica 0 is no target: zeros'])
    # all-reduce-start/-done: all-reduce's result
    c = add_comp('f32')
    e = Comp('main', entry=True)
    p = e.param(S('f32', 2))
    st = e.op(S('f32', 2), 'all-reduce-start(%s), replica_groups={{0,1,2}}, '
              'to_apply=%%add_f32' % p, 'ars')
    e.root(S('f32', 2), 'all-reduce-done(%s)' % st, 'ard')
    add_case(g, 'all_reduce_start_done', 'numpy',
             module('all_reduce_start_done', e, c), [], None,
             replica_inputs=[[v] for v in a],
             replica_expects=[V('f32', a[0].a + a[1].a + a[2].a)] * 3)
    # reduce-scatter-start/-done: no opcodes of their own in XLA; its parser
    # reads them as the async wrapper of a reduce-scatter, ((operand),
    # result), and so does Plexa's.
    b = [V('f32', [1.5, -2, 0.25, 8]), V('f32', [3, 4.25, -1, 0.5])]
    e = Comp('main', entry=True)
    p = e.param(S('f32', 4))
    st = e.op('((f32[4]), f32[2])', 'reduce-scatter-start(%s), channel_id=3, '
              'replica_groups={{0,1}}, dimensions={0}, to_apply=%%add_f32'
              % p, 'rss')
    e.root(S('f32', 2), 'reduce-scatter-done(%s)' % st, 'rsd')
    total = b[0].a + b[1].a
    add_case(g, 'reduce_scatter_start_done', 'numpy',
             module('reduce_scatter_start_done', e, c), [], None,
             replica_inputs=[[v] for v in b],
             replica_expects=[V('f32', total[:2]), V('f32', total[2:])],
             notes=['XLA\'s <op>-start/-done sugar for the async wrapper of '
                    'reduce-scatter; replica r keeps piece r of the sum'])


def gen_async_misc():
    """XLA's async wrappers (async-start/-update/-done), copy-start/-done,
    add-dependency, domain, rng-get-and-update-state and the annotation
    custom-calls: run synchronously (numpy, or by hand)."""
    g = 'async'
    rng = np.random.RandomState(1414)
    # async-start(x, y) wrapping a multiply; an update; the done.
    x = V('f32', rng.uniform(-4, 4, size=(2, 3)).astype(np.float32))
    y = V('f32', rng.uniform(-4, 4, size=(2, 3)).astype(np.float32))
    w = Comp('wrapped_multiply')
    a = w.param(S('f32', 2, 3), 'a')
    b = w.param(S('f32', 2, 3), 'b')
    w.root(S('f32', 2, 3), 'multiply(%s, %s)' % (a, b), 'm')
    e = Comp('main', entry=True)
    p0 = e.param(S('f32', 2, 3))
    p1 = e.param(S('f32', 2, 3))
    st = '((f32[2,3], f32[2,3]), f32[2,3], s32[])'
    s_ = e.op(st, 'async-start(%s, %s), calls=%%wrapped_multiply' % (p0, p1),
              'start')
    u = e.op(st, 'async-update(%s)' % s_, 'update')
    e.root(S('f32', 2, 3), 'async-done(%s)' % u, 'done')
    add_case(g, 'async_wrapped_multiply', 'numpy',
             module('async_wrapped_multiply', e, w), [x, y],
             V('f32', x.a * y.a),
             notes=['the async chain runs synchronously: the wrapped '
                    'computation on the start\'s operands'])
    # async-start wrapping a reduce (calling add) on another thread.
    z = V('s32', rng.randint(-50, 50, size=(3, 4)).astype(np.int32))
    c = add_comp('s32')
    w = Comp('wrapped_reduce')
    a = w.param(S('s32', 3, 4), 'a')
    zero = w.op(S('s32'), 'constant(0)', 'zero')
    w.root(S('s32', 3), 'reduce(%s, %s), dimensions={1}, to_apply=%%add_s32'
           % (a, zero), 'r')
    e = Comp('main', entry=True)
    p0 = e.param(S('s32', 3, 4))
    st = '((s32[3,4]), s32[3], u32[], s32[])'
    s_ = e.op(st, 'async-start(%s), async_execution_thread="parallel_thread", '
              'calls=%%wrapped_reduce' % p0, 'start')
    u1 = e.op(st, 'async-update(%s)' % s_, 'update')
    u2 = e.op(st, 'async-update(%s)' % u1, 'update')
    e.root(S('s32', 3), 'async-done(%s)' % u2, 'done')
    add_case(g, 'async_wrapped_reduce_thread', 'numpy',
             module('async_wrapped_reduce_thread', e, c, w), [z],
             V('s32', z.a.sum(axis=1, dtype=np.int32)),
             notes=['async_execution_thread is kept and changes nothing'])
    # copy-start / copy-done: (destination, source, u32[]); the done is
    # the destination, a copy.
    x = V('f32', rng.uniform(-4, 4, size=(2, 3)).astype(np.float32))
    e = Comp('main', entry=True)
    p0 = e.param(S('f32', 2, 3))
    cs = e.op('(f32[2,3], f32[2,3], u32[])',
              'copy-start(%s), cross_program_prefetch_index=0' % p0, 'cs')
    cd = e.op(S('f32', 2, 3), 'copy-done(%s)' % cs, 'cd')
    e.root(S('f32', 2, 3), 'negate(%s)' % cd, 'neg')
    add_case(g, 'copy_start_done', 'numpy', module('copy_start_done', e),
             [x], V('f32', -x.a))
    # add-dependency(x, token) is x; domain(x) is x.
    x = V('f32', rng.uniform(-4, 4, size=(4,)).astype(np.float32))
    e = Comp('main', entry=True)
    p0 = e.param(S('f32', 4))
    one = e.op(S('f32'), 'constant(1)', 'one')
    b1 = e.op(S('f32', 4), 'broadcast(%s), dimensions={}' % one, 'ones')
    t = e.op('token[]', 'after-all()', 'tok')
    ad = e.op(S('f32', 4), 'add-dependency(%s, %s)' % (p0, t), 'dep')
    dm = e.op(S('f32', 4), 'domain(%s), domain={kind="sharding", '
              'entry={maximal device=0}, exit={replicated}}' % ad, 'dom')
    e.root(S('f32', 4), 'add(%s, %s)' % (dm, b1), 'sum')
    add_case(g, 'add_dependency_domain', 'numpy',
             module('add_dependency_domain', e), [x],
             V('f32', x.a + np.float32(1)),
             notes=['add-dependency and domain are identities'])
    # rng-get-and-update-state: XLA's first state 0x7012395 (its CPU
    # thunk's kRngStateInitialValue), advanced by delta per execution and
    # kept per instruction. A loop of 3 iterations with delta=10 reads
    # 0x7012395 + 20 last; another instruction reads the first state.
    first = 0x7012395
    cond = Comp('cond')
    cs_ = cond.param('(s32[], u64[2])', 's')
    i = cond.op(S('s32'), 'get-tuple-element(%s), index=0' % cs_, 'i')
    n = cond.op(S('s32'), 'constant(3)', 'n')
    cond.root(S('pred'), 'compare(%s, %s), direction=LT' % (i, n), 'lt')
    body = Comp('body')
    bs = body.param('(s32[], u64[2])', 's')
    i = body.op(S('s32'), 'get-tuple-element(%s), index=0' % bs, 'i')
    one = body.op(S('s32'), 'constant(1)', 'one')
    nxt = body.op(S('s32'), 'add(%s, %s)' % (i, one), 'next')
    st_ = body.op(S('u64', 2), 'rng-get-and-update-state(), delta=10',
                  'state')
    body.root('(s32[], u64[2])', 'tuple(%s, %s)' % (nxt, st_), 't')
    e = Comp('main', entry=True)
    zero = e.op(S('s32'), 'constant(0)', 'zero')
    init = e.op(S('u64', 2), 'constant({0, 0})', 'init')
    t0 = e.op('(s32[], u64[2])', 'tuple(%s, %s)' % (zero, init), 't')
    wl = e.op('(s32[], u64[2])', 'while(%s), condition=%%cond, body=%%body'
              % t0, 'w')
    last = e.op(S('u64', 2), 'get-tuple-element(%s), index=1' % wl, 'last')
    other = e.op(S('u64', 2), 'rng-get-and-update-state(), delta=-5',
                 'other')
    e.root('(u64[2], u64[2])', 'tuple(%s, %s)' % (last, other), 'r')
    add_case(g, 'rng_get_and_update_state', 'hand',
             module('rng_get_and_update_state', e, cond, body), [],
             Tup(V('u64', [first + 20, 0]), V('u64', [first, 0])),
             notes=['the state starts at XLA\'s 0x7012395 (= %d) per '
                    'instruction and advances by delta per execution'
                    % first])
    # XLA's annotation custom-calls: identities on one device.
    x = V('f32', rng.uniform(-4, 4, size=(2, 4)).astype(np.float32))
    e = Comp('main', entry=True)
    v = e.param(S('f32', 2, 4))
    for target in ['Sharding', 'SPMDFullToShardShape', 'MoveToHost',
                   'MoveToDevice', 'annotate_device_placement',
                   'ShardBarrierFrom', 'ShardBarrierTo',
                   'SPMDShardToFullShape']:
        v = e.op(S('f32', 2, 4), 'custom-call(%s), custom_call_target="%s"'
                 % (v, target), 'cc')
    e.root(S('f32', 2, 4), 'multiply(%s, %s)' % (v, v), 'sq')
    add_case(g, 'annotation_custom_calls', 'numpy',
             module('annotation_custom_calls', e), [x], V('f32', x.a * x.a),
             notes=['Sharding, SPMD*, MoveTo*, annotate_device_placement and '
                    'ShardBarrier* are identities on one device'])
    # XLA's sugar: sort-start names the wrapped op and carries its
    # attributes (the parser builds the generic wrapper).
    z = V('s32', rng.randint(-50, 50, size=(5,)).astype(np.int32))
    c = scalar_comp('lt_s32', 'compare', 's32', ', direction=LT')
    e = Comp('main', entry=True)
    p0 = e.param(S('s32', 5))
    st = '((s32[5]), s32[5], s32[])'
    s_ = e.op(st, 'sort-start(%s), dimensions={0}, to_apply=%%lt_s32' % p0,
              'start')
    e.root(S('s32', 5), 'sort-done(%s)' % s_, 'done')
    add_case(g, 'async_sugar_sort', 'numpy',
             module('async_sugar_sort', e, c), [z], V('s32', np.sort(z.a)),
             notes=['<op>-start/-done: XLA\'s sugar for the async wrapper '
                    'of <op>'])


def one_collective_case(g, name, t, per_replica, op, expects, notes):
    """A module whose root is `op` (with %s for the parameter) of one
    parameter, each replica's input and expected output given."""
    x = per_replica[0].a
    e = Comp('main', entry=True)
    p = e.param(S(t, *x.shape))
    e.root(S(t, *x.shape), op % p, 'r')
    add_case(g, name, 'numpy', module(name, e), [], None,
             replica_inputs=[[v] for v in per_replica],
             replica_expects=expects, notes=notes)


def gen_collective_permute():
    g = 'collective'
    rng = np.random.RandomState(1402)

    def permute_case(name, t, per_replica, pairs, notes=()):
        x = per_replica[0].a
        expects = []
        for r in range(len(per_replica)):
            srcs = [s_ for s_, t_ in pairs if t_ == r]
            expects.append(V(t, per_replica[srcs[0]].a if srcs
                             else np.zeros_like(x)))
        one_collective_case(
            g, name, t, per_replica,
            'collective-permute(%%s), channel_id=1, source_target_pairs={%s}'
            % ','.join('{%d,%d}' % st for st in pairs), expects, notes)

    permute_case('collective_permute_swap', 'f32',
                 [V('f32', [1.5, -2]), V('f32', [3, 4.25])], [(0, 1), (1, 0)])
    permute_case('collective_permute_ring', 's32',
                 [V('s32', rng.randint(-50, 50, size=[2, 3]))
                  for _ in range(4)], [(0, 1), (1, 2), (2, 3), (3, 0)],
                 notes=['each replica sends to the next, 3 to 0'])
    permute_case('collective_permute_one_receives_nothing', 'f32',
                 [V('f32', rng.randint(-9, 9, size=[3])) for _ in range(3)],
                 [(0, 2), (2, 1)],
                 notes=['replica 0 is no target: its result is zeros; '
                        'replica 1 sends to nobody'])
    permute_case('collective_permute_self_pair', 'u8',
                 [V('u8', [7, 200]), V('u8', [9, 1])], [(1, 1)],
                 notes=['replica 1 keeps its own operand; replica 0 gets '
                        'zeros'])


def gen_send_recv():
    """send/recv/send-done/recv-done (XLA's channels), run synchronously:
    across replicas with _xla_send_recv_source_target_pairs they are a
    collective-permute in two halves; without, the recv of the same program
    gets the send's data; is_host_transfer goes through the feed queues.
    Expected values from numpy."""
    g = 'collective'
    rng = np.random.RandomState(1415)
    tup = '(%s, u32[], token[])'

    def pairs_attr(pairs):
        return (', frontend_attributes={_xla_send_recv_source_target_pairs='
                '"{%s}"}' % ','.join('{%d,%d}' % st for st in pairs))

    def exchange(e, data, shape, channel, pairs, recv_first=True):
        """recv, send, recv-done, send-done of one channel; returns the
        received value."""
        attrs = 'channel_id=%d' % channel
        extra = pairs_attr(pairs) if pairs is not None else ''
        tok = e.op('token[]', 'after-all()', 'token')
        ops = []
        def recv():
            return e.op(tup % shape, 'recv(%s), %s%s' % (tok, attrs, extra),
                        'recv')
        def send():
            return e.op(tup % shape, 'send(%s, %s), %s%s'
                        % (data, tok, attrs, extra), 'send')
        if recv_first:
            r = recv()
            s_ = send()
        else:
            s_ = send()
            r = recv()
        rd = e.op('(%s, token[])' % shape, 'recv-done(%s), %s' % (r, attrs),
                  'recv_done')
        e.op('token[]', 'send-done(%s), %s' % (s_, attrs), 'send_done')
        return e.op(shape, 'get-tuple-element(%s), index=0' % rd, 'received')

    def permuted(per_replica, pairs):
        out = []
        for r in range(len(per_replica)):
            srcs = [s_ for s_, t_ in pairs if t_ == r]
            out.append(per_replica[srcs[0]] if srcs
                       else np.zeros_like(per_replica[0]))
        return out

    # A ring across 4 replicas: replica i sends to (i + 1) % 4.
    ring = [(0, 1), (1, 2), (2, 3), (3, 0)]
    xs = [rng.randint(-50, 50, size=[2, 3]) for _ in range(4)]
    e = Comp('main', entry=True)
    p = e.param(S('s32', 2, 3))
    got = exchange(e, p, S('s32', 2, 3), 1, ring)
    e.root(S('s32', 2, 3), 'copy(%s)' % got, 'r')
    add_case(g, 'send_recv_ring_four_replicas', 'numpy',
             module('send_recv_ring_four_replicas', e), [], None,
             replica_inputs=[[V('s32', x)] for x in xs],
             replica_expects=[V('s32', v) for v in permuted(xs, ring)],
             notes=['replica i sends to (i + 1) % 4 and receives from '
                    '(i + 3) % 4: a collective-permute in two halves'])

    # Only replica 0 sends, to 2: replicas 0 and 1 receive zeros.
    one_way = [(0, 2)]
    xs = [rng.uniform(-4, 4, size=[3]).astype(np.float32) for _ in range(3)]
    e = Comp('main', entry=True)
    p = e.param(S('f32', 3))
    got = exchange(e, p, S('f32', 3), 7, one_way, recv_first=False)
    e.root(S('f32', 3), 'copy(%s)' % got, 'r')
    add_case(g, 'send_recv_no_target_receives_zeros', 'numpy',
             module('send_recv_no_target_receives_zeros', e), [], None,
             replica_inputs=[[V('f32', x)] for x in xs],
             replica_expects=[V('f32', v) for v in permuted(xs, one_way)],
             notes=['a replica that is no pair\'s target receives zeros, '
                    'as collective-permute'])

    # Within one replica, no pairs: the recv gets what the send sent; the
    # recv-done comes before the send in the text.
    # Quarters: x * x - x is exact in f32, whatever the backend fuses.
    x = (rng.randint(-16, 16, size=[2, 2]) / 4.0).astype(np.float32)
    e = Comp('main', entry=True)
    p = e.param(S('f32', 2, 2))
    tok = e.op('token[]', 'after-all()', 'token')
    r = e.op(tup % S('f32', 2, 2), 'recv(%s), channel_id=4' % tok, 'recv')
    rd = e.op('(%s, token[])' % S('f32', 2, 2),
              'recv-done(%s), channel_id=4' % r, 'recv_done')
    got = e.op(S('f32', 2, 2), 'get-tuple-element(%s), index=0' % rd,
               'received')
    y = e.op(S('f32', 2, 2), 'multiply(%s, %s)' % (p, p), 'square')
    s_ = e.op(tup % S('f32', 2, 2), 'send(%s, %s), channel_id=4' % (y, tok),
              'send')
    e.op('token[]', 'send-done(%s), channel_id=4' % s_, 'send_done')
    e.root(S('f32', 2, 2), 'subtract(%s, %s)' % (got, p), 'r')
    add_case(g, 'send_recv_pair_within_one_replica', 'numpy',
             module('send_recv_pair_within_one_replica', e),
             [V('f32', x)], V('f32', x * x - x),
             notes=['no _xla_send_recv_source_target_pairs: the recv of '
                    'the same program receives the send\'s data (x * x); '
                    'the text lists the recv-done before the send'])

    # A send/recv pair in a while body, across 2 replicas: each of 3
    # iterations sends x + i to the other replica and accumulates what
    # it receives.
    n = 3
    xs = [rng.randint(-20, 20, size=[4]) for _ in range(2)]
    st = '(s32[], %s)' % S('s32', 4)
    cond = Comp('cond')
    cs = cond.param(st, 's')
    ci = cond.op(S('s32'), 'get-tuple-element(%s), index=0' % cs, 'i')
    cn = cond.op(S('s32'), 'constant(%d)' % n, 'n')
    cond.root(S('pred'), 'compare(%s, %s), direction=LT' % (ci, cn), 'lt')
    body = Comp('body')
    bs = body.param(st, 's')
    bi = body.op(S('s32'), 'get-tuple-element(%s), index=0' % bs, 'i')
    bacc = body.op(S('s32', 4), 'get-tuple-element(%s), index=1' % bs, 'acc')
    bib = body.op(S('s32', 4), 'broadcast(%s), dimensions={}' % bi, 'ib')
    bv = body.op(S('s32', 4), 'add(%s, %s)' % (bacc, bib), 'v')
    got = exchange(body, bv, S('s32', 4), 2, [(0, 1), (1, 0)])
    one = body.op(S('s32'), 'constant(1)', 'one')
    bi2 = body.op(S('s32'), 'add(%s, %s)' % (bi, one), 'next')
    body.root(st, 'tuple(%s, %s)' % (bi2, got), 'out')
    e = Comp('main', entry=True)
    p = e.param(S('s32', 4))
    z = e.op(S('s32'), 'constant(0)', 'zero')
    init = e.op(st, 'tuple(%s, %s)' % (z, p), 'init')
    w = e.op(st, 'while(%s), condition=%%cond, body=%%body' % init, 'loop')
    e.root(S('s32', 4), 'get-tuple-element(%s), index=1' % w, 'r')
    # numpy: the state of replica r after each iteration is what the other
    # replica held plus i.
    accs = [x.copy() for x in xs]
    for i in range(n):
        sent = [a + i for a in accs]
        accs = [sent[1], sent[0]]
    add_case(g, 'send_recv_in_while_loop', 'numpy',
             module('send_recv_in_while_loop', e, cond, body), [], None,
             replica_inputs=[[V('s32', x)] for x in xs],
             replica_expects=[V('s32', a) for a in accs],
             notes=['each iteration sends acc + i to the other replica and '
                    'continues with what it receives'])

    # is_host_transfer=true: send-done to the outfeed queue, recv-done from
    # the infeed queue.
    e = Comp('main', entry=True)
    p = e.param(S('s32', 3))
    tok = e.op('token[]', 'after-all()', 'token')
    s_ = e.op(tup % S('s32', 3), 'send(%s, %s), channel_id=1, '
              'is_host_transfer=true' % (p, tok), 'send')
    sd = e.op('token[]', 'send-done(%s), channel_id=1, is_host_transfer=true'
              % s_, 'send_done')
    r = e.op(tup % S('s32', 2), 'recv(%s), channel_id=2, is_host_transfer=true'
             % sd, 'recv')
    rd = e.op('(%s, token[])' % S('s32', 2),
              'recv-done(%s), channel_id=2, is_host_transfer=true' % r,
              'recv_done')
    got = e.op(S('s32', 2), 'get-tuple-element(%s), index=0' % rd, 'received')
    e.root(S('s32', 2), 'negate(%s)' % got, 'r')
    add_case('feeds', 'send_recv_host_transfer', 'hand',
             module('send_recv_host_transfer', e), [V('s32', [1, -2, 3])],
             V('s32', [-4, 5]), infeed=[V('s32', [4, -5])],
             outfeed=[V('s32', [1, -2, 3])],
             notes=['is_host_transfer=true: the send goes to the outfeed '
                    'queue, the recv reads the infeed queue'])


def stochastic_round(x, random, to_t, random_bits):
    """XLA's evaluator (HloEvaluator::HandleStochasticConvert): NaN -> 0,
    +-inf and values beyond the range saturate; otherwise |x| = t + f with
    t = floor(|x|), and |x| rounds up to t + 1 when random is below the
    fraction as a fixed-point number of the random operand's width,
    trunc(f * 2^w); the sign is put back."""
    lo, hi = int_min(to_t), int_max(to_t)
    x = float(x)
    if math.isnan(x):
        return 0
    if math.isinf(x):
        return lo if x < 0 else hi
    if x >= hi:
        return hi
    if x <= lo:
        return lo
    a = abs(x)
    t = math.floor(a)
    f = a - t
    up = f != 0.0 and int(random) < int(math.ldexp(f, random_bits))
    r = t + (1 if up else 0)
    r = -r if math.copysign(1.0, x) < 0 else r
    return max(lo, min(hi, r))


def gen_stochastic_convert():
    g = 'convert'
    rng = np.random.RandomState(1404)
    widths = {'f16': 16, 'bf16': 16, 'f32': 32, 'f64': 64}

    def case(name, from_t, to_t, xs, randoms, notes=()):
        rt = 'u%d' % widths[from_t]
        x = V(from_t, xs)
        r = V(rt, randoms)
        out = V(to_t, np.array(
            [stochastic_round(v, b, to_t, widths[from_t])
             for v, b in zip(x.a.ravel(), r.a.ravel())],
            dtype=object).reshape(x.a.shape))
        simple_binary(g, name, 'stochastic-convert', x, r, out, notes=notes)

    # Each fraction next to its threshold trunc(f * 2^w): random one below
    # rounds up, random equal rounds down.
    q = 1 << 30
    case('stochastic_convert_f32_s32_thresholds', 'f32', 's32',
         [2.25, 2.25, -2.75, -2.75, 7, float('nan'), float('inf'),
          float('-inf'), 3e9, -3e9, -0.5, 0.0],
         [q - 1, q, 0, (1 << 32) - 1, 0, 0, 0, 0, 0, 0, 0, 0],
         notes=['fraction 0.25 -> 2^30: random 2^30 - 1 rounds up, 2^30 '
                'down; NaN -> 0; infinities and 3e9 saturate'])
    xs = rng.uniform(-100, 100, size=[3, 5]).astype(np.float32)
    case('stochastic_convert_f32_s16_random', 'f32', 's16', xs,
         rng.randint(0, 1 << 32, size=[3, 5], dtype=np.uint64),
         notes=['random values and bits'])
    case('stochastic_convert_f16_s8', 'f16', 's8',
         [100.5, 100.5, -127.5, -127.5, 127.5, -130, 0.25, -0.25],
         [32767, 32768, 0, 65535, 0, 0, 16383, 16383],
         notes=['-127.5 rounds to -128 or -127; 127.5 and -130 saturate'])
    case('stochastic_convert_bf16_s32', 'bf16', 's32',
         [1.5, 1.5, -3.25, -3.25, 1e10, 0.0078125],
         [32767, 32768, 16383, 16384, 0, 511],
         notes=['bf16 with 16 random bits; 0.0078125 = 2^-7 -> 512'])
    case('stochastic_convert_f64_s64', 'f64', 's64',
         [0.5, 0.5, -1.75, 1e19, -1e19, 4503599627370495.5],
         [(1 << 63) - 1, 1 << 63, (3 << 62) - 1, 0, 0, (1 << 63) - 1],
         notes=['64 random bits; 2^52 - 0.5 rounds up'])


def gen_collective_broadcast():
    g = 'collective'
    rng = np.random.RandomState(1403)

    def broadcast_case(name, t, per_replica, groups, notes=()):
        expects = [None] * len(per_replica)
        for grp in groups:
            for r in grp:
                expects[r] = V(t, per_replica[grp[0]].a)
        one_collective_case(
            g, name, t, per_replica,
            'collective-broadcast(%%s), channel_id=1, replica_groups={%s}'
            % ','.join('{%s}' % ','.join(str(r) for r in grp)
                       for grp in groups), expects, notes)

    broadcast_case('collective_broadcast_two', 'f32',
                   [V('f32', [1.5, -2, 0.25]), V('f32', [3, 4.25, -7])],
                   [[0, 1]], notes=['replica 0 broadcasts to replica 1'])
    broadcast_case('collective_broadcast_two_groups', 's32',
                   [V('s32', rng.randint(-50, 50, size=[2, 3]))
                    for _ in range(4)], [[2, 0], [1, 3]],
                   notes=['the first member of each group is its root: '
                          'replica 2 for {2,0}, replica 1 for {1,3}'])
    broadcast_case('collective_broadcast_singletons', 'u8',
                   [V('u8', [7, 200]), V('u8', [9, 1])], [[0], [1]],
                   notes=['groups of one: each replica keeps its operand'])


# ----------------------------------------------------------------------------
# rng: no deterministic values, so the cases check ranges and moments;
# rng-bit-generator: exact bits (gen_rng_bit_generator.py)
# ----------------------------------------------------------------------------

def gen_rng():
    g = 'rng'

    def rng_case(name, t, dims, a, b, dist, check, notes=()):
        e = Comp('main', entry=True)
        ca = e.op(S(t), 'constant(%s)' % fmt_scalar(t, make(t, a)[()]), 'a')
        cb = e.op(S(t), 'constant(%s)' % fmt_scalar(t, make(t, b)[()]), 'b')
        e.root(shape_str(t, dims), 'rng(%s, %s), distribution=%s' %
               (ca, cb, dist), 'r')
        add_case(g, name, 'hand (distribution properties)', module(name, e),
                 [], None, checks=['%s %s' % (shape_str(t, dims), check)],
                 notes=notes)
    rng_case('uniform_f32_unit', 'f32', [256], 0, 1, 'rng_uniform',
             'range [0, 1)')
    rng_case('uniform_f32_2d', 'f32', [16, 16], 2, 4, 'rng_uniform',
             'range [2, 4)')
    rng_case('uniform_s32', 's32', [200], -5, 5, 'rng_uniform',
             'range [-5, 5)')
    rng_case('uniform_u32', 'u32', [100], 10, 20, 'rng_uniform',
             'range [10, 20)')
    rng_case('uniform_f64_moments', 'f64', [4096], -1, 1, 'rng_uniform',
             'moments mean=0 std=0.57735 tol=0.05',
             notes=['uniform on [-1,1): mean 0, std 1/sqrt(3)'])
    rng_case('normal_f32_moments', 'f32', [4096], 0, 1, 'rng_normal',
             'moments mean=0 std=1 tol=0.1',
             notes=['4096 samples: the standard error of the mean is '
                    '1/64, tol is more than 6 of them'])
    rng_case('normal_f32_shifted', 'f32', [64, 64], 3, 0.5, 'rng_normal',
             'moments mean=3 std=0.5 tol=0.05')
    gen_rng_bit_generator(g)


def gen_rng_bit_generator(g):
    """rng-bit-generator: exact bits. The expected values come from
    gen_rng_bit_generator.py, an independent numpy implementation of XLA's
    expansion that reproduces Random123's known answers and the values an
    XLA-based front end (r-xla/anvil) publishes; see its docstring."""
    sys.dont_write_bytecode = True  # no __pycache__ next to the generator
    import gen_rng_bit_generator as ref
    ref.self_check()
    bits_of = {'u8': 8, 's8': 8, 'u16': 16, 's16': 16, 'u32': 32, 's32': 32,
               'u64': 64, 's64': 64}

    def draw(alg, state, t, dims):
        new_state, out = ref.rng_bit_generator(alg, state, dims, bits_of[t])
        # Signed results hold the same bits (wrap() reinterprets them).
        data = make(t, [int(v) for v in out.ravel()]).reshape(dims)
        return new_state, V(t, data)

    def case(name, alg, state, t, dims, source, notes=()):
        e = Comp('main', entry=True)
        p = e.param(S('u64', len(state)), 'state')
        result = '(%s, %s)' % (S('u64', len(state)), S(t, *dims))
        e.root(result, 'rng-bit-generator(%s), algorithm=%s' % (p, alg), 'r')
        new_state, v = draw(alg, state, t, dims)
        add_case(g, name, source, module(name, e), [V('u64', state)],
                 Tup(V('u64', new_state), v), notes=notes)

    ref_src = 'gen_rng_bit_generator.py (numpy, XLA prng.cc expansion)'
    anvil = ('r-xla/anvil docs of nvl_rng_bit_generator (XLA CPU): THREE_FRY '
             'from {0, 0}, [3,2] gives {{1.7973e9, 2.5791e9}, {1.3515e9, '
             '3.2358e9}, {1.6886e9, 4.2293e9}} and state {0, 3}; exact '
             'values from ' + ref_src)
    case('bit_generator_three_fry_u32_anvil', 'rng_three_fry', [0, 0], 'u32',
         [3, 2], anvil,
         notes=['row i is threefry2x32_20(key 0, counter i); row 0 is '
                'Random123 kat {0x6b200159, 0x99ba4efe}'])
    case('bit_generator_three_fry_s64_anvil', 'rng_three_fry', [1, 2], 's64',
         [2, 2],
         'r-xla/anvil test p_rng_bit_generator (XLA CPU): THREE_FRY from '
         '{1, 2}, 64-bit [2,2]: state {1, 6}, low 32 bits column by column '
         '43444564, 1672743891, -315321645, 2109414752; exact values from ' +
         ref_src,
         notes=['64-bit elements: element i = threefry(key, counter + i) as '
                '(low, high); signed results hold the bits'])
    case('bit_generator_three_fry_u32_odd_dims', 'rng_three_fry',
         [0x0123456789abcdef, 1000], 'u32', [3, 5], ref_src,
         notes=['no even dimension: the first largest (5) is split into '
                'pairs, the half shape [3,3] advances the counter by 9'])
    case('bit_generator_three_fry_u32_rank3', 'rng_three_fry', [7, 99], 'u32',
         [3, 4, 5], ref_src,
         notes=['the first even dimension (4) is split into pairs'])
    case('bit_generator_three_fry_s32_scalar', 'rng_three_fry', [42, 5],
         's32', [], ref_src, notes=['a scalar is word 0 of one block'])
    case('bit_generator_three_fry_u8', 'rng_three_fry', [3, 4], 'u8', [7],
         ref_src, notes=['8-bit elements: the low bits of the 32-bit ones'])
    case('bit_generator_three_fry_s16', 'rng_three_fry', [3, 4], 's16',
         [2, 3], ref_src)
    case('bit_generator_three_fry_u64', 'rng_three_fry',
         [0xdeadbeefcafef00d, 2 ** 64 - 2], 'u64', [5], ref_src,
         notes=['the 64-bit counter wraps'])
    case('bit_generator_three_fry_zero_size', 'rng_three_fry', [1, 2], 'u32',
         [0, 3], ref_src, notes=['no elements: the state does not move'])
    case('bit_generator_philox_u32', 'rng_philox', [0xfedcba9876543210, 77],
         'u32', [2, 5], ref_src,
         notes=['two-word state: the 128-bit counter is (state[1], key)',
                'four 32-bit words per block, in order'])
    case('bit_generator_philox_u64_state3', 'rng_philox', [5, 77, 9], 'u64',
         [5], ref_src, notes=['two 64-bit elements per block'])
    case('bit_generator_philox_s32_carry', 'rng_philox', [1, 2 ** 64 - 2, 41],
         's32', [12], ref_src,
         notes=['the low counter word carries into state[2]'])
    case('bit_generator_philox_u16_wrap', 'rng_philox', [1, 2 ** 64 - 1],
         'u16', [9], ref_src,
         notes=['two-word state: the carry goes into the key half of the '
                'counter inside the call; the new state keeps the low word'])
    case('bit_generator_default_is_philox', 'rng_default', [9, 8, 7], 'u32',
         [4, 4], ref_src,
         notes=["rng_default is rng_philox, as on XLA's CPU and GPU backends "
                '(RngBitGeneratorExpander(RNG_PHILOX))'])

    # The state threaded through two generators.
    name = 'bit_generator_chained'
    e = Comp('main', entry=True)
    p = e.param(S('u64', 2), 'state')
    a = e.op('(u64[2], u32[4])',
             'rng-bit-generator(%s), algorithm=rng_philox' % p, 'a')
    s1 = e.op(S('u64', 2), 'get-tuple-element(%s), index=0' % a, 's1')
    b = e.op('(u64[2], u32[4])',
             'rng-bit-generator(%s), algorithm=rng_philox' % s1, 'b')
    s2 = e.op(S('u64', 2), 'get-tuple-element(%s), index=0' % b, 's2')
    a1 = e.op(S('u32', 4), 'get-tuple-element(%s), index=1' % a, 'a1')
    b1 = e.op(S('u32', 4), 'get-tuple-element(%s), index=1' % b, 'b1')
    e.root('(u64[2], u32[4], u32[4])', 'tuple(%s, %s, %s)' % (s2, a1, b1),
           't')
    st1, va = draw('rng_philox', [3, 10], 'u32', [4])
    st2, vb = draw('rng_philox', st1, 'u32', [4])
    add_case(g, name, ref_src, module(name, e), [V('u64', [3, 10])],
             Tup(V('u64', st2), va, vb),
             notes=['the second generator starts from the first one\'s '
                    'new state'])


# ----------------------------------------------------------------------------
# layout: non-default layouts on parameters and results
# ----------------------------------------------------------------------------

def gen_layout():
    g = 'layout'

    def case(name, ins, out_v, expr_fn, notes=(), tol=None):
        e = Comp('main', entry=True)
        ps = [e.param(v.shape()) for v in ins]
        e.root(out_v.shape(), expr_fn(*ps), 'r')
        add_case(g, name, 'numpy', module(name, e), ins, out_v, tol,
                 notes=notes)
    a3 = rnd_int((2, 3, 4), -50, 50)
    b3 = rnd_int((2, 3, 4), -50, 50)
    case('add_three_layouts', [V('s32', a3, [0, 1, 2]), V('s32', b3,
                                                          [1, 2, 0])],
         V('s32', a3 + b3, [2, 0, 1]), lambda x, y: 'add(%s, %s)' % (x, y),
         notes=['operands and result in three different layouts'])
    m = rnd_int((3, 4), -9, 9)
    case('copy_row_to_column_major', [V('f32', m, [1, 0])],
         V('f32', m, [0, 1]), lambda x: 'copy(%s)' % x,
         notes=['copy changes the layout, not the values'])
    case('copy_column_to_row_major', [V('f32', m, [0, 1])],
         V('f32', m, [1, 0]), lambda x: 'copy(%s)' % x)
    case('copy_3d_layout_021', [V('s16', a3, [0, 2, 1])],
         V('s16', a3, [2, 1, 0]), lambda x: 'copy(%s)' % x)
    case('transpose_into_layout', [V('f32', m, [1, 0])],
         V('f32', m.T, [0, 1]),
         lambda x: 'transpose(%s), dimensions={1,0}' % x,
         notes=['this transpose is a bitcast: the bytes do not move'])
    x = V('f32', rnd((3, 2)), [0, 1])
    case('exp_column_major', [x],
         V('f32', float_map('f32', np.exp, x), [0, 1]),
         lambda v: 'exponential(%s)' % v, tol=TOL_TRANS_F32)
    p = rnd_int((2, 3), 0, 2).astype(bool)
    case('select_mixed_layouts', [V('pred', p, [0, 1]),
                                  V('s32', m[:2, :3], [1, 0]),
                                  V('s32', -m[:2, :3], [0, 1])],
         V('s32', np.where(p, m[:2, :3], -m[:2, :3]), [0, 1]),
         lambda a, b, c: 'select(%s, %s, %s)' % (a, b, c))
    case('slice_column_major', [V('f32', m, [0, 1])],
         V('f32', m[1:3, 0:4:2], [0, 1]),
         lambda v: 'slice(%s), slice={[1:3], [0:4:2]}' % v)
    x4 = rnd_int((2, 3, 2, 4), -9, 9)
    case('negate_4d_layout_1320', [V('s32', x4, [1, 3, 2, 0])],
         V('s32', -x4, [1, 3, 2, 0]), lambda v: 'negate(%s)' % v)
    case('convert_with_layout_change', [V('s32', m, [0, 1])],
         V('f32', m, [1, 0]), lambda v: 'convert(%s)' % v)
    upd = rnd_int((2, 2), 100, 200)
    r = m.copy()
    r[1:3, 2:4] = upd
    e = Comp('main', entry=True)
    pa = e.param(S('s32', 3, 4, layout=[0, 1]))
    pu = e.param(S('s32', 2, 2, layout=[1, 0]))
    i1 = e.op(S('s32'), 'constant(1)', 'i1')
    i2 = e.op(S('s32'), 'constant(2)', 'i2')
    e.root(S('s32', 3, 4, layout=[0, 1]), 'dynamic-update-slice(%s, %s, %s, '
           '%s)' % (pa, pu, i1, i2), 'r')
    add_case(g, 'dynamic_update_slice_column_major', 'numpy',
             module('dynamic_update_slice_column_major', e),
             [V('s32', m, [0, 1]), V('s32', upd, [1, 0])],
             V('s32', r, [0, 1]))
    t = rnd_int((5, 3), -9, 9).astype(np.float32)
    ind = np.array([4, 0, 2])
    e = Comp('main', entry=True)
    pt = e.param(S('f32', 5, 3, layout=[0, 1]))
    pi = e.param(S('s32', 3))
    e.root(S('f32', 3, 3, layout=[0, 1]), 'gather(%s, %s), offset_dims={1}, '
           'collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1,'
           ' slice_sizes={1,3}' % (pt, pi), 'r')
    add_case(g, 'gather_column_major', 'numpy',
             module('gather_column_major', e),
             [V('f32', t, [0, 1]), V('s32', ind)], V('f32', t[ind], [0, 1]))
    e = Comp('main', entry=True)
    p0 = e.param(S('f32', 2, 2, layout=[0, 1]))
    p1 = e.param(S('s32', 3))
    e.root('(s32[3], f32[2,2]{0,1})', 'tuple(%s, %s)' % (p1, p0), 'r')
    mm = np.array([[1, 2], [3, 4]], np.float32)
    add_case(g, 'tuple_with_layouts', 'hand', module('tuple_with_layouts', e),
             [V('f32', mm, [0, 1]), V('s32', [7, 8, 9])],
             Tup(V('s32', [7, 8, 9]), V('f32', mm, [0, 1])))
    xr = rnd_int((4, 3), -9, 9).astype(np.float32)
    c = add_comp('f32')
    e = Comp('main', entry=True)
    p = e.param(S('f32', 4, 3, layout=[0, 1]))
    z = e.op(S('f32'), 'constant(0)', 'zero')
    e.root(S('f32', 3, 2, layout=[0, 1]), 'reduce-window(%s, %s), '
           'window={size=2x2 stride=1x1}, to_apply=%%add_f32' % (p, z), 'r')
    rw = xr[:-1, :-1] + xr[1:, :-1] + xr[:-1, 1:] + xr[1:, 1:]
    add_case(g, 'reduce_window_column_major', 'numpy',
             module('reduce_window_column_major', e, c),
             [V('f32', xr, [0, 1])], V('f32', rw, [0, 1]))


# ----------------------------------------------------------------------------
# feeds: infeed / outfeed (need a host queue; see skips.txt)
# ----------------------------------------------------------------------------

def gen_feeds():
    g = 'feeds'
    e = Comp('main', entry=True)
    tok = e.op('token[]', 'after-all()', 'token')
    inf = e.op('(f32[3], token[])', 'infeed(%s)' % tok, 'infeed')
    d = e.op(S('f32', 3), 'get-tuple-element(%s), index=0' % inf, 'data')
    e.root(S('f32', 3), 'add(%s, %s)' % (d, d), 'r')
    add_case(g, 'infeed_array', 'hand', module('infeed_array', e), [],
             V('f32', [2, 4, 6]), infeed=[V('f32', [1, 2, 3])],
             notes=['infeed(token) returns (data, token)'])
    e = Comp('main', entry=True)
    tok = e.op('token[]', 'after-all()', 'token')
    i1 = e.op('(s32[], token[])', 'infeed(%s)' % tok, 'first')
    t1 = e.op('token[]', 'get-tuple-element(%s), index=1' % i1, 'token_1')
    i2 = e.op('(s32[], token[])', 'infeed(%s)' % t1, 'second')
    a = e.op(S('s32'), 'get-tuple-element(%s), index=0' % i1, 'a')
    b = e.op(S('s32'), 'get-tuple-element(%s), index=0' % i2, 'b')
    e.root(S('s32'), 'subtract(%s, %s)' % (a, b), 'r')
    add_case(g, 'infeed_token_ordered', 'hand',
             module('infeed_token_ordered', e), [], V('s32', 7),
             infeed=[V('s32', 10), V('s32', 3)],
             notes=['the token chain orders the two reads (SEMANTICS.md)'])
    e = Comp('main', entry=True)
    p = e.param(S('f32', 2))
    tok = e.op('token[]', 'after-all()', 'token')
    n = e.op(S('f32', 2), 'negate(%s)' % p, 'neg')
    e.op('token[]', 'outfeed(%s, %s), outfeed_shape=f32[2]{0}' % (n, tok),
         'outfeed')
    e.root(S('f32', 2), 'multiply(%s, %s)' % (p, p), 'r')
    add_case(g, 'outfeed_array', 'hand', module('outfeed_array', e),
             [V('f32', [1.5, -2])], V('f32', [2.25, 4]),
             outfeed=[V('f32', [-1.5, 2])])


def gen_fft():
    """fft against numpy.fft (fftn, ifftn, rfftn, irfftn over the innermost
    1 to 3 dimensions), computed in double and rounded to the result type."""
    g = 'fft'
    rng = np.random.RandomState(1414)
    tols = {'c64': tol_str(rtol=1e-5, atol=1e-4),
            'f32': tol_str(rtol=1e-5, atol=1e-4),
            'c128': tol_str(rtol=1e-12, atol=1e-12),
            'f64': tol_str(rtol=1e-12, atol=1e-12)}
    ctype = {'c64': np.complex64, 'c128': np.complex128,
             'f32': np.float32, 'f64': np.float64}

    def rand(t, dims):
        if t in ('c64', 'c128'):
            a = rng.uniform(-4, 4, dims) + 1j * rng.uniform(-4, 4, dims)
        else:
            a = rng.uniform(-4, 4, dims)
        return a.astype(ctype[t])

    def case(name, fft_type, in_t, dims, length, notes=()):
        r = len(length)
        axes = tuple(range(len(dims) - r, len(dims)))
        if fft_type == 'IRFFT':
            # A Hermitian half spectrum: the rfftn of a real array, so the
            # imaginary parts numpy ignores are (nearly) zero anyway.
            real_t = 'f32' if in_t == 'c64' else 'f64'
            full = list(dims[:-r]) + list(length)
            x = np.fft.rfftn(rand(real_t, full).astype(np.float64),
                             axes=axes).astype(ctype[in_t])
        else:
            x = rand(in_t, dims)
        xd = x.astype(np.complex128 if in_t in ('c64', 'c128')
                      else np.float64)
        if fft_type == 'FFT':
            out, out_t = np.fft.fftn(xd, s=length, axes=axes), in_t
        elif fft_type == 'IFFT':
            out, out_t = np.fft.ifftn(xd, s=length, axes=axes), in_t
        elif fft_type == 'RFFT':
            out = np.fft.rfftn(xd, s=length, axes=axes)
            out_t = 'c64' if in_t == 'f32' else 'c128'
        else:
            out = np.fft.irfftn(xd, s=length, axes=axes)
            out_t = 'f32' if in_t == 'c64' else 'f64'
        xv = V(in_t, x)
        ov = V(out_t, out.astype(ctype[out_t]))
        e = Comp('main', entry=True)
        p = e.param(xv.shape())
        e.root(ov.shape(), 'fft(%s), fft_type=%s, fft_length={%s}' %
               (p, fft_type, ','.join(str(n) for n in length)), 'r')
        add_case(g, name, 'numpy', module(name, e), [xv], ov, tols[out_t],
                 notes=list(notes))

    case('fft_c64_8', 'FFT', 'c64', (8,), (8,),
         ['numpy.fft.fft: unnormalized forward transform'])
    case('ifft_c64_8', 'IFFT', 'c64', (8,), (8,),
         ['numpy.fft.ifft: scaled by 1/N'])
    case('fft_c64_6', 'FFT', 'c64', (6,), (6,),
         ['a length that is not a power of two'])
    case('fft_c64_12_batch', 'FFT', 'c64', (3, 12), (12,),
         ['3 independent rows of length 12'])
    case('ifft_c64_5_batch', 'IFFT', 'c64', (2, 2, 5), (5,),
         ['prime length, two batch dimensions'])
    case('fft_c128_7', 'FFT', 'c128', (7,), (7,))
    case('ifft_c128_16', 'IFFT', 'c128', (16,), (16,))
    case('rfft_f32_8', 'RFFT', 'f32', (8,), (8,),
         ['numpy.fft.rfft: the last dimension is 8/2+1 = 5'])
    case('rfft_f32_6_batch', 'RFFT', 'f32', (4, 6), (6,))
    case('rfft_f64_9', 'RFFT', 'f64', (9,), (9,),
         ['odd length: 9/2+1 = 5 values'])
    case('irfft_c64_8', 'IRFFT', 'c64', (5,), (8,),
         ['numpy.fft.irfft: 5 = 8/2+1 values give 8 reals'])
    case('irfft_c128_7_batch', 'IRFFT', 'c128', (3, 4), (7,),
         ['odd length 7 from 7/2+1 = 4 values'])
    case('fft2_c64_4x6', 'FFT', 'c64', (4, 6), (4, 6),
         ['numpy.fft.fftn over two dimensions'])
    case('ifft2_c128_batch_3x4', 'IFFT', 'c128', (2, 3, 4), (3, 4))
    case('fft3_c64_2x3x4', 'FFT', 'c64', (2, 3, 4), (2, 3, 4),
         ['numpy.fft.fftn over three dimensions'])
    case('ifft3_c64_batch_2x2x3', 'IFFT', 'c64', (2, 2, 2, 3), (2, 2, 3))
    case('rfft2_f32_4x6', 'RFFT', 'f32', (4, 6), (4, 6),
         ['numpy.fft.rfftn: last dimension 6/2+1 = 4'])
    case('rfft3_f64_batch_2x3x5', 'RFFT', 'f64', (2, 2, 3, 5), (2, 3, 5))
    case('irfft2_c64_4x6', 'IRFFT', 'c64', (4, 4), (4, 6),
         ['numpy.fft.irfftn over two dimensions'])
    case('irfft3_c128_2x3x5', 'IRFFT', 'c128', (2, 3, 3), (2, 3, 5))
    case('fft_c64_1', 'FFT', 'c64', (3, 1), (1,),
         ['length 1 is the identity'])


def gen_topk():
    """topk against numpy: argsort with kind='stable' on XLA's total-order
    key (largest: of the negated key), so ties keep the lower index."""
    g = 'topk'
    rng = np.random.RandomState(2718)

    def key(t, a):
        if is_float(t):
            return np.vectorize(lambda v: total_order_key(t, v),
                                otypes=[np.int64])(a)
        return a.astype(np.int64)

    def case(name, x, k, largest=True, notes=(), explicit=True):
        kk = key(x.t, x.a)
        order = np.argsort(-kk if largest else kk, axis=-1, kind='stable')
        idx = order[..., :k]
        vals = np.take_along_axis(x.a, idx, axis=-1)
        out = Tup(V(x.t, vals), V('s32', idx.astype(np.int32)))
        e = Comp('main', entry=True)
        p = e.param(x.shape())
        attrs = 'k=%d' % k
        if explicit:
            attrs += ', largest=%s' % ('true' if largest else 'false')
        e.root(out.shape(), 'topk(%s), %s' % (p, attrs), 'r')
        add_case(g, name, 'numpy', module(name, e), [x], out,
                 notes=list(notes))

    case('largest_f32_4x16', V('f32', rng.uniform(-8, 8, (4, 16))), 2,
         notes=['the example of the issue: k=2 along the last dimension'])
    case('smallest_f32_3x10', V('f32', rng.uniform(-8, 8, (3, 10))), 4,
         largest=False, notes=['largest=false: the smallest first'])
    case('ties_s32', V('s32', rng.randint(0, 3, (2, 12))), 5,
         notes=['ties keep the lower index first (a stable order)'])
    case('ties_smallest_s32', V('s32', rng.randint(-2, 2, (2, 12))), 6,
         largest=False)
    case('default_largest_f64', V('f64', rng.uniform(-1, 1, (5,))), 3,
         explicit=False, notes=['largest left out reads as true (XLA)'])
    case('all_of_row_u8', V('u8', rng.randint(0, 255, (3, 4))), 4)
    case('k0_f32', V('f32', rng.uniform(-1, 1, (2, 3))), 0)
    case('rank3_bf16', V('bf16', bf16_from_f32(
        rng.uniform(-4, 4, (2, 3, 6)).astype(np.float32))), 3)
    nn = neg_nan('f32')
    special = V('f32', [[0.0, float('nan'), -np.inf, nn, -0.0, np.inf, 1.0,
                         -0.0],
                        [2.0, 2.0, float('nan'), -1.0, 0.0, nn, 2.0, -1.0]])
    case('total_order_largest_f32', special, 5,
         notes=['XLA total order: -nan < -inf < -0 < +0 < inf < +nan'])
    case('total_order_smallest_f32', special, 5, largest=False)

    # XLA's well-known custom call: TopK, rewritten into the topk opcode by
    # the topk-custom-call-rewriter pass of the default pipeline.
    for name, dims, k in (('custom_call_topk_2d', (3, 8), 3),
                          ('custom_call_topk_1d', (7,), 2)):
        x = V('f32', rng.uniform(-8, 8, dims))
        kk = key('f32', x.a)
        idx = np.argsort(-kk, axis=-1, kind='stable')[..., :k]
        vals = np.take_along_axis(x.a, idx, axis=-1)
        out = Tup(V('f32', vals), V('s32', idx.astype(np.int32)))
        e = Comp('main', entry=True)
        p = e.param(x.shape())
        e.root(out.shape(), 'custom-call(%s), custom_call_target="TopK"' % p,
               'r')
        add_case(g, name, 'numpy', module(name, e), [x], out,
                 notes=['XLA\'s TopK custom call (largest first), rewritten '
                        'into topk by a pass of the default pipeline'])


def check_opcode_coverage():
    """Every opcode of core/ir/opcode.h appears in some case (custom-call
    is covered by its own tests)."""
    import re
    path = os.path.join(HERE, '..', '..', 'core', 'ir', 'opcode.h')
    with open(path) as f:
        names = re.findall(r'X\(k\w+, "([a-z0-9-]+)",', f.read())
    assert len(names) > 80, names
    text = '\n'.join(CASES.values())
    # Cases written by their own generators (OWN_GENERATOR_CASES) count too.
    for path in own_generator_files():
        with open(path) as f:
            text += '\n' + f.read()
    missing = [n for n in names if n != 'custom-call' and
               not re.search(r'[ =]%s\(' % re.escape(n), text)]
    if missing:
        raise SystemExit('opcodes without a case: %s' % ', '.join(missing))



# ----------------------------------------------------------------------------
# The f8/f4 and sub-byte integer types (issue 14)
# ----------------------------------------------------------------------------
#
# An independent reference for the small float formats: every encoding is
# decoded from its fields, and a value is encoded by searching the table of
# all finite encodings for the nearest one (ties to the even encoding, i.e.
# the one whose lowest mantissa bit is 0), with one virtual encoding just
# above the largest finite value (max + its ulp) standing for overflow.
# Overflow and the special inputs then follow ml_dtypes' non-saturating
# conversion, which XLA's convert uses: IEEE-like types give +-inf, the
# fn/fnuz types and f8e8m0fnu NaN, f4e2m1fn (neither inf nor NaN) its max.
# f8e8m0fnu (no mantissa) rounds a tie (1.5 * 2^e) up, as ml_dtypes' bit
# arithmetic does; zero and negatives are NaN there; values below 2^-127
# give 2^-127 (encoding 0).

# name: (exponent bits, mantissa bits, bias, kind)
SMALL_FLOATS = OrderedDict([
    ('f8e5m2', (5, 2, 15, 'ieee')),
    ('f8e4m3fn', (4, 3, 7, 'fn')),
    ('f8e4m3b11fnuz', (4, 3, 11, 'fnuz')),
    ('f8e5m2fnuz', (5, 2, 16, 'fnuz')),
    ('f8e4m3fnuz', (4, 3, 8, 'fnuz')),
    ('f8e4m3', (4, 3, 7, 'ieee')),
    ('f8e3m4', (3, 4, 3, 'ieee')),
    ('f4e2m1fn', (2, 1, 1, 'finite')),
    ('f8e8m0fnu', (8, 0, 127, 'e8m0')),
])


def sf_decode(t, b):
    E, M, bias, kind = SMALL_FLOATS[t]
    if kind == 'e8m0':
        return NAN if b == 0xff else math.ldexp(1.0, b - bias)
    sign = (b >> (E + M)) & 1
    e = (b >> M) & ((1 << E) - 1)
    m = b & ((1 << M) - 1)
    if kind == 'ieee' and e == (1 << E) - 1:
        v = INF if m == 0 else NAN
    elif kind == 'fn' and e == (1 << E) - 1 and m == (1 << M) - 1:
        v = NAN
    elif kind == 'fnuz' and b == 1 << (E + M):
        v = NAN
    elif e == 0:
        v = math.ldexp(m, 1 - bias - M)
    else:
        v = math.ldexp((1 << M) | m, e - bias - M)
    return -v if sign else v


def sf_count(t):
    E, M, _, kind = SMALL_FLOATS[t]
    return 256 if kind == 'e8m0' else 1 << (1 + E + M)


def sf_nan_bits(t, negative):
    E, M, _, kind = SMALL_FLOATS[t]
    sign = (1 << (E + M)) if negative else 0
    if kind == 'ieee':
        return sign | (((1 << E) - 1) << M) | (1 << (M - 1))
    if kind == 'fn':
        return sign | ((1 << (E + M)) - 1)
    if kind == 'fnuz':
        return 1 << (E + M)
    if kind == 'finite':  # ml_dtypes' quiet_NaN() is -0, negated by sign
        return 0 if negative else 1 << (E + M)
    return 0xff


def sf_encode(t, v):
    E, M, bias, kind = SMALL_FLOATS[t]
    v = float(v)
    neg = math.copysign(1.0, v) < 0
    if math.isnan(v):
        return sf_nan_bits(t, neg)
    if kind == 'e8m0' and (neg or v == 0 or math.isinf(v)):
        return 0xff
    # positive finite encodings and their values
    table = [(b, sf_decode(t, b)) for b in range(sf_count(t) >> (0 if kind == 'e8m0' else 1))]
    table = [(b, x) for b, x in table if not math.isnan(x) and not math.isinf(x)]
    maxb, maxv = max(table, key=lambda bx: bx[1])
    if kind == 'e8m0':
        ulp = maxv
    else:
        ulp = math.ldexp(1.0, ((maxb >> M) - bias - M))
    virtual = (maxb + 1, maxv + ulp)
    a = abs(v)
    if kind == 'e8m0' and a < table[0][1]:
        return 0x00
    best = None
    for b, x in table + [virtual]:
        d = abs(a - x) if not math.isinf(a) else (0 if b == virtual[0] else INF)
        if best is None or d < best[2]:
            best = (b, x, d)
        elif d == best[2]:
            if kind == 'e8m0':
                if x > best[1]:
                    best = (b, x, d)
            elif b % 2 == 0:
                best = (b, x, d)
    b = best[0]
    if b == virtual[0]:  # overflow
        if kind == 'ieee':
            return ((1 << (E + M)) if neg else 0) | (((1 << E) - 1) << M)
        if kind == 'finite':
            return ((1 << (E + M)) if neg else 0) | maxb
        return sf_nan_bits(t, neg)
    if b == 0 and kind == 'fnuz':
        return 0
    return ((1 << (E + M)) if neg and kind != 'e8m0' else 0) | b


class RawV:
    """A value written out as text (types numpy has no dtype for)."""

    def __init__(self, t, dims, texts):
        self.t, self.dims_, self.texts = t, list(dims), list(texts)

    def shape(self, layout=True):
        return shape_str(self.t, self.dims_, None)

    def typed(self, signed_nan=True):
        return '%s {%s}' % (self.shape(), ', '.join(self.texts))


def sf_text(v):
    if math.isnan(v):
        return 'nan'
    if math.isinf(v):
        return 'inf' if v > 0 else '-inf'
    s = repr(float(v))
    return s[:-2] if s.endswith('.0') else s


def gen_small_types():
    g = 'convert'
    src_note = ('expected bits from the independent nearest-value reference '
                'encoder of gen_cases.py (ml_dtypes semantics)')
    for t, (E, M, bias, kind) in SMALL_FLOATS.items():
        finite = sorted(set(abs(sf_decode(t, b)) for b in range(sf_count(t))
                            if math.isfinite(sf_decode(t, b))))
        mx = finite[-1]
        nz = [x for x in finite if x > 0]
        mn_sub = nz[0]
        ties = [(nz[i] + nz[i + 1]) / 2 for i in range(0, min(len(nz) - 1, 6))]
        vals = [1.0, -1.0, mx, -mx, mn_sub, mn_sub / 2, mn_sub * 0.75,
                0.0, -0.0, INF, -INF, NAN, -NAN, mx * 1.0625, mx * 4,
                0.1, -0.3, 3.0, 1e-30] + ties
        if kind == 'e8m0':
            vals = [1.0, 2.0, 3.0, 2.9, 0.75, mx, mn_sub, mn_sub / 4, 1e38,
                    math.ldexp(1.5, 127), 0.0, -1.0, INF, NAN, 0.1]
        vals32 = [float(np.float32(x)) for x in vals]
        bits = [sf_encode(t, x) for x in vals32]
        # convert, then the bits as an unsigned integer of the same width
        # (f4e2m1fn: u4, widened to u8 so the result is a byte type).
        e = Comp('main', entry=True)
        p = e.param(S('f32', len(vals32)))
        c = e.op(S(t, len(vals32)), 'convert(%s)' % p, 'c')
        if t == 'f4e2m1fn':
            u = e.op(S('u4', len(vals32)), 'bitcast-convert(%s)' % c, 'b')
            e.root(S('u8', len(vals32)), 'convert(%s)' % u, 'r')
        else:
            e.root(S('u8', len(vals32)), 'bitcast-convert(%s)' % c, 'r')
        name = 'f32_to_%s_bits' % t
        add_case(g, name, 'independent reference encoder (gen_cases.py)',
                 module(name, e), [V('f32', vals32)], V('u8', bits),
                 notes=[src_note, 'f32 -> %s: max, min subnormal, ties, '
                        'overflow, inf, NaN, -0' % t])
        # every encoding decoded: u8 bits -> t -> f32
        n = sf_count(t)
        e = Comp('main', entry=True)
        p = e.param(S('u8', n))
        if t == 'f4e2m1fn':
            u = e.op(S('u4', n), 'convert(%s)' % p, 'u')
            c = e.op(S(t, n), 'bitcast-convert(%s)' % u, 'c')
        else:
            c = e.op(S(t, n), 'bitcast-convert(%s)' % p, 'c')
        e.root(S('f32', n), 'convert(%s)' % c, 'r')
        name = '%s_to_f32_every_encoding' % t
        add_case(g, name, 'independent reference decoder (gen_cases.py)',
                 module(name, e), [V('u8', list(range(n)))],
                 V('f32', [sf_decode(t, b) for b in range(n)]),
                 notes=['%s: %s%d exponent bits (bias %d), %d mantissa '
                        'bits, %s specials' % (t, '' if kind == 'e8m0' else
                                               'sign, ', E, bias, M, kind)])
    # f8 arithmetic: computed in f32 and rounded back (XLA's evaluator).
    for t in ('f8e4m3fn', 'f8e5m2', 'f8e4m3fnuz'):
        rs = np.random.RandomState(14)
        finite = [b for b in range(256) if math.isfinite(sf_decode(t, b))]
        xb = [int(b) for b in rs.choice(finite, 16)]
        yb = [int(b) for b in rs.choice(finite, 16)]
        for op, fn in (('add', lambda a, b: a + b),
                       ('multiply', lambda a, b: a * b)):
            out = []
            for a, b in zip(xb, yb):
                r = fn(np.float32(sf_decode(t, a)), np.float32(sf_decode(t, b)))
                out.append(sf_encode(t, float(np.float32(r))))
            e = Comp('main', entry=True)
            p0 = e.param(S('u8', 16))
            p1 = e.param(S('u8', 16))
            a = e.op(S(t, 16), 'bitcast-convert(%s)' % p0, 'a')
            b = e.op(S(t, 16), 'bitcast-convert(%s)' % p1, 'b')
            s = e.op(S(t, 16), '%s(%s, %s)' % (op, a, b), 's')
            e.root(S('u8', 16), 'bitcast-convert(%s)' % s, 'r')
            name = '%s_%s_bits' % (t, op)
            add_case(g, name, 'numpy float32 + reference encoder',
                     module(name, e), [V('u8', xb), V('u8', yb)],
                     V('u8', out),
                     notes=['f8 arithmetic is computed in f32 and the result '
                            'rounded back once (XLA evaluator)'])
    # f8 dot with small integers (every summation order exact).
    a = np.array([[1, 2, -3], [0.5, 4, 1]], np.float32)
    b = np.array([[2, 1], [-1, 0.5], [3, 2]], np.float32)
    d = a @ b
    e = Comp('main', entry=True)
    p0 = e.param(S('f8e5m2', 2, 3))
    p1 = e.param(S('f8e5m2', 3, 2))
    e.root(S('f8e5m2', 2, 2), 'dot(%s, %s), lhs_contracting_dims={1}, '
           'rhs_contracting_dims={0}' % (p0, p1), 'r')
    add_case(g, 'dot_f8e5m2', 'numpy', module('dot_f8e5m2', e),
             [RawMat('f8e5m2', a), RawMat('f8e5m2', b)], RawMat('f8e5m2', d),
             notes=['exact in f8e5m2: small values, exact products and sums'])
    # sub-byte integers: s32 -> s4 wraps; f32 -> s4 saturates; s4 -> s32.
    vals = [7, 8, -8, -9, 15, 16, 100, -1]
    e = Comp('main', entry=True)
    p = e.param(S('s32', len(vals)))
    c = e.op(S('s4', len(vals)), 'convert(%s)' % p, 'c')
    e.root(S('s32', len(vals)), 'convert(%s)' % c, 'r')
    add_case(g, 's32_to_s4_wraps', 'hand', module('s32_to_s4_wraps', e),
             [V('s32', vals)],
             V('s32', [((v + 8) % 16) - 8 for v in vals]),
             notes=['int -> s4 keeps the low 4 bits (two\'s complement)'])
    fv = [7.9, 8.0, -8.5, -100.0, 0.5, -0.5, NAN, INF]
    e = Comp('main', entry=True)
    p = e.param(S('f32', len(fv)))
    c = e.op(S('s4', len(fv)), 'convert(%s)' % p, 'c')
    e.root(S('s32', len(fv)), 'convert(%s)' % c, 'r')
    exp = [0 if math.isnan(x) else int(max(-8, min(7, math.trunc(x))))
           if math.isfinite(x) else (7 if x > 0 else -8) for x in fv]
    add_case(g, 'f32_to_s4_saturates', 'hand',
             module('f32_to_s4_saturates', e), [V('f32', fv)],
             V('s32', exp),
             notes=['float -> s4 truncates and saturates to [-8, 7], '
                    'NaN -> 0'])
    # An s4 parameter and result: packed across the ABI (two a byte) to
    # and from every plugin.
    sv = [-8, -1, 0, 7]
    e = Comp('main', entry=True)
    p = e.param(S('s4', 4))
    e.root(S('s4', 4), 'negate(%s)' % p, 'r')
    add_case(g, 's4_parameter_negate', 'hand',
             module('s4_parameter_negate', e),
             [RawV('s4', [4], [str(v) for v in sv])],
             RawV('s4', [4], [str(((-v + 8) % 16) - 8) for v in sv]),
             notes=['negate wraps in 4 bits: -(-8) = -8'])
    uv = [0, 3, 4, 255, 6]
    e = Comp('main', entry=True)
    p = e.param(S('u8', len(uv)))
    c = e.op(S('u2', len(uv)), 'convert(%s)' % p, 'c')
    s = e.op(S('u2', len(uv)), 'add(%s, %s)' % (c, c), 's')
    e.root(S('u8', len(uv)), 'convert(%s)' % s, 'r')
    add_case(g, 'u2_add_wraps', 'hand', module('u2_add_wraps', e),
             [V('u8', uv)], V('u8', [(2 * (v % 4)) % 4 for v in uv]),
             notes=['u2 arithmetic wraps modulo 4'])


class RawMat:
    """A 2-d small-float value written out as text."""

    def __init__(self, t, arr):
        self.t, self.arr = t, np.asarray(arr)

    def shape(self, layout=True):
        return shape_str(self.t, list(self.arr.shape), None)

    def typed(self, signed_nan=True):
        rows = ['{%s}' % ', '.join(sf_text(float(x)) for x in row)
                for row in self.arr]
        return '%s { %s }' % (self.shape(), ', '.join(rows))


def main():
    gen_unary()
    gen_binary()
    gen_compare()
    gen_convert()
    gen_stochastic_convert()
    gen_small_types()
    gen_broadcast()
    gen_shape()
    gen_slicing()
    gen_gather_scatter()
    gen_reduce()
    gen_conv()
    gen_dot()
    gen_sort()
    gen_control()
    gen_misc()
    gen_select_clamp()
    gen_batchnorm()
    gen_linalg()
    gen_complex()
    gen_collective()
    gen_collective_gather_scatter()
    gen_collective_permute()
    gen_send_recv()
    gen_collective_broadcast()
    gen_all_to_all()
    gen_async_collectives()
    gen_async_misc()
    gen_rng()
    gen_layout()
    gen_feeds()
    gen_fft()
    gen_topk()
    check_opcode_coverage()
    write_all()
    counts = OrderedDict()
    for k in CASES:
        grp = k.split('/')[0]
        counts[grp] = counts.get(grp, 0) + 1
    for grp, n in counts.items():
        print('%-16s %d' % (grp, n))
    print('%-16s %d' % ('total', len(CASES)))


if __name__ == '__main__':
    main()
