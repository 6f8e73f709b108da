"""The floor under cancel -> handler latency on this machine: a process idle in epoll_wait
for 50 ms is woken by one byte on a pipe and notes the time. No MCP, no runtime: what a
cancel costs at the least when both processes were idle, as they are in the cancel
workload. Prints `{"cold_wake_us": median, "min": ..., "max": ...}` over N wakes.

    python3 bench/suite/cold_wake.py [N]
"""

import json
import os
import select
import statistics
import sys
import time


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    wake_r, wake_w = os.pipe()  # parent -> child: the wake-up
    back_r, back_w = os.pipe()  # child -> parent: when it woke
    pid = os.fork()
    if pid == 0:
        os.close(wake_w)
        os.close(back_r)
        poller = select.epoll()
        poller.register(wake_r, select.EPOLLIN)
        while True:
            poller.poll()
            data = os.read(wake_r, 64)
            woke = time.monotonic_ns()
            if not data:
                os._exit(0)
            os.write(back_w, str(woke).encode().ljust(32))
    os.close(wake_r)
    os.close(back_w)
    samples = []
    for _ in range(n):
        time.sleep(0.05)
        sent = time.monotonic_ns()
        os.write(wake_w, b"x")
        samples.append((int(os.read(back_r, 32)) - sent) / 1e3)
    os.close(wake_w)
    os.waitpid(pid, 0)
    print(json.dumps({"cold_wake_us": round(statistics.median(samples), 1), "min": round(min(samples), 1),
                      "max": round(max(samples), 1)}))


if __name__ == "__main__":
    main()
