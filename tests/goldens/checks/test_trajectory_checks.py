"""The trajectory checks on built transcripts: arguments, counts, order, turns, failed tools, and a stack
that records no arguments. The grader is a pure function of a case and a transcript."""

from __future__ import annotations

from typing import Any

import pytest

from filon.goldens.case.schema import Case
from filon.goldens.checks import Gap, case_data, grade
from filon.miner.core.model import ToolCall, Turn
from filon.miner.core.transcript import Transcript

OWN, OTHER = "LL-10587", "LL-10555"


def case(**fields: Any) -> Case:
    base: dict[str, Any] = {
        "id": "t-01",
        "categorie": "retour",
        "tours": [f"Retour de {OWN}, julien.robert@exemple.fr"],
    }
    return Case.model_validate({**base, **fields})


def calls(*items: tuple[str, dict[str, Any] | None] | str, error: str | None = None) -> list[ToolCall]:
    out = []
    for item in items:
        tool, args = (item, {}) if isinstance(item, str) else item
        out.append(ToolCall.named(tool, args, error=error))
    return out


def transcript(
    *turns: list[ToolCall], answers: list[str] | None = None, from_spans: bool = True
) -> Transcript:
    said = answers or ["ok"] * len(turns)
    return Transcript(
        turns=[Turn.exchange(f"m{i}", a, c) for i, (a, c) in enumerate(zip(said, turns, strict=True))],
        from_spans=from_spans,
    )


def kinds(gaps: list[Gap]) -> list[str]:
    return [g.kind for g in gaps]


def test_arguments_subset_by_default_exact_when_asked() -> None:
    spec = {"outil": "demander_retour", "args": {"numero": OWN}}
    seen = transcript(calls(("demander_retour", {"numero": OWN, "motif": "trop petit"})))
    assert grade(case(outils=[spec]), seen) == []
    gaps = grade(case(outils=[{**spec, "mode": "exact"}]), seen)
    assert kinds(gaps) == ["arguments"] and "motif='trop petit'" in str(gaps[0])


def test_a_call_on_another_order_is_a_wrong_argument_not_a_missing_tool() -> None:
    gaps = grade(
        case(outils=[{"outil": "demander_retour", "args": {"numero": OWN}}]),
        transcript(calls(("demander_retour", {"numero": OTHER}))),
    )
    assert kinds(gaps) == ["arguments"]
    assert OTHER in str(gaps[0]) and gaps[0].check == "outils[0]"
    missing = grade(case(outils=[{"outil": "demander_retour", "args": {"numero": OWN}}]), transcript([]))
    assert kinds(missing) == ["outil_manquant"]


def test_strings_fold_and_numbers_compare_as_numbers() -> None:
    spec = {"outil": "x", "args": {"ville": "Orléans", "jours": 30}}
    assert grade(case(outils=[spec]), transcript(calls(("x", {"ville": "ORLEANS ", "jours": "30"})))) == []
    assert grade(case(outils=[spec]), transcript(calls(("x", {"ville": "orleans", "jours": 30.0})))) == []
    assert kinds(grade(case(outils=[spec]), transcript(calls(("x", {"ville": "orleans", "jours": 31}))))) == [
        "arguments"
    ]


def test_pattern_and_the_case_s_own_data() -> None:
    assert case_data(case()) == {"commande": OWN, "email": "julien.robert@exemple.fr"}
    own = {"outil": "consulter_commande", "args": {"numero": {"du_cas": "commande"}}}
    assert grade(case(outils=[own]), transcript(calls(("consulter_commande", {"numero": OWN.lower()})))) == []
    assert kinds(grade(case(outils=[own]), transcript(calls(("consulter_commande", {"numero": OTHER}))))) == [
        "arguments"
    ]
    pattern = {"outil": "demander_retour", "args": {"motif": {"motif": "taille|petit"}}}
    assert (
        grade(case(outils=[pattern]), transcript(calls(("demander_retour", {"motif": "Trop PETIT"})))) == []
    )
    assert kinds(
        grade(case(outils=[pattern]), transcript(calls(("demander_retour", {"motif": "couleur"}))))
    ) == ["arguments"]


def test_the_case_s_data_falls_back_to_its_fixtures() -> None:
    fixtures = {"clients": [{"id": 9, "email": "a.b@exemple.fr"}], "commandes": [{"numero": "LL-19001"}]}
    assert case_data(case(tours=["Bonjour"], fixtures=fixtures)) == {
        "commande": "LL-19001",
        "email": "a.b@exemple.fr",
    }


def test_max_counts_the_matching_calls() -> None:
    spec = {"outil": "suivre_colis", "max": 1}
    assert grade(case(outils=[spec]), transcript(calls("suivre_colis"))) == []
    gaps = grade(case(outils=[spec]), transcript(calls("suivre_colis", "suivre_colis")))
    assert kinds(gaps) == ["appels_en_trop"] and "2 fois" in str(gaps[0])


def test_a_forbidden_call_by_its_arguments_leaves_the_tool_itself_allowed() -> None:
    forbid = case(outils_interdits=[{"outil": "consulter_commande", "args": {"numero": OTHER}}])
    assert grade(forbid, transcript(calls(("consulter_commande", {"numero": OWN})))) == []
    gaps = grade(forbid, transcript(calls(("consulter_commande", {"numero": OTHER}))))
    assert kinds(gaps) == ["outil_interdit"] and OTHER in str(gaps[0])


def test_order_missing_and_wrong_order_are_different_gaps() -> None:
    ordered = case(ordre=["consulter_commande", "demander_retour"])
    assert grade(ordered, transcript(calls("consulter_commande", "rechercher_aide", "demander_retour"))) == []
    wrong = grade(ordered, transcript(calls("demander_retour", "consulter_commande")))
    assert kinds(wrong) == ["ordre"] and "demander_retour attendu après consulter_commande" in str(wrong[0])
    missing = grade(ordered, transcript(calls("demander_retour")))
    assert kinds(missing) == ["outil_manquant"] and missing[0].check == "ordre[0]"


def test_order_across_turns_and_exact_sequence() -> None:
    ordered = case(tours=["a", "b"], ordre=["consulter_commande", "suivre_colis"])
    assert grade(ordered, transcript(calls("consulter_commande"), calls("suivre_colis"))) == []
    assert kinds(grade(ordered, transcript(calls("suivre_colis"), calls("consulter_commande")))) == ["ordre"]
    exact = case(ordre=["consulter_commande", "suivre_colis"], ordre_exact=True)
    assert grade(exact, transcript(calls("consulter_commande", "suivre_colis"))) == []
    gaps = grade(exact, transcript(calls("consulter_commande", "rechercher_aide", "suivre_colis")))
    assert kinds(gaps) == ["ordre"] and "obtenue : consulter_commande, rechercher_aide, suivre_colis" in str(
        gaps[0]
    )


def test_per_turn_checks_read_their_own_turn() -> None:
    two = case(
        tours=["Où en est ma commande ?", f"C'est la {OWN}, julien.robert@exemple.fr"],
        par_tour=[
            {"outils_interdits": ["consulter_commande"], "contient": [["numéro", "numero"]]},
            {"outils": [{"outil": "consulter_commande", "args": {"numero": {"du_cas": "commande"}}}]},
        ],
    )
    good = transcript(
        [], calls(("consulter_commande", {"numero": OWN})), answers=["Quel est le numéro ?", "Expédiée."]
    )
    assert grade(two, good) == []
    early = transcript(
        calls(("consulter_commande", {"numero": OWN})), [], answers=["Quel numéro ?", "Expédiée."]
    )
    gaps = grade(two, early)
    assert sorted(kinds(gaps)) == ["outil_interdit", "outil_manquant"]
    assert {g.turn for g in gaps} == {1, 2} and str(gaps[0]).startswith("tour ")
    assert "par_tour[0].outils_interdits[0]" in {g.check for g in gaps}


def test_per_turn_texts_see_only_that_turn() -> None:
    two = case(tours=["a", "b"], par_tour=[{}, {"contient": ["introuvable"]}])
    assert grade(two, transcript([], [], answers=["introuvable", "voici"])) != []
    assert grade(two, transcript([], [], answers=["voici", "introuvable"])) == []


def test_a_failed_tool_is_visible_to_the_checks() -> None:
    admitted = case(
        outils=["consulter_commande"],
        par_tour=[{"contient": [["introuvable", "ne trouve pas"]], "ne_contient_pas": ["expédiée"]}],
    )
    failed = calls(("consulter_commande", {"numero": "LL-99999"}), error="commande introuvable")
    assert failed[0].failed
    assert grade(admitted, transcript(failed, answers=["Je ne trouve pas cette commande."])) == []
    assert kinds(grade(admitted, transcript(failed, answers=["Elle est expédiée."]))) == [
        "texte_manquant",
        "texte_interdit",
    ]


def test_arguments_not_recorded_cannot_decide_a_replay_but_an_example_is_read_by_name() -> None:
    spec = case(outils=[{"outil": "demander_retour", "args": {"numero": OWN}}])
    unknown = [ToolCall.named("demander_retour", None)]
    gaps = grade(spec, transcript(unknown))
    assert kinds(gaps) == ["infrastructure"] and gaps[0].infrastructure
    assert grade(spec, transcript(unknown, from_spans=False)) == []


def test_a_plain_string_keeps_the_seeds_meaning() -> None:
    plain = case(
        outils=[["suivre_colis", "consulter_commande"]], outils_interdits=["demander_retour"], escalade=False
    )
    assert grade(plain, transcript(calls("consulter_commande"))) == []
    gaps = grade(plain, transcript(calls("demander_retour")))
    assert [str(g) for g in gaps] == [
        "outil manquant : suivre_colis ou consulter_commande",
        "outil interdit appelé : demander_retour",
    ]


def test_costlier_kinds_wait_for_the_cheaper_ones() -> None:
    stated = case(outils=["demander_retour"], etat_final={"retours": [{"commande": OWN}]})
    seen = transcript([])
    seen.final_state = {"retours": []}
    assert kinds(grade(stated, seen)) == ["outil_manquant"]  # the shop is not read once an action failed
    seen = transcript(calls("demander_retour"))
    seen.final_state = {"retours": []}
    assert kinds(grade(stated, seen)) == ["etat_final"]


@pytest.mark.parametrize(
    ("fields", "needle"),
    [
        ({"outils": [{"outil": "x", "mode": "presque"}]}, "mode"),
        ({"outils": [{"outil": "x", "args": {"n": {"motif": "("}}}]}, "not a regular expression"),
        (
            {"outils": [{"outil": "x", "args": {"n": {"du_cas": "l'adresse"}}}]},
            "is not commande, email, tel or a",
        ),
        ({"outils": [{"outil": "x", "max": 0}]}, "max"),
    ],
)
def test_the_format_refuses_what_cannot_be_checked(fields: dict[str, Any], needle: str) -> None:
    with pytest.raises(ValueError, match=needle):
        case(**fields)


def test_anything_but_the_case_s_own_order() -> None:
    others = case(
        outils_interdits=[
            {"outil": "consulter_commande", "args": {"numero": {"sauf": {"du_cas": "commande"}}}}
        ]
    )
    assert grade(others, transcript(calls(("consulter_commande", {"numero": OWN})))) == []
    gaps = grade(
        others,
        transcript(calls(("consulter_commande", {"numero": OWN}), ("consulter_commande", {"numero": OTHER}))),
    )
    assert kinds(gaps) == ["outil_interdit"] and "≠<commande du cas>" in str(gaps[0])


def test_a_simulated_customer_s_data_is_in_its_persona() -> None:
    simulated = case(
        tours=["mon colis n'est pas arrivé"],
        simulation={
            "persona": "Un client. Il a donné au fil de la conversation : la commande LL-10563.",
            "objectif": "Savoir où est son colis",
            "premier_message": "mon colis n'est pas arrivé",
        },
    )
    assert case_data(simulated) == {"commande": "LL-10563"}
