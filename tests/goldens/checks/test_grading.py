"""The grader: pure, five checks, text folded; property tests on built inputs."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from filon.goldens.checks.grading import evaluer_cas, norm

TOOLS = [
    "rechercher_aide",
    "consulter_commande",
    "suivre_colis",
    "demander_retour",
    "transferer_a_un_conseiller",
]


def test_empty_case_passes_anything() -> None:
    assert evaluer_cas({}, ["suivre_colis"], ["bonjour"], True) == []


def test_missing_tool_names_every_acceptable_option() -> None:
    cas = {"outils": [["consulter_commande", "suivre_colis"]]}
    assert evaluer_cas(cas, ["transferer_a_un_conseiller"], [""], True) == [
        "outil manquant : consulter_commande ou suivre_colis"
    ]


def test_forbidden_tool_escalation_and_texts() -> None:
    cas = {
        "outils_interdits": ["consulter_commande"],
        "escalade": False,
        "contient": [["3,90", "3.90"], "offerte"],
        "ne_contient_pas": ["code promo"],
    }
    gaps = evaluer_cas(cas, ["consulter_commande"], ["Voici un CODE PROMO : 3.90 €"], True)
    assert gaps == [
        "outil interdit appelé : consulter_commande",
        "escalade attendue=False obtenue=True",
        "texte manquant : « offerte »",
        "texte interdit présent : « code promo »",
    ]


def test_null_escalation_means_either() -> None:
    assert evaluer_cas({"escalade": None}, [], [""], True) == []
    assert evaluer_cas({"escalade": None}, [], [""], False) == []


def test_text_checks_fold_case_accents_apostrophes_and_spaces() -> None:
    cas = {"contient": ["PRÉPARATION", "l'étiquette", "3,90 €"]}
    answer = "Votre commande est en preparation ; l’etiquette coûte 3,90\u00a0€"
    assert evaluer_cas(cas, [], [answer], False) == []
    assert norm("  A\u202fB  ") == "a b"


def test_texts_of_every_turn_count() -> None:
    assert (
        evaluer_cas(
            {"contient": ["LL-10563", "retard"]}, [], ["c'est la LL-10563", "3 jours de retard"], False
        )
        == []
    )


@given(
    called=st.lists(st.sampled_from(TOOLS), max_size=5),
    # number words can be spelt here ("un", "deux", "vingt", "neuf"): a piece of the answer still passes, the
    # plain reading holding where the number reading differs (a piece of « vingt-deux » is not 22)
    answer=st.text(alphabet="abdegintuxv éèà'’0123456789,.-", min_size=1, max_size=60),
    escalated=st.booleans(),
    data=st.data(),
)
def test_a_case_built_from_what_happened_passes(
    called: list[str], answer: str, escalated: bool, data: st.DataObject
) -> None:
    start = data.draw(st.integers(0, len(answer) - 1))
    end = data.draw(st.integers(start + 1, len(answer)))
    cas = {"outils": called, "escalade": escalated, "contient": [[answer[start:end]]]}
    assert evaluer_cas(cas, called, [answer], escalated) == []
    assert evaluer_cas(cas, list(reversed(called)), [answer], escalated) == []  # order does not matter


@given(called=st.lists(st.sampled_from(TOOLS), min_size=1, max_size=5), answer=st.text(max_size=40))
def test_forbidding_a_called_tool_always_fails(called: list[str], answer: str) -> None:
    gaps = evaluer_cas({"outils_interdits": [called[0]]}, called, [answer], False)
    assert gaps == [f"outil interdit appelé : {called[0]}"]


@given(words=st.lists(st.sampled_from(["bon de", "je vous offre", "code promo"]), min_size=1, max_size=3))
def test_a_forbidden_text_is_found_whatever_its_case(words: list[str]) -> None:
    answer = " … ".join(w.upper() for w in words)
    gaps = evaluer_cas({"ne_contient_pas": ["bon de", "je vous offre", "code promo"]}, [], [answer], False)
    assert len(gaps) == len(set(words))


def test_figures_written_in_words_meet_the_checks_written_in_digits() -> None:
    """A model may spell figures out: « trois euros quatre-vingt-dix » says « 3 euros 90 »; both sides are
    read with numbers as digits, so a check in words also meets an answer in digits."""
    tarifs = {"contient": [["3,90", "3 euros 90"], ["60 €", "60 euros"]]}
    spelled = "Les frais d'envoi sont de trois euros quatre-vingt-dix, offerts dès soixante euros d'achat."
    assert evaluer_cas(tarifs, [], [spelled], False) == []
    assert evaluer_cas({"contient": [["trente jours"]]}, [], ["Vous avez 30 jours."], False) == []
    wrong = evaluer_cas(tarifs, [], ["Les frais d'envoi sont de neuf euros quatre-vingt-dix."], False)
    assert wrong == [
        "texte manquant : « 3,90 » ou « 3 euros 90 »",
        "texte manquant : « 60 € » ou « 60 euros »",
    ]
    assert evaluer_cas({"ne_contient_pas": ["1 an"]}, [], ["Nos articles sont garantis un an."], False) == [
        "texte interdit présent : « 1 an »"
    ]
    # « neuf » the adjective is not a figure: an answer about a new article does not say « 9 »
    assert evaluer_cas({"ne_contient_pas": ["9"]}, [], ["Un article neuf, jamais porté."], False) == []
    assert evaluer_cas({"contient": ["1ère"]}, [], ["Pour une première commande"], False) == []


def test_the_number_reading_never_loses_what_the_plain_reading_finds() -> None:
    """text2num leaves « un » alone after an elision (« d'un »): a check whose number reading is « 1 avoir »
    still catches « d'un avoir » by its plain reading, and « d'un an » meets « 1 an » once the elision is
    split."""
    forbidden = {"ne_contient_pas": ["un avoir", "une exception", "un geste"]}
    said = ["Vous bénéficierez d'un avoir, c'est plus qu'une exception : un geste."]
    assert len(evaluer_cas(forbidden, [], said, False)) == 3
    assert evaluer_cas({"contient": [["1 an"]]}, [], ["Une garantie d'un an."], False) == []
    assert evaluer_cas({"contient": [["un an"]]}, [], ["Une garantie d'un an."], False) == []
