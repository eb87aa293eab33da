"""A shop database per conversation: in-memory SQLite, filled from relative-date fixtures.

Evaluation gives each case a fresh `Shop` so no case sees another's returns; live traffic shares one.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.pool import StaticPool
from sqlmodel import Session, SQLModel, create_engine, select

from filon.agent.shop.fixtures import default_fixtures, load_fixtures, merge_fixtures
from filon.agent.shop.models import Client, Colis, Commande, Ligne, Retour

SHOP_TABLES = ("clients", "commandes", "lignes", "colis", "retours")


class Shop:
    """The agent's view of the shop. One lock serialises access to the single in-memory connection."""

    def __init__(self, engine: Engine, today: date) -> None:
        self.engine = engine
        self.today = today
        self._lock = threading.Lock()

    @contextmanager
    def session(self) -> Iterator[Session]:
        with self._lock, Session(self.engine, expire_on_commit=False) as session:
            yield session

    def commande(self, numero: str) -> tuple[Commande, Client, list[Ligne], Colis | None] | None:
        with self.session() as s:
            order = s.get(Commande, numero)
            if order is None:
                return None
            client = s.get(Client, order.client_id)
            assert client is not None
            lignes = list(s.exec(select(Ligne).where(Ligne.commande == numero)))
            colis = s.exec(select(Colis).where(Colis.commande == numero)).first()
            return order, client, lignes, colis

    def retours(self, numero: str) -> list[Retour]:
        with self.session() as s:
            return list(s.exec(select(Retour).where(Retour.commande == numero)))

    def ajouter_retour(self, numero: str, motif: str) -> Retour:
        with self.session() as s:
            retour = Retour(commande=numero, date_demande=self.today, motif=motif)
            s.add(retour)
            s.commit()
            s.refresh(retour)
            return retour

    def etat(self) -> dict[str, Any]:
        """The shop as a case's `etat_final` reads it: every return registered, every order's status."""
        with self.session() as s:
            retours = [
                {"commande": r.commande, "motif": r.motif, "statut": r.statut} for r in s.exec(select(Retour))
            ]
            commandes = [{"numero": c.numero, "statut": c.statut} for c in s.exec(select(Commande))]
        return {"retours": retours, "commandes": commandes}

    def counts(self) -> dict[str, int]:
        with self.session() as s:
            return {
                "clients": len(s.exec(select(Client)).all()),
                "commandes": len(s.exec(select(Commande)).all()),
            }


def new_shop(extra: dict[str, Any] | None = None, today: date | None = None, base: bool = True) -> Shop:
    """A fresh in-memory shop: the default world (unless `base=False`) plus `extra` fixtures."""
    today = today or date.today()
    engine = create_engine("sqlite://", connect_args={"check_same_thread": False}, poolclass=StaticPool)
    SQLModel.metadata.create_all(engine, tables=[SQLModel.metadata.tables[name] for name in SHOP_TABLES])
    data = merge_fixtures(default_fixtures() if base else {}, extra)
    rows = load_fixtures(data, today)
    with Session(engine) as s:
        s.add_all(Client(**r) for r in rows["clients"])
        s.add_all(Commande(**r) for r in rows["commandes"])
        s.add_all(Ligne(**r) for r in rows["lignes"])
        s.add_all(Colis(**r) for r in rows["colis"])
        s.commit()
    return Shop(engine, today)
