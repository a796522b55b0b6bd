#!/usr/bin/env python3
"""Drives arecipe-lsp through a storm of broken edits: the recipe cut at
every STEP-th byte (so every kind of half-typed text: open braces, strings,
comments, expressions), and after each cut a hover, a definition, a
completion, the symbols and the code actions at several places. Prints how
many requests were sent and answered, how many answers were errors, and the
server's exit status; a crash shows as a missing answer and a signal."""
import json
import subprocess
import sys

path, step, server = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
text = open(path, encoding="utf-8").read()
uri = "file://" + path
out = []
next_id = [1]


def send(obj):
    body = json.dumps(obj).encode()
    out.append(b"Content-Length: %d\r\n\r\n" % len(body) + body)


def request(method, params):
    send({"jsonrpc": "2.0", "id": next_id[0], "method": method, "params": params})
    next_id[0] += 1


request("initialize", {})
send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
    "uri": uri, "languageId": "arecipe", "version": 1, "text": text}}})
version = 1
for cut in range(0, len(text), step):
    version += 1
    partial = text[:cut]
    send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri, "version": version},
        "contentChanges": [{"text": partial}]}})
    lines = partial.count("\n")
    for line, char in ((0, 0), (lines // 2, 4), (lines, 200), (lines + 3, 0)):
        pos = {"line": line, "character": char}
        td = {"uri": uri}
        request("textDocument/hover", {"textDocument": td, "position": pos})
        request("textDocument/definition", {"textDocument": td, "position": pos})
        request("textDocument/completion", {"textDocument": td, "position": pos})
        request("textDocument/codeAction", {"textDocument": td, "range": {"start": pos, "end": pos},
                                            "context": {"diagnostics": []}})
    request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    request("textDocument/formatting", {"textDocument": {"uri": uri}, "options": {}})
request("shutdown", None)
send({"jsonrpc": "2.0", "method": "exit"})
sent = next_id[0] - 1

proc = subprocess.run(server, input=b"".join(out), stdout=subprocess.PIPE, timeout=600)
data, pos, answered, errors, diagnostics = proc.stdout, 0, set(), 0, 0
while True:
    end = data.find(b"\r\n\r\n", pos)
    if end < 0:
        break
    length = int(data[pos:end].split(b":")[1])
    msg = json.loads(data[end + 4:end + 4 + length])
    pos = end + 4 + length
    if "id" in msg:
        answered.add(msg["id"])
        if "error" in msg:
            errors += 1
            if msg["error"]["code"] != -32803:  # formatting refused
                print("unexpected error: %s" % msg["error"])
    elif msg.get("method") == "textDocument/publishDiagnostics":
        diagnostics += 1
print("sent %d requests, answered %d, %d formatting refusals or errors, "
      "%d diagnostics notifications for %d versions, exit %d"
      % (sent, len(answered), errors, diagnostics, version, proc.returncode))
