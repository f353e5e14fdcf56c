# SPDX-License-Identifier: Apache-2.0
"""libktune through ctypes: finding the library and declaring its calls.

The wheel carries the whole install in ``ktune/_native`` (lib/libktune.so,
bin/ktune, libexec/ktune/ktune-nvrtc, lib/ktune/plugins): libktune finds the
ktune executable relative to itself, and the executable its helper and
plugins relative to itself, so nothing here sets a path. Outside a wheel
(a build tree, an installed prefix) ``KTUNE_LIBRARY`` names the library.

Every function is declared with its argument and result types
(include/ktune/ktune.h); nothing of ktune's logic lives here.
"""
from __future__ import annotations

import ctypes
import os
from ctypes import (POINTER, c_char_p, c_double, c_int, c_int64, c_size_t,
                    c_uint64, c_void_p)
from pathlib import Path
from typing import Any, Optional

from ._errors import (KtuneError, KtuneInputError, KtuneRuntimeError,
                      KtuneUnsupportedError)

__all__ = ["lib", "native_dir", "library_path", "check", "exe_path"]

# ktune_code (include/ktune/ktune.h).
OK, E_FAILURE, E_INPUT, E_NOMEM, E_IO, E_UNSUPPORTED = range(6)

_HERE = Path(__file__).resolve().parent


def native_dir() -> Path:
    """The folder the wheel installed ktune's binaries into."""
    return _HERE / "_native"


def _candidates() -> list[Path]:
    env = os.environ.get("KTUNE_LIBRARY")
    if env:
        return [Path(env)]
    lib = native_dir() / "lib"
    found = sorted(lib.glob("libktune.so*"), key=lambda p: len(p.name))
    return found or [lib / "libktune.so"]


def library_path() -> Path:
    """The libktune this package loads: $KTUNE_LIBRARY, else the wheel's."""
    return _candidates()[0]


def exe_path() -> Optional[Path]:
    """The ktune executable beside the library this package loads (the
    wheel's bin/ktune, or the build tree's ktune), or $KTUNE_EXE."""
    env = os.environ.get("KTUNE_EXE")
    if env:
        return Path(env)
    lib = library_path().resolve().parent
    for p in (lib.parent / "bin" / "ktune", lib / "ktune"):
        if p.is_file() and os.access(p, os.X_OK):
            return p
    return None


#: void (*ktune_log_fn)(void *user, const char *line)
LOG_FN = ctypes.CFUNCTYPE(None, c_void_p, c_char_p)


class Output(ctypes.Structure):
    """ktune_output: one output of a point, handed to a verification
    callback (borrowed for the call)."""
    _fields_ = [("name", c_char_p), ("type", c_int), ("count", c_size_t),
                ("data", c_void_p), ("expected", POINTER(c_double))]


#: int (*ktune_verify_fn)(void *user, const ktune_output *outputs,
#:                        size_t num_outputs, char *msg, size_t msg_size)
VERIFY_FN = ctypes.CFUNCTYPE(c_int, c_void_p, POINTER(Output), c_size_t,
                             c_void_p, c_size_t)


class _Session(ctypes.Structure):
    pass


class _Result(ctypes.Structure):
    pass


SESSION = POINTER(_Session)
RESULT = POINTER(_Result)

# name: (result type, argument types)
_SIGNATURES = {
    "ktune_version": (c_char_p, [POINTER(c_int)] * 3),
    "ktune_session_new": (c_int, [POINTER(SESSION)]),
    "ktune_session_free": (None, [SESSION]),
    "ktune_session_errmsg": (c_char_p, [SESSION]),
    "ktune_session_dir": (c_char_p, [SESSION]),
    "ktune_session_set_exe": (c_int, [SESSION, c_char_p]),
    "ktune_session_set": (c_int, [SESSION, c_char_p, c_char_p]),
    "ktune_session_set_strategy": (c_int, [SESSION, c_char_p]),
    "ktune_session_set_budget": (c_int, [SESSION, c_int64, c_double, c_double]),
    "ktune_session_set_objective": (c_int, [SESSION, c_char_p]),
    "ktune_session_set_seed": (c_int, [SESSION, c_int64]),
    "ktune_session_set_device": (c_int, [SESSION, c_int]),
    "ktune_session_set_isolation": (c_int, [SESSION, c_int]),
    "ktune_session_set_verbose": (c_int, [SESSION, c_int]),
    "ktune_session_set_journal": (c_int, [SESSION, c_char_p]),
    "ktune_session_set_log": (c_int, [SESSION, c_void_p, c_void_p]),
    "ktune_declare": (c_int, [SESSION, c_char_p]),
    "ktune_source_text": (c_int, [SESSION, c_char_p]),
    "ktune_source_file": (c_int, [SESSION, c_char_p]),
    "ktune_header": (c_int, [SESSION, c_char_p, c_char_p]),
    "ktune_option": (c_int, [SESSION, c_char_p]),
    "ktune_include_dir": (c_int, [SESSION, c_char_p]),
    "ktune_size": (c_int, [SESSION, c_char_p, c_int64, c_int]),
    "ktune_buffer": (c_int, [SESSION, c_char_p, c_int, c_int, c_void_p,
                             c_size_t, c_char_p, c_char_p]),
    "ktune_constant": (c_int, [SESSION, c_char_p, c_char_p]),
    "ktune_arg_buffer": (c_int, [SESSION, c_char_p, c_char_p]),
    "ktune_arg_expr": (c_int, [SESSION, c_int, c_char_p]),
    "ktune_arg_int": (c_int, [SESSION, c_int, c_int64]),
    "ktune_arg_uint": (c_int, [SESSION, c_int, c_uint64]),
    "ktune_arg_float": (c_int, [SESSION, c_int, c_double]),
    "ktune_variant": (c_int, [SESSION, c_char_p, c_char_p]),
    "ktune_param": (c_int, [SESSION, c_char_p, POINTER(c_int64), c_size_t]),
    "ktune_param_default": (c_int, [SESSION, c_char_p, c_int64]),
    "ktune_block": (c_int, [SESSION, c_char_p]),
    "ktune_grid": (c_int, [SESSION, c_char_p]),
    "ktune_grid_divisors": (c_int, [SESSION, c_char_p, c_char_p]),
    "ktune_smem": (c_int, [SESSION, c_char_p]),
    "ktune_require": (c_int, [SESSION, c_char_p]),
    "ktune_define": (c_int, [SESSION, c_char_p, c_char_p]),
    "ktune_space_file": (c_int, [SESSION, c_char_p]),
    "ktune_answer": (c_int, [SESSION, c_char_p, c_void_p, c_size_t]),
    "ktune_reference": (c_int, [SESSION]),
    "ktune_tolerance": (c_int, [SESSION, c_double, c_double]),
    "ktune_verify_callback": (c_int, [SESSION, c_void_p, c_void_p]),
    "ktune_check": (c_int, [SESSION, POINTER(RESULT)]),
    "ktune_tune": (c_int, [SESSION, POINTER(RESULT)]),
    "ktune_bench": (c_int, [SESSION, c_char_p, c_char_p, POINTER(RESULT)]),
    "ktune_profile": (c_int, [SESSION, c_char_p, c_char_p, POINTER(RESULT)]),
    "ktune_replay": (c_int, [SESSION, c_char_p, POINTER(RESULT)]),
    "ktune_report": (c_int, [SESSION, c_char_p, c_char_p]),
    "ktune_result_free": (None, [RESULT]),
    "ktune_result_kind": (c_char_p, [RESULT]),
    "ktune_result_json": (c_char_p, [RESULT]),
    "ktune_result_value_json": (c_char_p, [RESULT, c_char_p]),
    "ktune_result_num_points": (c_size_t, [RESULT]),
    "ktune_result_point_variant": (c_char_p, [RESULT, c_size_t]),
    "ktune_result_point_config": (c_char_p, [RESULT, c_size_t]),
    "ktune_result_point_status": (c_char_p, [RESULT, c_size_t]),
    "ktune_result_point_reason": (c_char_p, [RESULT, c_size_t]),
    "ktune_result_point_num_params": (c_size_t, [RESULT, c_size_t]),
    "ktune_result_point_param_name": (c_char_p, [RESULT, c_size_t, c_size_t]),
    "ktune_result_point_param_value": (c_int64, [RESULT, c_size_t, c_size_t]),
    "ktune_result_point_stat": (c_int, [RESULT, c_size_t, c_int,
                                        POINTER(c_double)]),
    "ktune_result_point_samples": (c_size_t, [RESULT, c_size_t,
                                              POINTER(c_double), c_size_t]),
    "ktune_result_has_best": (c_int, [RESULT]),
    "ktune_result_best_config": (c_char_p, [RESULT]),
    "ktune_result_best_variant": (c_char_p, [RESULT]),
    "ktune_result_best_num_params": (c_size_t, [RESULT]),
    "ktune_result_best_param_name": (c_char_p, [RESULT, c_size_t]),
    "ktune_result_best_param_value": (c_int64, [RESULT, c_size_t]),
    "ktune_result_best_stat": (c_int, [RESULT, c_int, POINTER(c_double)]),
    "ktune_result_space": (c_int, [RESULT, POINTER(c_int64), POINTER(c_int64)]),
}

_lib: Optional[ctypes.CDLL] = None


def lib() -> ctypes.CDLL:
    """libktune, loaded on first use with every call declared.

    Raises:
        KtuneRuntimeError: the library is missing or cannot be loaded (the
            message says which file and why).
    """
    global _lib  # one library per process: ctypes keeps it loaded anyway
    if _lib is not None:
        return _lib
    path = library_path()
    try:
        handle = ctypes.CDLL(str(path))
    except OSError as e:
        raise KtuneRuntimeError(
            f"cannot load libktune ({path}): {e}; a build tree's library is "
            "named with KTUNE_LIBRARY=build/libktune.so") from e
    for name, (res, args) in _SIGNATURES.items():
        fn = getattr(handle, name, None)
        if fn is None:
            raise KtuneRuntimeError(
                f"{path} has no {name}: the library is older than this "
                "Python package")
        fn.restype = res
        fn.argtypes = args
    _lib = handle
    return handle


def new_session() -> Any:
    """A new ktune_session, told the ktune program this package found
    (the wheel's own, or $KTUNE_EXE), so a library and a program of two
    installs are never mixed."""
    L = lib()
    S = SESSION()
    check(L.ktune_session_new(ctypes.byref(S)), None, "ktune_session_new")
    exe = exe_path()
    if exe is not None:
        code = L.ktune_session_set_exe(S, str(exe).encode())
        if code != OK:
            msg = s(L.ktune_session_errmsg(S))
            L.ktune_session_free(S)
            raise KtuneRuntimeError(msg or "ktune_session_set_exe failed", code)
    return S


def b(text: Optional[str]) -> Optional[bytes]:
    """A str for a const char * argument (None stays NULL)."""
    return None if text is None else str(text).encode()


def s(raw: Optional[bytes]) -> str:
    """A const char * result as str ("" for NULL)."""
    return raw.decode(errors="replace") if raw else ""


def check(code: int, session: Optional[object] = None,
          where: str = "") -> None:
    """Raises the exception that fits ktune's return code, carrying the
    session's message (ktune_session_errmsg)."""
    if code == OK:
        return
    msg = s(lib().ktune_session_errmsg(session)) if session else ""
    if not msg:
        msg = f"{where}: failed (ktune code {code})"
    if code == E_UNSUPPORTED:
        raise KtuneUnsupportedError(msg, code)
    if code == E_INPUT:
        raise KtuneInputError(msg, code)
    if code in (E_FAILURE, E_IO):
        raise KtuneRuntimeError(msg, code)
    if code == E_NOMEM:
        raise MemoryError(msg)
    raise KtuneError(msg, code)
