"""The package's one exception type."""

from . import _capi


class SympowError(RuntimeError):
    """A call was refused or failed.

    `status` is the C API's sympow_status (an int: INVALID_ARGUMENT = 1,
    NOT_COMPILED = 2, BACKEND = 3, NO_DEVICE = 4; `status_name` spells it),
    `message` the C API's sympow_last_error() text, or the package's own
    message for what it checks before calling the C API (the arguments only
    Python sees, and finding the library: NOT_COMPILED, as a missing library
    holds no kernels either).
    """

    def __init__(self, status, message):
        self.status = int(status)
        self.status_name = _capi.STATUS_NAMES.get(self.status,
                                                  str(self.status))
        self.message = message
        super().__init__("%s (%s)" % (message, self.status_name))


class SympowArgumentError(SympowError, ValueError):
    """An argument the package refuses before calling the C API (status
    INVALID_ARGUMENT): a SympowError, and a ValueError as Python expects."""


def invalid(message):
    return SympowArgumentError(_capi.ERROR_INVALID_ARGUMENT, message)
