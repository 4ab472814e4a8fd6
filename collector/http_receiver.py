"""OTLP/HTTP receiver: POST /v1/traces and /v1/logs, protobuf or JSON, gzip, chunked bodies.

Answers follow the OTLP spec: 200 with the service response (and
`partial_success` when spans were rejected), 400 with a `google.rpc.Status`
for malformed data (a negative or non-numeric Content-Length or chunk size
included), 413 over the byte limit (measured while reading, chunked or not,
and again after decompression, so a gzip bomb is stopped while it inflates)
or over the span limit per request, 415 for other content types, 503 with
Retry-After when the processing backlog is full or the spool cannot be written.
The answer uses the request's content type. Connections are capped and timed
out (`httpserver`).
"""

from __future__ import annotations

import logging
import zlib

from google.protobuf import json_format
from google.rpc import status_pb2
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceResponse
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

from .engine import CollectorEngine, Overloaded
from .httpserver import BadRequest, BoundedHandler, BoundedHTTPServer, TooLarge
from .otlp import MalformedRequest, TooManyItems, count_log_records, count_spans, parse_logs, parse_traces
from .spool import Spool, SpoolError

logger = logging.getLogger("claimwatch.http")
PROTOBUF, JSON = "application/x-protobuf", "application/json"
__all__ = ["BadRequest", "OtlpHttpServer", "TooLarge"]


class OtlpHttpServer(BoundedHTTPServer):
    thread_name = "claimwatch-otlp-conn"

    def __init__(
        self,
        address: tuple[str, int],
        engine: CollectorEngine,
        max_bytes: int,
        spool: Spool | None = None,
    ) -> None:
        settings = engine.config.receivers.otlp.protocols.http
        super().__init__(
            address, OtlpHandler, max_connections=settings.max_connections, timeout_s=settings.timeout_s
        )
        self.engine = engine
        self.max_bytes = max_bytes
        self.max_spans = settings.max_spans_per_request
        self.spool = spool  # accepted requests are written here before the 200 (storage.spool)


class OtlpHandler(BoundedHandler):
    server: OtlpHttpServer

    def do_POST(self) -> None:
        route = self.path.split("?", 1)[0].rstrip("/")
        if route not in ("/v1/traces", "/v1/logs"):
            self._discard_body()
            self._status(404, f"no OTLP endpoint at {route or '/'}; use /v1/traces or /v1/logs", JSON)
            return
        content_type = self.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
        if content_type not in (PROTOBUF, JSON):
            self._discard_body()
            self._status(415, f"unsupported Content-Type {content_type!r}; use {PROTOBUF} or {JSON}", JSON)
            return
        try:
            body = self._body()
            self.server.engine.admit(len(body))  # refuse before decoding when memory is full
            limit = self.server.max_spans
            if route == "/v1/traces":
                request = parse_traces(body, content_type)
                _bound(count_spans(request), limit, "spans")
                result = self.server.engine.accept_request(request, wire=body if content_type == PROTOBUF else None)
                self._spool(result, "traces", content_type, body)
                response = ExportTraceServiceResponse()
                if result.rejected:
                    response.partial_success.rejected_spans = result.rejected
                    response.partial_success.error_message = result.message
            else:
                request = parse_logs(body, content_type)
                _bound(count_log_records(request), limit, "log records")
                self._spool(self.server.engine.accept_logs(request), "logs", content_type, body)
                response = ExportLogsServiceResponse()
            self.send_body(200, _encode(response, content_type), content_type)
        except (TooLarge, TooManyItems) as exc:
            self._status(413, str(exc), content_type)
        except (BadRequest, MalformedRequest) as exc:
            self._status(400, str(exc), content_type)
        except (Overloaded, SpoolError) as exc:
            self._status(503, f"{exc}; retry later", content_type, retry_after=1)
        except Exception as exc:
            logger.exception("error handling %s", route)
            self.close_connection = True
            self._status(500, f"internal error: {type(exc).__name__}", content_type)

    def _spool(self, result, signal: str, content_type: str, body: bytes) -> None:
        if self.server.spool is not None and result.accepted:
            self.server.spool.append(result.seq, signal, content_type, body)

    def do_GET(self) -> None:
        self._discard_body()
        self._status(405, "OTLP endpoints accept POST only", JSON)


    def _body(self) -> bytes:
        if not (self.headers.get("Content-Length") or self.headers.get("Transfer-Encoding")):
            self.close_connection = True
            raise BadRequest("request has neither Content-Length nor chunked Transfer-Encoding")
        raw = self.read_body(self.server.max_bytes)
        encoding = self.headers.get("Content-Encoding", "identity").strip().lower()
        if encoding == "gzip":
            return _gunzip(raw, self.server.max_bytes)
        if encoding not in ("identity", ""):
            raise BadRequest(f"unsupported Content-Encoding {encoding!r}; use gzip or none")
        return raw

    def _discard_body(self) -> None:
        """Read and drop a body we will not use, so the connection can serve the next request."""
        try:
            self.read_body(self.server.max_bytes)
        except (BadRequest, TooLarge):
            pass  # read_body marked the connection to close

    def _status(self, code: int, message: str, content_type: str, retry_after: int | None = None) -> None:
        status = status_pb2.Status(code=_GRPC_CODE.get(code, 2), message=message)
        headers = {"Retry-After": str(retry_after)} if retry_after is not None else None
        self.send_body(code, _encode(status, content_type), content_type, headers)


# HTTP status -> google.rpc.Code for the Status body
_GRPC_CODE = {400: 3, 404: 5, 405: 12, 413: 8, 415: 3, 500: 13, 503: 14}


def _bound(count: int, limit: int, what: str) -> None:
    if count > limit:
        raise TooManyItems(
            f"request carries {count} {what}, over the limit of {limit} per request "
            "(receivers.otlp.protocols.*.maxSpansPerRequest); send smaller batches"
        )


def _encode(message, content_type: str) -> bytes:
    if content_type == JSON:
        return json_format.MessageToJson(message, indent=None).encode()
    return message.SerializeToString()


def _gunzip(raw: bytes, limit: int) -> bytes:
    """Inflate in steps, stopping at `limit` bytes: a gzip bomb never grows past it."""
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(raw, limit + 1)
    except zlib.error as exc:
        raise BadRequest(f"body is not valid gzip: {exc}") from None
    if len(out) > limit or inflater.unconsumed_tail:
        raise TooLarge(f"decompressed body is over the {limit}-byte limit")
    if not inflater.eof:
        raise BadRequest("body is not valid gzip: the stream ends early")
    return out
