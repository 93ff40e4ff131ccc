"""sympow: symmetric-power attention layers on the kernels of a library
built by `sympow-aot` (docs/Python.md).

    import sympow
    y = sympow.forward(q, k, v, power=2, log_g=log_g, beta=beta,
                       schedule="learned", library="out/")

Shapes follow docs/SPEC.md: q [B, T, Hq, d], k [B, T, H, d], v [B, T, H, e],
log_g and beta [B, T, H], log_gamma [H]; the state is (S [B, H, D, e] f32,
Z [B, H, D] f32, c [B, H] f64) with D = C(d + p - 1, p).
"""

from . import _capi, _layer, _library, _torch
from ._errors import SympowError

__all__ = [
    "forward", "decode", "compiled_variants", "load_library", "zero_state",
    "state_dim", "SympowError", "INVALID_ARGUMENT", "NOT_COMPILED",
    "BACKEND", "NO_DEVICE", "LIBRARY_ENV",
]

# SympowError.status values (the C API's sympow_status).
INVALID_ARGUMENT = _capi.ERROR_INVALID_ARGUMENT
NOT_COMPILED = _capi.ERROR_NOT_COMPILED
BACKEND = _capi.ERROR_BACKEND
NO_DEVICE = _capi.ERROR_NO_DEVICE

LIBRARY_ENV = _library.ENV  # "SYMPOW_LIBRARY_DIR"

state_dim = _layer.state_dim
zero_state = _layer.zero_state


def forward(q, k, v, power=2, log_g=None, log_gamma=None, beta=None,
            rope_base=10000.0, rope_scale=1.0, rope_dims=None,
            rope_layout="interleaved", schedule="none", warp_length=None,
            scale=None, dtype=None, formulation="auto", chunk_size=None,
            initial_state=None, return_final_state=False,
            backend="emulator", library=None, device=0):
    """y = the layer of docs/SPEC.md on (q, k, v), on the library's kernels.

    The keywords are sympow-run's flags (docs/sympow-run.md):
    power (p, even >= 2); log_g [B, T, H], log_gamma [H] and beta [B, T, H]
    (float32; None: absent); schedule "none" | "uniform" | "learned" (needs
    beta) | "warped" | "blend" (need warp_length, an integer L);
    rope_base, rope_scale (rates rope_scale * rope_base^(-2j/r)),
    rope_dims (r; None: d), rope_layout "interleaved" | "half"; scale (None:
    1/sqrt(d)); dtype "bf16" | "f16" | "f32" (None: from q: float16 -> f16,
    float32/float64 -> f32; bf16 takes float arrays and rounds them to
    nearest even, or uint16 arrays of bf16 bits); formulation "auto" |
    "attention" | "chunked" | "recurrent", chunk_size (None: the compiled
    one); initial_state (S, Z, c) and return_final_state (not with the
    attention formulation, nor warped/blend).

    backend "emulator" (the kernels on the CPU) or "cuda" (device `device`).
    library: a sympow-aot --out folder or the .so (None: $SYMPOW_LIBRARY_DIR).

    Returns y [B, T, Hq, e], float32 for bf16 and f32, float16 for f16 (torch
    tensors in: torch tensors out, y in the kernels' dtype), or
    (y, (S, Z, c)) when return_final_state. Raises SympowError.
    """
    kw = dict(power=power, log_g=log_g, log_gamma=log_gamma, beta=beta,
              rope_base=rope_base, rope_scale=rope_scale,
              rope_dims=rope_dims, rope_layout=rope_layout,
              schedule=schedule, warp_length=warp_length, scale=scale,
              dtype=dtype, formulation=formulation, chunk_size=chunk_size,
              initial_state=initial_state,
              return_final_state=return_final_state, backend=backend,
              library=library, device=device)
    if _torch.is_tensor(q):
        return _torch.forward(q, k, v, kw)
    return _layer.forward(q, k, v, **kw)


def decode(q, k, v, state, power=2, log_g=None, log_gamma=None, beta=None,
           rope_base=10000.0, rope_scale=1.0, rope_dims=None,
           rope_layout="interleaved", schedule="none", warp_length=None,
           scale=None, dtype=None, backend="emulator", library=None,
           device=0):
    """One recurrent step (T new tokens, usually 1) for serving: returns y
    [B, T, Hq, e] and updates `state` = (S, Z, c) in place (S and Z float32,
    c float64, writable: e.g. from zero_state() or forward's final state).
    The library needs the variant's recurrent kernels. Keywords as forward.
    """
    kw = dict(power=power, log_g=log_g, log_gamma=log_gamma, beta=beta,
              rope_base=rope_base, rope_scale=rope_scale,
              rope_dims=rope_dims, rope_layout=rope_layout,
              schedule=schedule, warp_length=warp_length, scale=scale,
              dtype=dtype, backend=backend, library=library, device=device)
    if _torch.is_tensor(q):
        return _torch.decode(q, k, v, state, kw)
    return _layer.decode(q, k, v, state, **kw)


def load_library(library=None):
    """The loaded library (loaded once per path): `.path`, `.variants()`."""
    return _library.load(library)


def compiled_variants(library=None):
    """The variants the library holds, one per formulation, as sympow-aot
    --variant strings (e.g. "p=2,d=16,...,formulation=chunked,chunk=16")."""
    return _library.load(library).variants()
