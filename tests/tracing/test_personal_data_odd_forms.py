"""The forms of personal data a second hostile pass found raw in the store (issue 45): written here from that
report's list, not from the patterns. Each is redacted by `Redactor.text` (what ingest stores), through a
span's attributes, and listed by `personal_data` (what lint refuses); the texts that only look like them
(a SIRET, dates with slashes, sizes on separate lines) come out unchanged. The independent oracle that
measures these forms is kept apart from tuning and scored once (its figure is in the CHANGELOG)."""

from __future__ import annotations

import pytest

from filon.tracing.personal_data import personal_data
from filon.tracing.redact import Redactor

R = Redactor(b"forms")
NBSP, NNBSP = "\u00a0", "\u202f"

# (text, the value that must not survive, in the digits or letters that identify it)
FORMS = [
    (f"Rappelez-moi au 06{NBSP}12{NBSP}34{NBSP}56{NBSP}78 svp", f"12{NBSP}34"),
    (f"Mon numéro : 06{NNBSP}12{NNBSP}34{NNBSP}56{NNBSP}78.", f"34{NNBSP}56"),
    ("joignable au (+33) 6 12 34 56 78 le soir", "6 12 34 56 78"),
    ("tel 06/12/34/56/78", "06/12/34/56/78"),
    ("mobile belge +32. 475 12 34 56", "475 12 34 56"),
    ("appelez le 06–12–34–56–78", "06–12–34–56–78"),
    ("numéro 06_12_34_56_78", "06_12_34_56_78"),
    ("numéro ０６ １２ ３４ ５６ ７８ merci", "３４ ５６ ７８"),
    ("mon numéro est le 06 12 34\n56 78, merci", "06 12 34\n56 78"),
    ("lien tel%3A%2B33612345678 dans le mail", "33612345678"),
    (f"carte 4111{NBSP}1111{NBSP}1111{NBSP}1111", f"1111{NBSP}1111{NBSP}1111"),
    ("carte 4111/1111/1111/1111", "4111/1111/1111/1111"),
    ("IBAN FR76-3000-6000-0112-3456-7890-189", "3000-6000-0112"),
    (f"IBAN FR76{NBSP}3000{NBSP}6000{NBSP}0112{NBSP}3456{NBSP}7890{NBSP}189", f"0112{NBSP}3456"),
    ("écrire à jean.dupont%40free.fr", "jean.dupont"),
    ('mail "jean dupont"@example.org', "jean dupont"),
    ("mail jean@[192.168.0.1]", "jean@"),
    ("écrivez à jean.dupont [at] free [dot] fr", "jean.dupont"),
    ("écrivez à jean.dupont arobase free point fr", "jean.dupont"),
    ("contact: jane (at) example (dot) com", "jane"),
    ("my email is jane.doe at example dot com", "jane.doe"),
    ("NIR 1 85 05 78 006 084 91", "006 084"),
    ("numéro de sécu 185057800608491", "185057800608491"),
]
KEPT = [
    "SIRET 732 829 320 00074",
    "SIRET 73282932000074",
    "Commande du 05/12/2026, livrée le 07/12/2026",
    "Tailles :\n38\n40\n42\n44",
    "Le point relais est ouvert de 9 h à 18 h.",
    "Rendez-vous at 10 am, see the dot on the map",
    "Remise 100 % / 2 articles_2026",
    "NIR 1 85 05 78 006 084 92",  # a wrong key: no NIR
]


@pytest.mark.parametrize(("text", "value"), FORMS, ids=[f[0][:30] for f in FORMS])
def test_every_form_is_redacted_and_listed(text: str, value: str) -> None:
    assert value not in R.text(text), R.text(text)
    assert value not in R.value({"k": " — ".join([text] * 3)})["k"]  # a longer attribute goes the same way
    assert personal_data(text), text


@pytest.mark.parametrize("text", KEPT, ids=[k[:30] for k in KEPT])
def test_what_only_looks_like_it_is_kept(text: str) -> None:
    assert R.text(text) == text
    assert personal_data(text) == []


def test_a_value_gets_the_same_pseudonym_whatever_its_form() -> None:
    plain = R.text("06 12 34 56 78")
    assert R.text(f"06{NBSP}12{NBSP}34{NBSP}56{NBSP}78") == plain
    assert R.text("jean.dupont%40free.fr") == R.text("jean.dupont@free.fr")


def test_the_text_around_an_unusual_form_is_kept_as_written() -> None:
    out = R.text(f"Bonjour, c'est le 06{NBSP}12{NBSP}34{NBSP}56{NBSP}78 ; à bientôt.")
    assert out.startswith("Bonjour, c'est le 33999") and out.endswith(" ; à bientôt.")
