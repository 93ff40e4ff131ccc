#!/usr/bin/env python3
"""Tests of the Python package (python/sympow) against an independent numpy
f64 implementation of docs/SPEC.md (test/Reference/spec_numpy.py), within
SPEC's accuracy: max|y - y_ref| <= 1e-4 max|y_ref| for f32 inputs, 1e-2 for
bf16/f16 (and 1e-4 for the f32 state).

usage:
  test_sympow.py [--library DIR] [unittest args]
      DIR: a sympow-aot --out folder built with the variants below
      (default $SYMPOW_LIBRARY_DIR; without either, the tests that run
      kernels are skipped and the rest run).
  test_sympow.py --build-library PATH/TO/sympow-aot DIR
      builds that library (the ctest fixture does this).

The kernels run on the CPU emulator, which is slow: the runs are small.
"""

import ctypes
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "test", "Reference"))

import numpy as np  # noqa: E402

import sympow  # noqa: E402
from sympow import _capi, _dtypes  # noqa: E402
from spec_numpy import definition, random_state, round_inputs  # noqa: E402

HEADER = os.path.join(ROOT, "runtime", "capi", "include", "sympow_kernels.h")

# The library the tests need (one variant per line of sympow-aot).
# F32: every formulation, GQA, data gate, learned rotary (half layout,
# partial dims, the papers' 2*pi rate scale).
F32_VARIANT = ("p=2,d=16,e=16,hq=2,h=1,dtype=f32,gate=data,rope=learned,"
               "layout=half,r=8,base=100,rate_scale=6.283185307179586,"
               "formulation=all,chunk=16")
F32_KW = dict(power=2, schedule="learned", rope_layout="half", rope_dims=8,
              rope_base=100.0, rope_scale=2 * math.pi)
F32_ROPE = dict(base=100.0, scale=2 * math.pi, dims=8, layout="half")
# BF16: attention only, both gates, uniform RoPE, e != d.
BF16_VARIANT = ("p=2,d=16,e=32,hq=2,h=2,dtype=bf16,gate=both,rope=uniform,"
                "formulation=attention")
BF16_KW = dict(power=2, schedule="uniform")
# F16: attention only, the warped schedule (L = 8).
F16_VARIANT = ("p=2,d=16,e=16,hq=1,h=1,dtype=f16,gate=none,rope=warped,L=8,"
               "formulation=attention")
VARIANTS = [F32_VARIANT, BF16_VARIANT, F16_VARIANT]
DEFAULT_ROPE = dict(base=10000.0, scale=1.0, dims=0, layout="interleaved")

LIBRARY = None  # --library, else $SYMPOW_LIBRARY_DIR


# ------------------------------------------------------------------ helpers
def inputs(seed, B, T, Hq, H, d, e, log_g=False, log_gamma=False,
           beta=False):
    """Random float32 inputs: normal q, k, v; gates in (0.9, 1)."""
    rng = np.random.default_rng(seed)
    f32 = lambda a: np.asarray(a, dtype=np.float32)  # noqa: E731
    x = dict(q=f32(rng.standard_normal((B, T, Hq, d))),
             k=f32(rng.standard_normal((B, T, H, d))),
             v=f32(rng.standard_normal((B, T, H, e))))
    if log_g:
        x["log_g"] = f32(np.log(rng.uniform(0.9, 1.0, (B, T, H))))
    if log_gamma:
        x["log_gamma"] = f32(np.log(rng.uniform(0.9, 1.0, (H,))))
    if beta:
        x["beta"] = f32(rng.uniform(0.2, 1.8, (B, T, H)))
    return x


def reference(x, p, schedule, dtype, rope=None, initial=None, final=False,
              **extra):
    """SPEC's definition on exactly the values given to sympow."""
    case = dict(p=p, schedule=schedule, dtype=dtype, final=final,
                rope=dict(DEFAULT_ROPE, **(rope or {})), **extra)
    for name, a in x.items():
        case[name] = np.asarray(a, dtype=np.float64)
    if initial is not None:
        case["initial"] = tuple(np.asarray(a, np.float64) for a in initial)
    return definition(case)


def tokens(x, start, stop):
    """The inputs of tokens [start, stop) (log_gamma is per head)."""
    return {n: (a if n == "log_gamma" else a[:, start:stop])
            for n, a in x.items()}


def random_initial(seed, B, H, d, e, p):
    S, Z, c = random_state(np.random.default_rng(seed), B, H, d, e, p)
    return S.astype(np.float32), Z.astype(np.float32), c


class SpecCase(unittest.TestCase):
    def f32_ref(self, x, **kw):
        return reference(x, 2, "learned", "f32", F32_ROPE, **kw)

    def assertWithin(self, got, want, tol, what="y"):
        """max|got - want| <= tol * max|want| (and not vacuous)."""
        self.assertEqual(tuple(got.shape), tuple(want.shape), what)
        scale = float(np.max(np.abs(want)))
        self.assertGreater(scale, 0, what + ": the reference is all zero")
        err = float(np.max(np.abs(np.asarray(got, np.float64) - want)))
        self.assertLessEqual(err, tol * scale, "%s: max error %.3g > %g * "
                             "%.3g" % (what, err, tol, scale))

    def assertSpec(self, y, y_ref, dtype, what="y"):
        self.assertWithin(y, y_ref, 1e-4 if dtype == "f32" else 1e-2, what)

    def assertState(self, state, ref, what="state"):
        S, Z, c = state
        self.assertEqual((S.dtype, Z.dtype, c.dtype),
                         (np.float32, np.float32, np.float64), what)
        self.assertWithin(S, ref[0], 1e-4, what + ".S")
        self.assertWithin(Z, ref[1], 1e-4, what + ".Z")
        # c accumulates float32 betas in f64: exact up to f64 rounding.
        self.assertLessEqual(float(np.max(np.abs(c - ref[2]))), 1e-9,
                             what + ".c")


# -------------------------------------------- without a kernel library
class WithoutLibrary(unittest.TestCase):
    def test_bf16_rounding_is_nearest_even(self):
        rng = np.random.default_rng(0)
        x64 = rng.standard_normal(20000) * 10.0 ** rng.integers(-30, 30, 20000)
        x32 = x64.astype(np.float32)
        # Exact ties between two bf16 values, both parities, both signs.
        ties = (np.arange(1, 2001, dtype=np.float64) * 2.0 + 1.0) \
            * 2.0 ** -9 * np.where(np.arange(2000) % 2, 1, -1)
        for name, x in (("float32", x32), ("float64", x64),
                        ("ties float64", ties),
                        ("ties float32", ties.astype(np.float32))):
            with self.subTest(name):
                bits = _dtypes.to_bf16_bits(x)
                self.assertEqual(bits.dtype, np.uint16)
                got = _dtypes.from_bf16_bits(bits).astype(np.float64)
                np.testing.assert_array_equal(
                    got, round_inputs(np.asarray(x, np.float64), "bf16"))

    def test_bf16_float64_is_rounded_once(self):
        # Above the bf16 tie by 2^-40: rounding to float32 first would land
        # on the tie and round to even (down); the right answer is up.
        x = np.array([1.0 + 2.0 ** -8 + 2.0 ** -40, -(1.0 + 3 * 2.0 ** -8
                                                      - 2.0 ** -40)])
        got = _dtypes.from_bf16_bits(_dtypes.to_bf16_bits(x))
        np.testing.assert_array_equal(got, [1.0 + 2.0 ** -7,
                                            -(1.0 + 2.0 ** -7)])

    def test_bf16_overflow_and_nan(self):
        bits = _dtypes.to_bf16_bits(np.array([3.4e38, -3.4e38, np.inf,
                                              np.nan], np.float32))
        got = _dtypes.from_bf16_bits(bits)
        self.assertEqual(list(got[:3]), [np.inf, -np.inf, np.inf])
        self.assertTrue(np.isnan(got[3]))

    def test_state_dim_and_zero_state(self):
        self.assertEqual(sympow.state_dim(64, 2), 2080)   # SPEC's values
        self.assertEqual(sympow.state_dim(64, 4), 766480)
        S, Z, c = sympow.zero_state(2, 3, 8, 5, power=2)
        self.assertEqual((S.shape, Z.shape, c.shape),
                         ((2, 3, 36, 5), (2, 3, 36), (2, 3)))
        self.assertEqual((S.dtype, Z.dtype, c.dtype),
                         (np.float32, np.float32, np.float64))
        for a in (S, Z, c):
            self.assertTrue(a.flags.c_contiguous and a.flags.writeable)
            self.assertEqual(a.ctypes.data % 16, 0)
            self.assertFalse(a.any())

    def test_missing_library_names_both_ways(self):
        x = inputs(0, 1, 4, 1, 1, 16, 16)
        saved = os.environ.pop(sympow.LIBRARY_ENV, None)
        try:
            with self.assertRaises(sympow.SympowError) as cm:
                sympow.forward(x["q"], x["k"], x["v"])
            self.assertIn("library=", cm.exception.message)
            self.assertIn("SYMPOW_LIBRARY_DIR", cm.exception.message)
            self.assertEqual(cm.exception.status, sympow.NOT_COMPILED)
            with tempfile.TemporaryDirectory() as empty:
                for how in ("argument", "environment"):
                    with self.subTest(how):
                        kw = {}
                        if how == "argument":
                            kw["library"] = empty
                        else:
                            os.environ[sympow.LIBRARY_ENV] = empty
                        with self.assertRaises(sympow.SympowError) as cm:
                            sympow.forward(x["q"], x["k"], x["v"], **kw)
                        self.assertIn(os.path.join(empty, "lib",
                                                   "libsympow_kernels.so"),
                                      cm.exception.message)
                        self.assertIn("SYMPOW_LIBRARY_DIR",
                                      cm.exception.message)
                        os.environ.pop(sympow.LIBRARY_ENV, None)
        finally:
            if saved is not None:
                os.environ[sympow.LIBRARY_ENV] = saved

    def test_every_header_function_is_declared(self):
        with open(HEADER) as f:
            text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
        declared = set(re.findall(r"\b(sympow_\w+)\s*\(", text))
        self.assertTrue(declared)
        self.assertEqual(declared, set(_capi.FUNCTIONS))

    def test_ctypes_layout_matches_header(self):
        cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
        if not cc:
            self.skipTest("no C compiler to read the header's layout")
        lines = ['#include <stddef.h>', '#include <stdio.h>',
                 '#include "sympow_kernels.h"', "int main(void) {"]
        expected = []
        for cname, struct in _capi.STRUCTS.items():
            lines.append('printf("%%zu\\n", sizeof(%s));' % cname)
            expected.append(("sizeof " + cname, ctypes.sizeof(struct)))
            for field, _ in struct._fields_:
                lines.append('printf("%%zu\\n", offsetof(%s, %s));'
                             % (cname, field))
                expected.append(("%s.%s" % (cname, field),
                                 getattr(struct, field).offset))
        constants = [("SYMPOW_KERNELS_API_VERSION", _capi.API_VERSION),
                     ("SYMPOW_MAX_RANK", _capi.MAX_RANK),
                     ("SYMPOW_SUCCESS", _capi.SUCCESS),
                     ("SYMPOW_ERROR_INVALID_ARGUMENT",
                      _capi.ERROR_INVALID_ARGUMENT),
                     ("SYMPOW_ERROR_NOT_COMPILED", _capi.ERROR_NOT_COMPILED),
                     ("SYMPOW_ERROR_BACKEND", _capi.ERROR_BACKEND),
                     ("SYMPOW_ERROR_NO_DEVICE", _capi.ERROR_NO_DEVICE),
                     ("SYMPOW_DTYPE_F64", _capi.DTYPE_F64),
                     ("SYMPOW_WITH_INITIAL_STATE", _capi.WITH_INITIAL_STATE),
                     ("SYMPOW_WITH_FINAL_STATE", _capi.WITH_FINAL_STATE),
                     ("sizeof(sympow_status)", ctypes.sizeof(_capi.c_enum))]
        for table, prefix in ((_capi.BACKENDS, "SYMPOW_BACKEND_"),
                              (_capi.DTYPES, "SYMPOW_DTYPE_"),
                              (_capi.SCHEDULES, "SYMPOW_SCHEDULE_"),
                              (_capi.ROPE_LAYOUTS, "SYMPOW_ROPE_"),
                              (_capi.FORMULATIONS, "SYMPOW_FORMULATION_")):
            constants += [(prefix + k.upper(), v) for k, v in table.items()]
        for name, value in constants:
            lines.append('printf("%%zu\\n", (size_t)(%s));' % name)
            expected.append((name, value))
        lines.append("return 0; }")
        with tempfile.TemporaryDirectory() as tmp:
            src, exe = os.path.join(tmp, "layout.c"), os.path.join(tmp, "a")
            with open(src, "w") as f:
                f.write("\n".join(lines) + "\n")
            subprocess.run([cc, "-I", os.path.dirname(HEADER), src, "-o",
                            exe], check=True)
            out = subprocess.run([exe], check=True, capture_output=True,
                                 text=True).stdout.split()
        self.assertEqual(len(out), len(expected))
        for (what, want), got in zip(expected, out):
            self.assertEqual(int(got), want, what)


# -------------------------------------------------- with a kernel library
class WithLibrary(SpecCase):
    @classmethod
    def setUpClass(cls):
        if LIBRARY is None:
            raise unittest.SkipTest("no kernel library: pass --library DIR "
                                    "or set SYMPOW_LIBRARY_DIR")
        cls.lib = dict(library=LIBRARY)

    def f32(self, x, **kw):
        return sympow.forward(x["q"], x["k"], x["v"], log_g=x["log_g"],
                              beta=x["beta"], **F32_KW, **self.lib, **kw)

    def test_compiled_variants(self):
        names = sympow.compiled_variants(LIBRARY)
        self.assertTrue(all(isinstance(n, str) and n for n in names), names)

        def key(name):
            kv = dict(item.split("=", 1) for item in name.split(","))
            return kv.get("dtype"), kv.get("formulation"), kv.get("chunk")
        self.assertEqual(sorted(map(key, names), key=str), sorted([
            ("f32", "attention", None), ("f32", "chunked", "16"),
            ("f32", "recurrent", None), ("bf16", "attention", None),
            ("f16", "attention", None)], key=str))

    def test_library_is_loaded_once_per_path(self):
        lib = sympow.load_library(LIBRARY)
        self.assertIs(sympow.load_library(lib.path), lib)
        self.assertTrue(lib.path.endswith("libsympow_kernels.so"))
        saved = os.environ.get(sympow.LIBRARY_ENV)
        os.environ[sympow.LIBRARY_ENV] = LIBRARY
        try:
            self.assertIs(sympow.load_library(), lib)
        finally:
            if saved is None:
                del os.environ[sympow.LIBRARY_ENV]
            else:
                os.environ[sympow.LIBRARY_ENV] = saved

    def test_f32_every_formulation_gqa_learned_rotary(self):
        for formulation, B, T in (("attention", 2, 21), ("chunked", 2, 37),
                                  ("recurrent", 1, 9), ("auto", 1, 18)):
            with self.subTest(formulation):
                x = inputs(1, B, T, 2, 1, 16, 16, log_g=True, beta=True)
                y = self.f32(x, formulation=formulation)
                self.assertEqual(y.dtype, np.float32)
                self.assertSpec(y, self.f32_ref(x)[0], "f32")
        with self.subTest("float64 inputs, rounded to f32"):
            x = inputs(1, 1, 11, 2, 1, 16, 16, log_g=True, beta=True)
            rng = np.random.default_rng(1)
            for n in ("q", "k", "v"):
                x[n] = rng.standard_normal(x[n].shape)  # not f32 values
            y = self.f32(x)
            self.assertEqual(y.dtype, np.float32)
            self.assertSpec(y, self.f32_ref(x)[0], "f32")

    def test_chunked_state_in_two_pieces(self):
        # One sequence in two calls (the first's final state the second's
        # initial state) is the definition over the whole sequence.
        x = inputs(2, 2, 40, 2, 1, 16, 16, log_g=True, beta=True)
        y_ref, state_ref = self.f32_ref(x, final=True)
        y1, s1 = self.f32(tokens(x, 0, 23), formulation="chunked",
                          return_final_state=True)
        self.assertState(s1, self.f32_ref(tokens(x, 0, 23), final=True)[1],
                         "first piece's state")
        y2, s2 = self.f32(tokens(x, 23, 40), formulation="chunked",
                          initial_state=s1, return_final_state=True)
        self.assertSpec(np.concatenate([y1, y2], axis=1), y_ref, "f32")
        self.assertState(s2, state_ref)

    def test_random_initial_state(self):
        x = inputs(3, 2, 20, 2, 1, 16, 16, log_g=True, beta=True)
        init = random_initial(3, 2, 1, 16, 16, 2)
        y_ref, state_ref = self.f32_ref(x, initial=init, final=True)
        for formulation in ("chunked", "recurrent"):
            with self.subTest(formulation):
                y, state = self.f32(x, formulation=formulation,
                                    initial_state=init,
                                    return_final_state=True)
                self.assertSpec(y, y_ref, "f32")
                self.assertState(state, state_ref)

    def test_decode_matches_forward_token_by_token(self):
        B, T = 2, 6
        x = inputs(4, B, T, 2, 1, 16, 16, log_g=True, beta=True)
        init = random_initial(4, B, 1, 16, 16, 2)
        y_ref, state_ref = self.f32_ref(x, initial=init, final=True)
        y_fwd, state_fwd = self.f32(x, initial_state=init,
                                    return_final_state=True)
        self.assertSpec(y_fwd, y_ref, "f32")
        # The state decode updates: S not contiguous (a view), so the
        # package works on a copy and writes it back.
        S = np.zeros(init[0].shape[:-1] + (2 * init[0].shape[-1],),
                     np.float32)[..., ::2]
        S[...] = init[0]
        state = (S, init[1].copy(), init[2].copy())
        for t in range(T):
            step = tokens(x, t, t + 1)
            y = sympow.decode(step["q"], step["k"], step["v"], state,
                              log_g=step["log_g"], beta=step["beta"],
                              **F32_KW, **self.lib)
            self.assertEqual(y.shape, (B, 1, 2, 16))
            self.assertSpec(y[:, 0], y_ref[:, t], "f32", "decode y[%d]" % t)
            self.assertWithin(y[:, 0], y_fwd[:, t].astype(np.float64), 1e-4,
                              "decode vs forward y[%d]" % t)
        self.assertState(state, state_ref, "decoded state")
        self.assertState(state, tuple(np.asarray(a, np.float64)
                                      for a in state_fwd),
                         "decoded vs forward state")
        # Several tokens in one step.
        state = tuple(a.copy() for a in init)
        y = sympow.decode(x["q"], x["k"], x["v"], state, log_g=x["log_g"],
                          beta=x["beta"], **F32_KW, **self.lib)
        self.assertSpec(y, y_ref, "f32", "decode of %d tokens" % T)
        self.assertState(state, state_ref, "state after %d tokens" % T)

    def test_cuda_backend(self):
        # Where there is a GPU this runs the kernels on it; where there is
        # none, the error says so.
        x = inputs(14, 1, 17, 2, 1, 16, 16, log_g=True, beta=True)
        try:
            y, state = self.f32(x, backend="cuda", return_final_state=True)
        except sympow.SympowError as e:
            self.assertEqual(e.status, sympow.NO_DEVICE, e.message)
            self.assertIn("CUDA", e.message)
            return
        y_ref, state_ref = self.f32_ref(x, final=True)
        self.assertSpec(y, y_ref, "f32")
        self.assertState(state, state_ref)

    def test_device_memory_path_on_the_emulator(self):
        # backend="cuda" stages tensors with sympow_device_alloc/copy; the
        # emulator's device memory is host memory, so that path runs here.
        x = inputs(5, 1, 19, 2, 1, 16, 16, log_g=True, beta=True)
        init = random_initial(5, 1, 1, 16, 16, 2)
        y_ref, state_ref = self.f32_ref(x, initial=init, final=True)
        y, state = sympow._layer.forward(
            x["q"], x["k"], x["v"], log_g=x["log_g"], beta=x["beta"],
            initial_state=init, return_final_state=True, _device_memory=True,
            **F32_KW, **self.lib)
        self.assertSpec(y, y_ref, "f32")
        self.assertState(state, state_ref)
        state = tuple(a.copy() for a in init)
        ys = []
        for t in range(3):
            step = tokens(x, t, t + 1)
            ys.append(sympow._layer.decode(
                step["q"], step["k"], step["v"], state, log_g=step["log_g"],
                beta=step["beta"], _device_memory=True, **F32_KW,
                **self.lib))
        y3_ref, state3_ref = self.f32_ref(tokens(x, 0, 3), initial=init,
                                          final=True)
        self.assertSpec(np.concatenate(ys, axis=1), y3_ref, "f32")
        self.assertState(state, state3_ref)

    def test_bf16_attention_both_gates(self):
        x = inputs(6, 2, 19, 2, 2, 16, 32, log_g=True, log_gamma=True)
        y = sympow.forward(x["q"], x["k"], x["v"], log_g=x["log_g"],
                           log_gamma=x["log_gamma"], dtype="bf16",
                           **BF16_KW, **self.lib)
        self.assertEqual((y.dtype, y.shape), (np.float32, (2, 19, 2, 32)))
        y_ref = reference(x, 2, "uniform", "bf16")[0]
        self.assertSpec(y, y_ref, "bf16")
        # bf16 bits given as uint16 are the same inputs.
        bits = {n: _dtypes.to_bf16_bits(x[n]) for n in ("q", "k", "v")}
        y_bits = sympow.forward(bits["q"], bits["k"], bits["v"],
                                log_g=x["log_g"], log_gamma=x["log_gamma"],
                                dtype="bf16", **BF16_KW, **self.lib)
        np.testing.assert_array_equal(y_bits, y)

    def test_f16_warped(self):
        x = inputs(7, 2, 23, 1, 1, 16, 16)
        x16 = {n: a.astype(np.float16) for n, a in x.items()}
        y = sympow.forward(x16["q"], x16["k"], x16["v"], schedule="warped",
                           warp_length=8, **self.lib)
        self.assertEqual((y.dtype, y.shape), (np.float16, (2, 23, 1, 16)))
        y_ref = reference(x16, 2, "warped", "f16", warp_length=8.0)[0]
        self.assertSpec(y, y_ref, "f16")

    # ---------------------------------------------------------- errors
    def assertFails(self, status, *fragments, **call):
        fn = call.pop("fn", sympow.forward)
        with self.assertRaises(sympow.SympowError) as cm:
            fn(**call)
        e = cm.exception
        self.assertEqual(e.status_name, _capi.STATUS_NAMES[status], e.message)
        for fragment in fragments:
            self.assertIn(fragment, e.message)
        return e

    def test_integers_out_of_range_are_refused(self):
        # ctypes would wrap them: power = 2**64 + 2 ran p = 2 (issue 13).
        x = inputs(9, 1, 4, 2, 1, 16, 16, log_g=True, beta=True)
        base = dict(x, **F32_KW, **self.lib)
        for name, value in (("power", 2**64 + 2), ("power", -2**63 - 1),
                            ("power", 1e30), ("rope_dims", 2**64 + 8),
                            ("warp_length", 2**70),
                            ("chunk_size", 2**64 + 16)):
            with self.subTest(name=name, value=value):
                e = self.assertFails(sympow.INVALID_ARGUMENT, name,
                                     "out of range", **dict(base, **{name: value}))
                self.assertIsInstance(e, ValueError)
        self.assertFails(sympow.INVALID_ARGUMENT, "rope_base", "out of range",
                         **dict(base, rope_base=10**400))
        # In range for int64 but past the rule every entry point shares.
        self.assertFails(sympow.INVALID_ARGUMENT, "power = 34",
                         "even integer >= 2 and <= 32",
                         **dict(base, power=34))
        self.assertFails(sympow.INVALID_ARGUMENT, "device", "out of range",
                         **dict(base, backend="cuda", device=2**32))

    def test_decode_refuses_overlapping_outputs(self):
        # Z a strided view of S: decode would write Z's update into S.
        x = inputs(10, 1, 1, 2, 1, 16, 16, log_g=True, beta=True)
        init = random_initial(10, 1, 1, 16, 16, 2)
        S = init[0].copy()
        c = init[2].copy()
        before = S.copy()
        call = dict(q=x["q"], k=x["k"], v=x["v"], log_g=x["log_g"],
                    beta=x["beta"], fn=sympow.decode, **F32_KW, **self.lib)
        self.assertFails(sympow.INVALID_ARGUMENT, "'state.S' and 'state.Z' "
                         "overlap", **dict(call, state=(S, S[..., 0], c)))
        np.testing.assert_array_equal(S, before)
        # The same array twice, and an input that is a view of the state.
        Z = init[1].copy()
        self.assertFails(sympow.INVALID_ARGUMENT, "'state.S' and 'state.Z'",
                         **dict(call, state=(Z, Z, c)))
        flat = np.zeros(S.size + 16, np.float32)
        S2 = flat[:S.size].reshape(S.shape)
        S2[...] = S
        v = flat[S.size - 8:S.size + 8].reshape(1, 1, 1, 16)
        self.assertFails(sympow.INVALID_ARGUMENT, "'v' overlaps 'state.S'",
                         **dict(call, v=v, state=(S2, Z, c)))
        # Disjoint views of one buffer are fine.
        buf = np.zeros(S.size + Z.size, np.float32)
        S3 = buf[:S.size].reshape(S.shape)
        Z3 = buf[S.size:].reshape(Z.shape)
        S3[...], Z3[...] = S, Z
        y = sympow.decode(x["q"], x["k"], x["v"], (S3, Z3, c),
                          log_g=x["log_g"], beta=x["beta"], **F32_KW,
                          **self.lib)
        self.assertEqual(y.shape, (1, 1, 2, 16))

    def test_wrong_shapes_name_the_tensor(self):
        x = inputs(8, 1, 8, 2, 1, 16, 16, log_g=True, beta=True)
        base = dict(x, **F32_KW, **self.lib)
        bad_k = np.zeros((1, 8, 1, 8), np.float32)      # d = 8, not 16
        self.assertFails(sympow.INVALID_ARGUMENT, "'k'", "[1, 8, 1, 16]",
                         **dict(base, k=bad_k))
        bad_g = np.zeros((1, 9, 1), np.float32)         # T = 9, not 8
        self.assertFails(sympow.INVALID_ARGUMENT, "'log_g'",
                         **dict(base, log_g=bad_g))
        self.assertFails(sympow.INVALID_ARGUMENT, "'q'", "rank 4",
                         **dict(base, q=x["q"][0]))
        init = random_initial(8, 1, 1, 16, 16, 2)
        self.assertFails(sympow.INVALID_ARGUMENT, "'initial_state.Z'",
                         **dict(base, initial_state=(init[0], init[1][:, :, 1:],
                                                     init[2])))

    def test_a_variant_not_compiled(self):
        x = inputs(9, 1, 8, 2, 1, 16, 16, log_g=True, beta=True)
        base = dict(x, **F32_KW, **self.lib)
        e = self.assertFails(sympow.NOT_COMPILED, 'sympow-aot --variant "p=4',
                             **dict(base, power=4))
        self.assertIn(sympow.load_library(LIBRARY).path, e.message)
        # Compiled, but not with a state: the bf16 variant is attention only.
        xb = inputs(9, 1, 8, 2, 2, 16, 32)
        self.assertFails(sympow.NOT_COMPILED, "sympow-aot --variant",
                         q=xb["q"], k=xb["k"], v=xb["v"], dtype="bf16",
                         log_g=np.zeros((1, 8, 2), np.float32),
                         log_gamma=np.zeros(2, np.float32),
                         return_final_state=True, **BF16_KW, **self.lib)

    def test_refused_arguments(self):
        x = inputs(10, 1, 8, 2, 1, 16, 16, log_g=True, beta=True)
        base = dict(x, **F32_KW, **self.lib)
        self.assertFails(sympow.INVALID_ARGUMENT, "power = 3",
                         **dict(base, power=3))
        self.assertFails(sympow.INVALID_ARGUMENT, "'beta' is null",
                         **dict(base, beta=None))
        self.assertFails(sympow.INVALID_ARGUMENT, "attention",
                         **dict(base, formulation="attention",
                                return_final_state=True))
        self.assertFails(sympow.INVALID_ARGUMENT, "schedule", "'rope'",
                         **dict(base, schedule="rope"))
        self.assertFails(sympow.INVALID_ARGUMENT, "warp_length",
                         **dict(base, schedule="warped", warp_length=3.5))
        x16 = inputs(10, 1, 8, 1, 1, 16, 16)
        self.assertFails(sympow.INVALID_ARGUMENT, "'q'", "overflows f16",
                         q=x16["q"] * 1e5, k=x16["k"], v=x16["v"],
                         dtype="f16", schedule="warped", warp_length=8,
                         **self.lib)
        state = sympow.zero_state(1, 1, 16, 16)
        step = tokens(x, 0, 1)
        self.assertFails(sympow.INVALID_ARGUMENT, "'state.c'",
                         fn=sympow.decode,
                         **dict(step, **F32_KW, **self.lib,
                                state=(state[0], state[1],
                                       state[2].astype(np.float32))))


# ------------------------------------------------------------ torch glue
class FakeTorch:
    """The part of torch's API the package uses, over numpy (torch is not
    installed here): enough to run the package's torch paths for real."""

    class dtype:
        def __init__(self, name, numpy):
            self.name, self.numpy = name, numpy

        def __repr__(self):
            return "torch." + self.name

    class device:
        def __init__(self, type, index=None):
            self.type, self.index = type, index

        def __eq__(self, other):
            return (self.type, self.index) == (other.type, other.index)

        def __repr__(self):
            return "%s:%s" % (self.type, self.index)

    def __init__(self, cuda_tensors=False):
        d = FakeTorch.dtype
        self.bfloat16 = d("bfloat16", np.float32)  # values rounded to bf16
        self.float16 = d("float16", np.float16)
        self.float32 = d("float32", np.float32)
        self.float64 = d("float64", np.float64)
        self.uint8 = d("uint8", np.uint8)
        self._dtypes = [self.bfloat16, self.float16, self.float32,
                        self.float64, self.uint8]
        # "cuda" tensors live in host memory: the package's pointer path
        # then runs on the emulator.
        self.dev = FakeTorch.device("cuda", 0) if cuda_tensors else \
            FakeTorch.device("cpu")
        torch = self

        class Tensor:
            def __init__(self, array, dtype, device):
                self.a, self.dtype, self.device = array, dtype, device

            shape = property(lambda self: self.a.shape)
            is_cuda = property(lambda self: self.device.type == "cuda")

            def dim(self):
                return self.a.ndim

            def numel(self):
                return self.a.size

            def element_size(self):
                return self.a.itemsize

            def detach(self):
                return self

            def cpu(self):
                return Tensor(self.a, self.dtype, FakeTorch.device("cpu"))

            def numpy(self):
                if self.is_cuda or self.dtype is torch.bfloat16:
                    raise TypeError("numpy() of a %s %s tensor"
                                    % (self.device, self.dtype))
                return self.a

            def float(self):
                return self.to(dtype=torch.float32)

            def to(self, device=None, dtype=None):
                a = self.a
                if dtype is torch.bfloat16:
                    a = _dtypes.from_bf16_bits(_dtypes.to_bf16_bits(a))
                elif dtype is not None:
                    a = a.astype(dtype.numpy)
                return Tensor(sympow._layer.aligned_copy(a), dtype or
                              self.dtype, device or self.device)

            def contiguous(self):
                return self if self.is_contiguous() else \
                    Tensor(sympow._layer.aligned_copy(self.a), self.dtype,
                           self.device)

            def is_contiguous(self):
                return self.a.flags.c_contiguous

            def data_ptr(self):
                assert self.dtype is not torch.bfloat16, "no bf16 memory"
                return self.a.ctypes.data

        self.Tensor = Tensor

        class cuda:
            @staticmethod
            def current_stream(device):
                return type("Stream", (), {"cuda_stream": None})()

            @staticmethod
            def current_device():
                return 0

        self.cuda = cuda

    def tensor(self, array, dtype=None):
        dtype = dtype or next(d for d in self._dtypes[1:]  # not bf16
                              if d.numpy == array.dtype)
        t = self.Tensor(sympow._layer.aligned_copy(array), self.float32,
                        self.dev)
        return t.to(dtype=dtype) if dtype is not self.float32 else t

    def from_numpy(self, array):
        return self.Tensor(array, next(d for d in self._dtypes[1:]
                                       if d.numpy == array.dtype),
                           FakeTorch.device("cpu"))

    def empty(self, shape, dtype, device):
        return self.Tensor(sympow._layer.aligned_empty(shape, dtype.numpy),
                           dtype, device)


class TorchGlue(SpecCase):
    """sympow.forward/decode given torch tensors (a fake torch)."""

    @classmethod
    def setUpClass(cls):
        if LIBRARY is None:
            raise unittest.SkipTest("no kernel library")
        if "torch" in sys.modules:
            raise unittest.SkipTest("a real torch is loaded")

    def use(self, fake):
        sys.modules["torch"] = fake
        self.addCleanup(sys.modules.pop, "torch", None)
        self.addCleanup(setattr, sympow._torch, "torch", None)
        return fake

    def test_cpu_tensors_round_trip(self):
        torch = self.use(FakeTorch())
        x = inputs(11, 1, 12, 2, 1, 16, 16, log_g=True, beta=True)
        t = {n: torch.tensor(a) for n, a in x.items()}
        init = random_initial(11, 1, 1, 16, 16, 2)
        y, (S, Z, c) = sympow.forward(
            t["q"], t["k"], t["v"], log_g=t["log_g"], beta=t["beta"],
            initial_state=tuple(torch.tensor(a) for a in init),
            return_final_state=True, library=LIBRARY, **F32_KW)
        self.assertIsInstance(y, torch.Tensor)
        self.assertIs(y.dtype, torch.float32)
        y_ref, state_ref = self.f32_ref(x, initial=init, final=True)
        self.assertSpec(y.a, y_ref, "f32")
        self.assertState((S.a, Z.a, c.a), state_ref)
        # decode updates CPU tensors in place.
        state = tuple(torch.tensor(a) for a in init)
        step = {n: torch.tensor(a) for n, a in tokens(x, 0, 1).items()}
        y1 = sympow.decode(step["q"], step["k"], step["v"], state,
                           log_g=step["log_g"], beta=step["beta"],
                           library=LIBRARY, **F32_KW)
        self.assertSpec(y1.a[:, 0], y_ref[:, 0], "f32")
        self.assertState(tuple(a.a for a in state),
                         self.f32_ref(tokens(x, 0, 1), initial=init,
                                      final=True)[1])

    def test_bf16_tensors_give_bf16(self):
        torch = self.use(FakeTorch())
        x = inputs(12, 1, 10, 2, 2, 16, 32, log_g=True, log_gamma=True)
        t = {n: torch.tensor(a, torch.bfloat16 if n in "qkv" else None)
             for n, a in x.items()}
        y = sympow.forward(t["q"], t["k"], t["v"], log_g=t["log_g"],
                           log_gamma=t["log_gamma"], library=LIBRARY,
                           **BF16_KW)
        self.assertIs(y.dtype, torch.bfloat16)
        self.assertSpec(y.a, reference(x, 2, "uniform", "bf16")[0], "bf16")

    def test_cuda_pointer_path(self):
        # The CUDA path (pointers, torch-allocated y, state and workspace),
        # run on the emulator with tensors in host memory.
        torch = self.use(FakeTorch(cuda_tensors=True))
        self.addCleanup(setattr, sympow._torch, "_on_cuda",
                        sympow._torch._on_cuda)
        sympow._torch._on_cuda = lambda backend, q: q.is_cuda
        x = inputs(13, 2, 21, 2, 1, 16, 16, log_g=True, beta=True)
        t = {n: torch.tensor(a) for n, a in x.items()}
        init = random_initial(13, 2, 1, 16, 16, 2)
        y, state = sympow.forward(
            t["q"], t["k"], t["v"], log_g=t["log_g"], beta=t["beta"],
            initial_state=tuple(torch.tensor(a) for a in init),
            return_final_state=True, library=LIBRARY, **F32_KW)
        self.assertTrue(y.is_cuda)
        y_ref, state_ref = self.f32_ref(x, initial=init, final=True)
        self.assertSpec(y.a, y_ref, "f32")
        self.assertState(tuple(a.a for a in state), state_ref)
        state = tuple(torch.tensor(a) for a in init)
        for i in range(2):
            step = {n: torch.tensor(a) for n, a in tokens(x, i, i + 1).items()}
            yi = sympow.decode(step["q"], step["k"], step["v"], state,
                               log_g=step["log_g"], beta=step["beta"],
                               library=LIBRARY, **F32_KW)
            self.assertSpec(yi.a[:, 0], y_ref[:, i], "f32")
        self.assertState(tuple(a.a for a in state),
                         self.f32_ref(tokens(x, 0, 2), initial=init,
                                      final=True)[1])


def main():
    global LIBRARY
    args = sys.argv[1:]
    if args[:1] == ["--build-library"]:
        if len(args) != 3:
            print(__doc__, file=sys.stderr)
            return 2
        cmd = [args[1]]
        for v in VARIANTS:
            cmd += ["--variant", v]
        cmd += ["--arch", "sm_80", "--out", args[2]]
        print(" ".join(repr(c) if "," in c else c for c in cmd), flush=True)
        return subprocess.call(cmd)
    if "--library" in args:
        i = args.index("--library")
        if i + 1 >= len(args):
            print(__doc__, file=sys.stderr)
            return 2
        LIBRARY = args[i + 1]
        del args[i:i + 2]
    else:
        LIBRARY = os.environ.get(sympow.LIBRARY_ENV) or None
    program = unittest.main(argv=[sys.argv[0]] + args, exit=False,
                            verbosity=2)
    return 0 if program.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
