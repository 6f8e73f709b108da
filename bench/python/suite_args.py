"""Command-line arguments shared by the Python servers of the cross-SDK suite
(bench/suite/PROTOCOL.md): ``--stdio`` or ``--http PORT``, and ``--cancel-log PATH``."""

import argparse
import time


def server_args():
    p = argparse.ArgumentParser()
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--stdio", action="store_true")
    mode.add_argument("--http", type=int, metavar="PORT")
    p.add_argument("--cancel-log")
    return p.parse_args()


def log_cancel(path):
    """Appends the CLOCK_MONOTONIC time (ns) at which a handler saw its cancellation."""
    seen = time.monotonic_ns()
    if path:
        with open(path, "a") as f:
            f.write(f"{seen}\n")
