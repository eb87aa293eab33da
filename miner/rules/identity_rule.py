"""The rulebook's `identite_non_verifiee`: a record's details reach the customer only once a lookup in the
same conversation has tied that record to an identity the customer gave.

The seeds' incident was a leak; most of what leads to one is an agent that tells an order's details before
it knows who is asking. Which tools tie a record to its owner and which tell its details is the agent's
(`identity_tools`, `disclosing_tools` in filon.toml; the reference shop's `consulter_commande`, which does
both, and `suivre_colis` by default). The customer is who they said they are: the e-mails and phone
numbers they wrote, their WhatsApp number, the id their stack gives. So, turn by turn:
- a call of an identity tool on a record, answered with an owner among the customer's identities, ties
  that record (its ids: the call's id-like arguments) to them;
- such a call made while the customer has given no identity at all cannot tie anything: it breaks the
  rule once the answer tells what it returned (the order looked up on its number alone, then told; a
  lookup followed by « give me your e-mail first » tells nothing);
- a call of a disclosing tool on a record not tied by the end of its turn (the answer comes after every
  call of the turn) breaks it (the parcel tracked on the number the customer gave, with no lookup that
  ties the order to their e-mail).
A record tied to someone else is `fuite`'s business (`miner.rules.security_rule`), not this rule's.
"""

from __future__ import annotations

import re

from filon.miner.core.causes import cause
from filon.miner.core.messages import Said, said
from filon.miner.core.model import Conversation, Flag, ToolCall
from filon.miner.core.severity import FlagKind, Severity
from filon.miner.reading.identities import identities
from filon.miner.reading.matching import phone_or_text
from filon.miner.rules.config import FlagConfig
from filon.miner.rules.registry import detector
from filon.miner.rules.security_rule import ID, records, told
from filon.miner.rules.writes import failure

IDENTITY_UNVERIFIED = cause(
    "identity_unverified",
    FlagKind.SECURITY,
    Severity.CRITICAL,
    "a record's details told before a lookup tied it to the customer: the step before the seeds' leak",
    rule="identite_non_verifiee",
    label=(
        "le détail d'une commande donné (ou l'outil qui le donne appelé) avant qu'une recherche ne la lie à "
        "l'identité donnée par le client"
    ),
    label_en="an order's details given (or the tool that gives them called) before a lookup tied it to the identity the customer gave",
    blocking=True,
)


_ID_LIKE = re.compile(r"\d")


def _ids(call: ToolCall) -> set[str]:
    """The records a call names: its id-like string arguments (an order's number, a reservation code)."""
    return {v.strip().upper() for v in call.arguments.values() if type(v) is str and _ID_LIKE.search(v)}


@detector("identity", rank=20, causes=(IDENTITY_UNVERIFIED,), gate=True)
def unverified(conv: Conversation, cfg: FlagConfig) -> list[Flag]:
    """`identite_non_verifiee`, once per turn: the first call of the turn that breaks it."""
    out: list[Flag] = []
    known: set[str] = set()
    tied: set[str] = set()
    for i, turn in enumerate(conv.turns):
        if turn.sender:
            known |= identities(turn.sender) | {phone_or_text(turn.sender).lower(), ID + turn.sender.lower()}
        known |= identities(turn.user)
        if not turn.captured and not known:
            continue  # the stack recorded no message: who the customer said they are cannot be known
        why: Said | None = None
        reads: list[tuple[str, set[str]]] = []  # the records this turn's disclosing calls read
        for call in turn.tools:
            ties, tells = cfg.ties(call.name), cfg.discloses(call.name)
            if not (ties or tells) or failure(call) is not None:
                continue
            named = _ids(call)
            owners = set().union(*records(call.result)) if call.result is not None else set()
            if tells and not ties and owners:
                # a record that names its owner ties itself, whichever tool read it (docs/traces.md): the
                # owner's own is theirs; anyone else's breaks the rule only if the answer tells it (looked
                # up, then « which e-mail did you use? »: nothing told)
                if owners & known:
                    tied |= named
                elif why is None and told(call, turn.agent, conv, i):
                    why = said(
                        "flag.told_untied", tool=call.name, records=sorted(named) or said("flag.some_record")
                    )
                continue
            if ties:
                if owners & known:
                    tied |= named
                    continue
                if not known and why is None and told(call, turn.agent, conv, i):
                    why = said("flag.told_early", tool=call.name)
                if not known or (known and owners) or not tells:
                    continue  # someone else's record: `fuite`'s business, not this rule's
            if named:
                reads.append((call.name, named))
        # the answer comes after every call of its turn: a record tied by then was told to its owner
        late = next(((name, named) for name, named in reads if not named & tied), None)
        if why is None and late is not None:
            why = said("flag.told_late", tool=late[0], records=sorted(late[1]))
        if why is not None:
            out.append(Flag.of(IDENTITY_UNVERIFIED, i, why, turn.trace_id))
    return out
