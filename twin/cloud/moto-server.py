"""
moto's server (moto 5.x, the machine's Python) with a clock the cloud lane can move.

Usage: python3 moto-server.py <port>
Standard input takes lines `advance <seconds>`: moto's clock (moto.core.utils.utcnow, which SQS
delays and visibility timeouts, Scheduler and Step Functions read) moves on by that much, so the
lane can walk a 5-minute SQS delay in a moment, as its Lambda sandboxes' clocks move. Each line is
answered `ok <offset seconds>` on standard output. Nothing else of moto is changed.
"""
import sys
import threading
from datetime import timedelta

import moto.core.utils as utils

offset = [0.0]
_utcnow = utils.utcnow


def moved_utcnow():
    return _utcnow() + timedelta(seconds=offset[0])


utils.utcnow = moved_utcnow


def read_commands():
    for line in sys.stdin:
        parts = line.split()
        if len(parts) == 2 and parts[0] == "advance":
            offset[0] += float(parts[1])
        print(f"ok {offset[0]}", flush=True)


threading.Thread(target=read_commands, daemon=True).start()

from moto.server import main  # noqa: E402

main(["-H", "127.0.0.1", "-p", sys.argv[1]])
