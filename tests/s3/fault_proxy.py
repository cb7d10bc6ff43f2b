"""A fault-injecting HTTP/1.1 proxy between lakeindex and an S3 server (moto), on loopback.

    fault_proxy.py --upstream http://127.0.0.1:PORT [--port P] [--rule JSON] [--log]

The S3 client is pointed at the proxy as its endpoint (AWS_ENDPOINT_URL=http://127.0.0.1:P;
path-style addressing). Requests arrive in origin form ("PUT /bucket/key HTTP/1.1") on keep-alive
connections; each is read whole (headers, then a body by Content-Length or chunked), numbered in
arrival order (1-based, across all connections) and forwarded on a fresh upstream connection
(Host and every signed header unchanged, so SigV4 signatures stay valid). The upstream answer is
read whole and sent back framed by Content-Length on the client's connection, which stays open.

One fault rule may be set (set_rule, or --rule on the command line):

    {"nth": k, "match": {"method": "PUT", "path_contains": "_versions/"}, "kind": KIND}

"match" is optional; with it, k counts only the requests that match (method equal, and the
request target -- path and query -- containing the string). KIND is one of
    drop_request        close the client's connection without forwarding request k
    lose_answer_once    forward request k (the server applies it), then close the client's
                        connection without the answer
    lose_answer_always  as lose_answer_once, for request k and every later request with the same
                        method and target (each retry is applied, each answer lost)
    http500 / http503   answer request k with that status and an S3-style XML error, unforwarded

`log` holds one LogEntry(seq, method, target, status, fault) per request, in arrival order:
status is the upstream's (or the injected one), None when no answer came; fault names the
fault applied to it, else None. Every socket operation has a timeout, every thread is a daemon,
and stop() closes the listener and every connection, so it returns promptly.
"""
import argparse
import collections
import json
import socket
import sys
import threading
import time
import urllib.parse

LogEntry = collections.namedtuple("LogEntry", "seq method target status fault")

KINDS = ("drop_request", "lose_answer_once", "lose_answer_always", "http500", "http503")
# The client process killed (FaultProxy.on_kill, set by the test) when request nth arrives, before
# it is forwarded, or after the store applied it and before the answer goes back.
KILLS = ("kill_before", "kill_after")
MAX_HEADER_BYTES = 64 * 1024
MAX_BODY_BYTES = 1 << 30


class _Closed(Exception):
    """The peer closed the connection (cleanly, between requests)."""


class _Bad(Exception):
    """A malformed message or a broken connection mid-message."""


def _read_head(f):
    """Start line and headers (a list of (name, value)) from a buffered socket file; _Closed at a
    clean EOF before the first byte."""
    lines = []
    total = 0
    while True:
        line = f.readline(MAX_HEADER_BYTES + 1)
        if not line:
            if not lines:
                raise _Closed()
            raise _Bad("connection closed inside the headers")
        total += len(line)
        if total > MAX_HEADER_BYTES:
            raise _Bad("headers too large")
        if line in (b"\r\n", b"\n"):
            if not lines:
                continue  # tolerate stray CRLF between requests
            break
        lines.append(line.rstrip(b"\r\n").decode("latin-1"))
    start, headers = lines[0], []
    for line in lines[1:]:
        if line[:1] in (" ", "\t") and headers:  # obsolete folding
            name, value = headers[-1]
            headers[-1] = (name, value + " " + line.strip())
            continue
        name, sep, value = line.partition(":")
        if not sep:
            raise _Bad("malformed header line %r" % line)
        headers.append((name.strip(), value.strip()))
    return start, headers


def _header(headers, name):
    name = name.lower()
    for k, v in headers:
        if k.lower() == name:
            return v
    return None


def _read_exact(f, n):
    if n > MAX_BODY_BYTES:
        raise _Bad("body too large")
    data = f.read(n)
    if data is None or len(data) != n:
        raise _Bad("connection closed inside a body (%d of %d bytes)" % (len(data or b""), n))
    return data


def _read_chunked(f):
    parts = []
    while True:
        line = f.readline(1024)
        if not line:
            raise _Bad("connection closed inside a chunked body")
        size = int(line.split(b";")[0].strip() or b"0", 16)
        if size == 0:
            while True:  # trailers
                t = f.readline(MAX_HEADER_BYTES)
                if not t or t in (b"\r\n", b"\n"):
                    break
            return b"".join(parts)
        parts.append(_read_exact(f, size))
        _read_exact(f, 2)


def _read_body(f, headers, *, until_close=False):
    te = (_header(headers, "Transfer-Encoding") or "").lower()
    if "chunked" in te:
        return _read_chunked(f)
    length = _header(headers, "Content-Length")
    if length is not None:
        return _read_exact(f, int(length))
    if until_close:
        chunks = []
        while True:
            c = f.read1(65536) if hasattr(f, "read1") else f.read(65536)
            if not c:
                return b"".join(chunks)
            chunks.append(c)
    return b""


_HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer",
               "upgrade", "expect", "content-length"}


def _error_body(status, target):
    code = {500: "InternalError", 503: "SlowDown"}.get(status, "InternalError")
    message = {500: "We encountered an internal error. Please try again.",
               503: "Please reduce your request rate."}.get(status, "Injected fault")
    resource = urllib.parse.urlsplit(target).path
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>%s</Code><Message>%s</Message>'
            "<Resource>%s</Resource><RequestId>fault-proxy</RequestId></Error>"
            % (code, message, resource)).encode()


class FaultProxy:
    """A threaded HTTP/1.1 proxy on 127.0.0.1 that forwards to `upstream` (http://host:port)."""

    def __init__(self, upstream, port=0, *, timeout=30.0, upstream_timeout=60.0, verbose=False):
        u = urllib.parse.urlsplit(upstream)
        if u.scheme != "http" or not u.hostname:
            raise ValueError("upstream must be http://host:port, got %r" % upstream)
        if u.hostname not in ("127.0.0.1", "localhost", "::1"):
            raise ValueError("the proxy forwards to loopback only, got %r" % upstream)
        self.upstream = (u.hostname, u.port or 80)
        self.timeout = timeout
        self.upstream_timeout = upstream_timeout
        self.verbose = verbose
        self._requested_port = port
        self._lock = threading.Lock()
        self._listener = None
        self._accept_thread = None
        self._conns = set()
        self._stopping = threading.Event()
        self._rule = None
        self._seq = 0
        self._matched = 0
        self._sticky = None  # (method, target) whose answers are always lost
        self.log = []
        self.port = None
        self.on_kill = None  # called for kill_before / kill_after: kills the client (the test's)

    # -- control ----------------------------------------------------------------------------
    def start(self):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", self._requested_port))
        s.listen(128)
        s.settimeout(0.2)  # accept() wakes up to notice stop()
        self._listener = s
        self.port = s.getsockname()[1]
        self._stopping.clear()
        self._accept_thread = threading.Thread(target=self._accept_loop, name="fault-proxy-accept", daemon=True)
        self._accept_thread.start()
        return self

    @property
    def endpoint(self):
        return "http://127.0.0.1:%d" % self.port

    def stop(self):
        self._stopping.set()
        if self._listener is not None:
            try:
                self._listener.close()
            except OSError:
                pass
        with self._lock:
            conns = list(self._conns)
        for c in conns:
            _shutdown(c)
        if self._accept_thread is not None:
            self._accept_thread.join(timeout=2)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def set_rule(self, rule):
        """Sets the one fault rule (None: none) and resets the request count and the log."""
        if rule is not None:
            rule = dict(rule)
            if rule.get("kind") not in KINDS + KILLS:
                raise ValueError("fault kind must be one of %s, got %r" % (KINDS + KILLS, rule.get("kind")))
            if not isinstance(rule.get("nth"), int) or rule["nth"] < 1:
                raise ValueError("nth must be an integer >= 1")
            match = rule.get("match")
            if match is not None and not set(match) <= {"method", "path_contains"}:
                raise ValueError("match takes method and path_contains, got %r" % match)
        with self._lock:
            self._rule = rule
            self._reset_locked()

    def reset(self):
        """Resets the request count and the log (the rule stays)."""
        with self._lock:
            self._reset_locked()

    def _reset_locked(self):
        self._seq = 0
        self._matched = 0
        self._sticky = None
        self.log = []

    def entries(self):
        with self._lock:
            return list(self.log)

    def fault_applied(self):
        with self._lock:
            return any(e.fault for e in self.log)

    # -- serving ----------------------------------------------------------------------------
    def _accept_loop(self):
        while not self._stopping.is_set():
            try:
                conn, _ = self._listener.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            conn.settimeout(self.timeout)
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._lock:
                if self._stopping.is_set():
                    _shutdown(conn)
                    return
                self._conns.add(conn)
            threading.Thread(target=self._serve, args=(conn,), name="fault-proxy-conn", daemon=True).start()

    def _decide(self, method, target):
        """Numbers the request and says which fault (if any) applies to it; adds its log entry."""
        with self._lock:
            self._seq += 1
            seq = self._seq
            fault = None
            rule = self._rule
            if self._sticky is not None and self._sticky == (method, target):
                fault = "lose_answer_always"
            elif rule is not None:
                match = rule.get("match")
                if match is None or ((match.get("method") is None or match["method"] == method) and
                                     match.get("path_contains", "") in target):
                    self._matched += 1
                    if self._matched == rule["nth"]:
                        fault = rule["kind"]
                        if fault == "lose_answer_always":
                            self._sticky = (method, target)
            entry_index = len(self.log)
            self.log.append(LogEntry(seq, method, target, None, fault))
            return seq, fault, entry_index

    def _set_status(self, index, status):
        with self._lock:
            if index < len(self.log):
                self.log[index] = self.log[index]._replace(status=status)

    def _serve(self, conn):
        f = conn.makefile("rb", buffering=65536)
        try:
            while not self._stopping.is_set():
                try:
                    start, headers = _read_head(f)
                except _Closed:
                    return
                parts = start.split(" ", 2)
                if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
                    raise _Bad("malformed request line %r" % start)
                method, target, version = parts
                if (_header(headers, "Expect") or "").lower() == "100-continue":
                    conn.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
                body = _read_body(f, headers)
                seq, fault, index = self._decide(method, target)
                if self.verbose:
                    print("fault-proxy: #%d %s %s%s" % (seq, method, target, " [%s]" % fault if fault else ""),
                          file=sys.stderr, flush=True)
                if fault == "drop_request":
                    return
                if fault == "kill_before":
                    self._kill()
                    return
                if fault in ("http500", "http503"):
                    status = 500 if fault == "http500" else 503
                    err = _error_body(status, target)
                    reason = "Internal Server Error" if status == 500 else "Service Unavailable"
                    out = ["HTTP/1.1 %d %s" % (status, reason), "Content-Type: application/xml",
                           "x-amz-request-id: fault-proxy",
                           "Content-Length: %d" % (0 if method == "HEAD" else len(err))]
                    conn.sendall(("\r\n".join(out) + "\r\n\r\n").encode("latin-1") +
                                 (b"" if method == "HEAD" else err))
                    self._set_status(index, status)
                    continue
                status, reason, rheaders, rbody = self._forward(method, target, headers, body)
                self._set_status(index, status)
                if fault in ("lose_answer_once", "lose_answer_always"):
                    return  # applied upstream; the client never hears of it
                if fault == "kill_after":
                    self._kill()
                    return
                out = ["HTTP/1.1 %d %s" % (status, reason)]
                for k, v in rheaders:
                    if k.lower() not in _HOP_BY_HOP:
                        out.append("%s: %s" % (k, v))
                # A HEAD answer keeps the object's Content-Length (and has no body).
                length = _header(rheaders, "Content-Length") if method == "HEAD" else str(len(rbody))
                if length is not None:
                    out.append("Content-Length: %s" % length)
                conn.sendall(("\r\n".join(out) + "\r\n\r\n").encode("latin-1") +
                             (b"" if method == "HEAD" else rbody))
                if (_header(headers, "Connection") or "").lower() == "close" or version == "HTTP/1.0":
                    return
        except (_Bad, OSError, ValueError) as e:
            if self.verbose and not self._stopping.is_set():
                print("fault-proxy: connection ended: %s" % e, file=sys.stderr, flush=True)
        finally:
            try:
                f.close()
            except OSError:
                pass
            _shutdown(conn)
            with self._lock:
                self._conns.discard(conn)

    def _kill(self):
        kill = self.on_kill
        if kill is not None:
            kill()

    def _forward(self, method, target, headers, body):
        """One request on a fresh upstream connection; the whole answer. A failure to reach the
        upstream is answered 502 (the client retries it like any 5xx)."""
        try:
            up = socket.create_connection(self.upstream, timeout=self.upstream_timeout)
        except OSError:
            return 502, "Bad Gateway", [("Content-Type", "text/plain")], b"upstream unreachable"
        with self._lock:
            self._conns.add(up)
        try:
            up.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            out = ["%s %s HTTP/1.1" % (method, target)]
            for k, v in headers:
                if k.lower() not in _HOP_BY_HOP:
                    out.append("%s: %s" % (k, v))
            out.append("Content-Length: %d" % len(body))
            out.append("Connection: close")
            up.sendall(("\r\n".join(out) + "\r\n\r\n").encode("latin-1") + body)
            uf = up.makefile("rb", buffering=65536)
            try:
                while True:
                    start, rheaders = _read_head(uf)
                    parts = start.split(" ", 2)
                    status = int(parts[1])
                    if 100 <= status < 200:
                        continue  # interim answers
                    break
                reason = parts[2] if len(parts) > 2 else ""
                if method == "HEAD" or status in (204, 304):
                    rbody = b""
                else:
                    rbody = _read_body(uf, rheaders, until_close=True)
                return status, reason, rheaders, rbody
            finally:
                uf.close()
        except (_Bad, _Closed, OSError, ValueError, IndexError):
            return 502, "Bad Gateway", [("Content-Type", "text/plain")], b"upstream failed"
        finally:
            with self._lock:
                self._conns.discard(up)
            try:
                up.close()
            except OSError:
                pass


def _shutdown(sock):
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    try:
        sock.close()
    except OSError:
        pass


def main(argv=None):
    p = argparse.ArgumentParser(description="Fault-injecting HTTP proxy for S3 tests (loopback only).")
    p.add_argument("--upstream", required=True, help="http://127.0.0.1:PORT of the S3 server")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--rule", help='JSON, e.g. {"nth": 3, "kind": "http503"}')
    p.add_argument("--log", action="store_true", help="print each request to stderr")
    args = p.parse_args(argv)
    proxy = FaultProxy(args.upstream, args.port, verbose=args.log)
    if args.rule:
        proxy.set_rule(json.loads(args.rule))
    proxy.start()
    print(json.dumps({"endpoint": proxy.endpoint}), flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        proxy.stop()


if __name__ == "__main__":
    main()
