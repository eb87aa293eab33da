"""A claim outlives its holder by minutes, not half an hour (issue 45: a `kill -9` during the review
screen's save left the conversation held): a claim lasts five minutes, and the review app renews those it
holds while it runs, so a reviewer at work keeps theirs and a killed one frees them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from filon.miner.store import Store
from filon.miner.store.reviews import CLAIM_TTL, HEARTBEAT, REVIEWS
from filon.tui.conversation import ConversationScreen
from tests.tui.conftest import settle


def expires(store: Store, conversation_id: str) -> datetime:
    with store.engine.connect() as conn:
        value = conn.execute(
            select(REVIEWS.c.expires_at).where(REVIEWS.c.conversation_id == conversation_id)
        ).scalar_one()
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def test_a_claim_nobody_renews_is_free_within_minutes(store: Store) -> None:
    start = datetime(2026, 12, 5, 10, tzinfo=UTC)
    assert store.reviews.claim("web:geste", "alice", now=start).ok
    assert not store.reviews.claim("web:geste", "bob", now=start + CLAIM_TTL - timedelta(seconds=1)).ok
    assert store.reviews.claim("web:geste", "bob", now=start + CLAIM_TTL + timedelta(seconds=1)).ok
    assert timedelta(minutes=5) >= CLAIM_TTL and HEARTBEAT * 3 <= CLAIM_TTL  # renewed well before it lapses


async def test_the_review_app_renews_the_claims_it_holds(make_app, store: Store) -> None:  # type: ignore[no-untyped-def]
    app = make_app(reviewer="alice", conversation="web:geste")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ConversationScreen) and app.screen.mine
        first = expires(store, "web:geste")
        assert app.renew_claims() == []
        assert expires(store, "web:geste") > first  # five more minutes from now
        # a claim taken over after it lapsed (the app was suspended): no longer held, never stolen back
        later = datetime.now(UTC) + CLAIM_TTL + timedelta(minutes=1)
        assert store.reviews.claim("web:geste", "bob", now=later).ok
        assert app.renew_claims() == ["web:geste"]
        assert "web:geste" not in app.held


async def test_a_case_a_killed_save_left_unlinked_is_linked_on_start(make_app, store: Store, cases) -> None:  # type: ignore[no-untyped-def]
    """`save_case` writes the file, then links it: killed between the two, the case had no source in the
    store and its conversation stayed open. The next review app links it, and only once."""
    import json

    from filon.miner.store.reviews import LINKS

    case = json.loads((cases / "adv-01.json").read_text(encoding="utf-8"))
    case["id"] = "geste-99"
    case["source"] = {"conversation_id": "web:geste", "reviewer": "alice"}
    (cases / "geste-99.json").write_text(json.dumps(case, ensure_ascii=False), encoding="utf-8")

    def links() -> list[tuple[str, str]]:
        with store.engine.connect() as conn:
            return [(r[0], r[1]) for r in conn.execute(select(LINKS.c.case_id, LINKS.c.conversation_id))]

    def status() -> str | None:
        with store.engine.connect() as conn:
            found = conn.execute(select(REVIEWS.c.status).where(REVIEWS.c.conversation_id == "web:geste"))
            row = found.first()
        return None if row is None else str(row[0])

    assert links() == [] and status() != "done"
    said: list[list[str]] = []
    for _ in range(2):
        app = make_app(reviewer="alice")
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            said.append([str(n.message) for n in app._notifications])
        assert links() == [("geste-99", "web:geste")] and status() == "done"
    assert any("geste-99" in m for m in said[0]) and not any("geste-99" in m for m in said[1])
