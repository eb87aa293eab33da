"""`filon model serve`: the scripted Gemini-compatible model as a standalone HTTP server."""

from __future__ import annotations

from typing import Annotated

import typer

from filon.commands.common import Exit, console, fail, say

app = typer.Typer(help="The scripted stand-in model.", no_args_is_help=True)


@app.command("serve")
def serve(
    host: Annotated[str, typer.Option(help="Address to bind (loopback by default).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port (0 picks a free one).")] = 8765,
    seed: Annotated[int | None, typer.Option(help="Seed (or FILON_SCRIPTED_SEED).")] = None,
    latency_ms: Annotated[
        float | None, typer.Option("--latency-ms", help="Mean latency per call, ms.")
    ] = None,
    rate_429: Annotated[float | None, typer.Option("--429-rate", help="Share of calls answered 429.")] = None,
    rate_503: Annotated[float | None, typer.Option("--503-rate", help="Share of calls answered 503.")] = None,
    noise: Annotated[
        float | None, typer.Option(help="Share of decisions varied, as a real model does.")
    ] = None,
    paraphrase: Annotated[
        bool | None,
        typer.Option(
            "--paraphrase/--verbatim",
            help="Reword the FAQ/CGV and its own sentences, keeping every fact (or FILON_SCRIPTED_PARAPHRASE=1).",
        ),
    ] = None,
) -> None:
    """Serve POST /v1beta/models/{model}:generateContent until interrupted.

    Example: filon model serve --port 8765 --latency-ms 800 --429-rate 0.05
    Example: filon ask --backend scripted --model-url http://127.0.0.1:8765 Allô
    """
    from filon.agent.scripted import ScriptedModel, ScriptedSettings

    try:
        settings = ScriptedSettings.from_env(
            seed=seed,
            latency_ms=latency_ms,
            rate_429=rate_429,
            rate_503=rate_503,
            noise=noise,
            paraphrase=paraphrase,
        )
    except ValueError as exc:
        fail(exc)
    try:
        server = ScriptedModel(settings, host=host, port=port)
    except OSError as exc:  # as `filon serve` says it: the address named, the way out given
        fail(say("cli.cannot_listen", host=host, port=port, why=exc.strerror or exc), Exit.FAILED)
    figures = {"latency": settings.latency_ms, "rate_429": settings.rate_429, "rate_503": settings.rate_503}
    paraphrasing = say("cli.paraphrasing") if settings.paraphrase else ""
    console.print(
        say(
            "cli.scripted_serving",
            url=server.url,
            seed=settings.seed,
            noise=settings.noise,
            paraphrase=paraphrasing,
            **figures,
        )
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
