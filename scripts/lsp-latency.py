#!/usr/bin/env python3
"""Diagnostics latency of `wsitec lsp` after an edit, measured as an editor
sees it: the time from sending a `didChange` to receiving the
`publishDiagnostics` it causes (the debounce included).

    python3 scripts/lsp-latency.py [WSITEC] [FILE] [EDITS]

Defaults: target/release/wsitec, the largest example, 20 edits. Each edit
appends a comment line (so every analysis is real work on a changed text);
prints the median and the slowest.
"""
import json
import pathlib
import statistics
import subprocess
import sys
import time

root = pathlib.Path(__file__).resolve().parent.parent
wsitec = sys.argv[1] if len(sys.argv) > 1 else str(root / "target/release/wsitec")
if len(sys.argv) > 2:
    path = pathlib.Path(sys.argv[2]).resolve()
else:
    path = max((root / "examples").rglob("*.wsite"), key=lambda p: len(p.read_text()))
edits = int(sys.argv[3]) if len(sys.argv) > 3 else 20

server = subprocess.Popen([wsitec, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def send(message):
    body = json.dumps(message).encode()
    server.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    server.stdin.flush()


def receive():
    length = 0
    while True:
        line = server.stdout.readline()
        if not line:
            raise SystemExit("the server closed its output")
        if line in (b"\r\n", b"\n"):
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(server.stdout.read(length))


def wait_for(method):
    while True:
        message = receive()
        if message.get("method") == method:
            return message


uri = path.as_uri()
text = path.read_text()
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
receive()
send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
    "textDocument": {"uri": uri, "languageId": "wsite", "version": 1, "text": text}}})
first = wait_for("textDocument/publishDiagnostics")
times = []
for k in range(edits):
    text += f"// edit {k}\n"
    started = time.perf_counter()
    send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri, "version": k + 2}, "contentChanges": [{"text": text}]}})
    wait_for("textDocument/publishDiagnostics")
    times.append(1000 * (time.perf_counter() - started))
send({"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": None})
receive()
send({"jsonrpc": "2.0", "method": "exit", "params": None})
server.wait(timeout=10)
lines = text.count("\n")
print(f"{path.name} ({lines} lines, {len(first['params']['diagnostics'])} diagnostics): "
      f"after an edit, diagnostics in {statistics.median(times):.0f} ms median, "
      f"{max(times):.0f} ms slowest, over {edits} edits (150 ms of it the debounce)")
