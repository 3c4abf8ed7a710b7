#!/usr/bin/python3
"""Inputs and expected outputs of the programs in this folder, from numpy
(run once; the .npy files are committed): what the v1.0 runner plugin must
produce through today's host (tests/abi/v1_0_plugin_test.cc) and through
`plexa run` (tests/abi/v1_0_cli_test.sh).

  /usr/bin/python3 tests/abi/v1_0_programs/gen_data.py   (Debian numpy)
"""
import os

import numpy as np

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
os.makedirs(here, exist_ok=True)


def save(name, value):
    np.save(os.path.join(here, name + ".npy"), value)


# elementwise.hlo: maximum((x + y) * x, y) - y
x = np.array([[1, -2, 3], [0.5, 4, -1.5]], dtype=np.float32)
y = np.array([[2, 1, -3], [8, -0.25, 6]], dtype=np.float32)
save("elementwise_x", x)
save("elementwise_y", y)
save("elementwise", np.maximum((x + y) * x, y) - y)

# dot.hlo: a @ b
a = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32)
b = np.array([[7, 8], [9, 10], [11, 12]], dtype=np.float32)
save("dot_a", a)
save("dot_b", b)
save("dot", a @ b)

# reduce.hlo: (sum over dimension 1, maximum over dimensions 0 and 2)
r = (np.arange(24, dtype=np.int32).reshape(2, 3, 4) * 7) % 23 - 11
save("reduce_x", r)
save("reduce_0", r.sum(axis=1, dtype=np.int32))
save("reduce_1", r.max(axis=(0, 2)))

# while.hlo: n times v = 2 * v + 1; returns (n, v)
n = np.int32(5)
v = np.array([0, 1, -1.5], dtype=np.float32)
save("while_n", np.array(n))
save("while_v", v)
w = v.copy()
for _ in range(int(n)):
    w = w * np.float32(2) + np.float32(1)
save("while_0", np.array(n))
save("while_1", w)
