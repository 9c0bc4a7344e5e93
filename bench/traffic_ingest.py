"""Traffic ingest (issue 25): lines per second through the HTTP ingest endpoint until detection has caught up, a
logged request's delay until Live Traffic shows it, and the disk a million requests take. Printed, never asserted.

Against a real server (reflex prod, one worker, detection on; simulation and monitor off), on SQLite and on
PostgreSQL (a database `secdash_ingest_<random>` made for the run and dropped after):

1. Throughput. A busy log from bench/traffic_corpus.py (`big`: attackers among benign visitors, its three hours
   ending now, so retention keeps it) is cut into gzip batches of SECDASH_INGEST_BATCH lines (5,000: the shipper's
   batch), compressed before the clock starts, and posted one after another on one connection, as the shipper
   posts them, to `POST /api/traffic/ingest` with the site's token. Timed from the first post until the detection
   leader's cursor (the `traffic-detection` row of live_snapshots) reaches the last stored request id: the
   sustained rate. The rate at which the posts were answered (stored, before detection caught up) and the server's
   CPU seconds (its process group, from /proc) are printed beside it.
   Peers, measured in the same run on the same file: SecDash's parse + detect in this process (one core, as
   bench/detection_agreement.py measures it: no HTTP, no database), and CrowdSec 1.4.6 (bench/crowdsec_reference.py,
   time-machine replay) on the file's first SECDASH_INGEST_CROWDSEC_LINES lines (10,000; CrowdSec reads a few
   hundred lines a second; 0 skips it).
2. Latency. Debian's nginx (when installed; else the bench appends the lines itself and says so) serves a second
   site's requests and writes its access log; `python -m secdash ship` (the real shipper, following the file)
   sends it. SECDASH_INGEST_LATENCY_LINES requests (50; 0 skips this part), one every
   SECDASH_INGEST_LATENCY_INTERVAL s (0.5), each to a path of its own; `GET /api/traffic/live` is read every 50 ms
   and a request counts as visible when that site's newest-requests feed (`sites[].feed[].path`) lists its path.
   Delay: nginx's answer to the first sight. Meanwhile a background sender posts SECDASH_INGEST_BACKGROUND_RATE
   lines a second (1,000) of the corpus to the first site.
3. Disk. After the throughput run (the traffic tables were empty before it): SQLite after a WAL checkpoint, per table
   with its indexes (the dbstat table), and the file's growth; PostgreSQL `pg_total_relation_size` (heap, TOAST
   and indexes) of traffic_requests and traffic_minutes. Raw rows per million requests = bytes / rows x 10^6; the
   per-minute rows grow with minutes x sites, not with requests: printed per row and per million requests at the
   corpus's rate.

    python -m bench ingest        (SECDASH_INGEST_LINES=200000, SECDASH_INGEST_DATABASES=sqlite,postgresql,
                                   SECDASH_INGEST_PG_URL=postgresql://postgres@127.0.0.1:5432)
"""

from __future__ import annotations

import gzip
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from bench import crowdsec_reference, traffic_corpus
from bench.common import ADMIN_EMAIL, ADMIN_PASSWORD, percentile, prepare_environment, server_overrides
from bench.fanout import cpu_seconds
from bench.ingest_storage import Database, PostgreSQL, SQLite, disk

LINES = int(os.environ.get("SECDASH_INGEST_LINES", "200000"))
BATCH = int(os.environ.get("SECDASH_INGEST_BATCH", "5000"))
DATABASES = [d.strip() for d in os.environ.get("SECDASH_INGEST_DATABASES", "sqlite,postgresql").split(",") if d.strip()]
CROWDSEC_LINES = int(os.environ.get("SECDASH_INGEST_CROWDSEC_LINES", "10000"))
LATENCY_LINES = int(os.environ.get("SECDASH_INGEST_LATENCY_LINES", "50"))
LATENCY_INTERVAL = float(os.environ.get("SECDASH_INGEST_LATENCY_INTERVAL", "0.5"))
BACKGROUND_RATE = int(os.environ.get("SECDASH_INGEST_BACKGROUND_RATE", "1000"))
CATCH_UP_SECONDS = 900  # detection gets this long to reach the last id before the run is called stuck
SEEN_TIMEOUT = 30.0  # a latency request not shown by then counts as missed


@dataclass
class Throughput:
    lines: int = 0
    stored: int = 0
    posted_seconds: float = 0.0  # first post to the last answer
    caught_up_seconds: float = 0.0  # first post to the detector's cursor at the last id
    server_cpu: float = 0.0
    detections: int = 0
    batch_ms: list[float] = field(default_factory=list)


# --- the databases -------------------------------------------------------------------------------------------------


def corpus(folder: Path) -> tuple[Path, list[bytes]]:
    """The busy log, its three hours ending now (old requests would be dropped by retention), and its lines."""
    traffic_corpus.START = time.time() - traffic_corpus.SPAN - 60
    path = folder / "big.log"
    traffic_corpus.big(path, LINES)
    return path, path.read_bytes().splitlines()


def in_process_rate(path: Path) -> float:
    """SecDash's parse + detect on one core, no HTTP, no database (bench/detection_agreement.py's method)."""
    from secdash.services.traffic.detector import Detector
    from secdash.services.traffic.logfiles import Tally, read_requests
    from secdash.services.traffic.scenarios import load_scenarios

    scenarios = load_scenarios()
    started, cpu = time.perf_counter(), time.process_time()
    tally, detector, found = Tally(), Detector(scenarios), 0
    for request in read_requests(str(path), tally):
        found += len(detector.feed(request))
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    rate = tally.lines / seconds
    print(f"   SecDash parse + detect in-process (one core): {tally.lines:,} lines in {seconds:.1f} s ({cpu:.1f} s CPU),")
    print(f"      {rate:,.0f} lines/s, {found} detections")
    return rate


def crowdsec_rate(path: Path, lines: list[bytes], folder: Path) -> float | None:
    if CROWDSEC_LINES <= 0:
        return None
    try:
        crowdsec_reference.ensure_installed()
    except (OSError, subprocess.CalledProcessError) as exc:
        print(f"   CrowdSec: not installed ({exc}); skipped")
        return None
    part = folder / "slice.log"
    part.write_bytes(b"\n".join(lines[:CROWDSEC_LINES]) + b"\n")
    tiny = folder / "tiny.log"
    tiny.write_bytes(lines[0] + b"\n")
    timings = {}
    for name, file in (("1 line", tiny), (f"{min(CROWDSEC_LINES, len(lines)):,} lines", part)):
        started = time.perf_counter()
        alerts = crowdsec_reference.replay([file])
        timings[name] = time.perf_counter() - started
        print(f"   CrowdSec 1.4.6 replay of {name} of the same file: {timings[name]:.1f} s, {len(alerts)} alerts")
    count = min(CROWDSEC_LINES, len(lines))
    whole = count / timings[f"{count:,} lines"]
    net = timings[f"{count:,} lines"] - timings["1 line"]
    print(f"      {whole:,.0f} lines/s whole replay, {count / net if net > 0 else float('nan'):,.0f} less the 1-line replay")
    return whole


# --- the server ----------------------------------------------------------------------------------------------------


class Server:
    def __init__(self, database: str, data_dir: Path) -> None:
        from tests.support.live_server import server_env, start_server

        self.db: Database = PostgreSQL() if database == "postgresql" else SQLite(data_dir)
        env = server_env(data_dir, **server_overrides(data_dir), **self.db.env())
        env |= {"SECDASH_THREAT_SIMULATION": "off", "SECDASH_DEMO_SHARES_OUTAGE": "up"}
        self.env = env
        try:
            self.live = start_server(env, data_dir)
        except Exception:
            self.db.close()
            raise
        self.base = self.live.base_url
        login = httpx.post(f"{self.base}/api/auth/login", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}, timeout=30)
        login.raise_for_status()
        self.admin = {"Authorization": f"Bearer {login.json()['token']}"}

    def site_with_token(self, name: str) -> tuple[int, str]:
        made = httpx.post(
            f"{self.base}/api/sites",
            json={"name": name, "url": f"http://127.0.0.1:9/{name.lower()}", "allowPrivate": True},  # monitor off: not probed
            headers=self.admin,
            timeout=30,
        )
        if made.status_code != 201:
            raise RuntimeError(f"site not created: {made.status_code} {made.text[:300]}")
        site_id = int(made.json()["id"])
        token = httpx.post(f"{self.base}/api/sites/{site_id}/ingest-tokens", headers=self.admin, timeout=30)
        token.raise_for_status()
        return site_id, str(token.json()["token"])

    def stop(self) -> None:
        try:
            self.live.stop()
        finally:
            self.db.close()


def batches(lines: list[bytes], size: int) -> list[tuple[int, bytes]]:
    parts = [lines[i : i + size] for i in range(0, len(lines), size)]
    return [(len(part), gzip.compress(b"\n".join(part) + b"\n")) for part in parts]


def post(client: httpx.Client, base: str, token: str, body: bytes) -> int:
    answer = client.post(
        f"{base}/api/traffic/ingest",
        content=body,
        headers={"Authorization": f"Bearer {token}", "Content-Encoding": "gzip", "Content-Type": "text/plain"},
    )
    answer.raise_for_status()
    return int(answer.json()["accepted"])


def throughput(server: Server, token: str, lines: list[bytes]) -> Throughput:
    ready = batches(lines, BATCH)
    result = Throughput(lines=len(lines))
    pgid = server.live.process.pid
    cpu_before = cpu_seconds(pgid)
    started = time.perf_counter()
    with httpx.Client(timeout=300) as client:
        for _count, body in ready:
            sent = time.perf_counter()
            result.stored += post(client, server.base, token, body)
            result.batch_ms.append((time.perf_counter() - sent) * 1000)
    result.posted_seconds = time.perf_counter() - started
    newest = server.db.newest()
    deadline = time.monotonic() + CATCH_UP_SECONDS
    while server.db.cursor() < newest:
        if time.monotonic() > deadline:
            raise RuntimeError(f"detection did not catch up in {CATCH_UP_SECONDS} s: cursor {server.db.cursor()} of {newest}")
        time.sleep(0.05)
    result.caught_up_seconds = time.perf_counter() - started
    result.server_cpu = cpu_seconds(pgid) - cpu_before
    result.detections = server.db.count("traffic_detections")
    return result


def print_throughput(kind: str, result: Throughput, peers: dict[str, float | None]) -> float:
    sustained = result.lines / result.caught_up_seconds
    print(f"   {kind}: {result.lines:,} lines in {len(result.batch_ms)} gzip batches of {BATCH:,}, {result.stored:,} stored")
    print(
        f"      posts answered after {result.posted_seconds:.1f} s ({result.lines / result.posted_seconds:,.0f} lines/s;"
        f" per batch p50 {percentile(result.batch_ms, 50):.0f} ms, max {max(result.batch_ms):.0f} ms)"
    )
    print(
        f"      detection caught up after {result.caught_up_seconds:.1f} s: {sustained:,.0f} lines/s sustained"
        f" (target >= 5,000); server CPU {result.server_cpu:.1f} s"
        f" ({result.server_cpu / result.lines * 1e6:,.0f} us per line); {result.detections} detections"
    )
    for name, rate in peers.items():
        if rate:
            print(f"      ratio to {name}: {sustained / rate:.2f}x")
    return sustained


# --- latency -------------------------------------------------------------------------------------------------------


class Nginx:
    """Debian's nginx on a free port, writing the combined access log into `folder` (None when not installed)."""

    def __init__(self, folder: Path) -> None:
        from tests.support.live_server import free_port

        self.port = free_port()
        self.log = folder / "access.log"
        (folder / "logs").mkdir(parents=True)
        config = folder / "nginx.conf"
        config.write_text(
            "daemon off;\nworker_processes 1;\n"
            f"pid {folder}/nginx.pid;\nerror_log {folder}/logs/error.log;\nevents {{}}\n"
            "http {\n"
            f"  access_log {self.log} combined;\n"
            f"  client_body_temp_path {folder}/body;\n  proxy_temp_path {folder}/proxy;\n"
            f"  fastcgi_temp_path {folder}/fastcgi;\n  uwsgi_temp_path {folder}/uwsgi;\n  scgi_temp_path {folder}/scgi;\n"
            f'  server {{ listen 127.0.0.1:{self.port}; location / {{ return 200 "ok\\n"; }} }}\n'
            "}\n"
        )
        self.process = subprocess.Popen(
            ["nginx", "-p", str(folder), "-c", str(config), "-e", f"{folder}/logs/error.log"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + 10
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{self.port}/warm-up", timeout=1)
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    self.stop()
                    raise RuntimeError("nginx did not start") from None
                time.sleep(0.1)
        self.log.write_bytes(b"")  # the warm-up's line is not one of the measured ones

    def request(self, path: str) -> None:
        httpx.get(f"http://127.0.0.1:{self.port}{path}", timeout=5)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


class Background(threading.Thread):
    """Posts `rate` corpus lines a second (one batch a second) to a site until stopped."""

    def __init__(self, base: str, token: str, lines: list[bytes], rate: int) -> None:
        super().__init__(daemon=True)
        self.base, self.token, self.rate = base, token, rate
        self.ready = batches(lines, max(rate, 1))
        self.stopping = threading.Event()
        self.sent = 0

    def run(self) -> None:
        with httpx.Client(timeout=60) as client:
            index = 0
            while not self.stopping.is_set() and self.rate > 0:
                tick = time.monotonic()
                count, body = self.ready[index % len(self.ready)]
                post(client, self.base, self.token, body)
                self.sent += count
                index += 1
                self.stopping.wait(max(0.0, 1.0 - (time.monotonic() - tick)))


def latency(server: Server, lines: list[bytes], background_token: str, folder: Path) -> list[float] | None:
    site_id, token = server.site_with_token("Latency")
    token_file = folder / "token"
    token_file.write_text(token + "\n")
    token_file.chmod(0o600)
    nginx: Nginx | None = None
    if shutil.which("nginx"):
        nginx = Nginx(folder / "nginx")
        log_path = nginx.log
        how = "nginx writes each request's line"
    else:
        log_path = folder / "access.log"
        log_path.write_bytes(b"")
        how = "nginx is not installed: the bench appends each line itself"
    shipper = subprocess.Popen(
        [sys.executable, "-m", "secdash", "ship", "--site", "latency", "--token-file", str(token_file), "--url", server.base,
         "--state-dir", str(folder / "ship-state"), str(log_path)],
        cwd=Path(__file__).resolve().parents[1], env=server.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    background = Background(server.base, background_token, lines, BACKGROUND_RATE)
    background.start()
    tag = secrets.token_hex(3)
    written: dict[str, float] = {}
    seen: dict[str, float] = {}
    stop_polling = threading.Event()

    def poll() -> None:
        with httpx.Client(timeout=30, headers=server.admin) as client:
            while not stop_polling.is_set():
                answer = client.get(f"{server.base}/api/traffic/live")
                now = time.perf_counter()
                if answer.status_code == 200:
                    for site in answer.json().get("sites", []):
                        if site.get("id") == site_id:
                            for entry in site.get("feed", []):
                                seen.setdefault(entry["path"], now)
                time.sleep(0.05)

    poller = threading.Thread(target=poll, daemon=True)
    try:
        time.sleep(2)  # the shipper has started and read the empty file
        poller.start()
        for number in range(LATENCY_LINES):
            tick = time.perf_counter()
            path = f"/latency/{tag}/{number}"
            if nginx is not None:
                nginx.request(path)
            else:
                stamp = time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime())
                with open(log_path, "a") as stream:
                    stream.write(f'198.51.100.7 - - [{stamp}] "GET {path} HTTP/1.1" 200 3 "-" "bench"\n')
            written[path] = time.perf_counter()
            time.sleep(max(0.0, LATENCY_INTERVAL - (time.perf_counter() - tick)))
        deadline = time.perf_counter() + SEEN_TIMEOUT
        while len(seen.keys() & written.keys()) < len(written) and time.perf_counter() < deadline:
            time.sleep(0.1)
    finally:
        stop_polling.set()
        background.stopping.set()
        background.join(timeout=60)
        poller.join(timeout=60)
        shipper.terminate()
        shipper.wait(timeout=20)
        if nginx is not None:
            nginx.stop()
    delays = [seen[path] - at for path, at in written.items() if path in seen]
    missed = len(written) - len(delays)
    print(f"   {server.db.kind}: {how}; `python -m secdash ship` follows the file; {len(written)} requests,")
    print(f"      one every {LATENCY_INTERVAL:g} s, while {background.sent:,} lines ({BACKGROUND_RATE:,}/s) went to another site")
    if delays:
        print(
            f"      written -> in GET /api/traffic/live: p50 {percentile(delays, 50):.2f} s, p95 {percentile(delays, 95):.2f} s,"
            f" max {max(delays):.2f} s (target p95 <= 5 s)" + (f"; {missed} never seen in {SEEN_TIMEOUT:.0f} s" if missed else "")
        )
    return delays


# --- disk ----------------------------------------------------------------------------------------------------------


# --- the run -------------------------------------------------------------------------------------------------------


def run() -> None:
    print("Traffic ingest (issue 25)")
    load = os.getloadavg()
    print(f"   {os.cpu_count()} cores, load average {load[0]:.1f} at the start")
    with tempfile.TemporaryDirectory(prefix="secdash-ingest-") as tmp:
        folder = Path(tmp)
        path, lines = corpus(folder)
        size = path.stat().st_size / 1e6
        print(f"   corpus: {len(lines):,} lines ({size:.1f} MB, bench/traffic_corpus.py big, seed {traffic_corpus.SEED})")
        print("Peers (same file, same run)")
        peers: dict[str, float | None] = {"SecDash parse + detect in-process": in_process_rate(path)}
        peers["CrowdSec replay"] = crowdsec_rate(path, lines, folder)
        results: dict[str, tuple[float, list[float] | None]] = {}
        for database in DATABASES:
            data_dir = prepare_environment(SECDASH_SIMULATION="off")
            print(f"\n{database}: one worker, detection on")
            server = Server(database, data_dir)
            try:
                if isinstance(server.db, SQLite):
                    server.db.checkpoint()
                before_total = server.db.total_bytes()
                assert server.db.count("traffic_requests") == 0, "the traffic tables are not empty before the run"
                _site_id, token = server.site_with_token("Ingest")
                measured = throughput(server, token, lines)
                sustained = print_throughput(server.db.kind, measured, peers)
                disk(server.db, before_total, measured.stored)
                delays = latency(server, lines, token, Path(tempfile.mkdtemp(dir=folder))) if LATENCY_LINES > 0 else None
                results[database] = (sustained, delays)
            finally:
                server.stop()
                shutil.rmtree(data_dir, ignore_errors=True)
        print("\nSummary")
        for database, (sustained, delays) in results.items():
            shown = f"p50 {percentile(delays, 50):.2f} s, p95 {percentile(delays, 95):.2f} s" if delays else "no latency figure"
            print(f"   {database}: {sustained:,.0f} lines/s sustained (target 5,000); shipped line to Live Traffic {shown}")


if __name__ == "__main__":
    run()
