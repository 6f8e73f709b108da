#!/usr/bin/env python3
"""Text stubs (.tbd) of the macOS system frameworks the engine links, for linking on Linux.

zig links macOS binaries but ships no SDK frameworks. A framework's .tbd stub is what the
SDK itself provides: the install name and the symbols the framework exports, enough for
the linker to record the load command and bind each symbol to it. The symbols come from
the Rust crates that declare them: the functions and statics of the `extern "C"` blocks of
every crate of the macOS dependency graph that links a framework (`link(name = "Security",
kind = "framework")`), listed in the stub of the framework their file (else their crate)
links, and every identifier with the framework's own prefix in those crates (symbols a
macro declares: `kSecKeyAlgorithm...`). A framework with no prefix below stops the script,
so a new one is looked at, not guessed.

Usage: macos-stubs.py OUT_DIR TRIPLE
Writes OUT_DIR/<Name>.framework/<Name>.tbd for each framework; pass -F OUT_DIR to the linker.
"""
import json
import pathlib
import re
import subprocess
import sys

LINK = re.compile(r'link\(\s*name\s*=\s*"([A-Za-z0-9_]+)"\s*,\s*kind\s*=\s*"framework"')
# The prefix of each framework's C names.
PREFIXES = {
    "Security": re.compile(r"\b(k?(?:Sec|SSL|CMS|CSSM|Authorization)[A-Z]\w*)"),
    "CoreFoundation": re.compile(r"\b((?:__)?k?CF[A-Z]\w*)"),
    "ServiceManagement": re.compile(r"\b(k?SM[A-Z]\w*)"),
    "SystemConfiguration": re.compile(r"\b(k?SC[A-Z]\w*)"),
}
EXTERN = re.compile(r'extern\s+"C"\s*\{')
DECL = re.compile(r'^\s*(?:pub(?:\([a-z]+\))?\s+)?(?:fn|static(?:\s+mut)?)\s+([A-Za-z_][A-Za-z0-9_]*)', re.M)


def extern_names(text: str) -> set[str]:
    """The functions and statics declared in the file's extern "C" blocks."""
    names = set()
    for start in EXTERN.finditer(text):
        depth, i = 1, start.end()
        while depth and i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        names.update(DECL.findall(text[start.end():i]))
    return names


def main() -> None:
    out, triple = pathlib.Path(sys.argv[1]), sys.argv[2]
    meta = json.loads(subprocess.check_output(
        ["cargo", "metadata", "--format-version", "1", "--filter-platform", triple], text=True))
    in_graph = {node["id"] for node in meta["resolve"]["nodes"]}
    symbols: dict[str, set[str]] = {}
    for package in meta["packages"]:
        if package["id"] not in in_graph or package["source"] is None:
            continue  # the workspace's own crates declare no framework symbols
        src = pathlib.Path(package["manifest_path"]).parent / "src"
        files = {p: p.read_text(errors="replace") for p in src.rglob("*.rs")}
        lib = files.get(src / "lib.rs", "")
        crate_frameworks = LINK.findall(lib)
        for path, text in files.items():
            names = extern_names(text)
            for name in LINK.findall(text) or crate_frameworks:
                if name not in PREFIXES:
                    sys.exit(f"macos-stubs: {package['name']} links the {name} framework, which has no prefix here")
                names |= set(PREFIXES[name].findall(text))
                symbols.setdefault(name, set()).update("_" + n for n in names)
    arch = "arm64" if triple.startswith("aarch64") else "x86_64"
    for name, syms in sorted(symbols.items()):
        folder = out / f"{name}.framework"
        folder.mkdir(parents=True, exist_ok=True)
        listed = ", ".join(sorted(syms))
        (folder / f"{name}.tbd").write_text(
            "--- !tapi-tbd\n"
            "tbd-version:     4\n"
            f"targets:         [ {arch}-macos ]\n"
            f"install-name:    '/System/Library/Frameworks/{name}.framework/Versions/A/{name}'\n"
            "exports:\n"
            f"  - targets:         [ {arch}-macos ]\n"
            f"    symbols:         [ {listed} ]\n"
            "...\n")
        print(f"{name}: {len(syms)} symbols", file=sys.stderr)


if __name__ == "__main__":
    main()
