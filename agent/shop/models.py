"""SQLModel tables of the shop. Kept apart from filon's own store: this is the agent's world, not filon's."""

from __future__ import annotations

from datetime import date

from sqlmodel import Field, SQLModel

STATUTS = ("en préparation", "expédiée", "livrée", "annulée", "retournée")
ETATS_COLIS = ("en préparation", "en transit", "en retard", "livré", "perdu")


class Client(SQLModel, table=True):
    __tablename__ = "clients"
    id: int = Field(primary_key=True)
    prenom: str
    nom: str
    email: str = Field(index=True, unique=True)
    tel: str = Field(index=True)


class Commande(SQLModel, table=True):
    __tablename__ = "commandes"
    numero: str = Field(primary_key=True)
    client_id: int = Field(foreign_key="clients.id", index=True)
    statut: str
    date_commande: date
    date_livraison: date | None = None
    frais_port: float = 3.90


class Ligne(SQLModel, table=True):
    __tablename__ = "lignes"
    id: int | None = Field(default=None, primary_key=True)
    commande: str = Field(foreign_key="commandes.numero", index=True)
    article: str
    quantite: int = 1
    prix_unitaire: float


class Colis(SQLModel, table=True):
    __tablename__ = "colis"
    id: int | None = Field(default=None, primary_key=True)
    commande: str = Field(foreign_key="commandes.numero", index=True)
    transporteur: str
    suivi: str
    etat: str
    date_prevue: date | None = None
    derniere_position: str = ""


class Retour(SQLModel, table=True):
    __tablename__ = "retours"
    id: int | None = Field(default=None, primary_key=True)
    commande: str = Field(foreign_key="commandes.numero", index=True)
    date_demande: date
    motif: str
    statut: str = "enregistré"
