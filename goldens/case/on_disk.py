"""One base for the models whose files speak the case format's language: English names in code, French
keys on disk (the report, an attempt's scores, a judge's calibration), read by either name and written by
the French key, so that a field renamed in code never changes a file."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class FrenchOnDisk(BaseModel):
    """Read by the English name or the French alias; written by the alias."""

    model_config = ConfigDict(validate_by_name=True, validate_by_alias=True, serialize_by_alias=True)
