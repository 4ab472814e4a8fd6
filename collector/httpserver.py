"""The HTTP server under the OTLP/HTTP receiver and the API: bounded, timed out, one write per answer.

The stdlib `ThreadingHTTPServer` listens with a backlog of 5 (200 exporters
connecting at once saw resets), starts a thread per connection without limit
(3,000 idle connections made 3,000 threads), never times a connection out (a
TLS ClientHello on the plain port waited forever) and writes headers and body
in two sends (Nagle plus delayed ACK: 40 ms per keep-alive answer).

Here the backlog is 1024; at most `max_connections` connections are served at
once, each on its own daemon thread, and the rest wait in the kernel's accept
queue (no thread, no file descriptor) until a slot frees; every socket has a
timeout, so an idle or stalled client frees its slot; the cap also stays under
the process's file-descriptor limit, so a flood on one listener cannot starve
the others of descriptors; a TLS handshake is answered at once; an answer is
one `send` on a TCP_NODELAY socket.
"""

from __future__ import annotations

import errno
import logging
import resource
import socket
import socketserver
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

logger = logging.getLogger("claimwatch.http")

# Descriptors kept for everything that is not a client connection (the database, its WAL,
# gRPC, logs, the forwarder); the rest is shared by the three listeners.
_RESERVED_FDS = 64
_LISTENERS = 4


class BadRequest(Exception):
    """The request is malformed (answer 400); the text says why."""


class TooLarge(Exception):
    """The body is over the byte limit (answer 413)."""


def connection_cap(requested: int) -> int:
    """`requested`, lowered to this listener's share of the file-descriptor limit."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return requested
    return max(4, min(requested, (soft - _RESERVED_FDS) // _LISTENERS))


class BoundedHTTPServer(HTTPServer):
    """An HTTP server with a connection cap, socket timeouts and a real listen backlog."""

    request_queue_size = 1024
    allow_reuse_address = True
    thread_name = "claimwatch-http-conn"
    # A request (headers and body, after an idle wait of at most `timeout_s`) must arrive within
    # this long: the socket timeout alone lets a client that sends a byte a minute hold a slot.
    request_deadline_s = 120.0

    def __init__(self, address, handler, *, max_connections: int = 256, timeout_s: float = 30.0) -> None:
        self.max_connections = connection_cap(max_connections)
        self.timeout_s = timeout_s
        self._slots = threading.BoundedSemaphore(self.max_connections)
        self._active = 0
        self._count_lock = threading.Lock()
        self._last_accept_error = 0.0
        self._deadlines: dict[socket.socket, float] = {}
        super().__init__(address, handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind also asks DNS for the host's FQDN, which nothing here uses.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = str(self.server_address[0]), self.server_address[1]

    @property
    def active_connections(self) -> int:
        return self._active

    def _handle_request_noblock(self) -> None:
        # A slot first: at the cap, connections stay in the accept queue instead of costing a thread.
        if not self._slots.acquire(timeout=0.2):
            return
        try:
            request, client_address = self.get_request()
        except OSError as exc:
            self._slots.release()
            if exc.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
                self._log_accept_error(exc)
                time.sleep(0.05)  # the listening socket stays readable: do not spin
            return
        try:
            thread = threading.Thread(
                target=self._serve_connection, args=(request, client_address), name=self.thread_name, daemon=True
            )
            with self._count_lock:
                self._active += 1
            thread.start()
        except Exception:
            with self._count_lock:
                self._active -= 1
            self._slots.release()
            self.shutdown_request(request)
            logger.exception("could not start a connection thread")

    def _serve_connection(self, request, client_address) -> None:
        try:
            request.settimeout(self.timeout_s)
            self.finish_request(request, client_address)
        except Exception:
            self.handle_error(request, client_address)
        finally:
            self.shutdown_request(request)
            with self._count_lock:
                self._active -= 1
            self._slots.release()

    def arm(self, sock: socket.socket) -> None:
        self._deadlines[sock] = time.monotonic() + self.timeout_s + self.request_deadline_s

    def disarm(self, sock: socket.socket) -> None:
        self._deadlines.pop(sock, None)

    def service_actions(self) -> None:
        """Between accepts (at least every 0.2 s): cut connections whose request is overdue."""
        now = time.monotonic()
        for sock, deadline in list(self._deadlines.items()):
            if deadline < now and self._deadlines.pop(sock, None) is not None:
                try:
                    sock.shutdown(socket.SHUT_RDWR)  # the handler's blocked read returns; it then closes
                except OSError:
                    pass

    def handle_error(self, request, client_address) -> None:
        logger.debug("connection from %s ended with an error", client_address, exc_info=True)

    def _log_accept_error(self, exc: OSError) -> None:
        now = time.monotonic()
        if now - self._last_accept_error > 10:
            self._last_accept_error = now
            logger.warning("cannot accept connections on %s: %s", self.server_address, exc)


class BoundedHandler(BaseHTTPRequestHandler):
    """HTTP/1.1 keep-alive handler: TCP_NODELAY, TLS detection, answers written in one send."""

    protocol_version = "HTTP/1.1"
    server: BoundedHTTPServer

    def setup(self) -> None:
        self.timeout = self.server.timeout_s
        super().setup()
        try:
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            pass

    def handle(self) -> None:
        try:
            first = self.rfile.peek(1)[:1]
        except (TimeoutError, OSError):
            return
        if first == b"\x16":  # a TLS handshake record: the client expects https
            self.wfile.write(
                b"HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: 55\r\n\r\n"
                b"this port speaks plain HTTP: use http://, not https://\n"
            )
            return
        super().handle()

    def _method_not_allowed(self) -> None:
        try:
            self.read_body(1 << 20)
        except (BadRequest, TooLarge):
            pass  # the connection is marked to close
        body = b"" if self.command == "HEAD" else b'{"error": "method not allowed: use GET or POST"}'
        self.send_body(405, body, "application/json", {"Allow": "GET, POST"})

    # Answered 405 rather than the stdlib's 501: the method is known, just not served here.
    do_HEAD = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_TRACE = _method_not_allowed

    def handle_one_request(self) -> None:
        self.server.arm(self.connection)
        try:
            super().handle_one_request()
        finally:
            self.server.disarm(self.connection)

    def log_message(self, fmt, *args):
        logger.debug("%s " + fmt, self.address_string(), *args)

    def send_body(self, code: int, body: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
        """Status, headers and body in one write."""
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        if self.close_connection:
            self.send_header("Connection", "close")
        self._headers_buffer.append(b"\r\n")
        self._headers_buffer.append(body)
        self.flush_headers()

    def read_body(self, limit: int, deadline_s: float = 60.0) -> bytes:
        """The request body (Content-Length or chunked), at most `limit` bytes, read within `deadline_s`.

        On any error the connection is marked to close: where the next request starts is unknown.
        """
        try:
            return self._read_body(limit, time.monotonic() + deadline_s)
        except (BadRequest, TooLarge):
            self.close_connection = True
            raise

    def _read_body(self, limit: int, deadline: float) -> bytes:
        encoding = self.headers.get_all("Transfer-Encoding") or []
        lengths = self.headers.get_all("Content-Length") or []
        if encoding:
            if len(encoding) != 1 or encoding[0].strip().lower() != "chunked":
                raise BadRequest(f"unsupported Transfer-Encoding {', '.join(encoding)!r}; use chunked or none")
            if lengths:
                raise BadRequest("request has both Content-Length and Transfer-Encoding")
            return self._read_chunked(limit, deadline)
        if not lengths:
            return b""
        values = {v.strip() for v in lengths}
        if len(values) != 1:
            raise BadRequest(f"conflicting Content-Length headers {sorted(values)}")
        text = values.pop()
        if not (text.isascii() and text.isdigit()) or len(text) > 18:
            raise BadRequest(f"bad Content-Length {text[:40]!r}: must be a non-negative decimal number")
        size = int(text)
        if size > limit:
            raise TooLarge(f"body of {size} bytes is over the {limit}-byte limit")
        return self._read_exact(size, deadline)

    def _read_exact(self, size: int, deadline: float) -> bytes:
        parts, remaining = [], size
        while remaining:
            if time.monotonic() > deadline:
                raise BadRequest("request body took too long to arrive")
            try:
                part = self.rfile.read1(min(remaining, 1 << 20))
            except TimeoutError:
                raise BadRequest("request body stalled") from None
            if not part:
                raise BadRequest(f"body ended after {size - remaining} of {size} bytes")
            parts.append(part)
            remaining -= len(part)
        return b"".join(parts)

    def _read_chunked(self, limit: int, deadline: float) -> bytes:
        parts, total = [], 0
        while True:
            line = self._line()
            size_text = line.split(b";", 1)[0].strip()
            if not size_text or len(size_text) > 16 or any(c not in b"0123456789abcdefABCDEF" for c in size_text):
                raise BadRequest(f"malformed chunk size {size_text[:20]!r}")
            size = int(size_text, 16)
            if size == 0:
                for _ in range(100):  # trailers, up to the blank line
                    if self._line() == b"":
                        return b"".join(parts)
                raise BadRequest("too many trailer lines after the chunked body")
            total += size
            if total > limit:
                raise TooLarge(f"chunked body is over the {limit}-byte limit")
            parts.append(self._read_exact(size, deadline))
            if self._line() != b"":
                raise BadRequest("chunk data is not followed by CRLF")

    def _line(self) -> bytes:
        """One CRLF-terminated line, without it; a line over 1 KiB or a closed stream is an error."""
        try:
            line = self.rfile.readline(1026)
        except TimeoutError:
            raise BadRequest("request body stalled") from None
        if not line.endswith(b"\n"):
            raise BadRequest("chunked body ends early or has an over-long line")
        return line.rstrip(b"\r\n")
