#!/usr/bin/env python3
"""Prints the constants of the Vulkan plugin's f64 sin/cos/tan argument
reduction (plugins/vulkan/glsl_f64_math.cc): the first 1,280 bits of 2/pi
as 40 32-bit words, and pi/2 as pieces of 33, 33 and 53 bits (Cody and
Waite) and as a double plus the double of the rest. pi comes from
Machin's formula, pi/4 = 4 atan(1/5) - atan(1/239), in integers."""
from fractions import Fraction
import math

BITS = 1600


def atan_inv(n, bits):
    """atan(1/n) * 2^bits, by its series in integers."""
    one = 1 << bits
    total = term = one // n
    k, sign = 1, -1
    while term:
        term //= n * n
        total += sign * (term // (2 * k + 1))
        sign, k = -sign, k + 1
    return total


pi = 4 * (4 * atan_inv(5, BITS) - atan_inv(239, BITS))  # pi * 2^BITS
two_over_pi = (2 << (2 * BITS)) // pi  # (2/pi) * 2^BITS
words = [(two_over_pi >> (BITS - 32 * (i + 1))) & 0xFFFFFFFF for i in range(40)]
print("2/pi words:", ", ".join("0x%08x" % w for w in words))

half_pi = Fraction(pi, 2 << BITS)


def leading(v, n):
    """The leading n bits of v > 0, exactly."""
    scale = Fraction(2) ** (math.floor(math.log2(v)) - n + 1)
    return int(v / scale) * scale


p1 = leading(half_pi, 33)
p2 = leading(half_pi - p1, 33)
p3 = leading(half_pi - p1 - p2, 53)
print("pi/2 in 33 + 33 + 53 bits:", ", ".join(float(p).hex() for p in (p1, p2, p3)))
hi = float(half_pi)
print("pi/2 as hi + lo:", hi.hex(), float(half_pi - Fraction(hi)).hex())
