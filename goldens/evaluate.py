"""`evaluate()`: the one library call behind `filon eval`. Its result's `exit_code` is the command's.

0 passed · 1 failed (score or blocking category) · 2 usage · 3 inconclusive (infrastructure, or no
credentials) · 4 the golden set itself is invalid.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.model import MissingCredentials, open_backend
from agent.prompts import load_prompt
from goldens import report as rpt
from goldens.caseset import BLOCKING_DEFAULT, Problem, load_set
from goldens.gate import decide
from goldens.retry import RetryPolicy
from goldens.runner import Attempt, RunOptions, make_http_client, prompt_ref, run_cases
from miner.store import Store, StoreError


@dataclass
class EvalConfig:
    goldens: str | Path | None = None
    ids: list[str] | None = None
    seuil: float = 0.9
    bloquants: tuple[str, ...] = BLOCKING_DEFAULT
    repeat: int = 1
    concurrency: int = 4
    backend: str = "gemini"
    model: str | None = None
    model_url: str | None = None
    prompt: str | None = None
    report: Path = Path("var/eval-rapport.json")
    junit: Path | None = None
    baseline: Path | None = None
    max_error_rate: float = 0.1
    policy: RetryPolicy = field(default_factory=RetryPolicy)


@dataclass
class EvalResult:
    exit_code: int
    message: str = ""
    report: dict[str, Any] | None = None
    problems: list[Problem] = field(default_factory=list)
    banner: str = ""
    store_warning: str = ""

    def lines(self) -> list[str]:
        return rpt.console_lines(self.report) if self.report else []


def evaluate(
    config: EvalConfig,
    on_start: Callable[[int, str], None] | None = None,
    on_attempt: Callable[[Attempt], None] | None = None,
) -> EvalResult:
    if not 0 <= config.seuil <= 1:
        return EvalResult(2, f"--seuil: {config.seuil} is not between 0 and 1")
    if config.repeat < 1 or config.concurrency < 1:
        return EvalResult(2, "--repeat and --concurrency take a whole number of at least 1")
    caseset = load_set(config.goldens)
    if caseset.errors:
        return EvalResult(4, f"the golden set {caseset.folder} is invalid", problems=caseset.problems)
    cases = caseset.cases
    if config.ids:
        known = caseset.by_id()
        unknown = [i for i in config.ids if i not in known]
        if unknown:
            return EvalResult(2, f"--ids: unknown case id(s): {', '.join(unknown)}")
        cases = [known[i] for i in config.ids]
    try:
        prompt = load_prompt(config.prompt)
    except FileNotFoundError as exc:
        return EvalResult(2, f"--prompt: {exc}")
    baseline = None
    if config.baseline:
        try:
            baseline = json.loads(Path(config.baseline).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            return EvalResult(2, f"--baseline {config.baseline}: {exc}")
    http, transport = make_http_client(config.policy)
    try:
        with open_backend(config.backend, config.model, config.model_url, httpx_client=http) as backend:
            if on_start:
                on_start(len(cases) * config.repeat, backend.banner)
            run = run_cases(
                cases,
                backend,
                prompt,
                RunOptions(config.repeat, config.concurrency),
                transport,
                on_attempt,
            )
            model_name, banner = backend.model, backend.banner
    except MissingCredentials as exc:
        return EvalResult(3, str(exc))
    except ValueError as exc:
        return EvalResult(2, str(exc))
    finally:
        http.close()
    gate = decide(run.attempts, config.seuil, config.bloquants, config.max_error_rate)
    document = rpt.build(
        run,
        gate,
        model=model_name,
        backend=config.backend,
        prompt=prompt_ref(prompt),
        goldens=str(caseset.folder),
        repeat=config.repeat,
    )
    document["bloquants"] = list(config.bloquants)
    if baseline is not None:
        document["baseline"] = {"path": str(config.baseline), **rpt.baseline_diff(document, baseline)}
    rpt.write_atomic(Path(config.report), json.dumps(document, ensure_ascii=False, indent=2) + "\n")
    if config.junit:
        rpt.write_atomic(Path(config.junit), rpt.junit(document))
    outcome = EvalResult(gate.exit_code, gate.rule, document, caseset.warnings, banner)
    try:  # the trend across runs; the gate's decision never depends on the store
        store = Store.open()
        try:
            store.record_eval(document, str(config.report))
        finally:
            store.close()
    except StoreError as exc:
        outcome.store_warning = f"run not recorded in the store: {exc}"
    return outcome
