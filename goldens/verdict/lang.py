"""The gate's language on the console, in JUnit and on the shared page: French by default (the seeds'
report, the case format's language), English with `FILON_LANG=en` or `--lang en`.

The report file stays the one typed log, in French, whatever the setting. What changes is how its
sentences are said: each is a code of the catalogue (`miner/core/messages.toml`) rendered in the language
asked for, and the report keeps each sentence's code beside its French (`EvalReport.codes`). Nothing is
translated by reading French back.
"""

from __future__ import annotations

from filon.miner.core.messages import LANGS as LANGS

ENV = "FILON_LANG"


class UnknownLanguage(ValueError):
    pass


def current() -> str:
    """The language asked for: `FILON_LANG` (fr, en; read by `miner.settings`), French when unset. A value
    that does not parse raises `UnknownLanguage` with the one-line message the CLI prints."""
    from filon.miner.settings import SettingsError, settings

    try:
        return settings().lang
    except SettingsError as exc:
        raise UnknownLanguage(str(exc)) from exc
