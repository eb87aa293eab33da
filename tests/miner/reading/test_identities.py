"""Phone numbers and emails, against a table written by hand (not the module's own patterns): the forms
the shop's customers write, in the countries it delivers to, and look-alikes that are not phones."""

from __future__ import annotations

import pytest

from filon.miner.reading.identities import identities, phone_key, phones
from filon.tracing.redact import Redactor

SAME_FRENCH_NUMBER = [
    "06 12 34 56 78",
    "06.12.34.56.78",
    "06-12-34-56-78",
    "0612345678",
    "+33 6 12 34 56 78",
    "+33612345678",
    "+33 (0)6 12 34 56 78",
    "33612345678",
]
OTHER_PHONES = {
    "+1 (415) 555-2671": "14155552671",
    "+1 415 555 2671": "14155552671",
    "+41 79 123 45 67": "41791234567",
    "+32 470 12 34 56": "32470123456",
    "+44 20 7946 0958": "442079460958",
    "0470 12 34 56": "33470123456",  # Belgian mobile, national form (keyed as written: French by default)
    "02 123 45 67": "021234567",  # Brussels
    "071 12 34 56": "071123456",  # another Belgian area
    "079 123 45 67": "33791234567",  # Swiss mobile, national form
}
NOT_PHONES = [
    "commande LL-10587",
    "134,00 € le 02/12/2026",
    "suivi 6A10587001FR",
    "ticket T-0001",
    "référence 123456",
    "1 200 000 000 visiteurs",
    "+2 articles",
    "version 3.11.7",
]


@pytest.mark.parametrize("written", SAME_FRENCH_NUMBER)
def test_every_way_of_writing_a_french_number_is_one_identity(written: str) -> None:
    assert phones(f"Appelez-moi au {written} svp") == [written]
    assert identities(f"Appelez-moi au {written} svp") == {"33612345678"}


@pytest.mark.parametrize(("written", "key"), list(OTHER_PHONES.items()))
def test_international_and_neighbouring_national_forms_are_found(written: str, key: str) -> None:
    assert phones(f"mon numéro : {written}.") == [written]
    assert phone_key(written) == key and identities(f"tel {written}") == {key}


@pytest.mark.parametrize("text", NOT_PHONES)
def test_look_alikes_are_not_phones(text: str) -> None:
    assert phones(text) == [] and identities(text) == set()


@pytest.mark.parametrize("written", [*SAME_FRENCH_NUMBER[:6], *OTHER_PHONES])
def test_redaction_hides_every_phone_form_and_keeps_the_look_alikes(written: str) -> None:
    r = Redactor(b"key")
    redacted = r.text(f"Client {written}, commande LL-10587, 134,00 €")
    digits = "".join(ch for ch in written if ch.isdigit())
    assert digits not in "".join(ch for ch in redacted if ch.isdigit() or ch == " ").replace(" ", "")
    assert "LL-10587" in redacted and "134,00 €" in redacted
    for text in NOT_PHONES:
        assert r.text(text) == text


def test_one_person_one_pseudonym_whatever_the_form() -> None:
    r = Redactor(b"key")
    assert len({r.text(w) for w in SAME_FRENCH_NUMBER[:6]}) == 1
    assert r.text("+1 (415) 555-2671") == r.text("+1 415 555 2671")
