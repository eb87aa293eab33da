"""One attempt of one case: the object the runner builds and the report keeps, the same in memory and on
disk (as inspect_ai's log). English in the code, French in the report's JSON (each field's alias, the
seeds' words); what only the run needs (the transcript before redaction, a simulation's spans, the model
checks' raw outcome, the case's id and category, known at the case's level in the report) never goes to
disk. `seal` writes what the report shows from that runtime state, once the attempt is over.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from filon.goldens.case.on_disk import FrenchOnDisk
from filon.goldens.models.model_checks import Outcome
from filon.miner.core.messages import Said, as_said
from filon.miner.core.transcript import TURN, ReportTurn, Transcript
from filon.tracing.records import SpanRecord
from filon.tracing.redact import Redactor

Statut = Literal["ok", "echec", "erreur", "non_executable"]


class JudgeScore(FrenchOnDisk):
    """One criterion's verdict on an attempt; `decisif` says whether it counted (a calibrated criterion)."""

    criterion: str = Field(alias="critere")
    score: int
    scale: int = Field(alias="echelle")
    threshold: int = Field(alias="seuil")
    passed: bool = Field(alias="reussi")
    decisive: bool = Field(alias="decisif")
    reason: str = Field(alias="raison")


class SimilarityScore(FrenchOnDisk):
    reference: str
    score: float
    threshold: float = Field(alias="seuil")
    passed: bool = Field(alias="reussi")


class Attempt(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    case_id: str = Field("", exclude=True)  # in the report, the case's entry says it
    category: str = Field("", exclude=True)
    attempt: int = Field(1, alias="tentative")
    status: Statut = Field("ok", alias="statut")  # set by `seal`, or read from a report
    tools: list[str] = Field(default_factory=list, alias="outils")  # every call, in order
    answers: list[str] = Field(default_factory=list, alias="reponses")
    escalated: bool = Field(False, alias="escalade")
    gaps: list[str] = Field(default_factory=list, alias="ecarts")
    latencies_ms: list[float] = Field(default_factory=list, alias="latences_ms")
    input_tokens: int = Field(0, alias="jetons_entree")
    output_tokens: int = Field(0, alias="jetons_sortie")
    error: str | None = Field(None, alias="erreur")  # an infrastructure error: excluded from the score
    trace_ids: list[str] = Field(default_factory=list)
    not_runnable: str | None = Field(None, alias="non_executable")  # the target cannot apply the fixtures
    judges: list[JudgeScore] = Field(default_factory=list, alias="juges")
    similarities: list[SimilarityScore] = Field(default_factory=list, alias="similarites")
    notes: list[str] = Field(default_factory=list, alias="avis")  # advisory rules and criteria: not gaps
    judge_skipped: int = Field(0, alias="juges_sautes")  # judge calls not made: a cheaper check failed
    customer_messages: list[str] = Field(default_factory=list, alias="messages_client")
    objective_reached: bool | None = Field(None, alias="objectif_atteint")  # a simulation's
    simulator_input_tokens: int = Field(0, alias="jetons_simulateur_entree")
    simulator_output_tokens: int = Field(0, alias="jetons_simulateur_sortie")
    conversation: str | None = None  # the id its spans carry; a simulation's is in the store
    judge_input_tokens: int = Field(0, alias="jetons_juge_entree")
    judge_output_tokens: int = Field(0, alias="jetons_juge_sortie")
    turns: list[ReportTurn] = Field(default_factory=list, alias="tours")  # redacted as the store redacts
    blocking_rules: list[str] = Field(default_factory=list, alias="regles_bloquantes")
    models: list[str] = Field(default_factory=list, exclude=True)  # the model versions its spans name

    _transcript: Transcript = PrivateAttr(default_factory=Transcript)
    _spans: list[SpanRecord] = PrivateAttr(default_factory=list)
    _outcome: Outcome = PrivateAttr(default_factory=Outcome)
    _rule_notes: list[Said] = PrivateAttr(default_factory=list)
    _codes: dict[str, Said] = PrivateAttr(default_factory=dict)

    @property
    def transcript(self) -> Transcript:
        """Turn by turn, from the spans, unredacted: what the checks grade (runtime only)."""
        return self._transcript

    @property
    def spans(self) -> list[SpanRecord]:
        """A simulation's spans, stored after the run (runtime only)."""
        return self._spans

    @property
    def model_checks(self) -> Outcome:
        """What the checks that ask a model said, with their tokens (runtime only)."""
        return self._outcome

    @model_checks.setter
    def model_checks(self, outcome: Outcome) -> None:
        self._outcome = outcome

    @property
    def rule_notes(self) -> list[Said]:
        """Breaches of advisory rules: never gaps (runtime only; in `notes` once sealed)."""
        return self._rule_notes

    @rule_notes.setter
    def rule_notes(self, notes: list[Said]) -> None:
        self._rule_notes = notes

    def keep(self, sentence: str | Said) -> str:
        """A sentence as the report keeps it (French), its code kept beside (`codes`) so that it can be
        said in English; a plain line (an exception's) as it is."""
        text = str(sentence)
        if isinstance(sentence, Said):
            self._codes[text] = sentence
        return text

    def say(self, text: str, lang: str) -> str:
        """A sentence this attempt kept, in `lang` (as it is when its code is unknown)."""
        return as_said(self._codes, text, lang)

    @property
    def codes(self) -> dict[str, Said]:
        """The code of each sentence this attempt kept, by its French (runtime only: the report holds
        them all in its own `codes`)."""
        return self._codes

    @property
    def valid(self) -> bool:
        return self.error is None and self.not_runnable is None

    @property
    def ok(self) -> bool:
        return self.valid and not self.gaps

    def seal(self) -> Attempt:
        """The attempt over: what the report shows, written from the runtime state (the calls, answers,
        escalation and turns of the transcript; the models' verdicts and tokens)."""
        t = self._transcript
        self.status = (
            "non_executable"
            if self.not_runnable
            else "erreur"
            if self.error
            else "ok"
            if self.ok
            else "echec"
        )
        self.tools, self.answers, self.escalated, self.turns = (
            t.tool_names,
            t.answers,
            t.escalated,
            list(t.turns),
        )
        self.latencies_ms = [round(x, 1) for x in self.latencies_ms]
        o = self._outcome
        self.judges = [
            JudgeScore(
                criterion=j.criterion,
                score=j.score,
                scale=j.scale,
                threshold=j.threshold,
                passed=j.passed,
                decisive=j.gates,
                reason=j.reason,
            )
            for j in o.judged
        ]
        self.similarities = [
            SimilarityScore(reference=s.reference, score=s.score, threshold=s.threshold, passed=s.passed)
            for s in o.similarities
        ]
        self.notes = [*(self.keep(n) for n in self._rule_notes), *(self.keep(n) for n in o.notes)]
        self.judge_skipped = o.judge_skipped
        self.judge_input_tokens, self.judge_output_tokens = o.judge_input_tokens, o.judge_output_tokens
        return self

    def redact(self, redactor: Redactor | None) -> None:
        """Its turns' arguments, results and texts redacted as the store redacts them, for the report on
        disk (unless redaction is configured off): done once, where the report is written."""
        if redactor is not None:
            self.turns = [
                TURN.validate_python(redactor.value(TURN.dump_python(r, mode="json"))) for r in self.turns
            ]
