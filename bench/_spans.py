"""Synthetic agent-shaped traces for benchmarks: a root, a model call, a tool call, a second model call."""

from __future__ import annotations

import json

from filon.tracing.records import SpanRecord


def agent_trace(n: int, conversation: str) -> list[SpanRecord]:
    t0 = 1_700_000_000_000_000_000 + n * 10_000_000
    tid = f"{n + 1:032x}"
    user = json.dumps(
        [
            {
                "role": "user",
                "parts": [{"type": "text", "content": f"Où en est ma commande LL-10{n % 1000:03d} ?"}],
            }
        ]
    )
    answer = json.dumps(
        [
            {
                "role": "assistant",
                "parts": [
                    {"type": "text", "content": "Votre colis est en transit, livraison prévue demain."}
                ],
            }
        ]
    )
    # the date the answer's « demain » names (the turns are on 2023-11-14 UTC): a grounded answer, as most
    # are; the full rulebook's cost is then its reading, not a flag on every turn
    result = json.dumps(
        {
            "numero": "LL-10563",
            "etat": "en transit",
            "transporteur": "Colissimo",
            "date_prevue": "2023-11-15",
            "retard_jours": 0,
        }
    )
    root = SpanRecord(
        tid,
        f"{4 * n + 1:016x}",
        None,
        "invoke_agent support",
        t0,
        t0 + 9_000_000,
        attributes={
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.conversation.id": conversation,
            "gen_ai.input.messages": user,
            "gen_ai.output.messages": answer,
            "support.channel": "web",
        },
    )
    model = {
        "gen_ai.operation.name": "generate_content",
        "gen_ai.usage.input_tokens": 1800,
        "gen_ai.usage.output_tokens": 40,
        "gen_ai.conversation.id": conversation,
        "gen_ai.request.model": "m",
    }
    return [
        root,
        SpanRecord(
            tid,
            f"{4 * n + 2:016x}",
            root.span_id,
            "generate_content m",
            t0 + 1,
            t0 + 3_000_000,
            attributes=dict(model),
        ),
        SpanRecord(
            tid,
            f"{4 * n + 3:016x}",
            root.span_id,
            "execute_tool suivre_colis",
            t0 + 3_000_001,
            t0 + 4_000_000,
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "suivre_colis",
                "gen_ai.tool.call.arguments": '{"numero": "LL-10563"}',
                "gen_ai.tool.call.result": result,
            },
        ),
        SpanRecord(
            tid,
            f"{4 * n + 4:016x}",
            root.span_id,
            "generate_content m",
            t0 + 4_000_001,
            t0 + 8_000_000,
            attributes=dict(model),
        ),
    ]


def traffic(turns: int, turns_per_conversation: int = 2) -> list[SpanRecord]:
    return [r for n in range(turns) for r in agent_trace(n, f"web:bench-{n // turns_per_conversation}")]
