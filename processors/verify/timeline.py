"""What the actions of a trace did, worked out once: effects by kind, cut actions, diffs seen.

Grading asks the same questions of every claim ("which actions wrote this
file?", "which was the last test run?"); a `Timeline` answers them from an
index built once per action, and grows as a trace does, so a long trace is
not read again for every output (`TraceTimelines`).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence

from . import commands as C
from .actions import Action, actions_from_trace, cut, input_conversation, tool_call_of_span

DIFF_HEADER = "diff --git a/"


class Timeline:
    """Actions in the order they happened, with their effects indexed by kind."""

    __slots__ = ("_scripts", "actions", "by_file", "by_kind", "cut", "diffs")

    def __init__(self, actions: Iterable[Action] = ()) -> None:
        self.actions: list[Action] = []
        self.by_kind: dict[str, list[tuple[Action, C.Effect]]] = {}
        self.by_file: dict[str, list[tuple[Action, C.Effect]]] = {}  # file effects by the file's base name
        self.cut: list[Action] = []
        self.diffs: list[tuple[Action, tuple[str, ...]]] = []  # actions whose output is a git diff, and its files
        self._scripts: dict[str, str] = {}  # script name -> content written earlier in the trace
        self.extend(actions)

    def __len__(self) -> int:
        return len(self.actions)

    def extend(self, actions: Iterable[Action]) -> None:
        for action in actions:
            self._add(action)

    def _add(self, action: Action) -> None:
        self.actions.append(action)
        for effect in self._with_scripts(action.effects):
            self.by_kind.setdefault(effect.kind, []).append((action, effect))
            if effect.kind in C.FILE_KINDS and effect.target:
                self.by_file.setdefault(base_name(effect.target), []).append((action, effect))
        if action.truncated:
            self.cut.append(action)
        if isinstance(action.result, str) and DIFF_HEADER in action.result:
            self.diffs.append((action, _diff_paths(action.result)))

    def _with_scripts(self, effects: tuple[C.Effect, ...]) -> list[C.Effect]:
        """The effects, plus what a script they run writes (when the trace wrote that script)."""
        out = list(effects)
        for effect in effects:
            if effect.kind == C.WRITE and effect.target and effect.content is not None:
                self._scripts[os.path.basename(effect.target)] = effect.content
            elif effect.kind == C.RUN and effect.target:
                name = os.path.basename(effect.target)
                source = self._scripts.get(name)
                if source is not None:
                    out.extend(C.script_effects(source, name))
        return out

    def effects(self, kinds: Sequence[str]) -> list[tuple[Action, C.Effect]]:
        """(action, effect) of these kinds, oldest first, at most one per action."""
        if len(kinds) == 1:
            return self.by_kind.get(kinds[0], [])
        merged: dict[int, tuple[Action, C.Effect]] = {}
        for kind in kinds:
            for action, effect in self.by_kind.get(kind, ()):
                merged.setdefault(action.index, (action, effect))
        return [merged[i] for i in sorted(merged)]

    def copy(self) -> Timeline:
        other = Timeline()
        other.actions = list(self.actions)
        other.by_kind = {k: list(v) for k, v in self.by_kind.items()}
        other.by_file = {k: list(v) for k, v in self.by_file.items()}
        other.cut = list(self.cut)
        other.diffs = list(self.diffs)
        other._scripts = dict(self._scripts)
        return other


def _diff_paths(result: str) -> tuple[str, ...]:
    return tuple(
        line[len(DIFF_HEADER) :].split(" b/")[0] for line in result.splitlines() if line.startswith(DIFF_HEADER)
    )


def base_name(path: str) -> str:
    return os.path.basename(path.replace("\\", "/").rstrip("/"))


def as_timeline(actions: Sequence[Action] | Timeline) -> Timeline:
    return actions if isinstance(actions, Timeline) else Timeline(actions)


class TraceTimelines:
    """The timeline of each recent trace's tool spans, extended as new spans end (bounded, LRU).

    The spans before an output are usually the spans before the previous
    output plus a few new ones: those are the only ones read again.
    """

    def __init__(self, max_traces: int = 256) -> None:
        self._max = max_traces
        self._held: OrderedDict[str, tuple[tuple[str, ...], Timeline]] = OrderedDict()

    def get(self, trace_id: str, span_ids: tuple[str, ...], build) -> Timeline:
        """The timeline of these tool spans; `build(i)` makes the Action of the i-th span."""
        held = self._held.get(trace_id)
        if held is not None and (held[0] is span_ids or held[0] == span_ids):
            self._held.move_to_end(trace_id)
            return held[1]
        if held is not None and span_ids[: len(held[0])] == held[0]:
            timeline = held[1].copy()
            timeline.extend(build(i) for i in range(len(held[0]), len(span_ids)))
        else:
            timeline = Timeline(build(i) for i in range(len(span_ids)))
        self._held[trace_id] = (span_ids, timeline)
        self._held.move_to_end(trace_id)
        while len(self._held) > self._max:
            self._held.popitem(last=False)
        return timeline


class TraceActions:
    """What the tool spans of recent traces did, kept between outputs (bounded; safe across threads).

    A span's tool call is read once; the tool spans before an output are the
    previous output's plus the spans that ended since, so only those are read.
    """

    def __init__(self, max_traces: int = 256, max_spans: int = 16_384) -> None:
        self._lock = threading.Lock()
        self._calls: OrderedDict[tuple[str, str], tuple | None] = OrderedDict()
        self._scanned: OrderedDict[str, tuple[int, object, list, tuple]] = OrderedDict()  # read, last, tools, ids
        self._timelines = TraceTimelines(max_traces)
        self._max_traces = max_traces
        self._max_spans = max_spans

    def timeline(self, spans_before: Sequence, span=None) -> Timeline:
        """The actions before `span`: its input conversation's tool calls when it has them (plus tool
        spans it does not echo), else the trace's tool spans."""
        if span is not None and input_conversation(span) is not None:
            return Timeline(actions_from_trace(spans_before, span))
        with self._lock:
            tools, ids = self._tool_spans(spans_before)
            if not tools:
                return Timeline()

            def build(i: int) -> Action:
                s, (tool, args, result, status, call_id) = tools[i]
                return Action(i, tool, args, result, status, s.span_id, call_id, cut(args))

            return self._timelines.get(tools[0][0].trace_id, ids, build)

    def _call(self, span):
        key = (span.trace_id, span.span_id)
        try:
            return self._calls[key]
        except KeyError:
            pass
        call = tool_call_of_span(span)
        self._calls[key] = call
        if len(self._calls) > self._max_spans:
            self._calls.popitem(last=False)
        return call

    def _tool_spans(self, spans_before: Sequence) -> tuple[list, tuple[str, ...]]:
        if not spans_before:
            return [], ()
        trace_id = spans_before[0].trace_id
        held = self._scanned.get(trace_id)
        if held is not None and held[0] == len(spans_before) and spans_before[-1] is held[1]:
            return held[2], held[3]
        if held is not None and 0 < held[0] < len(spans_before) and spans_before[held[0] - 1] is held[1]:
            start, tools = held[0], list(held[2])
        else:  # first look, or the spans read before are no longer the first ones: read them all
            start, tools = 0, []
        fresh = [(s, call) for s in spans_before[start:] if (call := self._call(s)) is not None]
        if fresh or not start:
            tools.extend(fresh)
            ids = tuple(s.span_id for s, _ in tools)
        else:
            ids = held[3]
        self._scanned[trace_id] = (len(spans_before), spans_before[-1], tools, ids)
        self._scanned.move_to_end(trace_id)
        if len(self._scanned) > self._max_traces:
            self._scanned.popitem(last=False)
        return tools, ids


_DEFAULT = TraceActions()


def trace_timeline(spans_before: Sequence, span=None) -> Timeline:
    """`TraceActions.timeline` on a process-wide instance."""
    return _DEFAULT.timeline(spans_before, span)
