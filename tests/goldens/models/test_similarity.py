"""`proche_de`: embeddings over google-genai (the stand-in's over loopback), blind to negation and so never
alone; lint proves each threshold against the examples with `--embeddings`."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from filon.agent.model import scripted_client
from filon.agent.scripted import ScriptedModel
from filon.cli import app
from filon.goldens.case.schema import Case
from filon.goldens.checks.grading import evaluer_cas
from filon.goldens.models.model_checks import ModelChecks
from filon.goldens.models.similarity import Embedder, cosine, passages, sentences
from filon.goldens.set.caseset import load_set

runner = CliRunner()
REFERENCE = "La livraison en France métropolitaine coûte 3,90 €, offerte dès 60 € d'achat."


def embedder(scripted: ScriptedModel) -> Embedder:
    return Embedder(scripted_client(scripted.url), "scripted-embedding", stand_in=True)


def test_paraphrases_land_close_and_other_facts_apart(scripted: ScriptedModel) -> None:
    e = embedder(scripted)
    same, paid = e.similarity(
        REFERENCE, "Pour la métropole, l'expédition est facturée 3 euros 90, gratuite à partir de 60€.", 0.6
    )
    other, _ = e.similarity(REFERENCE, "La livraison en Belgique coûte 9,90 €.", 0.6)
    assert same.passed and not other.passed and same.score > other.score
    assert e.tokens > 0 and len(e.known) == 3  # each text embedded once: the reference is remembered
    assert paid > 0 and e.similarity(REFERENCE, "La livraison en Belgique coûte 9,90 €.", 0.6)[1] == 0
    assert len(e.known) == 3


def test_sentences_split_at_their_ends_and_at_line_breaks_not_inside_figures() -> None:
    text = "Bonjour ! La livraison coûte 3.90 € (LL-10563).\nElle est offerte dès 60 €… Autre chose ?"
    assert sentences(text) == [
        "Bonjour !",
        "La livraison coûte 3.90 € (LL-10563).",
        "Elle est offerte dès 60 €…",
        "Autre chose ?",
    ]
    assert sentences("  ") == [] and sentences("Deux ans") == ["Deux ans"]


def test_passages_are_runs_as_long_as_the_reference() -> None:
    answer = "Un. Deux. Trois."
    assert passages(answer, 1) == ["Un.", "Deux.", "Trois."]
    assert passages(answer, 2) == ["Un. Deux.", "Deux. Trois."]
    assert passages(answer, 3) == [] and passages(answer, 5) == []  # the whole answer is the passage
    assert passages("Un. Deux.", 0) == ["Un.", "Deux."]


def test_what_an_answer_adds_around_the_reference_does_not_push_it_away(scripted: ScriptedModel) -> None:
    """A model that says the reference, then a second help article and an offer to help: the whole answer's
    embedding drifts from the reference; the passage that says it does not."""
    e = embedder(scripted)
    said = "Pour la métropole, l'expédition est facturée 3 euros 90, gratuite à partir de 60€."
    answer = (
        f"Bonjour et merci de votre message. {said}\nPar ailleurs, vous pouvez retourner un article dans "
        "les trente jours suivant la livraison, l'étiquette de retour est gratuite. "
        "Puis-je vous aider pour autre chose ?"
    )
    (ref, whole, alone), _ = e.embed([REFERENCE, answer, said])
    found, _ = e.similarity(REFERENCE, answer, 0.75)
    assert cosine(ref, whole) < 0.75 <= found.score  # failed on the whole answer, passes on its passage
    assert found.score == round(cosine(ref, alone), 4)
    wrong, _ = e.similarity(REFERENCE, answer.replace(said, "La livraison en Belgique coûte 9,90 €."), 0.75)
    assert not wrong.passed  # no passage says it: nothing added lifts it


def test_a_long_answer_is_embedded_in_requests_the_api_takes(scripted: ScriptedModel) -> None:
    """Every sentence is a passage: 150 of them are more texts than one `batchEmbedContents` takes (100,
    which the stand-in enforces as the API does); they go in several requests, and the score is had."""
    e = embedder(scripted)
    filler = " ".join(f"Le colis numéro {i} est parti hier." for i in range(150))
    found, _ = e.similarity(REFERENCE, f"{filler} La livraison coûte 3,90 € en France métropolitaine.", 0.3)
    assert found.score > 0.3 and len(e.known) == 153  # the reference, the answer, 151 sentences


def test_similarity_next_to_a_negation_needs_its_guard(scripted: ScriptedModel) -> None:
    case = Case.model_validate(
        {
            "id": "virement",
            "categorie": "cgv",
            "tours": ["Puis-je payer par virement ?"],
            "ne_contient_pas": ["n'est pas autorise"],
            "proche_de": {"reference": "Le paiement par virement est autorisé.", "seuil": 0.8},
        }
    )
    negated = "Le paiement par virement n'est pas autorisé."
    checks = ModelChecks(embedder=embedder(scripted))
    outcome = checks.apply(case, [negated], deterministic_passed=True)
    assert outcome.gaps == [] and outcome.similarities[0].score > 0.8  # blind: similarity lets it through…
    assert evaluer_cas(case.checks(), [], [negated], False)  # …the ne_contient_pas beside it does not


def write_case(tmp_path: Path, **fields: object) -> Path:
    folder = tmp_path / "cases"
    folder.mkdir(exist_ok=True)
    data = {
        "id": "near-01",
        "categorie": "faq",
        "tours": ["Quels sont les frais de livraison ?"],
        "outils": ["rechercher_aide"],
        "contient": [["3,90", "3.90", "3 euros 90"]],
        "proche_de": {"reference": REFERENCE, "seuil": 0.5},
        "exemples": [
            {
                "verdict": "bon",
                "reponse": "C'est 3,90 € en France métropolitaine, et offert dès 60 € d'achat.",
            },
            {"verdict": "mauvais", "reponse": "La livraison coûte 4,90 €."},
        ],
    } | fields
    (folder / "near-01.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return folder


def test_lint_refuses_proche_de_alone(tmp_path: Path) -> None:
    caseset = load_set(write_case(tmp_path, contient=[], exemples=[{"verdict": "bon", "reponse": "3,90 €."}]))
    assert any(p.field == "proche_de" and "cannot tell" in p.message for p in caseset.errors)


def test_lint_with_embeddings_proves_the_threshold(tmp_path: Path) -> None:
    folder = write_case(tmp_path)
    args = ["goldens", "lint", str(folder), "--embeddings", "--backend", "scripted"]
    ok = runner.invoke(app, args)
    assert ok.exit_code == 0 and "1 proche_de threshold(s) proven with scripted-embedding" in ok.stdout
    write_case(tmp_path, proche_de={"reference": REFERENCE, "seuil": 0.99})
    strict = runner.invoke(app, args)
    assert strict.exit_code == 1 and "exemples[0]: proche_de trop strict" in strict.stderr
    # without --embeddings the threshold is not proven, and lint says nothing of it
    assert runner.invoke(app, ["goldens", "lint", str(folder)]).exit_code == 0


def test_a_mauvais_answer_only_similarity_rejects_is_proven_with_embeddings(tmp_path: Path) -> None:
    folder = write_case(
        tmp_path,
        contient=[["France"]],
        exemples=[
            {
                "verdict": "bon",
                "reponse": "C'est 3,90 € en France métropolitaine, et offert dès 60 € d'achat.",
            },
            {"verdict": "mauvais", "reponse": "Nos bureaux sont en France.", "note": "hors sujet"},
        ],
    )
    plain = runner.invoke(app, ["goldens", "lint", str(folder)])
    assert plain.exit_code == 0 and "only proche_de can reject" in plain.stdout
    proven = runner.invoke(app, ["goldens", "lint", str(folder), "--embeddings", "--backend", "scripted"])
    assert proven.exit_code == 0, proven.output  # the similarity does reject it
    write_case(tmp_path, contient=[["France"]], proche_de={"reference": REFERENCE, "seuil": 0.01}, exemples=[
        {"verdict": "bon", "reponse": "C'est 3,90 € en France métropolitaine, et offert dès 60 € d'achat."},
        {"verdict": "mauvais", "reponse": "Nos bureaux sont en France.", "note": "hors sujet"},
    ])  # fmt: skip
    loose = runner.invoke(app, ["goldens", "lint", str(folder), "--embeddings", "--backend", "scripted"])
    assert loose.exit_code == 1 and "exemples[1]: trop lâche" in loose.stderr


def test_eval_reports_similarity_and_the_embeddings_stand_in(tmp_path: Path) -> None:
    folder = write_case(tmp_path, proche_de={"reference": REFERENCE, "seuil": 0.3})
    report = tmp_path / "r.json"
    args = ["eval", "--backend", "scripted", "--goldens", str(folder), "--report", str(report)]
    result = runner.invoke(app, args)
    doc = json.loads(report.read_text())
    attempt = doc["cas"][0]["tentatives"][0]
    assert result.exit_code == 0, result.output
    assert attempt["similarites"][0]["reussi"] is True and attempt["similarites"][0]["seuil"] == 0.3
    answer = "\n".join(attempt["reponses"])  # the reference, the answer, and its passages: each once
    texts = 2 + len(passages(answer, len(sentences(REFERENCE))))
    assert doc["embeddings"] == {"modele": "scripted-embedding", "substitut": True, "textes": texts}
    assert (
        "embeddings" in doc["cout"]["par_role"]
        and "embeddings scripted-embedding (substitut scripté)" in result.output
    )


def test_lint_names_a_missing_rubric(tmp_path: Path) -> None:
    caseset = load_set(write_case(tmp_path, juge=[{"critere": "absent"}]))
    assert any(p.field == "juge[0]" and "absent.md: no such rubric" in p.message for p in caseset.errors)
