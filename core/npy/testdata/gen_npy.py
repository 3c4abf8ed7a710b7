#!/usr/bin/python3
"""Writes the .npy fixtures for core/npy/npy_test.cc with Debian's numpy.

Run once from this directory; the outputs are committed, so the tests never
need numpy. Values are simple so the test can state them by hand.
"""
import numpy as np

a23 = np.array([[1, 2, 3], [4, 5, 6]])
for dt, name in [(np.float32, "f4"), (np.float64, "f8"), (np.float16, "f2"),
                 (np.int8, "i1"), (np.int16, "i2"), (np.int32, "i4"),
                 (np.int64, "i8"), (np.uint8, "u1"), (np.uint16, "u2"),
                 (np.uint32, "u4"), (np.uint64, "u8")]:
    np.save(f"a23_{name}.npy", a23.astype(dt))
np.save("a23_c8.npy", (a23 + 1j * a23).astype(np.complex64))
np.save("a23_c16.npy", (a23 - 2j * a23).astype(np.complex128))
np.save("pred.npy", np.array([True, False, True]))
np.save("a23_f4_fortran.npy", np.asfortranarray(a23.astype(np.float32)))
np.save("scalar_f4.npy", np.float32(2.5))
np.save("empty_f4.npy", np.zeros((2, 0, 3), np.float32))
np.save("special_f4.npy", np.array([np.nan, np.inf, -np.inf, -0.0], np.float32))
# Format 2.0 (forced) for the version-2 reader.
with open("a23_f4_v2.npy", "wb") as f:
    np.lib.format.write_array(f, a23.astype(np.float32), version=(2, 0))
np.save("a23_f4_bigendian.npy", a23.astype(">f4"))
