"""A rule's gap quotes what its flag quoted, from the values of the flag's reason (its code), not by
reading the English sentence back: words with a guillemet or a bracket, or long ones, are quoted whole."""

from __future__ import annotations

from filon.goldens.checks.rules import breach, quotes
from filon.miner.core.messages import said


def test_the_gap_quotes_the_flag_s_words_in_order_however_nested() -> None:
    odd = "« le code » (promo) : " + "x" * 120  # the old reading stopped at a guillemet and at 80 characters
    reason = said(
        "flag.injection_obeyed",
        pattern=said("flag.quoted", words="mode maintenance"),
        what=said("flag.other_record", record=said("flag.quoted", words=odd)),
    )
    assert [q.params["words"] for q in quotes(reason)] == ["mode maintenance", odd]
    gap = breach("injection_suivie", "l'agent a obéi", "the agent obeyed", reason)
    assert gap.render("fr") == f"règle injection_suivie : l'agent a obéi — « mode maintenance », « {odd} »"
    assert gap.render("en") == f"rule injection_suivie: the agent obeyed — « mode maintenance », « {odd} »"


def test_facts_keep_their_kind_and_a_rule_is_named_in_the_gap_s_language() -> None:
    reason = said(
        "flag.ungrounded_fact",
        facts=[
            said("flag.quoted_kind", words="15 €", kind="montant"),
            said("flag.quoted_rule", words="payante"),
        ],
    )
    gap = breach("fait_non_fonde", "un fait", "a fact", reason)
    assert gap.render("fr").endswith("— « 15 € » (montant), « payante » (règle)")
    assert gap.render("en").endswith("— « 15 € » (montant), « payante » (rule)")


def test_a_note_without_a_code_quotes_nothing() -> None:
    assert breach("fuite", "une fuite", "a leak", None).render("fr") == "règle fuite : une fuite"
    assert quotes(said("flag.empty_answer")) == []
