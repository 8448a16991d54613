"""How a child is launched: the program that runs a variant, its command
line and environment for one run, and why a variant cannot run here. The
runner and `roundbench list` and `roundbench crossing` ask these of the
rounds' declarations."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

from .. import rounds, runtimes
from ..runtimes import interp, programs
from ..rounds import Round, Variant


def child_env(v: Variant, params: dict) -> Optional[dict]:
    """The child's environment: ours, plus the variant's settings, plus
    where its inputs are (made now if they are not yet), plus what its
    interpreter needs to import this package (a runtime of the axis)."""
    extra = {}
    rt = v.runtime
    if rt is not None and rt.kind == runtimes.PYTHON and not rt.default:
        extra = interp.child_env(rt.where)
    if v.env is None and v.make_inputs is None and not extra:
        return None
    env = dict(os.environ)
    env.update(extra)
    for hook in (v.env, v.make_inputs):
        if hook is not None:
            env.update({k: str(val) for k, val in hook(params).items()})
    return env


def program_of(rnd: Round, v: Variant) -> str:
    """The program that runs variant v of round rnd: v.program, except that
    the Go runner is the round's own (rb-go-<round>: a child then maps no
    other round's code, and its peak RSS is its round's)."""
    return programs.go_runner(rnd.name) if v.program == "rb-go" else v.program


def runs_go(v: Variant) -> bool:
    """Whether v's own program is a Go runner (the round's or a library's),
    which the Go toolchain axis builds with each toolchain."""
    return v.program == "rb-go" or v.program.startswith(programs.GO_RUNNER_PREFIX)


def go_toolchain(v: Variant) -> Optional[str]:
    """The Go release v's runner is built with, when the axis names one
    that is not the installed toolchain's build (the runner then finds the
    program and says whether it can run: gotoolchains). None for a
    generated program: its argv names the build of its release already."""
    rt = v.runtime
    if rt is None or rt.kind != runtimes.GO or rt.default or v.program == "generated":
        return None
    return rt.where


def _interpreter(v: Variant) -> str:
    rt = v.runtime
    return rt.where if rt is not None and rt.kind == runtimes.PYTHON else interp.executable()


def command(rnd: Round, v: Variant, params: dict, program: Optional[Path] = None) -> list:
    """The child's command line for one run; `program`: the program that
    runs it when not the installed build's (a Go runner built with another
    Go release: the runner finds it, gotoolchains.program_path)."""
    kv = [f"{k}={params[k]}" for k in params]
    if v.program == "generated":
        return [*v.argv, rnd.name, v.runs_as, *kv]
    if v.program == "python":
        return [_interpreter(v), "-m", "roundbench.run.child", rnd.name, v.runs_as, *kv]
    return [str(program or programs.path(program_of(rnd, v))), rnd.name, v.runs_as, *kv]


def unavailable(rnd: Round, v: Variant) -> Optional[str]:
    """Why variant v cannot run here, or None. A Python variant under an
    interpreter of the runtime axis is asked of that interpreter: the
    extension is built for it first where it is missing (interp.ensure_extension),
    and a variant that calls the core needs it. A Go runner built with
    another Go release is not looked for here: the runner asks
    gotoolchains, which builds it. A variant's `requires` may build what it
    needs too (rounds.needs_aot: the modules Cython, mypyc and Pythran
    compile), so that it is built here, before the runs."""
    rt = v.runtime
    exe = rt.where if rt is not None and rt.kind == runtimes.PYTHON and v.program == "python" else None
    if exe is not None:
        if v.level == "core":
            why = interp.ensure_extension(exe)
            if why:
                return why
    elif v.program == "python":
        # An interpreter --python (or ROUNDBENCH_PYTHON) names gets the
        # extension built for it here, as one of the runtime axis does: a
        # fresh clone has none for it.
        why = interp.ensure_extension() if interp.is_alternate() else interp.extension_missing()
        if why:
            return why
    elif go_toolchain(v) is not None:
        pass  # the runner asks gotoolchains (plans.expand)
    elif v.program == "generated":
        pass  # built for the run by whoever made the variant, which says why where it is not
    else:
        why = programs.missing(program_of(rnd, v))
        if why:
            return why
    if v.requires is not None:
        return rounds.ask(v.requires, exe)
    return None
