"""A state writer for `wsitec agent|play --simulator CMD` (docs/runtime.md).

Usage: echo_writer.py [DELTA_JSON]. For every request it proposes DELTA_JSON,
with each string "{name}" replaced by the marker's argument `name` (a row id,
say); without DELTA_JSON it answers {"default": true}. Requests are one JSON
line each on stdin, answers one JSON line each on stdout.
"""
import json
import sys


def fill(value, args):
    if isinstance(value, str) and value[:1] + value[-1:] == "{}" and value[1:-1] in args:
        return args[value[1:-1]]
    if isinstance(value, list):
        return [fill(v, args) for v in value]
    if isinstance(value, dict):
        return {k: fill(v, args) for k, v in value.items()}
    return value


delta = json.loads(sys.argv[1]) if len(sys.argv) > 1 else None
for line in sys.stdin:
    request = json.loads(line)
    answer = {"default": True} if delta is None else {"delta": fill(delta, request["args"])}
    print(json.dumps(answer), flush=True)
