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
from filon.miner.core.messages import Said, said


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


def problems(case: Case) -> list[tuple[str, Said]]:
    out: list[tuple[str, Said]] = []
    forbidden = {tool_name(t) for t in case.outils_interdits if isinstance(t, str)}
    for i, tool in enumerate(case.ordre):
        if tool_name(tool) in forbidden:
            out.append((f"ordre[{i}]", said("lint.order_forbidden", tool=repr(tool_name(tool)))))
    if case.ordre_exact and not case.ordre:
        out.append(("ordre_exact", said("lint.exact_without_order")))
    if case.par_tour and case.simulation is not None:
        out.append(("par_tour", said("lint.simulation_per_turn")))
    elif len(case.par_tour) > len(case.tours):
        why = said("lint.too_many_blocks", blocks=len(case.par_tour), turns=len(case.tours))
        out.append((f"par_tour[{len(case.tours)}]", why))
    for i, tool in enumerate(case.outils_interdits):
        if not isinstance(tool, str) and tool.max is not None:
            out.append((f"outils_interdits[{i}].max", said("lint.forbidden_max")))
    known = {"commande", "email", "tel", *case.donnees}
    for where, tool in named_tools(case):
        for key, value in (tool.args or {}).items() if not isinstance(tool, str) else ():
            named = _data_name(value)
            if named is not None and named not in known:
                why = said("lint.unknown_data", name=repr(named))
                out.append((f"{where}.args.{key}", why))
    for i, example in enumerate(case.exemples):
        if example.per_turn and len(example.outils or []) != len(example.answers()):
            why = said("lint.tools_per_turn", lists=len(example.outils or []), answers=len(example.answers()))
            out.append((f"exemples[{i}].outils", why))
    return out


def _data_name(value: object) -> str | None:
    """The case data an argument's value names (`{"du_cas": NAME}`, also inside `sauf`), or None."""
    if isinstance(value, dict) and set(value) == {"sauf"}:
        return _data_name(value["sauf"])
    if isinstance(value, dict) and set(value) == {"du_cas"}:
        return str(value["du_cas"])
    return None


def warnings(case: Case) -> list[tuple[str, Said]]:
    out: list[tuple[str, Said]] = []
    if case.names_arguments() and case.exemples and not any(ex.gives_arguments() for ex in case.exemples):
        out.append(("exemples", said("lint.arguments_unproven")))
    per_turn_actions = any(b.has_action_check() for b in case.par_tour)
    if (
        per_turn_actions
        and len(case.tours) > 1
        and case.exemples
        and not any(ex.per_turn for ex in case.exemples)
    ):
        out.append(("exemples", said("lint.per_turn_unproven")))
    return out
