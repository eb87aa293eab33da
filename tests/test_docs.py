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
