"""Type checkers see oxmcp's types: ``mypy --strict`` (the installed oxmcp, as a user's
project sees it) passes code that uses every Server decorator form and the Client's calls,
and the examples; it reports wrong calls of decorated functions, misspelled or mistyped
Client keywords and misspelled result fields where they are."""

import re
import subprocess
import sys
import textwrap
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

# Every decorator form; the functions stay callable with their own types.
GOOD = textwrap.dedent('''\
    from oxmcp import Context, Server

    server = Server("typed")


    @server.tool
    def add(a: int, b: int) -> int:
        return a + b


    @server.tool(name="greet", description="Greets.", replace=True)
    async def greet(name: str, ctx: Context) -> str:
        return f"Hello, {name}!"


    @server.resource("weather://{city}/now", mime_type="text/plain")
    def weather(city: str) -> str:
        return city


    @server.prompt
    def review(code: str, language: str = "python") -> str:
        return code


    @server.prompt(name="ask", replace=True)
    def ask(question: str) -> str:
        return question


    @server.completion()
    def complete(ref: dict[str, str], argument: dict[str, str], context: object) -> list[str]:
        return []


    @server.token_verifier
    def verify(token: str) -> dict[str, str] | None:
        return None


    total: int = add(1, 2) + len(weather("Paris")) + len(review("x", language="rust")) + len(ask("why"))
    answers: list[str] = complete({}, {}, None)
    who: dict[str, str] | None = verify("t")


    async def main(ctx: Context) -> str:
        return await greet("Ada", ctx)


    def serve() -> None:
        server.run(transport="streamable-http", port=0, allowed_hosts=["mcp.example.com"], stateless=True)
''')

# Each line marked "# wrong" must be an error, and no other line.
BAD = GOOD + textwrap.dedent('''\


    add("1", 2)  # wrong: argument type
    add(1, c=2)  # wrong: misspelled keyword
    text: str = add(1, 2)  # wrong: return type
    weather(town="Paris")  # wrong: misspelled keyword
    review(code=1)  # wrong: argument type
    ask()  # wrong: missing argument


    async def misuse(ctx: Context) -> int:
        return await greet("Ada", ctx)  # wrong: return type


    server.run(transport="htp")  # wrong: no such transport
    server.run("http", alowed_hosts=["mcp.example.com"])  # wrong: misspelled keyword
    server.run("http", max_sessions="10")  # wrong: keyword of the wrong type
''')


def mypy(tmp_path, *files: str) -> list[tuple[str, int, str]]:
    """mypy --strict on the files (in ``tmp_path``): its errors as (file, line, message)."""
    # No config file, a cache of its own: the same answer wherever the tests run.
    r = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--config-file=", "--cache-dir",
                        str(tmp_path / ".mypy_cache"), "--no-error-summary", "--no-pretty", *files],
                       cwd=tmp_path, capture_output=True, text=True, timeout=300)
    errors = [(m[1], int(m[2]), m[3]) for m in re.finditer(r"^(.+?\.py):(\d+): error: (.*)$", r.stdout, re.M)]
    # 0: clean; 1: errors found; anything else (mypy missing, crashed) is a failure here.
    assert r.returncode in (0, 1) and (r.returncode == 1) == bool(errors), r.stdout + r.stderr
    return errors


def test_mypy_strict_sees_the_decorated_functions_signatures(tmp_path):
    (tmp_path / "good.py").write_text(GOOD)
    (tmp_path / "bad.py").write_text(BAD)
    errors = mypy(tmp_path, "good.py", "bad.py")
    report = "\n".join(f"{f}:{n}: {m}" for f, n, m in errors)
    # Without typed decorators the good code fails too ("Untyped decorator makes function
    # ... untyped") and the wrong calls pass (the functions are Any); without the
    # transport's Literal and run's typed keywords (str and **Any), the last three pass.
    assert [e for e in errors if e[0] == "good.py"] == [], report
    wrong = sorted(n for n, line in enumerate(BAD.splitlines(), 1) if "# wrong" in line)
    assert len(wrong) == 10
    assert {n for f, n, _ in errors if f == "bad.py"} == set(wrong), report
    messages = {n: m for f, n, m in errors if f == "bad.py"}
    assert '"add" has incompatible type "str"' in messages[wrong[0]], report
    assert 'Unexpected keyword argument "c" for "add"' in messages[wrong[1]], report
    assert '"run" of "Server" has incompatible type "Literal[\'htp\']"' in messages[wrong[-3]], report
    assert 'Unexpected keyword argument "alowed_hosts" for "run" of "Server"' in messages[wrong[-2]], report


# The Client's keywords, results and Literal types, used the right way.
GOOD_CLIENT = textwrap.dedent('''\
    import sys
    from typing import Any, Optional

    from oxmcp import CallToolResult, Client, Context, LogLevel, McpObject, Server, Tool
    from oxmcp.types import BlobResourceContents, TextContent


    def on_log(level: LogLevel, data: Any, logger: Optional[str]) -> None:
        print(level, data, logger)


    async def sampling(params: McpObject) -> dict[str, Any]:
        return {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"}


    async def chatty(ctx: Context) -> None:
        ctx.log("notice", {"step": 1}, logger="demo")
        await ctx.warning("awaited or not")


    async def main(server: Server) -> None:
        async with Client.stdio(sys.executable, ["server.py"], env={"X": "1"}, era="session", on_log=on_log,
                                sampling=sampling, roots=["file:///a", {"uri": "file:///b", "name": "b"}]) as client:
            tools: list[Tool] = await client.list_tools()
            schema: dict[str, Any] = tools[0].input_schema
            r: CallToolResult = await client.call_tool("add", {"a": 1, "b": 2}, timeout=5,
                                                       on_progress=lambda done, total, message: None)
            failed: bool = r.is_error
            texts: list[str] = [b.text for b in r.content if isinstance(b, TextContent)]
            total = r.structured_content["sum"] if r.structured_content is not None else None
            for item in (await client.read_resource("demo://blob")).contents:
                data: str = item.blob if isinstance(item, BlobResourceContents) else item.text
            prompt = await client.get_prompt("review", {"code": "x"})
            role: str = prompt.messages[0].role
            name: str = client.server_info.name
            caps = client.server_capabilities
            tools_change: Optional[bool] = caps.tools.list_changed if caps.tools is not None else None
            await client.set_log_level("warning")
            values: list[str] = (await client.complete({"type": "ref/prompt", "name": "review"}, "language", "p")).values
            era: str = client.era
        remote = await Client.http("http://127.0.0.1:8000/mcp", headers={"authorization": "Bearer t"}, era="stateless")
        await remote.close()
        async with Client.in_memory(server, on_notification=lambda method, params: None) as local:
            uris: list[str] = [resource.uri for resource in await local.list_resources()]
''')

# Each line marked "# wrong" must be an error, and no other line.
BAD_CLIENT = GOOD_CLIENT + textwrap.dedent('''\


    async def misuse(client: Client) -> None:
        r = await client.call_tool("add", {"a": 1})
        print(r.is_eror)  # wrong: misspelled attribute
        await Client.stdio("server", evn={"X": "1"})  # wrong: misspelled keyword
        await Client.stdio("server", env=["X=1"])  # wrong: keyword of the wrong type
        await Client.http("http://127.0.0.1/mcp", era="sessions")  # wrong: no such era
        await client.set_log_level("loud")  # wrong: no such level
        print(r.content[0].text)  # wrong: not every block has text
        print((await client.list_tools())[0].input_shema)  # wrong: misspelled attribute


    def log(ctx: Context) -> None:
        ctx.log("verbose", "x")  # wrong: no such level
''')


def test_mypy_strict_sees_the_clients_keywords_and_results_and_passes_the_examples(tmp_path):
    (tmp_path / "good_client.py").write_text(GOOD_CLIENT)
    (tmp_path / "bad_client.py").write_text(BAD_CLIENT)
    errors = mypy(tmp_path, "good_client.py", "bad_client.py", str(EXAMPLES))
    report = "\n".join(f"{f}:{n}: {m}" for f, n, m in errors)
    # Every file but bad_client.py is clean: the examples and the right snippet.
    assert [e for e in errors if e[0] != "bad_client.py"] == [], report
    # Without typed keywords and results, the misspelled keyword and attributes pass (the
    # options were **Any and the results dicts of Any).
    wrong = [n for n, line in enumerate(BAD_CLIENT.splitlines(), 1) if "# wrong" in line]
    assert len(wrong) == 8
    assert {n for f, n, _ in errors if f == "bad_client.py"} == set(wrong), report
    messages = {n: m for f, n, m in errors if f == "bad_client.py"}
    assert '"CallToolResult" has no attribute "is_eror"' in messages[wrong[0]], report
    assert 'Unexpected keyword argument "evn" for "stdio" of "Client"' in messages[wrong[1]], report
    assert '"Tool" has no attribute "input_shema"' in messages[wrong[-2]], report


TESTS = Path(__file__).resolve().parent

# How the test suite itself is checked: --strict, but test functions need no annotations
# (--strict's check_untyped_defs still checks their bodies) and a content block's attribute
# needs no narrowing (``result.content[0].text``: the tests know which block it is).
TESTS_FLAGS = ["--strict", "--allow-untyped-defs", "--allow-untyped-calls", "--allow-incomplete-defs",
               "--disable-error-code", "union-attr"]


def test_the_tests_type_check(tmp_path):
    """mypy over this directory (tests/servers/*.py and scenario_server.py too): a misspelled
    attribute or keyword in a test fails here, not only when (and if) its line runs."""
    r = subprocess.run([sys.executable, "-m", "mypy", *TESTS_FLAGS, "--config-file=", "--cache-dir",
                        str(tmp_path / ".mypy_cache"), str(TESTS)],
                       cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
