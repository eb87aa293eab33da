"""The fleet topology in docs/ is loaded and checked for what it must hold."""

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


def test_deploy_doc_names_the_pieces() -> None:
    text = (REPO / "docs" / "deploy.md").read_text()
    for needle in ("filon serve", "PostgreSQL", "loadbalancing", "tail_sampling", "SKIP LOCKED", "db prune"):
        assert needle in text


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
