#!/usr/bin/env python3
"""Inputs and expected outputs of the StableHLO programs in this folder,
computed with numpy from what each program means (never from Plexa).

    python3 tests/stablehlo/gen_data.py   # rewrites tests/stablehlo/data/

data/PROGRAM/CASE/in0.npy, in1.npy, ... are the parameters in order;
out0.npy, out1.npy, ... the results in order. A file `exact` in a case
folder says the results are exactly representable (small integers and
binary fractions), so the CLI test compares bytes; the gtest compares every
case with a tolerance.
"""
import os
import shutil

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
rng = np.random.default_rng(20261124)


def small_ints(shape, lo=-3, hi=4, dtype=np.float32):
    return rng.integers(lo, hi, size=shape).astype(dtype)


def write(program, case, inputs, outputs, exact):
    d = os.path.join(DATA, program, case)
    os.makedirs(d, exist_ok=True)
    for i, a in enumerate(inputs):
        np.save(os.path.join(d, f"in{i}.npy"), a)
    for i, a in enumerate(outputs):
        np.save(os.path.join(d, f"out{i}.npy"), a)
    if exact:
        open(os.path.join(d, "exact"), "w").close()


def mlp():
    x, w1, b1 = small_ints((4, 3)), small_ints((3, 5)), small_ints((5,))
    w2, b2 = small_ints((5, 2)), small_ints((2,))
    h = np.maximum(x @ w1 + b1, np.float32(0))
    write("mlp", "0", [x, w1, b1, w2, b2], [(h @ w2 + b2).astype(np.float32)],
          True)


def softmax():
    x = rng.standard_normal((3, 4)).astype(np.float32)
    x[1, 2] = 30.0  # large: the max subtraction keeps exp finite
    m = np.max(x, axis=1, keepdims=True)
    e = np.exp((x - m).astype(np.float64))
    write("softmax", "0", [x], [(e / e.sum(axis=1, keepdims=True))
                                .astype(np.float32)], False)


def while_loop():
    x = np.array([1.0, -2.0, 0.25], np.float32)
    for n in (0, 3):
        acc = x.copy()
        for _ in range(n):
            acc = acc * np.float32(0.5) + x
        write("while_loop", str(n), [x, np.array(n, np.int32)],
              [acc.astype(np.float32), np.array(n, np.int32)], True)


def conv():
    x, k = small_ints((1, 5, 5, 2)), small_ints((3, 3, 2, 3))
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    out = np.zeros((1, 5, 5, 3), np.float32)
    for i in range(5):
        for j in range(5):
            patch = xp[0, i:i + 3, j:j + 3, :]  # 3x3x2
            out[0, i, j, :] = np.einsum("hwc,hwco->o", patch, k)
    write("conv", "0", [x, k], [out], True)


def gather():
    table = small_ints((5, 3), -9, 10)
    idx = np.array([4, 0, 2, 4], np.int32)
    write("gather", "0", [table, idx], [table[idx]], True)
    # The same program in the fully generic form.
    write("gather_generic", "0", [table, idx], [table[idx]], True)


def sort():
    x = np.array([3.0, -1.0, 2.0, -1.0, 0.5, 3.0], np.float32)
    order = np.argsort(x, kind="stable").astype(np.int32)
    write("sort", "0", [x], [x[order], order], True)


def call_if_case():
    x = np.array([1.5, -2.0, 0.25, 4.0], np.float32)
    scale = np.array([1.0, 2.0, -3.0, 0.5], np.float32)
    s = x * scale
    for n in (0, 1, 2, 7):
        branch_if = -s if n > 1 else s * scale
        k = n if 0 <= n < 3 else 2  # HLO: an out-of-range index runs the last
        branch_case = [np.ones(4, np.float32), np.abs(x), x * s][k]
        write("call_if_case", str(n), [x, np.array(n, np.int32)],
              [branch_if.astype(np.float32), branch_case.astype(np.float32)],
              True)


if __name__ == "__main__":
    shutil.rmtree(DATA, ignore_errors=True)
    mlp()
    softmax()
    while_loop()
    conv()
    gather()
    sort()
    call_if_case()
