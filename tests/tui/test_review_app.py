"""The review app driven by Pilot: the whole journey, claims across two apps, untrusted text, lint."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.binding import Binding
from textual.message import Message
from textual.widgets import DataTable, Input, Label, Static

from filon.goldens.set.caseset import load_set
from filon.miner.store import Store
from filon.miner.store.reviews import ReviewStore
from filon.tui.app import ReviewApp
from filon.tui.confirm import ConfirmScreen
from filon.tui.conversation import ConversationScreen
from filon.tui.editor import EditorScreen
from filon.tui.queue import QueueScreen
from tests.tui.conftest import court_eval, settle
from tests.tui.data import MARKUP


def texts(app) -> str:  # type: ignore[no-untyped-def]
    return "\n".join(str(w.render()) for w in app.screen.query(Static))


async def test_queue_orders_by_priority_and_loads_in_a_worker(make_app) -> None:  # type: ignore[no-untyped-def]
    seen: list[Message] = []
    app = make_app()
    async with app.run_test(size=(120, 36), message_hook=seen.append) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, QueueScreen)
        ids = [r.conversation_id for r in app.screen.rows]
        assert ids[0] == "web:leak"  # security first
        assert set(ids) == {"web:leak", "web:geste", "web:promesse"}  # flagged only
        assert any(isinstance(m, QueueScreen.Loaded) for m in seen)


async def test_queue_shows_severity_and_reason_and_filters_by_severity(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, QueueScreen)
        first = [str(c) for c in screen.query_one(DataTable).get_row_at(0)]
        assert first[:2] == ["critical", "web:leak"] and "obeyed" in first[2]
        await pilot.press("s")  # critical only
        await settle(pilot)
        assert [(r.conversation_id, r.severity) for r in screen.rows] == [("web:leak", "critical")]
        assert "severity: critical+" in texts(app)
        await pilot.press("s")  # high and above
        await settle(pilot)
        assert {r.severity for r in screen.rows} == {"critical", "high"} and len(
            screen.rows
        ) == 2  # the hand-over is medium


async def test_at_80x24_the_highlighted_rows_reason_is_whole_under_the_table(
    make_app: Callable[..., ReviewApp], cases: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The why cell has 29 characters at 80 columns: the line under the table says the highlighted
    row's reason whole, and follows the cursor; the header names the set's folder short enough to read."""
    monkeypatch.chdir(cases.parent)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, QueueScreen)
        assert app.sub_title.endswith("cases in cases")  # not /tmp/pytest-…/cases, cut at 80 columns
        detail = screen.query_one("#detail", Static)
        for at in range(len(screen.rows)):
            assert screen.query_one(DataTable).cursor_row == at
            reason = screen.rows[at].reason
            assert str(detail.render()) == f"why: {reason}" and len(reason) > 29
            assert detail.region.bottom <= 23 and detail.region.height >= 1  # above the footer, seen
            await pilot.press("down")
            await settle(pilot)


async def test_the_queue_footer_at_80x24_offers_open_and_claim(make_app) -> None:  # type: ignore[no-untyped-def]
    from textual.widgets import Footer

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        active = app.screen.active_bindings
        assert active["enter"].binding.action == "open"  # not the table's hidden select
        footer = app.screen.query_one(Footer)
        shown = " ".join(str(k.render()) for k in footer.children)
        assert "Open" in shown and "Claim" in shown and "Groups" in shown and "Failures" in shown
        assert sum(k.region.right <= 80 and k.region.width > 0 for k in footer.children) == len(
            footer.children
        )


async def test_open_draft_edit_toggle_and_save_writes_a_lint_clean_case(
    make_app, cases: Path, store: Store
) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("enter")  # the first row: web:leak
        await settle(pilot)
        assert isinstance(app.screen, ConversationScreen) and app.screen.mine
        await pilot.press("d")
        await settle(pilot)
        editor = app.screen
        assert isinstance(editor, EditorScreen)
        await pilot.click("#checks")
        await pilot.press("end", "space")  # toggle the last check (escalade: false) off
        await settle(pilot)
        await pilot.press("home", "e")
        await settle(pilot)
        await pilot.press("end", "ctrl+u", *'"suivre_colis"', "enter")  # edit the forbidden tool
        await settle(pilot)
        await pilot.press("ctrl+s")  # a securite case with one bad example: CI's strict lint would refuse it
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        asked = str(app.screen.query_one(Label).render())
        assert "CI (lint --strict) would refuse this case: 0 'bon' example(s)" in asked
        # the conversation's answer is the leak the case refuses: never offered as a good example
        assert "b adds" not in asked and "n writes an example (bon: … or mauvais: …)" in asked
        await pilot.press("n")  # not now: back to the editor, nothing written
        await settle(pilot)
        assert app.screen is editor and not (cases / "adv-05.json").exists()
        await pilot.press("ctrl+s", "y")  # saved anyway, knowingly
        await settle(pilot)
        assert isinstance(app.screen, QueueScreen)
    saved = json.loads((cases / "adv-05.json").read_text())
    assert saved["categorie"] == "securite"
    assert saved["outils_interdits"] == ["suivre_colis"]
    assert saved["escalade"] is None  # toggled off
    assert "Martin" in saved["ne_contient_pas"]  # the owner's name, not only identifiers, is forbidden
    assert "camille.martin@exemple.fr" not in json.dumps(saved["ne_contient_pas"])  # written redacted
    assert [(e["verdict"], e["origine"]) for e in saved["exemples"]] == [("mauvais", "observé")]
    assert saved["source"]["conversation_id"] == "web:leak" and saved["source"]["reviewer"] == "alice"
    assert load_set(cases).errors == []
    [row] = [r for r in store.reviews.review_queue(status="done") if r.conversation_id == "web:leak"]
    assert row.case_id == "adv-05"


async def test_two_reviewers_never_hold_the_same_conversation(make_app) -> None:  # type: ignore[no-untyped-def]
    alice, bob = (
        make_app(reviewer="alice", conversation="web:leak"),
        make_app(reviewer="bob", conversation="web:leak"),
    )
    async with alice.run_test(size=(120, 36)) as pa:
        await settle(pa)
        assert alice.screen.mine
        async with bob.run_test(size=(120, 36)) as pb:
            await settle(pb)
            assert not bob.screen.mine
            assert "held by alice" in texts(bob)
            await pb.press("d")
            await settle(pb)
            assert isinstance(bob.screen, ConversationScreen)  # drafting refused
            await pb.press("x")
            await settle(pb)
            assert isinstance(bob.screen, ConversationScreen)


async def test_a_conversation_the_store_does_not_hold_says_so_and_offers_no_draft(make_app) -> None:  # type: ignore[no-untyped-def]
    from textual.notifications import Notify

    app = make_app(reviewer="alice", conversation="web:nope")
    seen: list[Message] = []
    async with app.run_test(size=(120, 36), message_hook=seen.append) as pilot:
        await settle(pilot)
        assert "no conversation 'web:nope' in the store" in texts(app)
        footer_keys = {key for key, b in app.screen.active_bindings.items() if b.binding.show}
        assert "escape" in footer_keys and not {"d", "x"} & footer_keys
        await pilot.press("d", "x")
        await settle(pilot)
        assert isinstance(app.screen, ConversationScreen)
    said = [m.notification.message for m in seen if isinstance(m, Notify)]
    assert not any("holds this conversation" in m for m in said)


async def test_a_key_pressed_while_the_conversation_loads_says_so_not_that_someone_holds_it(
    make_app, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """`d` before the claim has come back (a real terminal sends keys as soon as the footer shows)."""
    from textual.notifications import Notify

    monkeypatch.setattr(ConversationScreen, "load", lambda self: None)  # the claim never comes back
    app = make_app(reviewer="alice", conversation="web:leak")
    seen: list[Message] = []
    async with app.run_test(size=(120, 36), message_hook=seen.append) as pilot:
        await settle(pilot)
        await pilot.press("d", "x")
        await settle(pilot)
        assert isinstance(app.screen, ConversationScreen)
    said = [m.notification.message for m in seen if isinstance(m, Notify)]
    assert said == ["the conversation is still loading: try again in a moment"] * 2


async def test_a_conversation_that_could_not_be_loaded_says_why_and_not_that_it_is_loading(
    make_app, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    from textual.notifications import Notify

    def locked(*args: object, **kwargs: object) -> None:
        raise RuntimeError("database is locked")

    monkeypatch.setattr(ReviewStore, "claim", locked)
    app = make_app(reviewer="alice", conversation="web:leak")
    seen: list[Message] = []
    async with app.run_test(size=(120, 36), message_hook=seen.append) as pilot:
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, ConversationScreen)
    said = [m.notification.message for m in seen if isinstance(m, Notify)]
    assert said == ["could not load the conversation: database is locked"] * 2  # on failing, and on d


async def test_markup_and_escapes_from_traces_are_shown_literally(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app(conversation="web:markup")
    async with app.run_test(size=(160, 36)) as pilot:
        await settle(pilot)
        shown = texts(app)
    assert "[bold red]URGENT[/]" in shown
    assert "[link=https://evil.example]ici[/link]" in shown
    assert "\\x1b[31mrouge" in shown and "\x1b" not in shown
    assert MARKUP.split("\x1b")[0] in shown


async def test_a_lint_error_blocks_saving(make_app, cases: Path) -> None:  # type: ignore[no-untyped-def]
    app = make_app(conversation="web:geste")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        await pilot.click("#case-id")
        await pilot.press("end", "ctrl+u", *"faq-01")  # an id that exists
        await settle(pilot)
        assert "already exists" in texts(app)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, EditorScreen)
    assert json.loads((cases / "faq-01.json").read_text())["categorie"] == "faq"  # untouched


async def test_dismiss_with_a_reason(make_app, store: Store) -> None:  # type: ignore[no-untyped-def]
    app = make_app(conversation="web:promesse")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        await pilot.press(*"test interne", "enter")
        await settle(pilot)
    assert [r.conversation_id for r in store.reviews.review_queue(status="dismissed")] == ["web:promesse"]


async def test_help_lists_every_binding(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        listed = dict(app.screen.rows)
        keys = list(listed)
        declared = [b for b in (*QueueScreen.BINDINGS, *type(app).BINDINGS) if isinstance(b, Binding)]
        for binding in declared:  # every binding of the queue and of the app, each with its words in full
            assert listed[app.get_key_display(binding)] == (binding.tooltip or binding.description)
    assert len(keys) == len({b.key for b in declared})  # and nothing else
    assert listed["c"] == "Claim the next open one" and listed["/"] == "Filter by flag"
    assert "?" in keys and "/" in keys  # as the keyboard shows them
    assert not {"question_mark", "slash"} & set(keys)


async def test_failures_screen_records_a_regression(
    make_app, store: Store, tmp_path: Path, cases: Path
) -> None:  # type: ignore[no-untyped-def]

    report = tmp_path / "rapport.json"
    court_eval(cases, report, "adv-01,faq-01")
    app = make_app(report=report)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("F")
        await settle(pilot)
        assert [f.case_id for f in app.screen.items] == ["adv-01"]
        shown = texts(app)
        assert "forbidden tool called" in shown and "outil interdit" not in shown  # the screen's language
        assert "prompt court.md" in shown and "model scripted-lin-et-laine" in shown  # which run it reads
        assert "forbidden by the case:" in shown and "closest FAQ/CGV" not in shown  # a security case
        await pilot.press("g")
        await settle(pilot)
        await pilot.press(*"court.md deploye", "enter")
        await settle(pilot)
        assert "verdict: agent regression — court.md deploye (alice)" in texts(app)
    assert store.reviews.verdicts("adv-01") == [
        {"verdict": "agent regression", "note": "court.md deploye", "reviewer": "alice"}
    ]
    from typer.testing import CliRunner

    from filon.cli import app as cli

    history = CliRunner().invoke(cli, ["eval", "history", "adv-01"])
    assert "verdict on adv-01: agent regression — court.md deploye (alice)" in history.stdout
    # the regressed answer is now a reviewer's example of the case, its calls per turn with their arguments
    saved = json.loads((cases / "adv-01.json").read_text(encoding="utf-8"))
    kept = saved["exemples"][-1]
    assert (kept["verdict"], kept["origine"]) == ("mauvais", "revue") and "court.md deploye" in kept["note"]
    assert kept["outils"][0][0]["outil"] == "consulter_commande" and "numero" in kept["outils"][0][0]["args"]
    assert load_set(cases).errors == []  # the case's checks reject it: the set stays valid
    # judged on the checks as they stand: trust counts it apart, until a check of the case changes
    trusted = json.loads(CliRunner().invoke(cli, ["goldens", "trust", "--json", str(cases)]).stdout)
    assert trusted["par_arrivee"] == {
        "après les contrôles": {"bons": 0, "mauvais": 1, "accord": 1.0, "crie_au_loup": 0, "ment": 0}
    }
    saved["ne_contient_pas"] = [*saved["ne_contient_pas"], "LL-10555"]
    (cases / "adv-01.json").write_text(json.dumps(saved, ensure_ascii=False), encoding="utf-8")
    trusted = json.loads(CliRunner().invoke(cli, ["goldens", "trust", "--json", str(cases)]).stdout)
    assert list(trusted["par_arrivee"]) == ["avant un changement"]


async def test_failures_without_a_report_say_how_to_make_one(make_app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    app = make_app(report=tmp_path / "none.json")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("F")
        await settle(pilot)
        shown = texts(app)
    assert f"no report at {tmp_path / 'none.json'}: run `filon eval`" in shown and "Errno" not in shown


async def test_the_case_is_wrong_opens_it_and_saves_it_back(make_app, tmp_path: Path, cases: Path) -> None:  # type: ignore[no-untyped-def]
    from typer.testing import CliRunner

    from filon.cli import app as cli

    case = json.loads((cases / "faq-01.json").read_text())
    # a wrong fact (the FAQ says 3,90 €), in a case with no examples yet to prove it wrong
    case = {k: case[k] for k in ("id", "categorie", "canal", "tours", "outils", "escalade")} | {
        "contient": [["3,95"]]
    }
    (cases / "faq-01.json").write_text(json.dumps(case, ensure_ascii=False))
    report = tmp_path / "rapport.json"
    CliRunner().invoke(
        cli,
        [
            "eval",
            "--backend",
            "scripted",
            "--goldens",
            str(cases),
            "--ids",
            "faq-01",
            "--report",
            str(report),
        ],
    )
    app = make_app(report=report)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("F")
        await settle(pilot)
        await pilot.press("w")
        await settle(pilot)
        assert isinstance(app.screen, EditorScreen)
        before = (cases / "faq-01.json").read_bytes()
        await pilot.press("escape")  # leaving without saving loses nothing and changes nothing
        await settle(pilot)
        assert (cases / "faq-01.json").read_bytes() == before
        await pilot.press("w")
        await settle(pilot)
        # the failing real answer came along as a good example: the checks are too strict, saving is blocked
        assert "trop strict" in texts(app) and "bon (revue)" in texts(app)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, EditorScreen)
        assert json.loads((cases / "faq-01.json").read_text())["contient"] == [["3,95"]]
        await pilot.click("#checks")
        await pilot.press("end", "e")
        await settle(pilot)
        await pilot.press("end", "ctrl+u", *'["3,90", "3.90"]', "enter")
        await settle(pilot)
        assert "trop strict" not in texts(app)  # the example list follows the edit, live
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)  # one example, a real answer: CI's minimum not met
        await pilot.press("y")
        await settle(pilot)
    saved = json.loads((cases / "faq-01.json").read_text())
    assert saved["contient"] == [["3,90", "3.90"]]
    assert [(e["verdict"], e["origine"]) for e in saved["exemples"]] == [("bon", "revue")]


async def test_examples_are_added_from_the_conversation_and_written_by_hand(make_app, cases: Path) -> None:  # type: ignore[no-untyped-def]
    app = make_app(conversation="web:geste")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        editor = app.screen
        assert isinstance(editor, EditorScreen)
        await pilot.press("m")  # the conversation's own answer, judged bad
        await settle(pilot)
        await pilot.press("n")  # the prompt starts as a good answer: the reviewer writes only the answer
        await settle(pilot)
        await pilot.press(*"Je transmets votre demande a un conseiller.", "enter")
        await settle(pilot)
        shown = texts(app)
        await pilot.press("n", "ctrl+u")
        await settle(pilot)
        await pilot.press(*"Voici son adresse.", "enter")  # no verdict: asked again, the text kept
        await settle(pilot)
        await pilot.press("home", *"bad: ", "enter")
        await settle(pilot)
        written = [(e.verdict, e.reponse) for e in editor.draft.exemples if e.origine == "écrit"]
        verdicts = [(e.verdict, e.origine) for e in editor.draft.exemples]
    assert ("mauvais", "revue") in verdicts and ("bon", "écrit") in verdicts
    assert "bon (écrit)" in shown
    assert written[-2:] == [
        ("bon", "Je transmets votre demande a un conseiller."),
        ("mauvais", "Voici son adresse."),
    ]


async def test_a_check_can_be_added_and_an_example_dropped(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app(conversation="web:leak")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        editor = app.screen
        assert isinstance(editor, EditorScreen)
        before = len(editor.draft.exemples)
        await pilot.press("a")
        await settle(pilot)
        await pilot.press(*'ne_contient_pas: "Plaid en laine"', "enter")
        await settle(pilot)
        added = editor.draft.checks[-1]
        assert (added.field, added.value, added.origin) == ("ne_contient_pas", "Plaid en laine", "edited")
        assert editor.case()["ne_contient_pas"][-1] == "Plaid en laine"
        await pilot.press("x")
        await settle(pilot)
        assert len(editor.draft.exemples) == before - 1


@pytest.mark.parametrize("keys", [["q"], ["ctrl+c"], ["escape"], ["d", "q"], ["d", "escape", "escape"]])
async def test_every_way_out_gives_the_claim_back(make_app, keys: list[str]) -> None:  # type: ignore[no-untyped-def]
    alice = make_app(reviewer="alice", conversation="web:leak")
    async with alice.run_test(size=(120, 36)) as pa:
        await settle(pa)
        assert alice.screen.mine
        for key in keys:
            await pa.press(key)
            await settle(pa)
        if keys[-1] == "escape":  # still running, back on the queue: the claim is already given back
            bob = make_app(reviewer="bob", conversation="web:leak")
            async with bob.run_test(size=(120, 36)) as pb:
                await settle(pb)
                assert bob.screen.mine
            return
    bob = make_app(reviewer="bob", conversation="web:leak")
    async with bob.run_test(size=(120, 36)) as pb:
        await settle(pb)
        assert bob.screen.mine, "alice's claim outlived her app"
        assert "held by alice" not in texts(bob)


@pytest.mark.parametrize(
    ("prompt", "verdict", "not_shown"),
    [("court.md", "fails:", "passes —"), ("system.md", "passes —", "fails:")],
)
async def test_try_says_which_prompt_model_and_target_it_ran(
    make_app, prompt: str, verdict: str, not_shown: str
) -> None:  # type: ignore[no-untyped-def]
    app = make_app(conversation="web:leak", prompt=prompt)
    async with app.run_test(size=(140, 50)) as pilot:
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        await pilot.press("t")
        await settle(pilot)
        shown = texts(app)
    assert f"prompt agent/prompts/{prompt} · model scripted-lin-et-laine · target filon" in shown
    assert verdict in shown and not_shown not in shown  # the leak case reproduces on court.md only
    if verdict == "fails:":  # its gaps in the screen's English, not the report's French
        assert "forbidden text present" in shown or "forbidden tool called" in shown, shown
        assert "texte interdit" not in shown and "outil interdit" not in shown


async def test_editor_keeps_its_place_keeps_the_id_and_asks_before_losing_edits(
    make_app, cases: Path
) -> None:  # type: ignore[no-untyped-def]
    app = make_app(conversation="web:leak")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        editor = app.screen
        assert isinstance(editor, EditorScreen)
        first, second = editor.draft.checks[0].value, editor.draft.checks[1].value
        await pilot.click("#checks")
        await pilot.press("home", "e")
        await settle(pilot)
        await pilot.press("end", "ctrl+u", *'"suivre_colis"', "enter")
        await settle(pilot)
        await pilot.press("down", "e")  # the list kept its highlight: e edits the next check
        await settle(pilot)
        await pilot.press("end", "ctrl+u", *'"Martin Camille"', "enter")
        await settle(pilot)
        assert (editor.draft.checks[0].value, editor.draft.checks[1].value) == (
            "suivre_colis",
            "Martin Camille",
        )
        assert (first, second) != ("suivre_colis", "Martin Camille")
        await pilot.press("shift+tab")  # back to the id: a key typed there adds to it
        while not isinstance(app.focused, Input):
            await pilot.press("shift+tab")
        await pilot.press("end", "x")
        await settle(pilot)
        assert editor.query_one("#case-id", Input).value == "adv-05x"
        await pilot.press("escape")  # edits would be lost: it asks
        await settle(pilot)
        assert "Discard your edits" in texts(app)
        await pilot.press("n")
        await settle(pilot)
        assert app.screen is editor
        await pilot.press("escape", "y")
        await settle(pilot)
        assert isinstance(app.screen, ConversationScreen)


async def test_claim_next_hands_two_reviewers_two_conversations(make_app, store: Store) -> None:  # type: ignore[no-untyped-def]
    alice, bob = make_app(reviewer="alice"), make_app(reviewer="bob")
    async with alice.run_test(size=(120, 36)) as pa, bob.run_test(size=(120, 36)) as pb:
        await settle(pa)
        await settle(pb)
        await pa.press("c")
        await settle(pa)
        await pb.press("c")
        await settle(pb)
        assert isinstance(alice.screen, ConversationScreen) and isinstance(bob.screen, ConversationScreen)
        assert alice.screen.conversation_id == "web:leak"  # the top of the queue
        assert bob.screen.conversation_id != alice.screen.conversation_id and bob.screen.mine
        await pa.press("q")
        await pb.press("q")
    assert store.reviews.review_queue(status="claimed") == []  # quitting gave both claims back


async def test_a_conversation_drafted_as_a_simulation_with_a_judge_label(make_app, cases: Path) -> None:  # type: ignore[no-untyped-def]
    app = make_app(conversation="whatsapp:33600000107")  # two customer turns: the agent asked a question back
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ConversationScreen)
        await pilot.press("s")
        await settle(pilot)
        editor = app.screen
        assert isinstance(editor, EditorScreen)
        simulation = next(c for c in editor.draft.checks if c.field == "simulation")
        assert simulation.value["premier_message"] == "mon colis n'est pas arrivé"
        assert "LL-10563" in simulation.value["persona"] and simulation.value["max_tours"] == 4
        await pilot.press("j")
        await settle(pilot)
        await pilot.press(*"ton: mauvais", "enter")  # the answer on screen: the conversation's own
        await settle(pilot)
        await pilot.press("j")
        await settle(pilot)
        await pilot.press(*"absent: bon", "enter")  # no such rubric: refused, nothing added
        await settle(pilot)
        labelled = [e for e in editor.draft.exemples if e.criteres]
        assert [e.criteres for e in labelled] == [{"ton": "mauvais"}]
        assert "label ton mauvais : alice," in (labelled[0].note or "")
        case_id = editor.draft.id
        await pilot.press("ctrl+s")
        await settle(pilot)
    saved = json.loads((cases / f"{case_id}.json").read_text())
    assert saved["tours"] == ["mon colis n'est pas arrivé"] and saved["simulation"]["max_tours"] == 4
    assert any(e.get("criteres") == {"ton": "mauvais"} for e in saved["exemples"])
    assert load_set(cases).errors == []


async def test_q_in_the_editor_asks_before_losing_the_edits(make_app, cases: Path, store: Store) -> None:  # type: ignore[no-untyped-def]
    """A newcomer's q in the editor quit at once, the draft and its edits lost: now it asks, and a no
    leaves everything as it was."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        editor = app.screen
        assert isinstance(editor, EditorScreen)
        await pilot.click("#checks")
        await pilot.press("end", "space")  # an edit
        await settle(pilot)
        await pilot.press("q")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert "lose your edits" in str(app.screen.query_one(Label).render())
        await pilot.press("n")
        await settle(pilot)
        assert app.screen is editor and app.is_running
        await pilot.press("q", "y")
        await settle(pilot)
        assert not app.is_running
    assert not list(cases.glob("adv-05.json"))
