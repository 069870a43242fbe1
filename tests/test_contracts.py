"""Contracts of the code that the import linter cannot state, and of the build: no test module
imports another; the engine imports only what its allow-list names; the import linter's
contracts cover every folder of the package; the build asks for a setuptools that reads the
project's license; the package's doctests run without the optional ``fast`` extra."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from .conftest import ROOT

PACKAGE = ROOT / "spades_replay"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def _imports(path: Path) -> list[tuple[int, str, int]]:
    """Every import of a module, at any depth: (line, module, level of a relative import);
    ``from X import a`` gives ``X`` and ``X.a`` (``a`` may be a module)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, 0) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            found.append((node.lineno, module, node.level))
            found += [
                (node.lineno, f"{module}.{alias.name}".lstrip("."), node.level)
                for alias in node.names
            ]
    return found


def test_no_test_module_imports_another() -> None:
    """What test modules share lives in tests/conftest.py and tests/support/."""
    for path in sorted((ROOT / "tests").glob("test_*.py")):
        for line, module, _ in _imports(path):
            parts = module.split(".")
            assert not any(part.startswith("test_") for part in parts), (
                f"{path.name}:{line} imports {module}"
            )


ENGINE_MAY_IMPORT = frozenset(
    {
        "__future__",
        "collections",
        "dataclasses",
        "difflib",
        "enum",
        "functools",
        "itertools",
        "math",
        "operator",
        "types",
        "typing",
    }
)
"""What the engine may import besides itself and ``spades_replay.errors``: pure parts of the
standard library. No I/O, randomness, clock, parsing, display or third-party package."""


def test_the_engine_imports_only_what_its_allow_list_names() -> None:
    modules = sorted((PACKAGE / "engine").glob("*.py"))
    assert len(modules) > 5
    for path in modules:
        for line, module, level in _imports(path):
            inside = level == 1 or module.startswith(
                ("spades_replay.engine", "spades_replay.errors")
            )
            allowed = inside or module.split(".")[0] in ENGINE_MAY_IMPORT
            assert allowed, f"engine/{path.name}:{line} imports {module or '.' * level}"


def _top_level() -> set[str]:
    """The package's folders and top-level modules, as import names."""
    names = {
        f"spades_replay.{path.name}"
        for path in PACKAGE.iterdir()
        if (path / "__init__.py").is_file()
    }
    names |= {
        f"spades_replay.{path.stem}"
        for path in PACKAGE.glob("*.py")
        if path.stem not in ("__init__", "__main__")
    }
    return names


def _contract(start: str) -> dict[str, object]:
    contracts = PYPROJECT["tool"]["importlinter"]["contracts"]
    return next(contract for contract in contracts if contract["name"].startswith(start))


def test_the_import_contracts_cover_the_whole_package() -> None:
    """A new folder of the package must find its place in the layers, and stay away from the
    faces' libraries, before it lands."""
    everything = _top_level()
    assert {"spades_replay.engine", "spades_replay.store", "spades_replay.errors"} <= everything
    layers = _contract("Data flows one way")["layers"]
    assert isinstance(layers, list)
    layered = {name.strip() for layer in layers for name in layer.split("|")}
    assert everything <= layered
    rich = set(_contract("rich is the terminal's")["source_modules"])  # type: ignore[arg-type]
    assert rich == everything - {"spades_replay.cli"} | {"dashboard"}
    faces = set(_contract("streamlit and plotly")["source_modules"])  # type: ignore[arg-type]
    assert faces == everything


SPDX_FLOOR = Version("77")
"""The first setuptools that reads ``project.license`` as an SPDX expression (PEP 639):
older ones refuse the string (``project.license must be valid exactly by one definition``)."""


def test_the_build_asks_for_a_setuptools_that_reads_the_license() -> None:
    assert isinstance(PYPROJECT["project"]["license"], str), "the license is an SPDX expression"
    setuptools = next(
        Requirement(text)
        for text in PYPROJECT["build-system"]["requires"]
        if Requirement(text).name == "setuptools"
    )
    floors = [Version(spec.version) for spec in setuptools.specifier if spec.operator == ">="]
    assert floors, f"{setuptools} declares no floor"
    assert max(floors) >= SPDX_FLOOR, f"{setuptools}: the SPDX license needs setuptools>=77"


@pytest.mark.slow
def test_the_doctests_run_without_the_fast_extra(tmp_path: Path) -> None:
    """With numba and numpy hidden (as where the ``fast`` extra is not installed), the
    doctests of the package pass, and the modules that need the extra are skipped, saying so."""
    for name in ("numba", "numpy"):
        (tmp_path / f"{name}.py").write_text('raise ImportError("hidden: no fast extra")\n')
    environment = dict(os.environ, PYTHONPATH=str(tmp_path))
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", "spades_replay"],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    skipped = re.findall(r"SKIPPED \[1\] .*: (\w+\.py) needs the fast extra", run.stdout)
    assert sorted(skipped) == ["compiled.py", "kernel.py"]
    assert re.search(r"\d+ passed", run.stdout)
