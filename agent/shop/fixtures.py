"""Shop fixtures with dates relative to today ("J-29" = 29 days ago), so an evaluation never ages.

The same format serves the default world (`fixtures.json`) and a golden case's `fixtures` field.
"""

from __future__ import annotations

import json
import re
from datetime import date, timedelta
from importlib import resources
from typing import Any

from filon.miner.core.messages import Refusal, said

RELATIVE = re.compile(r"^J(?:([+-])(\d{1,4}))?$")


class FixtureError(Refusal):
    """A fixture that cannot be loaded; the message names the field."""


def relative_date(value: str | None, today: date, field: str = "date") -> date | None:
    """Turn "J-29" / "J+3" / "J" into a date counted from `today`; None stays None."""
    if value is None:
        return None
    match = RELATIVE.match(str(value).strip())
    if not match:
        raise FixtureError(said("err.fixture.date", field=field, value=repr(value)))
    sign, days = match.groups()
    offset = int(days or 0) * (-1 if sign == "-" else 1)
    return today + timedelta(days=offset)


def relative_label(day: date, today: date) -> str:
    """The inverse of `relative_date`: a date written back as J±N."""
    offset = (day - today).days
    return "J" if offset == 0 else f"J{offset:+d}"


def default_fixtures() -> dict[str, Any]:
    """The shop's default world: 22 customers, 32 orders covering every status and edge."""
    text = resources.files("filon.agent.shop").joinpath("fixtures.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def merge_fixtures(base: dict[str, Any], extra: dict[str, Any] | None) -> dict[str, Any]:
    """Overlay `extra` on `base`: customers by id, orders by number (a case's fixtures win)."""
    if not extra:
        return base
    clients = {c["id"]: c for c in base.get("clients", [])}
    clients.update({c["id"]: c for c in extra.get("clients", [])})
    commandes = {o["numero"]: o for o in base.get("commandes", [])}
    commandes.update({o["numero"]: o for o in extra.get("commandes", [])})
    return {"clients": list(clients.values()), "commandes": list(commandes.values())}


def load_fixtures(data: dict[str, Any], today: date) -> dict[str, list[dict[str, Any]]]:
    """Validate fixtures and resolve their relative dates; returns rows per table."""
    rows: dict[str, list[dict[str, Any]]] = {"clients": [], "commandes": [], "lignes": [], "colis": []}
    for i, c in enumerate(data.get("clients", [])):
        for key in ("id", "prenom", "nom", "email", "tel"):
            if key not in c:
                raise FixtureError(said("err.fixture.missing", where=f"clients[{i}].{key}"))
        rows["clients"].append({k: c[k] for k in ("id", "prenom", "nom", "email", "tel")})
    for i, o in enumerate(data.get("commandes", [])):
        where = f"commandes[{i}]"
        for key in ("numero", "client", "statut", "date_commande"):
            if key not in o:
                raise FixtureError(said("err.fixture.missing", where=f"{where}.{key}"))
        rows["commandes"].append(
            {
                "numero": o["numero"],
                "client_id": o["client"],
                "statut": o["statut"],
                "date_commande": relative_date(o["date_commande"], today, f"{where}.date_commande"),
                "date_livraison": relative_date(o.get("date_livraison"), today, f"{where}.date_livraison"),
                "frais_port": float(o.get("frais_port", 0.0 if _total(o) >= 60 else 3.90)),
            }
        )
        for ligne in o.get("lignes", []):
            rows["lignes"].append(
                {
                    "commande": o["numero"],
                    "article": ligne["article"],
                    "quantite": int(ligne.get("quantite", 1)),
                    "prix_unitaire": float(ligne["prix"]),
                }
            )
        colis = o.get("colis")
        if colis:
            rows["colis"].append(
                {
                    "commande": o["numero"],
                    "transporteur": colis.get("transporteur", "Colissimo"),
                    "suivi": colis.get("suivi", ""),
                    "etat": colis.get("etat", "en transit"),
                    "date_prevue": relative_date(
                        colis.get("date_prevue"), today, f"{where}.colis.date_prevue"
                    ),
                    "derniere_position": colis.get("derniere_position", ""),
                }
            )
    return rows


def _total(order: dict[str, Any]) -> float:
    return sum(float(x["prix"]) * int(x.get("quantite", 1)) for x in order.get("lignes", []))
