#!/usr/bin/env python3
"""A scripted Language Server Protocol client for arecipe-lsp's lit tests.

It reads the lines of a transcript that start with `IN: ` (usually the test
file itself), turns each into one message, frames it with a Content-Length
header, writes them all to the server, closes its input and prints every
message the server wrote, one compact JSON object per line with sorted keys,
then `EXIT <status>`. FileCheck checks what it prints. The server answers in
order, so the output is deterministic.

Transcript lines (after `IN: `):
  {...}                    a JSON message, sent as written
  RAW <python literal>     bytes sent as they are (framing tests)
  OPEN <path>              textDocument/didOpen of the file (version 1)
  CHANGE <path> <old> => <new>
                           textDocument/didChange: the file's text with the
                           first <old> replaced by <new> (version 2)
Before a line is used, `@NAME@` is replaced by the value of `--var
NAME=VALUE`, `@uri(PATH)@` by PATH's file:// URI and `@at(PATH|TEXT)@` by
the LSP position ({"line":..,"character":..}) of the first occurrence of
TEXT in PATH (after `+N`, N characters further: `@at(f|graph_max+3)@`).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import urllib.parse


def uri(path):
    return "file://" + urllib.parse.quote(os.path.abspath(path))


def at(spec):
    path, text = spec.split("|", 1)
    extra = 0
    m = re.match(r"^(.*)\+(\d+)$", text)
    if m:
        text, extra = m.group(1), int(m.group(2))
    with open(path, encoding="utf-8") as f:
        content = f.read()
    off = content.find(text)
    if off < 0:
        sys.exit("lsp-client: %r not found in %s" % (text, path))
    off += extra
    line = content.count("\n", 0, off)
    col = off - (content.rfind("\n", 0, off) + 1)
    units = len(content[off - col:off].encode("utf-16-le")) // 2
    return json.dumps({"line": line, "character": units})


def expand(line, variables):
    for name, value in variables.items():
        line = line.replace("@%s@" % name, value)
    line = re.sub(r"@uri\(([^)]*)\)@", lambda m: uri(m.group(1)), line)
    line = re.sub(r"@at\(([^)]*)\)@", lambda m: at(m.group(1)), line)
    return line


def frame(body):
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def message(obj):
    return frame(json.dumps(obj).encode("utf-8"))


def main():
    # --server takes the rest of the command line.
    argv = sys.argv[1:]
    if "--server" not in argv:
        sys.exit("usage: lsp-client.py TRANSCRIPT [--var N=V]... --server CMD...")
    i = argv.index("--server")
    server = argv[i + 1:]
    ap2 = argparse.ArgumentParser()
    ap2.add_argument("transcript")
    ap2.add_argument("--var", action="append", default=[])
    opts = ap2.parse_args(argv[:i])
    variables = dict(v.split("=", 1) for v in opts.var)

    out = b""
    with open(opts.transcript, encoding="utf-8") as f:
        for raw in f:
            m = re.match(r"^\s*(?://|#)?\s*IN: (.*)$", raw.rstrip("\n"))
            if not m:
                continue
            line = expand(m.group(1), variables)
            if line.startswith("RAW "):
                out += eval(line[4:], {})  # a Python bytes literal
            elif line.startswith("OPEN "):
                path = line[5:].strip()
                with open(path, encoding="utf-8") as t:
                    text = t.read()
                out += message({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                                "params": {"textDocument": {
                                    "uri": uri(path), "languageId": "arecipe",
                                    "version": 1, "text": text}}})
            elif line.startswith("CHANGE "):
                path, rest = line[7:].split(" ", 1)
                old, new = rest.split(" => ", 1)
                with open(path, encoding="utf-8") as t:
                    text = t.read()
                if old not in text:
                    sys.exit("lsp-client: %r not found in %s" % (old, path))
                text = text.replace(old, new, 1)
                out += message({"jsonrpc": "2.0", "method": "textDocument/didChange",
                                "params": {"textDocument": {"uri": uri(path), "version": 2},
                                           "contentChanges": [{"text": text}]}})
            else:
                out += frame(line.encode("utf-8"))

    proc = subprocess.run(server, input=out, stdout=subprocess.PIPE, timeout=300)
    data = proc.stdout
    pos = 0
    while pos < len(data):
        end = data.find(b"\r\n\r\n", pos)
        if end < 0:
            print("TRAILING %r" % data[pos:])
            break
        headers = data[pos:end].decode("ascii")
        length = None
        for h in headers.split("\r\n"):
            k, _, v = h.partition(":")
            if k.strip().lower() == "content-length":
                length = int(v.strip())
        if length is None:
            print("BAD HEADER %r" % headers)
            break
        body = data[end + 4:end + 4 + length]
        if len(body) != length:
            print("SHORT BODY")
            break
        print(json.dumps(json.loads(body), sort_keys=True, ensure_ascii=False))
        pos = end + 4 + length
    print("EXIT %d" % proc.returncode)


if __name__ == "__main__":
    main()
