# SPDX-License-Identifier: Apache-2.0
"""ktune's errors as Python exceptions.

Every error libktune reports arrives here with the message the ``ktune``
command would print for the same mistake; the class says which kind it is:
the user's input (exit status 2 on the command line) or a failure at run
time (exit status 1: no GPU, a CUDA, compile or verification failure).
"""
from __future__ import annotations

__all__ = ["KtuneError", "KtuneInputError", "KtuneRuntimeError",
           "KtuneUnsupportedError"]


class KtuneError(Exception):
    """Any error ktune reports; ``str(e)`` is ktune's own message.

    Attributes:
        status: libktune's status code (0 when the error was raised by the
            Python layer before reaching the library).
        message: the message alone, as the command line prints it.
    """

    def __init__(self, message: str, status: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


class KtuneInputError(KtuneError, ValueError):
    """Bad input: a declaration, an argument, a file or an option ktune
    refuses (the command line's exit status 2). Also a ``ValueError``, so
    code that catches bad values catches it."""


class KtuneRuntimeError(KtuneError, RuntimeError):
    """A failure while running: no GPU or driver, CUDA, NVRTC, a worker, or
    verification (the command line's exit status 1)."""


class KtuneUnsupportedError(KtuneInputError, NotImplementedError):
    """A parameter or feature this interface does not support; the message
    names it. Raised instead of ignoring anything silently."""
