#!/usr/bin/env python3
"""A runner whose every name is hostile to a terminal, for tests that output prints it literally.

It speaks docs/protocol.md without needing the engine: it announces one implementation for
aes-128-ctr whose name, library, version and provider are NAME (rich markup and an escape
sequence that would clear the screen) and answers every other request `unsupported`, with
NAME as the message.
"""
import json
import sys

NAME = "[bold red]x[/]\x1b[2J"

HELLO = {"status": "ok", "protocol": 1, "runner": "hostile", "language": "Python",
         "runtime": sys.version.split()[0], "clocks": {"monotonic": "time.perf_counter_ns"},
         "implementations": [{"name": NAME, "library": NAME, "version": NAME, "available": True,
                              "primitives": [{"name": "aes-128-ctr", "provider": NAME}]}]}

for line in sys.stdin:
    req = json.loads(line)
    if req.get("op") == "quit":
        break
    resp = HELLO if req.get("op") == "hello" else {"status": "unsupported", "message": NAME}
    print(json.dumps(dict(resp, id=req.get("id"))), flush=True)
