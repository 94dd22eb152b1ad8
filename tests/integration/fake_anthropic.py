#!/usr/bin/env python3
"""A scripted stand-in for the Anthropic Messages API, for driving the real Claude Code.

Usage: fake_anthropic.py PORTFILE LOGFILE COMMAND [ADDR]
Listens on ADDR (default 127.0.0.1; a free port, written to PORTFILE). Every POST /v1/messages that offers
the Bash tool and carries no tool result yet is answered with one Bash tool call running
COMMAND; once the tool result comes back, with the text "FAKE-API-DONE: <first line of the
result>". Requests without tools (title or topic side requests) get a short text. Each request
is logged as one JSON line (path, stream, tools offered, tool result seen) to LOGFILE.
"""
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORTFILE, LOGFILE, COMMAND = sys.argv[1], sys.argv[2], sys.argv[3]
ADDR = sys.argv[4] if len(sys.argv) > 4 else "127.0.0.1"
lock = threading.Lock()
counter = [0]


def next_id(prefix):
    with lock:
        counter[0] += 1
        return "%s_%06d" % (prefix, counter[0])


def tool_results(body):
    out = []
    for m in body.get("messages", []):
        content = m.get("content")
        if isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    c = block.get("content")
                    if isinstance(c, list):
                        c = "".join(x.get("text", "") for x in c if isinstance(x, dict))
                    out.append(str(c))
    return out


def answer(body):
    """The content blocks and stop reason for this request."""
    tools = [t.get("name") for t in body.get("tools", []) if isinstance(t, dict)]
    results = tool_results(body)
    if results:
        first = results[-1].strip().splitlines()[0] if results[-1].strip() else ""
        return [{"type": "text", "text": "FAKE-API-DONE: " + first}], "end_turn"
    if "Bash" in tools:
        return [{"type": "tool_use", "id": next_id("toolu"), "name": "Bash",
                 "input": {"command": COMMAND, "description": "Run the scripted command"}}], "tool_use"
    return [{"type": "text", "text": "ok"}], "end_turn"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send_json(self, code, obj):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.send_json(404, {"type": "error", "error": {"type": "not_found_error", "message": "fake"}})

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        path = self.path.split("?")[0]
        blocks, stop = answer(body) if path == "/v1/messages" else (None, None)
        with lock, open(LOGFILE, "a") as f:
            f.write(json.dumps({"path": path, "stream": bool(body.get("stream")),
                                "tools": len(body.get("tools", [])), "tool_results": tool_results(body),
                                "answer": stop}) + "\n")
        if blocks is None:
            if path.endswith("/count_tokens"):
                return self.send_json(200, {"input_tokens": 10})
            return self.send_json(404, {"type": "error", "error": {"type": "not_found_error", "message": "fake"}})
        msg = {"id": next_id("msg"), "type": "message", "role": "assistant", "model": body.get("model", "fake"),
               "content": [], "stop_reason": None, "stop_sequence": None,
               "usage": {"input_tokens": 10, "output_tokens": 1}}
        if not body.get("stream"):
            msg.update(content=blocks, stop_reason=stop)
            return self.send_json(200, msg)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()

        def event(kind, data):
            self.wfile.write(("event: %s\ndata: %s\n\n" % (kind, json.dumps(data))).encode())

        event("message_start", {"type": "message_start", "message": msg})
        for i, b in enumerate(blocks):
            if b["type"] == "text":
                event("content_block_start", {"type": "content_block_start", "index": i,
                                              "content_block": {"type": "text", "text": ""}})
                event("content_block_delta", {"type": "content_block_delta", "index": i,
                                              "delta": {"type": "text_delta", "text": b["text"]}})
            else:
                event("content_block_start", {"type": "content_block_start", "index": i,
                                              "content_block": {"type": "tool_use", "id": b["id"],
                                                                "name": b["name"], "input": {}}})
                event("content_block_delta", {"type": "content_block_delta", "index": i,
                                              "delta": {"type": "input_json_delta",
                                                        "partial_json": json.dumps(b["input"])}})
            event("content_block_stop", {"type": "content_block_stop", "index": i})
        event("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                "usage": {"output_tokens": 5}})
        event("message_stop", {"type": "message_stop"})
        self.wfile.flush()
        self.close_connection = True


server = ThreadingHTTPServer((ADDR, 0), Handler)
server.daemon_threads = True
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
import os
os.rename(PORTFILE + ".tmp", PORTFILE)
server.serve_forever()
