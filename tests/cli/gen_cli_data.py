#!/usr/bin/python3
"""Inputs and numpy-computed expected outputs for tests/cli/cli_test.sh.

Run once from this directory with Debian's numpy; outputs are committed.
"""
import numpy as np

x = np.array([[1.5, -2, 3], [4, 5.25, -6]], np.float32)
y = np.array([[0.5, 2, -1], [8, 0.75, 2]], np.float32)
np.save("data/x.npy", x)
np.save("data/y.npy", y)
np.save("data/add_mul_0.npy", x + y)
np.save("data/add_mul_1.npy", x * y)
np.save("data/sum_rows.npy", x.sum(axis=1, dtype=np.float32))
np.save("data/x_f64.npy", x.astype(np.float64))
np.save("data/x_23_wrong.npy", np.zeros((3, 2), np.float32))
v = np.array([1, 2, 3], np.float32)
np.save("data/v.npy", v)
# all_reduce.hlo with 2 replicas: replica r computes v + r, then sums:
# (v + 0) + (v + 1) on every replica.
np.save("data/all_reduce.npy", (v + 0) + (v + 1))
# dynamic.hlo: x (f32[<=8,3]) given 5 rows; the row sums, the total and the
# row count. dynamic_reshape.hlo: a 2x3 x flattened.
xd = np.arange(15, dtype=np.float32).reshape(5, 3) * np.float32(0.5)
np.save("data/x_dynamic.npy", xd)
np.save("data/dynamic_0.npy", xd.sum(axis=1, dtype=np.float32))
np.save("data/dynamic_1.npy", np.array(xd.sum(dtype=np.float32), np.float32))
np.save("data/dynamic_2.npy", np.array(5, np.int32))
np.save("data/x_dynamic_rows9.npy", np.zeros((9, 3), np.float32))
np.save("data/dynamic_reshape.npy", x.reshape(6))
# spmd.hlo on 2 replicas x 2 partitions: device (r, p) computes
# v * (1 + p) + 10 * r; the partitions of each replica sum (flattened ids
# {0,1} and {2,3}): 3 v + 20 r.
np.save("data/spmd_replica0.npy", v * 3 + 0)
np.save("data/spmd_replica1.npy", v * 3 + 20)
