"""Each setting is declared once (claimwatch.core.settings); everything that shows or reads it agrees."""

from __future__ import annotations

import re

from claimwatch.collector.cli import build_parser
from claimwatch.collector.settings import resolve
from claimwatch.core.config import ClaimwatchConfig
from claimwatch.core.settings import SERVER, SETTINGS, db_path, default_of, explain, server_url
from tests.conftest import ROOT


def _field(key):
    from claimwatch.core.settings import _owner

    owner, name = _owner(ClaimwatchConfig, key)
    return owner.model_fields[name]


def test_every_setting_names_a_config_key_with_its_description():
    for s in SETTINGS:
        assert _field(s.key).description == s.description, s.key


def test_readme_table_is_the_explain_output():
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"<!-- settings:start -->\n(.*?)<!-- settings:end -->", readme, re.S)
    assert block is not None
    assert block.group(1).strip() == explain(ClaimwatchConfig).strip()


def test_serve_flags_are_the_declared_flags():
    serve = build_parser()._subparsers._group_actions[0].choices["serve"]
    flags = {o for a in serve._actions for o in a.option_strings if o.startswith("--")}
    declared = {s.flag for s in SETTINGS if s.flag}
    assert declared <= flags
    assert flags - declared == {"--help", "--config", "--log-level"}


def test_every_command_that_asks_a_collector_spells_server_the_same():
    choices = build_parser()._subparsers._group_actions[0].choices
    for name in ("query", "status"):
        helps = [a.help for a in choices[name]._actions if SERVER.flag in a.option_strings]
        assert helps and SERVER.env in helps[0], name


def test_each_environment_variable_sets_its_key():
    for s in SETTINGS:
        value = {"storage.path": "x.duckdb", "agents.defaultMode": "enforce", "annotations.verbosity": "debug",
                 "exporters.otlp.protocol": "grpc", "storage.spool.enabled": "True",
                 "processor.workers": "3", "exporters.kafka.publish": "received"}.get(s.key)
        if value is None:
            value = "7" if s.key.endswith("Ms") else "127.0.0.1:9" if "endpoint" in s.key else "t0ken"
        env = {s.env: value}
        if s.key == "exporters.otlp.protocol":
            env["CLAIMWATCH_FORWARD_ENDPOINT"] = "127.0.0.1:4317"
        if s.key == "exporters.kafka.publish":
            env["CLAIMWATCH_KAFKA_EXPORT"] = "127.0.0.1:9092"
        config = resolve(None, {}, env).model_dump(by_alias=True)
        node = config
        for part in s.key.split("."):
            node = node[part]
        assert str(node) == value, s.key


def test_flag_beats_environment_beats_default():
    assert resolve(None, {"storage.path": "flag.duckdb"}, {"CLAIMWATCH_DB": "env.duckdb"}).storage.path == "flag.duckdb"
    assert resolve(None, {}, {"CLAIMWATCH_DB": "env.duckdb"}).storage.path == "env.duckdb"
    assert resolve(None, {}, {}).storage.path == default_of(ClaimwatchConfig, "storage.path")


def test_db_and_server_resolve_the_same_way_for_every_command():
    assert db_path("a.duckdb", {"CLAIMWATCH_DB": "b.duckdb"}) == "a.duckdb"
    assert db_path(None, {"CLAIMWATCH_DB": "b.duckdb"}) == "b.duckdb"
    assert db_path(None, {}) == "claimwatch.duckdb"
    assert server_url(None, {"CLAIMWATCH_SERVER": "http://h:1/"}) == "http://h:1"
