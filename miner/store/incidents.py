"""Incidents: a human marks a conversation (`filon incident add|remove`); it goes to the top of the queue.

An incident is a flag of kind `incident` written by a person, not by the rules: marking twice is once (the
note is the latest word), and removing it puts the conversation back where its other flags place it.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

from sqlmodel import Session, select

from filon.miner.core.causes import REPORTED, cause_of
from filon.miner.core.severity import INCIDENT_PRIORITY, NO_FLAG, FlagKind, ReviewStatus
from filon.miner.store.regroup import recount
from filon.miner.store.repository import Repository
from filon.miner.store.rows import flag_of_row
from filon.miner.store.tables import ConversationRow, FlagRow, ReviewRow


class IncidentStore(Repository):
    @staticmethod
    def _incidents(s: Session, conversation_id: str) -> list[FlagRow]:
        query = select(FlagRow).where(FlagRow.conversation_id == conversation_id, FlagRow.kind == "incident")
        return list(s.exec(query).all())

    def add_incident(self, conversation_id: str, note: str) -> bool:
        """Mark it, and reopen its review if it was done or dismissed; False if the conversation is
        unknown."""
        with Session(self.engine, expire_on_commit=False) as s:
            conv = s.get(ConversationRow, conversation_id)
            if conv is None:
                return False
            marked = self._incidents(s, conversation_id)
            if marked:
                marked[0].reason = note
                s.add(marked[0])
            else:
                s.add(
                    FlagRow(
                        conversation_id=conversation_id,
                        turn=0,
                        kind=FlagKind.INCIDENT,
                        severity=cause_of(REPORTED).severity,
                        cause=REPORTED,
                        reason=note,
                        source="human",
                        created_at=datetime.now(UTC),
                    )
                )
            kinds = ["incident", *(k for k in json.loads(conv.flag_kinds) if k != "incident")]
            conv.flag_kinds = json.dumps(kinds)
            conv.priority = INCIDENT_PRIORITY
            conv.reason = note
            s.add(conv)
            review = s.get(ReviewRow, conversation_id)
            if review is not None and review.status in (ReviewStatus.DONE, ReviewStatus.DISMISSED):
                review.status = ReviewStatus.OPEN  # reopened: the case made of it, or the dismissal,
                review.updated_at = datetime.now(UTC)  # did not settle what a person now says matters
                s.add(review)
            s.commit()
        self._regroup(conv.signature)
        return True

    def remove_incident(self, conversation_id: str) -> bool | None:
        """Unmark it; None if the conversation is unknown, False if it was not marked."""
        with Session(self.engine, expire_on_commit=False) as s:
            conv = s.get(ConversationRow, conversation_id)
            if conv is None:
                return None
            marked = self._incidents(s, conversation_id)
            if not marked:
                return False
            for row in marked:
                s.delete(row)
            s.flush()
            kinds = [k for k in json.loads(conv.flag_kinds) if k != "incident"]
            rest = [
                flag_of_row(r)
                for r in s.exec(select(FlagRow).where(FlagRow.conversation_id == conversation_id))
            ]
            top = min(rest, key=lambda f: (f.priority, f.turn), default=None)
            conv.flag_kinds = json.dumps(kinds)
            conv.priority = top.priority if top else NO_FLAG
            conv.reason = top.reason if top else ""
            s.add(conv)
            s.commit()
        self._regroup(conv.signature)
        return True

    def _regroup(self, signature: str) -> None:
        """Its failure group counted again: an incident puts the group on top, its removal may not."""
        with self.engine.begin() as conn:
            recount(conn, [signature])
