#!/usr/bin/python3
"""Conformance cases for mulhi, scan, shuffle, scaled-dot, ragged-all-to-all,
collective-reduce and dot's structured-sparse form, expected values from numpy (and Python integers for
the 2N-bit products of mulhi). Run by hand with Debian's python3; the cases
are committed:

    /usr/bin/python3 tests/conformance/gen_new_opcode_cases.py

It borrows gen_cases.py's helpers (values, the HLO text builder, the case
header) and writes only its own cases: the folders cases/mulhi, cases/scan,
cases/shuffle, cases/scaled_dot, cases/sparse_dot, and the files cases/collective/
ragged_all_to_all_*.hlo and cases/collective/collective_reduce_*.hlo
(gen_cases.py leaves them in place and counts them in its opcode check:
OWN_GENERATOR_CASES there).

Every reference below is written from XLA's definition of the op, not from
Plexa's code:

  * mulhi: the high N bits of the 2N-bit product (signed: arithmetic,
    unsigned: logical), in Python integers;
  * scan: XLA's ScanExpander (a while loop over the scan dimension: the
    body's per-step outputs written at the index it read, the carries
    threaded through), the to_apply body written again in numpy;
  * shuffle: xla/shuffle.{h,cc} and ShuffleExpander (rotate = a left
    rotation, np.roll(x, -s); permute = a gather of one element per result
    element through the indices literal's coordinates);
  * scaled-dot: XLA's ScaledDotRewriter (each operand times its scale,
    repeated over blocks, in the common type; a rank-0 scale is ignored;
    then the ordinary dot, gen_cases.dot_ref);
  * ragged-all-to-all: the GPU runtime's model (each sender writes
    input[input_offsets[idx]:+send_sizes[idx]] into peer p's output at the
    sender's output_offsets[idx], idx = p*k + j; rows nobody writes keep the
    output operand's values);
  * sparse dot (dot(lhs, rhs, meta), sparsity=L.1@2:4): the 2:4 metadata
    of NVIDIA's sparse tensor cores that XLA's GPU backend feeds (per group
    of m logical values, the positions of its n stored values as
    ceil(log2 m)-bit fields packed from the low bits of u16 words; shape
    from XLA's InferSparseDotMetadataShape); the stored values are put back
    at their positions in numpy, then the ordinary dot (gen_cases.dot_ref);
  * collective-reduce: ncclReduce (the group's root, rank 0 or the dynamic
    root, gets the fold of to_apply over the members in group order).
    XLA leaves the other members' results unspecified; Plexa's documented
    choice is that they get their own input unchanged, which the cases pin.
"""
import os
import shutil

import numpy as np

import gen_cases as G
from gen_cases import (S, V, Tup, Comp, add_case, dims_attr, dot_dims_attrs,
                       dot_ref, module, scalar_comp)

# What this script writes (gen_cases.OWN_GENERATOR_CASES lists the same).
OWN_GROUPS = ('mulhi', 'scan', 'shuffle', 'scaled_dot', 'sparse_dot')
OWN_PREFIXES = {'collective': ('ragged_all_to_all_', 'collective_reduce_')}
assert all(G.OWN_GENERATOR_CASES[g] == ('',) for g in OWN_GROUPS)
assert all(set(p) <= set(G.OWN_GENERATOR_CASES[g])
           for g, p in OWN_PREFIXES.items())


# ----------------------------------------------------------------------------
# mulhi
# ----------------------------------------------------------------------------

def mulhi_ref(t, a, b):
    """High N bits of the exact 2N-bit product; Python's >> on a negative
    int is an arithmetic (floor) shift, as the signed types need."""
    n = G.INT_BITS[t]
    out = []
    for x, y in zip(a.ravel(), b.ravel()):
        hi = (int(x) * int(y)) >> n
        assert G.int_min(t) <= hi <= G.int_max(t), (t, x, y, hi)
        out.append(hi)
    return np.array(out, dtype=G.NP_DTYPE[t]).reshape(a.shape)


def gen_mulhi():
    g = 'mulhi'
    rs = np.random.RandomState(20261203)

    def case(name, t, a, b, notes=()):
        x, y = V(t, a), V(t, b)
        out = V(t, mulhi_ref(t, x.a, y.a))
        G.simple_binary(g, name, 'mulhi', x, y, out,
                        notes=['the high %d bits of the %d-bit product (%s)'
                               % (G.INT_BITS[t], 2 * G.INT_BITS[t],
                                  'signed, arithmetic' if G.is_signed(t)
                                  else 'unsigned')] + list(notes))

    def rand(t, n):
        lo, hi = G.int_min(t), G.int_max(t)
        return [int(v) for v in
                rs.randint(lo, hi + 1, size=n, dtype=np.int64)] \
            if G.INT_BITS[t] < 64 else \
            [int(rs.randint(0, 1 << 32, dtype=np.int64)) << 32 |
             int(rs.randint(0, 1 << 32, dtype=np.int64)) for _ in range(n)]

    i32min, i32max = G.int_min('s32'), G.int_max('s32')
    case('mulhi_s32', 's32',
         [i32min, i32min, i32max, i32max, -1, -1, 0, 65536, -65536, 46341]
         + rand('s32', 6),
         [i32min, i32max, i32max, -1, -1, 1, i32min, 65536, 65536, 46341]
         + rand('s32', 6),
         notes=['INT32_MIN * INT32_MIN = 2^62: high word 2^30; -1 * 1: '
                'high word -1 (the sign extension)'])
    u32max = G.int_max('u32')
    case('mulhi_u32', 'u32',
         [u32max, u32max, u32max, 1 << 31, 1 << 16, 0, 3, 123456789],
         [u32max, 2, 1, 1 << 31, 1 << 16, u32max, 1 << 31, 987654321],
         notes=['0xffffffff * 0xffffffff: high word 0xfffffffe'])
    i64min, i64max = G.int_min('s64'), G.int_max('s64')
    s64r = [G.wrap(v, 's64') for v in rand('u64', 12)]
    case('mulhi_s64', 's64',
         [i64min, i64min, i64max, -1, 1 << 32, -(1 << 40)] + s64r[:6],
         [i64min, i64max, i64max, 1, 1 << 32, 3] + s64r[6:],
         notes=['the 128-bit product in Python integers'])
    u64max = G.int_max('u64')
    u64r = rand('u64', 12)
    case('mulhi_u64', 'u64',
         [u64max, u64max, 1 << 63, 1 << 32, 0, 5] + u64r[:6],
         [u64max, 1, 2, 1 << 32, u64max, 1 << 62] + u64r[6:])
    case('mulhi_s8_2d', 's8',
         np.array([-128, -128, 127, -1, 100, -100, 16, 15]
                  + rand('s8', 4)).reshape(3, 4),
         np.array([-128, 127, 127, 1, 100, 100, 16, 17]
                  + rand('s8', 4)).reshape(3, 4))
    case('mulhi_u16', 'u16',
         [65535, 65535, 32768, 256, 0] + rand('u16', 5),
         [65535, 2, 2, 256, 65535] + rand('u16', 5))
    case('mulhi_s16', 's16',
         [-32768, -32768, 32767, -1, 300] + rand('s16', 3),
         [-32768, 32767, 32767, 1, -300] + rand('s16', 3))
    case('mulhi_u8', 'u8', [255, 255, 128, 16, 0, 200, 17, 9],
         [255, 1, 2, 16, 255, 200, 15, 28])


# ----------------------------------------------------------------------------
# scan
# ----------------------------------------------------------------------------

def scan_ref(inputs, inits, dim, body, out_types, reverse=False):
    """XLA's ScanExpander as a loop: carry = inits; for t in 0..N-1 (or
    N-1..0): (outs, carry) = body(x_0[t], ..., carry...); out_k[t] = outs_k.
    Outputs are allocated with the scan dimension (size N) at `dim`; their
    element shapes come from out_types [(numpy dtype, element shape)]."""
    n = inputs[0].shape[dim]
    outs = [np.zeros(shp[:dim] + (n,) + shp[dim:], dtype=dt)
            for dt, shp in out_types]
    carry = [np.array(c) for c in inits]
    steps = range(n - 1, -1, -1) if reverse else range(n)
    for t in steps:
        xs = [np.take(x, t, axis=dim) for x in inputs]
        ys, carry = body(xs, carry)
        for k, y in enumerate(ys):
            idx = [slice(None)] * outs[k].ndim
            idx[dim] = t
            outs[k][tuple(idx)] = y
    return outs, carry


def gen_scan():
    g = 'scan'
    rs = np.random.RandomState(20261204)
    f32 = np.float32

    def scan_module(name, body, in_vals, init_vals, result_shape, attrs,
                    const_init=None):
        """ENTRY: inputs (and inits, unless const_init gives the init as a
        constant) are parameters; ROOT scan(inputs..., inits...)."""
        e = Comp('main', entry=True)
        ops = [e.param(v.shape()) for v in in_vals]
        if const_init is None:
            ops += [e.param(v.shape()) for v in init_vals]
        else:
            ops.append(e.op(const_init.shape(),
                            'constant(%s)' % const_init.lit(), 'init'))
        e.root(result_shape, 'scan(%s), %s, to_apply=%%%s'
               % (', '.join(ops), attrs, body.name), 'scan')
        return module(name, e, body)

    def add_body(name, t, shape=()):
        """(input, acc) -> (acc + input, acc + input): an inclusive sum."""
        c = Comp(name)
        x = c.param(S(t, *shape), 'input')
        acc = c.param(S(t, *shape), 'acc')
        s = c.op(S(t, *shape), 'add(%s, %s)' % (acc, x), 'add')
        c.root('(%s, %s)' % (S(t, *shape), S(t, *shape)),
               'tuple(%s, %s)' % (s, s), 't')
        return c

    def inclusive_sum(xs, carry):
        s = (carry[0] + xs[0]).astype(carry[0].dtype)
        return [s], [s]

    # 1. cumsum, forward, init a constant (XLA's ScanExpander test module).
    x = V('f32', rs.randint(-16, 17, size=6) / 4.0)
    init = V('f32', 0)
    (o,), (c,) = scan_ref([x.a], [init.a], 0, inclusive_sum, [(f32, ())])
    body = add_body('add', 'f32')
    add_case(g, 'scan_cumsum_f32', 'numpy',
             scan_module('scan_cumsum_f32', body, [x], [init],
                         '(f32[6], f32[])', 'dimensions={0}, num_carries=1',
                         const_init=init),
             [x], Tup(V('f32', o), V('f32', c)),
             notes=['inclusive cumulative sum (XLA\'s ScanExpander test '
                    'module, init a constant 0): outputs are the carries '
                    'after each step, then the final carry'])

    # 2. reverse cumsum: the spec's worked example [1,2,3,4] -> [10,9,7,4].
    x = V('f32', [1, 2, 3, 4])
    init = V('f32', 0)
    (o,), (c,) = scan_ref([x.a], [init.a], 0, inclusive_sum, [(f32, ())],
                          reverse=True)
    assert list(o) == [10, 9, 7, 4] and c == 10
    add_case(g, 'scan_reverse_cumsum', 'numpy',
             scan_module('scan_reverse_cumsum', add_body('add', 'f32'), [x],
                         [init], '(f32[4], f32[])',
                         'dimensions={0}, num_carries=1, is_reverse=true'),
             [x, init], Tup(V('f32', o), V('f32', c)),
             notes=['is_reverse=true: steps run from index N-1 down to 0 and '
                    'each output is written at the index it read'])

    # 3. non-scalar carry, scan over dimension 1: running max per row.
    x = V('f32', rs.randint(-9, 10, size=(3, 5)) / 2.0)
    init = V('f32', [-np.inf, 0, 2])
    c = Comp('max_body')
    xi = c.param(S('f32', 3), 'input')
    acc = c.param(S('f32', 3), 'acc')
    m = c.op(S('f32', 3), 'maximum(%s, %s)' % (acc, xi), 'max')
    c.root('(f32[3], f32[3])', 'tuple(%s, %s)' % (m, m), 't')

    def running_max(xs, carry):
        m = np.maximum(carry[0], xs[0])
        return [m], [m]
    (o,), (cr,) = scan_ref([x.a], [init.a], 1, running_max, [(f32, (3,))])
    add_case(g, 'scan_dim1_running_max', 'numpy',
             scan_module('scan_dim1_running_max', c, [x], [init],
                         '(f32[3,5], f32[3])',
                         'dimensions={1}, num_carries=1, '
                         'is_associative=true'),
             [x, init], Tup(V('f32', o), V('f32', cr)),
             notes=['scan along dimension 1 of f32[3,5]: to_apply sees '
                    'columns f32[3] and an f32[3] carry; the output '
                    'regains dimension 1',
                    'is_associative=true is only a hint'])

    # 4. two inputs, two carries of different types, outputs of other types.
    x0 = V('s32', rs.randint(-20, 21, size=5))
    x1 = V('f32', [[2, -1], [0.5, 3], [-2, 0.25], [1.5, -1], [-0.5, 2]])
    i0 = V('s32', 7)
    i1 = V('f32', [1, -2])
    c = Comp('body')
    a = c.param(S('s32'), 'in0')
    b = c.param(S('f32', 2), 'in1')
    s = c.param(S('s32'), 'sum')
    p = c.param(S('f32', 2), 'prod')
    s2 = c.op(S('s32'), 'add(%s, %s)' % (s, a), 'sum_next')
    p2 = c.op(S('f32', 2), 'multiply(%s, %s)' % (p, b), 'prod_next')
    o0 = c.op(S('f32'), 'convert(%s)' % s2, 'out0')
    o1 = c.op(S('s32', 2), 'convert(%s)' % p2, 'out1')
    c.root('(f32[], s32[2], s32[], f32[2])',
           'tuple(%s, %s, %s, %s)' % (o0, o1, s2, p2), 't')

    def two_carries(xs, carry):
        s = np.int32(carry[0] + xs[0])
        p = (carry[1] * xs[1]).astype(f32)
        # The products are integers or exact halves; f32 -> s32 convert
        # rounds toward zero.
        return [f32(s), np.trunc(p).astype(np.int32)], [s, p]
    (o0v, o1v), (c0, c1) = scan_ref(
        [x0.a, x1.a], [i0.a, i1.a], 0, two_carries,
        [(f32, ()), (np.int32, (2,))])
    add_case(g, 'scan_two_inputs_two_carries', 'numpy',
             scan_module('scan_two_inputs_two_carries', c, [x0, x1],
                         [i0, i1], '(f32[5], s32[5,2], s32[], f32[2])',
                         'dimensions={0}, num_carries=2'),
             [x0, x1, i0, i1],
             Tup(V('f32', o0v), V('s32', o1v), V('s32', c0), V('f32', c1)),
             notes=['operands: the inputs, then the inits; to_apply '
                    'parameters: the input slices, then the carries; its '
                    'root: the per-step outputs, then the new carries',
                    'an s32 running sum and an f32[2] running product; the '
                    'outputs are their converts (f32 and s32: rounding '
                    'toward zero)'])

    # 5. zero-length scan: no step, empty outputs, the carry is the init.
    x = V('f32', np.zeros((0,), f32))
    init = V('f32', 3.5)
    add_case(g, 'scan_zero_length', 'numpy',
             scan_module('scan_zero_length', add_body('add', 'f32'), [x],
                         [init], '(f32[0], f32[])',
                         'dimensions={0}, num_carries=1'),
             [x, init], Tup(V('f32', np.zeros((0,), f32)), init),
             notes=['N = 0: to_apply never runs; the carry is the init'])

    # 6. one carry, no output: the result is the bare carry array.
    x = V('s32', rs.randint(-50, 51, size=7))
    init = V('s32', 100)
    c = Comp('sum_only')
    xi = c.param(S('s32'), 'input')
    acc = c.param(S('s32'), 'acc')
    c.root(S('s32'), 'add(%s, %s)' % (acc, xi), 'add')

    def sum_only(xs, carry):
        return [], [np.int32(carry[0] + xs[0])]
    _, (cr,) = scan_ref([x.a], [init.a], 0, sum_only, [])
    add_case(g, 'scan_carry_only_bare_result', 'numpy',
             scan_module('scan_carry_only_bare_result', c, [x], [init],
                         S('s32'), 'dimensions={0}, num_carries=1'),
             [x, init], V('s32', cr),
             notes=['to_apply returns one non-tuple value and num_carries=1: '
                    'it is the carry; no outputs, so the scan\'s shape is '
                    'the bare carry array (not a tuple)'])

    # 7. an exclusive scan in reverse along dimension 1: the output is the
    # carry before the step, written at the index read.
    x = V('s32', rs.randint(-9, 10, size=(2, 4)))
    init = V('s32', [0, 1000])
    c = Comp('exclusive')
    xi = c.param(S('s32', 2), 'input')
    acc = c.param(S('s32', 2), 'acc')
    s = c.op(S('s32', 2), 'add(%s, %s)' % (acc, xi), 'add')
    c.root('(s32[2], s32[2])', 'tuple(%s, %s)' % (acc, s), 't')

    def exclusive(xs, carry):
        return [carry[0]], [(carry[0] + xs[0]).astype(np.int32)]
    (o,), (cr,) = scan_ref([x.a], [init.a], 1, exclusive,
                           [(np.int32, (2,))], reverse=True)
    add_case(g, 'scan_exclusive_reverse_dim1', 'numpy',
             scan_module('scan_exclusive_reverse_dim1', c, [x], [init],
                         '(s32[2,4], s32[2])',
                         'dimensions={1}, num_carries=1, is_reverse=true'),
             [x, init], Tup(V('s32', o), V('s32', cr)),
             notes=['the output is the carry before the step: an exclusive '
                    'sum from the right; out[:, 3] is the init'])

    # 8. num_carries left out (as two of XLA's ScanExpander tests print it):
    # one input and one init, so one carry whichever way it is inferred.
    x = V('f32', [0.5, -1, 4, 2.25, -8])
    init = V('f32', 1)
    (o,), (cr,) = scan_ref([x.a], [init.a], 0, inclusive_sum, [(f32, ())])
    add_case(g, 'scan_num_carries_omitted', 'numpy',
             scan_module('scan_num_carries_omitted', add_body('add', 'f32'),
                         [x], [init], '(f32[5], f32[])',
                         'dimensions={0}, is_reverse=false'),
             [x, init], Tup(V('f32', o), V('f32', cr)),
             notes=['num_carries omitted, as in XLA\'s ScanExpander tests: '
                    'with one input and one init it can only be 1'])


# ----------------------------------------------------------------------------
# shuffle
# ----------------------------------------------------------------------------

def norm_shift(s, n):
    """xla::shuffle::NormalizeShift."""
    return 0 if n == 0 else ((s % n) + n) % n


def rotate_ref(x, dims, shifts):
    """Left rotation along each listed dimension: result[i] =
    x[(i + s) mod n], i.e. np.roll(x, -s)."""
    for d, s in zip(dims, shifts):
        x = np.roll(x, -norm_shift(s, x.shape[d]), axis=d)
    return x


def permute_ref(x, dims, indices):
    """result[idx] = x[c]: c[d] = idx[d] for the dimensions not shuffled,
    c[dims[k]] = indices[bcast(idx)][k]; indices has the operand's rank
    (any dimension may be 1: shared) plus a trailing len(dims) dimension,
    which may be left out when one dimension is shuffled."""
    ind = np.asarray(indices).astype(np.int64)
    if ind.ndim == x.ndim:
        assert len(dims) == 1
        ind = ind[..., None]
    assert ind.ndim == x.ndim + 1 and ind.shape[-1] == len(dims)
    out = np.empty_like(x)
    seen = set()
    for idx in np.ndindex(*x.shape):
        b = tuple(i if ind.shape[d] != 1 else 0 for d, i in enumerate(idx))
        c = list(idx)
        for k, d in enumerate(dims):
            c[d] = int(ind[b + (k,)])
            assert 0 <= c[d] < x.shape[d]
        out[idx] = x[tuple(c)]
        seen.add(tuple(c))
    # Every case here is a true permutation of the elements.
    assert len(seen) == x.size
    return out


def gen_shuffle():
    g = 'shuffle'
    rs = np.random.RandomState(20261205)

    def rotate(name, x, dims, shifts, notes=()):
        out = V(x.t, rotate_ref(x.a, dims, shifts))
        G.unary_attr_case(g, name, 'shuffle', x, out,
                          ', dimensions=%s, mode=rotate, shifts=%s'
                          % (dims_attr(dims), dims_attr(shifts)),
                          notes=['rotate is a left rotation: result[i] = '
                                 'operand[(i + s) mod n] (np.roll(x, -s))']
                          + list(notes))

    def permute(name, x, dims, ind, notes=()):
        out = V(x.t, permute_ref(x.a, dims, ind.a))
        layout = list(range(ind.a.ndim - 1, -1, -1))
        G.unary_attr_case(g, name, 'shuffle', x, out,
                          ', dimensions=%s, mode=permute, indices=%s%s %s'
                          % (dims_attr(dims), ind.shape(),
                             dims_attr(layout), ind.lit()),
                          notes=['permute: result[idx] = operand[c], '
                                 'c[dimensions[k]] = indices[idx][k]']
                          + list(notes))

    rotate('shuffle_rotate_1d', V('f32', rs.randint(-9, 10, size=5)), [0],
           [2])
    rotate('shuffle_rotate_negative_shift', V('s32', np.arange(6) * 10),
           [0], [-2], notes=['a negative shift rotates right: -2 mod 6 = 4'])
    rotate('shuffle_rotate_shift_larger_than_n', V('f32', [1, 2, 3, 4]),
           [0], [9], notes=['the shift is taken mod n: 9 mod 4 = 1'])
    rotate('shuffle_rotate_zero_shift', V('f32', [1.5, -2, 3]), [0], [0],
           notes=['shift 0 is the identity'])
    rotate('shuffle_rotate_2d_two_dims',
           V('f32', np.arange(12).reshape(3, 4)), [0, 1], [1, 2])
    rotate('shuffle_rotate_3d_middle_dim',
           V('u8', np.arange(12).reshape(2, 3, 2)), [1], [-1])
    permute('shuffle_permute_1d', V('f32', [10, 11, 12, 13]), [0],
            V('s32', [3, 1, 0, 2]),
            notes=['XLA\'s ShuffleExpander test: indices {3, 1, 0, 2}'])
    x32 = V('f32', np.arange(6).reshape(3, 2) + 1)
    permute('shuffle_permute_broadcast_dim', x32, [0],
            V('s32', [[2], [0], [1]]),
            notes=['indices s32[3,1] (XLA\'s test): dimension 1 has size 1 '
                   'and is shared by both columns; one shuffled dimension, '
                   'so no trailing coordinate dimension'])
    permute('shuffle_permute_2d_both_dims', x32, [0, 1],
            V('s32', [[[2, 0], [0, 1]], [[0, 0], [2, 1]], [[1, 0], [1, 1]]]),
            notes=['XLA\'s ShuffleExpander test: indices[0][0] = {2, 0}, '
                   'so result[0,0] = operand[2,0]'])
    permute('shuffle_permute_dims_reversed', x32, [1, 0],
            V('s32', [[[0, 2], [1, 0]], [[0, 0], [1, 2]], [[0, 1], [1, 1]]]),
            notes=['dimensions={1,0}: coordinate 0 of each index is for '
                   'dimension 1, coordinate 1 for dimension 0 (XLA\'s test; '
                   'the same result as shuffle_permute_2d_both_dims)'])
    permute('shuffle_permute_3d_dims_0_2',
            V('f32', np.arange(8).reshape(2, 2, 2)), [0, 2],
            V('s32', [[[[1, 1], [1, 0]]], [[[0, 1], [0, 0]]]]),
            notes=['indices s32[2,1,2,2] (XLA\'s test): dimension 1 is not '
                   'shuffled and shared; coordinates for dimensions 0 and 2'])
    # s8 indices: a random permutation of all 6 elements of an s32[2,3].
    perm = rs.permutation(6)
    ind = np.stack([perm // 3, perm % 3], axis=-1).reshape(2, 3, 2)
    permute('shuffle_permute_s8_indices',
            V('s32', rs.randint(-100, 101, size=(2, 3))), [0, 1],
            V('s8', ind), notes=['s8 indices'])


# ----------------------------------------------------------------------------
# scaled-dot
# ----------------------------------------------------------------------------

def target_type(a, b):
    """ScaledDotRewriter's GetTargetType."""
    bits = {'f32': 32, 'bf16': 16, 'f16': 16, 'f64': 64}
    if bits[a] < 16 and bits[b] < 16:
        return 'bf16'
    if a == b:
        return a
    if bits[a] == bits[b]:
        return 'f32'
    return a if bits[a] > bits[b] else b


def round_to(t, x):
    x = np.asarray(x, np.float64)
    if t == 'bf16':
        return G.bf16_from_f64(x).astype(np.float64)
    if t == 'f16':
        return x.astype(np.float16).astype(np.float64)
    if t == 'f32':
        return x.astype(np.float32).astype(np.float64)
    return x


def dequantize(op, scale):
    """ScaledDotRewriter's Dequantize: a rank-0 scale leaves the operand
    unchanged; else both converted to the common type T, the scale repeated
    over blocks of op.dim/scale.dim along each dimension where the sizes
    differ, multiplied (rounded to T). Returns (float64 values, type)."""
    if scale.a.ndim == 0:
        return op.a.astype(np.float64), op.t
    t = target_type(op.t, scale.t)
    a = round_to(t, op.a)
    s = round_to(t, scale.a)
    assert a.ndim == s.ndim
    for d in range(a.ndim):
        assert a.shape[d] % s.shape[d] == 0
        s = np.repeat(s, a.shape[d] // s.shape[d], axis=d)
    prod = a * s
    r = round_to(t, prod)
    # The cases choose values whose products are exact in T.
    assert np.array_equal(r, prod), (t, prod)
    return r, t


# ----------------------------------------------------------------------------
# dot's N:M structured-sparse form
# ----------------------------------------------------------------------------

def index_bits(m):
    return max(1, (m - 1).bit_length())


def sparse_pack(dense, dim, n, m, positions):
    """The stored values and u16 metadata of `dense` (whose every group of
    m along `dim` is zero outside `positions`, an array [..groups.., n] of
    increasing positions per group, `dim` last)."""
    d = np.moveaxis(dense, dim, -1)
    groups = d.shape[-1] // m
    grouped = d.reshape(d.shape[:-1] + (groups, m))
    stored = np.take_along_axis(grouped, positions, axis=-1)
    stored = stored.reshape(d.shape[:-1] + (groups * n,))
    bits = index_bits(m)
    per = 16 // bits
    flat = positions.reshape(d.shape[:-1] + (groups * n,))
    words = -(-groups * n * bits // 16)
    meta = np.zeros(d.shape[:-1] + (words,), dtype=np.uint16)
    for s in range(groups * n):
        meta[..., s // per] |= (flat[..., s].astype(np.uint16)
                                << np.uint16(bits * (s % per)))
    return np.moveaxis(stored, -1, dim), np.moveaxis(meta, -1, dim)


def random_sparse(rs, t, logical_shape, dim, n, m):
    """A logical operand with n nonzeros (at random increasing positions)
    in every group of m along `dim`; returns (dense, stored, meta)."""
    shape = list(logical_shape)
    shape.append(shape.pop(dim))
    groups = shape[-1] // m
    pos = np.sort(np.argsort(rs.rand(*(shape[:-1] + [groups, m])),
                             axis=-1)[..., :n], axis=-1)
    vals = rs.randint(-4, 5, size=shape[:-1] + [groups, n])
    vals[vals == 0] = 5   # every stored value nonzero: a misplaced one shows
    dense = np.zeros(shape[:-1] + [groups, m], dtype=np.int64)
    np.put_along_axis(dense, pos, vals, axis=-1)
    dense = np.moveaxis(dense.reshape(shape), -1, dim)
    dense = make(t, dense)
    stored, meta = sparse_pack(dense, dim, n, m, pos)
    return dense, stored, meta


def make(t, a):
    return V(t, np.asarray(a).astype(G.NP_DTYPE[t])).a


def gen_sparse_dot():
    g = 'sparse_dot'
    rs = np.random.RandomState(20261202)

    def case(name, lhs, rhs, lc, rc, sparse, lb=(), rb=(), t='f32',
             out_t=None, source='numpy', expect=None, notes=()):
        """lhs/rhs: ('dense', array) or ('sparse', dim, n, m, logical)."""
        out_t = out_t or t
        ops, params, dense, descs = [], [], [], []
        metas = []
        for idx, spec in enumerate((lhs, rhs)):
            if spec[0] == 'dense':
                dense.append(make(t, spec[1]))
                ops.append(V(t, dense[-1]))
            else:
                _, dim, n, m, full = spec
                dn, stored, meta = full
                dense.append(dn)
                ops.append(V(t, stored))
                metas.append(V('u16', meta))
                descs.append('%s.%d@%d:%d' % ('LR'[idx], dim, n, m))
        assert len(descs) == sparse
        r = dot_ref(dense[0], dense[1], list(lb), list(rb), list(lc), list(rc))
        out = V(out_t, G.round_result(out_t, r) if out_t[0] in 'fb'
                else r.astype(G.NP_DTYPE[out_t]))
        if expect is not None:
            assert np.array_equal(out.a, np.asarray(expect, out.a.dtype)), \
                out.a
        inputs = ops + metas
        e = Comp('main', entry=True)
        ps = [e.param(v.shape()) for v in inputs]
        e.root(out.shape(), 'dot(%s)%s, sparsity=%s' % (
            ', '.join(ps), dot_dims_attrs(lb, rb, lc, rc), '_'.join(descs)),
            'result')
        add_case(g, name, source, module(name, e), inputs, out,
                 notes=['a structured-sparse operand stores n of every m '
                        'values along its contracting dimension; its u16 '
                        'metadata holds each stored value\'s position in its '
                        'group (ceil(log2 m) bits, low bits first); the '
                        'expected value is the dense dot of the values put '
                        'back at their positions'] + list(notes))

    # Worked by hand: one lhs row of 16 logical values, 2:4.
    # groups: [1,0,2,0] [0,3,0,4] [5,0,0,6] [0,0,7,8]
    # positions (0,2) (1,3) (0,3) (2,3): nibbles 0b1000=8, 0b1101=13,
    # 0b1100=12, 0b1110=14 -> meta = 8 | 13<<4 | 12<<8 | 14<<12 = 0xECD8.
    hand_dense = np.array([[1, 0, 2, 0, 0, 3, 0, 4, 5, 0, 0, 6, 0, 0, 7, 8]])
    hand_pos = np.array([[[0, 2], [1, 3], [0, 3], [2, 3]]])
    st, me = sparse_pack(hand_dense, 1, 2, 4, hand_pos)
    assert st.tolist() == [[1, 2, 3, 4, 5, 6, 7, 8]] and me.tolist() == [
        [0xECD8]]
    case('sparse_dot_worked_example',
         ('sparse', 1, 2, 4, (make('f32', hand_dense), st, me)),
         ('dense', np.arange(1, 17).reshape(16, 1)), [1], [0], 1,
         expect=[[1 * 1 + 2 * 3 + 3 * 6 + 4 * 8 + 5 * 9 + 6 * 12 + 7 * 15 +
                  8 * 16]],
         source='numpy; hand: stored {1..8} at positions 0,2 | 1,3 | 0,3 | '
                '2,3 (meta 0xECD8) times rhs 1..16 = 407',
         notes=['lhs f32[1,8] stores a logical f32[1,16]; one u16 word '
                'covers its 4 groups'])
    case('sparse_dot_lhs_2_4',
         ('sparse', 1, 2, 4, random_sparse(rs, 'f32', (4, 32), 1, 2, 4)),
         ('dense', rs.randint(-4, 5, size=(32, 3))), [1], [0], 1,
         notes=['lhs f32[4,16] (logical [4,32]) with meta u16[4,2]'])
    case('sparse_dot_rhs_2_4',
         ('dense', rs.randint(-4, 5, size=(3, 16))),
         ('sparse', 0, 2, 4, random_sparse(rs, 'f32', (16, 5), 0, 2, 4)),
         [1], [0], 1,
         notes=['rhs f32[8,5] (logical [16,5]) sparse along dimension 0 '
                '(not the last): meta u16[1,5]'])
    case('sparse_dot_batched_middle_dim',
         ('sparse', 1, 2, 4, random_sparse(rs, 'f32', (2, 16, 3), 1, 2, 4)),
         ('dense', rs.randint(-4, 5, size=(2, 16, 4))), [1], [1], 1,
         lb=[0], rb=[0],
         notes=['batch dimension 0, the sparse contracting dimension 1 in '
                'the middle: lhs f32[2,8,3], meta u16[2,1,3]'])
    case('sparse_dot_both_operands',
         ('sparse', 1, 2, 4, random_sparse(rs, 'f32', (3, 16), 1, 2, 4)),
         ('sparse', 0, 2, 4, random_sparse(rs, 'f32', (16, 2), 0, 2, 4)),
         [1], [0], 2,
         notes=['sparsity=L.1@2:4_R.0@2:4: two metadata operands, lhs\'s '
                'first'])
    case('sparse_dot_partial_word',
         ('sparse', 1, 2, 4, random_sparse(rs, 'f32', (2, 8), 1, 2, 4)),
         ('dense', rs.randint(-4, 5, size=(8, 3))), [1], [0], 1,
         notes=['4 stored values per row: one u16 word, half of it used '
                '(ceil(4*2/16) = 1)'])
    case('sparse_dot_1_2',
         ('sparse', 1, 1, 2, random_sparse(rs, 'f32', (2, 32), 1, 1, 2)),
         ('dense', rs.randint(-4, 5, size=(32, 2))), [1], [0], 1,
         notes=['1:2 sparsity: 1-bit positions, 16 per u16 word'])
    case('sparse_dot_s32',
         ('sparse', 1, 2, 4, random_sparse(rs, 's32', (3, 16), 1, 2, 4)),
         ('dense', rs.randint(-4, 5, size=(16, 2))), [1], [0], 1, t='s32',
         notes=['integer operands'])
    case('sparse_dot_bf16_to_f32',
         ('sparse', 1, 2, 4, random_sparse(rs, 'bf16', (2, 16), 1, 2, 4)),
         ('dense', rs.randint(-4, 5, size=(16, 3))), [1], [0], 1, t='bf16',
         out_t='f32',
         notes=['bf16 operands, f32 result (the preferred element type)'])


def gen_scaled_dot():
    g = 'scaled_dot'
    rs = np.random.RandomState(20261206)

    def ri(shape, lo=-4, hi=5):
        return rs.randint(lo, hi, size=shape)

    def pow2(shape, lo=-2, hi=3):
        return np.ldexp(1.0, rs.randint(lo, hi, size=shape))

    def case(name, lhs, rhs, ls, rsc, lc, rc, lb=(), rb=(), out_t='f32',
             source='numpy', expect=None, notes=()):
        a, _ = dequantize(lhs, ls)
        b, _ = dequantize(rhs, rsc)
        r = dot_ref(a, b, list(lb), list(rb), list(lc), list(rc))
        out = V(out_t, G.round_result(out_t, r))
        if expect is not None:
            assert np.array_equal(out.a, np.asarray(expect, out.a.dtype))
        attrs = dot_dims_attrs(lb, rb, lc, rc)
        e = Comp('main', entry=True)
        ps = [e.param(v.shape()) for v in (lhs, rhs, ls, rsc)]
        e.root(out.shape(), 'scaled-dot(%s)%s' % (', '.join(ps), attrs),
               'result')
        add_case(g, name, source, module(name, e), [lhs, rhs, ls, rsc], out,
                 notes=['dot(lhs * broadcast(lhs_scale), rhs * '
                        'broadcast(rhs_scale)) (XLA\'s ScaledDotRewriter): '
                        'each scale element covers a contiguous block of '
                        'operand/scale elements along each dimension']
                 + list(notes))

    # The worked example: {10,20,300,400} . {2,2,2,2} = 1460.
    case('scaled_dot_worked_example', V('f32', [[1, 2, 3, 4]]),
         V('f32', [[1, 1, 1, 1]]), V('f32', [[10, 100]]), V('f32', [[2]]),
         [1], [1], expect=[[1460]],
         source='numpy; hand (1*10 + 2*10 + 3*100 + 4*100) * 2 = 1460',
         notes=['lhs_scale f32[1,2]: blocks of 2 along k; rhs_scale '
                'f32[1,1]: one block of 4'])
    case('scaled_dot_block_scales', V('f32', ri((2, 4))),
         V('f32', ri((3, 4))), V('f32', pow2((2, 2))),
         V('f32', pow2((3, 1))), [1], [1],
         notes=['lhs f32[2,4] with scale f32[2,2] (block 2), rhs f32[3,4] '
                'with scale f32[3,1] (block 4)'])
    case('scaled_dot_rhs_contracting_dim0', V('f32', ri((2, 4))),
         V('f32', ri((4, 3))), V('f32', pow2((2, 2))),
         V('f32', pow2((2, 3))), [1], [0],
         notes=['rhs [k,n] with scale [k/2,n]: the blocks run along '
                'dimension 0'])
    case('scaled_dot_batched', V('f32', ri((2, 3, 4))),
         V('f32', ri((2, 2, 4))), V('f32', pow2((2, 3, 2))),
         V('f32', pow2((2, 2, 1))), [2], [2], lb=[0], rb=[0],
         notes=['batch dimension 0; blocks of 2 and 4 along k'])
    case('scaled_dot_scalar_scale_ignored', V('bf16', ri((2, 4), -8, 9)),
         V('bf16', ri((3, 4), -8, 9)), V('bf16', 8), V('bf16', pow2((3, 2))),
         [1], [1],
         notes=['a rank-0 scale is ignored (ScaledDotRewriter returns the '
                'operand unchanged): lhs is NOT multiplied by 8. XLA\'s '
                'verifier takes a rank-0 scale only as a no-op scale (bf16 '
                'on a bf16 operand, IsNoOpScale); the result is f32'])
    case('scaled_dot_scale_block_in_free_dim', V('f32', ri((4, 2))),
         V('f32', ri((3, 2))), V('f32', pow2((2, 1))),
         V('f32', pow2((3, 2))), [1], [1],
         notes=['lhs_scale f32[2,1] for lhs f32[4,2]: the rewriter repeats '
                'the scale along every dimension whose size differs, the '
                'free dimension 0 (blocks of 2 rows) as well as k'])
    case('scaled_dot_bf16_to_f32', V('bf16', ri((2, 4), -8, 9)),
         V('bf16', ri((3, 4), -8, 9)), V('bf16', pow2((2, 2))),
         V('bf16', pow2((3, 1))), [1], [1],
         notes=['bf16 operands and scales: the products are computed in '
                'bf16 (exact here: small integers times powers of two), '
                'then a dot with an f32 result (the instruction\'s type)'])
    case('scaled_dot_mixed_types', V('bf16', ri((2, 4), -8, 9)),
         V('f32', ri((2, 4))), V('f32', [[0.5], [3]]),
         V('bf16', pow2((2, 2))), [1], [1],
         notes=['bf16 operand with an f32 scale and f32 operand with a bf16 '
                'scale: the common type is the wider, f32 '
                '(ScaledDotRewriter\'s GetTargetType)'])


# ----------------------------------------------------------------------------
# ragged-all-to-all
# ----------------------------------------------------------------------------

def ragged_a2a_ref(groups, per_replica):
    """per_replica[r] = (input, output, input_offsets, send_sizes,
    output_offsets, recv_sizes) as numpy arrays. For each group of N and
    k = len(offsets)/N: sender s (position in the group) writes, for peer p
    and update j (idx = p*k + j), input_s[in_off_s[idx] : +send_s[idx]]
    (rows along dimension 0) into result_p at rows out_off_s[idx] (the
    SENDER's value: an offset in the receiver's buffer). result_p starts as
    output_p. recv_sizes must match the send sizes."""
    res = [np.array(v[1]) for v in per_replica]
    for grp in groups:
        n = len(grp)
        for s_pos, s in enumerate(grp):
            inp, _, in_off, send, out_off, _ = per_replica[s]
            k = len(in_off) // n
            assert len(in_off) == n * k
            for p_pos, p in enumerate(grp):
                recv = per_replica[p][5]
                for j in range(k):
                    idx = p_pos * k + j
                    assert recv[s_pos * k + j] == send[idx], (s, p, j)
                    a, m, o = int(in_off[idx]), int(send[idx]), \
                        int(out_off[idx])
                    assert a >= 0 and m >= 0 and o >= 0
                    assert a + m <= inp.shape[0]
                    assert o + m <= res[p].shape[0]
                    res[p][o:o + m] = inp[a:a + m]
    return res


def gen_ragged_all_to_all():
    g = 'collective'
    rs = np.random.RandomState(20261207)

    def case(name, t, groups, per_replica, off_t='s32', source='numpy',
             expects=None, notes=()):
        """per_replica[r] = (input, output, input_offsets, send_sizes,
        output_offsets); recv_sizes follow from the senders' send_sizes:
        recv_p[s*k+j] = send_s[p*k+j]."""
        nrep = len(per_replica)
        recv = [None] * nrep
        for grp in groups:
            n = len(grp)
            for p_pos, p in enumerate(grp):
                k = len(per_replica[p][3]) // n
                recv[p] = [per_replica[s][3][p_pos * k + j]
                           for s in grp for j in range(k)]
        vals = [[V(t, r[0]), V(t, r[1])] +
                [V(off_t, x) for x in list(r[2:]) + [recv[i]]]
                for i, r in enumerate(per_replica)]
        res = ragged_a2a_ref(groups, [[v.a for v in r] for r in vals])
        if expects is not None:
            for r, ex in zip(res, expects):
                assert np.array_equal(r, V(t, ex).a), (r, ex)
        e = Comp('main', entry=True)
        names = ['input', 'output', 'input_offsets', 'send_sizes',
                 'output_offsets', 'recv_sizes']
        ps = [e.param(v.shape(), nm) for v, nm in zip(vals[0], names)]
        gtext = '{%s}' % ','.join(dims_attr(gr) for gr in groups)
        e.root(vals[0][1].shape(), 'ragged-all-to-all(%s), replica_groups=%s'
               % (', '.join(ps), gtext), 'ra2a')
        add_case(g, name, source, module(name, e), [], None,
                 replica_inputs=vals,
                 replica_expects=[V(t, r) for r in res],
                 notes=['operands (input, output, input_offsets, send_sizes, '
                        'output_offsets, recv_sizes); with N members and k = '
                        'len(offsets)/N, a sender writes '
                        'input[input_offsets[p*k+j]:+send_sizes[p*k+j]] '
                        '(rows along dimension 0) into peer p\'s output at '
                        'the sender\'s output_offsets[p*k+j] (p: position in '
                        'the group); rows nobody writes keep the output '
                        'operand\'s values; recv_sizes[s*k+j] = sender s\'s '
                        'send_sizes[p*k+j]']
                 + list(notes))

    # XLA's collective_ops_command_buffer_test RaggedAllToAll_Simple.
    p0 = np.arange(8)
    case('ragged_all_to_all_xla_example', 'f32', [[0, 1]],
         [(p0, [-1] * 8, [0, 4], [4, 4], [0, 0]),
          (p0 + 10, [-1] * 8, [0, 4], [4, 4], [4, 4])],
         source='XLA collective_ops_command_buffer_test RaggedAllToAll_Simple'
                '; checked by the numpy model',
         expects=[[0, 1, 2, 3, 10, 11, 12, 13], [4, 5, 6, 7, 14, 15, 16, 17]])

    # f32[6,3] rows, uneven sizes, some rows untouched, a zero size.
    # r0 sends rows 0..1 to itself at row 4 and rows 2..4 to r1 at row 0;
    # r1 sends no row to r0 and row 5 to itself at row 5.
    d0 = rs.randint(-9, 10, size=(6, 3))
    d1 = rs.randint(10, 30, size=(6, 3))
    out = np.full((6, 3), -1)
    case('ragged_all_to_all_rows_2d', 'f32', [[0, 1]],
         [(d0, out, [0, 2], [2, 3], [4, 0]),
          (d1, out * 2, [1, 5], [0, 1], [0, 5])],
         notes=['f32[6,3]: a row is 3 elements; uneven sizes, one of them '
                '0; rows 0..3 of replica 0 and rows 3..4 of replica 1 are '
                'not written and keep the output operand'])

    # s32[8], sizes differing per pair, rows left untouched.
    case('ragged_all_to_all_uneven_untouched', 's32', [[0, 1]],
         [(np.arange(100, 108), np.zeros(8), [5, 0], [1, 3], [7, 2]),
          (np.arange(200, 208), np.full(8, 9), [6, 1], [2, 3], [0, 5])],
         notes=['replica 0 gets 2 rows from replica 1 at 0 and 1 row from '
                'itself at 7 (rows 2..6 keep 0); replica 1 gets 3 rows '
                'from replica 0 at 2 and 3 from itself at 5 (rows 0..1 '
                'keep 9)'])

    # Two groups of two among 4 replicas: the groups do not mix.
    reps = []
    for r in range(4):
        reps.append((np.arange(6) + 100 * (r + 1), np.full(6, -r - 1),
                     [[0, 3], [2, 0], [1, 4], [5, 1]][r],
                     [[2, 3], [1, 2], [3, 1], [1, 4]][r],
                     [[0, 0], [2, 3], [2, 1], [0, 0]][r]))
    case('ragged_all_to_all_two_groups', 's32', [[0, 1], [2, 3]], reps,
         notes=['replica_groups={{0,1},{2,3}}: peer p is a position in the '
                'own group (replica 2 is position 0 of {2,3})'])

    # k = 2 updates per peer: offsets of length N*k = 4, idx = p*2 + j.
    # Receiver p's rows: per sender s and update j, a block placed by the
    # sender's output_offsets (disjoint blocks, a gap left unwritten).
    sizes = {(0, 0, 0): 1, (0, 0, 1): 2, (0, 1, 0): 2, (0, 1, 1): 0,
             (1, 0, 0): 1, (1, 0, 1): 1, (1, 1, 0): 3, (1, 1, 1): 1}
    cursor = [0, 0]
    in_off = [[0] * 4, [0] * 4]
    send = [[0] * 4, [0] * 4]
    out_off = [[0] * 4, [0] * 4]
    for p in range(2):            # receiver
        for s in range(2):        # sender
            for j in range(2):
                m = sizes[(s, p, j)]
                idx = p * 2 + j
                send[s][idx] = m
                in_off[s][idx] = int(rs.randint(0, 8 - m + 1))
                out_off[s][idx] = cursor[p] + (1 if (s, j) == (1, 0) else 0)
                cursor[p] = out_off[s][idx] + m
    assert max(cursor) <= 10
    case('ragged_all_to_all_two_updates_per_peer', 'f32', [[0, 1]],
         [(np.arange(8) + 1, np.zeros(10), in_off[0], send[0], out_off[0]),
          (np.arange(8) * -1 - 1, np.zeros(10), in_off[1], send[1],
           out_off[1])],
         notes=['k = 2: f32[8] input, f32[10] output, s32[4] '
                'metadata; update j to peer p is entry p*2 + j; one size '
                'is 0; output has more rows than input'])

    # s64 metadata, bf16 data of 2-element rows, one group of three.
    reps = []
    k3 = [[2, 1, 1], [0, 2, 2], [1, 1, 0]]   # k3[s][p]: rows s sends p
    recv_off = {}
    for p in range(3):
        c = 0
        for s in range(3):
            recv_off[(s, p)] = c
            c += k3[s][p]
    for s in range(3):
        inp = rs.randint(-16, 17, size=(5, 2)) / 4.0
        io = [int(rs.randint(0, 5 - k3[s][p] + 1)) for p in range(3)]
        reps.append((inp, np.full((5, 2), 0.5), io, k3[s],
                     [recv_off[(s, p)] for p in range(3)]))
    case('ragged_all_to_all_s64_bf16_three', 'bf16', [[0, 1, 2]], reps,
         off_t='s64',
         notes=['s64 offsets and sizes; bf16[5,2] data; three replicas; '
                'every receiver packs the senders\' rows in sender order'])


# ----------------------------------------------------------------------------
# collective-reduce
# ----------------------------------------------------------------------------

def collective_reduce_ref(groups, per_replica, fn, roots=None):
    """The root of each group (position 0, or roots[r] of a member r:
    the dynamic root, a position in the group) gets the fold of fn over the
    members' values in group order; every other member keeps its input
    (Plexa's choice: XLA leaves it unspecified)."""
    res = [np.array(v) for v in per_replica]
    for grp in groups:
        pos = 0 if roots is None else int(roots[grp[0]])
        acc = per_replica[grp[0]]
        for r in grp[1:]:
            acc = fn(acc, per_replica[r])
        res[grp[pos]] = np.asarray(acc).astype(res[grp[pos]].dtype)
    return res


NONROOT_NOTE = ('XLA leaves a non-root member\'s result unspecified (ncclReduce '
                'writes only the root); Plexa\'s documented choice: a '
                'non-root member gets its own input unchanged')


def gen_collective_reduce():
    g = 'collective'
    rs = np.random.RandomState(20261208)
    fns = {'add': np.add, 'maximum': np.maximum, 'multiply': np.multiply,
           'minimum': np.minimum}

    def case(name, t, opn, groups, per_replica, notes=()):
        c = scalar_comp('%s_%s' % (opn, t), opn, t)
        vals = [V(t, x) for x in per_replica]
        res = collective_reduce_ref(groups, [v.a for v in vals], fns[opn])
        e = Comp('main', entry=True)
        p = e.param(vals[0].shape(), 'input')
        gtext = '{%s}' % ','.join(dims_attr(gr) for gr in groups)
        e.root(vals[0].shape(), 'collective-reduce(%s), replica_groups=%s, '
               'has_dynamic_root=false, to_apply=%%%s' % (p, gtext, c.name),
               'cr')
        add_case(g, name, 'numpy', module(name, e, c), [], None,
                 replica_inputs=[[v] for v in vals],
                 replica_expects=[V(t, r) for r in res],
                 notes=list(notes) + [NONROOT_NOTE])

    case('collective_reduce_sum_two_groups', 'f32', 'add',
         [[0, 1], [2, 3]],
         [rs.randint(-20, 21, size=4) / 4.0 for _ in range(4)],
         notes=['the root of each group is its first member (rank 0): '
                'replicas 0 and 2 get their group\'s sum'])
    case('collective_reduce_max_root_listed_first', 's32', 'maximum',
         [[2, 0, 1]], [rs.randint(-100, 101, size=(2, 3)) for _ in range(3)],
         notes=['replica_groups={{2,0,1}}: the root is rank 0 of the group, '
                'replica 2'])
    case('collective_reduce_singleton_groups', 'u8', 'multiply',
         [[0], [1]], [[3, 200], [7, 9]],
         notes=['each replica is alone in its group and its root: the '
                'result is its input'])

    # Dynamic root: the trailing s32[1] operand, the same on every replica,
    # gives the root's position in the group.
    c = G.add_comp('f32')
    xs = [V('f32', rs.randint(-20, 21, size=3) / 2.0) for _ in range(4)]
    root = V('s32', [1])
    res = collective_reduce_ref([[0, 1], [2, 3]], [v.a for v in xs], np.add,
                                roots=[1, 1, 1, 1])
    e = Comp('main', entry=True)
    p = e.param(xs[0].shape(), 'input')
    q = e.param(root.shape(), 'root')
    e.root(xs[0].shape(), 'collective-reduce(%s, %s), replica_groups='
           '{{0,1},{2,3}}, has_dynamic_root=true, to_apply=%%add_f32'
           % (p, q), 'cr')
    add_case(g, 'collective_reduce_dynamic_root', 'numpy',
             module('collective_reduce_dynamic_root', e, c), [], None,
             replica_inputs=[[v, root] for v in xs],
             replica_expects=[V('f32', r) for r in res],
             notes=['has_dynamic_root=true: the trailing s32[1] operand (one '
                    'root per data operand, not reduced, not in the result) '
                    'gives the root\'s rank in the group: 1, so replicas 1 '
                    'and 3 get the sums', NONROOT_NOTE])

    # Two data operands: two independent reduces, a tuple result.
    c = G.add_comp('f32')
    a = [V('f32', rs.randint(-9, 10, size=2)) for _ in range(2)]
    b = [V('f32', rs.randint(-9, 10, size=(2, 2)) / 2.0) for _ in range(2)]
    ra = collective_reduce_ref([[1, 0]], [v.a for v in a], np.add)
    rb = collective_reduce_ref([[1, 0]], [v.a for v in b], np.add)
    e = Comp('main', entry=True)
    p = e.param(a[0].shape(), 'a')
    q = e.param(b[0].shape(), 'b')
    e.root('(%s, %s)' % (a[0].shape(), b[0].shape()),
           'collective-reduce(%s, %s), replica_groups={{1,0}}, '
           'has_dynamic_root=false, to_apply=%%add_f32' % (p, q), 'cr')
    add_case(g, 'collective_reduce_two_operands', 'numpy',
             module('collective_reduce_two_operands', e, c), [], None,
             replica_inputs=[[a[r], b[r]] for r in range(2)],
             replica_expects=[Tup(V('f32', ra[r]), V('f32', rb[r]))
                              for r in range(2)],
             notes=['two data operands: two independent reduces, a tuple '
                    'of the results; replica_groups={{1,0}}: the root is '
                    'replica 1', NONROOT_NOTE])


def main():
    gen_mulhi()
    gen_scan()
    gen_shuffle()
    gen_scaled_dot()
    gen_ragged_all_to_all()
    gen_collective_reduce()
    gen_sparse_dot()
    for grp in OWN_GROUPS:
        d = os.path.join(G.CASES_DIR, grp)
        if os.path.isdir(d):
            shutil.rmtree(d)
    for grp, prefixes in OWN_PREFIXES.items():
        d = os.path.join(G.CASES_DIR, grp)
        for fn in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if fn.startswith(prefixes):
                os.remove(os.path.join(d, fn))
    counts = {}
    for key, text in G.CASES.items():
        grp, fn = key.split('/')
        assert grp in OWN_GROUPS or fn.startswith(OWN_PREFIXES[grp]), key
        path = os.path.join(G.CASES_DIR, key + '.hlo')
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w') as f:
            f.write(text)
        counts[grp] = counts.get(grp, 0) + 1
    for grp, n in counts.items():
        print('%-16s %d' % (grp, n))
    print('%-16s %d' % ('total', len(G.CASES)))


if __name__ == '__main__':
    main()
