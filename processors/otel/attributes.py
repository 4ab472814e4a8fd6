"""Every span attribute and event name claimwatch reads or writes, in one place."""

# --- read: OpenTelemetry GenAI semantic conventions --------------------------------------------
GEN_AI_OPERATION_NAME = "gen_ai.operation.name"
GEN_AI_OUTPUT_MESSAGES = "gen_ai.output.messages"
GEN_AI_INPUT_MESSAGES = "gen_ai.input.messages"
GEN_AI_AGENT_ID = "gen_ai.agent.id"
GEN_AI_AGENT_NAME = "gen_ai.agent.name"
GEN_AI_SYSTEM = "gen_ai.system"  # the older name of gen_ai.provider.name; AutoGen's own spans: "autogen"
GEN_AI_CONVERSATION_ID = "gen_ai.conversation.id"
GEN_AI_TOOL_NAME = "gen_ai.tool.name"
GEN_AI_RESPONSE_ID = "gen_ai.response.id"  # the provider's id of one model response
GEN_AI_COMPLETION = "gen_ai.completion"  # attribute of the older gen_ai.content.completion event
GEN_AI_CONTENT_COMPLETION_EVENT = "gen_ai.content.completion"
# OpenLLMetry indexed form: gen_ai.completion.{i}.content|role, gen_ai.completion.{i}.tool_calls.{j}.name
GEN_AI_COMPLETION_PREFIX = "gen_ai.completion."
# Log-record (event) forms, received by the collector.
GEN_AI_CHOICE_EVENT = "gen_ai.choice"
GEN_AI_ASSISTANT_MESSAGE_EVENT = "gen_ai.assistant.message"
GEN_AI_OPERATION_DETAILS_EVENT = "gen_ai.client.inference.operation.details"
# The request's messages as events (OpenLLMetry and opentelemetry-instrumentation-openai-v2 in
# events mode): event name -> the role of the message it carries.
GEN_AI_INPUT_MESSAGE_EVENTS = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    GEN_AI_ASSISTANT_MESSAGE_EVENT: "assistant",
    "gen_ai.tool.message": "tool",
}
GEN_AI_EVENT_NAME = "event.name"

# --- read: OpenLLMetry / Traceloop decorators -------------------------------------------------
TRACELOOP_SPAN_KIND = "traceloop.span.kind"
TRACELOOP_ENTITY_NAME = "traceloop.entity.name"
TRACELOOP_ENTITY_OUTPUT = "traceloop.entity.output"
TRACELOOP_ENTITY_INPUT = "traceloop.entity.input"
# OpenLLMetry's LlamaIndex instrumentation names the tool on a workflow agent's call_tool step (so does
# OpenInference on its TOOL spans).
TOOL_NAME = "tool.name"
TOOL_ARGUMENTS = "tool.arguments"

# --- read: OpenInference (Arize Phoenix) -------------------------------------------------------
OPENINFERENCE_SPAN_KIND = "openinference.span.kind"
LLM_OUTPUT_MESSAGES_PREFIX = "llm.output_messages."
OUTPUT_VALUE = "output.value"
INPUT_VALUE = "input.value"
SESSION_ID = "session.id"
AGENT_NAME = "agent.name"
OPENINFERENCE_REDACTED = "__REDACTED__"
OPENINFERENCE_GRAPH_NODE = "graph.node.id"  # AutoGen AgentChat's AGENT spans: the agent's name
OPENINFERENCE_METADATA = "metadata"  # JSON; LangChain runs: ls_integration, langgraph_node

# --- read: AutoGen's runtime (autogen-core): its publish/process spans, roots of traces of their own
AUTOGEN_SENDER_AGENT_TYPE = "sender_agent_type"  # "<agent>_<team uuid>" in an AgentChat team
AUTOGEN_MESSAGE = "message"  # the message delivered, JSON: a chat message's whole content

# --- read: resource and claimwatch's own inputs ------------------------------------------------
SERVICE_NAME = "service.name"
AGENT_TRUST = "claimwatch.agent.trust"  # honoured only when the config allows it

# --- written: span annotations -----------------------------------------------------------------
VERDICT = "claimwatch.verdict"
MODE = "claimwatch.mode"
ENFORCED = "claimwatch.enforced"
CLAIMS_COUNT = "claimwatch.claims.count"
VIOLATIONS_COUNT = "claimwatch.violations.count"
CLAIMS_CATEGORIES = "claimwatch.claims.categories"
TRUST_SCORE = "claimwatch.trust.score"
TRUST_TIER = "claimwatch.trust.tier"
EVALUATION_US = "claimwatch.evaluation_us"
TRUNCATED = "claimwatch.truncated"
SOURCE = "claimwatch.source"
SKIPPED = "claimwatch.skipped"
BAILED_OUT = "claimwatch.bailed_out"  # the time budget ran out: later claims were not looked for
CHECKS = "claimwatch.checks"  # names of the checks that judged the span
DUPLICATE_OF = "claimwatch.duplicate_of"  # span id whose identical output was evaluated first

VIOLATION_EVENT = "claimwatch.violation"
CLAIM_EVENT = "claimwatch.claim"  # debug verbosity only
V_CATEGORY = "claimwatch.violation.category"
V_DETECTOR = "claimwatch.violation.detector"
V_SUBJECT = "claimwatch.violation.subject"
V_ASSERTION = "claimwatch.violation.assertion"
V_SEVERITY = "claimwatch.violation.severity"
V_REASON = "claimwatch.violation.reason"
V_ACTION = "claimwatch.violation.action"
V_FACT_ID = "claimwatch.violation.fact_id"
V_EXPECTED = "claimwatch.violation.expected"
V_MATCHED_TEXT = "claimwatch.violation.matched_text"  # debug verbosity only

C_CATEGORY = "claimwatch.claim.category"  # claim events: debug verbosity only
C_DETECTOR = "claimwatch.claim.detector"
C_SUBJECT = "claimwatch.claim.subject"
C_ASSERTION = "claimwatch.claim.assertion"
C_NEGATIVE = "claimwatch.claim.negative"
C_CONFIDENCE = "claimwatch.claim.confidence"
C_OFFSET = "claimwatch.claim.offset"
C_MATCHED_TEXT = "claimwatch.claim.matched_text"

EVALUATION_EVENT = "gen_ai.evaluation.result"
EVALUATION_NAME = "gen_ai.evaluation.name"
EVALUATION_SCORE_LABEL = "gen_ai.evaluation.score.label"
EVALUATION_SCORE_VALUE = "gen_ai.evaluation.score.value"
EVALUATION_EXPLANATION = "gen_ai.evaluation.explanation"
EVALUATION_NAME_VALUE = "claimwatch.output_validation"
