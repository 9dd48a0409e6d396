#!/usr/bin/env bash
# The iCalendar corpus against appt: usage: Tests/corpus/run.sh APPT [FILE...]
#
# For every line of manifest.tsv (or only the FILEs named), in a temp dir of its own, with
# TZ from the manifest and APPT_NOW fixed inside the window:
#   0. when pinned/FILE.expected exists (checked by hand): reference.py still gives it
#   1. appt import FILE                   exits 0 (its stderr is shown when something fails)
#   2. appt --json list --from --to       (title, UTC start) pairs equal reference.py's
#   3. appt export OUT1                   roundtrip.py FILE OUT1 finds no difference
#                                         (unless the manifest says skip-roundtrip)
#   4. appt import FILE again, export OUT2: OUT2 equals OUT1 apart from DTSTAMP lines, and
#      the list is unchanged (a second import changes nothing)
# One line per file: `ok FILE` or `FAIL FILE: reasons` with a short diff; then
# `corpus: N passed, M failed`; exit status 1 on any failure.
# With APPT_TEST_PG (Tests/pg/with-server.sh) every file runs on PostgreSQL too, each in a
# fresh database; APPT_REQUIRE_PG=1 without APPT_TEST_PG is a failure, not a skip.
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if (($# < 1)) || [[ ! -x $1 ]]; then
    echo "usage: $0 PATH_TO_APPT [FILE...]" >&2
    exit 2
fi
APPT=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
only=("$@")
export SWIFT_BACKTRACE=interactive=no
python3 -c 'import icalendar, dateutil' 2>/dev/null || {
    echo "corpus: Python's icalendar and dateutil are required (make test-tools)" >&2
    exit 2
}

root=$(mktemp -d "${TMPDIR:-/tmp}/appt-corpus.XXXXXX")
PG_DATABASES=()
cleanup() {
    local name
    for name in "${PG_DATABASES[@]}"; do
        psql -X -q -At "$APPT_TEST_PG" -c "DROP DATABASE IF EXISTS \"$name\" WITH (FORCE)" >/dev/null 2>&1
    done
    rm -rf "$root"
}
trap cleanup EXIT

engines=(sqlite)
passed=0
failed=0
if [[ -n ${APPT_TEST_PG:-} ]]; then
    command -v psql >/dev/null || { echo "corpus: psql is required with APPT_TEST_PG" >&2; exit 2; }
    engines+=(postgres)
elif [[ ${APPT_REQUIRE_PG:-} == 1 ]]; then
    echo "FAIL corpus: APPT_REQUIRE_PG=1 but APPT_TEST_PG is not set: no PostgreSQL to run on"
    failed=1
fi

# appt_json_pairs: appt's --json list on stdin -> the reference's lines (title, UTC start).
appt_json_pairs() {
    python3 -c '
import json, sys
from datetime import datetime, timezone
rows = []
for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    obj = json.loads(line)
    start = datetime.fromisoformat(obj["start"]).astimezone(timezone.utc)
    rows.append((start.strftime("%Y-%m-%dT%H:%M:%SZ"), obj["title"]))
for start, title in sorted(rows):
    print(json.dumps({"title": title, "start": start}, ensure_ascii=False))
'
}

# as_moment TEXT: a manifest bound as appt's WHEN (a date is its midnight: TO is exclusive).
as_moment() {
    if [[ $1 == *T* ]]; then echo "$1"; else echo "$1T00:00"; fi
}

# new_database N: a fresh PostgreSQL database; sets DB_URL (dropped by drop_database or on exit).
new_database() {
    DB_NAME="appt_corpus_$$_$1_${RANDOM}"
    psql -X -q -At -v ON_ERROR_STOP=1 "$APPT_TEST_PG" -c "CREATE DATABASE \"$DB_NAME\"" >/dev/null || return 1
    PG_DATABASES+=("$DB_NAME")
    local base=${APPT_TEST_PG%%\?*} query=""
    [[ $APPT_TEST_PG == *\?* ]] && query="?${APPT_TEST_PG#*\?}"
    DB_URL="${base%/*}/$DB_NAME$query"
}
drop_database() {
    psql -X -q -At "$APPT_TEST_PG" -c "DROP DATABASE IF EXISTS \"$DB_NAME\" WITH (FORCE)" >/dev/null 2>&1
}

# indent FILE [LINES]: the first LINES (default 12) lines of FILE, indented, and how many more.
indent() {
    local n=${2:-12} total
    total=$(wc -l <"$1")
    head -n "$n" "$1" | sed 's/^/      /'
    ((total > n)) && echo "      ... ($((total - n)) more lines)"
    return 0
}

case_number=0
# run_case ENGINE FILE TZ FROM TO EXPECTED FLAGS
run_case() {
    local engine=$1 file=$2 tz=$3 from=$4 to=$5 expected=$6 flags=$7
    local name dir db now reasons=() details
    name=$(basename "$file")
    [[ $engine == postgres ]] && name="$name (postgres)"
    case_number=$((case_number + 1))
    dir=$(mktemp -d "$root/case.XXXXXX")
    details=$dir/details
    : >"$details"
    if [[ $engine == postgres ]]; then
        new_database "$case_number" || {
            echo "FAIL $name: CREATE DATABASE failed"
            failed=$((failed + 1))
            return
        }
        db=$DB_URL
    else
        db=$dir/appt.sqlite3
    fi
    if [[ $from == *T* ]]; then now=$from; else now="${from}T12:00"; fi
    # a hung appt fails its case instead of the whole run (a debug build takes well under 1 s)
    local -a env_vars=(timeout -k 5 120 env -u APPT_CONFIG TZ="$tz" APPT_NOW="$now" HOME="$dir" XDG_DATA_HOME="$dir/data" XDG_CONFIG_HOME="$dir/config" LC_TIME=C SWIFT_BACKTRACE=interactive=no)
    local from_arg to_arg
    from_arg=$(as_moment "$from")
    to_arg=$(as_moment "$to")

    local rc=0
    (cd "$dir" && "${env_vars[@]}" "$APPT" --db "$db" import "$file" >"$dir/import.out" 2>"$dir/import.err") || rc=$?
    if ((rc != 0)); then
        echo "FAIL $name: import exited $rc"
        indent "$dir/import.err" 8
        failed=$((failed + 1))
        return
    fi

    if ! (cd "$dir" && "${env_vars[@]}" "$APPT" --db "$db" --json list --from "$from_arg" --to "$to_arg" >"$dir/list.json" 2>"$dir/list.err"); then
        reasons+=("list failed")
        indent "$dir/list.err" 4 >>"$details"
    else
        appt_json_pairs <"$dir/list.json" >"$dir/actual"
        if ! diff -u --label expected --label appt "$expected" "$dir/actual" >"$dir/occ.diff"; then
            reasons+=("occurrences differ (expected $(wc -l <"$expected"), appt $(wc -l <"$dir/actual"))")
            tail -n +3 "$dir/occ.diff" | grep -E '^[-+]' >"$dir/occ.short"
            indent "$dir/occ.short" 12 >>"$details"
        fi
    fi

    if ! (cd "$dir" && "${env_vars[@]}" "$APPT" --db "$db" export "$dir/out1.ics" >/dev/null 2>"$dir/export.err"); then
        reasons+=("export failed")
        indent "$dir/export.err" 4 >>"$details"
    else
        if [[ $flags != *skip-roundtrip* ]]; then
            if ! python3 "$here/roundtrip.py" "$file" "$dir/out1.ics" >"$dir/roundtrip.out" 2>&1; then
                reasons+=("round trip: $(wc -l <"$dir/roundtrip.out") differences")
                indent "$dir/roundtrip.out" 10 >>"$details"
            fi
        fi
        if ! (cd "$dir" && "${env_vars[@]}" "$APPT" --db "$db" import "$file" >/dev/null 2>"$dir/import2.err"); then
            reasons+=("second import failed")
            indent "$dir/import2.err" 4 >>"$details"
        elif ! (cd "$dir" && "${env_vars[@]}" "$APPT" --db "$db" export "$dir/out2.ics" >/dev/null 2>"$dir/export2.err"); then
            reasons+=("second export failed")
            indent "$dir/export2.err" 4 >>"$details"
        else
            if ! diff <(grep -av '^DTSTAMP[:;]' "$dir/out1.ics") <(grep -av '^DTSTAMP[:;]' "$dir/out2.ics") >"$dir/reimport.diff"; then
                reasons+=("a second import changed the export")
                indent "$dir/reimport.diff" 8 >>"$details"
            fi
            if [[ -f $dir/actual ]]; then
                (cd "$dir" && "${env_vars[@]}" "$APPT" --db "$db" --json list --from "$from_arg" --to "$to_arg" 2>/dev/null) |
                    appt_json_pairs >"$dir/actual2"
                cmp -s "$dir/actual" "$dir/actual2" || reasons+=("a second import changed the list")
            fi
        fi
    fi

    if ((${#reasons[@]} == 0)); then
        echo "ok $name"
        passed=$((passed + 1))
    else
        local joined
        joined=$(printf '%s; ' "${reasons[@]}")
        echo "FAIL $name: ${joined%; }"
        cat "$details"
        if [[ -s $dir/import.err ]]; then
            echo "      import said:"
            indent "$dir/import.err" 4
        fi
        failed=$((failed + 1))
    fi
}

manifest=$here/manifest.tsv
# the manifest on fd 3: nothing in the loop can read it from stdin
while IFS=$'\t' read -r file tz from to flags <&3; do
    [[ -z $file || $file == \#* ]] && continue
    if ((${#only[@]})); then
        wanted=0
        for o in "${only[@]}"; do [[ $(basename "$o") == "$file" ]] && wanted=1; done
        ((wanted)) || continue
    fi
    path=$here/files/$file
    if [[ ! -f $path ]]; then
        echo "FAIL $file: listed in manifest.tsv but missing from files/"
        failed=$((failed + 1))
        continue
    fi
    expected=$root/$file.expected
    if ! python3 "$here/reference.py" "$path" "$tz" "$from" "$to" >"$expected" 2>"$root/$file.reference.err"; then
        echo "FAIL $file: reference.py failed"
        indent "$root/$file.reference.err" 6
        failed=$((failed + 1))
        continue
    fi
    # the reference itself against occurrence lists checked by hand (pinned/, README.md)
    pinned=$here/pinned/${file%.ics}.expected
    if [[ -f $pinned ]] && ! diff -u --label pinned --label reference.py "$pinned" "$expected" >"$root/$file.pinned.diff"; then
        echo "FAIL $file: reference.py disagrees with pinned/${file%.ics}.expected (checked by hand)"
        indent "$root/$file.pinned.diff" 12
        failed=$((failed + 1))
        continue
    fi
    for engine in "${engines[@]}"; do
        run_case "$engine" "$path" "$tz" "$from" "$to" "$expected" "${flags:-}"
        [[ $engine == postgres ]] && drop_database
    done
done 3<"$manifest" </dev/null

# every file has a manifest line
for path in "$here"/files/*.ics; do
    grep -q "^$(basename "$path")"$'\t' "$manifest" || {
        echo "FAIL $(basename "$path"): in files/ but not in manifest.tsv"
        failed=$((failed + 1))
    }
done

echo "corpus: $passed passed, $failed failed"
((failed == 0))
