"""The Python quickstart of bindings-python/README.md, against the installed wheel.

Writes the README's server.py and client into the current directory (a scratch folder
outside the workspace), then runs the client against the server over stdio (the client
starts it) and over Streamable HTTP (the server started as its own process), and checks
that both print the README's output. Usage: python quickstart.py README.md
"""

import re
import socket
import subprocess
import sys
import time
from pathlib import Path

readme = Path(sys.argv[1]).read_text()
# A block is the fenced code right after an HTML comment naming it (see tests/test_readme.py).
blocks = re.findall(r"<!-- (test[^>]*|output) -->\n```\w*\n(.*?)```", readme, re.S)
server = next(code for mark, code in blocks if "file=server.py" in mark)
index = next(i for i, (mark, code) in enumerate(blocks) if mark == "test" and 'Client.stdio(sys.executable, ["server.py"])' in code)
client, expected = blocks[index][1], blocks[index + 1][1]
assert blocks[index + 1][0] == "output", "the client quickstart has no output block"
Path("server.py").write_text(server)


def run_client(code: str, name: str) -> None:
    Path(name).write_text(code)
    out = subprocess.run([sys.executable, name], capture_output=True, text=True, timeout=120)
    if out.returncode != 0 or out.stdout != expected:
        sys.exit(f"{name}: exit {out.returncode}\n--- stdout\n{out.stdout}--- expected\n{expected}--- stderr\n{out.stderr}")
    print(f"ok: {name} printed the README's output")


run_client(client, "client_stdio.py")

with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
http = subprocess.Popen([sys.executable, "-c", f"import server; server.server.run(transport='http', port={port})"])
try:
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if http.poll() is not None or time.monotonic() > deadline:
                sys.exit(f"the HTTP server did not start (exit {http.poll()})")
            time.sleep(0.1)
    url = f"http://127.0.0.1:{port}/mcp"
    run_client(client.replace('Client.stdio(sys.executable, ["server.py"])', f"Client.http({url!r})"), "client_http.py")
finally:
    http.terminate()
    http.wait(timeout=10)
