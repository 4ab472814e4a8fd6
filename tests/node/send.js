// Send one agent trace to claimwatch with a real Node OTLP exporter.
// usage: node send.js http|proto|grpc URL
const { NodeTracerProvider } = require("@opentelemetry/sdk-trace-node");
const { BatchSpanProcessor } = require("@opentelemetry/sdk-trace-base");
const { resourceFromAttributes } = require("@opentelemetry/resources");

const [kind, url] = process.argv.slice(2);
const Exporter = {
  http: () => require("@opentelemetry/exporter-trace-otlp-http").OTLPTraceExporter,
  proto: () => require("@opentelemetry/exporter-trace-otlp-proto").OTLPTraceExporter,
  grpc: () => require("@opentelemetry/exporter-trace-otlp-grpc").OTLPTraceExporter,
}[kind]();

async function main() {
  const exporter = new Exporter({ url });
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": `node-agent-${kind}` }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer("node-agent");
  const api = require("@opentelemetry/api");
  const agent = tracer.startSpan("invoke_agent node-worker", {
    attributes: { "gen_ai.agent.name": `node-worker-${kind}`, "gen_ai.conversation.id": "node-conv" },
  });
  const ctx = api.trace.setSpan(api.context.active(), agent);
  const chat = tracer.startSpan("chat model", {
    attributes: {
      "gen_ai.operation.name": "chat",
      "gen_ai.output.messages": JSON.stringify([
        { role: "assistant", parts: [{ type: "text", content: "Docker is not running on this host." }] },
      ]),
    },
  }, ctx);
  chat.end();
  agent.end();
  await provider.forceFlush();
  await provider.shutdown();
}

main().catch((err) => { console.error(err); process.exit(1); });
