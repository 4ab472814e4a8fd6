"""Tool names as policies see them: one normalised key per tool, its class, tier and parameters."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from . import pack

_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_DATED = re.compile(r"_(?:20\d{6})$")


@lru_cache(maxsize=4096)
def tool_key(name: str) -> str:
    """`Bash` -> `bash`, `mcp__desktop-commander__execute_command` -> `execute_command`,
    `functions.exec` -> `exec`, `bash_20250124` -> `bash`."""
    text = str(name).strip()
    if text.startswith("mcp__") and text.count("__") >= 2:
        text = text.rsplit("__", 1)[-1]
    elif "." in text or "/" in text:
        text = re.split(r"[./]", text)[-1] or text
    key = _NON_ALNUM.sub("_", text.lower()).strip("_")
    return _DATED.sub("", key) or "unknown"


# Semantic Kernel names a plugin's function `<plugin>-<function>` in the model's calls and on its tool spans
# (`HostTools-bash`: OpenAI function names allow no dot). The function is the tool, but a kebab-case tool
# (`write-file`) is named the same way: the function's name is read only where the whole one says nothing.
_PLUGIN_FUNCTION = re.compile(r"[A-Za-z0-9_]+-([A-Za-z0-9_]+)")


def plugin_function(name: str) -> str | None:
    """`HostTools-bash` -> `bash`; None for a name not of that shape."""
    found = _PLUGIN_FUNCTION.fullmatch(str(name).strip())
    return found.group(1) if found else None


@dataclass(frozen=True, slots=True)
class ToolCatalog:
    """Which class, tier and relevant parameters each tool has; built once from the pack and config."""

    tiers: dict[str, str]
    classes: dict[str, frozenset[str]]
    params: dict[str, tuple[str, ...]]  # by class name, then overridden per tool key
    tool_params: dict[str, tuple[str, ...]]
    essential: frozenset[str]
    default_tier: str = pack.DEFAULT_TIER

    def tier(self, key: str) -> str:
        """T0, T1 or T2 (the default tier for a tool nobody classified)."""
        return self.tiers.get(key, self.default_tier)

    def classes_of(self, key: str) -> frozenset[str]:
        """shell, file_write, file_read, or none."""
        return self.classes.get(key, frozenset())

    def knows(self, key: str) -> bool:
        """Whether the pack or the config classified this tool (a tier, a class or its parameters)."""
        return key in self.tiers or key in self.classes or key in self.tool_params

    def params_for(self, key: str, classes: frozenset[str], rule_params: tuple[str, ...]) -> tuple[str, ...]:
        """The arguments a rule reads on this tool: its own list, the tool's, else its classes'."""
        if rule_params:
            return rule_params
        if key in self.tool_params:
            return self.tool_params[key]
        return tuple(p for c in sorted(classes) for p in self.params.get(c, ()))


def catalog(
    extra_tiers: dict[str, tuple[str, ...]] | None = None,
    extra_classes: dict[str, tuple[str, ...]] | None = None,
    tool_params: dict[str, tuple[str, ...]] | None = None,
    essential: tuple[str, ...] | None = None,
    default_tier: str = pack.DEFAULT_TIER,
) -> ToolCatalog:
    """The builtin catalog with the config's additions (a tool named in config wins over the pack)."""
    tiers: dict[str, str] = {}
    for tier in ("T2", "T1", "T0"):  # a name listed twice keeps its lowest builtin tier
        for name in pack.RISK_TIERS[tier]:
            tiers[tool_key(name)] = tier
    for tier, names in (extra_tiers or {}).items():
        for name in names:
            tiers[tool_key(name)] = tier
    classes: dict[str, set[str]] = {}
    for cls, names in pack.CLASS_TOOLS.items():
        for name in names:
            classes.setdefault(tool_key(name), set()).add(cls)
    for cls, names in (extra_classes or {}).items():
        for name in names:
            classes.setdefault(tool_key(name), set()).add(cls)
    return ToolCatalog(
        tiers=tiers,
        classes={k: frozenset(v) for k, v in classes.items()},
        params=dict(pack.CLASS_PARAMS),
        tool_params={tool_key(k): tuple(v) for k, v in (tool_params or {}).items()},
        essential=frozenset(tool_key(n) for n in (pack.ESSENTIAL_TOOLS if essential is None else essential)),
        default_tier=default_tier,
    )
