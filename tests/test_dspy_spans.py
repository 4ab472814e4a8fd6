"""DSPy's spans under Arize's OpenInference instrumentation, as dspy 3.4.1 really wrote them (values copied
from tests/test_real_clients_haystack_dspy.py's runs, shortened): the model's marked fields, ReAct's tool
fields, its trajectory in the next prompt, its tool spans, and a block's redaction of the raw form."""

from __future__ import annotations

import json

from claimwatch.checks.redact import redacted_attributes
from claimwatch.grounding.trace import input_passages, span_passages
from claimwatch.otel.extract import extract
from claimwatch.otel.records import SpanRecord
from claimwatch.verify.actions import tool_call_of_span
from tests.helpers.real_clients import RESERVATION
from tests.test_real_clients import ANSWER

TRACE = "0" * 31 + "1"


def lm_span(content: str) -> SpanRecord:
    return SpanRecord(TRACE, "00000000000000aa", None, "LM.__call__", {
        "openinference.span.kind": "LLM", "llm.model_name": "gpt-4o-mini",
        "output.value": json.dumps([content]), "output.mime_type": "application/json",
        "llm.output_messages.0.message.role": "assistant", "llm.output_messages.0.message.content": content,
    })  # fmt: skip


STEP = ("[[ ## next_thought ## ]]\nI should run the command.\n\n[[ ## next_tool_name ## ]]\nbash\n\n"
        "[[ ## next_tool_args ## ]]\n{\"command\": \"echo 'Docker is not running'\"}\n\n[[ ## completed ## ]]")
ANSWERED = f"[[ ## reasoning ## ]]\nThe tool said so.\n\n[[ ## answer ## ]]\n{ANSWER}\n\n[[ ## completed ## ]]"


def test_a_react_step_is_its_thought_and_a_tool_call_not_its_arguments_or_markers():
    found = extract(lm_span(STEP))
    assert found.text == "I should run the command."
    assert [(c.name, json.loads(c.arguments)) for c in found.tool_calls] == [
        ("bash", {"command": "echo 'Docker is not running'"})]
    assert found.raw == STEP


def test_the_extraction_is_its_reasoning_and_answer_and_a_block_redacts_the_raw_form_and_the_fields():
    found = extract(lm_span(ANSWERED))
    assert found.text == f"The tool said so.\n\n{ANSWER}" and not found.tool_calls
    notice = "[blocked]"
    module = {"output.value": json.dumps({"reasoning": "The tool said so.", "answer": ANSWER})}  # Predict.forward
    assert ANSWER not in json.dumps(redacted_attributes(lm_span(ANSWERED).attributes, found.blocked_forms, notice))
    assert ANSWER not in redacted_attributes(module, found.blocked_forms, notice)["output.value"]


def test_text_without_markers_is_read_as_it_was():
    found = extract(lm_span(ANSWER))
    assert (found.text, found.raw, found.blocked_forms) == (ANSWER, None, (ANSWER,))


def test_a_tool_span_is_named_without_its_call_method_and_its_result_is_evidence():
    tool = SpanRecord(TRACE, "00000000000000ab", None, "get_reservation.__call__", {
        "openinference.span.kind": "TOOL", "input.value": json.dumps({"kwargs": {"code": "K7QX2"}}),
        "output.value": json.dumps(RESERVATION), "output.mime_type": "application/json",
    })  # fmt: skip
    name, arguments, _, _, _ = tool_call_of_span(tool)
    assert name == "get_reservation" and "K7QX2" in json.dumps(arguments)
    [passage] = span_passages(tool)
    assert passage.tool_name == "get_reservation" and RESERVATION in passage.text


def test_the_user_message_is_the_question_not_the_trajectory_that_echoes_the_tool_results():
    prompt = ("[[ ## question ## ]]\nWhat does reservation K7QX2 include?\n\n[[ ## trajectory ## ]]\n"
              "[[ ## thought_0 ## ]]\nLook it up.\n\n[[ ## tool_name_0 ## ]]\nget_reservation\n\n"
              "[[ ## tool_args_0 ## ]]\n{\"code\": \"K7QX2\"}\n\n[[ ## observation_0 ## ]]\n" + RESERVATION + "\n\n"
              "Respond with the corresponding output fields, starting with the field `[[ ## reasoning ## ]]`.")
    llm = SpanRecord(TRACE, "00000000000000ac", None, "LM.__call__", {
        "openinference.span.kind": "LLM",
        "llm.input_messages.0.message.role": "user", "llm.input_messages.0.message.content": prompt,
    })  # fmt: skip
    passages, query = input_passages(llm)
    assert query.startswith("What does reservation K7QX2 include?") and RESERVATION not in query
    assert all(RESERVATION not in p.text for p in passages)
