"""What LlamaIndex's two instrumentations write, read span by span (tests/test_real_clients_llamaindex.py runs
the real clients end to end): what a model said among the workflow steps that hand it on, which agent runs,
what a tool got and gave, which documents a retriever found, and a blocked answer cut short in a repr.

The spans are built as Arize's OpenInference and Traceloop's OpenLLMetry LlamaIndex instrumentations wrote them
for a `FunctionAgent` and a query engine (llama-index-core 0.14).
"""

from __future__ import annotations

import functools
import json

from claimwatch.checks.redact import redacted_attributes
from claimwatch.grounding.trace import evidence_for, span_passages
from claimwatch.otel.extract import extract
from claimwatch.otel.records import SpanRecord
from claimwatch.verify.actions import tool_call_of_span
from tests.helpers.real_clients import AGENT, RESERVATION, RESERVATION_CODE, TOOL_RESULT
from tests.otlp_helpers import FACTS
from tests.test_real_clients import ANSWER


def _span(name: str, attributes: dict, parent: str | None = None, end: int = 0) -> SpanRecord:
    return SpanRecord("t", name, parent, name, attributes, (), {}, end, end)


def _message(role: str, text: str) -> dict:
    """A ChatMessage as OpenLLMetry's LlamaIndex instrumentation serializes it."""
    return {"role": role, "additional_kwargs": {}, "blocks": [{"block_type": "text", "text": text}]}


def _step(name: str, output, **attributes) -> SpanRecord:
    """An OpenLLMetry span of a LlamaIndex dispatcher step: `<Class>.task`, entity name and all."""
    attrs = {"traceloop.span.kind": "task", "traceloop.entity.name": name, **attributes}
    if output is not None:
        attrs["traceloop.entity.output"] = json.dumps(output)
    return _span(name, attrs)


TOOL_CALL_RESULT = {"tool_name": "get_reservation", "tool_kwargs": {"code": RESERVATION_CODE}, "tool_id": "call_1",
                    "tool_output": {"blocks": [{"block_type": "text", "text": RESERVATION}], "tool_name":
                                    "get_reservation", "raw_input": {"args": [], "kwargs": {"code": RESERVATION_CODE}},
                                    "raw_output": RESERVATION, "is_error": False}, "return_direct": False}  # fmt: skip


def test_openllmetry_llamaindex_steps_say_only_the_models_message_or_a_querys_response():
    agent_input = {"input": [_message("system", "Answer questions."), _message("user", "Is docker running?")],
                   "current_agent_name": AGENT}  # fmt: skip
    stop = {"result": {"response": _message("assistant", ANSWER), "structured_response": None,
                       "current_agent_name": AGENT, "tool_calls": [], "retry_messages": []}}  # fmt: skip
    node = json.dumps({"node": {"id_": "n1", "text": RESERVATION, "class_name": "TextNode"}, "score": 0.2,
                       "class_name": "NodeWithScore"})  # fmt: skip
    # The model's answer as the agent's StopEvent, a query engine's Response or a synthesizer's string.
    assert extract(_step("BaseWorkflowAgent.task", stop)).text == ANSWER
    assert extract(_step("RetrieverQueryEngine.workflow", {"response": ANSWER, "metadata": {}})).text == ANSWER
    assert extract(_step("CompactAndRefine.task", ANSWER)).text == ANSWER
    # The prompts handed between steps, a tool's result, split documents and retrieved nodes are no one speaking.
    for output in (agent_input, TOOL_CALL_RESULT, TOOL_CALL_RESULT["tool_output"], [RESERVATION], [node],
                   {"query_satisfied": True, "answer": ANSWER}, _message("user", "Is docker running?")):  # fmt: skip
        assert extract(_step("BaseWorkflowAgent.task", output)) is None, output
    # A Traceloop SDK task (its entity is named without the kind) is still read whole.
    sdk = _span("summarize.task", {"traceloop.span.kind": "task", "traceloop.entity.name": "summarize",
                                   "traceloop.entity.output": json.dumps([ANSWER])})  # fmt: skip
    assert extract(sdk).text == ANSWER


def test_openinference_llamaindex_prepared_chat_request_is_no_output():
    messages = ["ChatMessage(role=<MessageRole.SYSTEM: 'system'>, additional_kwargs={}, blocks=[TextBlock("
                "block_type='text', text='Answer questions.')])", "ChatMessage(role=<MessageRole.TOOL: 'tool'>, "
                f"additional_kwargs={{}}, blocks=[TextBlock(block_type='text', text='{TOOL_RESULT}')])"]  # fmt: skip
    tools = [{"type": "function", "function": {"name": "check_docker", "parameters": {}}}]
    prepare = _span("OpenAI._prepare_chat_with_tools", {"openinference.span.kind": "LLM",
                    "output.value": json.dumps({"messages": messages, "tools": tools})})  # fmt: skip
    assert extract(prepare) is None
    # The predict step above the chat call gives the answer as plain text: it is read (and is a repeat).
    predict = _span("OpenAI.predict", {"openinference.span.kind": "LLM", "output.value": ANSWER})
    assert extract(predict).text == ANSWER


@functools.cache
def _pipeline():
    from claimwatch.checks.pipeline import Pipeline

    return Pipeline({"validation": FACTS})


def _identify(span: SpanRecord, *ancestors: SpanRecord, earlier: tuple = ()):
    chain = [span, *ancestors]
    linked = [s._replace(parent_span_id=chain[i + 1].span_id if i + 1 < len(chain) else None)
              for i, s in enumerate(chain)]  # fmt: skip
    by_id = {s.span_id: s for s in linked}
    return _pipeline().identify(linked[0], by_id.get, lambda: list(earlier))


def test_llamaindex_agent_is_named_by_the_events_its_workflow_steps_hand_on():
    llm = _span("OpenAI.astream_chat", {"openinference.span.kind": "LLM"})
    setup = ("AgentSetup(input=[ChatMessage(role=<MessageRole.USER: 'user'>, additional_kwargs={}, blocks=["
             f"TextBlock(block_type='text', text='Is docker running?')])], current_agent_name='{AGENT}')")  # fmt: skip
    # OpenInference: the step that calls the model got the event naming the agent.
    step = _span("BaseWorkflowAgent.run_agent_step", {"openinference.span.kind": "CHAIN",
                 "input.value": json.dumps({"ctx": "<Context object>", "ev": setup})})  # fmt: skip
    root = _span("FunctionAgent.run", {"openinference.span.kind": "CHAIN"})
    assert _identify(llm, step, root).agent_id == AGENT
    # OpenLLMetry leaves that step bare: the step before it, which set the agent up, names it.
    chat = _span("openai.chat", {"gen_ai.operation.name": "chat"})
    bare = _step("BaseWorkflowAgent.task", None)
    workflow = _span("FunctionAgent.workflow", {"traceloop.span.kind": "workflow",
                     "traceloop.entity.name": "FunctionAgent.workflow"})  # fmt: skip
    set_up = _step("BaseWorkflowAgent.task", {"input": [_message("user", "Is docker running?")],
                                              "current_agent_name": AGENT})  # fmt: skip
    other = _step("BaseWorkflowAgent.task", {"input": [], "current_agent_name": "researcher"})
    assert _identify(chat, bare, workflow, earlier=(other, set_up)).agent_id == AGENT
    assert _identify(chat, bare, workflow, earlier=(set_up, other)).agent_id == "researcher"  # after a handoff
    # A name OpenInference's 200-character repr cut is no name; without one, the service names the agent.
    cut = _span("BaseWorkflowAgent.init_run", {"output.value": "AgentInput(input=[...], current_agent_name='ops-he..."})
    assert _identify(chat._replace(resource={"service.name": "ops-app"}), earlier=(cut,)).agent_id == "ops-app"
    # Only LlamaIndex's agent-workflow steps are read.
    stranger = _span("MyStep.task", {"traceloop.entity.output": json.dumps({"current_agent_name": "x"})})
    assert _identify(chat, earlier=(stranger,)).agent_id == "unknown"


def test_llamaindex_tool_spans_give_the_tools_own_arguments_result_and_call_id():
    openinference = _span("FunctionTool.acall", {
        "openinference.span.kind": "TOOL", "tool.name": "get_reservation",
        "tool.parameters": json.dumps({"properties": {"code": {"type": "string"}}}),
        "input.value": json.dumps({"kwargs": {"code": RESERVATION_CODE}}),
        "output.value": json.dumps(TOOL_CALL_RESULT["tool_output"])})  # fmt: skip
    openllmetry = _step("BaseWorkflowAgent.task", TOOL_CALL_RESULT, **{
        "tool.name": "get_reservation", "tool.arguments": json.dumps({"code": RESERVATION_CODE})})  # fmt: skip
    for span, call_id in ((openinference, None), (openllmetry, "call_1")):
        name, args, result, _, got_id = tool_call_of_span(span)
        assert (name, json.loads(args), result, got_id) == ("get_reservation", {"code": RESERVATION_CODE},
                                                           RESERVATION, call_id), span.name  # fmt: skip
        [passage] = span_passages(span)
        assert (passage.source, passage.text, passage.tool_name) == ("tool_result", RESERVATION, "get_reservation")
    # The FunctionTool step under OpenLLMetry's call_tool step names no tool: the call is counted once.
    assert tool_call_of_span(_step("FunctionTool.task", TOOL_CALL_RESULT["tool_output"])) is None


def test_openllmetry_llamaindex_retrieved_nodes_are_documents_and_a_prompt_quoting_them_leaves_them_to_it():
    def node(text: str, score: float) -> str:
        return json.dumps({"node": {"id_": "n", "text": text, "class_name": "TextNode"}, "score": score,
                           "class_name": "NodeWithScore"})  # fmt: skip

    policy = "Baggage policy: economy fares include one cabin bag; checked bags cost $35 each."
    retriever = _step("VectorIndexRetriever.task", [node(RESERVATION, 0.3), node(policy, 0.2)], end=1)
    assert [(p.source, p.text) for p in span_passages(retriever)] == [("retrieval", RESERVATION), ("retrieval", policy)]
    # A splitter's nodes (no score) are the index being built, not what a query found.
    splitter = _step("SentenceSplitter.task", [json.dumps({"id_": "n", "text": RESERVATION, "class_name": "TextNode"})])
    assert span_passages(splitter) == []
    # The RAG prompt quotes the documents: the retriever's span keeps them, the prompt the rest.
    prompt = f"Context information is below.\n---\n{RESERVATION}\n\n{policy}\n---\nQuery: What does it include?"
    messages = json.dumps([{"role": "user", "parts": [{"type": "text", "content": prompt}]}])
    chat = _span("openai.chat", {"gen_ai.input.messages": messages}, end=2)
    passages, _ = evidence_for(chat, [retriever])
    [user] = [p for p in passages if p.source == "user_message"]
    assert RESERVATION not in user.text and policy not in user.text and "Query: What does it include?" in user.text


def test_blocked_text_cut_short_in_a_repr_is_redacted():
    # OpenInference writes a LlamaIndex step's result as its repr cut at 200 characters, with an ellipsis.
    cut = ("AgentOutput(response=ChatMessage(role=<MessageRole.ASSISTANT: 'assistant'>, additional_kwargs={}, "
           "blocks=[TextBlock(block_type='text', text='" + ANSWER[:40] + "...")  # fmt: skip
    out = redacted_attributes({"output.value": cut, "other": ANSWER[:40]}, [ANSWER], "[blocked]")
    assert out["output.value"].endswith("text='[blocked]") and ANSWER[:20] not in out["output.value"]
    assert out["other"] == "[blocked]"
    # The start of a blocked text shorter than a part, or not at the end, is left alone.
    assert redacted_attributes({"a": "x " + ANSWER[:20], "b": ANSWER[:30] + " and then"}, [ANSWER], "[b]") == {}
