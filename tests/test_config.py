"""Configuration: RFC block verbatim, snake_case, defaults, and the exact errors a user sees."""

from __future__ import annotations

import json

import pytest

from claimwatch import ConfigError, load_config
from tests.conftest import RFC_CONFIG


def error_of(data) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(data)
    return str(info.value)


def test_rfc_output_validation_block_loads_verbatim():
    config = load_config(RFC_CONFIG)
    v = config.validation
    assert [r.id for r in v.fact_registries] == ["team-names", "system-state", "infra-status"]
    assert v.fact_registries[0].facts[0].value.correct_name == "Albert"
    assert v.agent_overrides[0].profile == "lenient"


def test_rfc_plugins_wrapper_is_unwrapped(tmp_path):
    block = json.loads(RFC_CONFIG.read_text())["outputValidation"]
    path = tmp_path / "openclaw.json"
    path.write_text(json.dumps({"plugins": {"openclaw-governance": {"outputValidation": block}}}))
    assert len(load_config(path).validation.fact_registries) == 3


def test_snake_case_keys_are_accepted(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(
        "output_validation:\n"
        "  min_text_length: 3\n"
        "  trust_exempt_threshold: 70\n"
        "  fact_registries:\n"
        "    - id: r\n"
        "      facts:\n"
        "        - {id: f, category: system_state, subject: docker, value: {type: state, state: running}}\n"
    )
    v = load_config(path).validation
    assert (v.min_text_length, v.trust_exempt_threshold, v.fact_registries[0].facts[0].id) == (3, 70, "f")


def test_rfc_defaults_apply_with_no_file():
    v = load_config(None).validation
    assert (v.enabled, v.min_text_length, v.trust_exempt_threshold) == (True, 10, 90)
    assert (
        v.defaults.unverified_claim_policy,
        v.defaults.contradiction_policy,
        v.defaults.self_referential_policy,
    ) == ("flag", "block", "flag")
    assert (v.performance.max_eval_us, v.performance.max_claims_per_output, v.performance.max_text_length) == (
        8000,
        50,
        10000,
    )


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"validation": {"minTextLenght": 5}}, "validation.minTextLenght: unknown key (got 5)"),
        (
            {"validation": {"performance": {"maxEvalUs": -1}}},
            "validation.performance.maxEvalUs: Input should be greater than 0 (got -1)",
        ),
        (
            {
                "validation": {
                    "factRegistries": [
                        {
                            "id": "r",
                            "facts": [
                                {"id": "a", "category": "system_state", "subject": "x", "value": {"type": "state"}}
                            ],
                        }
                    ]
                }
            },
            "validation.factRegistries[0].facts[0].value.state: Field required",
        ),
        (
            {
                "validation": {
                    "factRegistries": [
                        {
                            "id": "r",
                            "facts": [
                                {
                                    "id": "a",
                                    "category": "bogus",
                                    "subject": "x",
                                    "value": {"type": "exists", "exists": True},
                                }
                            ],
                        }
                    ]
                }
            },
            "validation.factRegistries[0].facts[0].category: Input should be 'system_state', 'entity_name', "
            "'existence', 'operational_status', 'capability' or 'self_referential' (got 'bogus')",
        ),
        (
            {
                "validation": {
                    "factRegistries": [
                        {
                            "id": "r",
                            "facts": [
                                {
                                    "id": "a",
                                    "category": "system_state",
                                    "subject": "(unclosed",
                                    "subjectIsRegex": True,
                                    "value": {"type": "state", "state": "up"},
                                }
                            ],
                        }
                    ]
                }
            },
            "validation.factRegistries[0].facts[0].subject: invalid regex '(unclosed': missing ) at position 9",
        ),
        (
            {
                "validation": {
                    "customDetectors": [
                        {"id": "d", "category": "existence", "patterns": ["ok", r"(a+)+\1"], "assertion": "x"}
                    ]
                }
            },
            r"validation.customDetectors[0].patterns[1]: pattern '(a+)+\\1' can backtrack catastrophically "
            "(nested quantifier)",
        ),
        (
            {
                "validation": {
                    "customDetectors": [{"id": "d", "category": "existence", "patterns": ["x" * 501], "assertion": "x"}]
                }
            },
            "validation.customDetectors[0].patterns[0]: pattern is 501 characters long; the limit is 500",
        ),
        (
            {"validation": {"agentOverrides": [{"agent": "x", "additionalRegistries": ["nope"]}]}},
            "validation.agentOverrides[0].additionalRegistries: unknown registry 'nope' (known: none)",
        ),
        (
            {"validation": {"agentOverrides": [{"agent": "x", "profile": "loose"}]}},
            "validation.agentOverrides[0].profile: Input should be 'strict', 'standard', 'lenient' or 'disabled' "
            "(got 'loose')",
        ),
        ({"validation": {"factRegistries": [{"id": "r"}, {"id": "r"}]}}, "validation.factRegistries: duplicate id 'r'"),
        ({"bogus": 1}, "bogus: unknown key (got 1)"),
    ],
)
def test_config_error_names_key_path_and_value(data, expected):
    assert error_of(data) == f"invalid config <dict>:\n  {expected}"


def test_yaml_syntax_error_names_line(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("validation:\n  enabled: true\n   oops: [\n")
    message = error_of(path)
    assert message.startswith(f"invalid config {path}:\n  not valid YAML at line 3")


def test_json_syntax_error_names_line(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"validation": {"enabled": tru}}')
    assert error_of(path) == (f"invalid config {path}:\n  not valid JSON: Expecting value at line 1 column 28")


def test_missing_file_is_a_config_error(tmp_path):
    assert error_of(tmp_path / "nope.yaml").endswith("cannot read file: No such file or directory")


def test_config_hash_is_stable_and_changes_with_content():
    a = load_config({"validation": {"minTextLength": 5}})
    assert a.config_hash == load_config({"validation": {"min_text_length": 5}}).config_hash
    assert a.config_hash != load_config({"validation": {"minTextLength": 6}}).config_hash


def test_config_hash_ignores_where_a_worker_runs_and_stores():
    rules = {"validation": {"minTextLength": 5}, "agents": {"defaultMode": "enforce"}}
    here = load_config(rules | {"storage": {"path": "a.duckdb"}, "processor": {"workers": 2}})
    there = load_config(rules | {"storage": {"path": "b.duckdb"}, "service": {"api": {"endpoint": "127.0.0.1:9"}}})
    assert here.config_hash == there.config_hash
    assert here.config_hash != load_config({"validation": {"minTextLength": 5}}).config_hash
