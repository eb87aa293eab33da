"""The report's JSON on disk: written whole or not at all (a half-written report never replaces a good
one), as every file the gate writes (the JSON report, JUnit, the Markdown summary); and one run at a time
per report, so that no run prints « Rapport : x.json » while the file holds another run's verdict."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filon.miner.core.messages import Refusal, said


def write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")  # two writers never share a half file
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def written_to(path: Path, interrupted: bool) -> Path:
    """Where a run's file goes: `path`, unless the run was interrupted and `path` holds an earlier run's
    (then `NAME.interrupted.EXT` beside it: an interrupted run never replaces a whole one)."""
    if interrupted and path.exists():
        return path.with_name(f"{path.stem}.interrupted{path.suffix}")
    return path


def outputs(report: str | Path, junit: str | Path | None, interrupted: bool) -> tuple[Path, Path | None]:
    """Where a run's report and JUnit go (`written_to` each)."""
    return written_to(Path(report), interrupted), (written_to(Path(junit), interrupted) if junit else None)


class ReportBusy(Refusal):
    """Another run holds the report: its path, and the pid that holds it when known."""


@contextmanager
def report_lock(path: Path) -> Iterator[None]:
    """Hold `path` for one run: a second run given the same report stops at once (`ReportBusy`) instead
    of overwriting, or being overwritten by, the first. The lock (`flock` on `.NAME.lock` beside it) goes
    with the process, however it ends; where `fcntl` is missing, nothing is held."""
    try:
        import fcntl
    except ImportError:  # Windows: no flock; runs there share a report at their own risk
        yield
        return
    lock = path.with_name(f".{path.name}.lock")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:  # a folder that cannot be made or written: the write itself will say so, in its place
        yield
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.read(fd, 32).decode("ascii", "replace").strip()
            busy = (
                said("err.report.busy_pid", path=str(path), pid=holder)
                if holder
                else said("err.report.busy", path=str(path))
            )
            raise ReportBusy(busy) from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        yield
    finally:
        os.close(fd)
