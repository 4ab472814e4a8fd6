"""OTLP/gRPC receiver: TraceService and LogsService, decoded in the handler.

The services are registered as generic handlers that receive the raw request
bytes: when grpcio itself deserializes and protobuf parsing fails, it answers
`INTERNAL` and leaks about 19 KB per call. Here a malformed body is answered
`INVALID_ARGUMENT` with the parse error, as the OTLP spec asks, and costs nothing.
"""

from __future__ import annotations

import logging
from concurrent import futures

import grpc
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

from .engine import CollectorEngine, Overloaded
from .otlp import MalformedRequest, TooManyItems, count_log_records, count_spans, parse_logs, parse_traces
from .spool import Spool, SpoolError

logger = logging.getLogger("claimwatch.grpc")
TRACE_SERVICE = "opentelemetry.proto.collector.trace.v1.TraceService"
LOGS_SERVICE = "opentelemetry.proto.collector.logs.v1.LogsService"
_PROTOBUF = "application/x-protobuf"


class _Receiver:
    def __init__(self, engine: CollectorEngine, max_spans: int, spool: Spool | None = None) -> None:
        self.engine = engine
        self.max_spans = max_spans
        self.spool = spool  # accepted requests are written here before the answer (storage.spool)

    def export_traces(self, body: bytes, context) -> trace_service_pb2.ExportTraceServiceResponse:
        self._admit(body, context)
        request = self._decode(parse_traces, body, count_spans, "spans", context)
        try:
            result = self.engine.accept_request(request, wire=body)
            self._spool(result, "traces", body)
        except (Overloaded, SpoolError) as exc:
            context.abort(grpc.StatusCode.UNAVAILABLE, f"{exc}; retry later")
        response = trace_service_pb2.ExportTraceServiceResponse()
        if result.rejected:
            response.partial_success.rejected_spans = result.rejected
            response.partial_success.error_message = result.message
        return response

    def export_logs(self, body: bytes, context) -> logs_service_pb2.ExportLogsServiceResponse:
        self._admit(body, context)
        request = self._decode(parse_logs, body, count_log_records, "log records", context)
        try:
            self._spool(self.engine.accept_logs(request), "logs", body)
        except (Overloaded, SpoolError) as exc:
            context.abort(grpc.StatusCode.UNAVAILABLE, f"{exc}; retry later")
        return logs_service_pb2.ExportLogsServiceResponse()

    def _admit(self, body: bytes, context) -> None:
        """Refuse before decoding when the collector's memory bound is full."""
        try:
            self.engine.admit(len(body))
        except Overloaded as exc:
            context.abort(grpc.StatusCode.UNAVAILABLE, f"{exc}; retry later")

    def _spool(self, result, signal: str, body: bytes) -> None:
        if self.spool is not None and result.accepted:
            self.spool.append(result.seq, signal, _PROTOBUF, body)

    def _decode(self, parse, body: bytes, count, what: str, context):
        try:
            request = parse(body, _PROTOBUF)
        except MalformedRequest as exc:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        n = count(request)
        if n > self.max_spans:
            context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                str(
                    TooManyItems(
                        f"request carries {n} {what}, over the limit of {self.max_spans} per request "
                        "(receivers.otlp.protocols.grpc.maxSpansPerRequest); send smaller batches"
                    )
                ),
            )
        return request


def _serialize(message) -> bytes:
    return message.SerializeToString()


def _handlers(receiver: _Receiver) -> list[grpc.GenericRpcHandler]:
    def unary(fn):
        # No request_deserializer: the handler gets the bytes and parses them itself.
        return grpc.unary_unary_rpc_method_handler(fn, request_deserializer=None, response_serializer=_serialize)

    return [
        grpc.method_handlers_generic_handler(TRACE_SERVICE, {"Export": unary(receiver.export_traces)}),
        grpc.method_handlers_generic_handler(LOGS_SERVICE, {"Export": unary(receiver.export_logs)}),
    ]


def start_grpc(
    endpoint: str, engine: CollectorEngine, max_bytes: int, spool: Spool | None = None
) -> tuple[grpc.Server, int]:
    """Start the gRPC server; returns it and the bound port (0 in the endpoint picks a free one)."""
    settings = engine.config.receivers.otlp.protocols.grpc
    options = [
        ("grpc.max_receive_message_length", max_bytes),
        ("grpc.so_reuseport", 0),
        # Idle connections are closed (clients reconnect transparently), so they do not pile up.
        ("grpc.max_connection_idle_ms", 5 * 60 * 1000),
        ("grpc.max_concurrent_streams", 100),
    ]
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=8, thread_name_prefix="claimwatch-grpc"),
        handlers=_handlers(_Receiver(engine, settings.max_spans_per_request, spool)),
        options=options,
        # Calls waiting for a worker beyond this are refused RESOURCE_EXHAUSTED instead of queued without end.
        maximum_concurrent_rpcs=256,
    )
    try:
        port = server.add_insecure_port(endpoint)
    except RuntimeError as exc:  # grpcio raises RuntimeError("Failed to bind ...")
        raise OSError(f"cannot listen for OTLP/gRPC on {endpoint}: {exc}") from None
    if port == 0 and not endpoint.endswith(":0"):
        raise OSError(f"cannot listen for OTLP/gRPC on {endpoint}")
    server.start()
    return server, port
