"""Named SQL queries kept in `queries/*.sql`, each with a header naming it and its parameters.

    -- name: violations
    -- description: what it answers
    -- param: since (timestamp, optional): what it filters
    -- param: limit (integer, default 100): ...

Parameters are DuckDB named parameters (`$since`). A timestamp may be ISO
8601 or an age such as `30m`, `24h`, `7d` (that long before now).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from importlib import resources
from pathlib import Path

QUERIES_PACKAGE = "claimwatch.queries"
_PARAM = re.compile(r"^--\s*param:\s*(\w+)\s*\((\w+)(?:,\s*(optional|default\s+(.+?)))?\)\s*:\s*(.*)$")
_FIELD = re.compile(r"^--\s*(name|description):\s*(.*)$")
_USED = re.compile(r"\$(\w+)")
_AGE = re.compile(r"^(\d+(?:\.\d+)?)\s*(s|m|h|d|w)$")
_AGE_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
TYPES = ("timestamp", "text", "integer", "number", "boolean")


class QueryError(ValueError):
    """A query is unknown, malformed, or was given bad parameters."""


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    type: str
    required: bool
    default: str | None
    description: str


@dataclass(frozen=True, slots=True)
class NamedQuery:
    name: str
    description: str
    params: tuple[Param, ...]
    sql: str
    path: Path

    def bind(self, given: dict[str, str]) -> dict:
        """Typed values for every declared parameter; unknown or missing ones raise QueryError."""
        known = {p.name for p in self.params}
        unknown = sorted(set(given) - known)
        if unknown:
            raise QueryError(
                f"query {self.name!r} has no parameter {unknown[0]!r} (it takes: {', '.join(sorted(known)) or 'none'})"
            )
        values = {}
        for p in self.params:
            raw = given.get(p.name, p.default)
            if raw is None and p.required:
                raise QueryError(f"query {self.name!r} needs --param {p.name}=... ({p.description})")
            values[p.name] = None if raw is None else convert(p, raw)
        return values


def convert(param: Param, raw: str):
    try:
        if param.type == "integer":
            return int(raw)
        if param.type == "number":
            return float(raw)
        if param.type == "boolean":
            if raw.lower() not in ("true", "false", "1", "0", "yes", "no"):
                raise ValueError(raw)
            return raw.lower() in ("true", "1", "yes")
        if param.type == "timestamp":
            return parse_time(raw)
        return raw
    except (ValueError, OverflowError):  # OverflowError: an age like 99999999999d
        raise QueryError(f"parameter {param.name!r} must be a {param.type}, got {raw!r}") from None


def parse_time(raw: str) -> datetime:
    """ISO 8601, or an age like 24h / 7d meaning that long before now; as naive UTC like the tables."""
    age = _AGE.match(raw.strip())
    if age:
        value = datetime.now(UTC) - timedelta(**{_AGE_UNITS[age.group(2)]: float(age.group(1))})
    else:
        value = datetime.fromisoformat(raw.strip().replace("Z", "+00:00"))
    return value.astimezone(UTC).replace(tzinfo=None) if value.tzinfo else value


def parse_query(path: Path) -> NamedQuery:
    """Read one query file; its header must name it and declare exactly the parameters it uses."""
    text = path.read_text(encoding="utf-8")
    fields: dict[str, str] = {}
    params: list[Param] = []
    body: list[str] = []
    for line in text.splitlines():
        if not body and line.startswith("--"):
            if m := _PARAM.match(line):
                name, kind, mod, default, desc = m.groups()
                if kind not in TYPES:
                    raise QueryError(
                        f"{path.name}: parameter {name!r} has unknown type {kind!r} (use {', '.join(TYPES)})"
                    )
                params.append(Param(name, kind, mod is None, default, desc))
            elif m := _FIELD.match(line):
                fields[m.group(1)] = m.group(2).strip()
            continue
        body.append(line)
    sql = "\n".join(body).strip().rstrip(";")
    if "name" not in fields:
        raise QueryError(f"{path.name}: header has no '-- name:' line")
    declared = {p.name for p in params}
    used = set(_USED.findall(sql))
    if declared != used:
        raise QueryError(f"{path.name}: declared parameters {sorted(declared)} differ from those used {sorted(used)}")
    return NamedQuery(fields["name"], fields.get("description", ""), tuple(params), sql, path)


def packaged_files(package: str, suffix: str, directory: Path | None = None) -> list:
    """The `*suffix` files shipped in `package` (or in `directory`), sorted by name.

    Package data is read through importlib.resources, so it is found the same way
    from a wheel, an editable install or a checkout. Finding none is an error that
    says where it looked: an empty library is a broken install, not an empty answer.
    """
    where = directory if directory is not None else resources.files(package)
    found = sorted((p for p in where.iterdir() if p.name.endswith(suffix)), key=lambda p: p.name)
    if not found:
        raise QueryError(f"no {suffix} files in {where} (looked for the {package} package data)")
    return found


def load_queries(directory: Path | None = None) -> dict[str, NamedQuery]:
    """The packaged query library, or the `*.sql` files in `directory`."""
    queries = {}
    for path in packaged_files(QUERIES_PACKAGE, ".sql", directory):
        query = parse_query(path)
        if query.name in queries:
            raise QueryError(f"{path.name}: query name {query.name!r} is used twice")
        queries[query.name] = query
    return queries


def run_query(con, query: NamedQuery, given: dict[str, str]) -> tuple[list[str], list[tuple]]:
    """Run a named query on a DuckDB connection; (column names, rows)."""
    cursor = con.cursor()
    try:
        cursor.execute(query.sql, query.bind(given))
        columns = [d[0] for d in cursor.description]
        return columns, cursor.fetchall()
    finally:
        cursor.close()
