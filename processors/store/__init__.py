"""The DuckDB audit store: schema migrations, batched writes, named queries."""

from .duck import AuditStore
from .schema import MIGRATIONS, migrate

__all__ = ["MIGRATIONS", "AuditStore", "migrate"]
