"""CrowdSec 1.4.6 (Debian bookworm's `crowdsec` package) as the reference detector: recorded access logs are replayed
through it offline and the alerts it raises are read back.

How a replay runs, in a temporary directory that is removed afterwards (runs share no state):
  1. A private config: config.yaml (sqlite db, Local API on a free 127.0.0.1 port, no Central API, no prometheus),
     the base-http items enabled from the package's offline hub (/usr/share/crowdsec/hub) as symlinks, the way the
     package's postinst enables them (`cscli collections install` always downloads from the online hub, even an
     item already present, so it cannot run offline), the data files from /usr/share/crowdsec/data and a machine
     login (`cscli machines add --auto`).
  2. Each file in time-machine mode, in order, with its own timestamps:
     `crowdsec -c CONFIG -dsn file:///abs/path -type nginx|caddy -no-capi`. It runs the Local API in-process,
     pushes each overflow as an alert into the sqlite db and exits when the file is read. Buckets do not carry over
     from one file to the next; a bucket still filling at the end of a file raises nothing.
  3. The Local API alone (`crowdsec -no-cs`) while `cscli alerts list -o json -l 0` reads the alerts; then stopped.

Each alert becomes {"address", "scenario", "firstSeen", "lastSeen", "events"} (times ISO 8601 UTC, from the log).
CrowdSec's whitelist parser drops 127.0.0.1, ::1, 10/8, 172.16/12 and 192.168/16: test logs use other addresses
(192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24 are not whitelisted). After a scenario overflows for an address it
is blackholed (1 to 5 min of log time, per scenario), so one burst gives one alert.

    python -m bench.crowdsec_reference [--type nginx|caddy] access.log ...
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

HUB = Path("/usr/share/crowdsec/hub")
DATA = Path("/usr/share/crowdsec/data")
PATTERNS = Path("/etc/crowdsec/patterns")
CAPI_CREDENTIALS = Path("/etc/crowdsec/online_api_credentials.yaml")
# With their dependencies; the parsers every log needs (non-syslog input, log timestamps, the whitelist).
COLLECTIONS = ("crowdsecurity/nginx", "crowdsecurity/caddy", "crowdsecurity/base-http-scenarios")
PARSERS = ("crowdsecurity/syslog-logs", "crowdsecurity/dateparse-enrich", "crowdsecurity/whitelists")
# A data file the hub's scenario names differently from the file the package ships.
DATA_ALIASES = {"http_path_traversal.txt": "path_traversal.txt"}
REPLAY_SECONDS = 600
API_SECONDS = 30
HTTP_DATE = "%a, %d %b %Y %H:%M:%S GMT"


def available() -> bool:
    return bool(shutil.which("crowdsec") and shutil.which("cscli") and (HUB / ".index.json").is_file())


def ensure_installed() -> None:
    """Install Debian's crowdsec if missing. Its postinst registers to the Central API, which fails offline, unless
    the credentials file holds a comment (README.Debian); no daemon is started without systemd."""
    if available():
        return
    CAPI_CREDENTIALS.parent.mkdir(parents=True, exist_ok=True)
    if not CAPI_CREDENTIALS.exists() or not CAPI_CREDENTIALS.read_text().strip():
        CAPI_CREDENTIALS.write_text("# no thanks: no Central API registration (see README.Debian)\n")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", "crowdsec"], check=True, env=env)


def _enable(config_dir: Path, index: dict, kind: str, name: str, done: set[tuple[str, str]]) -> None:
    if (kind, name) in done:
        return
    done.add((kind, name))
    item = index[kind][name]
    parts = item["path"].split("/")  # kind/[stage/]author/name.yaml: enabled as kind/[stage/]name.yaml
    link = config_dir.joinpath(*parts[:-2], parts[-1])
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(HUB / item["path"])
    for sub in ("parsers", "scenarios", "postoverflows", "collections"):
        for sub_name in item.get(sub) or ():
            _enable(config_dir, index, sub, sub_name, done)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _configure(root: Path) -> Path:
    config_dir, data_dir = root / "config", root / "data"
    config_dir.mkdir()
    data_dir.mkdir()
    (config_dir / "patterns").symlink_to(PATTERNS)
    index = json.loads((HUB / ".index.json").read_text())
    done: set[tuple[str, str]] = set()
    for name in COLLECTIONS:
        _enable(config_dir, index, "collections", name, done)
    for name in PARSERS:
        _enable(config_dir, index, "parsers", name, done)
    shipped = {source.name: source for source in DATA.iterdir()}
    for name, source in (shipped | {alias: DATA / file for alias, file in DATA_ALIASES.items()}).items():
        (data_dir / name).symlink_to(source)
    (config_dir / "simulation.yaml").write_text("simulation: off\n")
    (config_dir / "acquis.yaml").write_text("")
    (config_dir / "profiles.yaml").write_text(  # the package's default profile: a 4h ban per alert on an address
        "name: default_ip_remediation\nfilters:\n  - Alert.Remediation == true && Alert.GetScope() == 'Ip'\n"
        "decisions:\n  - type: ban\n    duration: 4h\non_success: break\n"
    )
    config = config_dir / "config.yaml"
    config.write_text(
        f"""common: {{daemonize: false, log_media: stdout, log_level: info, working_dir: {root}}}
config_paths:
  config_dir: {config_dir}/
  data_dir: {data_dir}/
  simulation_path: {config_dir}/simulation.yaml
  hub_dir: {HUB}/
  index_path: {HUB}/.index.json
crowdsec_service: {{acquisition_path: {config_dir}/acquis.yaml, parser_routines: 1}}
cscli: {{output: json, hub_branch: master}}
db_config: {{type: sqlite, db_path: {data_dir}/crowdsec.db, use_wal: false, log_level: warning}}
api:
  client: {{credentials_path: {config_dir}/local_api_credentials.yaml}}
  server: {{listen_uri: "127.0.0.1:{_free_port()}", profiles_path: {config_dir}/profiles.yaml, log_level: warning}}
prometheus: {{enabled: false}}
"""
    )
    _run(["cscli", "-c", str(config), "machines", "add", "--auto", "--force"], root, API_SECONDS)
    return config


def _run(command: list[str], root: Path, timeout: float, capture: bool = False) -> str:
    with open(root / "crowdsec.log", "a+") as log:
        out = subprocess.PIPE if capture else log
        done = subprocess.run(command, stdout=out, stderr=log, text=True, timeout=timeout)
        if done.returncode:
            log.seek(0)
            raise RuntimeError(f"{' '.join(command[:4])} exited {done.returncode}: {log.read()[-2000:]}")
    return done.stdout


def _alerts(config: Path, root: Path) -> list[dict]:
    with open(root / "api.log", "w") as log:
        api = subprocess.Popen(["crowdsec", "-c", str(config), "-no-cs"], stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + API_SECONDS
        while True:
            try:
                listed = _run(["cscli", "-c", str(config), "alerts", "list", "-o", "json", "-l", "0"], root, 30, True)
                return json.loads(listed) or []
            except RuntimeError:
                if api.poll() is not None or time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
    finally:
        api.terminate()
        try:
            api.wait(10)
        except subprocess.TimeoutExpired:
            api.kill()
            api.wait()


def _iso(stamp: str) -> str:  # Go's time.String, "2024-03-05 12:01:00.5 +0200 CEST" -> "2024-03-05T10:01:00Z"
    day, clock, offset = stamp.split()[:3]
    parsed = datetime.strptime(f"{day} {clock.split('.')[0]} {offset}", "%Y-%m-%d %H:%M:%S %z")
    return parsed.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _dated(path: Path, copy: Path) -> Path:
    """1.4.6's caddy parser takes the time from `common_log` (gone from recent Caddy) or the logged `Date` response
    header (absent when Caddy itself answers), never `ts`, and time-machine mode drops an event without a time: a
    line lacking both gets a Date header made from its `ts`."""
    with open(path) as source, open(copy, "w") as out:
        for line in source:
            try:
                record = json.loads(line)
                headers = record.setdefault("resp_headers", {})
                if "common_log" not in record and "Date" not in headers and "ts" in record:
                    headers["Date"] = [datetime.fromtimestamp(float(record["ts"]), UTC).strftime(HTTP_DATE)]
                    line = json.dumps(record) + "\n"
            except (ValueError, TypeError, AttributeError):
                pass  # not a JSON record: left as it is
            out.write(line)
    return copy


def replay(paths: list[Path], log_type: str = "nginx", timeout: float = REPLAY_SECONDS) -> list[dict]:
    """Replay `paths` (each in turn) through CrowdSec; one dict per alert, sorted by time, address and scenario."""
    with tempfile.TemporaryDirectory(prefix="crowdsec-replay-") as tmp:
        root = Path(tmp)
        config = _configure(root)
        for number, path in enumerate(paths):
            path = _dated(path, root / f"caddy-{number}.log") if log_type == "caddy" else Path(path).resolve()
            dsn = f"file://{path}"
            _run(["crowdsec", "-c", str(config), "-dsn", dsn, "-type", log_type, "-no-capi"], root, timeout)
        raw = _alerts(config, root)
    alerts = [
        {
            "address": alert["source"].get("ip") or alert["source"].get("value"),
            "scenario": alert["scenario"],
            "firstSeen": _iso(alert["start_at"]),
            "lastSeen": _iso(alert["stop_at"]),
            "events": alert["events_count"],
        }
        for alert in raw
    ]
    return sorted(alerts, key=lambda a: (a["firstSeen"], a["address"], a["scenario"], a["lastSeen"]))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.crowdsec_reference", description=__doc__.split("\n")[0])
    parser.add_argument("--type", default="nginx", help="the log's type label: nginx (combined) or caddy (JSON)")
    parser.add_argument("paths", nargs="+", type=Path)
    args = parser.parse_args(argv)
    if not available():
        print("crowdsec is not installed (bench.crowdsec_reference.ensure_installed() installs it)", file=sys.stderr)
        return 2
    for alert in replay(args.paths, args.type):
        print(json.dumps(alert))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
