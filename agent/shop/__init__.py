"""The shop's database: customers, orders, lines, parcels and returns, with dates relative to today."""

from filon.agent.shop.db import Shop, new_shop
from filon.agent.shop.fixtures import default_fixtures, load_fixtures

__all__ = ["Shop", "default_fixtures", "load_fixtures", "new_shop"]
