"""A hand-written MCP server (no SDK, session era, stdio) that answers as a newer protocol
might: fields and a content type this oxmcp does not know. Its ``broken`` tool answers a
result that breaks the protocol (``content`` is not a list)."""

import json
import sys
from typing import Any

FUTURE = {
    "content": [
        {"type": "text", "text": "plain", "sparkle": True},
        {"type": "hologram", "depth": 3, "frames": ["a", "b"]},
    ],
    "isError": False,
    "_meta": {"trace": "t-1"},
    "receipt": {"id": 7},
}

RESULTS = {
    "initialize": {
        "protocolVersion": "2025-11-25",
        "capabilities": {"tools": {"listChanged": False, "batch": True}, "telepathy": {}},
        "serverInfo": {"name": "future", "version": "9.0.0", "motto": "ahead"},
    },
    "ping": {},
    "tools/list": {"tools": [{"name": "future", "inputSchema": {"type": "object"}, "cost": 3},
                             {"name": "broken", "inputSchema": {"type": "object"}}]},
}


def answer(request: dict[str, Any]) -> dict[str, Any]:
    method = request["method"]
    if method == "tools/call":
        name = request["params"]["name"]
        return {"result": FUTURE if name == "future" else {"content": "not a list"}}
    if method in RESULTS:
        return {"result": RESULTS[method]}
    return {"error": {"code": -32601, "message": f"no method {method}"}}


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message or "method" not in message:
            continue  # notifications (and answers) need no answer
        reply = {"jsonrpc": "2.0", "id": message["id"], **answer(message)}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
