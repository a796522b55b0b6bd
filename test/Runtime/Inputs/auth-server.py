#!/usr/bin/env python3
"""A minimal OpenAI-compatible server that demands a bearer token (python3
stdlib only), to check what arecipe-run --endpoint sends: every request
without `Authorization: Bearer KEY` gets 401. /v1/models lists MODEL;
/v1/completions and /v1/chat/completions stream one chunk and a usage
chunk claiming max_tokens completion tokens. After every request it
rewrites REPORT with "requests: N, with the key: M" (the server is killed,
not asked to stop).
Usage: auth-server.py PORT_FILE KEY MODEL REPORT"""
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port_file, key, model, report = sys.argv[1:5]
counts = {"requests": 0, "keyed": 0}
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def authorized(self):
        with lock:
            counts["requests"] += 1
            ok = self.headers.get("Authorization") == f"Bearer {key}"
            counts["keyed"] += ok
            with open(report, "w") as f:
                f.write(f"requests: {counts['requests']}, with the key: {counts['keyed']}\n")
        if ok:
            return True
        self.send_response(401)
        self.send_header("Content-Length", "0")
        self.end_headers()
        return False

    def reply(self, status, body, kind="application/json"):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if not self.authorized():
            return
        if self.path == "/v1/models":
            self.reply(200, json.dumps({"object": "list", "data": [{"id": model}]}))
        elif self.path == "/metrics":
            self.reply(200, "vllm:num_requests_running 0\n", "text/plain")
        else:
            self.reply(404, "{}")

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        if not self.authorized():
            return
        chat = self.path == "/v1/chat/completions"
        delta = {"delta": {"content": "x"}} if chat else {"text": "x"}
        usage = {"prompt_tokens": 1, "completion_tokens": body.get("max_tokens", 1),
                 "total_tokens": 1 + body.get("max_tokens", 1)}
        events = [{"choices": [dict(index=0, **delta)]}, {"choices": [], "usage": usage}]
        stream = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
        self.reply(200, stream, "text/event-stream")


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(port_file + ".tmp", port_file)
server.serve_forever()
