#!/usr/bin/env python3
"""Runs libical (the expand harness) over appt's recurrence references and counts exact matches.

  compare.py EXPAND [--component] [--markdown]    (EXPAND: the built expand.c)

References (the same lists appt's own engine is tested against):
  - Tests/ApptCoreTests/Fixtures/rrule-cases.json: 65 cases expanded by Python's dateutil,
    compared as UTC instants in the case's window. For the two cases where dateutil departs
    from RFC 5545 (a DTSTART in a spring-forward gap) RecurrenceDateutilTests uses the RFC's
    occurrences; they are copied here (RFC_OVERRIDES) and libical is compared with both.
  - rfc-examples.json (this folder): the RFC 5545 3.8.5.3 examples of
    RecurrenceRFCExampleTests, dumped by DumpRFCExamples.swift; compared as wall-clock times
    in America/New_York, the first N where the RFC prints the start of a "forever" rule.
  - With --component, also the "forever" RFC examples in a window far from DTSTART
    (2025-03-01..2026-03-01) against the whole series, as appt's windowMatchesWholeSeries.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
FIXTURE = os.path.join(ROOT, "Tests/ApptCoreTests/Fixtures/rrule-cases.json")
RFC = os.path.join(HERE, "rfc-examples.json")

# From Tests/ApptCoreTests/RecurrenceDateutilTests.swift, rfcOverrides.
RFC_OVERRIDES = {
    "hourly Berlin spring gap": [
        "20250329T220000Z", "20250329T230000Z", "20250330T000000Z", "20250330T010000Z", "20250330T020000Z"],
    "daily New York 02:30 across the gap": [
        "20250307T073000Z", "20250308T073000Z", "20250309T073000Z", "20250310T063000Z"],
}


def run(expand, extra, args):
    cmd = [expand] + extra + args
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        return None, proc.stderr.strip() or f"exit {proc.returncode}"
    return [line.split() for line in proc.stdout.splitlines()], None


def first_difference(got, want):
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            return f"#{i + 1}: libical {g}, expected {w}"
    if len(got) < len(want):
        return f"#{len(got) + 1}: libical stops after {len(got)}, expected {want[len(got)]} ({len(want)} in all)"
    return f"#{len(want) + 1}: libical has {got[len(want)]} more ({len(got)} in all, expected {len(want)})"


def main():
    expand = sys.argv[1]
    extra = ["--component"] if "--component" in sys.argv else []
    results = []  # (suite, name, ok, note)

    fixture = json.load(open(FIXTURE))
    for case in fixture["cases"]:
        args = ["--zone", case["zone"] or "-", "--start", case["start"], "--to", case["to"]]
        for rule in case["rules"]:
            args += ["--rule", rule]
        for x in case["exdates"]:
            args += ["--exdate", x]
        for r in case["rdates"]:
            args += ["--rdate", r]
        if case["from"]:
            args += ["--from", case["from"]]
        rows, error = run(expand, extra, args)
        want = RFC_OVERRIDES.get(case["name"], case["occurrences"])
        if error:
            results.append(("dateutil", case["name"], False, "libical refused: " + error))
            continue
        got = [row[0] for row in rows]
        ok = got == want
        note = "" if ok else first_difference(got, want)
        if case["name"] in RFC_OVERRIDES:
            same_as_dateutil = got == case["occurrences"]
            note += ("; " if note else "") + ("equals dateutil's list" if same_as_dateutil else "differs from dateutil's list too")
        results.append(("dateutil", case["name"], ok, note))

    for example in json.load(open(RFC)):
        args = ["--zone", example["zone"], "--start", example["start"], "--to", example["to"]]
        for rule in example["rules"]:
            args += ["--rule", rule]
        for x in example["exdates"]:
            args += ["--exdate", x]
        if example.get("first") is not None:
            args += ["--first", str(example["first"])]
        rows, error = run(expand, extra, args)
        if error:
            results.append(("rfc", example["name"], False, "libical refused: " + error))
            continue
        got = [row[1] for row in rows]
        ok = got == example["expected"]
        results.append(("rfc", example["name"], ok, "" if ok else first_difference(got, example["expected"])))

    # appt's windowMatchesWholeSeries: for each "forever" RFC example, the occurrences in a
    # window far from DTSTART must be those of the whole series that fall in it. The whole
    # series is the iterator's, walked from DTSTART; the window is asked of
    # icalcomponent_foreach_recurrence, which jumps to the window (icalrecur_iterator_set_start).
    if extra:
        for example in json.load(open(RFC)):
            if example.get("first") is None or example["exdates"]:
                continue
            args = ["--zone", example["zone"], "--start", example["start"],
                    "--from", "20250301T000000", "--to", "20260301T000000"]
            for rule in example["rules"]:
                args += ["--rule", rule]
            whole, error1 = run(expand, [], args)
            window, error2 = run(expand, extra, args)
            if error1 or error2:
                results.append(("window", example["name"], False, "libical refused: " + (error1 or error2)))
                continue
            want, got = [r[1] for r in whole], [r[1] for r in window]
            ok = got == want
            results.append(("window", example["name"], ok, "" if ok else first_difference(got, want)))

    markdown = "--markdown" in sys.argv
    labels = {
        "dateutil": "dateutil cases (rrule-cases.json)",
        "rfc": "RFC 5545 3.8.5.3 examples",
        "window": "far window 2025-03-01..2026-03-01 vs the whole series (forever RFC examples)",
    }
    for suite in ("dateutil", "rfc", "window"):
        rows = [r for r in results if r[0] == suite]
        if not rows:
            continue
        right = sum(1 for r in rows if r[2])
        label = labels[suite]
        print(f"{label}: libical{' (component)' if extra else ''} {right} of {len(rows)} exactly right")
        for _, name, ok, note in rows:
            if not ok:
                print(f"- {'`' + name + '`' if markdown else name}: {note}")
            elif note:
                print(f"  (right) {name}: {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
