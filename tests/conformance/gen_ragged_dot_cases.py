#!/usr/bin/python3
"""Conformance cases for ragged-dot (cases/ragged_dot), expected values from
numpy. Run by hand with Debian's python3; the cases are committed:

    /usr/bin/python3 tests/conformance/gen_ragged_dot_cases.py

It borrows gen_cases.py's helpers (values, the HLO text builder, the case
header) but writes only cases/ragged_dot/, so the other cases stay as they
are. The reference follows JAX's own (lax._ragged_dot_general_impl): each
ragged operand gets a leading group axis, entries outside their group are
zeroed, then an ordinary dot_general (gen_cases.dot_ref) contracts, where
Plexa's evaluator (core/eval/ragged_dot.cc) instead loops over the groups a
row belongs to.
"""
import os
import shutil

import numpy as np

import gen_cases as G
from gen_cases import (TOL_SUM_F32, V, Comp, add_case, dims_attr,
                       dot_dims_attrs, dot_ref, is_int, make, module,
                       round_result)

def ragged_dot_ref(a, b, gs, lb, rb, lc, rc, lr, rg):
    """JAX's reference (lax._ragged_dot_general_impl) in numpy: the ragged
    operand(s) expanded with a leading group axis, entries outside the group
    zeroed, then dot_general (dot_ref); group bounds from the cumulative sum
    of group_sizes, broadcast to [prefix..., g] when given as [g]."""
    lb, rb, lc, rc = list(lb), list(rb), list(lc), list(rc)
    if lr in lb:
        mode = 'batch'
        prefix = lb[:lb.index(lr)]
    elif lr in lc:
        mode = 'contracting'
        prefix = lb + lc[:lc.index(lr)]
    else:
        mode = 'noncontracting'
        prefix = lb + [d for d in range(lr) if d not in lb and d not in lc]
    if mode == 'batch':
        return dot_ref(a, b, lb, rb, lc, rc)
    groups = gs.shape[-1]
    gs = np.broadcast_to(gs, tuple(a.shape[d] for d in prefix) + (groups,))
    ends = np.cumsum(gs.astype(np.int64), axis=-1)
    starts = ends - gs.astype(np.int64)

    def expand(x, dim, pdims):
        out = np.zeros((groups,) + x.shape, dtype=x.dtype)
        for idx in np.ndindex(*x.shape):
            row = tuple(idx[d] for d in pdims)
            for g in range(groups):
                if starts[row + (g,)] <= idx[dim] < ends[row + (g,)]:
                    out[(g,) + idx] = x[idx]
        return out

    inc = lambda dims: [d + 1 for d in dims]
    if mode == 'noncontracting':
        return dot_ref(expand(a, lr, prefix), b, inc(lb), rb,
                       [0] + inc(lc), [rg] + rc)
    # The rhs's ragged dimension and prefix are the lhs's partners.
    rr = rc[lc.index(lr)]
    rprefix = [rb[lb.index(d)] if d in lb else rc[lc.index(d)]
               for d in prefix]
    return dot_ref(expand(a, lr, prefix), expand(b, rr, rprefix),
                   [0] + inc(lb), [0] + inc(rb), inc(lc), inc(rc))


def gen_ragged_dot():
    g = 'ragged_dot'
    rs = np.random.RandomState(20261202)

    def ri(shape, lo=-5, hi=6):
        return rs.randint(lo, hi, size=shape)

    def case(name, a, b, gs, lc, rc, lr, rg=None, lb=(), rb=(), out_t=None,
             tol=None, notes=()):
        out_t = out_t or a.t
        # Operands of another type than the result are converted to it
        # first (as dot): the reference works on exact values.
        r = ragged_dot_ref(a.a, b.a, gs.a, lb, rb, lc, rc, lr, rg)
        out = V(out_t, make(out_t, r) if is_int(out_t) else
                round_result(out_t, r))
        attrs = dot_dims_attrs(lb, rb, lc, rc)
        attrs += ', lhs_ragged_dims={%d}' % lr
        if rg is not None:
            attrs += ', rhs_group_dims={%d}' % rg
        e = Comp('main', entry=True)
        p0 = e.param(a.shape())
        p1 = e.param(b.shape())
        p2 = e.param(gs.shape())
        e.root(out.shape(), 'ragged-dot(%s, %s, %s)%s' % (p0, p1, p2, attrs),
               'r')
        add_case(g, name, 'numpy', module(name, e), [a, b, gs], out, tol,
                 notes)

    # Ragged in an lhs non-contracting dimension (rhs has a group dimension).
    case('noncontracting', V('f32', ri((6, 4))), V('f32', ri((3, 4, 5))),
         V('s32', [2, 0, 3]), lc=[1], rc=[1], lr=0, rg=0,
         notes=['[m,k], [g,k,n], [g] -> [m,n]; group 1 is empty; row 5 is '
                'beyond the sum of the sizes: zeros'])
    case('noncontracting_batch_sizes_per_batch', V('f32', ri((2, 5, 3))),
         V('f32', ri((2, 2, 3, 4))), V('s64', [[2, 3], [1, 1]]),
         lb=[0], rb=[1], lc=[2], rc=[2], lr=1, rg=0,
         notes=['[b,m,k], [g,b,k,n], [b,g] -> [b,m,n]'])
    case('noncontracting_batch_sizes_broadcast', V('f32', ri((2, 5, 3))),
         V('f32', ri((2, 2, 3, 4))), V('s32', [3, 1]),
         lb=[0], rb=[1], lc=[2], rc=[2], lr=1, rg=0,
         notes=['group_sizes [g] stands for the same sizes in every batch'])
    case('noncontracting_outer_dim_sizes', V('s32', ri((3, 4, 2))),
         V('s32', ri((2, 2, 3))), V('s32', [[4, 0], [1, 2], [0, 0]]),
         lc=[2], rc=[1], lr=1, rg=0,
         notes=['an lhs non-contracting dimension outer to the ragged one '
                'indexes group_sizes ([x,g])'])
    case('noncontracting_group_dim_last', V('f32', ri((5, 3))),
         V('f32', ri((3, 2, 2))), V('s64', [3, 2]), lc=[1], rc=[0], lr=0,
         rg=2)
    case('noncontracting_f32_random', V('f32', rs.uniform(-4.0, 4.0, (8, 6))),
         V('f32', rs.uniform(-4.0, 4.0, (3, 6, 5))), V('s32', [3, 1, 3]), lc=[1], rc=[1],
         lr=0, rg=0, tol=TOL_SUM_F32)
    case('noncontracting_s8_to_s32', V('s8', ri((4, 3), -128, 128)),
         V('s8', ri((2, 3, 2), -128, 128)), V('s32', [1, 3]), lc=[1],
         rc=[1], lr=0, rg=0, out_t='s32',
         notes=['a wider result type (preferred_element_type): the '
                's8 products do not wrap'])
    case('noncontracting_bf16_to_f32', V('bf16', ri((4, 3))),
         V('bf16', ri((2, 3, 2))), V('s32', [2, 1]), lc=[1], rc=[1], lr=0,
         rg=0, out_t='f32')
    case('noncontracting_zero_groups', V('f32', ri((3, 2))),
         V('f32', np.zeros((0, 2, 4), np.float32)),
         V('s32', np.zeros((0,), np.int32)), lc=[1], rc=[1], lr=0, rg=0,
         notes=['no groups: every row is beyond the sum: zeros'])
    # Ragged in the contracting dimension: the result gains the groups.
    case('contracting', V('f32', ri((3, 6))), V('f32', ri((6, 2))),
         V('s32', [1, 3, 1]), lc=[1], rc=[0], lr=1,
         notes=['[m,k], [k,n], [g] -> [g,m,n]; k=5 is beyond the sum of '
                'the sizes: in no group'])
    case('contracting_batch_sizes_per_batch', V('s32', ri((2, 3, 5))),
         V('s32', ri((2, 5, 2))), V('s32', [[2, 0, 3], [1, 1, 1]]), lb=[0],
         rb=[0], lc=[2], rc=[1], lr=2,
         notes=['[b,m,k], [b,k,n], [b,g] -> [g,b,m,n]'])
    case('contracting_two_contracting_dims', V('f32', ri((2, 3, 4))),
         V('f32', ri((3, 4, 2))), V('s64', [[1, 3], [2, 2], [0, 4]]),
         lc=[1, 2], rc=[0, 1], lr=2,
         notes=['ragged in the second contracting dimension: the first '
                'indexes group_sizes ([x,g])'])
    case('contracting_f32_random', V('f32', rs.uniform(-4.0, 4.0, (4, 7))),
         V('f32', rs.uniform(-4.0, 4.0, (7, 3))), V('s32', [2, 5]), lc=[1], rc=[0], lr=1,
         tol=TOL_SUM_F32)
    # Ragged in a batch dimension: XLA's expander (RaggedDotRewriter) and
    # JAX's reference compute the plain dot and read no group sizes.
    case('batch', V('f32', ri((3, 2, 4))), V('f32', ri((3, 4, 2))),
         V('s32', [1, 1]), lb=[0], rb=[0], lc=[2], rc=[1], lr=0,
         notes=['[b,m,k], [b,k,n], [g] -> [b,m,n]: the plain dot (XLA '
                'and JAX read no group sizes here), batch 2 included'])


def main():
    gen_ragged_dot()
    out_dir = os.path.join(G.CASES_DIR, 'ragged_dot')
    if os.path.isdir(out_dir):
        shutil.rmtree(out_dir)
    os.makedirs(out_dir)
    for key, text in G.CASES.items():
        with open(os.path.join(G.CASES_DIR, key + '.hlo'), 'w') as f:
            f.write(text)
    print('%-16s %d' % ('ragged_dot', len(G.CASES)))


if __name__ == '__main__':
    main()
