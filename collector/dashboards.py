"""Dashboards as data: `dashboards/*.yaml` name panels, each a query from `queries/` and a chart type.

No SQL lives in a dashboard file. Loading checks that every panel's query
exists and that its filters and fixed parameters are parameters of that
query, so a broken dashboard fails at startup with the panel named.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml
from pydantic import Field, ValidationError

from claimwatch.core.config import ConfigError, _describe
from claimwatch.core.config_base import _Model
from claimwatch.store.queries import NamedQuery, QueryError, load_queries, packaged_files

DASHBOARDS_PACKAGE = "claimwatch.dashboards"
RANGE_PARAMS = ("since", "until")


class Panel(_Model):
    id: str = Field(pattern=r"^[a-z][a-z0-9_-]*$")
    title: str
    query: str
    chart: Literal["line", "bar", "stacked_bar", "hbar", "doughnut", "table", "violations"]
    x: str | None = None
    series: tuple[str, ...] = ()
    columns: tuple[str, ...] = ()
    filters: tuple[str, ...] = ()
    params: dict[str, str] = Field(default_factory=dict)
    width: Literal[1, 2, 3] = 1
    description: str | None = None


class Dashboard(_Model):
    name: str
    title: str
    refresh_seconds: int = Field(default=30, ge=0)
    default_range: Literal["15m", "1h", "6h", "24h", "7d", "30d"] = "24h"
    panels: tuple[Panel, ...] = Field(min_length=1)


def load_dashboards(
    directory: Path | None = None, queries: dict[str, NamedQuery] | None = None
) -> dict[str, Dashboard]:
    """Every dashboard in `directory`, checked against the query library."""
    queries = queries if queries is not None else load_queries()
    out: dict[str, Dashboard] = {}
    try:
        paths = packaged_files(DASHBOARDS_PACKAGE, ".yaml", directory)
    except QueryError as exc:
        raise ConfigError("dashboards", [("", str(exc))]) from None
    for path in paths:
        try:
            dashboard = Dashboard.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")) or {})
        except ValidationError as exc:
            raise ConfigError(str(path), [_describe(e, None) for e in exc.errors()]) from None
        except yaml.YAMLError as exc:
            raise ConfigError(str(path), [("", f"not valid YAML: {exc}")]) from None
        _check(path, dashboard, queries)
        out[dashboard.name] = dashboard
    return out


def _check(path: Path, dashboard: Dashboard, queries: dict[str, NamedQuery]) -> None:
    problems = []
    for i, panel in enumerate(dashboard.panels):
        query = queries.get(panel.query)
        if query is None:
            problems.append((f"panels[{i}].query", f"no query named {panel.query!r} in queries/"))
            continue
        declared = {p.name for p in query.params}
        for name in (*panel.filters, *panel.params):
            if name not in declared:
                problems.append((f"panels[{i}]", f"query {panel.query!r} has no parameter {name!r}"))
    if problems:
        raise ConfigError(str(path), problems)


def spec_for_client(dashboard: Dashboard, queries: dict[str, NamedQuery]) -> dict:
    """The dashboard as the web page needs it: panels plus the parameters each query takes."""
    spec = dashboard.model_dump(by_alias=True)
    for panel in spec["panels"]:
        query = queries[panel["query"]]
        panel["queryParams"] = [p.name for p in query.params]
        panel["description"] = panel.get("description") or query.description
    return spec
