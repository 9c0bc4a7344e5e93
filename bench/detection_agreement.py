"""Traffic detection against CrowdSec 1.4.6: who is found on the same access logs, and how fast (figures printed,
never asserted).

The logs come from bench/traffic_corpus.py (seeded): three benign-only logs, two logs of attackers among ordinary
visitors, and one of those again as Caddy JSON. Each is replayed through CrowdSec (bench/crowdsec_reference.py,
time-machine mode, one process per file: no bucket carries over from one file to the next) and through SecDash's
engine in-process (a fresh Detector per file, the bundled scenarios). A CrowdSec alert counts for the family of the
SecDash scenario that `follows` it (names compared without the "crowdsecurity/" prefix); an alert of a scenario no
SecDash scenario follows is listed apart. An attacker is an (address, family) pair.

Printed: per family, the attackers each engine found, CrowdSec's that SecDash missed and SecDash's extra ones (those
of scenarios beyond CrowdSec's marked "+"), each with the generator's description of the address and one log line
(the request that overflowed the bucket); every detection on the benign logs (false alarms); the agreement rate
(share of CrowdSec's pairs SecDash also found); the same alerts at the same overflow time; the Caddy copy's
agreement. Throughput: SecDash's parse + detect rate on one core over a ~200,000-line log, and CrowdSec's replay of
the same file with GOMAXPROCS=1 (a 1-line replay is timed too: start-up and the Local API's read-back).

    python -m bench detection              (SECDASH_DETECTION_BIG_LINES=200000 by default)
"""

from __future__ import annotations

import json
import os
import resource
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from bench import crowdsec_reference, traffic_corpus
from secdash.services.traffic.detector import Detector
from secdash.services.traffic.logfiles import Tally, read_requests
from secdash.services.traffic.logformats import LineError, parse_line
from secdash.services.traffic.scenarios import Scenario, load_scenarios

BENIGN = ("benign-shop.log", "benign-api.log", "benign-blog.log")
ATTACKS = ("attacks-web.log", "attacks-app.log")
CADDY = "attacks-app.caddy.json"
SHOWN = 200  # characters of a sample log line
REPLAY_SECONDS = 3 * 3600  # CrowdSec 1.4.6 replays a few hundred lines a second: 200,000 take over ten minutes

Pair = tuple[str, str]  # (address, family)


def _short(name: str) -> str:
    return name.removeprefix("crowdsecurity/")


class Replay:
    """One engine's findings on a set of files: pairs, their scenarios and overflow times."""

    def __init__(self) -> None:
        self.found: dict[Pair, set[str]] = defaultdict(set)  # pair -> scenario names
        self.when: dict[Pair, str] = {}  # pair -> first overflow time (ISO, UTC)
        self.alerts: set[tuple[str, str, str]] = set()  # (address, CrowdSec scenario, overflow time)
        self.unmapped: dict[str, int] = defaultdict(int)

    def add(self, address: str, family: str, scenario: str, when: str, followed: str = "") -> None:
        self.found[(address, family)].add(scenario)
        self.when[(address, family)] = min(self.when.get((address, family), when), when)
        if followed:
            self.alerts.add((address, followed, when))


def crowdsec(paths: list[Path], log_type: str, families: dict[str, str]) -> Replay:
    replay = Replay()
    for alert in crowdsec_reference.replay(paths, log_type):
        family = families.get(_short(alert["scenario"]))
        if family is None:
            replay.unmapped[alert["scenario"]] += 1
            continue
        replay.add(alert["address"], family, alert["scenario"], alert["lastSeen"], _short(alert["scenario"]))
    return replay


def secdash(paths: list[Path], scenarios: list[Scenario]) -> Replay:
    replay = Replay()
    for path in paths:
        detector = Detector(scenarios)
        for request in read_requests(str(path), Tally()):
            for found in detector.feed(request):
                when = found.last_seen.strftime("%Y-%m-%dT%H:%M:%SZ")
                replay.add(found.address, found.scenario.family, found.scenario.name, when, _short(found.scenario.follows))
    return replay


def index_lines(paths: list[Path]) -> dict[tuple[str, str], str]:
    """(address, ISO second) -> the last raw line of that client in that second, to show the overflowing request."""
    lines: dict[tuple[str, str], str] = {}
    for path in paths:
        for raw in path.read_text().splitlines():
            try:
                request = parse_line(raw)
            except LineError:
                continue
            if raw.startswith("{"):  # a JSON record: its request, not its first 200 characters of framing
                raw = f"{request.address} {request.method} {request.target} {request.status} {request.user_agent!r}"
            lines[(request.address, request.time.strftime("%Y-%m-%dT%H:%M:%SZ"))] = raw
    return lines


def compare(title: str, reference: Replay, ours: Replay, actors: dict[str, str], lines: dict, beyond: set[str]) -> float:
    """Print the per-family table and the disagreements; return the agreement rate."""
    print(f"\n{title}")
    families = sorted({family for _, family in reference.found} | {family for _, family in ours.found})
    print(f"   {'family':16} {'CrowdSec':>9} {'SecDash':>8} {'missed':>7} {'extra':>6}")
    for family in families:
        ref = {pair for pair in reference.found if pair[1] == family}
        got = {pair for pair in ours.found if pair[1] == family}
        print(f"   {family:16} {len(ref):>9} {len(got):>8} {len(ref - got):>7} {len(got - ref):>6}")
    both = set(reference.found) & set(ours.found)
    rate = len(both) / len(reference.found) if reference.found else 1.0
    print(f"   agreement: SecDash found {len(both)}/{len(reference.found)} of CrowdSec's (address, family) pairs ({rate:.1%})")
    same = len(reference.alerts & ours.alerts)
    print(f"   same alerts (address, scenario, overflow second): {same}/{len(reference.alerts)} of CrowdSec's")
    for name, count in sorted(reference.unmapped.items()):
        print(f"   CrowdSec scenario followed by no SecDash scenario: {name} ({count} alerts)")
    for label, pairs, engine in (
        ("missed (CrowdSec only)", sorted(set(reference.found) - set(ours.found)), reference),
        ("extra (SecDash only)", sorted(set(ours.found) - set(reference.found)), ours),
    ):
        for address, family in pairs:
            names = sorted(engine.found[(address, family)])
            mark = "+" if names and all(name in beyond for name in names) else " "
            line = lines.get((address, engine.when[(address, family)]), "")
            print(f"   {label} {mark} {family}: {address} [{actors.get(address, 'benign traffic')}] by {', '.join(names)}")
            print(f"        {line[:SHOWN]}{'…' if len(line) > SHOWN else ''}")
    return rate


def false_alarms(reference: Replay, ours: Replay, lines: dict) -> None:
    print("\nBenign-only logs (" + ", ".join(BENIGN) + "): every detection is a false alarm")
    for engine, replay in (("CrowdSec", reference), ("SecDash", ours)):
        print(f"   {engine}: {len(replay.found)} (address, family) pairs")
        for pair, names in sorted(replay.found.items()):
            line = lines.get((pair[0], replay.when[pair]), "")
            print(f"      {pair[1]}: {pair[0]} by {', '.join(sorted(names))}: {line[:SHOWN]}")
    for name, count in sorted(reference.unmapped.items()):
        print(f"   CrowdSec, followed by no SecDash scenario: {name} ({count} alerts)")


def throughput(folder: Path, scenarios: list[Scenario], families: dict[str, str]) -> None:
    lines = int(os.environ.get("SECDASH_DETECTION_BIG_LINES", "200000"))
    path = folder / "big.log"
    written = traffic_corpus.big(path, lines)
    print(f"\nThroughput on {path.name}: {written:,} lines, {path.stat().st_size / 1e6:.1f} MB")
    rates = []
    for _ in range(2):
        started, cpu = time.perf_counter(), time.process_time()
        tally, detector, found = Tally(), Detector(scenarios), []
        for request in read_requests(str(path), tally):
            found += detector.feed(request)
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        rates.append(tally.lines / seconds)
        print(f"   SecDash (in-process, one core): {seconds:.2f} s wall, {cpu:.2f} s CPU, {rates[-1]:,.0f} lines/s", end="")
        print(f", {len(found)} detections")
    tiny = folder / "tiny.log"
    tiny.write_text(path.read_text().split("\n", 1)[0] + "\n")
    previous = os.environ.get("GOMAXPROCS")
    os.environ["GOMAXPROCS"] = "1"
    try:
        timings = {}
        for name, file in (("1-line log", tiny), (path.name, path)):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            alerts = crowdsec_reference.replay([file], timeout=REPLAY_SECONDS)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            timings[name] = time.perf_counter() - started
            print(f"   CrowdSec, GOMAXPROCS=1, {name}: {timings[name]:.2f} s wall, {cpu:.2f} s CPU, {len(alerts)} alerts")
        ref = {(a["address"], families[_short(a["scenario"])]) for a in alerts if _short(a["scenario"]) in families}
        ours = {(d.address, d.scenario.family) for d in found}
        print(f"   on {path.name}, SecDash found {len(ref & ours)}/{len(ref)} of CrowdSec's pairs, {len(ours - ref)} extra")
    finally:
        if previous is None:
            os.environ.pop("GOMAXPROCS", None)
        else:
            os.environ["GOMAXPROCS"] = previous
    net = timings[path.name] - timings["1-line log"]
    whole, parsing = written / timings[path.name], written / net if net > 0 else float("nan")
    best = max(rates)
    print(f"   CrowdSec: {whole:,.0f} lines/s for the whole replay, {parsing:,.0f} lines/s less the 1-line replay's time")
    print(f"   ratio SecDash / CrowdSec: {best / whole:.2f}x (whole replay), {best / parsing:.2f}x (less start-up)")


def run() -> None:
    crowdsec_reference.ensure_installed()
    scenarios = load_scenarios()
    families = {_short(s.follows): s.family for s in scenarios if s.follows}
    beyond = {s.name for s in scenarios if not s.follows}
    print(f"SecDash: {len(scenarios)} scenarios, {len(families)} follow a CrowdSec one; beyond CrowdSec: {sorted(beyond)}")
    with tempfile.TemporaryDirectory(prefix="secdash-detection-") as tmp:
        folder = Path(tmp)
        sizes = traffic_corpus.generate(folder)
        print(f"corpus (seed {traffic_corpus.SEED}): " + ", ".join(f"{n} {c:,} lines" for n, c in sizes.items()))
        actors = json.loads((folder / "actors.json").read_text())
        benign = [folder / name for name in BENIGN]
        attacks = [folder / name for name in ATTACKS]
        caddy = [folder / CADDY]
        false_alarms(crowdsec(benign, "nginx", families), secdash(benign, scenarios), index_lines(benign))
        lines = index_lines(attacks)
        on_nginx = secdash(attacks, scenarios)
        compare("Attack logs (nginx combined): " + ", ".join(ATTACKS), crowdsec(attacks, "nginx", families), on_nginx,
                actors, lines, beyond)  # fmt: skip
        on_caddy = secdash(caddy, scenarios)
        reference = crowdsec(caddy, "caddy", families)
        compare(f"The same requests as Caddy JSON ({CADDY})", reference, on_caddy, actors, index_lines(caddy), beyond)
        for engine, on_json, on_text in (
            ("CrowdSec", reference, crowdsec([folder / "attacks-app.log"], "nginx", families)),
            ("SecDash", on_caddy, secdash([folder / "attacks-app.log"], scenarios)),
        ):
            differ = sorted(set(on_json.found) ^ set(on_text.found))
            print(f"   {engine}, Caddy copy vs attacks-app.log: {'same pairs' if not differ else f'differ on {differ}'}")
        throughput(folder, scenarios, families)


if __name__ == "__main__":
    run()
