#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""hub_server.py -- a stand-in for the Hugging Face Hub and its CDN, on 127.0.0.1 only.

Used by tests/test_download.c (started and stopped by the tests themselves; standard
library only, run with Debian's /usr/bin/python3). Two servers on ports chosen by the
kernel: the "hub" answers /{repo}/resolve/{revision}/{file} as the Hub does (a 302 to the
CDN carrying X-Repo-Commit, X-Linked-Etag, X-Linked-Size), the "cdn" serves the bytes with
Range support. Prints "HUB_PORT CDN_PORT" on stdout once both listen; exits when stdin
reaches EOF (the test that started it died or closed it), on SIGTERM, or after --lifetime.

Faults (--fault, repeatable), "kind[:key=value...]":
  status:code=500[:where=cdn|hub][:times=1]   answer with that status (429/5xx: transient)
  drop:after=N[:times=1]          cdn: send N body bytes, then reset the connection
  short:after=N[:times=1]         cdn: send N body bytes, then close cleanly (short body)
  stall:after=N:seconds=S         cdn: send N body bytes, go silent for S s, then close
                                  (these three apply only to bodies longer than N)
  ignore_range[:times=-1]         cdn: answer 200 with the whole file whatever Range says
  corrupt:offset=N[:after_drop=1] cdn: flip every bit of the file's byte N when served
                                  (after_drop=1: only once a drop fault has cut a body, so
                                  a resumed download gets other bytes under the same ETag)
  encoded[:times=1]               cdn: claim Content-Encoding: gzip (the bytes are not)
  shift_range[:times=1]           cdn: answer a Range request with the bytes one further on
  etag_change:after=N             hub: from the N+1-th request on, a different X-Linked-Etag
  trickle:rate=R[:after=N][:times=1]  cdn: send a body longer than N at R bytes per second
  half_stall:seconds=S[:after=N][:times=-1]  cdn: send half of each body longer than N,
                                  go silent for S s, close
  long_length[:times=-1]          cdn: a 206 whose Content-Length is 1000 more than the range
                                  (the range's bytes sent, then silence until the client hangs up)
  hostile_error[:times=1]         hub: HTTP 400 whose X-Error-Message holds terminal escapes
  hostile_commit[:times=-1]       hub: an X-Repo-Commit with terminal escapes, not 40 hex digits
  huge_location:bytes=N[:times=1] hub: a 302 whose Location header is N bytes long
times=-1 means always. Every request is logged to --log, one line each:
  "<hub|cdn> <METHOD> <path> status=<code> sent=<body bytes> | Name: value | ..."
"""
import argparse
import hashlib
import http.server
import os
import socket
import struct
import sys
import threading
import time
import urllib.parse

LOCK = threading.Lock()


class Fault:
    def __init__(self, spec):
        parts = spec.split(":")
        self.kind = parts[0]
        self.opts = {}
        for p in parts[1:]:
            k, _, v = p.partition("=")
            self.opts[k] = v
        always = ("corrupt", "ignore_range", "etag_change", "half_stall", "long_length",
                  "hostile_commit")
        default_times = "-1" if self.kind in always else "1"
        self.times = int(self.opts.get("times", default_times))

    def take(self):
        """Consumes one use; False when used up."""
        with LOCK:
            if self.times == 0:
                return False
            if self.times > 0:
                self.times -= 1
            return True


def sha256_of(path):
    st = os.stat(path)
    cache = path + ".sha256"
    key = "%d %d" % (st.st_size, st.st_mtime_ns)
    try:
        with open(cache) as f:
            k, _, h = f.read().strip().rpartition(" ")
            if k == key and len(h) == 64:
                return h
    except OSError:
        pass
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while True:
            b = f.read(1 << 22)
            if not b:
                break
            h.update(b)
    hexd = h.hexdigest()
    tmp = "%s.%d" % (cache, os.getpid())
    with open(tmp, "w") as f:
        f.write("%s %s\n" % (key, hexd))
    os.replace(tmp, cache)
    return hexd


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--file", required=True)
    ap.add_argument("--repo", default="openai-community/gpt2")
    ap.add_argument("--filename", default="model.safetensors")
    ap.add_argument("--commit", default="607a30d783dfa663caf39e06633721c8d4cfcd7e")
    ap.add_argument("--token", default="", help="repo is private: require this bearer token")
    ap.add_argument("--gated", action="store_true", help="answer 403 GatedRepo")
    ap.add_argument("--direct", action="store_true", help="the hub serves the bytes, no CDN")
    ap.add_argument("--renamed", default="", help="an old repo name, redirected (307) to --repo")
    ap.add_argument("--etag", default="", help="claim this sha256 instead of hashing --file "
                    "(for huge sparse files)")
    ap.add_argument("--log", default=os.devnull)
    ap.add_argument("--fault", action="append", default=[])
    ap.add_argument("--lifetime", type=float, default=300.0)
    a = ap.parse_args()

    size = os.path.getsize(a.file)
    sha = a.etag or sha256_of(a.file)
    faults = [Fault(s) for s in a.fault]
    logf = open(a.log, "a", buffering=1)
    hub_requests = [0]
    dropped = [False]   # a drop fault has cut a body (corrupt:after_drop=1 applies from then on)
    ports = {}

    def fault(kind, where=None, body=None):
        """The first unused fault of that kind; cut faults only for bodies longer than the cut."""
        for f in faults:
            if f.kind != kind or (where is not None and f.opts.get("where", "cdn") != where):
                continue
            if body is not None and body <= int(f.opts.get("after", "0")):
                continue
            if f.take():
                return f
        return None

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        role = "?"

        def log_message(self, *args):
            pass

        def finish(self):
            try:
                super().finish()
            except OSError:
                pass

        def log_request_line(self, status, sent):
            hdrs = " | ".join("%s: %s" % (k, v) for k, v in self.headers.items())
            logf.write("%s %s %s status=%d sent=%d | %s\n" % (self.role, self.command, self.path,
                                                             status, sent, hdrs))

        def simple(self, code, headers=(), body=b""):
            # logged before the answer leaves, so a client that has it finds it logged
            self.log_request_line(code, 0 if self.command == "HEAD" else len(body))
            self.send_response(code)
            for k, v in headers:
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD" and body:
                self.wfile.write(body)

        def serve_blob(self, extra):
            start, end = 0, size - 1
            code = 200
            rng = self.headers.get("Range")
            if rng and not fault("ignore_range"):
                try:
                    unit, _, spec = rng.partition("=")
                    s, _, e = spec.partition("-")
                    if unit.strip() != "bytes":
                        raise ValueError
                    start = int(s)
                    end = min(int(e), size - 1) if e else size - 1
                    if start > end or start >= size:
                        raise ValueError
                    code = 206
                except ValueError:
                    self.simple(416, [("Content-Range", "bytes */%d" % size)])
                    return
            if code == 206 and fault("shift_range"):
                start += 1                # the wrong bytes, honestly labelled
                end = max(end, start)
            n = end - start + 1
            self.send_response(code)
            longer = code == 206 and self.command != "HEAD" and fault("long_length")
            self.send_header("Content-Length", str(n + 1000 if longer else n))
            self.send_header("Accept-Ranges", "bytes")
            for k, v in extra:
                self.send_header(k, v)
            if fault("encoded"):
                self.send_header("Content-Encoding", "gzip")
            if code == 206:
                self.send_header("Content-Range", "bytes %d-%d/%d" % (start, end, size))
            if self.command == "HEAD":
                self.log_request_line(code, 0)
                self.end_headers()
                return
            drop = fault("drop", body=n)
            short = None if drop else fault("short", body=n)
            stall = None if drop or short else fault("stall", body=n)
            cutter = drop or short or stall
            cut = int(cutter.opts.get("after", "0")) if cutter else None
            half = None if cutter else fault("half_stall", body=n)
            if half:
                cut, stall = n // 2, half
            trickle = fault("trickle", body=n)
            rate = float(trickle.opts.get("rate", "2")) if trickle else None
            corrupt = [x for x in faults if x.kind == "corrupt" and
                       (x.opts.get("after_drop") != "1" or dropped[0])]
            sent = 0
            last = min(n, cut) if cut is not None else n
            logged = False
            if last == 0:
                self.log_request_line(code, 0)
                logged = True
            self.end_headers()
            try:
                with open(a.file, "rb") as fh:
                    fh.seek(start)
                    while sent < n:
                        k = min(1 << 20, n - sent)
                        if rate:
                            k = 1
                            time.sleep(1.0 / rate)
                        if cut is not None:
                            k = min(k, cut - sent)
                        if k <= 0:
                            break
                        b = bytearray(fh.read(k))
                        for c in corrupt:
                            off = int(c.opts.get("offset", "0"))
                            if start + sent <= off < start + sent + len(b):
                                b[off - start - sent] ^= 0xFF
                        if sent + len(b) >= last and not logged:
                            self.log_request_line(code, sent + len(b))
                            logged = True
                        self.wfile.write(b)
                        if rate:
                            self.wfile.flush()
                        sent += len(b)
                    self.wfile.flush()
            except OSError:
                pass
            if not logged:
                self.log_request_line(code, sent)
            if stall:
                time.sleep(float(stall.opts.get("seconds", "5")))
            if longer:
                # the client waits for bytes that never come: hold until it hangs up
                self.connection.settimeout(30)
                try:
                    self.connection.recv(1)
                except OSError:
                    pass
                self.close_connection = True
            if cut is not None and sent < n:
                self.close_connection = True
                if drop:
                    dropped[0] = True
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                               struct.pack("ii", 1, 0))
                    self.connection.close()

        def do_HEAD(self):
            self.handle_any()

        def do_GET(self):
            self.handle_any()

    class Hub(Handler):
        role = "hub"

        def handle_any(self):
            with LOCK:
                hub_requests[0] += 1
                nreq = hub_requests[0]
            f = fault("status", "hub")
            if f:
                self.simple(int(f.opts.get("code", "500")), [("Retry-After", "0")], b"fault\n")
                return
            if fault("hostile_error"):
                self.simple(400, [("X-Error-Code", "BadRequest"),
                                  ("X-Error-Message", "\x1b]0;pwned\x07\x1b[2Jbad \x9b1m request")],
                            b"bad\n")
                return
            f = fault("huge_location")
            if f:
                loc = "http://127.0.0.1:%d/blob/%s?" % (ports["cdn"], sha)
                loc += "x" * int(f.opts.get("bytes", "200000"))
                self.simple(302, [("Location", loc), ("X-Repo-Commit", a.commit),
                                  ("X-Linked-Etag", '"%s"' % sha), ("X-Linked-Size", str(size))])
                return
            path = urllib.parse.urlsplit(self.path).path
            prefix = "/" + a.repo + "/resolve/"
            old = "/" + a.renamed + "/resolve/"
            if a.renamed and path.startswith(old):
                # a renamed repo: a relative redirect on the Hub's own host
                self.simple(307, [("Location", prefix + path[len(old):])], b"moved\n")
                return
            if not path.startswith(prefix):
                self.simple(404, [("X-Error-Code", "RepoNotFound"),
                                  ("X-Error-Message", "Repository not found")], b"not found\n")
                return
            if a.token and self.headers.get("Authorization", "") != "Bearer " + a.token:
                self.simple(401, [("X-Error-Code", "RepoNotFound"),
                                  ("X-Error-Message", "Invalid credentials")], b"unauthorized\n")
                return
            if a.gated:
                self.simple(403, [("X-Error-Code", "GatedRepo")], b"gated\n")
                return
            rest = path[len(prefix):]
            rev, _, fname = rest.partition("/")
            rev = urllib.parse.unquote(rev)
            if rev not in ("main", a.commit):
                self.simple(404, [("X-Error-Code", "RevisionNotFound")], b"no revision\n")
                return
            if urllib.parse.unquote(fname) != a.filename:
                self.simple(404, [("X-Error-Code", "EntryNotFound")], b"no entry\n")
                return
            etag = sha
            ec = next((x for x in faults if x.kind == "etag_change"), None)
            if ec and nreq > int(ec.opts.get("after", "1")):
                etag = hashlib.sha256(sha.encode()).hexdigest()
            if a.direct:
                # a file the Hub serves itself (not in LFS): ETag and Content-Length only
                self.serve_blob([("X-Repo-Commit", a.commit), ("ETag", '"%s"' % etag)])
                return
            loc = "http://127.0.0.1:%d/blob/%s?sig=abc" % (ports["cdn"], sha)
            commit = a.commit
            if fault("hostile_commit"):
                commit = "\x1b[2J\x1b]0;pwned\x07" + a.commit[:20]
            self.simple(302, [("Location", loc), ("X-Repo-Commit", commit),
                              ("X-Linked-Etag", '"%s"' % etag), ("X-Linked-Size", str(size)),
                              ("ETag", 'W/"1234-pointer"')], b"Found. Redirecting\n")

    class Cdn(Handler):
        role = "cdn"

        def handle_any(self):
            f = fault("status", "cdn")
            if f:
                self.simple(int(f.opts.get("code", "500")), [("Retry-After", "0")], b"fault\n")
                return
            path = urllib.parse.urlsplit(self.path).path
            if path != "/blob/" + sha:
                self.simple(404, [], b"no such blob\n")
                return
            self.serve_blob([("ETag", '"cdn-%s"' % sha[:16])])

    class Server(http.server.ThreadingHTTPServer):
        daemon_threads = True
        allow_reuse_address = True

        def handle_error(self, request, client_address):
            pass

    hub = Server(("127.0.0.1", 0), Hub)
    cdn = Server(("127.0.0.1", 0), Cdn)
    ports["hub"] = hub.server_address[1]
    ports["cdn"] = cdn.server_address[1]
    for s in (hub, cdn):
        threading.Thread(target=s.serve_forever, daemon=True).start()

    def watch_stdin():
        try:
            while sys.stdin.buffer.read(4096):
                pass
        finally:
            os._exit(0)

    threading.Thread(target=watch_stdin, daemon=True).start()
    t = threading.Timer(a.lifetime, lambda: os._exit(3))
    t.daemon = True
    t.start()
    sys.stdout.write("%d %d\n" % (ports["hub"], ports["cdn"]))
    sys.stdout.flush()
    threading.Event().wait()


if __name__ == "__main__":
    main()
