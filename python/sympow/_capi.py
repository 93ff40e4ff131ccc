"""ctypes declarations of the C API of a kernel library.

This mirrors runtime/capi/include/sympow_kernels.h exactly (field order,
types, enum values, function signatures); test/Python checks the struct
layouts against the header with a C compiler and that every function the
header declares is declared here.
"""

from ctypes import (POINTER, Structure, c_char_p, c_double, c_int, c_int32,
                    c_int64, c_size_t, c_uint32, c_void_p)

API_VERSION = 2  # SYMPOW_KERNELS_API_VERSION

# sympow_status
SUCCESS = 0
ERROR_INVALID_ARGUMENT = 1
ERROR_NOT_COMPILED = 2
ERROR_BACKEND = 3
ERROR_NO_DEVICE = 4

STATUS_NAMES = {
    SUCCESS: "SUCCESS",
    ERROR_INVALID_ARGUMENT: "INVALID_ARGUMENT",
    ERROR_NOT_COMPILED: "NOT_COMPILED",
    ERROR_BACKEND: "BACKEND",
    ERROR_NO_DEVICE: "NO_DEVICE",
}

# sympow_backend
BACKENDS = {"emulator": 0, "cuda": 1}

# sympow_dtype
DTYPE_BF16 = 0
DTYPE_F16 = 1
DTYPE_F32 = 2
DTYPE_F64 = 3
DTYPES = {"bf16": DTYPE_BF16, "f16": DTYPE_F16, "f32": DTYPE_F32}

# sympow_schedule
SCHEDULES = {"none": 0, "uniform": 1, "learned": 2, "warped": 3, "blend": 4}

# sympow_rope_layout
ROPE_LAYOUTS = {"interleaved": 0, "half": 1}

# sympow_formulation
FORMULATIONS = {"auto": 0, "attention": 1, "chunked": 2, "recurrent": 3}

# sympow_state_flags
WITH_INITIAL_STATE = 1
WITH_FINAL_STATE = 2

MAX_RANK = 4  # SYMPOW_MAX_RANK

# C enums are int-sized on every ABI the library is built for.
c_enum = c_int


class LayerDesc(Structure):
    _fields_ = [
        ("power", c_int64),
        ("head_dim", c_int64),
        ("value_dim", c_int64),
        ("query_heads", c_int64),
        ("kv_heads", c_int64),
        ("dtype", c_enum),
        ("has_log_g", c_int32),
        ("has_log_gamma", c_int32),
        ("schedule", c_enum),
        ("rope_base", c_double),
        ("rope_scale", c_double),
        ("rope_dims", c_int64),
        ("rope_layout", c_enum),
        ("warp_length", c_int64),
        ("scale", c_double),
        ("formulation", c_enum),
        ("chunk_size", c_int64),
    ]


class Tensor(Structure):
    _fields_ = [
        ("data", c_void_p),
        ("dtype", c_enum),
        ("rank", c_int32),
        ("shape", c_int64 * MAX_RANK),
        ("strides", c_int64 * MAX_RANK),
    ]


class State(Structure):
    _fields_ = [("S", Tensor), ("Z", Tensor), ("c", Tensor)]


class ForwardArgs(Structure):
    _fields_ = [
        ("q", Tensor),
        ("k", Tensor),
        ("v", Tensor),
        ("log_g", Tensor),
        ("log_gamma", Tensor),
        ("beta", Tensor),
        ("y", Tensor),
        ("initial_state", POINTER(State)),
        ("final_state", POINTER(State)),
        ("workspace", c_void_p),
        ("workspace_bytes", c_size_t),
        ("stream", c_void_p),
    ]


class DecodeArgs(Structure):
    # The header's order: q, k, v, log_g, beta, log_gamma, y.
    _fields_ = [
        ("q", Tensor),
        ("k", Tensor),
        ("v", Tensor),
        ("log_g", Tensor),
        ("beta", Tensor),
        ("log_gamma", Tensor),
        ("y", Tensor),
        ("state", POINTER(State)),
        ("stream", c_void_p),
        ("workspace", c_void_p),
        ("workspace_bytes", c_size_t),
    ]


# The structs the header defines, by their C names (for the layout test).
STRUCTS = {
    "sympow_layer_desc": LayerDesc,
    "sympow_tensor": Tensor,
    "sympow_state": State,
    "sympow_forward_args": ForwardArgs,
    "sympow_decode_args": DecodeArgs,
}

_context_p = c_void_p  # sympow_context *
_desc_p = POINTER(LayerDesc)

# name: (restype, argtypes), in the header's order.
FUNCTIONS = {
    "sympow_layer_desc_init": (None, [_desc_p]),
    "sympow_tensor_contiguous": (Tensor, [c_void_p, c_enum, c_int32,
                                          POINTER(c_int64)]),
    "sympow_last_error": (c_char_p, []),
    "sympow_context_create": (c_enum, [c_enum, c_int, POINTER(_context_p)]),
    "sympow_context_destroy": (None, [_context_p]),
    "sympow_variant_count": (c_size_t, []),
    "sympow_variant_name": (c_char_p, [c_size_t]),
    "sympow_variant_desc": (c_enum, [c_size_t, _desc_p]),
    "sympow_is_compiled": (c_int, [_desc_p]),
    "sympow_forward_workspace_size": (c_enum, [_context_p, _desc_p, c_int64,
                                               c_int64, c_uint32,
                                               POINTER(c_size_t)]),
    "sympow_forward": (c_enum, [_context_p, _desc_p, POINTER(ForwardArgs)]),
    "sympow_decode_workspace_size": (c_enum, [_context_p, _desc_p, c_int64,
                                              c_int64, POINTER(c_size_t)]),
    "sympow_decode": (c_enum, [_context_p, _desc_p, POINTER(DecodeArgs)]),
    "sympow_device_alloc": (c_enum, [_context_p, c_size_t,
                                     POINTER(c_void_p)]),
    "sympow_device_free": (c_enum, [_context_p, c_void_p]),
    "sympow_copy_to_device": (c_enum, [_context_p, c_void_p, c_void_p,
                                       c_size_t]),
    "sympow_copy_to_host": (c_enum, [_context_p, c_void_p, c_void_p,
                                     c_size_t]),
    "sympow_synchronize": (c_enum, [_context_p, c_void_p]),
}


def declare(lib):
    """Sets restype/argtypes of every function on a ctypes.CDLL; returns the
    names the library lacks."""
    missing = []
    for name, (restype, argtypes) in FUNCTIONS.items():
        try:
            fn = getattr(lib, name)
        except AttributeError:
            missing.append(name)
            continue
        fn.restype = restype
        fn.argtypes = argtypes
    return missing


def tensor(data, dtype, shape):
    """A row-major contiguous sympow_tensor (what sympow_tensor_contiguous
    does, without a call): `data` an int address or None."""
    if len(shape) > MAX_RANK:
        raise ValueError("rank %d > SYMPOW_MAX_RANK" % len(shape))
    t = Tensor()
    t.data = data
    t.dtype = dtype
    t.rank = len(shape)
    stride = 1
    for i in reversed(range(len(shape))):
        t.shape[i] = int(shape[i])
        t.strides[i] = stride
        stride *= int(shape[i])
    return t


ABSENT = Tensor()  # data == NULL: an optional tensor not given
