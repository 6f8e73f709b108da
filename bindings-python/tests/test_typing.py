"""The Server decorators keep the decorated function's signature for type checkers: ``mypy
--strict`` (the installed oxmcp, as a user's project sees it) passes code that uses every
decorator form, and reports wrong calls of decorated functions where they are."""

import re
import subprocess
import sys
import textwrap

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
''')


def mypy(tmp_path, *files: str) -> list[tuple[str, int, str]]:
    """mypy --strict on the files (in ``tmp_path``): its errors as (file, line, message)."""
    # No config file, a cache of its own: the same answer wherever the tests run.
    r = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--config-file=", "--cache-dir",
                        str(tmp_path / ".mypy_cache"), "--no-error-summary", "--no-pretty", *files],
                       cwd=tmp_path, capture_output=True, text=True, timeout=300)
    errors = [(m[1], int(m[2]), m[3]) for m in re.finditer(r"^(\w+\.py):(\d+): error: (.*)$", r.stdout, re.M)]
    # 0: clean; 1: errors found; anything else (mypy missing, crashed) is a failure here.
    assert r.returncode in (0, 1) and (r.returncode == 1) == bool(errors), r.stdout + r.stderr
    return errors


def test_mypy_strict_sees_the_decorated_functions_signatures(tmp_path):
    (tmp_path / "good.py").write_text(GOOD)
    (tmp_path / "bad.py").write_text(BAD)
    errors = mypy(tmp_path, "good.py", "bad.py")
    report = "\n".join(f"{f}:{n}: {m}" for f, n, m in errors)
    # Without typed decorators the good code fails too ("Untyped decorator makes function
    # ... untyped") and the wrong calls pass (the functions are Any).
    assert [e for e in errors if e[0] == "good.py"] == [], report
    wrong = {n for n, line in enumerate(BAD.splitlines(), 1) if "# wrong" in line}
    assert len(wrong) == 7
    assert {n for f, n, _ in errors if f == "bad.py"} == wrong, report
    messages = {n: m for f, n, m in errors if f == "bad.py"}
    assert '"add" has incompatible type "str"' in messages[min(wrong)], report
    assert 'Unexpected keyword argument "c" for "add"' in messages[min(wrong) + 1], report
