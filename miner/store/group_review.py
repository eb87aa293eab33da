"""One verdict for a whole failure group: dismiss its open conversations at once, or mark them covered
by the case drafted from one of them; and the undo of either. The `Store` holds it as `store.reviews`.

After a bad deploy two hundred conversations are one failure: the reviewer judges one and applies the
verdict to the group. What the verdict touches is what the reviewer saw: the members open when the group
was shown (`open_members`). If the group gained open members since (new traffic, a late flag), nothing is
applied and the caller is told which, to ask again. Incidents are never swept along: an on-call engineer
declared each, and each is reviewed on its own. A member another reviewer holds is left to them.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import UTC, datetime

from sqlalchemy import delete, select, update

from filon.miner.core.messages import Refusal, said
from filon.miner.core.severity import INCIDENT_PRIORITY, NO_FLAG, ReviewStatus
from filon.miner.store.batch import chunks  # ids per statement, under every driver's limit
from filon.miner.store.reviews import CONVERSATIONS, GATE, LINKS, REVIEWS, ReviewStore, claimable
from filon.miner.store.tables import QUEUE_ORDER


@dataclass
class OpenMembers:
    """A group's open members in queue order, and which of them are incidents (a verdict leaves those)."""

    ids: list[str] = field(default_factory=list)
    incidents: set[str] = field(default_factory=set)

    @property
    def swept(self) -> int:
        """How many a verdict for the whole group would change."""
        return len(self.ids) - len(self.incidents)


@dataclass
class GroupVerdict:
    """What a group verdict did: the conversations it changed (an undo gives them back), the incidents it
    left to be reviewed alone, and, when the group changed since it was shown, the new open members (then
    nothing was applied)."""

    status: str  # dismissed or done
    signature: str = ""  # the group's
    changed: list[str] = field(default_factory=list)
    incidents: int = 0
    new: list[str] = field(default_factory=list)
    case_id: str | None = None

    @property
    def stale(self) -> bool:
        return bool(self.new)


class GroupReviewStore(ReviewStore):
    def open_members(self, signature: str, reviewer: str, now: datetime | None = None) -> OpenMembers:
        """The group's flagged conversations in production that `reviewer` may act on (open, or theirs),
        incidents included and named, in queue order."""
        members = self._members(signature, reviewer, now or datetime.now(UTC))
        return OpenMembers([i for i, _ in members], {i for i, p in members if p == INCIDENT_PRIORITY})

    def _members(self, signature: str, reviewer: str, now: datetime) -> list[tuple[str, int]]:
        conv, rev = CONVERSATIONS.c, REVIEWS.c
        query = (
            select(conv.id, conv.priority)
            .select_from(CONVERSATIONS.outerjoin(REVIEWS, rev.conversation_id == conv.id))
            .where(conv.signature == signature, conv.priority < NO_FLAG, claimable(now, reviewer))
            .order_by(*QUEUE_ORDER)
        )
        with self.engine.connect() as conn:
            return [(str(i), int(p)) for i, p in conn.execute(query)]

    def dismiss_group(
        self, signature: str, reviewer: str, reason: str, shown: Collection[str]
    ) -> GroupVerdict:
        """Dismiss every open member of the group the reviewer was shown (`shown`), incidents apart."""
        return self._apply(signature, reviewer, ReviewStatus.DISMISSED, reason, shown, None, ())

    def cover_group(
        self, signature: str, reviewer: str, case_id: str, shown: Collection[str], source: str
    ) -> GroupVerdict:
        """Mark the group's other open members covered by `case_id`, drafted from `source`: each is linked
        to the case (so `db prune` keeps it) and done. Incidents apart."""
        return self._apply(
            signature, reviewer, ReviewStatus.DONE, f"case {case_id}", shown, case_id, (source,)
        )

    def _apply(
        self,
        signature: str,
        reviewer: str,
        status: ReviewStatus,
        note: str,
        shown: Collection[str],
        case_id: str | None,
        apart: Collection[str],
    ) -> GroupVerdict:
        now = datetime.now(UTC)
        members = [(i, p) for i, p in self._members(signature, reviewer, now) if i not in apart]
        out = GroupVerdict(status.value, signature, case_id=case_id)
        seen = set(shown)
        out.new = [i for i, _ in members if i not in seen]
        if out.new:
            return out
        out.incidents = sum(1 for _, p in members if p == INCIDENT_PRIORITY)
        ids = [i for i, p in members if p != INCIDENT_PRIORITY]
        provenance = json.dumps({"couvert_par_groupe": signature}, ensure_ascii=False)
        with self.engine.begin() as conn:
            for part in chunks(ids):
                self._ensure_review(conn, *part)
                # an incident declared since the members were read stays out too
                swept = select(CONVERSATIONS.c.id).where(
                    CONVERSATIONS.c.id.in_(part), CONVERSATIONS.c.priority != INCIDENT_PRIORITY
                )
                done = conn.execute(
                    update(REVIEWS)
                    .where(REVIEWS.c.conversation_id.in_(swept), claimable(now, reviewer))
                    .values(
                        status=status.value, reviewer=reviewer, note=note, expires_at=None, updated_at=now
                    )
                    .returning(REVIEWS.c.conversation_id)
                )
                changed = [str(r[0]) for r in done]
                if case_id is not None and changed:
                    conn.execute(
                        LINKS.insert(),
                        [
                            {
                                "case_id": case_id,
                                "conversation_id": c,
                                "provenance": provenance,
                                "created_at": now,
                            }
                            for c in changed
                        ],
                    )
                out.changed += changed
        return out

    def undo_group(self, verdict: GroupVerdict, reviewer: str) -> int:
        """Give back what a group verdict changed: its conversations open again (those still as it left
        them), and the links it made to the case removed. The number given back."""
        if reviewer == GATE:
            raise Refusal(said("err.store.gate_verdict"))
        now = datetime.now(UTC)
        count = 0
        with self.engine.begin() as conn:
            for part in chunks(verdict.changed):
                done = conn.execute(
                    update(REVIEWS)
                    .where(
                        REVIEWS.c.conversation_id.in_(part),
                        REVIEWS.c.status == verdict.status,
                        REVIEWS.c.reviewer == reviewer,
                    )
                    .values(
                        status=ReviewStatus.OPEN.value,
                        reviewer=None,
                        note="",
                        expires_at=None,
                        updated_at=now,
                    )
                )
                count += int(done.rowcount or 0)
                if verdict.case_id is not None:
                    conn.execute(
                        delete(LINKS).where(
                            LINKS.c.conversation_id.in_(part),
                            LINKS.c.case_id == verdict.case_id,
                            LINKS.c.provenance.contains('"couvert_par_groupe"'),
                        )
                    )
        return count

    def case_of(self, conversation_id: str, since: datetime | None = None) -> str | None:
        """The case written from this conversation (since that moment), if any: the newest."""
        when = [LINKS.c.created_at >= since] if since is not None else []
        query = (
            select(LINKS.c.case_id)
            .where(LINKS.c.conversation_id == conversation_id, *when)
            .order_by(LINKS.c.id.desc())
            .limit(1)
        )
        with self.engine.connect() as conn:
            found = conn.execute(query).first()
        return None if found is None else str(found[0])
