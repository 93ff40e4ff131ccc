"""Element types: numpy has float16 and float32 but no bfloat16, so bf16
values travel as their bits in uint16 arrays, rounded here."""

import numpy as np


def _f64_to_f32_round_to_odd(x):
    """float64 -> float32 rounding to odd: an inexact result gets its last
    bit set. Rounding that to bf16 (16 fewer bits) to nearest even gives the
    correctly rounded bf16 of x (no double rounding)."""
    with np.errstate(over="ignore"):  # huge values round to inf below
        y = x.astype(np.float32)
    bits = y.view(np.uint32).copy()
    inexact = y.astype(np.float64) != x
    if inexact.any():
        # Where float32 rounded away from zero, step back one ulp (the bits
        # are sign-magnitude), then set the last bit.
        away = inexact & (np.abs(y.astype(np.float64)) > np.abs(x))
        bits[away] -= np.uint32(1)
        bits[inexact] |= np.uint32(1)
    return bits


def to_bf16_bits(x):
    """Round-to-nearest-even of a float array to bf16, as uint16 bits (same
    shape). Finite values that overflow bf16 become inf; NaN stays NaN."""
    x = np.asarray(x)
    if x.dtype == np.float64:
        bits = _f64_to_f32_round_to_odd(x)
    else:
        bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    bits = bits.astype(np.uint64)  # room for the carry of the largest bits
    nan = (bits & 0x7FFFFFFF) > 0x7F800000
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    rounded = np.where(nan, (bits >> 16) | 0x40, rounded)  # quiet NaN
    return rounded.astype(np.uint16).reshape(x.shape)


def from_bf16_bits(bits):
    """bf16 bits (uint16) -> float32, exactly."""
    bits = np.asarray(bits, dtype=np.uint16)
    return (bits.astype(np.uint32) << 16).view(np.float32)


def is_ml_bfloat16(dtype):
    """numpy dtype `bfloat16` of ml_dtypes (JAX): 2 bytes, bf16 bits."""
    return dtype.name == "bfloat16" and dtype.itemsize == 2
