"""OTLP/gRPC receiver: TraceService and LogsService on the opentelemetry-proto stubs."""

from __future__ import annotations

import logging
from concurrent import futures

import grpc
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2, logs_service_pb2_grpc
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc

from .engine import CollectorEngine, Overloaded
from .otlp import iter_spans

logger = logging.getLogger("claimwatch.grpc")


class TraceService(trace_service_pb2_grpc.TraceServiceServicer):
    def __init__(self, engine: CollectorEngine) -> None:
        self.engine = engine

    def Export(self, request, context):
        try:
            result = self.engine.accept_traces(list(iter_spans(request)))
        except Overloaded as exc:
            context.abort(grpc.StatusCode.UNAVAILABLE, f"{exc}; retry later")
        response = trace_service_pb2.ExportTraceServiceResponse()
        if result.rejected:
            response.partial_success.rejected_spans = result.rejected
            response.partial_success.error_message = result.message
        return response


class LogsService(logs_service_pb2_grpc.LogsServiceServicer):
    def __init__(self, engine: CollectorEngine) -> None:
        self.engine = engine

    def Export(self, request, context):
        try:
            self.engine.accept_logs(request)
        except Overloaded as exc:
            context.abort(grpc.StatusCode.UNAVAILABLE, f"{exc}; retry later")
        return logs_service_pb2.ExportLogsServiceResponse()


def start_grpc(endpoint: str, engine: CollectorEngine, max_bytes: int) -> tuple[grpc.Server, int]:
    """Start the gRPC server; returns it and the bound port (0 in the endpoint picks a free one)."""
    options = [("grpc.max_receive_message_length", max_bytes), ("grpc.so_reuseport", 0)]
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=8, thread_name_prefix="claimwatch-grpc"), options=options
    )
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(TraceService(engine), server)
    logs_service_pb2_grpc.add_LogsServiceServicer_to_server(LogsService(engine), server)
    port = server.add_insecure_port(endpoint)
    if port == 0:
        raise OSError(f"cannot listen for OTLP/gRPC on {endpoint}")
    server.start()
    return server, port
