"""The native module's stub (``_oxmcp.pyi``) says what the compiled module has: mypy's
stubtest compares the installed stub with the installed extension, so a signature changed
in Rust without the stub (or the other way round) fails here."""

import subprocess
import sys


def test_stubtest_finds_the_stub_and_the_compiled_module_alike(tmp_path):
    # Run outside the source tree (cwd), so the installed package is the one compared.
    r = subprocess.run([sys.executable, "-m", "mypy.stubtest", "oxmcp._oxmcp"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Success: no issues found in 1 module" in r.stdout, r.stdout + r.stderr
