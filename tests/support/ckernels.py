"""The project's C kernels as the tests build them: whether this Python could, and a build
of one source under every common warning, each an error."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path


def _compiler() -> str:
    return (sysconfig.get_config_var("CC") or "cc").split()[0]


def can_build() -> bool:
    """Whether this Python could build an extension: a C compiler and Python's headers."""
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    return shutil.which(_compiler()) is not None and headers.is_file()


def compile_strictly(source: Path, out: Path) -> subprocess.CompletedProcess[str]:
    """``source`` compiled to ``out`` with -Wall -Wextra -Werror (the install builds the
    optional extensions quietly, so a warning would otherwise go unseen)."""
    include = sysconfig.get_paths()["include"]
    flags = ["-Wall", "-Wextra", "-Werror", "-fPIC", "-c"]
    return subprocess.run(
        [_compiler(), *flags, f"-I{include}", str(source), "-o", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )


def printed_in_a_new_process(script: str, variable: str, setting: str | None) -> str:
    """What ``python -c script`` prints in a new process whose environment sets ``variable``
    to ``setting`` (or leaves it unset, for ``None``): which kernel a process picks."""
    environment = {name: value for name, value in os.environ.items() if name != variable}
    if setting is not None:
        environment[variable] = setting
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=environment, check=True
    )
    return done.stdout.strip()
