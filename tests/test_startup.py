"""What the command line imports before it works: only what the command it runs needs.

Start-up time itself is measured by ``./dev bench`` (docs/performance.md), never here; these
tests check the imports that decide it, in a fresh interpreter.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import spades_replay
import spades_replay.cli as cli

from .conftest import ROOT

BAD = ROOT / "fixtures" / "invalid" / "bid-blind-nil-deficit.json"

HEAVY = ("pydantic", "rich", "polars", "spades_replay.record.models", "spades_replay.engine")


def imported_after(code: str) -> set[str]:
    """The heavy modules a fresh interpreter holds after running ``code``."""
    heavy = f"' '.join(m for m in {HEAVY!r} if m in sys.modules)"
    probe = f"import sys\n{code}\nprint({heavy}, file=sys.stderr)\n"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(done.stderr.split())


def test_help_imports_no_command() -> None:
    """``spades-replay --help`` lists the commands from their table: no command module,
    no format model, no engine, no rich."""
    code = (
        "from spades_replay.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "assert not [m for m in sys.modules if m.endswith('_cmd')], sys.modules"
    )
    assert imported_after(code) == set()


def test_the_package_imports_its_api_on_first_use() -> None:
    """``import spades_replay`` is cheap; a name of its API imports its home module."""
    assert imported_after("import spades_replay") == set()
    assert "pydantic" in imported_after("import spades_replay\nspades_replay.loads")


def test_every_name_of_the_api_resolves() -> None:
    for name in spades_replay.__all__:
        assert getattr(spades_replay, name) is not None, name
    assert set(spades_replay.__all__) <= set(dir(spades_replay))
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        spades_replay.nothing  # noqa: B018


def test_the_table_names_every_command_module() -> None:
    modules = {
        info.name.removesuffix("_cmd")
        for info in pkgutil.iter_modules(cli.__path__)
        if info.name.endswith("_cmd")
    }
    assert set(cli.COMMANDS) == modules
    for name in cli.COMMANDS:
        assert callable(importlib.import_module(f"spades_replay.cli.{name}_cmd").register)


@pytest.mark.parametrize("words", [["--help"], ["--help", "validate"]])
def test_help_lists_every_command_with_its_line(
    capsys: pytest.CaptureFixture[str], words: list[str]
) -> None:
    """Even when a command is named after ``--help``, whose parser alone is built when the
    command comes first."""
    with pytest.raises(SystemExit):
        cli.main(words)
    out = capsys.readouterr().out
    for name, summary in cli.COMMANDS.items():
        assert f"    {name}" in out
        assert " ".join(summary.split()[:3]) in " ".join(out.split())


def test_a_command_builds_only_its_own_parser() -> None:
    """Naming a command imports its module alone."""
    code = (
        "import sys\n"
        "from spades_replay.cli import main\n"
        "try:\n    main(['schema', '--help'])\nexcept SystemExit:\n    pass\n"
        "print(' '.join(sorted(m for m in sys.modules if m.endswith('_cmd'))), file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stderr.split() == ["spades_replay.cli.schema_cmd"]
    assert "usage: spades-replay schema" in done.stdout


def test_a_command_named_first_makes_no_parser_for_the_others() -> None:
    parser = cli.build_parser("schema", alone=True)
    (commands,) = (
        action for action in parser._actions if isinstance(action, argparse._SubParsersAction)
    )
    assert list(commands.choices) == ["schema"]


def test_no_schema_is_built_before_the_first_record() -> None:
    """What every command imports leaves the record validator unbuilt; the first record
    builds it."""
    code = (
        "import spades_replay.cli.common\n"
        "import spades_replay.record.models as models\n"
        "assert not models.RECORD_ADAPTER.pydantic_complete\n"
        "import spades_replay\n"
        "spades_replay.load('fixtures/four-player/standard-game.json')\n"
        "assert models.RECORD_ADAPTER.pydantic_complete\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def _validate_imports(path: str) -> set[str]:
    """The heavy modules (and multiprocessing, shutil and threading, which one process and
    argparse's help need not import) a fresh interpreter holds after
    ``spades-replay validate PATH``, its output a pipe."""
    code = (
        "from spades_replay.cli import main\n"
        f"code = main(['validate', {path!r}])\n"
        "others = ('multiprocessing', 'shutil', 'threading')\n"
        "print(' '.join(m for m in others if m in sys.modules), file=sys.stderr)\n"
    )
    environment = {
        name: value
        for name, value in os.environ.items()
        if name not in ("FORCE_COLOR", "TTY_COMPATIBLE")
    }
    heavy = f"' '.join(m for m in {HEAVY!r} if m in sys.modules)"
    probe = f"import sys\n{code}\nprint({heavy}, file=sys.stderr)\n"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, env=environment
    )
    return set(done.stderr.split())


def test_validate_imports_no_model_nor_rich_for_a_valid_record() -> None:
    """A valid record takes the accept path: no pydantic, no format model, no schema; off a
    terminal nothing draws, so no rich; one process, so no multiprocessing (nor threading);
    argparse's help formatters find the terminal's width without shutil."""
    assert _validate_imports("fixtures/four-player/standard-game.json") == {"spades_replay.engine"}


def test_validate_takes_the_models_for_a_record_the_fast_check_refuses() -> None:
    imported = _validate_imports("fixtures/invalid/bid-nil-not-allowed.json")
    assert {"pydantic", "spades_replay.record.models"} <= imported
    assert "rich" not in imported


def test_a_query_of_a_store_imports_no_model_nor_the_replayer(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """``query`` reads a store: DuckDB answers and rich draws the answer, but no format
    model (nor pydantic), no replayer, no ingest and no polars (the parts are checked by
    the sizes the manifest records) are imported for it."""
    from spades_replay.store.ingest import ingest

    store = tmp_path_factory.mktemp("query") / "store"
    ingest([str(ROOT / "fixtures" / "corpus" / "two-player.jsonl")], store)
    code = (
        "from spades_replay.cli import main\n"
        f"assert main(['query', '--store', {str(store)!r}, 'SELECT count(*) FROM games']) == 0\n"
        "assert 'spades_replay.replayer.replay' not in sys.modules\n"
        "assert 'spades_replay.store.ingest' not in sys.modules\n"
    )
    assert imported_after(code) == {"rich", "spades_replay.engine"}


@pytest.mark.parametrize("command", ["ingest", "stats"])
def test_ingest_and_stats_of_valid_records_import_no_model(tmp_path: Path, command: str) -> None:
    """Valid records take the accept path into the tables too: no pydantic, no format model
    and no replayer (the double-dummy analysis replays, and imports them then)."""
    corpus = str(ROOT / "fixtures" / "corpus" / "two-player.jsonl")
    words = ["ingest", "--store", str(tmp_path / "store"), corpus]
    words = words if command == "ingest" else ["stats", corpus]
    code = (
        "from spades_replay.cli import main\n"
        f"assert main({words!r}) == 0\n"
        "assert 'spades_replay.replayer.replay' not in sys.modules\n"
    )
    imported = imported_after(code)
    assert not {"pydantic", "spades_replay.record.models"} & imported, imported


def test_the_program_starts_with_the_collector_off_and_freezes_what_it_made(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import gc

    events: list[str] = []
    for name in ("disable", "enable", "freeze"):
        monkeypatch.setattr(gc, name, lambda name=name: events.append(name))
    run = cli._run

    def running(arguments: argparse.Namespace) -> int:
        events.append(f"run {arguments.command}")
        return run(arguments)

    monkeypatch.setattr(cli, "_run", running)
    bad = str(BAD)
    for path, code in ((str(ROOT / "fixtures/four-player/standard-game.json"), 0), (bad, 1)):
        events.clear()
        monkeypatch.setattr(sys, "argv", ["spades-replay", "validate", "--quiet", path])
        with pytest.raises(SystemExit) as exited:
            cli.entry()
        assert events == ["disable", "freeze", "enable", "run validate", "freeze"]
        assert exited.value.code == code == cli.main(["validate", "--quiet", path])
    capsys.readouterr()


def test_the_program_runs_no_command_when_the_words_ask_for_none(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import gc

    monkeypatch.setattr(gc, "freeze", lambda: None)
    monkeypatch.setattr(sys, "argv", ["spades-replay"])
    with pytest.raises(SystemExit) as exited:
        cli.entry()
    assert exited.value.code == 2
    assert "usage: spades-replay" in capsys.readouterr().out
    assert gc.isenabled()


def test_main_leaves_the_collector_alone(capsys: pytest.CaptureFixture[str]) -> None:
    import gc

    frozen = gc.get_freeze_count()
    assert cli.main(["validate", "--quiet", str(ROOT / "fixtures/two-player/mercy.json")]) == 0
    assert gc.isenabled()
    assert gc.get_freeze_count() == frozen
    capsys.readouterr()


@pytest.mark.parametrize("program", ["console script", "module"])
def test_the_program_exits_with_the_commands_code(program: str) -> None:
    start = (
        [str(Path(sys.executable).with_name("spades-replay"))]
        if program == "console script"
        else [sys.executable, "-m", "spades_replay"]
    )
    for words, code in ((["--version"], 0), (["validate", str(BAD)], 1), (["nosuch"], 2)):
        done = subprocess.run([*start, *words], capture_output=True, text=True, check=False)
        assert done.returncode == code, done.stderr


@pytest.mark.parametrize("columns", [None, "100", "37", "0", "-5", "wide"])
def test_help_is_as_wide_as_argparse_makes_it(
    monkeypatch: pytest.MonkeyPatch, columns: str | None
) -> None:
    import shutil

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert cli.help_width() == shutil.get_terminal_size().columns - 2
    assert cli.build_parser()._get_formatter()._width == argparse.HelpFormatter("x")._width
