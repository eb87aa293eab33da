"""Reading OTLP files for `filon ingest`: `.pb` (an ExportTraceServiceRequest), `.json` (OTLP JSON),
`.jsonl` (one request per line, as the Collector's file exporter writes), each possibly gzip'd (`.gz`).
A file that is not OTLP at all is refused whole; within one that is, a span that does not decode (or a
`.jsonl` line that is not JSON) is named in `rejected` and the others are read, as `filon serve` does.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from filon.miner.core.messages import render, said
from filon.miner.core.messages import why as message
from filon.tracing.otlp_json import from_json
from filon.tracing.records import DecodeError, SpanRecord, from_protobuf


def read_otlp_file(path: Path, rejected: list[str] | None = None) -> list[SpanRecord]:
    """The file's spans; with `rejected`, the bad spans and lines are skipped and named there (strict
    without: the first one raises `DecodeError`)."""
    raw = path.read_bytes()
    name = path.name
    if name.endswith(".gz") or raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise DecodeError(said("err.decode.gzip", why=str(exc))) from exc
        name = name.removesuffix(".gz")
    if name.endswith(".pb") or name.endswith(".bin"):
        return from_protobuf(raw, rejected)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DecodeError(said("err.decode.utf8", byte=exc.start)) from exc
    if name.endswith(".jsonl"):
        out: list[SpanRecord] = []
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                spans: list[str] | None = None if rejected is None else []
                out.extend(from_json(json.loads(line), spans))
                if rejected is not None and spans:
                    rejected += [said("err.decode.at_line", line=n, why=why).render("en") for why in spans]
            except (json.JSONDecodeError, DecodeError, RecursionError) as exc:
                why = (
                    said("err.decode.json", why=exc.msg)
                    if isinstance(exc, json.JSONDecodeError)
                    else message(exc)
                )
                if rejected is None:
                    raise DecodeError(said("err.decode.at_line", line=n, why=why)) from exc
                rejected.append(said("err.decode.at_line", line=n, why=render(why, "en")[:300]).render("en"))
        return out
    if name.endswith(".json"):
        try:
            return from_json(json.loads(text), rejected)
        except RecursionError as exc:
            raise DecodeError(said("err.decode.json_too_deep")) from exc
        except json.JSONDecodeError as exc:
            raise DecodeError(
                said("err.decode.json_at", line=exc.lineno, column=exc.colno, why=exc.msg)
            ) from exc
    raise DecodeError(said("err.decode.file_type"))


def what_it_is(path: Path) -> str:
    """Why a file gave no span at all, in one line: it is empty, or it is not an OTLP trace export."""
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError):
            return "not a valid gzip file"
    if not raw.strip():
        return "an empty file: no span in it"
    try:
        data = json.loads(
            raw.decode("utf-8").splitlines()[0] if path.name.endswith((".jsonl", ".jsonl.gz")) else raw
        )
    except (UnicodeDecodeError, ValueError):
        return "no OTLP span in it (an ExportTraceServiceRequest with no resourceSpans)"
    if (
        isinstance(data, dict)
        and isinstance(data.get("data"), list)
        and data["data"]
        and "spans" in data["data"][0]
    ):
        return "a Jaeger export, not OTLP: export OTLP (the Collector's file exporter, or an OTLP exporter)"
    if isinstance(data, list) and data and isinstance(data[0], dict) and "traceId" in data[0]:
        return "a Zipkin export, not OTLP: export OTLP (the Collector's file exporter, or an OTLP exporter)"
    if isinstance(data, dict) and "resourceSpans" in data:
        return "an OTLP export with no span in it"
    return "not an OTLP trace export: no resourceSpans"
