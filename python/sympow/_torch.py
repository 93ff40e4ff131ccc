"""torch tensors, when the program uses torch (it is optional).

- Tensors on the CPU, or any tensors with backend="emulator": copied to
  numpy, run through the numpy path, and the results returned as torch
  tensors on q's device (y in the kernels' dtype: bf16 inputs give a bf16 y).
- CUDA tensors with backend="cuda": their device pointers are passed to the
  C API as they are (no copies), on torch's current stream of q's device;
  y and the final state are allocated by torch. The state of `decode` is
  updated in place.

The CUDA pointer path is not exercised by the tests of this repository
(they run where there is neither torch nor a GPU).
"""

import ctypes
import sys

from . import _capi, _layer, _library
from ._errors import invalid

# torch is never imported here: a torch tensor can only be given by a
# program that imported torch already.
torch = None
_DTYPE_NAMES = _TORCH_DTYPES = _SYMPOW_DTYPES = None


def is_tensor(x):
    global torch, _DTYPE_NAMES, _TORCH_DTYPES, _SYMPOW_DTYPES
    if torch is None:
        loaded = sys.modules.get("torch")
        if loaded is None or not hasattr(loaded, "Tensor"):
            return False
        torch = loaded
        _DTYPE_NAMES = {torch.bfloat16: "bf16", torch.float16: "f16",
                        torch.float32: "f32", torch.float64: "f32"}
        _TORCH_DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16,
                         "f32": torch.float32}
        _SYMPOW_DTYPES = {torch.bfloat16: _capi.DTYPE_BF16,
                          torch.float16: _capi.DTYPE_F16,
                          torch.float32: _capi.DTYPE_F32,
                          torch.float64: _capi.DTYPE_F64}
    return isinstance(x, torch.Tensor)


def _dtype(q, dtype):
    if dtype is not None:
        return dtype
    if q.dtype not in _DTYPE_NAMES:
        raise invalid("'q' has dtype %s: give bfloat16, float16 or float32"
                      % q.dtype)
    return _DTYPE_NAMES[q.dtype]


def _numpy(x):
    if not is_tensor(x):
        return x
    x = x.detach()
    if x.dtype == torch.bfloat16:
        x = x.float()  # exact; rounded back to bf16 by the numpy path
    return x.cpu().numpy()


def _back(array, device, dtype=None):
    t = torch.from_numpy(array)
    return t.to(device=device, dtype=dtype) if dtype else t.to(device)


def _on_cuda(backend, q):
    return backend == "cuda" and q.is_cuda


def forward(q, k, v, kw):
    dtype = _dtype(q, kw.pop("dtype", None))
    if _on_cuda(kw.get("backend"), q):
        return _forward_cuda(q, k, v, dtype, kw)
    init = kw.pop("initial_state", None)
    if init is not None:
        init = tuple(_numpy(a) for a in init)
    for name in ("log_g", "log_gamma", "beta"):
        kw[name] = _numpy(kw.get(name))
    out = _layer.forward(_numpy(q), _numpy(k), _numpy(v), dtype=dtype,
                         initial_state=init, **kw)
    y_dtype = _TORCH_DTYPES[dtype]
    if kw.get("return_final_state"):
        y, state = out
        return (_back(y, q.device, y_dtype),
                tuple(_back(a, q.device) for a in state))
    return _back(out, q.device, y_dtype)


def decode(q, k, v, state, kw):
    dtype = _dtype(q, kw.pop("dtype", None))
    if _on_cuda(kw.get("backend"), q):
        return _decode_cuda(q, k, v, state, dtype, kw)
    for name in ("log_g", "log_gamma", "beta"):
        kw[name] = _numpy(kw.get(name))
    parts = []
    for a in state:  # views of the CPU tensors: updated in place
        if is_tensor(a):
            if a.is_cuda:
                raise invalid("the state is on %s but q is not on CUDA with "
                              "backend='cuda'" % a.device)
            a = a.detach().numpy()
        parts.append(a)
    y = _layer.decode(_numpy(q), _numpy(k), _numpy(v), tuple(parts),
                      dtype=dtype, **kw)
    return _back(y, q.device, _TORCH_DTYPES[dtype])


# ------------------------------------------------------- CUDA, by pointer
def _cuda_tensor(name, x, device, dtype=None):
    """(sympow_tensor, tensor kept alive): x on `device`, contiguous."""
    if x is None:
        return _capi.ABSENT, None
    if not is_tensor(x) or x.device != device:
        raise invalid("'%s' must be a torch tensor on %s like q"
                      % (name, device))
    if x.dim() > _capi.MAX_RANK:
        raise invalid("'%s' has rank %d" % (name, x.dim()))
    x = x.detach()
    if dtype is not None and x.dtype != dtype:
        x = x.to(dtype=dtype)
    x = x.contiguous()
    if x.dtype not in _SYMPOW_DTYPES:
        raise invalid("'%s' has dtype %s" % (name, x.dtype))
    return (_capi.tensor(x.data_ptr(), _SYMPOW_DTYPES[x.dtype],
                         tuple(x.shape)), x)


def _cuda_call(q, k, v, dtype, kw, formulation="auto", chunk_size=None):
    lib = _library.load(kw.get("library"))
    for name in ("q", "k", "v"):
        t = {"q": q, "k": k, "v": v}[name]
        if not is_tensor(t) or t.dim() != 4:
            raise invalid("'%s' must be a rank-4 torch tensor" % name)
    dims = (q.shape[3], v.shape[3], q.shape[2], k.shape[2])
    desc = _layer.make_desc(
        lib, power=kw.get("power", 2), dims=dims, dtype=dtype,
        has_log_g=kw.get("log_g") is not None,
        has_log_gamma=kw.get("log_gamma") is not None,
        schedule=kw.get("schedule", "none"),
        rope_base=kw.get("rope_base", 10000.0),
        rope_scale=kw.get("rope_scale", 1.0),
        rope_dims=kw.get("rope_dims"),
        rope_layout=kw.get("rope_layout", "interleaved"),
        warp_length=kw.get("warp_length"), scale=kw.get("scale"),
        formulation=formulation, chunk_size=chunk_size)
    device = q.device
    ctx = lib.context(*_layer.resolve_backend(
        kw.get("backend", "cuda"), device.index if device.index is not None
        else torch.cuda.current_device()))
    keep = []

    def tensor(name, x, want=None):
        t, kept = _cuda_tensor(name, x, device, want)
        keep.append(kept)
        return t

    kdt = _TORCH_DTYPES[dtype]
    parts = {n: tensor(n, x, kdt) for n, x in (("q", q), ("k", k), ("v", v))}
    for n in ("log_g", "log_gamma", "beta"):
        parts[n] = tensor(n, kw.get(n), torch.float32)
    y = torch.empty((q.shape[0], q.shape[1], q.shape[2], v.shape[3]),
                    dtype=kdt, device=device)
    parts["y"] = tensor("y", y)
    stream = torch.cuda.current_stream(device).cuda_stream
    return lib, ctx, desc, parts, y, stream, tensor, keep


def _forward_cuda(q, k, v, dtype, kw):
    lib, ctx, desc, parts, y, stream, tensor, keep = _cuda_call(
        q, k, v, dtype, kw, kw.get("formulation", "auto"),
        kw.get("chunk_size"))
    args = _capi.ForwardArgs(**parts)
    init, final = kw.get("initial_state"), None
    if init is not None:
        S0, Z0, c0 = init
        args.initial_state = ctypes.pointer(_capi.State(
            tensor("initial_state.S", S0, torch.float32),
            tensor("initial_state.Z", Z0, torch.float32),
            tensor("initial_state.c", c0, torch.float64)))
    B, H = q.shape[0], k.shape[2]
    if kw.get("return_final_state"):
        D = _layer.state_dim(q.shape[3], desc.power)
        final = (torch.empty((B, H, D, v.shape[3]), dtype=torch.float32,
                             device=q.device),
                 torch.empty((B, H, D), dtype=torch.float32, device=q.device),
                 torch.empty((B, H), dtype=torch.float64, device=q.device))
        args.final_state = ctypes.pointer(_capi.State(
            tensor("final_state.S", final[0]),
            tensor("final_state.Z", final[1]),
            tensor("final_state.c", final[2])))
    flags = ((_capi.WITH_INITIAL_STATE if init is not None else 0)
             | (_capi.WITH_FINAL_STATE if final is not None else 0))
    need = ctypes.c_size_t()
    lib.check(lib.lib.sympow_forward_workspace_size(
        ctx, ctypes.byref(desc), q.shape[0], q.shape[1], flags,
        ctypes.byref(need)))
    if need.value:
        # The caching allocator keeps it until the stream is past the call.
        ws = torch.empty(need.value + 256, dtype=torch.uint8, device=q.device)
        keep.append(ws)
        args.workspace = ws.data_ptr() + (-ws.data_ptr()) % 256
        args.workspace_bytes = need.value
    args.stream = stream
    lib.check(lib.lib.sympow_forward(ctx, ctypes.byref(desc),
                                     ctypes.byref(args)))
    return (y, final) if final is not None else y


def _decode_cuda(q, k, v, state, dtype, kw):
    lib, ctx, desc, parts, y, stream, tensor, keep = _cuda_call(
        q, k, v, dtype, kw)
    args = _capi.DecodeArgs(**parts)
    for name, a, want in zip(("state.S", "state.Z", "state.c"), state,
                             (torch.float32, torch.float32, torch.float64)):
        if not is_tensor(a) or a.dtype != want or not a.is_contiguous():
            raise invalid("'%s' must be a contiguous %s CUDA tensor: decode "
                          "updates it in place" % (name, want))
    names = ("state.S", "state.Z", "state.c")
    spans = [(a.data_ptr(), a.data_ptr() + a.numel() * a.element_size())
             for a in state]
    for i in range(3):
        for j in range(i + 1, 3):
            if spans[i][0] < spans[j][1] and spans[j][0] < spans[i][1]:
                raise invalid("'%s' and '%s' overlap in memory: decode "
                              "updates both in place, so they must be "
                              "separate tensors" % (names[i], names[j]))
    args.state = ctypes.pointer(_capi.State(
        tensor("state.S", state[0]), tensor("state.Z", state[1]),
        tensor("state.c", state[2])))
    need = ctypes.c_size_t()
    lib.check(lib.lib.sympow_decode_workspace_size(
        ctx, ctypes.byref(desc), q.shape[0], q.shape[1], ctypes.byref(need)))
    if need.value:
        # The caching allocator keeps it until the stream is past the call.
        ws = torch.empty(need.value + 256, dtype=torch.uint8, device=q.device)
        keep.append(ws)
        args.workspace = ws.data_ptr() + (-ws.data_ptr()) % 256
        args.workspace_bytes = need.value
    args.stream = stream
    lib.check(lib.lib.sympow_decode(ctx, ctypes.byref(desc),
                                    ctypes.byref(args)))
    return y
