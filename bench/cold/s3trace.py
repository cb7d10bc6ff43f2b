"""The HTTP requests of one command on S3, and their sequential depth.

    AWS_ENDPOINT_URL=http://127.0.0.1:PORT (moto: tests/s3/moto_server.py) ... \
      python bench/cold/s3trace.py LATENCY_MS lakeindex query s3://bucket/table --where "score = 5"

Runs the command with AWS_ENDPOINT_URL at tests/s3/fault_proxy.py's proxy, which here adds
LATENCY_MS to every request; prints each request (arrival and answer in ms from the start,
method, target), their number, and the sequential depth: the times the set of requests in flight
went from empty to non-empty (requests sent together overlap by the added latency).
Measured with it (2026-12-07, 1M rows in 4 files, btree on score, 50 ms): a whole-row point
lookup is 26 requests in 4 round trips: the hint; the probe and confirm of the version, page_lookup,
page_data's size and the 4 data files' tails; the leaf; one range per column per file matched."""
import os, sys, time, subprocess, threading
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "s3"))
from fault_proxy import FaultProxy

class Timed(FaultProxy):
    def __init__(self, up, latency):
        super().__init__(up); self.latency = latency; self.times = {}
    def _decide(self, method, target):
        t = time.perf_counter()
        seq, fault, idx = super()._decide(method, target)
        self.times[idx] = [t, None]
        time.sleep(self.latency)
        return seq, fault, idx
    def _set_status(self, index, status):
        super()._set_status(index, status)
        self.times[index][1] = time.perf_counter()

lat = float(sys.argv[1]) / 1000
p = Timed(os.environ["AWS_ENDPOINT_URL"], lat).start()
env = dict(os.environ, AWS_ENDPOINT_URL=p.endpoint)
t0 = time.perf_counter()
r = subprocess.run(sys.argv[2:], env=env, capture_output=True, text=True)
wall = time.perf_counter() - t0
p.stop()
ev = []
for i, e in enumerate(p.log):
    a, d = p.times[i]
    ev.append((a, d or a, e.method, e.target))
ev.sort()
depth, busy_until = 0, -1
for a, d, m, tg in ev:
    if a > busy_until: depth += 1
    busy_until = max(busy_until, d)
    print(f"  {1e3*(a-t0):8.1f} {1e3*(d-t0):8.1f} {m} {tg[:110]}")
print(f"requests {len(ev)} depth {depth} wall {wall*1e3:.0f} ms rc {r.returncode} out {r.stdout.strip()[:200]!r} err {r.stderr.strip()[:300]!r}")
