#!/usr/bin/env python3
"""An HTTP reverse proxy in front of a CalDAV server that misbehaves on purpose, for the sync
tests (Tests/e2e/sync.sh). Standard library only; it listens on 127.0.0.1 only.

  faultproxy.py serve --upstream URL --control FILE --log FILE --port-file FILE [--port N]
      forward every request to URL's host (http), log it, and apply the control file's rules.
      Writes the port it listens on to --port-file once it accepts connections (--port 0, the
      default, picks a free one). SIGTERM/SIGINT stop it. When the upstream refuses the
      connection the answer is 502.
  faultproxy.py rules FILE [JSON]
      replace the control file (atomically) with JSON (default {"rules": []}, i.e. no faults);
      every replacement counts the requests anew and releases a paused request
  faultproxy.py wait LOG EVENT [--after N] [--timeout SECONDS]
      wait until the log has a line with "event": EVENT (after its first N lines); print it;
      exit 1 on timeout
  faultproxy.py requests LOG [--after N]
      the logged requests, one a line: METHOD PATH DEPTH KIND STATUS ACTION CONDITION
      (CONDITION: if-none-match:VALUE, if-match, or -)
  faultproxy.py lines LOG
      how many lines the log has (a mark for --after)

The control file is JSON: {"rules": [RULE...]}. It is read again whenever it changes (another
inode, size or mtime); requests are numbered from 1 anew from then on. A RULE matches a request
by any of
  "method": "PUT" or ["PUT", "DELETE"]   "path": a regular expression searched in the path
  "kind": the request body's kind (below)  "depth": the Depth header
  "n": the N-th request since the rules were read   "nth": the N-th request this rule matched
and fires at most "times" times (default 1 when "n" or "nth" is given, else every time). The
first rule that matches and may fire decides; its "action" is one of
  "status"     answer "status" (e.g. 412, 500, 401) with "body" (default a short text) without
               forwarding; "forward": true forwards first (the server acts, the client hears the
               failure); 401 carries WWW-Authenticate: Basic
  "malformed"  forward, then replace the body with "body" (default: XML cut off in the middle,
               or text that is not iCalendar for a GET), keeping the status
  "silence"    read the request and answer nothing, holding the connection "seconds"
               (default 3600), then close it
  "drop"       close the connection without an answer ("forward": true forwards first)
  "pause"      log {"event": "paused"} and hold the request until the control file changes,
               then carry on; "when": "before" (default: not yet forwarded; if the client is
               gone by then, it never is: {"event": "dropped"}) or "after" (forwarded, the
               server acted, the answer held back)

Every request is one JSON line in the log: seq (since start), n (since the rules were read),
method, path, depth, kind (the body: "-" none, "ics" iCalendar, the XML root element's name
such as "propfind", "sync-collection", "calendar-multiget", or "data"), if_match,
if_none_match, auth (whether credentials were sent; never their value), status (what the
client got, null if nothing), action (the rule's, or "forward"). Events are lines with
"event" (paused, released, dropped, silence, upstream-down).
"""
import http.client
import http.server
import json
import os
import re
import signal
import socket
import socketserver
import sys
import threading
import time
import urllib.parse
import xml.etree.ElementTree as ET

HOP_HEADERS = {
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailers",
    "transfer-encoding",
    "upgrade",
    "content-length",
}


class Control:
    """The rules of the control file, read again when the file changes."""

    def __init__(self, path, log):
        self.path = path
        self.log = log
        self.lock = threading.Lock()
        self.stamp = None
        self.rules = []
        self.count = 0
        self.generation = 0
        self._reload()

    def _file_stamp(self):
        try:
            st = os.stat(self.path)
            return (st.st_ino, st.st_size, st.st_mtime_ns)
        except FileNotFoundError:
            return None

    def _reload(self):
        stamp = self._file_stamp()
        if stamp == self.stamp:
            return False
        self.stamp = stamp
        rules = []
        if stamp is not None:
            try:
                with open(self.path, encoding="utf-8") as f:
                    text = f.read()
                rules = json.loads(text).get("rules", []) if text.strip() else []
            except (OSError, ValueError) as error:
                self.log.event("bad-control", error=str(error))
                rules = []
        for rule in rules:
            rule["_matched"] = 0
            rule["_fired"] = 0
        self.rules = rules
        self.count = 0
        self.generation += 1
        return True

    def decide(self, request):
        """The rule that fires for this request (or None), and the request's number."""
        with self.lock:
            self._reload()
            self.count += 1
            n = self.count
            chosen = None
            for rule in self.rules:
                if not matches(rule, request):
                    continue
                rule["_matched"] += 1
                if chosen is not None:
                    continue
                if "n" in rule and rule["n"] != n:
                    continue
                if "nth" in rule and rule["nth"] != rule["_matched"]:
                    continue
                limit = rule.get("times", 1 if ("n" in rule or "nth" in rule) else None)
                if limit is not None and rule["_fired"] >= limit:
                    continue
                rule["_fired"] += 1
                chosen = rule
            return chosen, n, self.generation

    def changed_since(self, generation):
        with self.lock:
            self._reload()
            return self.generation != generation


def matches(rule, request):
    method = rule.get("method")
    if method is not None:
        methods = [method] if isinstance(method, str) else method
        if request["method"] not in [m.upper() for m in methods]:
            return False
    if "path" in rule and not re.search(rule["path"], request["path"]):
        return False
    if "kind" in rule and rule["kind"] != request["kind"]:
        return False
    if "depth" in rule and str(rule["depth"]) != (request["depth"] or ""):
        return False
    return True


class Log:
    def __init__(self, path):
        self.path = path
        self.lock = threading.Lock()
        self.seq = 0

    def next_seq(self):
        with self.lock:
            self.seq += 1
            return self.seq

    def write(self, record):
        line = json.dumps(record, ensure_ascii=False)
        with self.lock:
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(line + "\n")
                f.flush()

    def event(self, name, **fields):
        self.write(dict(event=name, time=time.time(), **fields))


def body_kind(headers, body):
    if not body:
        return "-"
    content_type = (headers.get("Content-Type") or "").lower()
    stripped = body.lstrip()
    if "text/calendar" in content_type or stripped.startswith(b"BEGIN:VCALENDAR"):
        return "ics"
    if stripped.startswith(b"<"):
        try:
            root = ET.fromstring(body)
            return root.tag.split("}")[-1]
        except ET.ParseError:
            return "xml?"
    return "data"


def malformed_body(content_type, method):
    if "xml" in (content_type or "").lower() or method in ("PROPFIND", "REPORT"):
        return (
            b'<?xml version="1.0" encoding="utf-8"?>\n<multistatus xmlns="DAV:"><response>'
            b"<href>/cut/off/in/the/mid"
        )
    return b"this is not iCalendar\r\n<html>an error page</html>\r\n"


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "faultproxy"

    def log_message(self, format, *args):  # quiet: the JSON log says it all
        pass

    def _read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size_line = self.rfile.readline()
                size = int(size_line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(chunks)
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _upstream(self):
        connection = getattr(self, "_connection", None)
        if connection is None:
            url = self.server.upstream
            connection = http.client.HTTPConnection(url.hostname, url.port or 80, timeout=120)
            self._connection = connection
        return connection

    def _forward(self, body):
        """(status, headers list, body) from the upstream, or None when it is down."""
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_HEADERS and k.lower() != "host"}
        url = self.server.upstream
        headers["Host"] = url.netloc
        if body:
            headers["Content-Length"] = str(len(body))
        for attempt in (1, 2):
            connection = self._upstream()
            try:
                connection.request(self.command, self.path, body=body or None, headers=headers)
                response = connection.getresponse()
                data = response.read()
                return response.status, response.getheaders(), data
            except (ConnectionRefusedError, ConnectionResetError, BrokenPipeError, http.client.RemoteDisconnected,
                    socket.timeout, OSError):
                connection.close()
                self._connection = None
                if attempt == 2:
                    return None
        return None

    def _answer(self, status, headers, body):
        try:
            self.send_response(status)
            for key, value in headers:
                if key.lower() in HOP_HEADERS:
                    continue
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _client_gone(self):
        """Whether the client has closed its end (a held request's client was killed)."""
        import select

        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            if not readable:
                return False
            return self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

    def _hold_until_released(self, generation):
        while not self.server.control.changed_since(generation):
            if self.server.stopping.wait(0.02):
                return
        self.server.log.event("released", seq=self._seq)

    def _handle(self):
        body = self._read_body()
        request = {
            "method": self.command,
            "path": urllib.parse.urlsplit(self.path).path,
            "depth": self.headers.get("Depth"),
            "kind": body_kind(self.headers, body),
        }
        rule, n, generation = self.server.control.decide(request)
        self._seq = self.server.log.next_seq()
        action = rule.get("action", "status") if rule else "forward"
        record = dict(
            seq=self._seq,
            n=n,
            if_match=self.headers.get("If-Match"),
            if_none_match=self.headers.get("If-None-Match"),
            auth=self.headers.get("Authorization") is not None,
            action=action,
            **request,
        )
        status = None
        try:
            if action == "pause":
                when = rule.get("when", "before")
                self.server.log.event("paused", seq=self._seq, n=n, when=when, method=self.command, path=request["path"])
                if when == "before":
                    self._hold_until_released(generation)
                    if self._client_gone():
                        # the client died while its request was held: it never reaches the
                        # server ("before" means exactly that)
                        self.server.log.event("dropped", seq=self._seq)
                        self.close_connection = True
                        return
                    result = self._forward(body)
                else:
                    result = self._forward(body)
                    self._hold_until_released(generation)
                if result is None:
                    status = 502
                    self._answer(502, [("Content-Type", "text/plain")], b"upstream down\n")
                else:
                    status = result[0]
                    self._answer(*result)
            elif action == "status":
                if rule.get("forward"):
                    self._forward(body)
                status = int(rule.get("status", 500))
                headers = [("Content-Type", "text/plain; charset=utf-8")]
                if status == 401:
                    headers.append(("WWW-Authenticate", 'Basic realm="faultproxy"'))
                text = rule.get("body", f"faultproxy: {status} on purpose\n").encode()
                self._answer(status, headers, text)
            elif action == "malformed":
                result = self._forward(body)
                if result is None:
                    status = 502
                    self._answer(502, [("Content-Type", "text/plain")], b"upstream down\n")
                else:
                    status, headers, data = result
                    content_type = dict((k.lower(), v) for k, v in headers).get("content-type")
                    replaced = rule["body"].encode() if "body" in rule else malformed_body(content_type, self.command)
                    # the new body is sent as it is: no Content-Encoding of the old one
                    headers = [(k, v) for k, v in headers if k.lower() not in ("content-encoding", "etag")]
                    self._answer(status, headers, replaced)
            elif action == "silence":
                self.server.log.write(record)  # now: the client may be killed before the end
                record = None
                self.server.log.event("silence", seq=self._seq)
                self.server.stopping.wait(float(rule.get("seconds", 3600)))
                self.close_connection = True
            elif action == "drop":
                if rule.get("forward"):
                    self._forward(body)
                self.close_connection = True
                try:
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            else:
                result = self._forward(body)
                if result is None:
                    self.server.log.event("upstream-down", seq=self._seq)
                    status = 502
                    self._answer(502, [("Content-Type", "text/plain")], b"upstream down\n")
                else:
                    status = result[0]
                    self._answer(*result)
        finally:
            if record is not None:
                record["status"] = status
                self.server.log.write(record)

    do_GET = do_PUT = do_DELETE = do_POST = do_HEAD = do_OPTIONS = _handle
    do_PROPFIND = do_PROPPATCH = do_REPORT = do_MKCOL = do_MKCALENDAR = do_MOVE = do_COPY = _handle


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def serve(args):
    upstream = urllib.parse.urlsplit(args["--upstream"])
    if upstream.scheme != "http":
        print("faultproxy: the upstream must be http://", file=sys.stderr)
        return 2
    log = Log(args["--log"])
    server = Server(("127.0.0.1", int(args.get("--port", 0))), Handler)
    server.upstream = upstream
    server.log = log
    server.control = Control(args["--control"], log)
    server.stopping = threading.Event()

    def stop(signum, frame):
        server.stopping.set()
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    port_file = args["--port-file"]
    with open(port_file + ".tmp", "w") as f:
        f.write(f"{server.server_address[1]}\n")
    os.replace(port_file + ".tmp", port_file)
    server.serve_forever(poll_interval=0.05)
    server.server_close()
    return 0


def write_rules(path, text):
    json.loads(text)  # refuse what is not JSON before it replaces anything
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def read_log(path, after=0):
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        return []
    return [json.loads(line) for line in lines[after:] if line.strip()]


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    command, rest = argv[1], argv[2:]
    if command == "serve":
        args = dict(zip(rest[0::2], rest[1::2]))
        if not {"--upstream", "--control", "--log", "--port-file"} <= args.keys():
            print(__doc__, file=sys.stderr)
            return 2
        return serve(args)
    if command == "rules" and len(rest) in (1, 2):
        write_rules(rest[0], rest[1] if len(rest) == 2 else '{"rules": []}')
        return 0
    if command == "wait" and len(rest) >= 2:
        path, event = rest[0], rest[1]
        options = dict(zip(rest[2::2], rest[3::2]))
        after = int(options.get("--after", 0))
        deadline = time.monotonic() + float(options.get("--timeout", 30))
        while time.monotonic() < deadline:
            for record in read_log(path, after):
                if record.get("event") == event:
                    print(json.dumps(record))
                    return 0
            time.sleep(0.02)
        return 1
    if command == "requests" and len(rest) in (1, 3):
        after = int(rest[2]) if len(rest) == 3 else 0
        for r in read_log(rest[0], after):
            if "event" in r:
                continue
            condition = "-"
            if r.get("if_none_match"):
                condition = f"if-none-match:{r['if_none_match']}"
            elif r.get("if_match"):
                condition = "if-match"
            print(f"{r['method']} {r['path']} {r['depth'] or '-'} {r['kind']} {r.get('status')} {r['action']} {condition}")
        return 0
    if command == "lines" and len(rest) == 1:
        try:
            with open(rest[0], encoding="utf-8") as f:
                print(sum(1 for _ in f))
        except FileNotFoundError:
            print(0)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
