#!/usr/bin/env python3
"""Counts each binding's native entry points: what a new feature would have to grow.

A native entry point is one function that crosses between a host language and the engine:
a C export, a P/Invoke declaration, a JNI function, a napi item, a function of a uniffi
export (callback interfaces included), a PyO3 method or function. The count is what the
by-name doors keep fixed: a feature that adds one here has grown the native surface.

    python3 scripts/native-surface.py [CHECKOUT]     # default: this checkout
"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)


def files(folder, suffix):
    base = root / folder
    return sorted(p for p in base.rglob(f"*{suffix}") if "target" not in p.parts and "node_modules" not in p.parts)


def block_after(text, start):
    """The text of the brace block that opens at or after `start`."""
    i = text.index("{", start)
    depth = 0
    for j in range(i, len(text)):
        depth += {"{": 1, "}": -1}.get(text[j], 0)
        if depth == 0:
            return text[i : j + 1]
    return text[i:]


FN = re.compile(r"^\s*(?:pub(?:\([a-z]+\))? )?(?:async )?fn \w+", re.M)


def functions_under(attr, text):
    """Functions marked by `attr`, directly or as members of a marked impl or trait."""
    n = 0
    for m in re.finditer(attr, text):
        rest = text[m.end():]
        head = re.search(r"^\s*(?:pub(?:\([a-z]+\))? )?(?:unsafe )?(impl|trait|(?:async )?fn)\b", rest, re.M)
        if head is None:
            continue
        if head.group(1) in ("impl", "trait"):
            n += len(FN.findall(block_after(text, m.end() + head.start())))
        else:
            n += 1
    return n


def count(folder, suffix, pattern=None, counter=None):
    total = 0
    for p in files(folder, suffix):
        text = p.read_text()
        total += counter(text) if counter else len(re.findall(pattern, text, re.M))
    return total


rows = [
    ("C exports", count("bindings-c/src", ".rs", r'^\s*pub (?:unsafe )?extern "C" fn ')),
    ("C# P/Invoke", count("bindings-dotnet/OxMcp", ".cs", r"\[(?:DllImport|LibraryImport)\b")),
    ("Java JNI", count("bindings-java/native/src", ".rs", r"\bfn Java_")),
    ("Node napi items", count("bindings-node/src", ".rs", r"#\[napi\b")),
    ("Kotlin uniffi functions", count("bindings-kotlin/native/src", ".rs", counter=lambda t: functions_under(r"#\[uniffi::export\b[^\]]*\]", t))),
    ("Python PyO3 functions", count("bindings-python/src", ".rs", counter=lambda t: functions_under(r"#\[(?:pymethods|pyfunction)\b[^\]]*\]", t))),
]
width = max(len(name) for name, _ in rows)
for name, n in rows:
    print(f"{name:<{width}}  {n:>4}")
print(f"{'total':<{width}}  {sum(n for _, n in rows):>4}")
