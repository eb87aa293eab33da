"""The report as JUnit XML, for a CI's test view: one test case per attempt, quality failures as
failures, infrastructure errors as errors, cases the target could not run as skipped. Text from traces
and reports is untrusted: ElementTree escapes it."""

from __future__ import annotations

from xml.etree import ElementTree as ET

from goldens.verdict.report_model import EvalReport


def junit(report: EvalReport) -> str:
    attempts = [(c, a) for c in report.cas for a in c.tentatives]
    suite = ET.Element(
        "testsuite",
        name="filon-eval",
        tests=str(len(attempts)),
        failures=str(sum(a.status == "echec" for _, a in attempts)),
        errors=str(sum(a.status == "erreur" for _, a in attempts)),
        skipped=str(sum(a.status == "non_executable" for _, a in attempts)),
    )
    for case, a in attempts:
        name = case.id if report.execution.repetitions == 1 else f"{case.id}#{a.attempt}"
        latency = sum(a.latencies_ms) / 1000
        tc = ET.SubElement(
            suite, "testcase", classname=f"goldens.{case.categorie}", name=name, time=f"{latency:.3f}"
        )
        if a.status == "echec":
            failure = ET.SubElement(tc, "failure", message="; ".join(a.gaps), type="quality")
            failure.text = "\n".join([*a.gaps, "outils : " + (", ".join(a.tools) or "-")])
        elif a.status == "erreur":
            ET.SubElement(tc, "error", message=a.error or "", type="infrastructure")
        elif a.status == "non_executable":
            ET.SubElement(tc, "skipped", message=f"non exécutable : {a.not_runnable or ''}")
        if a.notes:  # an advisory criterion's failures: seen in the CI's test view, never a failure
            ET.SubElement(tc, "system-out").text = "avis (critère consultatif) : " + "; ".join(a.notes)
    props = ET.SubElement(suite, "properties")
    ET.SubElement(props, "property", name="porte.decision", value=report.porte.decision)
    ET.SubElement(props, "property", name="porte.regle", value=report.porte.regle)
    ET.indent(suite)
    return ET.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"
