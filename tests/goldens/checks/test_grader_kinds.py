"""Check kinds are registered where they are defined (`@check_kind`): the grader finds every one, in the
seeds' order of trust, with no list to edit; a kind added in a module of its own is graded."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from filon.goldens.checks import kinds

ROOT = Path(__file__).resolve().parents[3]


def test_the_kinds_come_in_the_seeds_order_of_trust() -> None:
    assert [k.name for k in kinds()] == [
        "outils",
        "escalade",
        "ordre",
        "actions par tour",
        "textes",
        "textes par tour",
        "état final",
        "simulation",
    ]


def test_a_kind_in_a_module_of_its_own_is_found_and_graded(tmp_path: Path) -> None:
    """Run in a fresh interpreter on a copy of the package with one more module: no other file changes."""
    import shutil
    import subprocess

    copy = tmp_path / "filon"
    shutil.copytree(ROOT / "filon", copy, symlinks=False, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "goldens" / "checks" / "politeness.py").write_text(
        textwrap.dedent(
            """
            from filon.goldens.checks.base import Cost, Gap, check_kind
            from filon.miner.core.messages import said


            @check_kind(rank=55)
            class Politeness:
                name = "politesse"
                cost = Cost.DETERMINISTIC

                def applies(self, case):
                    return True

                def grade(self, case, transcript):
                    if any("bonjour" in a.lower() for a in transcript.answers):
                        return []
                    return [Gap("texte_manquant", "politesse", said("gap.missing_text", texts="« bonjour »"))]
            """
        ),
        encoding="utf-8",
    )
    script = textwrap.dedent(
        """
        from filon.goldens.case.schema import Case
        from filon.goldens.checks import grade, kinds
        from filon.miner.core.transcript import Transcript

        names = [k.name for k in kinds()]
        assert names.index("politesse") == names.index("textes") + 1, names
        case = Case.model_validate({"id": "c", "categorie": "faq", "tours": ["?"], "contient": ["oui"]})
        print([str(g) for g in grade(case, Transcript.flat([], ["Oui."], False))])
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr[-1500:]
    assert out.stdout.strip() == "['texte manquant : « bonjour »']"


def _every_kind_registered() -> dict[str, object]:
    """The registry once every kind's module is imported: what a test that registers kinds of its own
    must put back. Taken before they are imported, it would be put back empty, and the modules, already
    imported, would never register again (every later grade on that worker found nothing)."""
    from filon.goldens.checks import grader
    from filon.goldens.checks.base import _REGISTERED

    grader.kinds()
    return dict(_REGISTERED)


def test_two_kinds_may_not_share_a_rank() -> None:
    from filon.goldens.checks.base import _REGISTERED, check_kind

    before = _every_kind_registered()
    try:

        @check_kind(rank=10)
        class Twin:
            name = "jumeau"
            cost = 0

        from filon.goldens.checks import grader

        grader.kinds.cache_clear()
        with pytest.raises(RuntimeError, match="share rank 10"):
            grader.kinds()
    finally:
        _REGISTERED.clear()
        _REGISTERED.update(before)
        from filon.goldens.checks import grader

        grader.kinds.cache_clear()
        grader._ordered.cache_clear()


def test_one_name_for_two_kinds_is_refused() -> None:
    from filon.goldens.checks.base import _REGISTERED, check_kind

    before = _every_kind_registered()
    try:
        with pytest.raises(RuntimeError, match="'outils' is registered twice"):

            @check_kind(rank=99)
            class Impostor:
                name = "outils"
                cost = 0
    finally:
        _REGISTERED.clear()
        _REGISTERED.update(before)
