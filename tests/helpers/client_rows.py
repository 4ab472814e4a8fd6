"""What the real-client end-to-end tests share: how a run's spans are told apart, whether a client is
installed, and what they read back from a run: its output evaluations, the spans that
still carry a blocked answer, and the two faults every client must be free of (a check run twice on a
span, a check that failed)."""

from __future__ import annotations

import importlib.util
from concurrent.futures import Future, ThreadPoolExecutor

from tests.otlp_helpers import Sink, start_collector
from tests.test_real_clients import TELL_TALES, everything


def output_rows(run_) -> list[tuple]:
    """The output check's evaluations of a run, in time order."""
    return run_.rows(
        "SELECT span_name, agent_id, mode, verdict, enforced, claim_count, violation_count, text_length "
        "FROM evaluations WHERE check_name = 'output' ORDER BY time, span_name"
    )


def leaks(run_, tell_tales=TELL_TALES) -> list[str]:
    """Names of the forwarded spans that still hold a piece of a blocked answer, under any key."""
    return [s.name for s in run_.spans for t in tell_tales if t.lower() in everything(s).lower()]


def assert_no_doubles_and_no_failures(run_) -> None:
    """No span was evaluated twice by one check, and no check failed or fell back."""
    doubled = run_.rows("SELECT span_id, check_name, count(*) FROM evaluations GROUP BY ALL HAVING count(*) > 1")
    assert doubled == []
    failed = run_.rows(
        "SELECT span_name, check_name, error FROM evaluations WHERE error IS NOT NULL OR verdict = 'error_fallback'"
    )
    assert failed == []


# The resource attribute each client process is started with, so one run's spans are told apart from the
# spans of runs that overlap it in the same sink.
RUN_TAG = "claimwatch.test.run"


def installed(*modules: str) -> bool:
    """Whether every module can be imported (a client's test skips cleanly without it)."""
    try:
        return all(importlib.util.find_spec(m) is not None for m in modules)
    except ModuleNotFoundError:  # a parent package is missing
        return False


def spans_of(sink, run_id: str) -> list:
    """The spans the sink got from one run's process (tagged by `RUN_TAG`: runs overlap)."""
    return [
        s
        for request in list(sink.requests)
        for rs in request.resource_spans
        if any(kv.key == RUN_TAG and kv.value.string_value == run_id for kv in rs.resource.attributes)
        for ss in rs.scope_spans
        for s in ss.spans
    ]


class ClientRuns:
    """Two collectors (enforcing with debug annotations; auditing with the other checks), each forwarding to
    its sink; every run the selected tests will read started ahead, two at a time, its outcome read on first
    use. A test file says how a scenario runs (`_run`) and which clients and runs its tests need (`start`)."""

    PARALLEL_RUNS = 2

    def __init__(self, tmp_path_factory, ops_agents: dict, desk_agents: dict, desk_checks: dict) -> None:
        self.tmp = tmp_path_factory
        self.ops_sink, self.ops_collector = self._collector(agents=ops_agents, annotations={"verbosity": "debug"})
        self.desk_sink, self.desk_collector = self._collector(agents=desk_agents, checks=desk_checks)
        self.pool = ThreadPoolExecutor(self.PARALLEL_RUNS, thread_name_prefix="client-run")
        self.futures: dict[tuple, Future] = {}

    def start(self, items, run_of_test: dict, clients: dict) -> None:
        """Start the runs the selected tests will read (`run_of_test`: test name -> (scenario, option)), in
        the order they read them, for the clients (`clients`: name -> modules it needs) installed here."""
        for item in items:
            need = run_of_test.get(getattr(item, "originalname", ""))
            callspec = getattr(item, "callspec", None)
            client = callspec.params.get("client") if callspec is not None else None
            if need is not None and client in clients and installed(*clients[client]):
                self._submit(need[0], client, need[1])

    def _collector(self, **sections):
        sink = Sink()
        collector = start_collector(
            self.tmp.mktemp("collector"),
            exporters={"otlp": {"endpoint": sink.endpoint, "protocol": "http/protobuf"}},
            **sections,
        )
        return sink, collector

    def _submit(self, scenario: str, client: str, option) -> Future:
        key = (scenario, client, option)
        if key not in self.futures:
            self.futures[key] = self.pool.submit(self._run, scenario, client, option)
        return self.futures[key]

    def _run(self, scenario: str, client: str, option):
        raise NotImplementedError

    def get(self, scenario: str, client: str, option=None):
        """The outcome of one run, waited for."""
        return self._submit(scenario, client, option).result()

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)
        for collector, sink in ((self.ops_collector, self.ops_sink), (self.desk_collector, self.desk_sink)):
            collector.stop()
            sink.close()
