#!/usr/bin/env bash
# Run every end-to-end scenario against one appt binary.
# usage: Tests/e2e/run.sh [PATH_TO_APPT]   (default: .build/release/appt, then .build/debug/appt)
# APPT_NOW=2026-12-01T09:51 runs it at that moment (lib.sh), E2E_TZ=Europe/Berlin in that zone.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/lib.sh"
e2e_init "${1:-}"
echo "e2e: testing $APPT at ${APPT_NOW:-the real time} in TZ=$E2E_TZ"

total_pass=0
total_fail=0
worst=0
for suite in script_mode.sh tui.sh durability.sh interop.sh hostile.sh files.sh faults.sh postgres.sh config.sh calendars.sh conflicts.sh invitations.sh streaming.sh install.sh sync.sh remind.sh; do
    out=$(mktemp "${TMPDIR:-/tmp}/appt-e2e-run.XXXXXX")
    bash "$here/$suite" "$APPT" | tee "$out"
    rc=${PIPESTATUS[0]}
    summary=$(grep -E '^e2e [a-z ]+: [0-9]+ passed, [0-9]+ failed$' "$out" | tail -1)
    rm -f "$out"
    if [[ $summary =~ :\ ([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
        total_pass=$((total_pass + BASH_REMATCH[1]))
        total_fail=$((total_fail + BASH_REMATCH[2]))
    else
        echo "e2e: $suite ended without a summary (exit $rc)"
        total_fail=$((total_fail + 1))
    fi
    if [[ $rc -ne 0 ]]; then worst=1; fi
done

echo "e2e: $total_pass passed, $total_fail failed"
if [[ $worst -ne 0 || $total_fail -ne 0 ]]; then exit 1; fi
exit 0
