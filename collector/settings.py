"""Collector settings: one written precedence rule, flags > CLAIMWATCH_* environment > file > defaults.

Which settings have a flag or an environment variable is declared once, in
`claimwatch.core.settings`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from claimwatch.core.config import ClaimwatchConfig, load_config_data, read_config_data
from claimwatch.core.settings import SETTINGS, db_path, environment_layer, server_url

__all__ = ["add_setting_flags", "db_path", "flag_values", "resolve", "server_url"]


def resolve(path: str | None, flags: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> ClaimwatchConfig:
    """The collector's config: the file (if any), then CLAIMWATCH_* variables, then command-line flags."""
    data = read_config_data(path) if path else {}
    sources = [path or "defaults"]
    env = environment_layer(environ)
    for key, value in env.items():
        _set(data, key, value)
    sources += [s.env for s in SETTINGS if s.key in env]
    for key, value in flags.items():
        if value is not None:
            _set(data, key, value)
    return load_config_data(
        data, " + ".join(sources) + (" + flags" if any(v is not None for v in flags.values()) else "")
    )


def add_setting_flags(parser) -> None:
    """The command flags of every declared setting that has one."""
    for s in SETTINGS:
        if s.flag:
            parser.add_argument(s.flag, metavar=s.metavar, dest=_dest(s.flag), help=f"{s.description} (env {s.env})")


def flag_values(args) -> dict[str, Any]:
    """{key path: value} of the setting flags given on the command line."""
    return {s.key: getattr(args, _dest(s.flag), None) for s in SETTINGS if s.flag}


def _dest(flag: str) -> str:
    return "setting_" + flag.lstrip("-").replace("-", "_")


def _set(data: dict, dotted: str, value: Any) -> None:
    node = data
    parts = dotted.split(".")
    for part in parts[:-1]:
        existing = node.get(part) or node.get(_snake(part))
        if not isinstance(existing, dict):
            existing = {}
        node.pop(_snake(part), None)
        node[part] = existing
        node = existing
    node.pop(_snake(parts[-1]), None)
    node[parts[-1]] = value


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)
