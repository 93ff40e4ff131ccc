"""forward and decode on numpy arrays, through the C API.

What is checked here is only what the C API cannot see: the Python argument
types, the ranks of q, k and v (the layer's dims are read from them), the
spelling of the string options, integer-valued parameters, and values that
overflow when this package rounds them to f16/bf16. Everything else (shapes
against the layer, p, rotary dims, gates present or not, formulations, the
variants compiled) is the C API's to check; its message is passed on.
"""

import ctypes
import math
import numbers

import numpy as np

from . import _capi, _dtypes, _library
from ._errors import invalid

# The kernels' alignment for q, k, v, y, S and Z is 16 bytes, c 8, gates 4,
# workspace 256: host buffers made here are 256-aligned.
_ALIGN = 256
_INPUT_ALIGN = 16

_NUMPY_TO_SYMPOW = {
    np.dtype(np.float16): _capi.DTYPE_F16,
    np.dtype(np.float32): _capi.DTYPE_F32,
    np.dtype(np.float64): _capi.DTYPE_F64,
}


# ------------------------------------------------------------ host buffers
def aligned_empty(shape, dtype, align=_ALIGN):
    """An uninitialised C-contiguous array whose data is `align`-aligned."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = np.empty(nbytes + align, dtype=np.uint8)
    offset = (-raw.ctypes.data) % align
    return raw[offset:offset + nbytes].view(dtype).reshape(shape)


def aligned_copy(array, dtype=None):
    out = aligned_empty(array.shape, dtype or array.dtype)
    with np.errstate(over="ignore"):  # overflow is checked by the caller
        np.copyto(out, array, casting="unsafe")
    return out


def _usable(array, dtype, align=_INPUT_ALIGN):
    """Whether the kernels can read `array` in place."""
    return (array.dtype == dtype and array.flags.c_contiguous
            and array.ctypes.data % align == 0)


# -------------------------------------------------------------- parameters
def _choice(name, value, table):
    if isinstance(value, str) and value in table:
        return table[value]
    raise invalid("%s = %r is unknown: use %s"
                  % (name, value, ", ".join(repr(k) for k in table)))


INT64_RANGE = (-2**63, 2**63 - 1)   # the C API's int64_t fields
INT32_RANGE = (-2**31, 2**31 - 1)   # its int arguments (device)


def _integer(name, value, allow_none=True, zero_means=None,
             bounds=INT64_RANGE):
    """An integer-valued parameter (the C API takes int64). Out of `bounds`
    is an error: ctypes would silently wrap it (2**64 + 2 -> 2)."""
    if value is None and allow_none:
        return 0
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise invalid("%s = %r must be an integer" % (name, value))
    if isinstance(value, numbers.Integral):
        value = int(value)
    else:
        try:
            whole = float(value).is_integer()
        except (OverflowError, ValueError):
            whole = False
        if not whole:
            raise invalid("%s = %r must be a whole number: the kernels are "
                          "compiled for integer %s" % (name, value, name))
        value = int(value)
    lo, hi = bounds
    if not lo <= value <= hi:
        raise invalid("%s = %d is out of range: it must be between %d and %d "
                      "(%d-bit integer of the C API)"
                      % (name, value, lo, hi, 64 if hi > 2**31 else 32))
    if zero_means and value == 0:
        # The C API reads 0 as "the default"; in Python that is None.
        raise invalid("%s = 0 is not allowed (None: %s)" % (name, zero_means))
    return value


def shares_memory(a, b):
    """Whether two arrays have an element in common (exactly; by their
    bounds where numpy finds that too hard)."""
    try:
        return bool(np.shares_memory(a, b, max_work=100000))
    except Exception:  # numpy's TooHardError
        return bool(np.may_share_memory(a, b))


def _real(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise invalid("%s = %r must be a number" % (name, value))
    try:
        return float(value)
    except OverflowError:
        raise invalid("%s = %r is out of range: it must be a finite double"
                      % (name, value)) from None


def resolve_backend(backend, device):
    code = _choice("backend", backend, _capi.BACKENDS)
    # The emulator ignores the device: one context serves every value.
    return backend, (0 if code == _capi.BACKENDS["emulator"]
                     else _integer("device", device, allow_none=False,
                                   bounds=INT32_RANGE))


def make_desc(lib, *, power, dims, dtype, has_log_g, has_log_gamma,
              schedule, rope_base, rope_scale, rope_dims, rope_layout,
              warp_length, scale, formulation="auto", chunk_size=None):
    """The sympow_layer_desc of a call; dims = (d, e, Hq, H)."""
    desc = _capi.LayerDesc()
    lib.lib.sympow_layer_desc_init(ctypes.byref(desc))
    desc.power = _integer("power", power, allow_none=False)
    desc.head_dim, desc.value_dim, desc.query_heads, desc.kv_heads = dims
    desc.dtype = _capi.DTYPES[dtype]
    desc.has_log_g = int(has_log_g)
    desc.has_log_gamma = int(has_log_gamma)
    desc.schedule = _choice("schedule", schedule, _capi.SCHEDULES)
    desc.rope_base = _real("rope_base", rope_base)
    desc.rope_scale = _real("rope_scale", rope_scale)
    desc.rope_dims = _integer("rope_dims", rope_dims, zero_means="d")
    desc.rope_layout = _choice("rope_layout", rope_layout, _capi.ROPE_LAYOUTS)
    desc.warp_length = _integer("warp_length", warp_length)
    if scale is None:
        desc.scale = 0.0  # the C API's 1/sqrt(d)
    else:
        desc.scale = _real("scale", scale)
        if desc.scale == 0:
            raise invalid("scale = 0 is not allowed (None: 1/sqrt(d))")
    desc.formulation = _choice("formulation", formulation,
                               _capi.FORMULATIONS)
    desc.chunk_size = _integer("chunk_size", chunk_size,
                               zero_means="the compiled chunk size")
    return desc


def state_dim(head_dim, power):
    """D = C(d + p - 1, p), the size of phi^p of a d-vector."""
    return math.comb(int(head_dim) + int(power) - 1, int(power))


def zero_state(batch, kv_heads, head_dim, value_dim, power=2):
    """A zero state (S [B,H,D,e] f32, Z [B,H,D] f32, c [B,H] f64), aligned
    for the kernels, e.g. to start `decode`."""
    D = state_dim(head_dim, power)
    S = aligned_empty((batch, kv_heads, D, value_dim), np.float32)
    Z = aligned_empty((batch, kv_heads, D), np.float32)
    c = aligned_empty((batch, kv_heads), np.float64)
    for a in (S, Z, c):
        a.fill(0)
    return S, Z, c


# ----------------------------------------------------------------- tensors
def _array(name, x):
    if isinstance(x, np.ndarray):
        return x
    try:
        return np.asarray(x)
    except Exception as e:  # noqa: BLE001 - whatever numpy says
        raise invalid("'%s' is not an array: %s" % (name, e)) from None


def _rank4(name, x, shape_text):
    if x.ndim != 4:
        raise invalid("'%s' has shape %s: it must have rank 4, %s"
                      % (name, list(x.shape), shape_text))


def infer_dtype(q, dtype):
    """The kernels' element type: `dtype`, or from q's numpy dtype."""
    if dtype is not None:
        if dtype not in _capi.DTYPES:
            raise invalid("dtype = %r is unknown: use 'bf16', 'f16' or "
                          "'f32'" % (dtype,))
        return dtype
    if q.dtype == np.float16:
        return "f16"
    if q.dtype in (np.float32, np.float64):
        return "f32"
    if _dtypes.is_ml_bfloat16(q.dtype):
        return "bf16"
    if q.dtype == np.uint16:
        raise invalid("'q' is uint16: pass dtype='bf16' if it holds bf16 "
                      "bits")
    raise invalid("'q' has dtype %s: give float16, float32 or float64 "
                  "values (bf16: float32 values with dtype='bf16')" % q.dtype)


def kernel_input(name, x, dtype):
    """q, k or v in the kernels' element type, contiguous and aligned."""
    if dtype == "bf16":
        if x.dtype == np.uint16 or _dtypes.is_ml_bfloat16(x.dtype):
            bits = x.view(np.uint16)  # already bf16
        elif x.dtype.kind == "f":
            bits = _dtypes.to_bf16_bits(x)
            _check_overflow(name, x, _dtypes.from_bf16_bits(bits), dtype)
        else:
            raise invalid("'%s' has dtype %s: give floating-point values "
                          "(or uint16 bf16 bits)" % (name, x.dtype))
        return bits if _usable(bits, np.uint16) else aligned_copy(bits)
    if x.dtype.kind != "f" or _dtypes.is_ml_bfloat16(x.dtype):
        raise invalid("'%s' has dtype %s: give float16, float32 or float64 "
                      "values for dtype=%r" % (name, x.dtype, dtype))
    want = np.float16 if dtype == "f16" else np.float32
    if _usable(x, want):
        return x
    out = aligned_copy(x, want) if x.dtype != want else aligned_copy(x)
    if x.dtype != want:
        _check_overflow(name, x, out, dtype)
    return out


def _check_overflow(name, source, rounded, dtype):
    """Finite values that became inf when rounded to `dtype` (what sympow-run
    calls an error); NaN and inf given are passed on as they are."""
    with np.errstate(invalid="ignore", over="ignore"):
        bad = np.isfinite(source) & ~np.isfinite(rounded)
    if bad.any():
        worst = float(np.max(np.abs(source[bad])))
        raise invalid("'%s' holds %g, which overflows %s (round-to-nearest-"
                      "even gives inf)" % (name, worst, dtype))


def float_input(name, x, dtype=np.float32):
    """A gate, beta or state part: converted to `dtype`, aligned."""
    x = _array(name, x)
    if x.dtype.kind not in "fiu" and not _dtypes.is_ml_bfloat16(x.dtype):
        raise invalid("'%s' has dtype %s: give real numbers" % (name, x.dtype))
    if x.ndim > _capi.MAX_RANK:
        raise invalid("'%s' has rank %d: no tensor of the layer has more "
                      "than %d dims" % (name, x.ndim, _capi.MAX_RANK))
    return x if _usable(x, dtype) else aligned_copy(x, dtype)


def kernel_output(y, dtype):
    """y as returned: float32 for bf16 and f32, float16 for f16."""
    if dtype == "bf16":
        return _dtypes.from_bf16_bits(y)
    return y


_KERNEL_NUMPY = {"bf16": np.uint16, "f16": np.float16, "f32": np.float32}


# ----------------------------------------------------------------- staging
class _Staging:
    """Where a call's tensors live. On the emulator, host memory: numpy
    buffers are passed as they are. Otherwise (CUDA), device memory of the
    context: copied in before the call and out after it."""

    def __init__(self, lib, ctx, device_memory):
        self.lib, self.ctx, self.device = lib, ctx, device_memory
        self.allocations = []   # device pointers to free
        self.copy_back = []     # (host array, device pointer or host copy)

    def _alloc(self, nbytes):
        ptr = ctypes.c_void_p()
        self.lib.check(self.lib.lib.sympow_device_alloc(
            self.ctx, max(int(nbytes), 1), ctypes.byref(ptr)))
        self.allocations.append(ptr.value)
        return ptr.value

    def tensor(self, array, dtype_code):
        """An input: a sympow_tensor of `array` (contiguous, aligned)."""
        if not self.device:
            return _capi.tensor(array.ctypes.data, dtype_code, array.shape)
        ptr = self._alloc(array.nbytes)
        self.lib.check(self.lib.lib.sympow_copy_to_device(
            self.ctx, ptr, array.ctypes.data, array.nbytes))
        return _capi.tensor(ptr, dtype_code, array.shape)

    def output(self, array, dtype_code):
        """An output written into `array` (aligned) when the call is done."""
        if not self.device:
            return _capi.tensor(array.ctypes.data, dtype_code, array.shape)
        ptr = self._alloc(array.nbytes)
        self.copy_back.append((array, ptr))
        return _capi.tensor(ptr, dtype_code, array.shape)

    def inout(self, array, dtype_code):
        """Read and updated in place (decode's state): `array` itself where
        the kernels can use it, else a copy written back afterwards."""
        if not self.device and _usable(array, array.dtype):
            return _capi.tensor(array.ctypes.data, dtype_code, array.shape)
        if not self.device:
            copy = aligned_copy(array)
            self.copy_back.append((array, copy))
            return _capi.tensor(copy.ctypes.data, dtype_code, array.shape)
        ptr = self._alloc(array.nbytes)
        src = np.ascontiguousarray(array)
        self.lib.check(self.lib.lib.sympow_copy_to_device(
            self.ctx, ptr, src.ctypes.data, src.nbytes))
        self.copy_back.append((array, ptr))
        return _capi.tensor(ptr, dtype_code, array.shape)

    def workspace(self, nbytes):
        if not nbytes:
            return None, None
        if self.device:
            return self._alloc(nbytes), None
        buf = aligned_empty((nbytes,), np.uint8)
        return buf.ctypes.data, buf

    def finish(self):
        """After a successful call: results to their arrays."""
        if self.device:
            self.lib.check(self.lib.lib.sympow_synchronize(self.ctx, None))
        for array, where in self.copy_back:
            if isinstance(where, np.ndarray):
                array[...] = where
            elif array.flags.c_contiguous:
                self.lib.check(self.lib.lib.sympow_copy_to_host(
                    self.ctx, array.ctypes.data, where, array.nbytes))
            else:
                tmp = np.empty_like(array, order="C")
                self.lib.check(self.lib.lib.sympow_copy_to_host(
                    self.ctx, tmp.ctypes.data, where, tmp.nbytes))
                array[...] = tmp

    def close(self):
        for ptr in self.allocations:
            self.lib.lib.sympow_device_free(self.ctx, ptr)
        self.allocations = []


def _state_parts(name, state):
    if not isinstance(state, (tuple, list)) or len(state) != 3:
        raise invalid("'%s' must be a tuple (S, Z, c), got %s"
                      % (name, type(state).__name__))
    return state


def _optional(staging, name, x):
    """An optional f32 tensor: (sympow_tensor, keep-alive)."""
    if x is None:
        return _capi.ABSENT, None
    a = float_input(name, x)
    return staging.tensor(a, _capi.DTYPE_F32), a


# ------------------------------------------------------------------- calls
def _common(q, k, v, dtype):
    q, k, v = _array("q", q), _array("k", k), _array("v", v)
    _rank4("q", q, "[B, T, Hq, d]")
    _rank4("k", k, "[B, T, H, d]")
    _rank4("v", v, "[B, T, H, e]")
    dtype = infer_dtype(q, dtype)
    dims = (q.shape[3], v.shape[3], q.shape[2], k.shape[2])
    return q, k, v, dtype, dims


def _stage_layer(staging, args, keep, q, k, v, log_g, log_gamma, beta,
                 dtype, dims):
    """Stages q, k, v and the optional gates/beta into `args` (forward or
    decode arguments) and allocates y there; returns the host y. Host
    buffers the call reads go to `keep`."""
    code = _capi.DTYPES[dtype]
    for name, x in (("q", q), ("k", k), ("v", v)):
        a = kernel_input(name, x, dtype)
        keep.append(a)
        setattr(args, name, staging.tensor(a, code))
    for name, x in (("log_g", log_g), ("log_gamma", log_gamma),
                    ("beta", beta)):
        t, a = _optional(staging, name, x)
        keep.append(a)
        setattr(args, name, t)
    B, T = q.shape[0], q.shape[1]
    y = aligned_empty((B, T, dims[2], dims[1]), _KERNEL_NUMPY[dtype])
    args.y = staging.output(y, code)
    return y


def forward(q, k, v, power=2, log_g=None, log_gamma=None, beta=None,
            rope_base=10000.0, rope_scale=1.0, rope_dims=None,
            rope_layout="interleaved", schedule="none", warp_length=None,
            scale=None, dtype=None, formulation="auto", chunk_size=None,
            initial_state=None, return_final_state=False,
            backend="emulator", library=None, device=0,
            _device_memory=None):
    lib = _library.load(library)
    backend, device = resolve_backend(backend, device)
    q, k, v, dtype, dims = _common(q, k, v, dtype)
    desc = make_desc(
        lib, power=power, dims=dims, dtype=dtype,
        has_log_g=log_g is not None, has_log_gamma=log_gamma is not None,
        schedule=schedule, rope_base=rope_base, rope_scale=rope_scale,
        rope_dims=rope_dims, rope_layout=rope_layout,
        warp_length=warp_length, scale=scale, formulation=formulation,
        chunk_size=chunk_size)
    ctx = lib.context(backend, device)
    B, T = q.shape[0], q.shape[1]
    flags = ((_capi.WITH_INITIAL_STATE if initial_state is not None else 0)
             | (_capi.WITH_FINAL_STATE if return_final_state else 0))
    # Also checks the description and that the library has its kernels.
    need = ctypes.c_size_t()
    lib.check(lib.lib.sympow_forward_workspace_size(
        ctx, ctypes.byref(desc), B, T, flags, ctypes.byref(need)))

    if _device_memory is None:
        _device_memory = backend != "emulator"
    staging = _Staging(lib, ctx, _device_memory)
    keep = []  # host buffers the call reads
    try:
        args = _capi.ForwardArgs()
        y = _stage_layer(staging, args, keep, q, k, v, log_g, log_gamma,
                         beta, dtype, dims)

        if initial_state is not None:
            S0, Z0, c0 = _state_parts("initial_state", initial_state)
            parts = [float_input("initial_state.S", S0),
                     float_input("initial_state.Z", Z0),
                     float_input("initial_state.c", c0, np.float64)]
            keep.extend(parts)
            initial = _capi.State(
                staging.tensor(parts[0], _capi.DTYPE_F32),
                staging.tensor(parts[1], _capi.DTYPE_F32),
                staging.tensor(parts[2], _capi.DTYPE_F64))
            args.initial_state = ctypes.pointer(initial)
        final = None
        if return_final_state:
            H, D, e = dims[3], state_dim(dims[0], desc.power), dims[1]
            final = (aligned_empty((B, H, D, e), np.float32),
                     aligned_empty((B, H, D), np.float32),
                     aligned_empty((B, H), np.float64))
            args.final_state = ctypes.pointer(_capi.State(
                staging.output(final[0], _capi.DTYPE_F32),
                staging.output(final[1], _capi.DTYPE_F32),
                staging.output(final[2], _capi.DTYPE_F64)))
        args.workspace, ws = staging.workspace(need.value)
        args.workspace_bytes = need.value
        keep.append(ws)

        lib.check(lib.lib.sympow_forward(ctx, ctypes.byref(desc),
                                         ctypes.byref(args)))
        staging.finish()
    finally:
        staging.close()
    y = kernel_output(y, dtype)
    return (y, final) if return_final_state else y


def decode(q, k, v, state, power=2, log_g=None, log_gamma=None, beta=None,
           rope_base=10000.0, rope_scale=1.0, rope_dims=None,
           rope_layout="interleaved", schedule="none", warp_length=None,
           scale=None, dtype=None, backend="emulator", library=None,
           device=0, _device_memory=None):
    lib = _library.load(library)
    backend, device = resolve_backend(backend, device)
    q, k, v, dtype, dims = _common(q, k, v, dtype)
    desc = make_desc(
        lib, power=power, dims=dims, dtype=dtype,
        has_log_g=log_g is not None, has_log_gamma=log_gamma is not None,
        schedule=schedule, rope_base=rope_base, rope_scale=rope_scale,
        rope_dims=rope_dims, rope_layout=rope_layout,
        warp_length=warp_length, scale=scale)
    ctx = lib.context(backend, device)
    S, Z, c = _state_parts("state", state)
    parts = []
    for name, a in (("state.S", S), ("state.Z", Z), ("state.c", c)):
        if not isinstance(a, np.ndarray):
            raise invalid("'%s' must be a numpy array (decode updates the "
                          "state in place), got %s" % (name, type(a).__name__))
        if a.dtype not in _NUMPY_TO_SYMPOW:
            raise invalid("'%s' has dtype %s: the state is S, Z float32 and "
                          "c float64" % (name, a.dtype))
        if not a.flags.writeable:
            raise invalid("'%s' is read-only: decode updates the state in "
                          "place" % name)
        if a.ndim > _capi.MAX_RANK:
            raise invalid("'%s' has rank %d" % (name, a.ndim))
        parts.append(a)
    # Outputs updated in place must not overlap each other, nor the inputs
    # the call reads while it writes them.
    names = ("state.S", "state.Z", "state.c")
    inputs = (("q", q), ("k", k), ("v", v), ("log_g", log_g),
              ("log_gamma", log_gamma), ("beta", beta))
    for i in range(3):
        for j in range(i + 1, 3):
            if shares_memory(parts[i], parts[j]):
                raise invalid("'%s' and '%s' overlap in memory: decode "
                              "updates both in place, so they must be "
                              "separate arrays" % (names[i], names[j]))
        for name, x in inputs:
            if isinstance(x, np.ndarray) and shares_memory(parts[i], x):
                raise invalid("'%s' overlaps '%s' in memory: decode updates "
                              "the state in place while it reads %s"
                              % (name, names[i], name))

    if _device_memory is None:
        _device_memory = backend != "emulator"
    staging = _Staging(lib, ctx, _device_memory)
    keep = []
    try:
        args = _capi.DecodeArgs()
        y = _stage_layer(staging, args, keep, q, k, v, log_g, log_gamma,
                         beta, dtype, dims)
        st = _capi.State(*(staging.inout(a, _NUMPY_TO_SYMPOW[a.dtype])
                           for a in parts))
        args.state = ctypes.pointer(st)
        need = ctypes.c_size_t()
        lib.check(lib.lib.sympow_decode_workspace_size(
            ctx, ctypes.byref(desc), q.shape[0], q.shape[1],
            ctypes.byref(need)))
        if need.value:
            args.workspace, ws = staging.workspace(need.value)
            args.workspace_bytes = need.value
        lib.check(lib.lib.sympow_decode(ctx, ctypes.byref(desc),
                                        ctypes.byref(args)))
        staging.finish()
    finally:
        staging.close()
    return kernel_output(y, dtype)
