// A Vercel AI SDK agent with its own telemetry on (`experimental_telemetry`), exporting real OTLP/HTTP.
// usage: node vercel_agent.js SCENARIO --llm BASE_URL --otlp URL --function-id NAME --service NAME
//                              [--run TAG] [--stream]
//   ops:  one tool, check_docker; the model calls it, gets its result, answers
//   desk: get_reservation(code) and bash(command); the model calls both, then answers
// generateText (Chat Completions) by default; --stream runs streamText (Responses API) instead, so both
// of the SDK's span families (ai.generateText.doGenerate, ai.streamText.doStream) and both of the
// provider's APIs are exercised. Prints one JSON line: {"answer", "spans"} (spans exported).
const { NodeTracerProvider } = require("@opentelemetry/sdk-trace-node");
const { BatchSpanProcessor } = require("@opentelemetry/sdk-trace-base");
const { resourceFromAttributes } = require("@opentelemetry/resources");
const { OTLPTraceExporter } = require("@opentelemetry/exporter-trace-otlp-http");
const { generateText, streamText, tool, stepCountIs } = require("ai");
const { createOpenAI } = require("@ai-sdk/openai");
const { z } = require("zod");

// The same canned tools and prompts as tests/helpers/real_clients.py.
const PROMPT = "Is docker running on the build host?";
const TOOL_RESULT = "docker.service: active (running) since 09:12";
const RESERVATION_CODE = "K7QX2";
const RESERVATION = `Reservation ${RESERVATION_CODE}: 1 checked bag, total price $120, flight LH 404 on 2026-12-01.`;
const INSTALLED = "Successfully installed requests-2.32.3";
const DESK_PROMPT = `What does reservation ${RESERVATION_CODE} include? Also make sure requests is installed.`;

const TOOLS = {
  ops: {
    check_docker: tool({
      description: "Reports the state of the docker service.",
      inputSchema: z.object({}),
      execute: async () => TOOL_RESULT,
    }),
  },
  desk: {
    get_reservation: tool({
      description: "Looks up a reservation by its code.",
      inputSchema: z.object({ code: z.string() }),
      execute: async ({ code }) => (code === RESERVATION_CODE ? RESERVATION : `No reservation ${code}.`),
    }),
    bash: tool({
      description: "Runs a shell command on the build host (canned answers: nothing is run).",
      inputSchema: z.object({ command: z.string() }),
      execute: async ({ command }) => (command.startsWith("pip install") ? INSTALLED : ""),
    }),
  },
};

function options(argv) {
  const out = { scenario: argv[0], stream: false };
  for (let i = 1; i < argv.length; i++) {
    if (argv[i] === "--stream") out.stream = true;
    else out[argv[i].replace(/^--/, "").replace(/-(.)/g, (_, c) => c.toUpperCase())] = argv[++i];
  }
  return out;
}

class Counting {
  // Counts the spans handed to the exporter, so the test knows how many to wait for.
  constructor(inner) { this.inner = inner; this.count = 0; }
  onStart(span, ctx) { this.inner.onStart(span, ctx); }
  onEnd(span) { this.count++; this.inner.onEnd(span); }
  forceFlush() { return this.inner.forceFlush(); }
  shutdown() { return this.inner.shutdown(); }
}

async function main() {
  const opt = options(process.argv.slice(2));
  const counting = new Counting(new BatchSpanProcessor(new OTLPTraceExporter({ url: opt.otlp })));
  const provider = new NodeTracerProvider({
    // The run's tag lets a test tell its spans from those of runs beside it.
    resource: resourceFromAttributes({ "service.name": opt.service, "claimwatch.test.run": opt.run || "" }),
    spanProcessors: [counting],
  });
  provider.register(); // the async-context manager: the SDK's spans nest under each other
  const openai = createOpenAI({ baseURL: opt.llm, apiKey: "test-key" });
  const call = {
    model: opt.stream ? openai.responses("gpt-test") : openai.chat("gpt-test"),
    tools: TOOLS[opt.scenario],
    stopWhen: stepCountIs(5),
    prompt: opt.scenario === "desk" ? DESK_PROMPT : PROMPT,
    experimental_telemetry: { isEnabled: true, functionId: opt.functionId },
  };
  let answer;
  if (opt.stream) {
    const result = streamText(call);
    for await (const _ of result.textStream); // eslint-disable-line no-unused-vars
    answer = await result.text;
  } else {
    answer = (await generateText(call)).text;
  }
  await provider.forceFlush();
  await provider.shutdown();
  console.log(JSON.stringify({ answer, spans: counting.count }));
}

main().catch((err) => { console.error(err); process.exit(1); });
