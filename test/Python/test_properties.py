#!/usr/bin/python3
"""Property-based tests (hypothesis, Debian's python3-hypothesis) of the
Python package's argument conversion (docs/Reliability.md):

  test_properties.py [--library DIR] [unittest args]

Without a library: the integer and real parameters never wrap or escape as
anything but SympowArgumentError (a ValueError); make_desc's fields hold
exactly what was given; bf16 rounding is round-to-nearest-even of the exact
value; shares_memory agrees with an element-by-element check; the array
conversions refuse every other dtype with SympowArgumentError.
With DIR (the library of test_sympow.py's fixture): forward and decode on
arbitrary keyword values either run or raise SympowError, never another
exception, and never write into their inputs.

Examples are derandomized (the same on every run); SYMPOW_HYPOTHESIS_EXAMPLES
sets how many (the CI default keeps the test to about a minute).
"""

import ctypes
import math
import os
import sys
import unittest
from fractions import Fraction

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

import sympow  # noqa: E402
from sympow import _capi, _dtypes, _layer  # noqa: E402
from sympow._errors import SympowArgumentError  # noqa: E402

LIBRARY = None
EXAMPLES = int(os.environ.get("SYMPOW_HYPOTHESIS_EXAMPLES", "300"))
PROPERTY = settings(max_examples=EXAMPLES, derandomize=True, deadline=None,
                    database=None,
                    suppress_health_check=list(HealthCheck))

INT64 = (-2**63, 2**63 - 1)
# Integers around every edge the C API has, and anything.
integers = st.one_of(
    st.integers(),
    st.integers(-2**70, 2**70),
    st.sampled_from([0, 1, -1, 2, 2**31 - 1, 2**31, 2**63 - 1, 2**63,
                     -2**63, -2**63 - 1, 2**64 + 2, 2**64]))
anything = st.one_of(
    integers, st.floats(), st.booleans(), st.none(), st.text(max_size=4),
    st.complex_numbers(), st.just(np.int64(3)), st.just(np.float32(2.5)),
    st.just(np.uint64(2**64 - 1)), st.just(Fraction(7, 2)),
    st.just(10**400), st.lists(st.integers(), max_size=2))


class FakeLib:
    """What make_desc needs of a loaded library."""
    class lib:
        @staticmethod
        def sympow_layer_desc_init(ptr):
            pass


def desc_kw(**over):
    kw = dict(power=2, dims=(16, 16, 2, 1), dtype="f32", has_log_g=False,
              has_log_gamma=False, schedule="none", rope_base=10000.0,
              rope_scale=1.0, rope_dims=None, rope_layout="interleaved",
              warp_length=None, scale=None)
    kw.update(over)
    return kw


class Parameters(unittest.TestCase):
    @PROPERTY
    @given(anything)
    def test_integer_never_wraps(self, value):
        try:
            got = _layer._integer("power", value, allow_none=False)
        except SympowArgumentError as e:
            self.assertIsInstance(e, ValueError)
            self.assertIn("power", str(e))
            return
        self.assertIsInstance(got, int)
        self.assertTrue(INT64[0] <= got <= INT64[1])
        self.assertEqual(got, value)  # exactly what was given
        self.assertEqual(ctypes.c_int64(got).value, got)

    @PROPERTY
    @given(anything)
    def test_real_is_a_double_or_refused(self, value):
        try:
            got = _layer._real("scale", value)
        except SympowArgumentError:
            return
        self.assertIsInstance(got, float)
        # The double nearest the value (ints beyond 2^53 round).
        self.assertTrue(got == float(value) or
                        (math.isnan(got) and value != value))

    @PROPERTY
    @given(st.sampled_from(["power", "rope_dims", "warp_length",
                            "chunk_size"]), anything)
    def test_make_desc_holds_what_was_given(self, field, value):
        over = {field: value}
        if field == "chunk_size":
            over["formulation"] = "chunked"
        try:
            desc = _layer.make_desc(FakeLib, **desc_kw(**over))
        except SympowArgumentError:
            return
        got = getattr(desc, field)
        want = 0 if value is None else value
        self.assertEqual(got, want)

    @PROPERTY
    @given(st.sampled_from(["schedule", "rope_layout", "formulation"]),
           anything)
    def test_choices_are_exact(self, field, value):
        tables = {"schedule": _capi.SCHEDULES,
                  "rope_layout": _capi.ROPE_LAYOUTS,
                  "formulation": _capi.FORMULATIONS}
        try:
            desc = _layer.make_desc(FakeLib, **desc_kw(**{field: value}))
        except SympowArgumentError:
            self.assertNotIn(value if isinstance(value, str) else None,
                             tables[field])
            return
        self.assertEqual(getattr(desc, field), tables[field][value])


def bf16_nearest_even(x):
    """The bf16 bits nearest x (ties to even), from x's exact value."""
    if math.isnan(x):
        return None
    if math.isinf(x):
        return 0x7F80 | (0x8000 if x < 0 else 0)
    sign = 0x8000 if math.copysign(1, x) < 0 else 0
    best, best_err = None, None
    # bf16 is float32's upper half: the candidates are the two halves
    # around float32(x) truncated, checked exactly.
    f = np.float32(x).view(np.uint32) if abs(x) < 3.5e38 else np.uint32(0x7F7FFFFF | (sign << 16))
    hi = int(f) >> 16
    for bits in {(hi - 1) & 0xFFFF, hi & 0xFFFF, (hi + 1) & 0xFFFF}:
        if (bits ^ sign) & 0x8000:
            continue
        v = float(np.uint32(bits << 16).view(np.float32))
        if math.isnan(v):
            continue
        err = abs(Fraction(v) - Fraction(x)) if not math.isinf(v) else None
        if err is None:
            continue
        if (best is None or err < best_err
                or (err == best_err and bits % 2 == 0)):
            best, best_err = bits, err
    # Past the largest finite bf16 by half an ulp or more: inf.
    top = Fraction(float(np.uint32(0x7F7F << 16).view(np.float32)))
    half_ulp = Fraction(2) ** (127 - 8)
    if abs(Fraction(x)) >= top + half_ulp:
        return 0x7F80 | sign
    return best


class Bf16(unittest.TestCase):
    @PROPERTY
    @given(st.floats(allow_nan=False, width=64))
    def test_round_to_nearest_even_from_f64(self, x):
        got = int(_dtypes.to_bf16_bits(np.array([x], np.float64))[0])
        self.assertEqual(got, bf16_nearest_even(x), hex(got))

    @PROPERTY
    @given(st.floats(allow_nan=False, width=32))
    def test_round_to_nearest_even_from_f32(self, x):
        got = int(_dtypes.to_bf16_bits(np.array([x], np.float32))[0])
        self.assertEqual(got, bf16_nearest_even(float(np.float32(x))))


class Arrays(unittest.TestCase):
    @PROPERTY
    @given(st.integers(1, 24), st.data())
    def test_shares_memory_is_exact(self, n, data):
        base = np.arange(n, dtype=np.float32)
        views = []
        for _ in range(2):
            start = data.draw(st.integers(0, n - 1))
            stop = data.draw(st.integers(start, n))
            step = data.draw(st.integers(1, 3))
            views.append(base[start:stop:step])
        a, b = views
        ids = lambda v: set(  # noqa: E731
            (v.ctypes.data - base.ctypes.data) // 4 + i * v.strides[0] // 4
            for i in range(v.size))
        self.assertEqual(_layer.shares_memory(a, b), bool(ids(a) & ids(b)))

    @PROPERTY
    @given(hnp.arrays(
        dtype=st.one_of(hnp.scalar_dtypes(), hnp.byte_string_dtypes(),
                        hnp.unicode_string_dtypes()),
        shape=hnp.array_shapes(min_dims=0, max_dims=5, max_side=3)),
        st.sampled_from(["bf16", "f16", "f32"]))
    def test_conversions_refuse_or_convert(self, x, dtype):
        for convert in (lambda: _layer.kernel_input("q", x, dtype),
                        lambda: _layer.float_input("beta", x),
                        lambda: _layer.infer_dtype(x, None)):
            try:
                out = convert()
            except SympowArgumentError:
                continue
            if isinstance(out, np.ndarray):
                self.assertEqual(out.shape, x.shape)


class Calls(unittest.TestCase):
    """forward/decode on the fixture's library with arbitrary keywords."""

    def setUp(self):
        if not LIBRARY:
            raise unittest.SkipTest("no kernel library: pass --library DIR")

    @settings(PROPERTY, max_examples=max(EXAMPLES // 5, 10))
    @given(st.data())
    def test_forward_runs_or_raises_sympow_error(self, data):
        rng = np.random.default_rng(0)
        B, T = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 5))
        d = data.draw(st.sampled_from([16, 8]))
        q = rng.standard_normal((B, T, 2, d)).astype(np.float32)
        k = rng.standard_normal((B, T, 1, d)).astype(np.float32)
        v = rng.standard_normal((B, T, 1, 16)).astype(np.float32)
        kw = dict(library=LIBRARY,
                  power=data.draw(st.one_of(st.just(2), anything)),
                  log_g=data.draw(st.sampled_from(
                      [None, np.zeros((B, T, 1), np.float32), "x",
                       np.zeros((B, T), np.float64)])),
                  beta=data.draw(st.sampled_from(
                      [None, np.ones((B, T, 1), np.float32), [1, 2]])),
                  schedule=data.draw(st.sampled_from(
                      ["learned", "none", "uniform", "warped", 3, None])),
                  rope_layout=data.draw(st.sampled_from(["half", "x", 1])),
                  rope_dims=data.draw(st.one_of(st.just(8), anything)),
                  rope_base=data.draw(st.one_of(st.just(100.0), anything)),
                  rope_scale=data.draw(st.one_of(st.just(2 * math.pi),
                                                 anything)),
                  scale=data.draw(st.one_of(st.none(), anything)),
                  dtype=data.draw(st.sampled_from([None, "f32", "bf16", 5])),
                  formulation=data.draw(st.sampled_from(
                      ["auto", "chunked", "recurrent", "attention", "x"])),
                  chunk_size=data.draw(st.one_of(st.none(), anything)),
                  device=data.draw(st.one_of(st.just(0), anything)))
        before = [a.copy() for a in (q, k, v)]
        try:
            y = sympow.forward(q, k, v, **kw)
        except sympow.SympowError:
            pass
        else:
            self.assertEqual(y.shape, (B, T, 2, 16))
        for a, b in zip((q, k, v), before):
            np.testing.assert_array_equal(a, b)

    @settings(PROPERTY, max_examples=max(EXAMPLES // 5, 10))
    @given(st.data())
    def test_decode_state_checks(self, data):
        B = data.draw(st.integers(1, 2))
        S, Z, c = sympow.zero_state(B, 1, 16, 16, 2)
        rng = np.random.default_rng(1)
        q = rng.standard_normal((B, 1, 2, 16)).astype(np.float32)
        k = rng.standard_normal((B, 1, 1, 16)).astype(np.float32)
        v = rng.standard_normal((B, 1, 1, 16)).astype(np.float32)
        choice = data.draw(st.integers(0, 5))
        state = [(S, Z, c), (S, S[:, :, :, 0], c), (S, Z, Z[:, :, 0]),
                 (S, Z), (S, Z, c.astype(np.float32)),
                 (S, Z, np.zeros((B, 1), np.float64))][choice]
        kw = dict(library=LIBRARY, power=2, schedule="learned",
                  rope_layout="half", rope_dims=8, rope_base=100.0,
                  rope_scale=2 * math.pi,
                  log_g=np.zeros((B, 1, 1), np.float32),
                  beta=np.ones((B, 1, 1), np.float32))
        before = [a.copy() for a in (q, k, v)]
        try:
            sympow.decode(q, k, v, state, **kw)
        except sympow.SympowError:
            pass
        else:
            self.assertIn(choice, (0, 5))
        for a, b in zip((q, k, v), before):
            np.testing.assert_array_equal(a, b)


def main():
    global LIBRARY
    args = sys.argv[1:]
    if "--library" in args:
        i = args.index("--library")
        LIBRARY = args[i + 1]
        del args[i:i + 2]
    program = unittest.main(argv=[sys.argv[0]] + args, exit=False,
                            verbosity=2)
    return 0 if program.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
