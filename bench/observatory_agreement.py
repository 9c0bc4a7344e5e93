"""How often SecDash's header grade agrees with the MDN HTTP Observatory (figures printed, never asserted).

1. The reference's own analyzer test cases (bench/observatory_reference_cases.json, transcribed from
   mdn/mdn-http-observatory's test/*.test.js): agreement of result, modifier and pass flag per test.
2. Generated header sets (bench/observatory_cases.py) scored by the reference itself: an installed copy of the
   @mdn/mdn-http-observatory npm package run by bench/observatory_reference.mjs (`npm pack` it and unpack it, then
   `npm install --omit=dev --ignore-scripts` inside; point SECDASH_OBSERVATORY_REFERENCE at that folder).
   Without it, this part says so and measures nothing.

    python -m bench observatory            (SECDASH_OBSERVATORY_COUNT=3000 by default, SECDASH_OBSERVATORY_SEED=22)
"""

from __future__ import annotations

import json
import os
import subprocess
from collections import Counter, defaultdict
from pathlib import Path

from bench.observatory_cases import generate
from secdash.services.observatory import Exchange, Hop, grade

HERE = Path(__file__).parent
CASES = HERE / "observatory_reference_cases.json"


def _exchange(case: dict) -> Exchange:
    body = case.get("body")
    redirects = case.get("httpRedirects")
    return Exchange(
        headers=tuple((name, value) for name, value in case.get("headers", [])),
        scheme=case.get("scheme", "https"),
        body=body,
        host=case.get("host"),
        http_redirects=None if redirects is None else tuple(Hop(url, status) for url, status in redirects),
        origin_sent=case.get("originSent"),
        certificate_valid=case.get("certificateValid", True),
        preloaded=case.get("preloaded"),
    )


def _rate(hits: int, total: int) -> str:
    return f"{hits}/{total} ({100 * hits / total:.1f}%)" if total else "-"


def reference_cases() -> None:
    data = json.loads(CASES.read_text())
    print(f"1. Reference test cases: {data['source']}")
    per_test: dict[str, Counter] = defaultdict(Counter)
    misses = []
    for case in data["cases"]:
        test = grade(_exchange(case)).test(case["test"])
        expected = case["expect"]
        row = per_test[case["test"]]
        row["n"] += 1
        row["result"] += test.result == expected["result"]
        row["modifier"] += test.modifier == expected["modifier"]
        if "pass" in expected:
            row["pass_n"] += 1
            row["pass"] += test.passed == expected["pass"]
        if test.result != expected["result"]:
            misses.append(f"   {case['test']} / {case['name']}: got {test.result}, reference {expected['result']}")
    total = Counter()
    print(f"   {'test':32} {'result':>18} {'modifier':>18} {'pass':>18}")
    for name, row in sorted(per_test.items()):
        total.update(row)
        print(
            f"   {name:32} {_rate(row['result'], row['n']):>18} {_rate(row['modifier'], row['n']):>18} "
            f"{_rate(row['pass'], row['pass_n']):>18}"
        )
    print(
        f"   {'all':32} {_rate(total['result'], total['n']):>18} {_rate(total['modifier'], total['n']):>18} "
        f"{_rate(total['pass'], total['pass_n']):>18}"
    )
    for line in misses:
        print(line)


def generated_sets() -> None:
    count = int(os.environ.get("SECDASH_OBSERVATORY_COUNT", "3000"))
    seed = int(os.environ.get("SECDASH_OBSERVATORY_SEED", "22"))
    reference = os.environ.get("SECDASH_OBSERVATORY_REFERENCE")
    print(f"2. Generated header sets: {count} (seed {seed})")
    if not reference or not Path(reference, "src", "constants.js").exists():
        print("   not measured: set SECDASH_OBSERVATORY_REFERENCE to an installed @mdn/mdn-http-observatory package")
        return
    cases = generate(count, seed)
    answer = subprocess.run(
        ["node", str(HERE / "observatory_reference.mjs"), reference],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        check=True,
    )
    expected = json.loads(answer.stdout)
    per_test: dict[str, Counter] = defaultdict(Counter)
    letters = scores = errors = 0
    examples: dict[str, list[str]] = defaultdict(list)
    for case, ref in zip(cases, expected, strict=True):
        if "error" in ref:
            errors += 1
            continue
        ours = grade(
            Exchange(headers=tuple(map(tuple, case["headers"])), scheme=case["scheme"], body=case["body"], host=case["host"])
        )
        letters += ours.grade == ref["grade"]
        scores += ours.score == ref["score"]
        for name, want in ref["tests"].items():
            test = ours.test(name)
            row = per_test[name]
            row["n"] += 1
            row["result"] += test.result == want["result"]
            row["modifier"] += test.modifier == want["modifier"]
            if test.result != want["result"] and len(examples[name]) < 3:
                examples[name].append(f"{json.dumps(case)[:400]} -> ours {test.result}, reference {want['result']}")
    scored = len(cases) - errors
    print(f"   {'test':32} {'result':>18} {'modifier':>18}")
    for name, row in per_test.items():
        print(f"   {name:32} {_rate(row['result'], row['n']):>18} {_rate(row['modifier'], row['n']):>18}")
    print(f"   grade letter {_rate(letters, scored)}, exact score {_rate(scores, scored)}, reference errors {errors}")
    for name, lines in examples.items():
        for line in lines:
            print(f"   differs ({name}): {line}")


def run() -> None:
    reference_cases()
    generated_sets()


if __name__ == "__main__":
    run()
