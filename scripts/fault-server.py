#!/usr/bin/env python3
"""A loopback HTTP/1.1 server that misbehaves on purpose and counts what arrives, for EndpointKit's fault tests.

    python3 scripts/fault-server.py PORT

Paths (KEY is any name a test picks, so tests running at once do not share counters):
    GET  /count/PATH       {"count": N}: how many requests for PATH (e.g. hold/KEY) arrived so far
    GET  /await/PATH       like /count/PATH, answered once the count is at least 1 (or after 30 s): a gate a test
                           waits on instead of sleeping
    GET  /truncated/KEY    the first request for KEY announces Content-Length: 100, sends 10 bytes and closes
                           the connection; later ones get all 100 bytes
    GET  /hold/KEY         counted, then never answered: the connection is held until the client closes it
                           (or 60 s pass), then counted as hold-closed/KEY
    GET  /stall-body/KEY   counted; announces Content-Length: 100, sends 10 bytes, counts stall-body-sent/KEY, and
                           holds the connection until the client closes it (then counts stall-body-closed/KEY)
    GET  /redirect/KEY     counted; 302 to /hold/KEY
    GET  /slow-redirect/KEY/N  counted; after 0.1 s, 302 to /slow-redirect/KEY/N-1, and 200 at 0
    GET  /chunked/KEY/N    counted; N MiB of body, chunked, 64 KiB at a time; counts chunked-closed/KEY when the
                           client closes the connection before the end, and the body bytes it sent as chunked-sent/KEY
    GET  /length/KEY/N     counted; N MiB of body with Content-Length, 64 KiB at a time; the body bytes it sent
                           as length-sent/KEY, length-closed/KEY when the client closes the connection first, and
                           length-done/KEY once it is over either way (chunked-done/KEY likewise). ?stall=1
                           counts length-stalled/KEY when the client stops reading (nothing could be written for
                           0.5 s), and the body bytes sent by the first such stall as length-stalled-at/KEY
    GET  /bomb/KEY/N       counted; N MiB of zeros as Content-Encoding: gzip (about 1 KiB per MiB), 16 KiB at
                           a time; the compressed bytes it sent as bomb-sent/KEY, and bomb-done/KEY once it is over
                           (sent or cut). ?encoding=deflate sends zlib data
    ANY  /echo/KEY         200 with the request body, counted; ?quiet-close=1 answers a request that asks to close
                           as Python's http.server does: without Connection: close in the answer, head and body in
                           two writes, then the sending side shut
    ANY  /drop-reused/KEY  counted; answered when it is the first request on its connection, otherwise the
                           connection is closed without an answer (a keep-alive connection the server dropped)
    GET  /file/KEY/N       counted; N MiB whose byte i is (i * 31 + 7) % 251, with ETag "v1" (?etag=X, or none with ?etag=none), honouring
                           Range: bytes=S- or bytes=S-E (206, or 416 past the end) when If-Range is absent or matches
                           (or always, with ?ignore-if-range=1). Another ETag serves other bytes: those of "v1"
                           shifted by the sum of the ETag's bytes, mod 251.
                           ?cut=1 cuts the first answer for KEY after half its body; ?extra=B sends the bytes B
                           (URL-safe base64) after the body, past its Content-Length; ?ignore-range=1 answers
                           every request with the whole file; ?pace=1 sends 64 KiB every 2 ms; an X-Option: NAME=VALUE[,NAME=VALUE]
                           header sets options without changing the URL. Counts file-range/KEY for requests with a Range and
                           file-auth/KEY for requests with an Authorization header, file-closed/KEY when the client
                           closes the connection before the end, and file-over/KEY once an answer is over either way
    GET  /jsonl/KEY/N      counted; N JSON Lines {"index": i}, chunked: the first at once, each next one only once
                           /release/KEY has been asked for as many times (a gate the test opens, not a clock),
                           or after ?delay-ms=M instead. Counts jsonl-sent/KEY per line sent and
                           jsonl-closed/KEY when the client closes the connection before the end
    GET  /sse/KEY          an event stream in three connections, told apart by Last-Event-ID: without one, events
                           1 and 2 (retry: 50, a comment, a two-line data, a typed event), then the end; with
                           "2", event 3, then the end; with "3", 204 No Content. Counts sse/KEY per connection and
                           sse-last-id-ID/KEY per Last-Event-ID received
    GET  /sse-case/KEY?case=C  an event stream that breaks one of the format's rules, first connection only (later
                           ones get 204 and count sse-case-last-id-ID/KEY, or sse-case-no-last-id/KEY without one):
                           bom (a UTF-8 BOM first), cut (event 1, then event 2 cut off by a close before its blank
                           line), empty-id (event 1 with id 1, then an empty id line and event 2), endless (data lines
                           without a blank line, 1 MiB at a time, for up to 64 MiB, counting sse-case-sent/KEY per MiB)
    GET  /ratelimit/KEY    counted; the first request gets 403 with x-ratelimit-remaining: 0 and x-ratelimit-reset
                           2 s ahead (an hour ahead with ?far=1), as GitHub answers; later ones get 200 and count
                           ratelimit-early/KEY when they came before the reset
    GET  /problem/KEY      422 with an API's own error JSON: {"message": "Validation Failed", "errors": [...]}
    GET  /auth/KEY         counted; 200 with {"authorized": true} when Authorization is "Bearer fresh", else 401 with
                           WWW-Authenticate: Bearer (a token the server no longer takes, for refresh tests)
    ANY  /idem/KEY/GROUP   the Idempotency-Key header as draft-ietf-httpapi-idempotency-key-header-07 says (the key an
                           sf-string, or bare as most APIs take it): the first request with a key is applied once,
                           its body appended to GROUP's log, and its answer (200, {"applied": N, "group": GROUP,
                           "body": BODY}) stored under the key; the same key and body again gets the stored answer
                           (Idempotency-Replayed: true); the same key while the first is in flight gets 409, with
                           another body 422, and no key 400 (each application/problem+json). ?delay-ms=M holds
                           the first request M ms after applying it, ?hold=1 until /release/KEY is asked for (a
                           gate the test opens, not a clock; 60 s at most); ?drop=1 applies the first request for a key
                           and closes the connection without answering (the case that makes a client apply twice
                           or lose the write); ?drop-one-in=N does so for every Nth write applied under KEY.
                           Counts idem/KEY, idem-applied/KEY, idem-replayed/KEY, idem-409/KEY, idem-422/KEY,
                           idem-400/KEY and idem-dropped/KEY, and idem-overlap/KEY for a request that arrived while
                           another of the same GROUP was being handled
    GET  /idem-log/KEY/GROUP  {"applied": [BODY, ...]}: GROUP's applied bodies, in the order they were applied;
                           /idem-log/KEY gives {"groups": {GROUP: [BODY, ...], ...}} for every group of KEY
    GET  /release/KEY      counted as release/KEY: lets /jsonl/KEY send its next line, and /idem/KEY?hold=1 answer
    GET  /file-redirect/KEY/N  302 to the same file at http://localhost:PORT (another origin than 127.0.0.1)
    ANY  /raw/KEY?b64=B    counted; sends exactly the bytes B decodes to (URL-safe base64) and nothing else, then
                           serves the next request on the same connection (a hostile server's exact bytes);
                           &close=1 closes the connection after them instead, &hold=1 holds it until the client
                           closes it (then counts raw-closed/KEY)
    GET  /cached/KEY       counted (cached/KEY, and cached-304/KEY or cached-200/KEY by answer); a JSON body
                           {"version": V, "authorization": A} with ETag "V" ("V-value" with ?vary) (V is ?version=, default 1, or the number set
                           by /bump/KEY), Last-Modified an hour ago and Cache-Control ?cc= (default "max-age=60");
                           ?vary=NAME adds Vary: NAME and puts that request header in the body; answers 304 when
                           If-None-Match names the current ETag. A (the Authorization header, or null) lets a test
                           see whose response it got; each answer is counted per token too (cached-200-for/KEY/T and
                           cached-304-for/KEY/T, T the Authorization's last word or "none"); ?delay=MS answers late
    POST /bump/KEY         counted; makes /cached/KEY serve the next version, and answers 204 with Location: /cached/KEY
    GET  /pages/KEY?page=N a GitHub-style list of ?total= items (default 300) in pages of ?per_page= (default 30):
                           a JSON array of {"id", "title"}, Link next/last (relative; absolute with ?absolute=1),
                           a strong ETag per page, Cache-Control ?cc= (default "private, max-age=60") and
                           Vary: Accept, Authorization, Cookie; a 304 when If-None-Match names the page's ETag.
                           Counts pages/KEY, pages-200/KEY, pages-304/KEY and the body bytes sent as pages-bytes/KEY
    GET  /limited/KEY?limit=N&period=MS  an upstream that keeps N requests per MS milliseconds in any window (a sliding
                           window, counted by arrival): within it, 200 and {"id": 1, "name": "ok"}; beyond it, 429 with
                           Retry-After: 1 (counted as limited-over/KEY). ?pause=S answers the first request 429 with
                           Retry-After: S, and counts as limited-early/KEY each later one that arrives before then. The
                           x-instance header, when sent, is counted as limited-by/KEY/INSTANCE; x-released, the
                           wall-clock microseconds at which the caller's limiter let the request go, is kept
    GET  /window/KEY?period=MS  {"count": N, "max": M, "max_at": T, "over": O, "early": E, "by": {INSTANCE: N},
                           "span": S, "max_released": R, "transit_p50": P, "transit_max": X}: the requests
                           /limited/KEY received, the most in any window of MS milliseconds and the seconds from the
                           first arrival to the first such window, the 429s for going over, the arrivals inside the
                           first answer's pause, the seconds from the first arrival to the last, the most in any
                           window counted by x-released instead, and the seconds from release to arrival
    ANY  /versioned/KEY/ID a versioned item {"id": ID, "version": V, "name": N, "pending": false} (V from 1): GET
                           answers it; PATCH with the new name as its body stores it as version V + 1 and answers
                           it, or answers 500 when the request has X-Fail: 1. Each request waits 0-4 ms first (by
                           its arrival number), so that concurrent requests are answered out of order. Counts
                           versioned/KEY
Connections are kept alive between requests, as real servers do.
"""
import base64
import json
import select
import socket
import zlib
import socketserver
import sys
import threading
import time
import urllib.parse

counts = {}
lock = threading.Condition()


def count(key):
    with lock:
        counts[key] = counts.get(key, 0) + 1
        lock.notify_all()
        return counts[key]


def add(key, amount):
    with lock:
        counts[key] = counts.get(key, 0) + amount
        lock.notify_all()


bombs = {}
resets = {}


def bomb(mebibytes, wbits):
    """N MiB of zeros, compressed once per size and kept (a 1 GiB bomb is about 1 MiB)."""
    with lock:
        if (mebibytes, wbits) in bombs:
            return bombs[(mebibytes, wbits)]
    compressor = zlib.compressobj(9, zlib.DEFLATED, wbits)
    zeros = bytes(1 << 20)
    data = b"".join(compressor.compress(zeros) for _ in range(mebibytes)) + compressor.flush()
    with lock:
        bombs[(mebibytes, wbits)] = data
    return data


def send_counted(sock, data, key, piece):
    """Sends data piece by piece, adding what left to counts[key]; False when the client went away."""
    try:
        for start in range(0, len(data), piece):
            sock.sendall(data[start:start + piece])
            add(key, min(piece, len(data) - start))
        return True
    except OSError:
        return False


PERIOD = bytes((i * 31 + 7) % 251 for i in range(251))


def pattern(length, shift=0):
    """The file the /file endpoint serves: byte i is (i * 31 + 7) % 251, or byte i + shift of that."""
    return (PERIOD * (length // 251 + 2))[shift:shift + length]


def options_of(target, headers):
    """The query's NAME=VALUE pairs, plus those of an X-Option header, so that a test can change the answer for
    the same URL."""
    query = target.split("?", 1)[1] if "?" in target else ""
    options = dict(item.partition("=")[::2] for item in query.split("&") if item)
    for item in headers.get("x-option", "").split(","):
        name, _, value = item.strip().partition("=")
        if name:
            options[name] = value
    return options


def closed_by_peer(sock):
    """Whether the client has closed the connection (readable, with nothing to read)."""
    readable, _, _ = select.select([sock], [], [], 0)
    if not readable:
        return False
    try:
        return sock.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True


def read_request(stream):
    line = stream.readline()
    if not line:
        return None
    method, target, _ = line.decode("latin-1").split(" ", 2)
    headers = {}
    while True:
        header = stream.readline()
        if header in (b"\r\n", b"\n", b""):
            break
        name, _, value = header.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    body = b""
    # A request cut short (the client died mid-send) is not a request: a real server never handles it.
    if "content-length" in headers:
        length = int(headers["content-length"])
        body = stream.read(length)
        if len(body) < length:
            return None
    elif headers.get("transfer-encoding", "").lower() == "chunked":
        while True:
            size_line = stream.readline()
            if not size_line:
                return None
            size = int(size_line.split(b";")[0], 16)
            if size == 0:
                stream.readline()
                break
            chunk = stream.read(size)
            if len(chunk) < size:
                return None
            body += chunk
            stream.readline()
    return method, target, headers, body


def hold_until_closed(sock):
    """Keeps the connection open, answering nothing, until the client closes it or 60 s pass."""
    sock.settimeout(60)
    try:
        while sock.recv(1024):
            pass
    except OSError:
        pass


def respond(sock, status, body, content_type="application/json", close=False):
    head = (
        f"HTTP/1.1 {status} {'OK' if status == 200 else 'Not Found'}\r\n"
        f"Content-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
        + ("Connection: close\r\n" if close else "")
        + "\r\n"
    )
    sock.sendall(head.encode() + body)


class Request:
    """One request as a route sees it: the connection, the parsed request, and KEY and the other path parts."""

    def __init__(self, sock, served, method, target, headers, body):
        self.sock, self.served = sock, served
        self.method, self.target, self.headers, self.body = method, target, headers, body
        # As HTTP/1.1 servers do: a request that asks for it is answered with Connection: close, then closed.
        self.closing = headers.get("connection", "").lower() == "close"
        self.parts = target.split("?")[0].strip("/").split("/")
        self.kind, self.key = (self.parts + [""])[:2]


# What a route returns besides None (answered; the connection stays open unless the request asked to close it):
END = "end"  # the route has ended the connection
KEEP = "keep"  # answered, and the connection stays open whatever the request asked


def route_count(request):
    sock, parts = request.sock, request.parts
    with lock:
        seen = counts.get("/".join(parts[1:]), 0)
    respond(sock, 200, json.dumps({"count": seen}).encode())


def route_await(request):
    sock, parts = request.sock, request.parts
    with lock:
        lock.wait_for(lambda: counts.get("/".join(parts[1:]), 0) > 0, timeout=30)
        seen = counts.get("/".join(parts[1:]), 0)
    respond(sock, 200, json.dumps({"count": seen}).encode())


def route_truncated(request):
    sock, key = request.sock, request.key
    if count("truncated/" + key) == 1:
        head = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 100\r\n\r\n"
        sock.sendall(head.encode() + b"x" * 10)
        sock.shutdown(socket.SHUT_RDWR)
        return END
    respond(sock, 200, b"x" * 100, "application/octet-stream")


def route_hold(request):
    sock, key = request.sock, request.key
    count("hold/" + key)
    hold_until_closed(sock)
    count("hold-closed/" + key)
    return END


def route_drop_reused(request):
    sock, key, body, served, closing = request.sock, request.key, request.body, request.served, request.closing
    count("drop-reused/" + key)
    if served > 1:
        sock.shutdown(socket.SHUT_RDWR)
        return END
    respond(sock, 200, body, "application/octet-stream", closing)


def route_stall_body(request):
    sock, key = request.sock, request.key
    count("stall-body/" + key)
    head = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 100\r\n\r\n"
    sock.sendall(head.encode() + b"x" * 10)
    count("stall-body-sent/" + key)
    hold_until_closed(sock)
    count("stall-body-closed/" + key)
    return END


def route_redirect(request):
    sock, key = request.sock, request.key
    count("redirect/" + key)
    sock.sendall(f"HTTP/1.1 302 Found\r\nLocation: /hold/{key}\r\nContent-Length: 0\r\n\r\n".encode())


def route_slow_redirect(request):
    sock, key, parts = request.sock, request.key, request.parts
    count("slow-redirect/" + key)
    left = int(parts[2]) if len(parts) > 2 else 0
    time.sleep(0.1)
    if left > 0:
        location = f"/slow-redirect/{key}/{left - 1}"
        sock.sendall(f"HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\n\r\n".encode())
    else:
        respond(sock, 200, b"{}")


def route_chunked(request):
    sock, key, parts = request.sock, request.key, request.parts
    count("chunked/" + key)
    mebibytes = int(parts[2]) if len(parts) > 2 else 1
    head = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
    try:
        sock.sendall(head.encode())
        chunk = b"x" * 65536
        for _ in range(mebibytes * 16):
            sock.sendall(b"10000\r\n" + chunk + b"\r\n")
            add("chunked-sent/" + key, len(chunk))
        sock.sendall(b"0\r\n\r\n")
    except OSError:
        count("chunked-closed/" + key)
        return END
    finally:
        count("chunked-done/" + key)


def route_length(request):
    sock, key, parts, target, headers = request.sock, request.key, request.parts, request.target, request.headers
    count("length/" + key)
    mebibytes = int(parts[2]) if len(parts) > 2 else 1
    head = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
    head += f"Content-Length: {mebibytes << 20}\r\n\r\n"
    try:
        sock.sendall(head.encode())
    except OSError:
        return END
    piece = bytes(65536)
    watch = "stall" in options_of(target, headers)
    try:
        for index in range(mebibytes * 16):
            if watch and not select.select([], [sock], [], 0.5)[1] and count("length-stalled/" + key) == 1:
                # The client has read nothing for 0.5 s: its buffers and the socket's are full.
                add("length-stalled-at/" + key, index * len(piece))
            sock.sendall(piece)
            add("length-sent/" + key, len(piece))
    except OSError:
        count("length-closed/" + key)
        return END
    finally:
        count("length-done/" + key)


def route_bomb(request):
    sock, key, parts, target = request.sock, request.key, request.parts, request.target
    count("bomb/" + key)
    mebibytes = int(parts[2]) if len(parts) > 2 else 1
    deflate = "encoding=deflate" in target
    data = bomb(mebibytes, 15 if deflate else 31)
    head = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
    head += f"Content-Encoding: {'deflate' if deflate else 'gzip'}\r\nContent-Length: {len(data)}\r\n\r\n"
    try:
        sock.sendall(head.encode())
    except OSError:
        return END
    sent = send_counted(sock, data, "bomb-sent/" + key, 16384)
    count("bomb-done/" + key)
    if not sent:
        return END


def route_file(request):
    sock, key, parts, target, headers = request.sock, request.key, request.parts, request.target, request.headers
    count("file/" + key)
    if "authorization" in headers:
        count("file-auth/" + key)
    total = (int(parts[2]) if len(parts) > 2 else 1) << 20
    options = options_of(target, headers)
    etag = '"' + options.get("etag", "v1") + '"'
    # Another version of the file (another ETag) has other bytes: byte i is that of "v1" at i + shift.
    data = pattern(total, 0 if etag in ('"v1"', '"none"') else sum(etag.encode()) % 251)
    status, extra, start = 200, "", 0
    requested = headers.get("range", "")
    if requested:
        count("file-range/" + key)
    if_range_holds = "ignore-if-range" in options or headers.get("if-range", etag) == etag
    if requested.startswith("bytes=") and "ignore-range" not in options and if_range_holds:
        first, _, last = requested[len("bytes="):].partition("-")
        start = int(first)
        end = min(int(last), total - 1) if last else total - 1
        if start >= total:
            status, extra, data = 416, f"Content-Range: bytes */{total}\r\n", b""
        else:
            status, extra, data = 206, f"Content-Range: bytes {start}-{end}/{total}\r\n", data[start:end + 1]
    reason = {200: "OK", 206: "Partial Content", 416: "Range Not Satisfiable"}[status]
    validator = "" if options.get("etag") == "none" else f"ETag: {etag}\r\n"
    head = f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/octet-stream\r\n{validator}"
    head += f"Accept-Ranges: bytes\r\n{extra}Content-Length: {len(data)}\r\n\r\n"
    try:
        sock.sendall(head.encode())
        if options.get("cut") == "1" and counts.get("file/" + key) == 1:
            sock.sendall(data[: len(data) // 2])
            sock.shutdown(socket.SHUT_RDWR)
            return END
        if options.get("pace") == "1":
            # 64 KiB every 2 ms, as a real network would: a fast loopback can starve Linux
            # URLSession's cancellation until the whole body is read.
            for offset in range(0, len(data), 65536):
                sock.sendall(data[offset:offset + 65536])
                time.sleep(0.002)
        else:
            sock.sendall(data)
        if options.get("extra"):
            # Bytes past the announced length, as a broken or hostile server sends them.
            extra = options["extra"]
            sock.sendall(base64.urlsafe_b64decode(extra + "=" * (-len(extra) % 4)))
    except OSError:
        count("file-closed/" + key)
        return END
    finally:
        count("file-over/" + key)


def route_sse(request):
    sock, key, headers, body = request.sock, request.key, request.headers, request.body
    count("sse/" + key)
    last = headers.get("last-event-id")
    if last is not None:
        count(f"sse-last-id-{last}/" + key)
    if last == "3":
        sock.sendall(b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n")
        return KEEP
    if last == "2":
        body = b"id: 3\ndata: d\n\n"
    else:
        body = b"retry: 50\n: a comment\nid: 1\ndata: a\n\nid: 2\nevent: tick\ndata: b\r\ndata: c\n\n"
    head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
    head += f"Content-Length: {len(body)}\r\n\r\n"
    sock.sendall(head.encode() + body)


def route_sse_case(request):
    sock, key, target, headers, body = request.sock, request.key, request.target, request.headers, request.body
    connection = count("sse-case/" + key)
    case = options_of(target, headers).get("case", "")
    if connection > 1:
        last = headers.get("last-event-id")
        count(f"sse-case-last-id-{last}/" + key if last is not None else "sse-case-no-last-id/" + key)
        sock.sendall(b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n")
        return KEEP
    head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
    if case == "endless":
        sock.sendall((head + "Transfer-Encoding: chunked\r\n\r\n").encode())
        line = b"data: " + b"x" * 1000 + b"\n"
        mebibyte = line * ((1 << 20) // len(line))
        try:
            for _ in range(64):
                sock.sendall(f"{len(mebibyte):x}\r\n".encode() + mebibyte + b"\r\n")
                count("sse-case-sent/" + key)
            sock.sendall(b"0\r\n\r\n")
        except OSError:
            return END
        return KEEP
    body = {
        "bom": b"\xef\xbb\xbfretry: 10\ndata: first\n\n",
        "cut": b"retry: 10\nid: 1\ndata: a\n\nid: 2\ndata: b\n",
        "empty-id": b"retry: 10\nid: 1\ndata: a\n\nid\ndata: b\n\n",
    }.get(case, b"")
    if case == "cut":
        # Announces more than it sends, then closes: the event after the last blank line is cut off.
        sock.sendall(f"{head}Content-Length: {len(body) + 100}\r\n\r\n".encode() + body)
        sock.shutdown(socket.SHUT_RDWR)
        return END
    sock.sendall(f"{head}Content-Length: {len(body)}\r\n\r\n".encode() + body)


def route_ratelimit(request):
    sock, key, target, body = request.sock, request.key, request.target, request.body
    with lock:
        reset = resets.setdefault(key, int(time.time()) + (3600 if "far=1" in target else 2))
    if count("ratelimit/" + key) == 1:
        head = "HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\n"
        head += f"x-ratelimit-remaining: 0\r\nx-ratelimit-reset: {reset}\r\n"
        body = b'{"message": "API rate limit exceeded"}'
        sock.sendall(f"{head}Content-Length: {len(body)}\r\n\r\n".encode() + body)
    else:
        if time.time() < reset:
            count("ratelimit-early/" + key)
        respond(sock, 200, b'{"id": 1, "name": "ok"}')


def route_problem(request):
    sock, body = request.sock, request.body
    body = b'{"message": "Validation Failed", "errors": [{"field": "name", "code": "missing"}]}'
    head = "HTTP/1.1 422 Unprocessable Entity\r\nContent-Type: application/json\r\n"
    sock.sendall(f"{head}Content-Length: {len(body)}\r\n\r\n".encode() + body)


def route_release(request):
    sock, key = request.sock, request.key
    count("release/" + key)
    respond(sock, 200, b"{}")


def route_jsonl(request):
    sock, key, parts, target, headers = request.sock, request.key, request.parts, request.target, request.headers
    count("jsonl/" + key)
    lines = int(parts[2]) if len(parts) > 2 else 3
    options = options_of(target, headers)
    delay = int(options.get("delay-ms", "0")) / 1000
    head = "HTTP/1.1 200 OK\r\nContent-Type: application/jsonl\r\nTransfer-Encoding: chunked\r\n\r\n"
    try:
        sock.sendall(head.encode())
        for index in range(lines):
            if index > 0 and delay:
                time.sleep(delay)
            elif index > 0:
                deadline = time.time() + 30
                while True:
                    with lock:
                        if counts.get("release/" + key, 0) >= index or time.time() > deadline:
                            break
                        lock.wait(0.01)
                    if closed_by_peer(sock):
                        raise ConnectionError("closed")
            line = (json.dumps({"index": index}) + "\n").encode()
            sock.sendall(f"{len(line):x}\r\n".encode() + line + b"\r\n")
            count("jsonl-sent/" + key)
        sock.sendall(b"0\r\n\r\n")
    except OSError:
        count("jsonl-closed/" + key)
        return END


def route_file_redirect(request):
    sock, parts = request.sock, request.parts
    port = sock.getsockname()[1]
    rest = "/".join(parts[1:])
    location = f"http://localhost:{port}/file/{rest}"
    sock.sendall(f"HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\n\r\n".encode())


def route_raw(request):
    sock, key, target, headers = request.sock, request.key, request.target, request.headers
    count("raw/" + key)
    options = options_of(target, headers)
    data = base64.urlsafe_b64decode(options.get("b64", "") + "=" * (-len(options.get("b64", "")) % 4))
    try:
        sock.sendall(data)
    except OSError:
        return END
    if options.get("hold") == "1":
        hold_until_closed(sock)
        count("raw-closed/" + key)
        return END
    if options.get("close") == "1":
        sock.shutdown(socket.SHUT_RDWR)
        return END


def route_echo(request):
    sock, key, target, headers = request.sock, request.key, request.target, request.headers
    body, closing = request.body, request.closing
    count("echo/" + key)
    if "quiet-close" in options_of(target, headers):
        # As Python's http.server answers a request that asks to close: no Connection: close in the
        # answer, the head and the body in two writes, then a close of the sending side.
        head = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
        head += f"Content-Length: {len(body)}\r\n\r\n"
        sock.sendall(head.encode())
        sock.sendall(body)
        if closing:
            sock.shutdown(socket.SHUT_WR)
            return END
        return KEEP
    respond(sock, 200, body, "application/octet-stream", closing)


versions = {}


def respond_head(sock, status, reason, headers, body=b""):
    head = f"HTTP/1.1 {status} {reason}\r\n" + "".join(f"{name}: {value}\r\n" for name, value in headers)
    head += f"Content-Length: {len(body)}\r\n\r\n"
    sock.sendall(head.encode() + body)


def tags_of(value):
    return [tag.strip() for tag in value.split(",") if tag.strip()]


def route_cached(request):
    sock, key, headers = request.sock, request.key, request.headers
    options = options_of(request.target, headers)
    count("cached/" + key)
    # Whose call it was, by the token's last word ("none" without one): the fleet cache proof counts per token.
    token = (headers.get("authorization") or "none").split()[-1]
    if options.get("delay"):
        time.sleep(int(options["delay"]) / 1000)
    with lock:
        version = options.get("version") or str(versions.get(key, 1))
    vary = options.get("vary")
    # A representation's tag names what it varies by: each variant has its own (RFC 9110 §8.8.3).
    etag = f'"{version}-{headers.get(vary.lower(), "")}"' if vary else f'"{version}"'
    fields = [
        ("Content-Type", "application/json"),
        ("ETag", etag),
        ("Date", time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime())),
        ("Last-Modified", time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() - 3600))),
        ("Cache-Control", urllib.parse.unquote(options.get("cc", "max-age=60"))),
    ]
    if vary:
        fields.append(("Vary", vary))
    if etag in tags_of(headers.get("if-none-match", "")):
        count("cached-304/" + key)
        count(f"cached-304-for/{key}/{token}")
        respond_head(sock, 304, "Not Modified", [field for field in fields if field[0] != "Content-Type"])
        return
    count("cached-200/" + key)
    count(f"cached-200-for/{key}/{token}")
    body = {"version": int(version), "authorization": headers.get("authorization")}
    if vary:
        body["varied"] = headers.get(vary.lower())
    respond_head(sock, 200, "OK", fields, json.dumps(body).encode())


def route_auth(request):
    count("auth/" + request.key)
    if request.headers.get("authorization") == "Bearer fresh":
        respond(request.sock, 200, b'{"authorized": true}', close=request.closing)
        return
    respond_head(request.sock, 401, "Unauthorized", [("WWW-Authenticate", "Bearer"), ("Content-Type", "application/json")], b"{}")


idempotency = {}  # (KEY, idempotency key) -> {"body": bytes, "answer": bytes or None}
idempotency_logs = {}  # (KEY, GROUP) -> [body, ...]


def idempotency_key(headers):
    """The Idempotency-Key's value: an sf-string's content, or the bare value most APIs take."""
    value = headers.get("idempotency-key")
    if value is None:
        return None
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    return value


def problem(sock, status, reason, title, closing):
    body = json.dumps({"type": "about:blank", "title": title, "status": status}).encode()
    respond_head(sock, status, reason, [("Content-Type", "application/problem+json")] + ([("Connection", "close")] if closing else []), body)


idempotency_inflight = {}  # (KEY, GROUP) -> requests being handled now


def route_idem(request):
    """Counts idem-overlap/KEY when a request for a group arrives while another for the same group is being
    handled: two tries of one group at once, which an outbox's fleet must never send."""
    parts = request.parts
    slot = (request.key, parts[2] if len(parts) > 2 else "")
    with lock:
        idempotency_inflight[slot] = idempotency_inflight.get(slot, 0) + 1
        overlapping = idempotency_inflight[slot] > 1
    if overlapping:
        count("idem-overlap/" + request.key)
    try:
        return route_idem_once(request)
    finally:
        with lock:
            idempotency_inflight[slot] -= 1


def route_idem_once(request):
    key, parts, body = request.key, request.parts, request.body
    group = parts[2] if len(parts) > 2 else ""
    options = options_of(request.target, request.headers)
    count("idem/" + key)
    token = idempotency_key(request.headers)
    if token is None:
        count("idem-400/" + key)
        return problem(request.sock, 400, "Bad Request", "Idempotency-Key is missing", request.closing)
    with lock:
        stored = idempotency.get((key, token))
        if stored is None:
            stored = {"body": body, "answer": None}
            idempotency[(key, token)] = stored
            log = idempotency_logs.setdefault((key, group), [])
            log.append(body.decode("utf-8", "replace"))
            answer = json.dumps({"applied": len(log), "group": group, "body": body.decode("utf-8", "replace")}).encode()
            first = True
        else:
            first = False
    if not first:
        if stored["body"] != body:
            count("idem-422/" + key)
            return problem(request.sock, 422, "Unprocessable Content", "the key was used with another body", request.closing)
        if stored["answer"] is None:
            count("idem-409/" + key)
            return problem(request.sock, 409, "Conflict", "a request with this key is in progress", request.closing)
        count("idem-replayed/" + key)
        respond_head(request.sock, 200, "OK", [("Content-Type", "application/json"), ("Idempotency-Replayed", "true")], stored["answer"])
        return None
    applied = count("idem-applied/" + key)
    if "delay-ms" in options:
        time.sleep(int(options["delay-ms"]) / 1000)
    if options.get("hold") == "1":
        with lock:
            lock.wait_for(lambda: counts.get("release/" + key, 0) >= 1, timeout=60)
    with lock:
        stored["answer"] = answer
    drops_one_in = int(options.get("drop-one-in", "0"))
    dropping = options.get("drop") == "1" and count("idem-drop-asked/" + key) == 1
    if dropping or (drops_one_in > 0 and applied % drops_one_in == 0):
        count("idem-dropped/" + key)
        request.sock.shutdown(socket.SHUT_RDWR)
        return END
    respond_head(request.sock, 200, "OK", [("Content-Type", "application/json")], answer)
    return None


def route_idem_log(request):
    key, parts = request.key, request.parts
    if len(parts) <= 2:
        with lock:
            groups = {group: list(log) for (owner, group), log in idempotency_logs.items() if owner == key}
        return respond(request.sock, 200, json.dumps({"groups": groups}).encode(), close=request.closing)
    group = parts[2]
    with lock:
        applied = list(idempotency_logs.get((key, group), []))
    respond(request.sock, 200, json.dumps({"applied": applied}).encode(), close=request.closing)


def route_bump(request):
    key = request.key
    count("bump/" + key)
    with lock:
        versions[key] = versions.get(key, 1) + 1
    respond_head(request.sock, 204, "No Content", [("Location", f"/cached/{key}")])


def route_pages(request):
    sock, key, headers, target = request.sock, request.key, request.headers, request.target
    options = options_of(target, headers)
    count("pages/" + key)
    total, per_page = int(options.get("total", 300)), int(options.get("per_page", 30))
    page = int(options.get("page", 1))
    last = max(1, (total + per_page - 1) // per_page)
    first_id = (page - 1) * per_page + 1
    items = [{"id": i, "title": f"Issue {i}: " + "x" * 40} for i in range(first_id, min(total, page * per_page) + 1)]
    body = json.dumps(items).encode()
    etag = '"p%d-%d-%08x"' % (page, per_page, zlib.crc32(body))
    prefix = f"http://127.0.0.1:{sock.getsockname()[1]}" if options.get("absolute") == "1" else ""
    extra = "&absolute=1" if options.get("absolute") == "1" else ""
    if "cc" in options:
        extra += "&cc=" + options["cc"]
    links = []
    if page < last:
        links.append(f'<{prefix}/pages/{key}?page={page + 1}&per_page={per_page}&total={total}{extra}>; rel="next"')
    links.append(f'<{prefix}/pages/{key}?page={last}&per_page={per_page}&total={total}{extra}>; rel="last"')
    fields = [
        ("Content-Type", "application/json"),
        ("ETag", etag),
        ("Cache-Control", urllib.parse.unquote(options.get("cc", "private, max-age=60"))),
        ("Vary", "Accept, Authorization, Cookie"),
        ("Link", ", ".join(links)),
    ]
    if etag in tags_of(headers.get("if-none-match", "")):
        count("pages-304/" + key)
        respond_head(sock, 304, "Not Modified", [field for field in fields if field[0] != "Content-Type"])
        return
    count("pages-200/" + key)
    add("pages-bytes/" + key, len(body))
    respond_head(sock, 200, "OK", fields, body)


versioned = {}


def route_versioned(request):
    key, parts = request.key, request.parts
    arrival = count("versioned/" + key)
    # Answers out of order: each request waits 0-4 ms, by its arrival number, so that loads and writes overlap.
    time.sleep((arrival * 2654435761 % 5) / 1000)
    item_id = int(parts[2]) if len(parts) > 2 and parts[2].isdigit() else 0
    with lock:
        item = versioned.setdefault((key, item_id), {"id": item_id, "version": 1, "name": f"item {item_id}", "pending": False})
        if request.method == "PATCH":
            if request.headers.get("x-fail") == "1":
                respond(request.sock, 500, b"{}", close=request.closing)
                return
            item["version"] += 1
            item["name"] = request.body.decode("utf-8", "replace")
        body = json.dumps(item).encode()
    respond(request.sock, 200, body, close=request.closing)


arrivals = {}
releases = {}
pauses = {}


def route_limited(request):
    sock, key, target, headers = request.sock, request.key, request.target, request.headers
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(target).query)
    limit = int(query.get("limit", ["10"])[0])
    period = int(query.get("period", ["1000"])[0]) / 1000
    pause = float(query.get("pause", ["0"])[0])
    now, wall = time.monotonic(), time.time()
    instance, released = headers.get("x-instance"), headers.get("x-released")
    with lock:
        if released and released.isdigit():
            releases.setdefault(key, []).append((int(released) / 1e6, wall))
        seen = arrivals.setdefault(key, [])
        first = not seen
        seen.append(now)
        if instance:
            counts[f"limited-by/{key}/{instance}"] = counts.get(f"limited-by/{key}/{instance}", 0) + 1
        if first and pause > 0:
            pauses[key] = now + pause
        elif now < pauses.get(key, 0):
            counts["limited-early/" + key] = counts.get("limited-early/" + key, 0) + 1
        # Arrivals are appended nearly in order: the scan from the end stops a second past the window.
        inside = 0
        for arrival in reversed(seen):
            if arrival <= now - period - 1:
                break
            inside += arrival > now - period
    if first and pause > 0:
        head = f"HTTP/1.1 429 Too Many Requests\r\nRetry-After: {pause:g}\r\nContent-Type: application/json\r\n"
        sock.sendall(f"{head}Content-Length: 2\r\n\r\n{{}}".encode())
    elif inside > limit:
        count("limited-over/" + key)
        head = "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1\r\nContent-Type: application/json\r\n"
        sock.sendall(f"{head}Content-Length: 2\r\n\r\n{{}}".encode())
    else:
        respond(sock, 200, b'{"id": 1, "name": "ok"}')


def most_in_window(times, period):
    """The most of the sorted `times` in any window of `period` seconds, and when the first such window begins
    (seconds from the first)."""
    most, most_at, start = 0, 0, 0
    for end, moment in enumerate(times):
        while times[start] <= moment - period:
            start += 1
        if end - start + 1 > most:
            most, most_at = end - start + 1, times[start] - times[0]
    return most, most_at


def route_window(request):
    sock, key, target = request.sock, request.key, request.target
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(target).query)
    period = int(query.get("period", ["1000"])[0]) / 1000
    with lock:
        seen = sorted(arrivals.get(key, []))
        by = {name.split("/", 2)[2]: value for name, value in counts.items() if name.startswith(f"limited-by/{key}/")}
        over, early = counts.get("limited-over/" + key, 0), counts.get("limited-early/" + key, 0)
        stamped = list(releases.get(key, []))
    most, most_at = most_in_window(seen, period)
    span = seen[-1] - seen[0] if seen else 0
    transits = sorted(arrival - released for released, arrival in stamped)
    body = {"count": len(seen), "max": most, "max_at": most_at, "over": over, "early": early, "by": by, "span": span,
            "max_released": most_in_window(sorted(released for released, _ in stamped), period)[0],
            "transit_p50": transits[len(transits) // 2] if transits else 0,
            "transit_max": transits[-1] if transits else 0}
    respond(sock, 200, json.dumps(body).encode())


# The first part of the path picks the route; the module docstring says what each one does.
ROUTES = {
    "count": route_count,
    "await": route_await,
    "truncated": route_truncated,
    "hold": route_hold,
    "drop-reused": route_drop_reused,
    "stall-body": route_stall_body,
    "redirect": route_redirect,
    "slow-redirect": route_slow_redirect,
    "chunked": route_chunked,
    "length": route_length,
    "bomb": route_bomb,
    "file": route_file,
    "sse": route_sse,
    "sse-case": route_sse_case,
    "ratelimit": route_ratelimit,
    "problem": route_problem,
    "release": route_release,
    "jsonl": route_jsonl,
    "file-redirect": route_file_redirect,
    "raw": route_raw,
    "echo": route_echo,
    "cached": route_cached,
    "bump": route_bump,
    "auth": route_auth,
    "idem": route_idem,
    "idem-log": route_idem_log,
    "pages": route_pages,
    "versioned": route_versioned,
    "limited": route_limited,
    "window": route_window,
}


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        sock = self.request
        stream = sock.makefile("rb")
        served = 0
        while True:
            served += 1
            try:
                parsed = read_request(stream)
            except (ConnectionError, ValueError):
                return
            if parsed is None:
                return
            request = Request(sock, served, *parsed)
            route = ROUTES.get(request.kind)
            if route is None:
                respond(sock, 404, b"{}")
                outcome = None
            else:
                outcome = route(request)
            if outcome == END:
                return
            if outcome != KEEP and request.closing:
                sock.shutdown(socket.SHUT_RDWR)
                return


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 1024


if __name__ == "__main__":
    Server(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
