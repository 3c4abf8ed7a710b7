#!/usr/bin/env python3
"""Layout fuzz test (issues 10 and 17).

For every seed, generates a random HLO module: a chain of transpose, copy,
bitcast, reshape, dot, reduce, all-reduce (one replica), broadcast, add,
negate, slice, dynamic-slice and concatenate over random non-default layouts
(permuted minor_to_major, one- and two-level tiling with shapes that are not
multiples of the tile, memory space S(1)). Every value is also computed by a
numpy model that shares no code with Plexa:

  * every op but bitcast acts on logical numpy arrays (layouts do not change
    its result);
  * bitcast lays its operand out in physical memory (minor_to_major, then
    each tile in turn, padding every tiled dimension to a multiple of its
    tile size, as XLA's tiled layouts define it; seeds 000-002), reads the
    bytes back under the result's shape and layout.

The generator only emits bitcasts XLA accepts: equal physical byte sizes,
padding included, and every element of the result read from an element (not
a padding slot) of the operand, so that the expected value is defined.

Each module runs with `plexa run` on every backend (interpreter, reference,
cpu), with the default pipeline and with --no-opt, and is compared with the
model: exactly for integer types and for chains without dot/reduce (inputs
are small integers), with a relative tolerance otherwise.

  layout_fuzz.py --plexa=build/release/bin/plexa --seeds=0-99
  layout_fuzz.py --plexa=... --seeds=17 --print-module     # the module only
  layout_fuzz.py --plexa=... --seeds=0-499 --list-failures  # one line each
  layout_fuzz.py --plexa=... --seeds=0-99 --ops=bitcast,copy,transpose

Exit status: 0 when every run matches the model, 1 otherwise.
"""

import argparse
import concurrent.futures
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

ALL_OPS = ("transpose", "copy", "bitcast", "reshape", "dot", "reduce",
           "all-reduce", "broadcast", "add", "negate", "slice",
           "dynamic-slice", "concatenate")
# Relative frequency in the op mix: the layout-sensitive ops more often.
OP_WEIGHTS = {"bitcast": 4, "copy": 2, "transpose": 2}
ALL_BACKENDS = ("interpreter", "reference", "cpu")
ALL_PIPELINES = ("default", "no-opt")

MAX_ELEMENTS = 1 << 15   # logical elements of any value
MAX_SLOTS = 1 << 18      # physical element slots of any value

# ---------------------------------------------------------------------------
# Element types. bf16 values are held as float32 in the model (only exact
# small integers are generated for it) and written as numpy's '<V2'.

BF16_NPY = np.dtype("V2")


class DType:
    def __init__(self, name, np_dtype, bits, is_float):
        self.name = name
        self.np = np_dtype       # dtype of the model's arrays
        self.bits = bits
        self.is_float = is_float

    def to_npy(self, arr):
        """The array as written to a .npy file for Plexa."""
        if self.name == "bf16":
            top = (arr.astype(np.float32).view(np.uint32) >> 16).astype("<u2")
            return top.view(BF16_NPY)
        return arr.astype(self.np)

    def from_npy(self, arr):
        if self.name == "bf16":
            if arr.dtype.kind != "V" or arr.dtype.itemsize != 2:
                raise ValueError("expected bf16 (|V2), got %s" % arr.dtype)
            bits = arr.view("<u2").astype(np.uint32) << 16
            return bits.view(np.float32)
        if arr.dtype != self.np:
            raise ValueError("expected %s, got %s" % (self.np, arr.dtype))
        return arr


DTYPES = {
    "f32": DType("f32", np.dtype("float32"), 32, True),
    "s32": DType("s32", np.dtype("int32"), 32, False),
    "f16": DType("f16", np.dtype("float16"), 16, True),
    "bf16": DType("bf16", np.dtype("float32"), 16, True),
    "s16": DType("s16", np.dtype("int16"), 16, False),
    "s8": DType("s8", np.dtype("int8"), 8, False),
}

# ---------------------------------------------------------------------------
# Layouts and the physical-memory model.


class Layout:
    """minor_to_major, tiles (a tuple of tuples, applied in order) and the
    memory space."""

    def __init__(self, m2m, tiles=(), space=0):
        self.m2m = tuple(m2m)
        self.tiles = tuple(tuple(t) for t in tiles)
        self.space = space

    def text(self):
        s = "{" + ",".join(str(d) for d in self.m2m)
        extra = ""
        if self.tiles:   # XLA's spelling: T(8,128)(2,1)
            extra = "T" + "".join("(" + ",".join(str(x) for x in t) + ")"
                                  for t in self.tiles)
        if self.space:
            extra += "S(%d)" % self.space
        if extra:
            s += ":" + extra
        return s + "}"

    def key(self):
        return (self.m2m, self.tiles, self.space)


def default_layout(rank):
    return Layout(tuple(range(rank - 1, -1, -1)))


def shape_text(dtype, dims, layout):
    s = "%s[%s]" % (dtype.name, ",".join(str(d) for d in dims))
    if dims:
        s += (layout or default_layout(len(dims))).text()
    return s


def slot_map(dims, layout):
    """(lin, total): lin[i] is the physical element slot of the i-th element
    of the logical array in C order; total is the number of slots, padding
    included.

    1. the dimensions in physical order: major to minor, the reverse of
       minor_to_major;
    2. each tile in turn covers the most minor len(tile) dimensions (missing
       major ones count as size 1): each covered dimension of size d with
       tile size t becomes (ceil(d/t), t), giving [uncovered..., tile
       counts..., tile sizes...]; the next tile applies to that shape (so
       T(8,128)(2,1) tiles every 8x128 tile by 2x1);
    3. the resulting dimensions are laid out row-major.
    """
    dims = tuple(dims)
    n = math.prod(dims)
    if not dims:
        return np.zeros(1, np.int64), 1
    layout = layout or default_layout(len(dims))
    grid = np.indices(dims, dtype=np.int64).reshape(len(dims), n)
    order = layout.m2m[::-1]
    cur_dims = [dims[d] for d in order]
    cur_idx = [grid[d] for d in order]
    for tile in layout.tiles:
        k = len(tile)
        if k > len(cur_dims):
            extra = k - len(cur_dims)
            cur_dims = [1] * extra + cur_dims
            cur_idx = [np.zeros(n, np.int64)] * extra + cur_idx
        u = len(cur_dims) - k
        counts, sizes, count_idx, size_idx = [], [], [], []
        for j, t in enumerate(tile):
            d, i = cur_dims[u + j], cur_idx[u + j]
            counts.append(-(-d // t))
            sizes.append(t)
            count_idx.append(i // t)
            size_idx.append(i % t)
        cur_dims = cur_dims[:u] + counts + sizes
        cur_idx = cur_idx[:u] + count_idx + size_idx
    lin = np.zeros(n, np.int64)
    for d, i in zip(cur_dims, cur_idx):
        lin = lin * d + i
    return lin, math.prod(cur_dims)


def physical_slots(dims, layout):
    return slot_map(dims, layout)[1]


def bitcast_source(src_dims, src_layout, dst_dims, dst_layout):
    """For each element of the bitcast's result (C order), the index (C
    order) of the operand element stored in the same slot; None when the
    byte sizes differ or a result element would read a padding slot
    (operand and result have the same element type)."""
    src_lin, src_total = slot_map(src_dims, src_layout)
    dst_lin, dst_total = slot_map(dst_dims, dst_layout)
    if src_total != dst_total:
        return None
    memory = np.full(src_total, -1, np.int64)
    memory[src_lin] = np.arange(src_lin.size)
    source = memory[dst_lin]
    if (source < 0).any():
        return None
    return source


def check_model():
    """The model against the worked examples of the layout specification
    (seeds 000-002, XLA's tiled layouts); raises AssertionError."""
    def slot(dims, layout, index):
        lin, _ = slot_map(dims, layout)
        return int(lin[np.ravel_multi_index(index, dims)])
    # f32[2,3] = [[a,b,c],[d,e,f]]: {0,1} is "a d b e c f", {1,0} row major.
    assert list(slot_map((2, 3), Layout((0, 1)))[0]) == [0, 2, 4, 1, 3, 5]
    assert list(slot_map((2, 3), Layout((1, 0)))[0]) == [0, 1, 2, 3, 4, 5]
    # f32[3,5]{1,0:T(2,2)}: padded to [4,6] in 2x2 tiles, {2,3} -> 17.
    assert slot((3, 5), Layout((1, 0), [(2, 2)]), (2, 3)) == 17
    assert physical_slots((3, 5), Layout((1, 0), [(2, 2)])) == 24
    # T(8,128)(2,1) for 16-bit types: rows of an 8x128 tile interleaved in
    # pairs, so (1,0) sits next to (0,0) and (0,1) two slots further.
    bf = Layout((1, 0), [(8, 128), (2, 1)])
    assert [slot((8, 128), bf, i) for i in [(1, 0), (0, 1), (2, 0)]] == \
        [1, 2, 256]
    # A tile with more dimensions than the shape: missing major dims are 1.
    assert physical_slots((3,), Layout((0,), [(8, 128)])) == 1024
    # minor_to_major {0,1} with T(2,3): dimension 0 is the minor tiled one.
    assert slot((5, 2), Layout((0, 1), [(2, 3)]), (4, 1)) == 6 + 1 * 3 + 1
    # Bitcast of the layout spec's example: f32[1,256,256]{2,1,0:T(8,128)}
    # and f32[256,256]{1,0:T(8,128)} share their bytes element for element.
    src = bitcast_source((1, 256, 256), Layout((2, 1, 0), [(8, 128)]),
                         (256, 256), Layout((1, 0), [(8, 128)]))
    assert src is not None and (src == np.arange(256 * 256)).all()
    # ... and an untiled reshape of a padded tiled array reads padding.
    assert bitcast_source((6, 10), Layout((1, 0), [(4, 6)]), (96,),
                          Layout((0,))) is None


# ---------------------------------------------------------------------------
# The generator.


class Value:
    def __init__(self, name, dtype, dims, layout, arr, approx=False):
        self.name = name
        self.dtype = dtype
        self.dims = tuple(dims)
        self.layout = layout if dims else None
        self.arr = arr
        self.approx = approx   # dot/reduce rounding may differ

    def shape(self):
        return shape_text(self.dtype, self.dims, self.layout)


class Generator:
    def __init__(self, seed, ops):
        self.seed = seed
        self.rng = random.Random(seed)
        self.nrng = np.random.default_rng(seed)
        self.ops = ops
        self.weights = [OP_WEIGHTS.get(op, 1) for op in ops]
        self.lines = []
        self.params = []
        self.counter = 0
        self.reducers = set()
        self.stats = {}   # what the module exercises, for the summary

    def count(self, what, n=1):
        self.stats[what] = self.stats.get(what, 0) + n

    # -- helpers --
    def fresh(self, prefix):
        self.counter += 1
        return "%s.%d" % (prefix, self.counter)

    def emit(self, dtype, dims, layout, text, arr, approx=False,
             prefix="v"):
        v = Value(self.fresh(prefix), dtype, dims, layout, arr, approx)
        self.lines.append("  %%%s = %s %s" % (v.name, v.shape(), text))
        return v

    def constant(self, dtype, value):
        return self.emit(dtype, (), None, "constant(%d)" % value,
                         np.array(value, dtype.np), prefix="c")

    def random_data(self, dtype, dims):
        hi = 3 if dtype.is_float else 9
        data = self.nrng.integers(-hi, hi + 1, size=dims)
        return data.astype(dtype.np)

    def param(self, dtype, dims, layout=None):
        if layout is None:
            layout = self.random_layout(dims, dtype)
        v = Value("p%d" % len(self.params), dtype, dims, layout,
                  self.random_data(dtype, dims))
        self.params.append(v)
        self.lines.append("  %%%s = %s parameter(%d)"
                          % (v.name, v.shape(), len(self.params) - 1))
        return v

    def tile_menu(self, dtype):
        menu = [((128,),), ((8, 128),), ((2, 3),), ((3, 2),), ((4,),),
                ((2, 2),), ((1, 4),), ((4, 6), (2, 3)), ((2, 3, 2),),
                ((3,), (2,))]
        if dtype.bits == 16:
            menu += [((8, 128), (2, 1))] * 3 + [((4, 4), (2, 1)),
                                                ((2, 6), (2, 1))]
        if dtype.bits == 8:   # XLA's 8-bit tiling: T(8,128)(4,1)
            menu += [((8, 128), (4, 1))] * 3 + [((4, 4), (4, 1)),
                                                ((8, 6), (4, 1))]
        return menu

    def random_layout(self, dims, dtype, tile_prob=0.45):
        rank = len(dims)
        if rank == 0:
            return None
        m2m = list(range(rank - 1, -1, -1))
        if self.rng.random() < 0.6:
            self.rng.shuffle(m2m)
        tiles = ()
        if self.rng.random() < tile_prob:
            tiles = self.rng.choice(self.tile_menu(dtype))
        space = 1 if self.rng.random() < 0.15 else 0
        layout = Layout(m2m, tiles, space)
        if physical_slots(dims, layout) > MAX_SLOTS:
            layout = Layout(m2m, (), space)
        return layout

    def random_dims(self, rank, max_elements=4096):
        sizes = [1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 24, 32]
        while True:
            dims = tuple(self.rng.choice(sizes) for _ in range(rank))
            if math.prod(dims) <= max_elements:
                return dims

    def factorize(self, n, max_factors=4):
        """A random tuple of factors of n (1s allowed)."""
        factors = []
        rest = n
        count = self.rng.randint(1, max_factors)
        for _ in range(count - 1):
            divisors = [d for d in range(1, min(rest, 64) + 1)
                        if rest % d == 0]
            d = self.rng.choice(divisors)
            factors.append(d)
            rest //= d
        factors.append(rest)
        self.rng.shuffle(factors)
        return tuple(factors)

    def reducer(self, dtype):
        self.reducers.add(dtype.name)
        return "%%add_%s" % dtype.name

    # -- ops: each returns a new Value or None when not applicable --
    def op_transpose(self, v):
        rank = len(v.dims)
        if rank < 2:
            return None
        perm = list(range(rank))
        while perm == sorted(perm):
            self.rng.shuffle(perm)
        dims = tuple(v.dims[p] for p in perm)
        return self.emit(v.dtype, dims, self.random_layout(dims, v.dtype),
                         "transpose(%%%s), dimensions={%s}"
                         % (v.name, ",".join(map(str, perm))),
                         v.arr.transpose(perm), v.approx)

    def op_copy(self, v):
        if not v.dims:
            return None
        layout = self.random_layout(v.dims, v.dtype, tile_prob=0.6)
        return self.emit(v.dtype, v.dims, layout, "copy(%%%s)" % v.name,
                         v.arr.copy(), v.approx)

    def bitcast_candidates(self, v):
        """Candidate (dims, layout) targets; bitcast_source decides which
        are valid."""
        rank = len(v.dims)
        layout = v.layout or default_layout(rank)
        total = physical_slots(v.dims, layout)

        cands = []

        def space():
            return 1 if self.rng.random() < 0.15 else 0

        def with_random_m2m(phys_dims, tiles):
            r = len(phys_dims)
            m2m = list(range(r - 1, -1, -1))
            if self.rng.random() < 0.7:
                self.rng.shuffle(m2m)
            dims = [0] * r
            for pos, d in enumerate(m2m[::-1]):
                dims[d] = phys_dims[pos]
            return tuple(dims), Layout(m2m, tiles, space())

        # Untiled targets: the physical slots refactored (with a transposed
        # logical order, e.g. f32[m,n]{0,1} -> f32[n,m]{1,0}).
        if rank and not layout.tiles:
            phys = tuple(v.dims[d] for d in layout.m2m[::-1])
            cands.append(with_random_m2m(phys, ()))
        for _ in range(4):
            cands.append(with_random_m2m(self.factorize(total), ()))
        # Tiled targets over a tile grid of the same size, dims anywhere in
        # (t*(count-1), t*count] so that padding matters.
        for _ in range(6):
            tiles = self.rng.choice(self.tile_menu(v.dtype))
            first = tiles[0]
            per_tile = math.prod(first)
            if total % per_tile:
                continue
            grid = total // per_tile
            k = len(first)
            counts = self.factorize(grid, max_factors=k + 2)
            counts = (1,) * max(0, k - len(counts)) + counts
            major, counts = counts[:-k], counts[-k:]
            covered = []
            for c, t in zip(counts, first):
                lo = t * (c - 1) + 1
                covered.append(self.rng.randint(lo, t * c)
                               if self.rng.random() < 0.6 else t * c)
            cands.append(with_random_m2m(tuple(major) + tuple(covered),
                                         tiles))
        # The same tiling with a size-1 dimension inserted or removed.
        if rank < 5:
            p = self.rng.randint(0, rank)
            m2m = [d + 1 if d >= p else d for d in layout.m2m]
            m2m.insert(self.rng.randint(0, rank), p)
            dims = v.dims[:p] + (1,) + v.dims[p:]
            cands.append((dims, Layout(m2m, layout.tiles, space())))
        ones = [d for d in range(rank) if v.dims[d] == 1]
        if ones:
            p = self.rng.choice(ones)
            m2m = [d - 1 if d > p else d for d in layout.m2m if d != p]
            dims = v.dims[:p] + v.dims[p + 1:]
            if dims:
                cands.append((dims, Layout(m2m, layout.tiles, space())))
        # The same layout with padded dimensions shrunk.
        if layout.tiles:
            dims = tuple(self.rng.randint(max(1, d - 7), d) for d in v.dims)
            cands.append((dims, Layout(layout.m2m, layout.tiles, space())))
        # The same dimensions under another layout.
        if rank:
            cands.append((v.dims, self.random_layout(v.dims, v.dtype)))
        self.rng.shuffle(cands)
        return cands

    def op_bitcast(self, v):
        for dims, layout in self.bitcast_candidates(v):
            if math.prod(dims) > MAX_ELEMENTS:
                continue
            if dims == v.dims and layout.key() == (v.layout and
                                                   v.layout.key()):
                continue
            source = bitcast_source(v.dims, v.layout, dims, layout)
            if source is None:
                continue
            arr = v.arr.reshape(-1)[source].reshape(dims)
            src_layout = v.layout or default_layout(len(v.dims))
            self.count("bitcasts")
            if src_layout.tiles or layout.tiles:
                self.count("bitcasts with a tiled side")
            if (physical_slots(v.dims, src_layout) > math.prod(v.dims) or
                    physical_slots(dims, layout) > math.prod(dims)):
                self.count("bitcasts with padding")
            return self.emit(v.dtype, dims, layout,
                             "bitcast(%%%s)" % v.name, arr, v.approx)
        return None

    def op_reshape(self, v):
        n = math.prod(v.dims)
        dims = self.factorize(n)
        if dims == v.dims:
            return None
        return self.emit(v.dtype, dims, self.random_layout(dims, v.dtype),
                         "reshape(%%%s)" % v.name, v.arr.reshape(dims),
                         v.approx)

    def op_dot(self, v):
        if len(v.dims) != 2 or v.dtype.name not in ("f32", "s32"):
            return None
        c = self.rng.randint(0, 1)
        k, m = v.dims[c], v.dims[1 - c]
        n = self.rng.choice([1, 2, 3, 5, 8, 12, 16, 24])
        rc = self.rng.randint(0, 1)
        rdims = (k, n) if rc == 0 else (n, k)
        rhs = self.param(v.dtype, rdims)
        lhs = v.arr if c == 1 else v.arr.T
        r = rhs.arr if rc == 0 else rhs.arr.T
        if v.dtype.is_float:
            out = (lhs.astype(np.float64) @ r.astype(np.float64))
        else:
            out = lhs.astype(np.int64) @ r.astype(np.int64)
        out = out.astype(v.dtype.np)
        dims = (m, n)
        return self.emit(v.dtype, dims, self.random_layout(dims, v.dtype),
                         "dot(%%%s, %%%s), lhs_contracting_dims={%d}, "
                         "rhs_contracting_dims={%d}"
                         % (v.name, rhs.name, c, rc), out,
                         approx=v.dtype.is_float)

    def op_reduce(self, v):
        rank = len(v.dims)
        if rank == 0 or v.dtype.name not in ("f32", "s32"):
            return None
        count = self.rng.randint(1, rank)
        axes = tuple(sorted(self.rng.sample(range(rank), count)))
        zero = self.constant(v.dtype, 0)
        wide = np.float64 if v.dtype.is_float else np.int64
        out = v.arr.astype(wide).sum(axis=axes).astype(v.dtype.np)
        dims = tuple(d for i, d in enumerate(v.dims) if i not in axes)
        return self.emit(v.dtype, dims, self.random_layout(dims, v.dtype),
                         "reduce(%%%s, %%%s), dimensions={%s}, to_apply=%s"
                         % (v.name, zero.name, ",".join(map(str, axes)),
                            self.reducer(v.dtype)),
                         np.asarray(out), approx=v.dtype.is_float)

    def op_all_reduce(self, v):
        if not v.dims:
            return None
        return self.emit(v.dtype, v.dims,
                         self.random_layout(v.dims, v.dtype),
                         "all-reduce(%%%s), replica_groups={}, to_apply=%s"
                         % (v.name, self.reducer(v.dtype)), v.arr.copy(),
                         v.approx)

    def op_broadcast(self, v):
        rank = len(v.dims)
        size = self.rng.choice([1, 2, 3, 4, 5, 8])
        if rank >= 4 or math.prod(v.dims) * size > MAX_ELEMENTS:
            return None
        p = self.rng.randint(0, rank)
        dims = v.dims[:p] + (size,) + v.dims[p:]
        mapping = [i if i < p else i + 1 for i in range(rank)]
        arr = np.broadcast_to(np.expand_dims(v.arr, p), dims).copy()
        return self.emit(v.dtype, dims, self.random_layout(dims, v.dtype),
                         "broadcast(%%%s), dimensions={%s}"
                         % (v.name, ",".join(map(str, mapping))), arr,
                         v.approx)

    def op_add(self, v):
        if self.rng.random() < 0.5:
            c = self.constant(v.dtype, self.rng.randint(1, 3))
            other = self.emit(v.dtype, v.dims,
                              self.random_layout(v.dims, v.dtype),
                              "broadcast(%%%s), dimensions={}" % c.name,
                              np.full(v.dims, c.arr, v.dtype.np))
        else:
            other = self.param(v.dtype, v.dims)
        a, b = (v, other) if self.rng.random() < 0.5 else (other, v)
        return self.emit(v.dtype, v.dims,
                         self.random_layout(v.dims, v.dtype),
                         "add(%%%s, %%%s)" % (a.name, b.name),
                         (a.arr + b.arr).astype(v.dtype.np), v.approx)

    def op_negate(self, v):
        return self.emit(v.dtype, v.dims,
                         self.random_layout(v.dims, v.dtype),
                         "negate(%%%s)" % v.name,
                         (-v.arr).astype(v.dtype.np), v.approx)

    def op_slice(self, v):
        if not v.dims:
            return None
        spec, index, dims = [], [], []
        for d in v.dims:
            start = self.rng.randint(0, d - 1)
            limit = self.rng.randint(start + 1, d)
            stride = self.rng.choice([1, 1, 2, 3])
            spec.append("[%d:%d:%d]" % (start, limit, stride))
            index.append(slice(start, limit, stride))
            dims.append(len(range(start, limit, stride)))
        dims = tuple(dims)
        return self.emit(v.dtype, dims, self.random_layout(dims, v.dtype),
                         "slice(%%%s), slice={%s}" % (v.name, ", ".join(spec)),
                         v.arr[tuple(index)].copy(), v.approx)

    def op_dynamic_slice(self, v):
        if not v.dims:
            return None
        s32 = DTYPES["s32"]
        starts, sizes, index = [], [], []
        for d in v.dims:
            size = self.rng.randint(1, d)
            start = self.rng.randint(-1, d - size + 2)  # clamped if outside
            starts.append(self.constant(s32, start).name)
            sizes.append(size)
            begin = min(max(start, 0), d - size)
            index.append(slice(begin, begin + size))
        dims = tuple(sizes)
        return self.emit(v.dtype, dims, self.random_layout(dims, v.dtype),
                         "dynamic-slice(%%%s, %s), dynamic_slice_sizes={%s}"
                         % (v.name, ", ".join("%" + s for s in starts),
                            ",".join(map(str, sizes))),
                         v.arr[tuple(index)].copy(), v.approx)

    def op_concatenate(self, v):
        if not v.dims:
            return None
        c = self.rng.randint(0, len(v.dims) - 1)
        size = self.rng.randint(1, 8)
        odims = v.dims[:c] + (size,) + v.dims[c + 1:]
        if math.prod(v.dims) + math.prod(odims) > MAX_ELEMENTS:
            return None
        other = self.param(v.dtype, odims)
        a, b = (v, other) if self.rng.random() < 0.5 else (other, v)
        arr = np.concatenate([a.arr, b.arr], axis=c)
        return self.emit(v.dtype, arr.shape,
                         self.random_layout(arr.shape, v.dtype),
                         "concatenate(%%%s, %%%s), dimensions={%d}"
                         % (a.name, b.name, c), arr, v.approx)

    # -- the module --
    def generate(self):
        dtype = DTYPES[self.rng.choice(["f32"] * 5 + ["s32"] * 2 +
                                       ["f16", "bf16", "s16", "s8"])]
        rank = self.rng.randint(1, 4)
        if self.rng.random() < 0.2:   # tile multiples, e.g. [1,256,256]
            dims = self.rng.choice([(1, 256, 256), (16, 256), (8, 128),
                                    (2, 16, 128), (8, 12), (256,)])
        else:
            dims = self.random_dims(rank)
        v = self.param(dtype, dims)
        values = [v]
        marks = [(len(self.lines), len(self.params))]
        steps = self.rng.randint(2, 7)
        tries = 0
        while len(values) <= steps and tries < 100:
            tries += 1
            op = self.rng.choices(self.ops, self.weights)[0]
            mark = (len(self.lines), len(self.params))
            w = getattr(self, "op_" + op.replace("-", "_"))(v)
            if w is None or math.prod(w.dims) > MAX_ELEMENTS:
                del self.lines[mark[0]:]   # drop what the attempt emitted
                del self.params[mark[1]:]
                continue
            v = w
            values.append(v)
            marks.append((len(self.lines), len(self.params)))
        self.values, self.marks = values, marks
        results = [v]
        if len(values) > 2 and self.rng.random() < 0.25:
            results.append(self.rng.choice(values[1:-1]))
        text = self.module_text(results)
        self.count("two-level tilings", text.count(")("))
        self.count("S(1) layouts", text.count("S(1)"))
        self.count("tuple results", int(len(results) > 1))
        return text, results

    def prefix(self, k):
        """(text, params, results) of the module cut after the k-th value of
        the chain, which becomes the result (after generate())."""
        nlines, nparams = self.marks[k]
        params = self.params[:nparams]
        results = [self.values[k]]
        return (self.module_text(results, self.lines[:nlines], params),
                params, results)

    def module_text(self, results, lines=None, params=None):
        out = ["HloModule layout_fuzz_%d" % self.seed, ""]
        for name in sorted(self.reducers):
            t = name
            out += ["%%add_%s (a: %s[], b: %s[]) -> %s[] {" % (t, t, t, t),
                    "  %%a = %s[] parameter(0)" % t,
                    "  %%b = %s[] parameter(1)" % t,
                    "  ROOT %%s = %s[] add(%%a, %%b)" % t, "}", ""]
        params = self.params if params is None else params
        lines = list(self.lines if lines is None else lines)
        sig = ", ".join("%s: %s" % (p.name, p.shape()) for p in params)
        if len(results) == 1 and results[0] in params:
            lines.append("  ROOT %%r = %s copy(%%%s)"
                         % (results[0].shape(), results[0].name))
            root_shape = results[0].shape()
        elif len(results) == 1:
            root_shape = results[0].shape()
            last = lines.pop()
            lines.append("  ROOT " + last.lstrip())
        else:
            root_shape = "(%s)" % ", ".join(r.shape() for r in results)
            lines.append("  ROOT %%result = %s tuple(%s)"
                         % (root_shape,
                            ", ".join("%" + r.name for r in results)))
        out.append("ENTRY %%main (%s) -> %s {" % (sig, root_shape))
        out += lines
        out.append("}")
        return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------
# Running and comparing.


def max_difference(expected, got):
    """Largest difference between got and the model (exact for integer
    values, relative for rounded float results); inf for a shape or type
    mismatch."""
    if got.shape != expected.arr.shape:
        return math.inf, "shape %s, expected %s" % (got.shape,
                                                     expected.arr.shape)
    want = expected.arr.astype(np.float64)
    have = got.astype(np.float64)
    if not np.isfinite(have).all():
        return math.inf, "non-finite values"
    diff = np.abs(have - want)
    if expected.approx:
        tol = 1e-5 if expected.dtype.bits == 32 else 1e-2
        diff = np.maximum(diff - tol * np.maximum(1.0, np.abs(want)), 0.0)
    d = float(diff.max()) if diff.size else 0.0
    if d == 0.0:
        return 0.0, ""
    where = np.unravel_index(int(np.argmax(diff)), diff.shape)
    return d, "at %s: expected %s, got %s" % (
        tuple(int(i) for i in where), want[where], have[where])


def run_case(plexa, label, text, params, results, backends, pipelines,
             workdir, timeout):
    """Runs one module on every backend and pipeline; returns failure dicts
    (backend, pipeline, diff, detail, module)."""
    case = os.path.join(workdir, label)
    os.makedirs(case, exist_ok=True)
    hlo = os.path.join(case, "module.hlo")
    with open(hlo, "w") as f:
        f.write(text)
    inputs = []
    for p in params:
        path = os.path.join(case, "%s.npy" % p.name)
        np.save(path, p.dtype.to_npy(p.arr))
        inputs.append("--input=" + path)
    failures = []
    for backend in backends:
        for pipeline in pipelines:
            out = os.path.join(case, "out_%s_%s" % (backend, pipeline))
            shutil.rmtree(out, ignore_errors=True)
            os.makedirs(out)
            cmd = [plexa, "run", hlo, "--backend=" + backend] + inputs
            if pipeline == "no-opt":
                cmd.append("--no-opt")
            if len(results) == 1:
                cmd.append("--output=" + os.path.join(out, "0.npy"))
            else:
                cmd.append("--output-dir=" + out)
            failure = {"backend": backend,
                       "pipeline": pipeline, "module": text}
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True,
                                      timeout=timeout)
            except subprocess.TimeoutExpired:
                failures.append(dict(failure, diff=math.inf,
                                     detail="timeout after %ds" % timeout))
                continue
            if proc.returncode != 0:
                msg = (proc.stderr.strip() or proc.stdout.strip())
                msg = msg.replace(hlo, "module.hlo")
                failures.append(dict(failure, diff=math.inf,
                                     detail="exit %d: %s" % (
                                         proc.returncode, msg[-2000:])))
                continue
            worst, detail = 0.0, ""
            for i, r in enumerate(results):
                try:
                    got = r.dtype.from_npy(
                        np.load(os.path.join(out, "%d.npy" % i)))
                    d, what = max_difference(r, got)
                except (OSError, ValueError) as e:
                    d, what = math.inf, str(e)
                if d > worst or (d == math.inf and not detail):
                    worst, detail = d, "result %d %s" % (i, what)
            if worst > 0:
                failures.append(dict(failure, diff=worst, detail=detail))
    return failures


def shrink(plexa, gen, failure, workdir, timeout):
    """The shortest prefix of the seed's chain that still fails on the same
    backend and pipeline: (text, failure) or None."""
    for k in range(len(gen.values)):
        text, params, results = gen.prefix(k)
        fails = run_case(plexa, "seed%d_prefix%d" % (gen.seed, k), text,
                         params, results, [failure["backend"]],
                         [failure["pipeline"]], workdir, timeout)
        if fails:
            return fails[0]
    return None


FEATURES = ("bitcasts", "bitcasts with a tiled side",
            "bitcasts with padding", "two-level tilings", "S(1) layouts",
            "tuple results")


def parse_seeds(spec):
    seeds = []
    for part in spec.replace(" ", "").split(","):
        if not part:
            continue
        if "-" in part[1:]:
            lo, hi = part.split("-", 1)
            seeds.extend(range(int(lo), int(hi) + 1))
        else:
            seeds.append(int(part))
    return seeds


def parse_list(spec, allowed, what):
    if spec in ("", "all"):
        return list(allowed)
    items = [s for s in spec.replace(" ", "").split(",") if s]
    for s in items:
        if s not in allowed:
            sys.exit("unknown %s '%s' (known: %s)" % (what, s,
                                                      ", ".join(allowed)))
    return items


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--plexa", help="the plexa binary (needed to run)")
    ap.add_argument("--seeds", default="0-29",
                    help="seeds: '0-99', '3,5,7', '0-9,42' (default 0-29)")
    ap.add_argument("--ops", default="all",
                    help="comma-separated op mix (default all): "
                    + ",".join(ALL_OPS))
    ap.add_argument("--backends", default="all",
                    help="comma-separated: " + ",".join(ALL_BACKENDS))
    ap.add_argument("--pipelines", default="all",
                    help="comma-separated: " + ",".join(ALL_PIPELINES))
    ap.add_argument("--list-failures", action="store_true",
                    help="one line per failing (seed, backend, pipeline)")
    ap.add_argument("--shrink", action="store_true",
                    help="for each failure also print the shortest prefix "
                    "of the chain that fails on that backend and pipeline")
    ap.add_argument("--self-test", action="store_true",
                    help="check the model against the layout spec's worked "
                    "examples and generate the seeds' modules; run nothing")
    ap.add_argument("--print-module", action="store_true",
                    help="print the generated modules and run nothing")
    ap.add_argument("--keep", metavar="DIR",
                    help="write modules, inputs and outputs under DIR")
    ap.add_argument("--jobs", type=int, default=1,
                    help="seeds run at once (default 1)")
    ap.add_argument("--timeout", type=int, default=120,
                    help="seconds per plexa run")
    args = ap.parse_args()

    check_model()
    seeds = parse_seeds(args.seeds)
    if not (args.self_test or args.print_module or args.plexa):
        ap.error("--plexa is needed to run the modules")
    ops = parse_list(args.ops, ALL_OPS, "op")
    backends = parse_list(args.backends, ALL_BACKENDS, "backend")
    pipelines = parse_list(args.pipelines, ALL_PIPELINES, "pipeline")

    if args.self_test:
        for seed in seeds:
            Generator(seed, ops).generate()
        print("layout_fuzz: model checked, %d modules generated" % len(seeds))
        return 0

    if args.print_module:
        for seed in seeds:
            print("// seed %d" % seed)
            print(Generator(seed, ops).generate()[0])
        return 0

    workdir = args.keep or tempfile.mkdtemp(prefix="layout_fuzz_")
    os.makedirs(workdir, exist_ok=True)
    start = time.time()
    failures = []
    coverage = dict.fromkeys(FEATURES, 0)
    def one_seed(seed):
        """Generates and runs one seed: (generator, failures, shrunk)."""
        gen = Generator(seed, ops)
        text, results = gen.generate()
        fails = run_case(args.plexa, "seed%d" % seed, text, gen.params,
                         results, backends, pipelines, workdir, args.timeout)
        shrunk = [shrink(args.plexa, gen, f, workdir, args.timeout)
                  if args.shrink else None for f in fails]
        return gen, fails, shrunk

    try:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            # map() yields in seed order, so the output is deterministic.
            for seed, (gen, fails, shrunk) in zip(
                    seeds, pool.map(one_seed, seeds)):
                for what in FEATURES:
                    coverage[what] += gen.stats.get(what, 0)
                for f, small in zip(fails, shrunk):
                    f["seed"] = seed
                    failures.append(f)
                    if args.list_failures:
                        print("seed=%d backend=%s pipeline=%s diff=%g %s"
                              % (seed, f["backend"], f["pipeline"],
                                 f["diff"], f["detail"].splitlines()[0][:160]),
                              flush=True)
                        continue
                    print("FAIL seed=%d backend=%s pipeline=%s "
                          "max difference=%g\n  %s\n%s"
                          % (seed, f["backend"], f["pipeline"], f["diff"],
                             f["detail"], f["module"]), flush=True)
                    if small and small["module"] != f["module"]:
                        print("  shortest failing prefix (max difference=%g)"
                              "\n  %s\n%s" % (small["diff"], small["detail"],
                                               small["module"]), flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    runs = len(seeds) * len(backends) * len(pipelines)
    print("layout_fuzz: %d seeds, %d runs, %d failures (%d seeds), %.1f s"
          % (len(seeds), runs, len(failures),
             len({f["seed"] for f in failures}), time.time() - start))
    print("layout_fuzz: generated " + ", ".join(
        "%d %s" % (n, what) for what, n in coverage.items()))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
