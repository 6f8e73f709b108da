#!/usr/bin/env python3
"""Checks a built binary for the platform it is for, without running it: its format and
machine, the libraries it imports (nothing beyond what every machine of that platform has),
the oldest OS it loads on, and, for a library, the symbols it must export.

Reads the file with LLVM's object tools (rustup's llvm-tools component), which read ELF,
Mach-O and PE alike. Prints one line per check; exits 1 when one fails.

Usage: inspect.py [--addon] PLATFORM FILE [EXPORT...]
  --addon   FILE is a Node addon: on Windows it may also import node.exe, which exports N-API
            and libuv (elsewhere those symbols stay unbound until Node loads it)
  PLATFORM  linux-x64-gnu, linux-arm64-gnu, linux-x64-musl, linux-arm64-musl, darwin-x64,
            darwin-arm64 or win32-x64
  EXPORT    a symbol a library must export (e.g. oxmcp_version)
"""
import pathlib
import re
import subprocess
import sys

SYSROOT = subprocess.check_output(["rustc", "--print", "sysroot"], text=True).strip()
HOST = re.search(r"^host: (\S+)$", subprocess.check_output(["rustc", "-vV"], text=True), re.M).group(1)
TOOLS = pathlib.Path(SYSROOT, "lib", "rustlib", HOST, "bin")

# What each platform's binaries may import: the C library and the system's own frameworks.
ALLOWED = {
    "linux-gnu": re.compile(r"^(libc|libm|libdl|libpthread|librt|libutil|libgcc_s)\.so\.\d+$|^ld-linux-(x86-64|aarch64)\.so\.\d+$"),
    "linux-musl": re.compile(r"^libc\.so$|^ld-musl-(x86_64|aarch64)\.so\.1$"),
    "darwin": re.compile(r"^/usr/lib/(libSystem\.B|libiconv\.2|libcharset\.1|libresolv\.9|libc\+\+\.1|libobjc\.A)\.dylib$"
                         r"|^/System/Library/Frameworks/(Security|CoreFoundation|SystemConfiguration)\.framework/Versions/A/\w+$"),
    # python3.dll: a Python extension module's (the stable ABI's DLL).
    "win32": re.compile(r"^(python3|kernel32|ntdll|advapi32|bcrypt|bcryptprimitives|ws2_32|userenv|crypt32|secur32|ncrypt|"
                        r"shell32|ole32|oleaut32|user32|msvcrt|api-ms-win-[a-z0-9-]+)\.dll$", re.I),
}
MACHINES = {"x64": ("x86-64", "x86_64", "X86_64", "AMD64"), "arm64": ("aarch64", "ARM64", "arm64")}
# The oldest OS each platform's binaries must load on.
FLOORS = {"darwin-x64": (10, 12), "darwin-arm64": (11, 0), "linux-gnu": (2, 17)}

failed = 0


def check(ok: bool, what: str) -> None:
    global failed
    print(("ok   " if ok else "FAIL ") + what)
    failed += not ok


def tool(name: str, *args: str) -> str:
    return subprocess.run([str(TOOLS / name), *args], capture_output=True, text=True, check=True).stdout


def main() -> None:
    args = sys.argv[1:]
    addon = args[:1] == ["--addon"]
    platform, path, exports = args[addon], args[addon + 1], args[addon + 2:]
    family = "darwin" if platform.startswith("darwin") else "win32" if platform.startswith("win32") else \
        "linux-musl" if platform.endswith("musl") else "linux-gnu"
    arch = "arm64" if "arm64" in platform else "x64"
    head = open(path, "rb").read(4)
    name = pathlib.Path(path).name
    if family == "darwin":
        check(head in (b"\xcf\xfa\xed\xfe",), f"{name}: a 64-bit Mach-O file")
        headers = tool("llvm-objdump", "--macho", "--private-headers", path)
        # The line under "magic cputype ...": MH_MAGIC_64 ARM64 ALL ...
        cputype = headers.splitlines()[3].split()[1]
        check(cputype in MACHINES[arch], f"{name}: machine {arch} ({cputype})")
        minos = re.search(r"cmd LC_BUILD_VERSION.*?minos (\d+)\.(\d+)", headers, re.S) or \
            re.search(r"cmd LC_VERSION_MIN_MACOSX.*?version (\d+)\.(\d+)", headers, re.S)
        got = (int(minos.group(1)), int(minos.group(2))) if minos else None
        check(got is not None and got <= FLOORS[platform], f"{name}: minimum macOS {got} <= {FLOORS[platform]}")
        libs = [line.split(" (")[0].strip() for line in tool("llvm-objdump", "--macho", "--dylibs-used", path).splitlines()[1:]]
        libs = [lib for lib in libs if lib and not lib.startswith("@rpath/") and not lib.endswith(name)]
        symbols = tool("llvm-nm", "--extern-only", "--defined-only", path).split()
        exported = {s.lstrip("_") for s in symbols}
    elif family == "win32":
        check(head[:2] == b"MZ", f"{name}: a PE file")
        headers = tool("llvm-objdump", "-p", path)
        check("Magic\t\t\t020b" in headers or "PE32+" in headers or "020b" in headers, f"{name}: PE32+ (64-bit)")
        libs = re.findall(r"DLL Name: (\S+)", headers)
        exported = set(re.findall(r"^\s+\d+\s+0x[0-9a-f]+\s+(\S+)$", headers, re.M))
        got = None
    else:
        check(head == b"\x7fELF", f"{name}: an ELF file")
        headers = tool("llvm-readobj", "--file-headers", "--needed-libs", path)
        check(any(f"EM_{m.upper().replace('-', '_')}" in headers for m in MACHINES[arch]), f"{name}: machine {arch}")
        libs = re.findall(r"^\s+(\S+\.so[.\d]*)\s*$", headers.split("NeededLibraries", 1)[-1], re.M)
        dyn = tool("llvm-objdump", "-T", path)
        exported = {line.split()[-1] for line in dyn.splitlines() if "*UND*" not in line and " g " in f" {line} "}
        if family == "linux-gnu":
            versions = [tuple(map(int, v)) for v in re.findall(r"GLIBC_(\d+)\.(\d+)", dyn)]
            newest = max(versions, default=(0, 0))
            check(newest <= FLOORS["linux-gnu"], f"{name}: newest glibc symbol version {newest} <= 2.17")
    strange = [lib for lib in libs if not ALLOWED[family].match(lib) and not (addon and lib.lower() == "node.exe")]
    check(not strange, f"{name}: imports only the system's libraries ({', '.join(libs) or 'none'})")
    for symbol in exports:
        check(symbol in exported, f"{name}: exports {symbol}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
