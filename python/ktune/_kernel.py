# SPDX-License-Identifier: Apache-2.0
"""A CUDA kernel declared from Python, and the runs over it.

A :class:`Kernel` holds what a declaration holds (docs/declared.md): the
source, the arguments, the problem sizes, the launch geometry, the tunable
parameters and their restrictions, and how results are verified. It hands
them to libktune call by call (include/ktune/ktune.h), which writes the
same declaration an INI file would hold and runs the ktune program over
it, so every check, message, measurement and result is the CLI's.
"""
from __future__ import annotations

import ctypes
import os
import sys
import threading
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Sequence, Union

import numpy as np

from . import _lib
from ._arrays import to_host
from ._errors import KtuneInputError
from ._progress import Progress
from ._result import Result

__all__ = ["Kernel", "Variant", "Buffer", "Out", "InOut", "Scratch", "SizeExpr", "tune", "bench",
           "profile", "check", "replay"]

# ktune_type and ktune_ctype values (include/ktune/ktune.h) per numpy dtype.
_TYPE = {"f32": 0, "f64": 1, "i32": 2, "i64": 3, "u32": 4, "u64": 5,
         "i8": 6, "u8": 7, "i16": 8, "u16": 9, "f16": 10}
_CTYPE = {"i8": 8, "u8": 9, "i16": 1, "u16": 11, "i32": 2, "u32": 3,
          "i64": 14, "u64": 15, "f32": 6, "f64": 7}
_CTYPE_NAMES = {"char": 0, "short": 1, "int": 2, "unsigned": 3, "long": 4,
                "size_t": 5, "int8_t": 8, "uint8_t": 9, "int16_t": 10,
                "uint16_t": 11, "int32_t": 12, "uint32_t": 13, "int64_t": 14,
                "uint64_t": 15}
_IN, _OUT, _INOUT, _SCRATCH = range(4)

Source = Union[str, "os.PathLike[str]"]
Exprs = Union[str, int, Sequence[Union[str, int]]]


class _Role:
    role = _IN

    def __init__(self, array: Any) -> None:
        self.array = array


class Out(_Role):
    """An output buffer: ``Out(numpy.zeros(n, numpy.float32))``. Only its
    element type and count are used; ktune poisons it before each
    verification and compares it with the answer or the reference."""
    role = _OUT


class InOut(_Role):
    """A buffer the kernel reads and writes: uploaded with its values,
    verified like an output, restored before every launch that counts."""
    role = _INOUT


class Scratch(_Role):
    """A work buffer: neither filled nor compared (its type and count
    only)."""
    role = _SCRATCH


class SizeExpr:
    """A scalar argument computed from the problem sizes, as ktune
    declarations write it: ``SizeExpr("n * n", "long")``; resized problems
    (``sizes``) recompute it."""

    def __init__(self, expr: str, ctype: str = "int") -> None:
        if ctype not in _CTYPE_NAMES:
            raise KtuneInputError(
                f"SizeExpr: C type {ctype!r} is not one of "
                f"{', '.join(_CTYPE_NAMES)}")
        self.expr = expr
        self.ctype = ctype


class Buffer:
    """A buffer ktune allocates and fills itself, declared by element type
    and count (an expression of the sizes), as a declaration's
    ``buffer.NAME`` line: ``Buffer("f32", "rows * cols", "out")``. Unlike an
    array it follows the problem sizes, so ktune also verifies at boundary
    sizes.

    Args:
        dtype: numpy dtype or ktune type name (f16 f32 f64 i8 u8 i16 u16
            i32 u32 i64 u64).
        count: element count, an int or an expression of the sizes.
        role: "in", "out", "inout" or "scratch".
        fill: how an input is filled (None: ktune's seeded default;
            "uniform(a, b)", "normal(mu, sigma)", "constant(v)", "arange",
            "integers(lo, hi)").
    """

    _ROLES = {"in": _IN, "out": _OUT, "inout": _INOUT, "scratch": _SCRATCH}

    def __init__(self, dtype: Any, count: Union[int, str], role: str = "in",
                 fill: Optional[str] = None) -> None:
        from ._arrays import DTYPE_NAMES
        name = dtype if isinstance(dtype, str) and dtype in _TYPE else None
        if name is None:
            try:
                name = DTYPE_NAMES.get(np.dtype(dtype))
            except TypeError:
                name = None
        if name is None:
            raise KtuneInputError(f"Buffer: element type {dtype!r} is not one "
                                  f"ktune has ({', '.join(_TYPE)})")
        if role not in self._ROLES:
            raise KtuneInputError(f"Buffer: role {role!r} is not one of "
                                  f"{', '.join(self._ROLES)}")
        self.type_name = name
        self.count = count
        self.role = self._ROLES[role]
        self.fill = fill


class Variant:
    """One kernel of a declaration with its own space and launch geometry
    (a declaration's ``[variant.ID]``); pass several as ``variants=`` to
    :class:`Kernel` to compare implementations in one search.

    Args:
        id: the variant's name in results.
        kernel: the kernel's name (``"k<tile, pad>"`` for a template).
        params: its tunable parameters, name to integer values.
        block, grid: expressions (x, y, z) of the sizes and parameters.
        problem_size, grid_div_x, grid_div_y, grid_div_z: the grid as
            Kernel Tuner derives it, instead of grid.
        restrictions: conditions in ktune's syntax.
        defines: macros; default every parameter under its own name.
        smem: dynamic shared memory in bytes, an expression.
        defaults: default values of parameters.
        reference: its default configuration's output is what every point
            is verified against.
        space_file: a T1 file whose space the variant takes.
    """

    def __init__(self, id: str, kernel: str,
                 params: Optional[Mapping[str, Sequence[int]]] = None, *,
                 block: Optional[Exprs] = None, grid: Optional[Exprs] = None,
                 problem_size: Optional[Exprs] = None,
                 grid_div_x: Optional[Sequence[Union[str, int]]] = None,
                 grid_div_y: Optional[Sequence[Union[str, int]]] = None,
                 grid_div_z: Optional[Sequence[Union[str, int]]] = None,
                 block_size_names: Sequence[str] = ("block_size_x", "block_size_y",
                                                    "block_size_z"),
                 restrictions: Sequence[str] = (),
                 defines: Optional[Mapping[str, Union[str, int]]] = None,
                 smem: Optional[Union[str, int]] = None,
                 defaults: Optional[Mapping[str, int]] = None,
                 reference: bool = False,
                 space_file: Optional[Union[str, "os.PathLike[str]"]] = None) -> None:
        self.id = id
        self.kernel = kernel
        self.params = {k: [_int_value(k, v) for v in vs]
                       for k, vs in (params or {}).items()}
        self.block, self.grid = block, grid
        self.problem_size = problem_size
        self.grid_div = (grid_div_x, grid_div_y, grid_div_z)
        self.block_size_names = tuple(block_size_names)
        self.restrictions = list(restrictions)
        self.defines = None if defines is None else dict(defines)
        self.smem = smem
        self.defaults = dict(defaults or {})
        self.reference = reference
        self.space_file = None if space_file is None else str(space_file)


def _exprs(value: Exprs) -> str:
    if isinstance(value, (str, int, np.integer)):
        return str(value)
    return ", ".join(str(v) for v in value)


def _is_source_text(source: Source) -> bool:
    if isinstance(source, os.PathLike):
        return False
    return "\n" in source or "__global__" in source or not os.path.isfile(source)


class Kernel:
    """A CUDA kernel to tune, with its arguments and its space.

    Args:
        name: the kernel's name in the source; ``"name<tile, 2 * pad>"``
            instantiates a template with expressions of the parameters.
        source: the CUDA source as text, or the path of a ``.cu`` file
            (``pathlib.Path``, or a string naming an existing file).
        args: the kernel's arguments in order: numpy arrays (inputs,
            uploaded as given), :class:`Out` / :class:`InOut` /
            :class:`Scratch` around arrays, numpy scalars
            (``numpy.int32(n)``, passed by value in their C type),
            :class:`SizeExpr`, and CuPy arrays or PyTorch tensors, which
            are copied to the host here (ktune allocates its own device
            memory in the worker process that runs the kernel). A mapping
            names the buffers (``{"c": Out(c), "a": a}``).
        params: tunable parameters, name to a list of integer values (the
            first is the default unless ``defaults`` says otherwise).
        problem_size: Kernel Tuner's problem size (an int, or up to three
            ints or expressions): with ``grid_div_x/y/z`` it gives the grid,
            dimension i being ceil(problem_i / product(grid_div_i)).
        grid_div_x, grid_div_y, grid_div_z: the divisors of each grid
            dimension (parameter names or expressions); by default the
            block size parameter of that dimension, as in Kernel Tuner.
        block: the block's expressions (x, y, z); default the parameters
            named in ``block_size_names`` that exist, 1 for the others.
        grid: the grid's expressions, instead of problem_size/grid_div.
        block_size_names: the parameters that are the block's dimensions.
        sizes: named problem sizes expressions may use (``{"n": 1 << 24}``).
        restrictions: conditions (C syntax: ``&&``, ``||``) that a point
            must meet; others are never run.
        defines: macros ``-DNAME=EXPR``; by default every parameter is
            defined under its own name, as Kernel Tuner does.
        options: NVRTC options (``"-use_fast_math"``).
        include_dirs: folders on the include path.
        headers: headers the source includes, name to text.
        constants: ``__constant__`` symbols filled from arrays, symbol to
            array (Kernel Tuner's ``cmem_args``).
        smem: dynamic shared memory in bytes, an expression.
        answer: the expected contents of the outputs, one entry per
            argument (None where there is nothing to compare); an argument
            with an answer that is a plain array becomes an :class:`InOut`.
        rtol, atol: verification tolerance, ``|got - want| <= atol + rtol *
            |want|`` (default exact).
        defaults: default values of parameters (each one of its values).
        operator: the operator's name in ktune's output (default: the
            kernel's name).
        verify: a callable deciding each point's verification instead of
            the tolerances: ``verify(outputs, expected)`` with ``outputs``
            the kernel's outputs and in-outs (buffer name to a numpy array
            of its values, in the argument's shape) and ``expected`` the
            reference's values for the same buffers (name to a float64
            array: the answer, or the reference configuration's output);
            it returns True to pass, False or ``(False, "why")`` to fail
            (an exception fails the point with its message). Called at
            each size a point is verified at, on the thread that runs. The
            arrays are views valid during the call only (copy what you
            keep). The outputs exist only in the process that ran the
            kernel, so a kernel with ``verify`` runs in this process:
            isolation is off for its runs (a faulting kernel ends the
            Python process), whatever ``isolation`` says.

    Raises:
        KtuneInputError: (a ``ValueError``) for anything ktune refuses, with
            ktune's message; the declaration itself is checked when the
            first run starts (``check()`` checks it without a GPU).
    """

    def __init__(self, name: str, source: Source,
                 args: Union[Sequence[Any], Mapping[str, Any]],
                 params: Optional[Mapping[str, Sequence[int]]] = None, *,
                 problem_size: Optional[Exprs] = None,
                 grid_div_x: Optional[Sequence[Union[str, int]]] = None,
                 grid_div_y: Optional[Sequence[Union[str, int]]] = None,
                 grid_div_z: Optional[Sequence[Union[str, int]]] = None,
                 block: Optional[Exprs] = None,
                 grid: Optional[Exprs] = None,
                 block_size_names: Sequence[str] = ("block_size_x",
                                                    "block_size_y",
                                                    "block_size_z"),
                 sizes: Optional[Mapping[str, int]] = None,
                 restrictions: Sequence[str] = (),
                 defines: Optional[Mapping[str, Union[str, int]]] = None,
                 options: Sequence[str] = (),
                 include_dirs: Sequence[Union[str, "os.PathLike[str]"]] = (),
                 headers: Optional[Mapping[str, str]] = None,
                 constants: Optional[Mapping[str, Any]] = None,
                 smem: Optional[Union[str, int]] = None,
                 answer: Optional[Sequence[Any]] = None,
                 rtol: float = 0.0, atol: float = 0.0,
                 defaults: Optional[Mapping[str, int]] = None,
                 operator: Optional[str] = None,
                 space_file: Optional[Union[str, "os.PathLike[str]"]] = None,
                 variants: Optional[Sequence[Variant]] = None,
                 verify: Optional[Callable[..., Any]] = None) -> None:
        if verify is not None and not callable(verify):
            raise KtuneInputError(f"verify: {verify!r} is not callable")
        self.verify = verify
        self._verify_fn: Any = None  # the C callback, alive with the session
        self.name = name
        self.source = source
        self.sizes = dict(sizes or {})
        self.options = list(options)
        self.include_dirs = [str(d) for d in include_dirs]
        self.headers = dict(headers or {})
        self.rtol, self.atol = rtol, atol
        self.operator = operator or name.split("<")[0].strip()
        if variants:
            if params:
                raise KtuneInputError("give params to each Variant, not to "
                                      "Kernel, when variants are given")
            self.variants = list(variants)
        else:
            vid = "".join(ch if ch.isalnum() or ch == "_" else "_"
                          for ch in self.operator) or "kernel"
            self.variants = [Variant(
                vid, name, params, block=block, grid=grid,
                problem_size=problem_size, grid_div_x=grid_div_x,
                grid_div_y=grid_div_y, grid_div_z=grid_div_z,
                block_size_names=block_size_names, restrictions=restrictions,
                defines=defines, smem=smem, defaults=defaults,
                space_file=space_file)]
        self._args = self._host_args(args, answer)
        self._constants = {sym: to_host(a, f"constant {sym}")
                           for sym, a in (constants or {}).items()}
        self._session: Any = None
        self._set_keys: dict[str, str] = {}
        # Defaults of parameters declared elsewhere (a space file).
        self._guard_defaults: dict[str, int] = {}

    # ---- arguments ---------------------------------------------------------
    def _host_args(self, args: Union[Sequence[Any], Mapping[str, Any]],
                   answer: Optional[Sequence[Any]]) -> list[tuple[str, Any]]:
        items = (list(args.items()) if isinstance(args, Mapping)
                 else [(f"arg{i}", a) for i, a in enumerate(args)])
        if answer is not None and len(answer) != len(items):
            raise KtuneInputError(
                f"answer has {len(answer)} entries; the kernel has "
                f"{len(items)} arguments (None where nothing is compared)")
        out: list[tuple[str, Any]] = []
        for i, (bname, a) in enumerate(items):
            where = f"argument {i + 1} ({bname})"
            want = None if answer is None else answer[i]
            if isinstance(a, SizeExpr):
                if want is not None:
                    raise KtuneInputError(f"{where}: a scalar has no answer")
                out.append((bname, a))
                continue
            if isinstance(a, Buffer):
                if want is not None:
                    raise KtuneInputError(
                        f"{where}: a Buffer is filled by ktune; verify it with "
                        "a reference Variant, or pass an array with its answer")
                out.append((bname, a))
                continue
            role = a.role if isinstance(a, _Role) else _IN
            h = to_host(a.array if isinstance(a, _Role) else a, where)
            if want is not None:
                if h.is_scalar:
                    raise KtuneInputError(f"{where}: a scalar has no answer")
                if role == _IN:
                    role = _INOUT
                want = to_host(want, f"answer {i + 1}").value.astype(
                    h.value.dtype, copy=False).ravel()
            out.append((bname, (role, h, want)))
        return out

    # ---- the declaration, call by call ------------------------------------
    def _declare(self, S: Any) -> None:
        L = _lib.lib()

        def c(code: int, where: str) -> None:
            _lib.check(code, S, where)

        b = _lib.b
        c(L.ktune_declare(S, b(self.operator)), "ktune_declare")
        self._declare_source(S, c)
        for name, text in self.headers.items():
            c(L.ktune_header(S, b(name), b(text)), "ktune_header")
        for opt in self.options:
            c(L.ktune_option(S, b(opt)), "ktune_option")
        for d in self.include_dirs:
            c(L.ktune_include_dir(S, b(d)), "ktune_include_dir")
        # With arrays given, sizes are pinned: the arrays are of one size,
        # so there are no boundary sizes to verify at (docs/python.md).
        pinned = int(self._has_host_data())
        for name, value in self._all_sizes().items():
            c(L.ktune_size(S, b(name), int(value), pinned), "ktune_size")
        self._declare_args(S, c)
        for sym, h in self._constants.items():
            bname = f"cmem_{sym}"
            c(L.ktune_buffer(S, b(bname), _IN, _TYPE[h.type_name],
                             h.value.ctypes.data, h.value.size, None, None),
              "ktune_buffer")
            c(L.ktune_constant(S, b(sym), b(bname)), "ktune_constant")
        for v in self.variants:
            self._declare_variant(S, c, v)
        if self.rtol or self.atol:
            c(L.ktune_tolerance(S, float(self.rtol), float(self.atol)),
              "ktune_tolerance")

    def _declare_source(self, S: Any, c: Any) -> None:
        """The source; with answers, libktune compiles it once more for its
        answer variant without this variant's macros, so each parameter's
        macro gets its default there (#ifndef: the variant's -D wins)."""
        L, b = _lib.lib(), _lib.b
        has_answer = any(isinstance(a, tuple) and a[2] is not None
                         for _, a in self._args)
        defaults: dict[str, int] = {}
        for var in self.variants:
            mine = {**{p: v[0] for p, v in var.params.items() if v},
                    **var.defaults}
            if var.defines is not None:
                mine = {m: v for m, v in mine.items() if m in var.defines}
            defaults.update(mine)
        defaults.update(self._guard_defaults)
        text_source = _is_source_text(self.source)
        if not has_answer or not defaults:
            if text_source:
                c(L.ktune_source_text(S, b(str(self.source))), "ktune_source_text")
            else:
                c(L.ktune_source_file(S, b(os.fspath(self.source))),
                  "ktune_source_file")
            return
        if text_source:
            text = str(self.source)
        else:
            path = Path(os.fspath(self.source))
            try:
                text = path.read_text(encoding="utf-8")
            except OSError as e:
                raise KtuneInputError(f"{path}: cannot read the source: "
                                      f"{e.strerror}") from e
            c(L.ktune_include_dir(S, b(str(path.resolve().parent))),
              "ktune_include_dir")
        guard = "".join(f"#ifndef {m}\n#define {m} {v}\n#endif\n"
                        for m, v in defaults.items())
        c(L.ktune_source_text(S, b(guard + text)), "ktune_source_text")

    def _declare_args(self, S: Any, c: Any) -> None:
        L, b = _lib.lib(), _lib.b
        for bname, a in self._args:
            if isinstance(a, SizeExpr):
                c(L.ktune_arg_expr(S, _CTYPE_NAMES[a.ctype], b(a.expr)),
                  "ktune_arg_expr")
                continue
            if isinstance(a, Buffer):
                expr = None if isinstance(a.count, (int, np.integer)) else str(a.count)
                count = int(a.count) if expr is None else 1
                c(L.ktune_buffer(S, b(bname), a.role, _TYPE[a.type_name], None,
                                 count, b(expr), b(a.fill)), "ktune_buffer")
                c(L.ktune_arg_buffer(S, b(bname), None), "ktune_arg_buffer")
                continue
            role, h, want = a
            v = h.value
            if h.is_scalar:
                ct = _CTYPE[h.type_name] if h.type_name in _CTYPE else None
                if ct is None:
                    raise KtuneInputError(
                        f"{bname}: a scalar of {v.dtype} has no C type ktune passes")
                if v.dtype.kind == "f":
                    c(L.ktune_arg_float(S, ct, float(v)), "ktune_arg_float")
                elif v.dtype.kind == "u":
                    c(L.ktune_arg_uint(S, ct, int(v)), "ktune_arg_uint")
                else:
                    c(L.ktune_arg_int(S, ct, int(v)), "ktune_arg_int")
                continue
            data = v.ctypes.data if role in (_IN, _INOUT) else None
            c(L.ktune_buffer(S, b(bname), role, _TYPE[h.type_name], data,
                             v.size, None, None), "ktune_buffer")
            c(L.ktune_arg_buffer(S, b(bname), None), "ktune_arg_buffer")
            if want is not None:
                c(L.ktune_answer(S, b(bname), want.ctypes.data, want.size),
                  "ktune_answer")

    def _declare_variant(self, S: Any, c: Any, v: Variant) -> None:
        L, b = _lib.lib(), _lib.b
        c(L.ktune_variant(S, b(v.id), b(v.kernel)), "ktune_variant")
        if v.reference:
            c(L.ktune_reference(S), "ktune_reference")
        for pname, values in v.params.items():
            arr = (ctypes.c_int64 * len(values))(*values)
            c(L.ktune_param(S, b(pname), arr, len(values)), "ktune_param")
        for pname, value in v.defaults.items():
            c(L.ktune_param_default(S, b(pname), _int_value(pname, value)),
              "ktune_param_default")
        if v.space_file:
            c(L.ktune_space_file(S, b(v.space_file)), "ktune_space_file")
        c(L.ktune_block(S, b(_block_text(v))), "ktune_block")
        if v.grid is not None:
            c(L.ktune_grid(S, b(_exprs(v.grid))), "ktune_grid")
        else:
            problem, divisors = _grid_divisors(v)
            c(L.ktune_grid_divisors(S, b(problem), b(divisors)),
              "ktune_grid_divisors")
        if v.smem is not None:
            c(L.ktune_smem(S, b(str(v.smem))), "ktune_smem")
        for r in v.restrictions:
            c(L.ktune_require(S, b(r)), "ktune_require")
        defines = {p: p for p in v.params} if v.defines is None else v.defines
        for macro, expr in defines.items():
            c(L.ktune_define(S, b(macro), b(str(expr))), "ktune_define")

    def _shapes(self) -> dict[str, tuple[int, ...]]:
        """Each array argument's shape, by buffer name."""
        return {name: a[1].value.shape for name, a in self._args
                if isinstance(a, tuple) and not a[1].is_scalar}

    def _has_host_data(self) -> bool:
        return any(isinstance(a, tuple) for _, a in self._args) or bool(self._constants)

    def _all_sizes(self) -> dict[str, int]:
        """The sizes given, and problem_size's numbers as problem_x/y/z (a
        declaration has at least one size)."""
        sizes = dict(self.sizes)
        for v in self.variants:
            for axis, d in zip("xyz", _problem_dims(v)):
                if isinstance(d, (int, np.integer)):
                    sizes[f"problem_{axis}"] = int(d)
        if not sizes:
            sizes["problem_x"] = 1
        return sizes

    # ---- sessions and runs -------------------------------------------------
    def _open(self, options: "_Options") -> Any:
        """The declared session, rebuilt when a key set by an earlier run
        is not set again (keys cannot be unset)."""
        if (self._session is not None and
                not set(self._set_keys) <= set(options.keys)):
            self.close()
        if self._session is None:
            S = _lib.new_session()
            self._session = S
            self._set_keys = {}
            try:
                self._declare(S)
                if self.verify is not None:
                    self._verify_fn = _lib.VERIFY_FN(
                        _verify_adapter(self.verify, self._shapes()))
                    _lib.check(_lib.lib().ktune_verify_callback(
                        S, ctypes.cast(self._verify_fn, ctypes.c_void_p), None),
                        S, "ktune_verify_callback")
            except BaseException:
                self.close()
                raise
        options.apply(self._session, self._set_keys)
        return self._session

    def close(self) -> None:
        """Frees the library's session and its folder (also done when the
        kernel is garbage-collected)."""
        if self._session is not None:
            _lib.lib().ktune_session_free(self._session)
            self._session = None
            self._verify_fn = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown: the library may be gone
            pass

    def check(self) -> Result:
        """Checks the declaration and counts its space, without a GPU.

        Returns a :class:`Result` of kind "ktune.check" whose ``document``
        holds the counts and ``document["text"]`` the CLI's ``--check``
        output; ``space`` gives (points, feasible)."""
        return _run(self, "check", _Options(None, None, None, None, None, None,
                                            None, True, None), None, False)

    def tune(self, strategy: Optional[str] = None, *,
             max_evals: Optional[int] = None,
             max_seconds: Optional[float] = None,
             fraction: Optional[float] = None,
             objective: Optional[str] = None,
             seed: Optional[int] = None, device: Optional[int] = None,
             isolation: bool = True, journal: Optional[str] = None,
             settings: Optional[Mapping[str, Any]] = None,
             verbose: bool = False, progress: Optional[bool] = None) -> Result:
        """Searches the space for the fastest verified configuration.

        Args:
            strategy: ktune's strategy name (``"exhaustive"``,
                ``"random"``, ...; default ktune's own).
            max_evals: at most this many evaluations.
            max_seconds: at most this long (one clock for the whole run).
            fraction: at most this fraction (0, 1] of the feasible space.
            objective: "time" (default), "energy" or a derived objective.
            seed: the search's seed (replays with one seed give one path).
            device: the CUDA device ordinal.
            isolation: kernels run in worker processes (default), so a
                faulting kernel costs one point (a kernel with ``verify``
                runs in this process: its callback needs the outputs).
            journal: keep the run's journal (JSON lines) at this path; it
                replays the run with :func:`replay`.
            settings: any other job key, ``{"measure.min_samples": 50}``,
                as ``ktune tune --set KEY=VALUE`` (docs/configs.md).
            verbose: ktune's own progress and summary on stderr.
            progress: a progress bar (tqdm where installed; default: on
                unless verbose).
        Returns:
            a :class:`Result` (``best``, ``points``, ``env``,
            ``to_pandas()``; shown as the HTML report in Jupyter).
        Raises:
            KtuneInputError: the declaration or an option is refused.
            KtuneRuntimeError: no GPU, a CUDA failure, nothing verified.
        """
        keys = _run_settings(strategy, max_evals, max_seconds, fraction,
                             objective, seed, device, isolation, settings)
        show = (not verbose) if progress is None else progress
        return _run(self, "tune", keys, journal, verbose, progress=show,
                    total=max_evals)

    def bench(self, config: Optional[Union[str, Mapping[str, int]]] = None, *,
              variant: Optional[str] = None, device: Optional[int] = None, isolation: bool = True,
              settings: Optional[Mapping[str, Any]] = None,
              verbose: bool = False) -> Result:
        """Verifies and times one configuration (``{"block_size_x": 256}``
        or ``"block_size_x=256"``; None: the defaults) of a variant (None:
        the first)."""
        keys = _run_settings(None, None, None, None, None, None, device,
                             isolation, settings)
        return _run(self, "bench", keys, None, verbose, config=config,
                    variant=variant)

    def profile(self, config: Optional[Union[str, Mapping[str, int]]] = None, *,
                variant: Optional[str] = None, device: Optional[int] = None,
                settings: Optional[Mapping[str, Any]] = None,
                verbose: bool = False) -> Result:
        """Profiles one configuration: time, hardware counters, occupancy
        and ktune's bottleneck diagnosis (in ``document``)."""
        keys = _run_settings(None, None, None, None, None, None, device,
                             True, settings)
        return _run(self, "profile", keys, None, verbose, config=config,
                    variant=variant)

    def replay(self, recording: Union[str, "os.PathLike[str]"],
               strategy: Optional[str] = None, *,
               max_evals: Optional[int] = None,
               max_seconds: Optional[float] = None,
               fraction: Optional[float] = None,
               seed: Optional[int] = None,
               settings: Optional[Mapping[str, Any]] = None,
               verbose: bool = False) -> Result:
        """Runs the search answered from a ktune journal of this kernel
        instead of a GPU (no GPU needed)."""
        keys = _run_settings(strategy, max_evals, max_seconds, fraction,
                             None, seed, None, True, settings)
        return _run(self, "replay", keys, None, verbose,
                    recording=os.fspath(recording))


# ktune_type values (include/ktune/ktune.h) to numpy dtypes.
_NUMPY_TYPE = {0: np.dtype(np.float32), 1: np.dtype(np.float64),
               2: np.dtype(np.int32), 3: np.dtype(np.int64),
               4: np.dtype(np.uint32), 5: np.dtype(np.uint64),
               6: np.dtype(np.int8), 7: np.dtype(np.uint8),
               8: np.dtype(np.int16), 9: np.dtype(np.uint16),
               10: np.dtype(np.float16)}


def _verify_adapter(fn: Callable[..., Any],
                    shapes: Mapping[str, tuple[int, ...]]) -> Callable[..., int]:
    """A ktune_verify_fn over fn(outputs, expected) (see Kernel's verify):
    the outputs as numpy views of libktune's memory, no copy."""

    def call(user: Any, outputs: Any, n: int, msg: Any, msg_size: int) -> int:
        try:
            got: dict[str, np.ndarray] = {}
            want: dict[str, np.ndarray] = {}
            for i in range(n):
                o = outputs[i]
                name = _lib.s(o.name)
                dt = _NUMPY_TYPE[o.type]
                count = int(o.count)
                if count and o.data:
                    raw = (ctypes.c_char * (count * dt.itemsize)).from_address(o.data)
                    a = np.frombuffer(raw, dtype=dt)
                else:
                    a = np.empty(0, dtype=dt)
                shape = shapes.get(name)
                got[name] = a.reshape(shape) if shape and int(np.prod(shape)) == count else a
                want[name] = (np.ctypeslib.as_array(o.expected, shape=(count,))
                              if count and o.expected else np.empty(0))
            verdict = fn(got, want)
            reason = ""
            if isinstance(verdict, tuple):
                verdict, reason = verdict[0], str(verdict[1]) if len(verdict) > 1 else ""
            ok = bool(verdict)
        except Exception as e:  # the point fails with the message
            ok, reason = False, f"{type(e).__name__}: {e}"
        if not ok and reason and msg and msg_size > 1:
            data = reason.encode(errors="replace")[:msg_size - 1] + b"\0"
            ctypes.memmove(msg, data, len(data))
        return 1 if ok else 0

    return call


def _problem_dims(v: Variant) -> list[Any]:
    ps = v.problem_size
    if ps is None:
        return []
    if isinstance(ps, (str, int, np.integer)):
        ps = [ps]
    dims = [int(d) if isinstance(d, (int, np.integer)) or
            (isinstance(d, str) and d.strip().isdigit()) else d for d in ps]
    if not 1 <= len(dims) <= 3:
        raise KtuneInputError(
            f"problem_size has {len(dims)} dimensions; expected 1 to 3")
    return dims


def _block_text(v: Variant) -> str:
    if v.block is not None:
        return _exprs(v.block)
    dims = [n if n in v.params else "1" for n in v.block_size_names]
    while len(dims) > 1 and dims[-1] == "1":
        dims.pop()
    return ", ".join(dims) or "1"


def _grid_divisors(v: Variant) -> tuple[str, str]:
    """problem_size and grid_div_x/y/z as ktune_grid_divisors takes them
    (a number of problem_size is its size problem_x/y/z)."""
    dims = _problem_dims(v)
    if not dims:
        raise KtuneInputError(
            f"{v.kernel}: the grid needs problem_size (with grid_div_x/y/z) "
            "or grid")
    divs = []
    for i, _ in enumerate(dims):
        given = v.grid_div[i]
        if given is None:
            bn = v.block_size_names[i] if i < len(v.block_size_names) else ""
            given = [bn] if bn in v.params else []
        divs.append(" * ".join(f"({d})" for d in given) if given else "1")
    problem = [f"problem_{axis}" if isinstance(d, int) else str(d)
               for axis, d in zip("xyz", dims)]
    return ", ".join(problem), ", ".join(divs)


def _int_value(name: str, v: Any) -> int:
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise KtuneInputError(
            f"parameter {name}: value {v!r} is not an integer (ktune's "
            "parameters take integer values)")
    return int(v)


class _Options:
    """A run's options: those libktune has a call for (applied at every
    run, with ktune's defaults when not given) and other job keys."""

    def __init__(self, strategy: Optional[str], max_evals: Optional[int],
                 max_seconds: Optional[float], fraction: Optional[float],
                 objective: Optional[str], seed: Optional[int],
                 device: Optional[int], isolation: bool,
                 settings: Optional[Mapping[str, Any]]) -> None:
        self.strategy = strategy or "auto"
        self.budget = (int(max_evals or 0), float(max_seconds or 0.0),
                       float(fraction or 0.0))
        self.objective = objective or "time"
        self.seed = 1 if seed is None else int(seed)
        self.isolation = bool(isolation)
        # Keys without a call of their own; the device is one (its default
        # is the job's own), so a later run without it rebuilds the session.
        self.keys: dict[str, str] = {}
        if device is not None:
            self.keys["\0device"] = str(int(device))
        for k, v in (settings or {}).items():
            self.keys[str(k)] = v if isinstance(v, str) else repr(v)

    def apply(self, S: Any, set_keys: dict[str, str]) -> None:
        """Sets every option on session S; set_keys records the keys."""
        L, b = _lib.lib(), _lib.b
        c = lambda code, where: _lib.check(code, S, where)  # noqa: E731
        c(L.ktune_session_set_strategy(S, b(self.strategy)),
          "ktune_session_set_strategy")
        c(L.ktune_session_set_budget(S, *self.budget), "ktune_session_set_budget")
        c(L.ktune_session_set_objective(S, b(self.objective)),
          "ktune_session_set_objective")
        c(L.ktune_session_set_seed(S, self.seed), "ktune_session_set_seed")
        c(L.ktune_session_set_isolation(S, int(self.isolation)),
          "ktune_session_set_isolation")
        for key, value in self.keys.items():
            if set_keys.get(key) == value:
                continue
            if key == "\0device":
                c(L.ktune_session_set_device(S, int(value)),
                  "ktune_session_set_device")
            else:
                c(L.ktune_session_set(S, b(key), b(value)), "ktune_session_set")
            set_keys[key] = value


def _run_settings(strategy: Optional[str], max_evals: Optional[int],
                  max_seconds: Optional[float], fraction: Optional[float],
                  objective: Optional[str], seed: Optional[int],
                  device: Optional[int], isolation: bool,
                  settings: Optional[Mapping[str, Any]]) -> _Options:
    return _Options(strategy, max_evals, max_seconds, fraction, objective,
                    seed, device, isolation, settings)


def _config_text(config: Optional[Union[str, Mapping[str, int]]]) -> Optional[str]:
    if config is None or isinstance(config, str):
        return config
    return ",".join(f"{k}={_int_value(k, v)}" for k, v in config.items())


def _log_line(user: Any, line: bytes) -> None:
    """ktune_log_fn: one line ktune printed, to Python's stderr."""
    sys.stderr.write(_lib.s(line) + "\n")
    sys.stderr.flush()


def _journal_points(path: str) -> int:
    try:
        with open(path, "rb") as f:
            return sum(1 for line in f if line.startswith(b'{"point"'))
    except OSError:
        return 0


def _run(kernel: Optional[Kernel], what: str, keys: "_Options",
         journal: Optional[str], verbose: bool, *, progress: bool = False,
         total: Optional[int] = None, config: Any = None,
         recording: Optional[str] = None, variant: Optional[str] = None) -> Result:
    """One run on the kernel's session (or a bare one for a replay of
    another tool's recording), in a thread while the caller's thread shows
    progress from the journal the run writes."""
    L = _lib.lib()
    bare = None
    if kernel is not None:
        S = kernel._open(keys)
    else:
        bare = _lib.new_session()
        S = bare
        keys.apply(S, {})
    try:
        _lib.check(L.ktune_session_set_verbose(S, int(bool(verbose))), S,
                   "ktune_session_set_verbose")
        # verbose: ktune's lines go to Python's sys.stderr (a notebook's
        # cell output, not file descriptor 2); the callback object lives
        # as long as the run.
        log_fn = _lib.LOG_FN(_log_line) if verbose else None
        _lib.check(L.ktune_session_set_log(
            S, ctypes.cast(log_fn, ctypes.c_void_p) if log_fn else None, None),
            S, "ktune_session_set_log")
        jpath = journal
        # A declared kernel's runs keep a journal: it is where libktune
        # reads each point from (a bare replay of another tool's recording
        # may not write one).
        if jpath is None and (progress or kernel is not None):
            jpath = os.path.join(_lib.s(L.ktune_session_dir(S)),
                                 "python-progress.journal.jsonl")
        _lib.check(L.ktune_session_set_journal(S, _lib.b(jpath)), S,
                   "ktune_session_set_journal")
        out = _lib.RESULT()
        calls = {
            "check": lambda: L.ktune_check(S, ctypes.byref(out)),
            "tune": lambda: L.ktune_tune(S, ctypes.byref(out)),
            "bench": lambda: L.ktune_bench(S, _lib.b(variant),
                                           _lib.b(_config_text(config)),
                                           ctypes.byref(out)),
            "profile": lambda: L.ktune_profile(S, _lib.b(variant),
                                               _lib.b(_config_text(config)),
                                               ctypes.byref(out)),
            "replay": lambda: L.ktune_replay(S, _lib.b(recording),
                                             ctypes.byref(out)),
        }
        code = _call_with_progress(calls[what], progress, total, jpath)
        _lib.check(code, S, f"ktune_{what}")
        space = None
        if what == "check":
            size, feasible = ctypes.c_int64(), ctypes.c_int64()
            if L.ktune_result_space(out, ctypes.byref(size),
                                    ctypes.byref(feasible)) == _lib.OK:
                space = (int(size.value), int(feasible.value))
        result = Result._take(out)
        result.space = space
        return result
    finally:
        if bare is not None:
            L.ktune_session_free(bare)


def _call_with_progress(call: Any, progress: bool, total: Optional[int],
                        journal: Optional[str]) -> int:
    if not progress or journal is None:
        return int(call())
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["code"] = int(call())
        except BaseException as e:  # re-raised in the caller's thread
            box["error"] = e

    bar = Progress(total, True)
    t = threading.Thread(target=work, name="ktune-run", daemon=True)
    t.start()
    try:
        while t.is_alive():
            t.join(0.25)
            bar.update(_journal_points(journal))
        bar.update(_journal_points(journal))
    finally:
        bar.close()
    if "error" in box:
        raise box["error"]
    return box["code"]


def tune(name: str, source: Source, args: Union[Sequence[Any], Mapping[str, Any]],
         params: Mapping[str, Sequence[int]], *,
         strategy: Optional[str] = None, max_evals: Optional[int] = None,
         max_seconds: Optional[float] = None, seed: Optional[int] = None,
         journal: Optional[str] = None, verbose: bool = False,
         progress: Optional[bool] = None, **declaration: Any) -> Result:
    """Tunes a CUDA kernel in one call: ``Kernel(name, source, args,
    params, **declaration).tune(strategy, ...)``.

    Example::

        import numpy as np, ktune
        src = '''__global__ void add(float *c, const float *a, const float *b, int n) {
            int i = blockIdx.x * block_size_x + threadIdx.x;
            if (i < n) c[i] = a[i] + b[i];
        }'''
        n = 1 << 24
        a, b = np.random.rand(n).astype(np.float32), np.random.rand(n).astype(np.float32)
        r = ktune.tune("add", src, [ktune.Out(np.empty_like(a)), a, b, np.int32(n)],
                       {"block_size_x": [32 * i for i in range(1, 21)]},
                       problem_size=n, answer=[a + b, None, None, None])
        print(r.best)

    Args:
        name, source, args, params: as :class:`Kernel` takes them.
        strategy, max_evals, max_seconds, seed, journal, verbose, progress:
            as :meth:`Kernel.tune` takes them.
        **declaration: any other keyword of :class:`Kernel`
            (problem_size, grid_div_x, restrictions, answer, atol, ...).
    Returns:
        the :class:`Result`: ``r.best`` is the verified best with its
        median and confidence interval (``median_us``, ``ci_lo_us``,
        ``ci_hi_us``), ``r.points`` every evaluation.
    """
    k = Kernel(name, source, args, params, **declaration)
    try:
        return k.tune(strategy, max_evals=max_evals, max_seconds=max_seconds,
                      seed=seed, journal=journal, verbose=verbose,
                      progress=progress)
    finally:
        k.close()


def bench(name: str, source: Source, args: Union[Sequence[Any], Mapping[str, Any]],
          config: Mapping[str, int], **declaration: Any) -> Result:
    """Verifies and times one configuration of a kernel: ``config`` gives
    each parameter one value (``{"block_size_x": 256}``)."""
    k = Kernel(name, source, args, {p: [v] for p, v in config.items()},
               **declaration)
    try:
        return k.bench()
    finally:
        k.close()


def profile(name: str, source: Source, args: Union[Sequence[Any], Mapping[str, Any]],
            config: Mapping[str, int], **declaration: Any) -> Result:
    """Profiles one configuration of a kernel (time, counters, diagnosis)."""
    k = Kernel(name, source, args, {p: [v] for p, v in config.items()},
               **declaration)
    try:
        return k.profile()
    finally:
        k.close()


def check(kernel: Kernel) -> Result:
    """Checks a kernel's declaration and counts its space (no GPU)."""
    return kernel.check()


def replay(recording: Union[str, "os.PathLike[str]"],
           strategy: Optional[str] = None, *, max_evals: Optional[int] = None,
           max_seconds: Optional[float] = None,
           fraction: Optional[float] = None, seed: Optional[int] = None,
           settings: Optional[Mapping[str, Any]] = None,
           verbose: bool = False) -> Result:
    """Runs a search answered from a recording instead of a GPU: a ktune
    journal, a Kernel Tuner cache file (.json) or T4 results, as
    ``ktune tune --replay FILE`` does (no GPU, no job needed). The
    strategy then walks the recorded points; each evaluation costs what
    the recording says it cost."""
    path = os.fspath(recording)
    if not Path(path).is_file():
        raise KtuneInputError(f"{path}: no such file (a recording to replay)")
    keys = _run_settings(strategy, max_evals, max_seconds, fraction, None,
                         seed, None, True, settings)
    return _run(None, "replay", keys, None, verbose, recording=path)
