"""OTLP/HTTP receiver: POST /v1/traces and /v1/logs, protobuf or JSON, gzip, chunked bodies.

Answers follow the OTLP spec: 200 with the service response (and
`partial_success` when spans were rejected), 400 with a `google.rpc.Status`
for malformed data, 413 over the size limit (measured after decompression,
so a gzip bomb is stopped while it inflates), 415 for other content types,
503 with Retry-After when the processing backlog is full. The answer uses
the request's content type.
"""

from __future__ import annotations

import logging
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf import json_format
from google.rpc import status_pb2
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceResponse
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

from .engine import CollectorEngine, Overloaded
from .otlp import MalformedRequest, iter_spans, parse_logs, parse_traces

logger = logging.getLogger("claimwatch.http")
PROTOBUF, JSON = "application/x-protobuf", "application/json"


class TooLarge(Exception):
    pass


class BadRequest(Exception):
    pass


class OtlpHttpServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], engine: CollectorEngine, max_bytes: int) -> None:
        super().__init__(address, OtlpHandler)
        self.engine = engine
        self.max_bytes = max_bytes


class OtlpHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: exporters reuse the connection
    server: OtlpHttpServer

    def log_message(self, fmt, *args):
        logger.debug("%s " + fmt, self.address_string(), *args)

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
            body = self._read_body()
            if route == "/v1/traces":
                request = parse_traces(body, content_type)
                result = self.server.engine.accept_traces(list(iter_spans(request)))
                response = ExportTraceServiceResponse()
                if result.rejected:
                    response.partial_success.rejected_spans = result.rejected
                    response.partial_success.error_message = result.message
            else:
                result = self.server.engine.accept_logs(parse_logs(body, content_type))
                response = ExportLogsServiceResponse()
            self._send(200, _encode(response, content_type), content_type)
        except TooLarge as exc:
            self.close_connection = True
            self._status(413, str(exc), content_type)
        except (BadRequest, MalformedRequest) as exc:
            self._status(400, str(exc), content_type)
        except Overloaded as exc:
            self._status(503, f"{exc}; retry later", content_type, retry_after=1)
        except Exception as exc:
            logger.exception("error handling %s", route)
            self._status(500, f"internal error: {type(exc).__name__}", content_type)

    def do_GET(self) -> None:
        self._status(405, "OTLP endpoints accept POST only", JSON)

    # --- body -------------------------------------------------------------------------------------
    def _read_body(self) -> bytes:
        limit = self.server.max_bytes
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            raw = self._read_chunked(limit)
        else:
            length = self.headers.get("Content-Length")
            if length is None:
                raise BadRequest("request has neither Content-Length nor chunked Transfer-Encoding")
            try:
                size = int(length)
            except ValueError:
                raise BadRequest(f"bad Content-Length {length!r}") from None
            if size > limit:
                self.close_connection = True
                raise TooLarge(f"body of {size} bytes is over the {limit}-byte limit")
            raw = self.rfile.read(size)
        encoding = self.headers.get("Content-Encoding", "identity").strip().lower()
        if encoding == "gzip":
            return _gunzip(raw, limit)
        if encoding not in ("identity", ""):
            raise BadRequest(f"unsupported Content-Encoding {encoding!r}; use gzip or none")
        return raw

    def _read_chunked(self, limit: int) -> bytes:
        parts, total = [], 0
        while True:
            line = self.rfile.readline(1024)
            try:
                size = int(line.split(b";", 1)[0].strip(), 16)
            except ValueError:
                raise BadRequest("malformed chunked body") from None
            if size == 0:
                while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                return b"".join(parts)
            total += size
            if total > limit:
                self.close_connection = True
                raise TooLarge(f"chunked body is over the {limit}-byte limit")
            parts.append(self.rfile.read(size))
            self.rfile.readline(8)  # CRLF after the chunk

    def _discard_body(self) -> None:
        length = self.headers.get("Content-Length")
        if length and length.isdigit() and int(length) <= self.server.max_bytes:
            self.rfile.read(int(length))
        else:
            self.close_connection = True

    # --- answers ----------------------------------------------------------------------------------
    def _status(self, code: int, message: str, content_type: str, retry_after: int | None = None) -> None:
        status = status_pb2.Status(code=_GRPC_CODE.get(code, 2), message=message)
        self._send(code, _encode(status, content_type), content_type, retry_after)

    def _send(self, code: int, body: bytes, content_type: str, retry_after: int | None = None) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        if retry_after is not None:
            self.send_header("Retry-After", str(retry_after))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)


# HTTP status -> google.rpc.Code for the Status body
_GRPC_CODE = {400: 3, 404: 5, 405: 12, 413: 8, 415: 3, 500: 13, 503: 14}


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
    return out
