"""The docs hold what they say: the fleet topology loads and routes as it must; every command and option the README and docs/ show exists; every function the architecture page names resolves."""

from __future__ import annotations

import yaml

from tests.conftest import REPO


def test_collector_config_routes_by_trace_and_samples_with_filons_flags() -> None:
    config = yaml.safe_load((REPO / "docs" / "collector.yaml").read_text())
    assert config["receivers"]["otlp"]["protocols"]["http"]
    policies = {p["name"]: p for p in config["processors"]["tail_sampling"]["policies"]}
    assert {"escalation", "errors", "rate-limit", "latency", "injection"} <= set(policies)
    assert "transferer_a_un_conseiller" in policies["escalation"]["string_attribute"]["values"]
    assert "429" in policies["rate-limit"]["string_attribute"]["values"]
    assert config["exporters"]["loadbalancing"]["routing_key"] == "traceID"
    pipeline = config["service"]["pipelines"]["traces"]
    assert "tail_sampling" in pipeline["processors"] and pipeline["exporters"] == ["loadbalancing"]


def named_commands() -> list[tuple[str, str]]:
    """(page, command line) for every `filon …` the README and docs/ show, in code spans and blocks."""
    import re

    out = []
    for page in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        code = re.findall(r"```[a-z]*\n(.*?)```", text, flags=re.S) + re.findall(r"`([^`\n]+)`", text)
        for chunk in code:
            for line in chunk.splitlines():
                found = re.search(r"(?:^|[\s/])filon\s+([a-z][^|;&>#]*)", line)
                if found:
                    out.append((page.name, found.group(1).strip()))
    return out


def unknown_in(line: str) -> list[str]:
    """What of `filon LINE` the command line does not have: a command, or an option of the command."""
    import shlex
    from typing import Any

    import typer.main

    from filon.cli import app

    try:
        words = shlex.split(line)
    except ValueError:
        words = line.split()
    command: Any = typer.main.get_command(app)
    while hasattr(command, "commands") and words and words[0] in command.commands:
        command = command.commands[words.pop(0)]
    if hasattr(command, "commands"):
        return [f"no command {words[0]!r}"] if words and not words[0].startswith("-") else []
    known = {o for p in command.params for o in (*p.opts, *p.secondary_opts)} | {"--help", "-h"}
    options = [w.split("=", 1)[0] for w in words if w.startswith("-") and not w.lstrip("-").isdigit()]
    return [f"{o} is no option of {command.name}" for o in options if o not in known]


def test_the_docs_checker_finds_a_wrong_command_or_option() -> None:
    assert unknown_in("tracez list") == ["no command 'tracez'"]
    assert unknown_in("traces list --colour red") == ["--colour is no option of list"]
    assert unknown_in("traces list --severity high --no-plot") == ["--no-plot is no option of list"]
    assert unknown_in("eval history adv-01 --no-plot") == []


def test_every_command_and_option_the_docs_show_exists() -> None:
    """What the README and docs/ tell a user to type is a command filon has, with options it takes."""
    lines = named_commands()
    assert len(lines) >= 40
    wrong = [f"{page}: filon {line}: {why}" for page, line in lines for why in unknown_in(line)]
    assert wrong == []


def test_every_function_the_architecture_page_names_exists() -> None:
    """docs/architecture.md names the function at each step: each name must resolve in the code."""
    import importlib
    import re

    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    names = sorted(set(re.findall(r"`((?:agent|tracing|miner|goldens|tui|filon)(?:\.[A-Za-z_]\w*)+)`", text)))
    assert len(names) >= 25
    missing = []
    for name in names:
        parts = name.split(".")
        for cut in range(len(parts), 0, -1):  # the longest importable module, then attributes
            try:
                obj: object = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            try:
                for attr in parts[cut:]:
                    obj = getattr(obj, attr)
            except AttributeError:
                missing.append(name)
            break
        else:
            missing.append(name)
    assert missing == []


def test_every_file_the_docs_name_exists() -> None:
    """A module moved to another room is a path the docs must follow."""
    import re

    named = set()
    for page in [REPO / "README.md", REPO / "CHANGELOG.md", *sorted((REPO / "docs").glob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        named |= set(
            re.findall(
                r"(?<![\w/])((?:goldens|tracing|miner|agent|tui|filon|tests|bench)/[\w/]+\.py)\b", text
            )
        )
    assert len(named) >= 10
    assert sorted(p for p in named if not (REPO / p).is_file()) == []
