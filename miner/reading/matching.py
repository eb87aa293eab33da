"""Configured word patterns matched on folded text, as the flag rules match them (injections, promises):
one compiled alternation (a trie of the words) per set of patterns, cached."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from filon.miner.reading.identities import phone_key
from filon.miner.reading.text import fold


def phone_or_text(value: str) -> str:
    return phone_key(value) or value


def _trie(words: list[str]) -> str:
    """A regex for a set of literal words, factored by common prefixes: at each position of the text the
    engine follows one branch per character instead of trying every word (about a third faster on
    twenty phrases). Matches only whole words of the set, leftmost first, like the plain alternation."""
    root: dict[str, dict] = {}  # type: ignore[type-arg]
    for word in words:
        node = root
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict[str, dict]) -> str:  # type: ignore[type-arg]
        branches = [re.escape(ch) + build(sub) for ch, sub in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else f"(?:{'|'.join(branches)})"
        return f"(?:{body})?" if "" in node else body

    return build(root)


def alternatives(source: str) -> list[str]:
    """A pattern's top-level alternatives: its `|` outside any group and any class, split."""
    out: list[str] = []
    start = depth = 0
    i, in_class = 0, False
    while i < len(source):
        c = source[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            i += 2 if source.startswith("^]", i + 1) else 1 if source.startswith("]", i + 1) else 0
        elif c in "()":
            depth += 1 if c == "(" else -1
        elif c == "|" and depth == 0:
            out.append(source[start:i])
            start = i + 1
        i += 1
    return [*out, source[start:]]


def by_first_letter(sources: Iterable[str]) -> str:
    """One alternation of these patterns' alternatives, grouped by their first letter (`gratuit\\w*|garanti`
    as `g(?:ratuit\\w*|aranti)`): where a word begins, the engine tests each first letter once instead of
    trying each alternative (with the policy rules' and the subjects', 8 % fewer flag-rule instructions
    on the agent's spans, callgrind side by side, 2026-12-08). It matches what the plain alternation
    matches, where and as far: alternatives of two first letters never match at one position, and the
    order within a letter is kept. Only when every alternative begins with a letter of its own (no
    quantifier on it) and none captures; otherwise the plain alternation, as written."""
    alts = [a for source in sources for a in alternatives(source)]
    groups: dict[str, list[str]] = {}
    for alt in alts:
        if not (alt[:1].isalpha() and alt[1:2] not in ("?", "*", "+", "{")) or re.compile(alt).groups:
            return "|".join(alts)
        groups.setdefault(alt[0], []).append(alt[1:])
    return "|".join(k + (f"(?:{'|'.join(rest)})" if len(rest) > 1 else rest[0]) for k, rest in groups.items())


def any_of(words: list[str] | tuple[str, ...]) -> re.Pattern[str]:
    """One compiled regex that finds any of these literal words (`_trie`): what a set of phrases is
    searched for before each is read where it is."""
    return re.compile(_trie(list(dict.fromkeys(words))))


@lru_cache(maxsize=64)
def _matcher(patterns: tuple[str, ...]) -> tuple[re.Pattern[str], dict[str, str]]:
    """One regex for a list of patterns, on folded text; and each folded pattern's original spelling."""
    originals: dict[str, str] = {}
    for p in patterns:
        originals.setdefault(fold(p), p)
    words = list(originals)
    if max(map(len, words), default=0) > 200:  # the trie is built by recursion, one level per character
        return re.compile("|".join(map(re.escape, words))), originals
    return re.compile(_trie(words)), originals


def has(text: str, patterns: list[str] | tuple[str, ...], folded: str | None = None) -> str | None:
    """The pattern (as configured) found in the text, both folded (`folded`: the text folded already);
    the earliest in the text wins."""
    if not text or not patterns:
        return None
    regex, originals = _matcher(tuple(patterns))
    found = regex.search(fold(text) if folded is None else folded)
    return originals[found.group()] if found else None
