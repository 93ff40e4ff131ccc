"""Finding and loading a kernel library built by `sympow-aot --out DIR`.

A library is loaded once per path (its real path) and keeps one context per
(backend, device), created on first use and destroyed at exit: a context
loads each variant's kernels once, so reusing it keeps later calls fast.
"""

import atexit
import ctypes
import os
import threading

from . import _capi
from ._errors import SympowError

ENV = "SYMPOW_LIBRARY_DIR"
SONAME = "libsympow_kernels.so"

_lock = threading.Lock()
_loaded = {}  # real path of the .so -> Library


def _candidates(where):
    """The .so paths `where` (a .so, a sympow-aot --out DIR, or DIR/lib)
    may name, in the order they are tried."""
    if os.path.isdir(where):
        return [os.path.join(where, "lib", SONAME), os.path.join(where, SONAME)]
    return [where]


def find(library=None):
    """The path of the library: `library` (a directory holding
    lib/libsympow_kernels.so, or the .so itself), else $SYMPOW_LIBRARY_DIR.
    """
    if library is not None:
        where, source = os.fspath(library), "library=%r" % (library,)
    elif os.environ.get(ENV):
        where, source = os.environ[ENV], "%s=%r" % (ENV, os.environ[ENV])
    else:
        raise SympowError(
            _capi.ERROR_NOT_COMPILED,
            "no sympow kernel library: pass library=DIR or set %s to a "
            "folder holding lib/%s (build one with `sympow-aot --variant "
            "VARIANT --arch sm_80 --out DIR`)" % (ENV, SONAME))
    tried = _candidates(where)
    for path in tried:
        if os.path.isfile(path):
            return os.path.realpath(path)
    missing = (tried[0] + " does not exist" if len(tried) == 1 else
               "neither %s nor %s exists" % tuple(tried))
    raise SympowError(
        _capi.ERROR_NOT_COMPILED,
        "no sympow kernel library at %s: %s (pass library= or set %s to a "
        "folder holding lib/%s, built by `sympow-aot --variant VARIANT "
        "--arch sm_80 --out DIR`)" % (source, missing, ENV, SONAME))


class Library:
    """One loaded libsympow_kernels.so."""

    def __init__(self, path):
        self.path = path
        try:
            self.lib = ctypes.CDLL(path)
        except OSError as e:
            raise SympowError(_capi.ERROR_BACKEND,
                              "cannot load %s: %s" % (path, e)) from None
        missing = _capi.declare(self.lib)
        if missing:
            raise SympowError(
                _capi.ERROR_BACKEND,
                "%s is not a sympow kernel library of C API version %d: it "
                "lacks %s (rebuild it with this sympow-aot)"
                % (path, _capi.API_VERSION, ", ".join(missing)))
        self._contexts = {}
        self._lock = threading.Lock()

    def __repr__(self):
        return "<sympow.Library %s>" % self.path

    # -- errors
    def error(self, status):
        """A SympowError for a failed call, with the calling thread's
        sympow_last_error()."""
        text = self.lib.sympow_last_error()
        message = text.decode("utf-8", "replace") if text else ""
        if not message:
            message = "failed without a message"
        if status == _capi.ERROR_NOT_COMPILED:
            message += " [library: %s]" % self.path
        return SympowError(status, message)

    def check(self, status):
        if status != _capi.SUCCESS:
            raise self.error(status)

    # -- what it holds
    def variants(self):
        n = self.lib.sympow_variant_count()
        names = []
        for i in range(n):
            name = self.lib.sympow_variant_name(i)
            names.append(name.decode("utf-8") if name is not None else "")
        return names

    # -- contexts
    def context(self, backend, device):
        """The context for (backend, device): a sympow_context * (int)."""
        key = (backend, int(device))
        with self._lock:
            ctx = self._contexts.get(key)
            if ctx is None:
                out = ctypes.c_void_p()
                self.check(self.lib.sympow_context_create(
                    _capi.BACKENDS[backend], int(device), ctypes.byref(out)))
                ctx = self._contexts[key] = out.value
        return ctx

    def close(self):
        """Destroys the contexts (at exit)."""
        with self._lock:
            for ctx in self._contexts.values():
                self.lib.sympow_context_destroy(ctx)
            self._contexts.clear()


def load(library=None):
    """The Library for `library` (or $SYMPOW_LIBRARY_DIR), loaded once per
    path."""
    path = find(library)
    with _lock:
        lib = _loaded.get(path)
        if lib is None:
            lib = _loaded[path] = Library(path)
    return lib


@atexit.register
def _close_all():
    with _lock:
        for lib in _loaded.values():
            lib.close()
