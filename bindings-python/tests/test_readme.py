"""The examples of ../README.md, run as they are written.

How README.md marks its blocks: an HTML comment on the line right before a fence (readers
of the rendered page don't see it), ``<!-- test [pytest] [mypy] [file=NAME.py] -->`` or
``<!-- output -->``.

- ``<!-- test -->`` before a ```` ```python ```` block: the block is a program. It is written
  to ``block.py`` in a fresh temporary directory and run there by this interpreter
  (``sys.executable block.py``, stdin closed, a timeout); it must exit with status 0.
- ``pytest``: the block is a test module, run with ``sys.executable -m pytest`` in such a
  directory; it must pass (exit status 0, at least one test passed).
- ``file=NAME.py``: the block is not run by itself; it is written as ``NAME.py`` into every
  test block's directory, for the blocks that use it (the client quickstart starts
  ``server.py`` with ``Client.stdio(sys.executable, ["server.py"])``). Another marked
  block must name it (``NAME.py``, or ``import NAME``), which is what runs it.
- ``mypy``: ``mypy --strict`` must also pass on the block (mypy is in
  requirements-test.txt).
- ``<!-- output -->`` before a ```` ```text ```` block: what the nearest program block above
  it must print on stdout, compared line by line with trailing spaces ignored. A program
  block that calls ``print`` must have one.

Every marked block runs; nothing is skipped. Unmarked ```` ```python ```` blocks (ones that
need what a test cannot have, such as an authorization server, and fragments) must still
compile.
"""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Optional

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
TIMEOUT = 120  # seconds per block or mypy run: generous, for a loaded machine
MARKER = re.compile(r"^<!--\s*(test(?:\s+(?:pytest|mypy|file=[\w.-]+))*|output)\s*-->\s*$")


@dataclasses.dataclass
class Block:
    line: int                     # where the code starts in README.md (1-based)
    lang: str
    code: str
    marker: Optional[str] = None  # the marker's words ("test mypy file=server.py", "output"), or None
    output: Optional[str] = None  # for a program block: what it must print

    @property
    def words(self) -> list[str]:
        return (self.marker or "").split()

    @property
    def file(self) -> Optional[str]:
        return next((w[len("file="):] for w in self.words if w.startswith("file=")), None)

    @property
    def is_test(self) -> bool:
        return self.words[:1] == ["test"]

    @property
    def is_program(self) -> bool:
        return self.is_test and self.file is None


def parse(text: str) -> list[Block]:
    """The fenced blocks of ``text`` with their markers, each output block's text attached
    to its program block. A misplaced marker fails here rather than being ignored."""
    lines = text.splitlines()
    blocks: list[Block] = []
    marker: Optional[str] = None
    i = 0
    while i < len(lines):
        line = lines[i]
        m = MARKER.match(line)
        if m:
            marker = " ".join(m.group(1).split())
            i += 1
            assert i < len(lines) and lines[i].startswith("```"), \
                f"README.md:{i}: a marker must be right before a fenced block"
            continue
        assert not line.lstrip().startswith("<!-- test") and not line.lstrip().startswith("<!-- output"), \
            f"README.md:{i + 1}: a marker this test does not understand: {line!r}"
        if line.startswith("```"):
            end = i + 1
            while end < len(lines) and lines[end] != "```":
                end += 1
            assert end < len(lines), f"README.md:{i + 1}: unclosed fence"
            blocks.append(Block(i + 2, line[3:].strip(), "\n".join(lines[i + 1:end]) + "\n", marker))
            marker = None
            i = end + 1
            continue
        i += 1
    last: Optional[Block] = None
    for block in blocks:
        if block.marker == "output":
            assert block.lang == "text", f"README.md:{block.line}: <!-- output --> marks a ```text block"
            assert last is not None and last.output is None, \
                f"README.md:{block.line}: an output block needs a program block of its own before it"
            last.output = block.code
        elif block.is_test:
            assert block.lang == "python", f"README.md:{block.line}: <!-- {block.marker} --> marks a ```python block"
            if block.is_program:
                last = block
    return blocks


BLOCKS = parse(README.read_text(encoding="utf-8"))
FILES = {b.file: b for b in BLOCKS if b.file}
PROGRAMS = [b for b in BLOCKS if b.is_program]
TYPED = [b for b in BLOCKS if b.is_test and "mypy" in b.words]


def ids(block: Block) -> str:
    return f"line{block.line}"


def test_the_readme_marks_its_examples():
    assert len(PROGRAMS) >= 10, "the README's examples lost their <!-- test --> markers"
    assert "server.py" in FILES and TYPED
    for name in FILES:
        stem = re.escape(name.rsplit(".", 1)[0])
        users = [b for b in PROGRAMS if name in b.code or re.search(rf"^\s*(from|import)\s+{stem}\b", b.code, re.M)]
        assert users, f"the file block {name} is used by no program block, so nothing runs it"
    for block in PROGRAMS:
        if "print(" in block.code and "pytest" not in block.words:
            assert block.output is not None, f"README.md:{block.line}: a block that prints needs its <!-- output -->"


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.lang == "python" and not b.is_test], ids=ids)
def test_an_unmarked_block_compiles(block):
    compile(block.code, f"README.md:{block.line}", "exec")


def prepare(block: Block, where: Path) -> str:
    """Writes the file blocks and ``block`` into ``where``; the name ``block`` got."""
    for name, file_block in FILES.items():
        (where / name).write_text(file_block.code, encoding="utf-8")
    name = block.file or ("test_block.py" if "pytest" in block.words else "block.py")
    (where / name).write_text(block.code, encoding="utf-8")
    return name


def run(command: list[str], block: Block, where: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    try:
        return subprocess.run(command, cwd=where, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=TIMEOUT)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"README.md:{block.line}: {command[1:]} still running after {TIMEOUT} s\n"
                    f"stdout:\n{e.stdout!r}\nstderr:\n{e.stderr!r}")


def lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.strip("\n").splitlines()]


@pytest.mark.parametrize("block", PROGRAMS, ids=ids)
def test_an_example_runs(block, tmp_path):
    name = prepare(block, tmp_path)
    if "pytest" in block.words:
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", name]
    else:
        command = [sys.executable, name]
    done = run(command, block, tmp_path)
    where = f"README.md:{block.line}"
    assert done.returncode == 0, f"{where} exited with {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    if "pytest" in block.words:
        assert re.search(r"\b[1-9]\d* passed", done.stdout), done.stdout
    if block.output is not None:
        assert lines(done.stdout) == lines(block.output), f"{where} printed something else\nstderr:\n{done.stderr}"


@pytest.mark.parametrize("block", TYPED, ids=ids)
def test_an_example_passes_mypy_strict(block, tmp_path):
    name = prepare(block, tmp_path)
    done = run([sys.executable, "-m", "mypy", "--strict", "--config-file=", "--cache-dir", str(tmp_path / ".mypy_cache"),
                "--no-error-summary", name], block, tmp_path)
    assert done.returncode == 0, f"README.md:{block.line}: mypy --strict says\n{done.stdout}{done.stderr}"
