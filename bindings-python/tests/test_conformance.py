"""The official MCP conformance server suite (npm @modelcontextprotocol/conformance, the one
tests/conformance/run.sh runs against the Rust everything server) against the Python
everything server, examples/everything_server.py, over Streamable HTTP."""

import contextlib
import fcntl
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
SERVER = HERE.parent / "examples" / "everything_server.py"
CONFORMANCE = REPO / "tests" / "conformance"
SUITE = CONFORMANCE / "node_modules" / ".bin" / "conformance"
NODE_BIN = CONFORMANCE / "node_modules" / "node" / "bin"
TOTAL = re.compile(r"^Total: (\d+) passed, (\d+) failed", re.M)


def install_suite() -> None:
    """`npm ci` in tests/conformance when node_modules is missing or stale: the stamp
    logic of run.sh (node_modules/.oxmcp-stamp holds the sha256 of package-lock.json)."""
    want = hashlib.sha256((CONFORMANCE / "package-lock.json").read_bytes()).hexdigest()
    stamp = CONFORMANCE / "node_modules" / ".oxmcp-stamp"
    lock_path = Path(tempfile.gettempdir()) / "oxmcp-conformance-npm.lock"
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # concurrent test runs install once
        if stamp.is_file() and stamp.read_text().strip() == want and SUITE.exists():
            return
        r = subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=CONFORMANCE,
                           capture_output=True, text=True, timeout=900)
        assert r.returncode == 0, f"npm ci in {CONFORMANCE} failed:\n{r.stdout}\n{r.stderr}"
        stamp.write_text(want + "\n")


@contextlib.contextmanager
def everything_server(log: Path):
    """The Python everything server on a free 127.0.0.1 port (port 0: the OS picks one);
    yields its URL, read from the "listening on URL" line on its stderr."""
    with open(log, "w+") as stderr:
        proc = subprocess.Popen([sys.executable, str(SERVER), "--http", "127.0.0.1:0"], stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=stderr)
        try:
            url = None
            deadline = time.time() + 30
            while url is None and proc.poll() is None and time.time() < deadline:
                time.sleep(0.05)
                stderr.seek(0)
                m = re.search(r"^listening on (http://\S+)$", stderr.read(), re.M)
                url = m and m.group(1)
            if url is None:
                stderr.seek(0)
                raise AssertionError(f"the everything server did not start (exit {proc.poll()}):\n{stderr.read()}")
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def failed_checks(results: Path) -> list[str]:
    """The failing checks the suite saved (one checks.json per scenario)."""
    out = []
    for checks in sorted(results.glob("*/checks.json")):
        for check in json.loads(checks.read_text()):
            if check.get("status") == "FAILURE":
                out.append(f"  {check.get('id')}: {check.get('errorMessage') or check.get('description')}")
    return out


def test_official_conformance_server_suite(tmp_path):
    install_suite()
    env = dict(os.environ, PATH=f"{NODE_BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    version = subprocess.run(["node", "--version"], env=env, capture_output=True, text=True).stdout.strip()
    assert version.startswith("v22."), f"expected Node 22 from {NODE_BIN}, got {version!r}"

    with everything_server(tmp_path / "server.log") as url:
        port = int(re.search(r":(\d+)/mcp$", url).group(1))
        r = subprocess.run([str(SUITE), "server", "--url", f"http://localhost:{port}/mcp", "--suite", "all",
                            "-o", str(tmp_path / "results")],
                           env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    output = r.stdout + r.stderr
    totals = TOTAL.findall(output)
    summary = [line for line in output.splitlines() if line.startswith(("✓", "✗"))]
    failing = [line for line in summary if line.startswith("✗")]
    report = "\n".join(["failing scenarios:", *failing, "failing checks:", *failed_checks(tmp_path / "results"),
                        "server stderr (tail):", *(tmp_path / "server.log").read_text().splitlines()[-20:]])
    assert totals, f"the suite printed no total (exit {r.returncode}):\n{output[-4000:]}"
    last = [line for line in output.splitlines() if line.strip()][-1]
    assert TOTAL.match(last), f"the suite's last line is not its total: {last!r}\n{output[-4000:]}"
    passed, failed = (int(n) for n in totals[-1])
    print(f"conformance against the Python everything server: {passed} passed, {failed} failed")
    assert failed == 0, f"Total: {passed} passed, {failed} failed\n{report}"
    assert passed >= 40, f"only {passed} checks passed (expected >= 40)\n" + "\n".join(summary)




def test_the_extension_scenarios(tmp_path):
    """Each server scenario of the tasks and skills extensions in the suite's 0.2.0 line
    against the Python everything server, whose task fixtures are ordinary Python tools
    with task_support and whose skills are added with server.skill."""
    install_suite()
    env = dict(os.environ, PATH=f"{NODE_BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    nxt = [str(NODE_BIN / "node"), str(CONFORMANCE / "node_modules" / "conformance-next" / "dist" / "index.js")]
    listed = subprocess.run([*nxt, "list", "--server"], env=env, capture_output=True, text=True, timeout=60).stdout
    scenarios = sorted(set(re.findall(r"^  - ((?:tasks|sep-2640)-[a-z0-9-]+)", listed, re.M)))
    assert len([s for s in scenarios if s.startswith("tasks-")]) >= 10, listed
    assert len([s for s in scenarios if s.startswith("sep-2640-")]) >= 3, listed
    results = []
    with everything_server(tmp_path / "server.log") as url:
        port = int(re.search(r":(\d+)/mcp$", url).group(1))
        for scenario in scenarios:
            r = subprocess.run([*nxt, "server", "--url", f"http://localhost:{port}/mcp", "--scenario", scenario],
                               env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)
            m = re.search(r"^Passed: (\d+)/\d+, (\d+) failed", r.stdout, re.M)
            assert m, f"{scenario}: no result (exit {r.returncode}):\n{r.stdout[-3000:]}{r.stderr[-2000:]}"
            results.append((scenario, int(m.group(1)), int(m.group(2)), r.stdout))
    failing = [f"{s}: {f} failed\n" + "\n".join(l for l in out.splitlines() if "FAILURE" in l) for s, _, f, out in results if f]
    passed = sum(p for _, p, _, _ in results)
    print(f"extension scenarios against the Python everything server: {passed} checks passed")
    assert not failing, "\n".join(failing)
    assert passed >= 80, results
