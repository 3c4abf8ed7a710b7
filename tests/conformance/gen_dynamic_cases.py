#!/usr/bin/python3
"""Conformance cases for bounded dynamic shapes (docs/dynamic_shapes.md).

Each case gives a dynamic parameter an argument smaller than its bound, or
sets a size with set-dimension-size; only the elements within the sizes
exist, so the expected values are numpy on those elements alone. Run once
from this directory with Debian's numpy; the cases are committed.
"""
import numpy as np

rng = np.random.default_rng(2026)
OUT = "cases/dynamic/"

ADD = """add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
"""


def f32(a):
    a = np.asarray(a, np.float32)
    if a.ndim == 0:
        return "f32[] %.9g" % a
    return "f32[%s] {%s}" % (",".join(str(d) for d in a.shape), nest(a))


def nest(a):
    if a.ndim == 1:
        return ", ".join("%.9g" % v for v in a)
    return ", ".join("{%s}" % nest(r) for r in a)


def s32(v):
    return "s32[] %d" % v


def case(name, note, inputs, expect, hlo):
    lines = ["// source: numpy", "// note: " + note]
    lines += ["// input: " + i for i in inputs]
    lines.append("// expect: " + expect)
    with open(OUT + name + ".hlo", "w") as f:
        f.write("\n".join(lines) + "\nHloModule " + name + "\n\n" + hlo)


def ints(*shape):
    return rng.integers(-9, 10, size=shape).astype(np.float32)


# set-dimension-size from a parameter, then reduce and get-dimension-size.
p = ints(6)
case("set_dimension_size_reduce",
     "the sum of the first n = 4 of 6 elements, and n read back",
     [f32(p), s32(4)],
     "( %s, %s )" % (f32(p[:4].sum()), s32(4)),
     ADD + """
ENTRY e {
  p = f32[6] parameter(0)
  n = s32[] parameter(1)
  d = f32[<=6] set-dimension-size(p, n), dimensions={0}
  zero = f32[] constant(0)
  s = f32[] reduce(d, zero), dimensions={0}, to_apply=add
  g = s32[] get-dimension-size(d), dimensions={0}
  ROOT t = (f32[], s32[]) tuple(s, g)
}
""")

# A dynamic parameter: row sums of the rows given, and the total.
x = ints(4, 3)
case("dynamic_parameter_row_sums",
     "f32[<=6,3] given 4 rows: 4 row sums and their total",
     [f32(x)],
     "( %s, %s )" % (f32(x.sum(axis=1)), f32(x.sum())),
     ADD + """
ENTRY e {
  x = f32[<=6,3] parameter(0)
  zero = f32[] constant(0)
  rows = f32[<=6] reduce(x, zero), dimensions={1}, to_apply=add
  all = f32[] reduce(x, zero), dimensions={0,1}, to_apply=add
  ROOT t = (f32[<=6], f32[]) tuple(rows, all)
}
""")

# dot contracting a dynamic dimension of the lhs against a static rhs.
a = ints(3, 4)
b = ints(5, 2)
case("dot_dynamic_contracting",
     "a: f32[3,<=5] given 4 columns; only b's first 4 rows are used",
     [f32(a), f32(b)],
     f32(a @ b[:4]),
     """ENTRY e {
  a = f32[3,<=5] parameter(0)
  b = f32[5,2] parameter(1)
  ROOT d = f32[3,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
""")

# reshape of two dynamic dimensions: the elements in row-major order.
x = ints(3, 2)
case("reshape_two_dynamic_dimensions",
     "f32[<=4,<=5] given 3x2, flattened",
     [f32(x)], f32(x.reshape(6)),
     """ENTRY e {
  x = f32[<=4,<=5] parameter(0)
  ROOT r = f32[<=20] reshape(x)
}
""")

# dynamic-reshape by sizes given at run time.
x = ints(6)
case("dynamic_reshape_sizes",
     "f32[<=12] given 6 elements, dynamic-reshape to 2x3 of a [<=3,<=4] bound",
     [f32(x), s32(2), s32(3)], f32(x.reshape(2, 3)),
     """ENTRY e {
  x = f32[<=12] parameter(0)
  r = s32[] parameter(1)
  c = s32[] parameter(2)
  ROOT y = f32[<=3,<=4] dynamic-reshape(x, r, c)
}
""")

# sort along a dynamic dimension.
x = ints(5)
case("sort_dynamic",
     "f32[<=8] given 5 elements, sorted ascending",
     [f32(x)], f32(np.sort(x, kind="stable")),
     """less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=LT
}

ENTRY e {
  x = f32[<=8] parameter(0)
  ROOT s = f32[<=8] sort(x), dimensions={0}, to_apply=less
}
""")

# concatenate, reverse and pad of dynamic dimensions.
a = ints(3)
b = ints(2)
case("concatenate_reverse_pad_dynamic",
     "a (3 of <=4) and b (2 of <=3) concatenated, reversed, then padded "
     "low 1, high 2, interior 1 with 0",
     [f32(a), f32(b)],
     f32(np.concatenate([[0], np.insert(np.concatenate([a, b])[::-1],
                                        range(1, 5), 0), [0, 0]])),
     """ENTRY e {
  a = f32[<=4] parameter(0)
  b = f32[<=3] parameter(1)
  c = f32[<=7] concatenate(a, b), dimensions={0}
  r = f32[<=7] reverse(c), dimensions={0}
  zero = f32[] constant(0)
  ROOT p = f32[<=16] pad(r, zero), padding=1_2_1
}
""")

# reduce-window over a dynamic dimension: windows of 3, stride 2.
x = ints(7)
case("reduce_window_dynamic",
     "f32[<=10] given 7 elements: sums of windows of 3 with stride 2",
     [f32(x)],
     f32(np.array([x[i:i + 3].sum() for i in range(0, 5, 2)], np.float32)),
     ADD + """
ENTRY e {
  x = f32[<=10] parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[<=4] reduce-window(x, zero), window={size=3 stride=2}, to_apply=add
}
""")

# broadcast and transpose carry the size; an elementwise op beside them.
x = ints(3)
case("broadcast_transpose_dynamic",
     "f32[<=4] given 3, broadcast to [2,<=4], transposed, doubled",
     [f32(x)], f32(np.stack([x, x]).T * 2),
     """ENTRY e {
  x = f32[<=4] parameter(0)
  b = f32[2,<=4] broadcast(x), dimensions={1}
  t = f32[<=4,2] transpose(b), dimensions={1,0}
  ROOT d = f32[<=4,2] add(t, t)
}
""")
