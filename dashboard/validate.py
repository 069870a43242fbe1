"""The Validate page: upload records and see every problem with its place and rule; open a
valid one in the Replay page. Also lists the invalid records of the loaded data."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl
import streamlit as st
from streamlit.navigation.page import StreamlitPage

from spades_replay.errors import Family, Problem
from spades_replay.replayer.validate import RecordReport

from . import headers, replay
from .data import UPLOAD_BYTES, Loaded, Upload, check_upload, not_records
from .markup import card_words, legal_text, md, plain
from .selection import game_labels
from .store import StoreView, invalid_reports
from .widgets import UPLOAD_TYPES, admit, current, open_upload

SHOWN = 20
"""How many invalid records of one upload are shown one by one (the table lists them all)."""


def page() -> StreamlitPage:
    """The page, for ``st.navigation`` and links."""
    return st.Page(render, title="Validate", icon=":material/fact_check:", url_path="validate")


def problem_md(problem: Problem) -> str:
    """One problem as Markdown: where, what, the rule, what was legal, the pointer, the code."""
    lines = []
    head = f"**{md(problem.place, 300)}**: " if problem.place else ""
    lines.append(f"{head}{md(_message(problem), 2000)}")
    if problem.rule:
        lines.append(f"rule: {md(problem.rule, 500)}")
    if problem.legal:
        lines.append(f"legal: {md(legal_text(problem.legal), 500)}")
    pointer = f"pointer {md(problem.pointer, 300)} · " if problem.pointer else ""
    lines.append(f"{pointer}code `{problem.code}`")
    return "  \n".join(lines)


def _message(problem: Problem) -> str:
    """The problem's message, its cards written as the page writes them when the engine
    wrote it (a format problem quotes the record's own text, which is left as it is)."""
    return card_words(problem.message) if problem.family is Family.RULES else problem.message


def _record(report: RecordReport) -> str:
    where = md(report.source or "input", 200)
    return where if report.line is None else f"{where}, line {report.line}"


def problem_rows(reports: Sequence[RecordReport]) -> list[dict[str, str]]:
    """Every problem of some reports as table rows (plain text)."""
    return [
        {
            "record": plain(report.source or "input", 200)
            + ("" if report.line is None else f":{report.line}"),
            "code": problem.code.value,
            "place": plain(problem.place, 300),
            "problem": plain(_message(problem), 2000),
            "rule": plain(problem.rule, 500),
            "legal": plain(legal_text(problem.legal), 500),
            "pointer": plain(problem.pointer, 300),
        }
        for report in reports
        for problem in report.problems
    ]


def _invalid(reports: Sequence[RecordReport], key: str) -> None:
    for report in reports[:SHOWN]:
        st.error(f"{_record(report)}  \n" + "  \n\n".join(map(problem_md, report.problems)))
    if len(reports) > SHOWN:
        st.caption(f"… and {len(reports) - SHOWN} more invalid record(s), all in the table.")
    with st.expander(f"Every problem as a table ({sum(len(r.problems) for r in reports)})"):
        headers.table(pl.DataFrame(problem_rows(reports)), key)


def _upload(upload: Upload, checked: Loaded) -> None:
    name = md(upload.name, 200)
    for problem in checked.problems:
        st.error(f"**{name}**: {md(problem.message, 1000)} `{problem.code}`")
    if checked.problems:
        return
    valid, invalid = len(checked.refs), len(checked.invalid)
    if not checked.records:
        st.warning(f"**{name}** holds no record.")
    elif invalid:
        st.error(f"**{name}**: {invalid} of {checked.records} record(s) invalid, {valid} valid.")
        _invalid(checked.invalid, f"problems {upload.digest}")
    else:
        st.success(f"**{name}**: {valid} record(s), all valid.")
    if not valid:
        return
    keys = [ref.key for ref in checked.refs]
    labels = dict(zip(keys, game_labels(checked.tables.games), strict=True))
    left, right = st.columns([3, 1], vertical_alignment="bottom")
    chosen = left.selectbox(
        "Valid record", keys, format_func=labels.__getitem__, key=f"pick {upload.digest}"
    )
    if right.button(
        "Open in Replay",
        key=f"open {upload.digest}",
        on_click=open_upload,
        args=(upload, chosen),
        type="primary",
    ):
        st.switch_page(replay.page())


def _reports(reports: Sequence[RecordReport], records: int, which: str, key: str) -> None:
    """The invalid records among ``records`` with their problems, and apart the files that
    are no record at all (named, never counted as invalid records)."""
    others = not_records(reports)
    skipped = {id(report) for report in others}
    invalid = [report for report in reports if id(report) not in skipped]
    records -= len(others)
    if others:
        names = ", ".join(md(report.source or "", 200) for report in others)
        st.info(f"Not records, skipped (JSON without a `format` key): {names}")
    if not invalid:
        st.success(f"All {records} record(s) {which} are valid.")
        return
    st.markdown(
        f"**{len(invalid)}** of {records} record(s) are invalid and left out of every page:"
    )
    _invalid(invalid, key)


def _store(view: StoreView) -> None:
    """The invalid records of the store shown, with every problem."""
    st.subheader("The store")
    reports = invalid_reports(view.directory, view.key) if view.invalid else ()
    _reports(reports, view.records, "of the store", "store problems")


def render() -> None:
    """Draw the page."""
    st.title("Validate")
    st.caption(
        "Records (.json), corpora (.jsonl, .ndjson), either gzipped, up to "
        f"{UPLOAD_BYTES >> 20} MiB each. They are checked in memory and never stored."
    )
    files = st.file_uploader(
        "Records to check",
        type=UPLOAD_TYPES,
        accept_multiple_files=True,
        key="upload",
        max_upload_size=UPLOAD_BYTES >> 20,
    )
    shown: dict[str, str] = {}
    for upload in admit(files, "upload", st.warning):
        if upload.digest in shown:
            st.info(
                f"**{md(upload.name, 200)}** holds the same bytes as "
                f"**{md(shown[upload.digest], 200)}**: shown once, above."
            )
            continue
        shown[upload.digest] = upload.name
        _upload(upload, check_upload(upload))
    context = current()
    if context.store is not None:
        _store(context.store)
    loaded = context.loaded
    if context.store is not None and not loaded.invalid and not loaded.problems:
        return
    st.subheader("The loaded data")
    if not loaded.invalid and not loaded.problems:
        st.success(f"All {loaded.records} record(s) loaded are valid.")
        return
    for problem in loaded.problems:
        st.error(f"{md(problem.message, 1000)} `{problem.code}`")
    _reports(loaded.invalid, loaded.records, "loaded", "loaded problems")
