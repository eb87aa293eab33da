"""The gate's language on the console and in JUnit: French by default (the seeds' report, the case
format's language), English with `FILON_LANG=en` or `filon eval --lang en`.

The report file stays the one typed log, in French, whatever the setting: what changes is how its
sentences are said. They are said in English by one catalog of the report's own sentence shapes (every
fixed phrase the gate, the checks, the rulebook and the console write), each a pattern whose variable
parts (case ids, tool names, figures, the texts a check quotes) are carried over as they are. A sentence
the catalog does not know is said as written; the catalog is tested against the message shapes the
checks produce (`tests/goldens/verdict/test_lang.py`).
"""

from __future__ import annotations

import re

LANGS = ("fr", "en")
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


# French sentence shapes → English, applied in this order (longer shapes before the phrases they hold).
# Each variable part is a bounded token (`\S+`, digits) or is left in place between two fixed phrases
# translated apart: no pattern scans an unbounded span, so a long model-written argument costs linear time.
_CATALOG: list[tuple[str, str]] = [
    # the gate's rules
    (
        r"run interrompu \(ctrl-C\) après (\S+) tentatives : aucune décision",
        r"run interrupted (ctrl-C) after \1 attempts: no decision",
    ),
    (
        r"catégorie bloquante en échec, quel que soit le score : ",
        "blocking category failed, whatever the score: ",
    ),
    (r"règle bloquante enfreinte, quel que soit le score : ", "blocking rule broken, whatever the score: "),
    (
        r"budget de (\S+) \$ : (\d+) tentative\(s\) non lancée\(s\) pour ne pas le dépasser \((\S+) \$ dépensés\), "
        r"rien à décider sur un run partiel",
        r"budget of \1 $: \2 attempt(s) not started so as not to exceed it (\3 $ spent), nothing to decide on a partial run",
    ),
    (
        r"aucun cas exécutable par cette cible : rien à décider",
        "no case this target can run: nothing to decide",
    ),
    (
        r"erreurs d'infrastructure (\S+) \((\S+)\) au-delà du budget de (\S+) : rien à décider avant d'en corriger "
        r"la cause \(le rapport la dit pour chaque cas\)",
        r"infrastructure errors \1 (\2) beyond the budget of \3: nothing to decide until their cause is fixed "
        r"(the report says it for each case)",
    ),
    (r"score (\S+) sous le seuil (\S+)", r"score \1 under the threshold \2"),
    (
        r"score (\S+) au-dessus du seuil (\S+), aucune catégorie bloquante en échec",
        r"score \1 above the threshold \2, no blocking category failed",
    ),
    # one attempt read back (`filon eval show`)
    (r"^(\S+) \((\S+)\) · tentative (\d+)/(\d+) · echec$", r"\1 (\2) · attempt \3/\4 · failed"),
    (r"^(\S+) \((\S+)\) · tentative (\d+)/(\d+) · ok$", r"\1 (\2) · attempt \3/\4 · passed"),
    (r"^(\S+) \((\S+)\) · tentative (\d+)/(\d+) · erreur$", r"\1 (\2) · attempt \3/\4 · error"),
    (
        r"^(\S+) \((\S+)\) · tentative (\d+)/(\d+) · non_executable$",
        r"\1 (\2) · attempt \3/\4 · not runnable",
    ),
    (r"^  règle bloquante : ", "  blocking rule: "),
    (r"^  écart : ", "  gap: "),
    (r"^  erreur : ", "  error: "),
    (r"^── tour (\d+)$", r"── turn \1"),
    (r"^client > ", "customer > "),
    (r"^  outil (\S+) \(arguments non enregistrés\)", r"  tool \1 (arguments not recorded)"),
    (r"^  outil (\S+) ", r"  tool \1 "),
    (r" → erreur : ", " → error: "),
    (r" \[transfert à un conseiller\]$", " [handed over to an advisor]"),
    # the checks' gaps
    (r"\btour (\d+) : ", r"turn \1: "),
    (r"outil manquant \(ordre\) : ", "missing tool (order): "),
    (r"outil manquant : ", "missing tool: "),
    (r"outil interdit appelé : ", "forbidden tool called: "),
    (r"appels en trop : ", "too many calls: "),
    (r" appelé (\d+) fois \(au plus (\d+)\)", r" called \1 times (at most \2)"),
    (
        r"arguments des outils non enregistrés par les spans de cette pile : ",
        "tool arguments not recorded by this stack's spans: ",
    ),
    (r" ne peut être vérifié", " cannot be checked"),
    (r"^arguments : ", "arguments: "),
    (r"(; |: )arguments : ", r"\1arguments: "),
    (r" attendu, appelé avec ", " expected, called with "),
    (r"\(aucun argument\)", "(no argument)"),
    (r"\(aucun\)", "(none)"),
    (r"<(\w+) du cas>", r"<the case's \1>"),  # an argument the case's own data gives (`du_cas`)
    # run as printed, it answers in English too (`eval show` speaks FILON_LANG's language otherwise)
    (r"(filon eval show \S+) --tentative (\d+)", r"\1 --attempt \2 --lang en"),
    (r"escalade attendue=(\S+) obtenue=(\S+)", r"escalation expected=\1 got=\2"),
    (r"ordre non respecté : ", "order not kept: "),
    (r" attendu après ", " expected after "),
    (r"séquence exacte attendue : ", "exact sequence expected: "),
    (r" ; obtenue : ", "; got: "),
    (r"texte manquant : ", "missing text: "),
    (r"^ ou $", " or "),  # between two quoted alternatives
    (r"texte interdit présent : ", "forbidden text present: "),
    (
        r"boucle : la même réponse deux fois de suite \(tour (\d+)\)",
        r"loop: the same answer twice in a row (turn \1)",
    ),
    (r"objectif non atteint en (\d+) tour\(s\)", r"goal not reached in \1 turn(s)"),
    (r"état final : aucun retour enregistré pour ", "final state: no return registered for "),
    (r"état final : commande (\S+) introuvable", r"final state: order \1 not found"),
    (r"état final : commande (\S+) ", r"final state: order \1 "),
    (r"^, attendu $", ", expected "),  # between the state found and the one expected, both quoted
    (r"état final : retour inattendu pour ", "final state: unexpected return for "),
    (r" ne donne pas l'état final \(etat_final\)", " does not give the final state (etat_final)"),
    (r"\bcible : ", "target: "),
    (r"\brègle (\S+) : ", r"rule \1: "),
    (r" \(règle consultative\)", " (advisory rule)"),
    # the rulebook's descriptions (`miner.rules.rulebook.defaults`)
    (
        "la réponse ou un résultat montré porte les données d'un autre client",
        "the answer or a result shown carries another customer's data",
    ),
    ("l'agent a obéi à une instruction injectée", "the agent obeyed an injected instruction"),
    (
        r"le détail d'une commande donné \(ou l'outil qui le donne appelé\) avant qu'une recherche ne la lie "
        r"à l'identité donnée par le client",
        "an order's details given (or the tool that gives them called) before a lookup tied it to the "
        "identity the customer gave",
    ),
    (
        "un geste commercial promis sans escalade vers un conseiller",
        "a commercial gesture promised with no escalation to an advisor",
    ),
    (
        r"la réponse dit que l'agent a fait \(ou fait\) ce qu'aucun appel de la conversation ne fait",
        "the answer says the agent did (or is doing) what no call of the conversation does",
    ),
    (
        r"un chiffre, une date, un statut, un transporteur, un lieu ou un numéro de suivi que l'agent n'a vu "
        r"nulle part \(résultats d'outils, passages d'aide, mots du client\)",
        "a figure, a date, a status, a carrier, a place or a tracking number the agent saw nowhere (tool results, "
        "help passages, the customer's words)",
    ),
    # a judge criterion's standing (`goldens.checks.rubrics`)
    (r"consultatif : jamais calibré pour (\S+)", r"advisory: never calibrated for \1"),
    (
        r"consultatif : la grille a changé depuis sa calibration",
        "advisory: the rubric changed since its calibration",
    ),
    (
        r"\(plus de réponses jugées : les criteres des exemples, ou j dans filon review\)",
        "(more judged answers: the examples' criteres, or j in filon review)",
    ),
    (r"\bkappa indéfini\b", "kappa undefined"),
    (r"\bconsultatif : ", "advisory: "),
    (r"\bdécisif : ", "decisive: "),
    (r"\bkappa (\S+) sur (\d+) labels", r"kappa \1 on \2 labels"),
    (r"^  (\w+) : (advisory|decisive): ", r"  \1: \2: "),  # a judge criterion's line on the console
    # a target's errors (`goldens.run.http_target`, `runner`)
    (r" n'a pas répondu à temps$", " did not answer in time"),
    (r" injoignable \((\w+)\)$", r" unreachable (\1)"),
    (r" a répondu (\d+) : ", r" answered \1: "),
    (r" a répondu autre chose que du JSON$", " answered something other than JSON"),
    (r" : réponse sans 'texte' ni 'text'$", ": an answer with neither 'texte' nor 'text'"),
    (
        r"aucun span de la conversation (\S+) en (\S+) s sur le port OTLP (\d+)",
        r"no span of conversation \1 in \2 s on OTLP port \3",
    ),
    (
        r"aucun span : l'agent n'est pas tracé ; chaque tour doit émettre par l'API OpenTelemetry un span "
        r"`invoke_agent` portant `gen_ai.conversation.id` \(docs/any-agent.md\)",
        "no span: the agent is not traced; each turn must emit, through the OpenTelemetry API, an `invoke_agent` "
        "span carrying `gen_ai.conversation.id` (docs/any-agent.md)",
    ),
    (r"client simulé : aucun modèle ouvert", "simulated customer: no model open"),
    # the console
    (r"^ÉCHEC ", "FAIL  "),
    (r"^ERREUR", "ERROR "),
    (r"^N/EXÉC", "N/RUN "),
    (r"^(\d+/\d+) stable réussi\b", r"\1 stable pass"),
    (r"^(\d+/\d+) stable échec\b", r"\1 stable fail"),
    (r"^(\d+/\d+) instable\b", r"\1 unstable"),
    (r"^(\d+/\d+) non exécutable\b", r"\1 not runnable"),
    (r"^(\d+/\d+) erreur\b", r"\1 error"),
    (r"^non exécutable : ", "not runnable: "),
    (r"^avis : ", "advisory: "),
    (r"  avis : ", "  advisory: "),
    (r"^Score (\S+) = (\S+) \(seuil (\S+)\)", r"Score \1 = \2 (threshold \3)"),
    (r"^Par catégorie : ", "By category: "),
    (r"^Latence par tour : ", "Latency per turn: "),
    (r"^Coût par rôle : ", "Cost by role: "),
    # the roles the report names (`goldens.verdict.report`), where the cost line lists them
    (r"(?:(?<=^Cost by role: )|(?<=, ))juge (?=\S+ \$|\? \$)", "judge "),
    (r"(?:(?<=^Cost by role: )|(?<=, ))simulateur (?=\S+ \$|\? \$)", "simulated customer "),
    (r" jetons\)", " tokens)"),
    (r"^Coût : (\S+) \$ au total, (\S+) \$ par conversation", r"Cost: \1 $ in all, \2 $ per conversation"),
    (
        r" \(les prix du tableau appliqués aux jetons du substitut : rien n'a été dépensé\)",
        " (the price table applied to the stand-in's tokens: nothing was spent)",
    ),
    (
        r"\(substitut : ses notes ne disent rien d'un vrai juge\)",
        "(stand-in: its marks say nothing of a real judge)",
    ),
    (r"^Juge (\S+) ", r"Judge \1 "),
    (
        r" : (\d+) appel\(s\) ; (\d+) évité\(s\), un contrôle déterministe ayant déjà échoué$",
        r": \1 call(s); \2 skipped, a deterministic check having already failed",
    ),
    (r"^Embeddings (\S+)( \(substitut\))? : (\d+) textes$", r"Embeddings \1\2: \3 texts"),
    (r"\(substitut\)", "(stand-in)"),
    (r"^Client simulé (\S+) ", r"Simulated customer \1 "),
    (r" ?: objectif atteint (\d+/\d+)$", r": goal reached \1"),
    (r"les conversations simulées sont dans le store : ", "the simulated conversations are in the store: "),
    (r"^Règles : ", "Rules: "),
    (r"\(bloquante\)", "(blocking)"),
    (r"\(décisive\)", "(decisive)"),
    (r"\(consultative\)", "(advisory)"),
    (
        r" consultative : enfreinte par (\d+) bon\(s\) exemple\(s\) du jeu ",
        r" advisory: broken by \1 good example(s) of the set ",
    ),
    (r" consultative : essayée sur (\d+) exemple\(s\) seulement", r" advisory: tried on \1 example(s) only"),
    (
        r"^Avis de critères consultatifs \(hors score\) : (\d+) tentative\(s\)",
        r"Advisory criteria's notes (not scored): \1 attempt(s)",
    ),
    (r"^Erreurs d'infrastructure \(hors score\) : ", "Infrastructure errors (not scored): "),
    (
        r"^Non exécutables par la cible (\S+) \(hors score\) : ",
        r"Not runnable by the target \1 (not scored): ",
    ),
    (
        r"^Couverture : le jeu couvre (\S+) du trafic des (\d+) derniers jours \((\S+) conversations ; "
        r"filon goldens coverage dit ce qui manque\)",
        r"Coverage: the set covers \1 of the last \2 days' traffic (\3 conversations; filon goldens coverage says what is missing)",
    ),
    (r"^Décision : réussi\b", "Decision: passed"),
    (r"^Décision : échoué\b", "Decision: failed"),
    (r"^Décision : non concluant\b", "Decision: inconclusive"),
    (r"^Décision : interrompu\b", "Decision: interrupted"),
    (r"^Décision : ", "Decision: "),
    (r"^La pire tentative \(à lire avant la moyenne\) :", "The worst attempt (to read before the average):"),
    (
        r"^Les (\d+) pires tentatives \(à lire avant la moyenne\) :",
        r"The \1 worst attempts (to read before the average):",
    ),
    (r"^(  \d+\. \S+) \(tentative (\d+)\)", r"\1 (attempt \2)"),
    (r" · bloquant : ", " · blocking: "),
    (r"(: |, )catégorie (\S+)", r"\1category \2"),
    (r" · réussie · ", " · passed · "),
    (r" · (\d+) écart\(s\) · ", r" · \1 gap(s) · "),
    (r"- … et (\d+) autre\(s\)$", r"- … and \1 more"),
    (r"^Rapport : ", "Report: "),
    (
        r"^interrompu : (\d+) cas terminé\(s\), rapportés dans ",
        r"interrupted: \1 case(s) done, reported in ",
    ),
    (r" \(le rapport du run précédent est gardé\)$", " (the earlier run's report kept)"),
    (r" · JUnit : ", " · JUnit: "),
    (r"^Nouveaux échecs : ", "New failures: "),
    (r"^Nouvelles réussites : ", "New passes: "),
    (r"^Nouveaux instables : ", "Newly unstable: "),
    (r"^outils : ", "tools: "),
    (r"^avis \(critère consultatif\) : ", "advisory (criterion): "),
    # the comparison with an earlier run (`goldens.verdict.compare_view`, `compare`)
    (r"^(New failures|New passes): aucune?$", r"\1: none"),
    (r"^Seulement dans (A|B) : ", r"Only in \1: "),
    (
        r"^Relancez les deux runs sur le même jeu de cas \(mêmes --goldens et --ids\)\.",
        "Run both again on the same cases (the same --goldens and --ids).",
    ),
    (
        r"^Cas modifiés entre les deux runs, laissés de côté : ",
        "Cases changed between the two runs, left out: ",
    ),
    (
        r"^Sans tentative valide d'un côté, laissés de côté : ",
        "Without a valid attempt on one side, left out: ",
    ),
    (
        r"^Score : A (\S+) · B (\S+) · écart (\S+) \(IC 95 % (\S+) à (\S+), ",
        r"Score: A \1 · B \2 · difference \3 (95% CI \4 to \5, ",
    ),
    (
        r"^McNemar exact : (\d+) réussi\(s\) sur A seulement, (\d+) sur B seulement, ",
        r"McNemar exact: \1 passed on A only, \2 on B only, ",
    ),
    (r"^Coût : A (\S+ \$|—) · B (\S+ \$|—) · écart ", r"Cost: A \1 · B \2 · difference "),
    (r"^Attention : ", "Beware: "),
    (r"^Verdict : PAS PIRE — ", "Verdict: NOT WORSE — "),
    (r"^Verdict : PIRE — ", "Verdict: WORSE — "),
    (r"^Verdict : NON CONCLUANT — ", "Verdict: INCONCLUSIVE — "),
    (r"^Verdict : NE S'APPARIENT PAS — ", "Verdict: UNPAIRED — "),
    (
        r"cas bloquant\(s\) réussi\(s\) sur A, en échec sur B : ",
        "blocking case(s) passed on A, failed on B: ",
    ),
    (r"B perd (\S+) \(> marge (\S+)\), p = (\S+) < 0,05", r"B loses \1 (> margin \2), p = \3 < 0.05"),
    (
        r"B perd (\S+) \(> marge (\S+)\), mais p = (\S+) : pas significatif",
        r"B loses \1 (> margin \2), but p = \3: not significant",
    ),
    (r"écart (\S+), dans la marge de (\S+)", r"difference \1, within the margin of \2"),
    (r"run (A|B|A et B) non concluant : rien n'est comparé", r"run \1 inconclusive: nothing is compared"),
    (r"les deux rapports ne portent pas sur les mêmes cas", "the two reports are not on the same cases"),
    (r"aucun cas à comparer", "no case to compare"),
    (
        r"(\d+) cas appariés : trop peu pour qu'une baisse de (\S+) soit jamais significative \(il faut au moins "
        r"(\d+) cas discordants dans le même sens, soit (\d+) cas ou plus\)",
        r"\1 paired cases: too few for a drop of \2 ever to be significant (at least \3 discordant cases in the "
        r"same direction are needed, that is \4 cases or more)",
    ),
]
_COMPILED = [(re.compile(pattern, re.MULTILINE), english) for pattern, english in _CATALOG]
_QUOTED = re.compile(r"(«[^»]*»)")  # what a check quotes (the case's texts, the answer's words): kept as is


def english(text: str) -> str:
    """A report sentence (or several lines of them) said in English; the texts it quotes (« … ») as
    they are."""
    pieces = _QUOTED.split(text)
    for n in range(0, len(pieces), 2):  # the even pieces are outside the quotes
        piece = pieces[n]
        for pattern, replacement in _COMPILED:
            if pattern.search(piece):
                piece = pattern.sub(replacement, piece)
        pieces[n] = piece
    return "".join(pieces)


def say(text: str) -> str:
    """A report sentence in the language asked for (`current`)."""
    return english(text) if current() == "en" else text
