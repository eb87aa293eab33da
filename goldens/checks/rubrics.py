"""A judge's rubrics and their calibration files: `judges/NAME.md` beside the cases folder.

A rubric is versioned like code: its sha256 goes into the report, and a calibration measured on another
version of it no longer counts. A criterion gates only while its calibration file shows enough agreement
with reviewers (Cohen's kappa) on enough labels, for the judge model in use; otherwise its results are
advisory, and the report says why. The seeds: a judge is itself evaluated on answers of known verdict
before anyone trusts it.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pydantic import Field, ValidationError

from filon.goldens.case.on_disk import FrenchOnDisk
from filon.miner.core.messages import Refusal, Said, said


class RubricError(Refusal):
    """A rubric that is missing or does not parse: the message names the file and the field."""


@dataclass(frozen=True)
class Rubric:
    name: str
    path: Path
    text: str  # the body, after the front matter: what the judge reads
    threshold: int  # a score at or above it passes
    scale: int  # scores run from 1 to this
    sha256: str

    def passes(self, score: int) -> bool:
        return score >= self.threshold


def judges_dir(goldens_folder: Path) -> Path:
    """The rubrics live in `judges/`, beside the cases folder (`goldens/judges/` for `goldens/cases/`)."""
    return Path(goldens_folder).parent / "judges"


def _front_matter(path: Path, raw: str) -> tuple[dict[str, str], str]:
    if not raw.startswith("---\n"):
        raise RubricError(said("err.rubric.no_front_matter", path=str(path)))
    head, sep, body = raw[4:].partition("\n---\n")
    if not sep:
        raise RubricError(said("err.rubric.not_closed", path=str(path)))
    values: dict[str, str] = {}
    for n, line in enumerate(head.splitlines(), start=2):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, colon, value = line.partition(":")
        if not colon:
            raise RubricError(said("err.rubric.key_value", where=f"{path}:{n}", line=repr(line)))
        values[key.strip()] = value.strip()
    return values, body.strip()


def _whole(path: Path, values: dict[str, str], key: str, default: int | None) -> int:
    if key not in values:
        if default is None:
            raise RubricError(said("err.rubric.required", path=str(path), key=key))
        return default
    try:
        return int(values[key])
    except ValueError:
        raise RubricError(
            said("err.rubric.not_whole", path=str(path), key=key, value=repr(values[key]))
        ) from None


def load_rubric(folder: Path, name: str) -> Rubric:
    path = Path(folder) / f"{name}.md"
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise RubricError(said("err.rubric.missing", path=str(path), name=repr(name))) from None
    text = raw.decode("utf-8").replace("\r\n", "\n")
    values, body = _front_matter(path, text)
    unknown = sorted(set(values) - {"seuil", "echelle"})
    if unknown:
        raise RubricError(said("err.rubric.unknown_keys", path=str(path), keys=", ".join(unknown)))
    scale = _whole(path, values, "echelle", 5)
    threshold = _whole(path, values, "seuil", None)
    if scale < 2 or not 1 <= threshold <= scale:
        raise RubricError(said("err.rubric.threshold", path=str(path), threshold=threshold, scale=scale))
    if not body:
        raise RubricError(said("err.rubric.no_text", path=str(path)))
    # the text's hash, line endings normalised: a checkout with CRLF is the same rubric, still calibrated
    return Rubric(name, path, body, threshold, scale, hashlib.sha256(text.encode("utf-8")).hexdigest())


class Disagreement(FrenchOnDisk):
    """One label the judge got wrong, as the calibration file keeps it."""

    case: str = Field(alias="cas")
    example: int = Field(alias="exemple")
    expected: str = Field(alias="attendu")
    score: int
    reason: str = Field(alias="raison")


class Calibration(FrenchOnDisk):
    """The figures of `filon judge calibrate --write`, for one judge model and one version of a rubric
    (the calibration file keeps the case format's French keys)."""

    model: str = Field(alias="modele")
    rubric_sha256: str = Field(alias="rubrique_sha256")
    labels: int
    accuracy: float = Field(alias="exactitude")
    kappa: float | None
    matrix: dict[str, dict[str, int]] = Field(alias="matrice")  # reviewer's verdict → judge's → count
    stability: float = Field(alias="stabilite")  # share of labels whose repeats all agreed
    repetitions: int
    date: str
    disagreements: list[Disagreement] = Field(default_factory=list, alias="desaccords")


class CalibrationFile(FrenchOnDisk):
    critere: str
    calibrations: list[Calibration] = Field(default_factory=list)

    def for_model(self, model: str) -> Calibration | None:
        return next((c for c in self.calibrations if c.model == model), None)


def calibration_path(rubric: Rubric) -> Path:
    return rubric.path.with_name(f"{rubric.name}.calibration.json")


def read_calibration(rubric: Rubric) -> CalibrationFile:
    path = calibration_path(rubric)
    if not path.exists():
        return CalibrationFile(critere=rubric.name)
    try:
        return CalibrationFile.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, ValidationError) as exc:
        raise RubricError(
            said("err.rubric.calibration", path=str(path), why=str(exc).splitlines()[0])
        ) from exc


def write_calibration(rubric: Rubric, figures: Calibration) -> Path:
    """Replaces this model's figures in the file, keeps the other models'; written whole, then renamed."""
    current = read_calibration(rubric)
    others = [c for c in current.calibrations if c.model != figures.model]
    document = CalibrationFile(critere=rubric.name, calibrations=sorted([*others, figures], key=_model))
    path = calibration_path(rubric)
    text = json.dumps(document.model_dump(mode="json"), ensure_ascii=False, indent=2) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)
    return path


def _model(c: Calibration) -> str:
    return c.model


@dataclass(frozen=True)
class Standing:
    """Whether a criterion gates for this judge model, and why (or why not) in the report's words."""

    gates: bool
    reason: Said


def standing(rubric: Rubric, model: str, min_kappa: float, min_labels: int) -> Standing:
    try:
        figures = read_calibration(rubric).for_model(model)
    except RubricError as exc:
        return Standing(False, said("standing.unreadable", error=str(exc)))
    if figures is None:
        return Standing(False, said("standing.never_calibrated", model=model))
    if figures.rubric_sha256 != rubric.sha256:
        return Standing(False, said("standing.rubric_changed"))
    return figures_standing(figures, min_kappa, min_labels)


def figures_standing(figures: Calibration, min_kappa: float, min_labels: int) -> Standing:
    """Whether these figures let a criterion gate: enough labels, and kappa high enough."""
    if figures.labels < min_labels:
        return Standing(False, said("standing.few_labels", labels=figures.labels, needed=min_labels))
    if figures.kappa is None:
        return Standing(False, said("standing.kappa_undefined", needed=min_kappa))
    if figures.kappa < min_kappa:
        return Standing(False, said("standing.kappa_low", kappa=f"{figures.kappa:.2f}", needed=min_kappa))
    return Standing(True, said("standing.decisive", kappa=f"{figures.kappa:.2f}", labels=figures.labels))
