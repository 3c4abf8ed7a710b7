#!/usr/bin/python3
"""An independent reference for rng-bit-generator (numpy only).

gen_cases.py imports this module to compute the expected values of the
cases/rng/bit_generator_* cases; run on its own it checks itself against
external known answers and prints them:

    /usr/bin/python3 tests/conformance/gen_rng_bit_generator.py

It is written from XLA's description of the op (RngBitGeneratorExpander and
xla/hlo/builder/lib/prng.cc) and from Random123, and on purpose in another
style than Plexa's evaluator (core/eval/rng_bit_generator.cc): whole arrays
of counters through numpy uint32 arithmetic, and the output assembled with
the same reshape/concatenate/slice steps XLA's expansion performs, where the
evaluator computes element positions directly. Its known answers:

  * Random123 tests/kat_vectors (threefry2x32 20, philox4x32 10 lines);
  * r-xla/anvil, a front end that runs StableHLO through XLA's CPU PJRT
    plugin: its documentation of nvl_rng_bit_generator shows, for
    rng_algorithm THREE_FRY, state u64[2] {0, 0} and shape [3,2] (u32 bits),
    the values {{1.7973e9, 2.5791e9}, {1.3515e9, 3.2358e9},
    {1.6886e9, 4.2293e9}} and the new state {0, 3}; for shape [3] the
    values {1.7973e9, 2.5791e9, 1.3515e9} and state {0, 2}; its test of
    p_rng_bit_generator, THREE_FRY, state {1, 2}, 64-bit [2,2], gives the
    state {1, 6} and (as R integers: the low 32 bits, column by column)
    43444564, 1672743891, -315321645, 2109414752.
"""

import numpy as np

U32 = np.uint32
U64 = np.uint64
MASK64 = (1 << 64) - 1


# ---------------------------------------------------------------------------
# The two primitives, over numpy arrays of 32-bit words
# ---------------------------------------------------------------------------

def threefry2x32(key, x0, x1):
    """Threefry-2x32, 20 rounds. key: two ints; x0, x1: uint32 arrays."""
    with np.errstate(over='ignore'):
        k = [U32(key[0]), U32(key[1])]
        k.append(U32(0x1BD11BDA) ^ k[0] ^ k[1])
        x0 = np.asarray(x0, dtype=U32) + k[0]
        x1 = np.asarray(x1, dtype=U32) + k[1]
        rot = (13, 15, 26, 6, 17, 29, 16, 24)
        for group in range(5):
            for r in rot[4 * (group % 2):4 * (group % 2) + 4]:
                x0 = x0 + x1
                x1 = (x1 << U32(r)) | (x1 >> U32(32 - r))
                x1 = x1 ^ x0
            s = group + 1
            x0 = x0 + k[s % 3]
            x1 = x1 + k[(s + 1) % 3] + U32(s)
        return x0, x1


def philox4x32(key, c0, c1, c2, c3):
    """Philox-4x32, 10 rounds. key: two ints; c*: uint32 arrays."""
    k0, k1 = int(key[0]), int(key[1])
    c = [np.asarray(v, dtype=U32) for v in (c0, c1, c2, c3)]
    for _ in range(10):
        p0 = c[0].astype(U64) * U64(0xD2511F53)
        p1 = c[2].astype(U64) * U64(0xCD9E8D57)
        hi0, lo0 = (p0 >> U64(32)).astype(U32), p0.astype(U32)
        hi1, lo1 = (p1 >> U64(32)).astype(U32), p1.astype(U32)
        c = [hi1 ^ c[1] ^ U32(k0), lo1, hi0 ^ c[3] ^ U32(k1), lo0]
        k0 = (k0 + 0x9E3779B9) & 0xFFFFFFFF
        k1 = (k1 + 0xBB67AE85) & 0xFFFFFFFF
    return c


def split64(v):
    v = np.asarray(v, dtype=U64)
    return v.astype(U32), (v >> U64(32)).astype(U32)


def join64(lo, hi):
    return lo.astype(U64) | (hi.astype(U64) << U64(32))


# ---------------------------------------------------------------------------
# The op: (new state, bits) for a u64 state and a result shape
# ---------------------------------------------------------------------------

def _three_fry_counters(counter, dims):
    # state + row-major iota over dims (XLA adds one iota per dimension).
    n = int(np.prod(dims, dtype=np.int64)) if dims else 1
    with np.errstate(over='ignore'):
        c = U64(counter) + np.arange(n, dtype=U64)
    return c.reshape(dims), n


def _split_shape(dims):
    """XLA's SplitShapeIntoHalves: (half dims, split dim)."""
    if not dims:
        return [1], 0
    split = next((i for i, d in enumerate(dims) if d % 2 == 0), None)
    if split is None:
        split = max(range(len(dims)), key=lambda i: (dims[i], -i))
    half = list(dims[:split]) + [(dims[split] + 1) // 2, 1] + list(
        dims[split + 1:])
    return half, split


def three_fry(state, dims, bits):
    key = split64(U64(state[0]))
    if bits == 64:
        c, n = _three_fry_counters(state[1], dims)
        lo, hi = split64(c)
        x0, x1 = threefry2x32((int(key[0]), int(key[1])), lo, hi)
        out = join64(x0, x1).reshape(dims)
        return [state[0], (state[1] + n) & MASK64], out
    half, split = _split_shape(list(dims))
    c, n = _three_fry_counters(state[1], half)
    lo, hi = split64(c)
    x0, x1 = threefry2x32((int(key[0]), int(key[1])), lo, hi)
    if not dims:
        out = x0.reshape(())
    else:
        # concatenate the two words along the new unit dimension, merge it
        # into the split dimension, slice off an odd tail
        both = np.concatenate([x0, x1], axis=split + 1)
        merged = list(dims)
        merged[split] = half[split] * 2
        out = both.reshape(merged)
        out = out[tuple(slice(0, d) for d in dims)]
    if bits < 32:
        out = out.astype({8: np.uint8, 16: np.uint16}[bits])
    return [state[0], (state[1] + n) & MASK64], out


def philox(state, dims, bits):
    key = split64(U64(state[0]))
    key = (int(key[0]), int(key[1]))
    low = int(state[1])
    high = int(state[2]) if len(state) == 3 else int(state[0])
    n = int(np.prod(dims, dtype=np.int64)) if dims else 1
    words = n * (2 if bits == 64 else 1)
    blocks = (words + 3) // 4
    ctr = [((high << 64) | low) + b for b in range(blocks)]  # 128-bit ints
    mask32 = 0xFFFFFFFF
    c = [np.array([(v >> (32 * i)) & mask32 for v in ctr], dtype=U32)
         for i in range(4)]
    w = philox4x32(key, *c)
    if bits == 64:
        pairs = [join64(w[0], w[1]), join64(w[2], w[3])]
        flat = np.stack(pairs, axis=1).reshape(-1)[:n]
    else:
        flat = np.stack(w, axis=1).reshape(-1)[:n]
        if bits < 32:
            flat = flat.astype({8: np.uint8, 16: np.uint16}[bits])
    new = ((high << 64) | low) + blocks
    new_state = [state[0], new & MASK64]
    if len(state) == 3:
        new_state.append((new >> 64) & MASK64)
    return new_state, flat.reshape(dims)


def rng_bit_generator(algorithm, state, dims, bits):
    """algorithm: 'rng_three_fry', 'rng_philox' or 'rng_default' (= philox,
    XLA's CPU and GPU compilers run RngBitGeneratorExpander(RNG_PHILOX))."""
    if algorithm == 'rng_three_fry':
        return three_fry(list(state), list(dims), bits)
    return philox(list(state), list(dims), bits)


# ---------------------------------------------------------------------------
# Self-check against the external known answers
# ---------------------------------------------------------------------------

RANDOM123_THREEFRY2X32_20 = [  # counter, key, output
    ((0, 0), (0, 0), (0x6b200159, 0x99ba4efe)),
    ((0xffffffff, 0xffffffff), (0xffffffff, 0xffffffff),
     (0x1cb996fc, 0xbb002be7)),
    ((0x243f6a88, 0x85a308d3), (0x13198a2e, 0x03707344),
     (0xc4923a9c, 0x483df7a0)),
]
RANDOM123_PHILOX4X32_10 = [
    ((0, 0, 0, 0), (0, 0), (0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8)),
    ((0xffffffff,) * 4, (0xffffffff, 0xffffffff),
     (0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd)),
    ((0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344),
     (0xa4093822, 0x299f31d0),
     (0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1)),
]
# r-xla/anvil documentation of nvl_rng_bit_generator (values printed with 5
# significant digits): THREE_FRY, state {0, 0}.
ANVIL_THREE_FRY = [
    ((3, 2), [[1.7973e9, 2.5791e9], [1.3515e9, 3.2358e9],
              [1.6886e9, 4.2293e9]], [0, 3]),
    ((3,), [1.7973e9, 2.5791e9, 1.3515e9], [0, 2]),
]


# r-xla/anvil test p_rng_bit_generator: THREE_FRY, state {1, 2}, [2,2] of
# 64-bit elements; the low 32 bits as signed integers, column by column.
ANVIL_THREE_FRY_64 = ([1, 2], (2, 2), [1, 6],
                      [43444564, 1672743891, -315321645, 2109414752])


def self_check():
    for ctr, key, want in RANDOM123_THREEFRY2X32_20:
        got = threefry2x32(key, np.array([ctr[0]], U32), np.array([ctr[1]],
                                                                  U32))
        assert tuple(int(g[0]) for g in got) == want, (ctr, key, got)
    for ctr, key, want in RANDOM123_PHILOX4X32_10:
        got = philox4x32(key, *[np.array([v], U32) for v in ctr])
        assert tuple(int(g[0]) for g in got) == want, (ctr, key, got)
    for dims, values, new_state in ANVIL_THREE_FRY:
        state, out = rng_bit_generator('rng_three_fry', [0, 0], dims, 32)
        assert state == new_state, (dims, state)
        rounded = np.vectorize(lambda v: float('%.5g' % v))(
            out.astype(np.float64))
        assert np.array_equal(rounded, np.array(values)), (dims, out)
    state, dims, new_state, lows = ANVIL_THREE_FRY_64
    got_state, out = rng_bit_generator('rng_three_fry', state, dims, 64)
    assert got_state == new_state, got_state
    got = [int(np.uint32(int(v) & 0xFFFFFFFF).astype(np.int32))
           for v in out.T.ravel()]
    assert got == lows, got


if __name__ == '__main__':
    self_check()
    print('known answers reproduced (Random123 threefry2x32_20, '
          'philox4x32_10; anvil THREE_FRY examples)')
    state, out = rng_bit_generator('rng_three_fry', [0, 0], [3, 2], 32)
    print('three_fry u32[3,2] from {0, 0}:', out.tolist(), 'state', state)
