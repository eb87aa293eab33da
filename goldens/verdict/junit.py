"""The report as JUnit XML, for a CI's test view: one test case per attempt, quality failures as
failures, infrastructure errors as errors, cases the target could not run as skipped. Text from traces
and reports is untrusted: ElementTree escapes markup, and what XML 1.0 cannot carry at all (control
characters, an ANSI escape, a lone surrogate) is written as a visible escape (`\\x1b`), as the terminal
shows it, so that the file stays well-formed whatever an answer or a tool name held. Its messages are
said in the gate's language (`goldens.verdict.lang`: French unless FILON_LANG=en)."""

from __future__ import annotations

import re
from xml.etree import ElementTree as ET

from filon.goldens.verdict.lang import current
from filon.goldens.verdict.report_model import EvalReport
from filon.miner.core.messages import said
from filon.miner.core.untrusted import clean

_NOT_XML = re.compile("[\ud800-\udfff\ufffe\uffff]")  # what `clean` leaves that XML 1.0 still refuses


def xml_text(value: object) -> str:
    """Untrusted text as XML 1.0 can carry it: control and bidi characters made visible, the rest kept."""
    return _NOT_XML.sub(lambda m: f"\\u{ord(m.group(0)):04x}", clean(value))


def junit(report: EvalReport, lang: str | None = None) -> str:
    """The report as JUnit XML, its sentences said in `lang` (default: the gate's, `FILON_LANG`)."""
    lang = lang or current()

    def say(text: str) -> str:
        return report.say(text, lang)

    attempts = [(c, a) for c in report.cases for a in c.attempts]
    suite = ET.Element(
        "testsuite",
        name="filon-eval",
        tests=str(len(attempts)),
        failures=str(sum(a.status == "echec" for _, a in attempts)),
        errors=str(sum(a.status == "erreur" for _, a in attempts)),
        skipped=str(sum(a.status == "non_executable" for _, a in attempts)),
    )
    for case, a in attempts:
        name = xml_text(case.id if report.execution.repetitions == 1 else f"{case.id}#{a.attempt}")
        latency = sum(a.latencies_ms) / 1000
        tc = ET.SubElement(
            suite,
            "testcase",
            classname=xml_text(f"goldens.{case.category}"),
            name=name,
            time=f"{latency:.3f}",
        )
        if a.status == "echec":
            gaps = [say(g) for g in a.gaps]
            failure = ET.SubElement(tc, "failure", message=xml_text("; ".join(gaps)), type="quality")
            tools = said("junit.tools", tools=", ".join(a.tools) or "-").render(lang)
            failure.text = "\n".join(xml_text(x) for x in [*gaps, tools])
        elif a.status == "erreur":
            ET.SubElement(tc, "error", message=xml_text(say(a.error or "")), type="infrastructure")
        elif a.status == "non_executable":
            why = said("junit.not_runnable", why=say(a.not_runnable or "")).render(lang)
            ET.SubElement(tc, "skipped", message=xml_text(why))
        if a.notes:  # an advisory criterion's failures: seen in the CI's test view, never a failure
            notes = "; ".join(say(n) for n in a.notes)
            ET.SubElement(tc, "system-out").text = xml_text(said("junit.advisory", notes=notes).render(lang))
    props = ET.SubElement(suite, "properties")
    ET.SubElement(props, "property", name="porte.decision", value=report.gate.decision)
    ET.SubElement(props, "property", name="porte.regle", value=xml_text(say(report.gate.rule)))
    ET.indent(suite)
    return ET.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"
