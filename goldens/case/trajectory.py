"""Lint of a case's trajectory checks: what `filon goldens lint` (exit 1) and `filon eval` (exit 4) refuse
in arguments, order and per-turn checks, each named by its field path.

- an `ordre` that names a tool the case forbids can never pass;
- a `par_tour` block on a turn the case does not have, or on a simulation (its turns are not fixed);
- `max` in `outils_interdits` (a forbidden tool is allowed zero times);
- `{"du_cas": NAME}` naming data the case does not have (built in: commande, email, tel; else `donnees`);
- an example whose per-turn tools do not have one list per answer;
and warnings: a case whose checks name arguments but whose examples carry none (nothing proves them).
"""

from __future__ import annotations

from filon.goldens.case.schema import Case
from filon.goldens.case.tool_spec import Tool, as_group, tool_name


def named_tools(case: Case) -> list[tuple[str, Tool]]:
    """Every tool the case's checks name, with its field path."""
    out: list[tuple[str, Tool]] = []
    for i, group in enumerate(case.outils):
        out += [(f"outils[{i}]", t) for t in as_group(group)]
    out += [(f"outils_interdits[{i}]", t) for i, t in enumerate(case.outils_interdits)]
    out += [(f"ordre[{i}]", t) for i, t in enumerate(case.ordre)]
    for n, block in enumerate(case.par_tour):
        for i, group in enumerate(block.outils):
            out += [(f"par_tour[{n}].outils[{i}]", t) for t in as_group(group)]
        out += [(f"par_tour[{n}].outils_interdits[{i}]", t) for i, t in enumerate(block.outils_interdits)]
    return out


def problems(case: Case) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    forbidden = {tool_name(t) for t in case.outils_interdits if isinstance(t, str)}
    for i, tool in enumerate(case.ordre):
        if tool_name(tool) in forbidden:
            out.append(
                (f"ordre[{i}]", f"{tool_name(tool)!r} is in outils_interdits: the order can never hold")
            )
    if case.ordre_exact and not case.ordre:
        out.append(("ordre_exact", "ordre_exact without an ordre: give the sequence in ordre"))
    if case.par_tour and case.simulation is not None:
        out.append(("par_tour", "a simulation's turns are the simulated customer's: no per-turn checks"))
    elif len(case.par_tour) > len(case.tours):
        why = f"{len(case.par_tour)} blocks for a case of {len(case.tours)} turn(s)"
        out.append((f"par_tour[{len(case.tours)}]", why))
    for i, tool in enumerate(case.outils_interdits):
        if not isinstance(tool, str) and tool.max is not None:
            out.append(
                (f"outils_interdits[{i}].max", "a forbidden tool is allowed no call: max has no meaning here")
            )
    known = {"commande", "email", "tel", *case.donnees}
    for where, tool in named_tools(case):
        for key, value in (tool.args or {}).items() if not isinstance(tool, str) else ():
            named = _data_name(value)
            if named is not None and named not in known:
                why = f"du_cas {named!r} is neither commande, email, tel nor a key of the case's donnees"
                out.append((f"{where}.args.{key}", why))
    for i, example in enumerate(case.exemples):
        if example.per_turn and len(example.outils or []) != len(example.answers()):
            why = f"{len(example.outils or [])} lists of tools for {len(example.answers())} answer(s): one per turn"
            out.append((f"exemples[{i}].outils", why))
    return out


def _data_name(value: object) -> str | None:
    """The case data an argument's value names (`{"du_cas": NAME}`, also inside `sauf`), or None."""
    if isinstance(value, dict) and set(value) == {"sauf"}:
        return _data_name(value["sauf"])
    if isinstance(value, dict) and set(value) == {"du_cas"}:
        return str(value["du_cas"])
    return None


def warnings(case: Case) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    if case.names_arguments() and case.exemples and not any(ex.gives_arguments() for ex in case.exemples):
        out.append(
            ("exemples", "the checks name tool arguments but no example gives any: nothing proves them")
        )
    per_turn_actions = any(b.has_action_check() for b in case.par_tour)
    if (
        per_turn_actions
        and len(case.tours) > 1
        and case.exemples
        and not any(ex.per_turn for ex in case.exemples)
    ):
        out.append(("exemples", "par_tour checks actions but no example gives its tools turn by turn"))
    return out
