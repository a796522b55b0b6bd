#!/usr/bin/env python3
"""An OpenAI-style streaming server that misbehaves on purpose (stdlib only).

  hostile_server.py --mode MODE --port-file P

Listens on 127.0.0.1 (ephemeral port, written to P) and answers every POST
with a response that a load client must survive:

  trickle     the whole response, from the status line on, one byte per
              second: bytes keep coming, no event ever completes
  huge-line   a 200 response whose first SSE line is --line-mb MiB long, sent
              as fast as the client reads it
  after-done  a normal stream, then another event after data: [DONE]
  bad-usage   a normal stream whose usage claims 10^15 completion tokens

Runs until killed; the test harness kills it.
"""
import argparse
import json
import os
import socket
import socketserver
import time

HEAD = (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n")


def chunk(data):
    return b"%x\r\n%s\r\n" % (len(data), data)


def event(obj):
    data = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
    return chunk(b"data: " + data + b"\n\n")


def tokens(n, usage_tokens):
    out = b""
    for i in range(n):
        out += event({"choices": [{"index": 0, "text": " tok%d" % i}]})
    out += event({"choices": [], "usage": {"prompt_tokens": 4,
                                           "completion_tokens": usage_tokens,
                                           "total_tokens": 4 + usage_tokens}})
    return out


class Handler(socketserver.BaseRequestHandler):
    def read_request(self):
        data = b""
        while b"\r\n\r\n" not in data:
            got = self.request.recv(65536)
            if not got:
                return None
            data += got
        head, _, body = data.partition(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        while len(body) < length:
            got = self.request.recv(65536)
            if not got:
                return None
            body += got
        return json.loads(body[:length] or b"{}")

    def handle(self):
        mode = self.server.mode
        try:
            while True:
                req = self.read_request()
                if req is None:
                    return
                n = max(1, int(req.get("max_tokens", 4)))
                if mode == "trickle":
                    for byte in HEAD + event({"choices": [{"index": 0, "text": "x"}]}):
                        self.request.sendall(bytes([byte]))
                        time.sleep(1)
                    return
                if mode == "huge-line":
                    self.request.sendall(HEAD + chunk(b"data: "))
                    piece = chunk(b"x" * (1 << 20))
                    for _ in range(self.server.line_mb):
                        self.request.sendall(piece)
                    self.request.sendall(chunk(b"\n\n") + chunk(b"data: [DONE]\n\n") + b"0\r\n\r\n")
                    continue
                if mode == "after-done":
                    self.request.sendall(HEAD + tokens(n, n) + event(b"[DONE]") +
                                         event({"choices": [{"index": 0, "text": "late"}]}) +
                                         b"0\r\n\r\n")
                    continue
                if mode == "bad-usage":
                    self.request.sendall(HEAD + tokens(n, 10**15) + event(b"[DONE]") +
                                         b"0\r\n\r\n")
                    continue
        except (BrokenPipeError, ConnectionResetError):
            return


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", required=True,
                    choices=["trickle", "huge-line", "after-done", "bad-usage"])
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--line-mb", type=int, default=400)
    args = ap.parse_args()
    srv = Server(("127.0.0.1", 0), Handler)
    srv.mode = args.mode
    srv.line_mb = args.line_mb
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, args.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    main()
