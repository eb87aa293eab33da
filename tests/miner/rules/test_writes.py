"""What an agent did to the world, and whose records it showed, on built conversations of an airline agent
like tau-bench's (its tools, its profile lookup, its « Error: … » results): the flags that rank its
failures (`miner/rules/writes.py`, `miner/rules/security_rule.py`, the hand-over's severity)."""

from __future__ import annotations

from datetime import UTC, datetime

from filon.miner.core.model import Conversation, ToolCall, Turn
from filon.miner.rules.config import FlagConfig
from filon.miner.rules.flags import flag_conversation
from filon.miner.rules.writes import confirms, failure

NOW = datetime(2026, 12, 5, tzinfo=UTC)
AIRLINE = FlagConfig(
    write_tools=["book_reservation", "cancel_reservation", "update_reservation_*"],
    escalation_tools=["transfer_to_human_agents"],
    confirm_writes=True,
)
PROFILE = {
    "name": {"first_name": "Mia", "last_name": "Li"},
    "email": "mia.li3818@example.com",
    "reservations": ["NO6JO3", "AIXC49"],
}
RESERVATION = {"reservation_id": "NO6JO3", "user_id": "mia_li_3668", "cabin": "economy", "origin": "JFK"}
STRANGER = {"reservation_id": "XYZ123", "user_id": "omar_davis_3817", "cabin": "Business", "origin": "LAX"}


def turn(user: str, agent: str, *calls: ToolCall) -> Turn:
    return Turn(f"t{abs(hash(user)) % 10_000}", NOW, user=user, agent=agent, tools=list(calls))


def causes(*turns: Turn, cfg: FlagConfig = AIRLINE) -> list[str]:
    return sorted(f.cause for f in flag_conversation(Conversation("c", "web", list(turns)), cfg))


LOOKUP = (
    turn(
        "Hi, my user id is mia_li_3668, I want to cancel NO6JO3.",
        "Your reservation NO6JO3 is in economy from JFK. Shall I cancel it?",
        ToolCall("get_user_details", {"user_id": "mia_li_3668"}, PROFILE),
        ToolCall("get_reservation_details", {"reservation_id": "NO6JO3"}, RESERVATION),
    ),
)
CANCEL = ToolCall("cancel_reservation", {"reservation_id": "NO6JO3"}, {**RESERVATION, "status": "cancelled"})


def test_a_confirmed_write_on_what_the_agent_read_is_only_noted() -> None:
    done = turn("Yes, please go ahead.", "Done: NO6JO3 is cancelled.", CANCEL)
    assert causes(*LOOKUP, done) == ["write_made"]


def test_a_write_before_the_customer_said_yes_is_high() -> None:
    done = turn("What are my options?", "I've cancelled NO6JO3.", CANCEL)
    assert causes(*LOOKUP, done) == ["unconfirmed_write", "write_made"]
    assert causes(*LOOKUP, done, cfg=FlagConfig(write_tools=["cancel_reservation"])) == ["write_made"]


def test_a_retry_of_a_confirmed_write_that_failed_needs_no_second_yes() -> None:
    """« Yes, proceed » → « payment method not found » → « Use my gift card then »: the retry on the same
    reservation is the write the customer said yes to. A write of another record, or one whose first
    try was never confirmed, still needs its yes."""
    args = {"reservation_id": "NO6JO3", "payment_id": "credit_card_1"}
    failed = ToolCall("update_reservation_flights", args, "Error: payment method not found")
    retry = ToolCall("update_reservation_flights", {**args, "payment_id": "gift_card_2"}, RESERVATION)
    confirmed = turn("Yes, please proceed.", "That failed: payment method not found. A gift card?", failed)
    then = turn("Use my gift card gift_card_2 then.", "Done.", retry)
    assert causes(*LOOKUP, confirmed, then) == ["write_made"]
    asked = turn("What would it cost?", "That failed: payment method not found. A gift card?", failed)
    assert causes(*LOOKUP, asked, then) == ["unconfirmed_write", "write_made"]
    other = ToolCall(
        "update_reservation_flights", {"reservation_id": "AIXC49", "payment_id": "gift_card_2"}, {}
    )
    assert causes(*LOOKUP, confirmed, turn("Use my gift card gift_card_2 then.", "Done.", other)) == [
        "unconfirmed_write",
        "write_made",
    ]


def test_a_write_with_a_value_read_nowhere_is_made_up() -> None:
    made_up = ToolCall("cancel_reservation", {"reservation_id": "NO6J03"}, {"status": "cancelled"})
    done = turn("Yes, cancel it.", "Cancelled.", made_up)
    assert causes(*LOOKUP, done) == ["ungrounded_write", "write_made"]
    # a date the customer wrote in words is one they gave
    book = ToolCall("book_reservation", {"user_id": "mia_li_3668", "date": "2024-05-20"}, {"ok": True})
    said = turn("Yes, book it for May 20 please.", "Booked.", book)
    assert causes(*LOOKUP, said) == ["write_made"]


def test_the_same_record_changed_twice_is_repeated() -> None:
    flights = {"reservation_id": "NO6JO3", "cabin": "economy"}
    first = turn("Yes.", "Updated.", ToolCall("update_reservation_flights", flights, RESERVATION))
    again = turn(
        "Yes, do it.", "Updated again.", ToolCall("update_reservation_flights", flights, RESERVATION)
    )
    assert causes(*LOOKUP, first, again) == ["repeated_write", "several_writes", "write_made"]
    other = {"reservation_id": "AIXC49", "cabin": "economy"}
    elsewhere = turn(
        "Yes, that one too.", "Updated.", ToolCall("update_reservation_flights", other, RESERVATION)
    )
    assert causes(*LOOKUP, first, elsewhere) == ["several_writes", "write_made"]


def test_a_failed_write_changed_nothing() -> None:
    refused = ToolCall("cancel_reservation", {"reservation_id": "NO6JO3"}, "Error: reservation not found")
    assert failure(refused) == "Error: reservation not found"
    assert failure(ToolCall("x", {}, {"erreur": "commande introuvable"})) == "commande introuvable"
    assert failure(ToolCall("x", {}, {"error_rate": 0.1, "errors": 0, "status": "ok"})) is None
    assert causes(*LOOKUP, turn("What now?", "It could not be cancelled.", refused)) == []


def test_a_hand_over_the_customer_asked_for_is_low() -> None:
    transfer = ToolCall("transfer_to_human_agents", {"summary": "refund"}, "Transfer successful")
    asked = turn("Can I speak to a supervisor?", "", transfer)
    assert causes(asked) == ["transfer_asked"]  # and no "answered nothing": the hand-over ends the turn
    unasked = turn("My flight was delayed.", "", transfer)
    assert causes(unasked) == ["transferred"]
    by = {f.cause: f.severity for f in flag_conversation(Conversation("c", "web", [asked, unasked]), AIRLINE)}
    assert by == {"transfer_asked": "low"}  # asked once, asked for every hand-over after


def test_several_turns_without_a_call_for_an_agent_whose_tools_are_declared() -> None:
    chat = [turn(f"Question {n}?", "Please check our website.") for n in range(3)]
    assert causes(*chat) == ["no_lookup"]
    assert causes(*chat, cfg=FlagConfig()) == []  # no tool declared: some stacks record no call at all
    assert causes(*chat[:2]) == []


def test_records_the_customer_s_own_profile_lists_are_theirs() -> None:
    """The customer gave their user id; the profile looked up with it and the reservation it owns are
    theirs: repeating them is no leak, whatever the e-mail in the profile."""
    shown = turn("And the other one?", "AIXC49 is Mia Li's reservation, economy, from JFK.")
    assert causes(*LOOKUP, shown, cfg=FlagConfig(identity_required=True)) == []


def test_another_customer_s_reservation_shown_is_a_leak() -> None:
    other = turn(
        "What about XYZ123?",
        "XYZ123 is in Business from LAX.",
        ToolCall("get_reservation_details", {"reservation_id": "XYZ123"}, STRANGER),
    )
    assert "leak" in causes(*LOOKUP, other)
    plain = {**STRANGER, "cabin": "business"}  # a plain word every reservation shares names nobody
    other = turn("And XYZ123?", "It is in business.", ToolCall("get_reservation_details", {}, plain))
    assert "leak" not in causes(*LOOKUP, other)


def test_a_yes_is_told_from_a_no() -> None:
    assert confirms("Yes, please proceed with the changes.")
    assert confirms("Oui, allez-y")
    assert not confirms("No, don't do it yet, is it okay to wait?")
    assert not confirms("What would it cost?")


def test_a_gesture_refused_in_its_sentence_is_no_promise() -> None:
    asked = "My flight was delayed, I want compensation."
    assert causes(turn(asked, "Unfortunately, I cannot offer a voucher or a refund.")) == []
    assert causes(turn(asked, "Je ne peux pas vous offrir de code promo.")) == []
    assert causes(turn(asked, "No worries! Here is a voucher for 10% off.")) == ["unbacked_promise"]
    cancelled = ToolCall("cancel_reservation", {"reservation_id": "NO6JO3"}, {"status": "cancelled"})
    refund = turn("Yes, cancel it.", "Done: I will refund the $300 to your card.", cancelled)
    assert "unbacked_promise" not in causes(*LOOKUP, refund)  # the write makes the refund


def test_a_failure_the_answer_says_nothing_of() -> None:
    refused = ToolCall(
        "book_reservation", {"user_id": "mia_li_3668"}, "Error: payment amount does not add up"
    )
    booked = ToolCall("book_reservation", {"user_id": "mia_li_3668", "amount": 305}, {"reservation_id": "X1"})
    silent = turn("Yes, book it.", "Your flight is booked!", refused, booked)
    assert "failure_unsaid" in causes(*LOOKUP, silent)
    told = turn(
        "Yes, book it.", "Sorry, the first payment did not add up; with $305 it is booked.", refused, booked
    )
    assert "failure_unsaid" not in causes(*LOOKUP, told)
    french = turn(
        "Où en est LL-10999 ?",
        "Je ne trouve pas cette commande.",
        ToolCall("x", {}, {"erreur": "introuvable"}),
    )
    assert "failure_unsaid" not in causes(french)
