#!/usr/bin/env bash
# appt against recurring-ical-events on that library's own test calendars.
# usage: Tests/corpus/rie/run.sh APPT [FILE...]
#
# For every calendars/*.ics (or only the FILEs named), under TZ=UTC and TZ=Europe/Berlin
# (RIE_ZONES="ZONE..." to choose others):
#   oracle: oracle.py (recurring_ical_events.of(...).between(FROM, TO)): the window FROM..TO
#           (whole years around the file's dates; oracle.py's docstring) and the occurrences
#           as (SUMMARY, UTC start); one Python process per zone for all files;
#   appt:   in a temp dir of its own (HOME, XDG_* there, no APPT_* from outside, TZ=ZONE,
#           APPT_NOW=FROM at noon): `appt --db DIR/appt.sqlite3 import FILE` (exit 0), then
#           `appt --db ... --json list --from FROMT00:00 --to TOT00:00` (without cancelled
#           occurrences: the oracle leaves out those with STATUS:CANCELLED, oracle.py says why);
#   the two multisets of (title, UTC start) must be equal, in every zone.
#   round trip: for every file appt imports (also one the oracle cannot read), `appt export
#           DIR/export.ics` from that store, then in another temp dir of its own (a fresh
#           store; same TZ, APPT_NOW and environment) `import` that file and the same `list`
#           (one appt, both commands on stdin, --json --bail): the occurrences must be those
#           of the first list. A difference (or a failing export or import) is a failure of
#           its own, `round trip: ...`, whether or not the file agrees with the oracle or is
#           in expected-differences.tsv. These stores are on /dev/shm when it is writable
#           (creating a store on disk costs more than the rest of the round trip);
#           RIE_RT_TMPFS=0 keeps them under TMPDIR.
# expected-differences.tsv lists, per file and zone (or * for every zone), where appt differs
# from the oracle on purpose. One line per file: `ok FILE`, `expected FILE: reason`, `FAIL
# FILE: reasons` (with the difference), or `fixed FILE: remove it from
# expected-differences.tsv` (a listed difference that is gone: a failure, so the list stays
# honest); then the totals. Exit 1 on any failure. RIE_JOBS (default: the number of CPUs)
# cases run at once.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if (($# < 1)) || [[ ! -x $1 || -d $1 ]]; then
    echo "usage: $0 PATH_TO_APPT [FILE...]" >&2
    exit 2
fi
APPT=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
export SWIFT_BACKTRACE=interactive=no
python3 -c 'import icalendar, recurring_ical_events' 2>/dev/null || {
    echo "rie: Python's icalendar and recurring_ical_events are required (make test-tools)" >&2
    exit 2
}

read -r -a zones <<<"${RIE_ZONES:-UTC Europe/Berlin}"
jobs=${RIE_JOBS:-$(nproc 2>/dev/null || echo 2)}
((jobs >= 1)) || jobs=1
calendars=$here/calendars
listing=$here/expected-differences.tsv

root=$(mktemp -d "${TMPDIR:-/tmp}/appt-rie.XXXXXX")
# The round trip's temp dirs: on a tmpfs when there is one (creating an SQLite store on disk
# costs more than the rest of the round trip), else in root. appt's export refuses /dev, so
# the exported files stay in root.
rt_root=""
if [[ ${RIE_RT_TMPFS:-1} == 1 && -d /dev/shm && -w /dev/shm ]]; then
    rt_root=$(mktemp -d /dev/shm/appt-rie-rt.XXXXXX 2>/dev/null) || rt_root=""
fi
[[ -n $rt_root ]] || rt_root=$root/rt
cleanup() {
    # the cases still running (an interrupt), then the temp dirs
    local -a pids=()
    mapfile -t pids < <(jobs -pr)
    if ((${#pids[@]})); then kill "${pids[@]}" 2>/dev/null || true; fi
    wait 2>/dev/null || true
    rm -rf "$root" "$rt_root"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

failed=0
problems=() # printed before the files: malformed lines of expected-differences.tsv, oracle.py failing

# zone_dir ZONE: a directory name for a zone (Europe/Berlin -> Europe_Berlin).
zone_dir() { echo "${1//\//_}"; }

# The files: every calendar, or those named (by name or path).
files=()
missing=()
if (($#)); then
    for arg in "$@"; do
        name=$(basename "$arg")
        if [[ -f $calendars/$name ]]; then
            files+=("$name")
        else
            missing+=("$name")
        fi
    done
else
    for path in "$calendars"/*.ics; do files+=("$(basename "$path")"); done
fi

# The listed differences: listed["FILE<TAB>ZONE"] = reason.
declare -A listed=()
line_number=0
while IFS= read -r line || [[ -n $line ]]; do
    line_number=$((line_number + 1))
    line=${line%$'\r'}
    [[ -z ${line//[[:space:]]/} || $line == \#* ]] && continue
    IFS=$'\t' read -r file zone reason extra <<<"$line"
    where="expected-differences.tsv:$line_number"
    if [[ -z ${file:-} || -z ${zone:-} || -z ${reason:-} || -n ${extra:-} ]]; then
        problems+=("FAIL $where: not FILE<TAB>ZONE<TAB>reason")
    elif [[ ! -f $calendars/$file ]]; then
        problems+=("FAIL $where: $file is not in calendars/")
    elif [[ $zone != "*" && $zone != UTC && ! -f /usr/share/zoneinfo/$zone ]]; then
        problems+=("FAIL $where: $zone is not a zone (nor *)")
    elif [[ -n ${listed["$file"$'\t'"$zone"]+x} ]]; then
        problems+=("FAIL $where: $file $zone is listed twice")
    else
        listed["$file"$'\t'"$zone"]=$reason
    fi
done <"$listing"

# listed_reason FILE ZONE: the reason listed for FILE in ZONE (or for every zone), else nothing.
listed_reason() {
    local key="$1"$'\t'"$2" any="$1"$'\t*'
    if [[ -n ${listed[$key]+x} ]]; then
        echo "${listed[$key]}"
    elif [[ -n ${listed[$any]+x} ]]; then
        echo "${listed[$any]}"
    fi
}

# indent FILE [LINES]: the first LINES (default 12) lines of FILE, indented, and how many more.
indent() {
    local n=${2:-12} total
    [[ -f $1 ]] || return 0
    total=$(wc -l <"$1")
    head -n "$n" "$1" | sed 's/^/      /'
    if ((total > n)); then echo "      ... ($((total - n)) more lines)"; fi
    return 0
}

# normalize DIR...: each DIR/list.json (appt's --json list) -> DIR/appt, oracle.py's lines:
# {"title","start"} (UTC), sorted; DIR/normalize.err instead when it is not that. One process.
normalize() {
    python3 -c '
import json, sys, traceback
from datetime import datetime, timezone
for case in sys.argv[1:]:
    try:
        rows = []
        with open(case + "/list.json", encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if line:
                    obj = json.loads(line)
                    start = datetime.fromisoformat(obj["start"]).astimezone(timezone.utc)
                    rows.append((start.strftime("%Y-%m-%dT%H:%M:%SZ"), obj["title"]))
        with open(case + "/appt", "w", encoding="utf-8") as f:
            for start, title in sorted(rows):
                f.write(json.dumps({"title": title, "start": start}, ensure_ascii=False) + "\n")
    except Exception:
        with open(case + "/normalize.err", "w", encoding="utf-8") as f:
            f.write(traceback.format_exc())
' "$@"
}

# Variables appt must not see from outside (another database, config or data home).
unset_args=()
while IFS= read -r var; do
    [[ $var == APPT_* || $var == XDG_* ]] && unset_args+=(-u "$var")
done < <(compgen -e)

# appt_in DIR ZONE FROM ARGS...: appt on the store DIR/appt.sqlite3, in DIR (HOME and XDG_*
# there, no APPT_*/XDG_* from outside), TZ=ZONE, APPT_NOW=FROM at noon; a hung appt fails its
# case instead of the whole run.
appt_in() {
    local dir=$1 zone=$2 from=$3
    shift 3
    (cd "$dir" && timeout -k 5 120 env "${unset_args[@]}" TZ="$zone" APPT_NOW="${from}T12:00" \
        HOME="$dir" XDG_DATA_HOME="$dir/data" XDG_CONFIG_HOME="$dir/config" LC_TIME=C \
        SWIFT_BACKTRACE=interactive=no "$APPT" --db "$dir/appt.sqlite3" "$@")
}

# run_case NAME ZONE: appt on calendars/NAME in ZONE, in $root/cases/ZONE/NAME: writes
# list.json, or status (differ: import or list failed; skip: the oracle cannot read NAME),
# reason and details. Then the round trip: appt exports that store to DIR/export.ics, imports
# it into a fresh store in RT (rt_root/ZONE/NAME: HOME, XDG_* and the store) and lists the
# same window there (one appt, both commands on stdin): RT/list.json, or DIR/rt.reason and
# rt.details.
run_case() {
    local name=$1 zone=$2 zdir oracle dir rt from to rc=0 skip=0
    zdir=$(zone_dir "$zone")
    oracle=$root/oracle/$zdir/$name
    dir=$root/cases/$zdir/$name
    rt=$rt_root/$zdir/$name
    mkdir -p "$dir" "$rt"
    if [[ -f $oracle.error ]]; then
        echo skip >"$dir/status"
        echo "recurring-ical-events cannot read it: $(head -c 200 "$oracle.error")" >"$dir/reason"
        # not compared; the round trip still runs when the window is known and appt imports it
        skip=1
        [[ -f $oracle.window ]] || return 0
    fi
    if [[ ! -f $oracle.window ]]; then
        echo differ >"$dir/status"
        echo "oracle.py gave nothing" >"$dir/reason"
        return 0
    fi
    read -r from to <"$oracle.window"
    appt_in "$dir" "$zone" "$from" import "$calendars/$name" >"$dir/import.out" 2>"$dir/import.err" || rc=$?
    if ((rc != 0)); then
        ((skip)) && return 0
        echo differ >"$dir/status"
        echo "import exited $rc: $(grep -m1 . "$dir/import.err" | cut -c1-160)" >"$dir/reason"
        indent "$dir/import.err" 6 >"$dir/details"
        return 0
    fi
    appt_in "$dir" "$zone" "$from" --json list --from "${from}T00:00" --to "${to}T00:00" \
        >"$dir/list.out" 2>"$dir/list.err" || rc=$?
    if ((rc != 0)); then
        ((skip)) && return 0
        echo differ >"$dir/status"
        echo "list exited $rc" >"$dir/reason"
        indent "$dir/list.err" 6 >"$dir/details"
        return 0
    fi
    echo "$from $to" >"$dir/window"
    mv "$dir/list.out" "$dir/list.json"

    # the round trip
    appt_in "$dir" "$zone" "$from" export "$dir/export.ics" >"$dir/export.out" 2>"$dir/export.err" || rc=$?
    if ((rc != 0)); then
        echo "round trip: export exited $rc: $(grep -m1 . "$dir/export.err" | cut -c1-160)" >"$dir/rt.reason"
        indent "$dir/export.err" 6 >"$dir/rt.details"
        return 0
    fi
    # the file single-quoted as in a shell (an appt script splits words so)
    local q="'" script
    script="import $q${dir//$q/$q\\$q$q}/export.ics$q"$'\n'"list --from ${from}T00:00 --to ${to}T00:00"
    appt_in "$rt" "$zone" "$from" --json --bail <<<"$script" >"$rt/script.out" 2>"$rt/script.err" || rc=$?
    if ((rc != 0)); then
        # stderr says which: line 1 (import) or line 2 (list)
        echo "round trip: importing the export and listing it exited $rc: $(grep -m1 . "$rt/script.err" | cut -c1-160)" >"$dir/rt.reason"
        indent "$rt/script.err" 6 >"$dir/rt.details"
        return 0
    fi
    # the first line is import's result, the rest the list
    local first=""
    IFS= read -r first <"$rt/script.out" || true
    printf '%s\n' "$first" >"$rt/import.json"
    if [[ $first != '{"imported":'* ]]; then
        echo "round trip: importing the export gave no JSON result" >"$dir/rt.reason"
        indent "$rt/script.out" 6 >"$dir/rt.details"
        return 0
    fi
    tail -n +2 "$rt/script.out" >"$rt/list.json"
}

# compare_case NAME ZONE: the case's status (agree or differ), reason and details, once appt
# ran and normalize wrote its list.
compare_case() {
    local zdir dir oracle from to
    zdir=$(zone_dir "$2")
    oracle=$root/oracle/$zdir/$1
    dir=$root/cases/$zdir/$1
    [[ -f $dir/status ]] && return 0
    if [[ ! -f $dir/list.json ]]; then
        echo differ >"$dir/status"
        echo "appt did not finish" >"$dir/reason"
        return 0
    fi
    if [[ ! -f $dir/appt ]]; then
        echo differ >"$dir/status"
        echo "appt's --json list is not JSON lines with title and start" >"$dir/reason"
        [[ -f $dir/normalize.err ]] && tail -n 1 "$dir/normalize.err" | sed 's/^/      /' >"$dir/details"
        return 0
    fi
    if cmp -s "$oracle.oracle" "$dir/appt"; then
        echo agree >"$dir/status"
        return 0
    fi
    read -r from to <"$dir/window"
    echo differ >"$dir/status"
    echo "[$from,$to) oracle $(wc -l <"$oracle.oracle"), appt $(wc -l <"$dir/appt")" >"$dir/reason"
    # the multiset difference: both sides are sorted the same way
    diff --unchanged-line-format= --old-line-format='- oracle %L' --new-line-format='+ appt   %L' \
        "$oracle.oracle" "$dir/appt" >"$dir/diff" || true
    indent "$dir/diff" 10 >"$dir/details"
    if [[ -s $dir/import.err ]]; then
        echo "    import said:" >>"$dir/details"
        indent "$dir/import.err" 4 >>"$dir/details"
    fi
}

# compare_round_trip NAME ZONE: once normalize ran, the occurrences after the round trip
# against those of the first import: DIR/rt.reason and rt.details when they differ. Nothing
# when appt did not import and list the file (compare_case says so, or the oracle is skipped).
compare_round_trip() {
    local dir rt from to
    dir=$root/cases/$(zone_dir "$2")/$1
    rt=$rt_root/$(zone_dir "$2")/$1
    [[ -f $dir/rt.reason || ! -f $dir/appt ]] && return 0
    if [[ ! -f $rt/list.json ]]; then
        echo "round trip: did not finish" >"$dir/rt.reason"
        return 0
    fi
    if [[ ! -f $rt/appt ]]; then
        echo "round trip: the list after it is not JSON lines with title and start" >"$dir/rt.reason"
        [[ -f $rt/normalize.err ]] && tail -n 1 "$rt/normalize.err" | sed 's/^/      /' >"$dir/rt.details"
        return 0
    fi
    cmp -s "$dir/appt" "$rt/appt" && return 0
    read -r from to <"$dir/window"
    echo "round trip: [$from,$to) imported $(wc -l <"$dir/appt"), after export and import $(wc -l <"$rt/appt")" >"$dir/rt.reason"
    diff --unchanged-line-format= --old-line-format='- imported %L' --new-line-format='+ again    %L' \
        "$dir/appt" "$rt/appt" >"$dir/rt.diff" || true
    indent "$dir/rt.diff" 10 >"$dir/rt.details"
    # import's notices on the export, one a line
    python3 -c 'import json, sys; [print(n) for n in json.load(sys.stdin).get("notices") or []]' \
        <"$rt/import.json" >"$rt/notices" 2>/dev/null || true
    if [[ -s $rt/notices ]]; then
        echo "    importing the export said:" >>"$dir/rt.details"
        indent "$rt/notices" 4 >>"$dir/rt.details"
    fi
}

# The oracle: one process per zone, for all files, at once.
if ((${#files[@]})); then
    oracle_pids=()
    for zone in "${zones[@]}"; do
        zdir=$(zone_dir "$zone")
        mkdir -p "$root/oracle/$zdir"
        (cd "$calendars" && TZ=$zone python3 "$here/oracle.py" --batch "$zone" "$root/oracle/$zdir" "${files[@]}" \
            2>"$root/oracle/$zdir.err") &
        oracle_pids+=($!)
    done
    for i in "${!oracle_pids[@]}"; do
        if ! wait "${oracle_pids[$i]}"; then
            problems+=("FAIL oracle.py --batch ${zones[$i]} failed:"$'\n'"$(indent "$root/oracle/$(zone_dir "${zones[$i]}").err" 8)")
        fi
    done
fi

# appt: RIE_JOBS cases at once.
running=0
for name in "${files[@]}"; do
    for zone in "${zones[@]}"; do
        if ((running >= jobs)); then
            wait -n || true
            running=$((running - 1))
        fi
        run_case "$name" "$zone" &
        running=$((running + 1))
    done
done
wait || true

# appt's lists in the oracle's form (one Python process), then each case against the oracle
# and against its round trip.
listed_cases=()
for name in "${files[@]}"; do
    for zone in "${zones[@]}"; do
        dir=$root/cases/$(zone_dir "$zone")/$name
        [[ -f $dir/list.json ]] && listed_cases+=("$dir")
        rt=$rt_root/$(zone_dir "$zone")/$name
        [[ -f $rt/list.json ]] && listed_cases+=("$rt")
    done
done
if ((${#listed_cases[@]})); then normalize "${listed_cases[@]}" || true; fi
for name in "${files[@]}"; do
    for zone in "${zones[@]}"; do
        compare_case "$name" "$zone"
        compare_round_trip "$name" "$zone"
    done
done

for problem in "${problems[@]}"; do echo "$problem"; done
for name in "${missing[@]}"; do
    echo "FAIL $name: not in calendars/"
    failed=$((failed + 1))
done

# said_once NAME FILE: when reasons holds one "TZ=ZONE: reason" per zone, the same reason in
# each, and each case's FILE (details or rt.details) is the same too: reasons becomes that
# reason once, with the zones, and details that FILE once.
said_once() {
    local i first_reason first_details
    ((${#zones[@]} > 1 && ${#reasons[@]} == ${#zones[@]})) || return 0
    first_reason=${reasons[0]#"TZ=${zones[0]}: "}
    first_details=$(cat "$root/cases/$(zone_dir "${zones[0]}")/$1/$2" 2>/dev/null || true)
    for i in "${!zones[@]}"; do
        [[ ${reasons[$i]#"TZ=${zones[$i]}: "} == "$first_reason" ]] || return 0
        [[ $(cat "$root/cases/$(zone_dir "${zones[$i]}")/$1/$2" 2>/dev/null || true) == "$first_details" ]] || return 0
    done
    reasons=("$first_reason (TZ=${zones[*]})")
    details=${first_details:+$first_details$'\n'}
}

# One line per file, every zone seen together.
agreed=0
expected=0
skipped=0
oracle_agreed=0    # files equal to the oracle in every zone, whatever their round trip
round_trips=0      # files appt imported and listed in some zone
round_trips_same=0 # of those, the ones whose round trip lists the same in every zone
for name in "${files[@]}"; do
    reasons=()
    fixed_zones=()
    expected_zones=()
    expected_reasons=()
    details=""
    was_skipped=0
    agreeing=0
    for zone in "${zones[@]}"; do
        dir=$root/cases/$(zone_dir "$zone")/$name
        status=$(cat "$dir/status" 2>/dev/null || echo differ)
        reason=$(cat "$dir/reason" 2>/dev/null || echo "the case did not finish")
        why=$(listed_reason "$name" "$zone")
        [[ $status == skip ]] && was_skipped=1
        if [[ $status == agree ]]; then
            agreeing=$((agreeing + 1))
            [[ -n $why ]] && fixed_zones+=("$zone")
        elif [[ -n $why ]]; then
            expected_zones+=("$zone")
            [[ " ${expected_reasons[*]} " == *" $why "* ]] || expected_reasons+=("$why")
        else
            reasons+=("TZ=$zone: $reason")
            if [[ -s $dir/details ]]; then
                details+="    TZ=$zone:"$'\n'"$(cat "$dir/details")"$'\n'
            fi
        fi
    done
    ((was_skipped)) && skipped=$((skipped + 1))
    ((agreeing == ${#zones[@]})) && oracle_agreed=$((oracle_agreed + 1))
    said_once "$name" details
    if ((${#fixed_zones[@]})); then
        if ((agreeing == ${#zones[@]})); then
            reasons+=("fixed: remove it from expected-differences.tsv")
        else
            reasons+=("fixed (TZ=${fixed_zones[*]}): remove that zone from expected-differences.tsv (list the zones it still differs in)")
        fi
    fi
    # the round trip, a failure of its own (also where the oracle's difference is expected)
    oracle_reasons=("${reasons[@]}")
    oracle_details=$details
    reasons=()
    details=""
    tripped=0
    for zone in "${zones[@]}"; do
        dir=$root/cases/$(zone_dir "$zone")/$name
        [[ -f $dir/list.json ]] && tripped=1
        if [[ -f $dir/rt.reason ]]; then
            reasons+=("TZ=$zone: $(cat "$dir/rt.reason")")
            if [[ -s $dir/rt.details ]]; then
                details+="    TZ=$zone:"$'\n'"$(cat "$dir/rt.details")"$'\n'
            fi
        fi
    done
    if ((tripped)); then
        round_trips=$((round_trips + 1))
        ((${#reasons[@]})) || round_trips_same=$((round_trips_same + 1))
    fi
    said_once "$name" rt.details
    reasons=("${oracle_reasons[@]}" "${reasons[@]}")
    details=$oracle_details$details
    if ((${#reasons[@]})); then
        failed=$((failed + 1))
        if ((${#reasons[@]} == 1)) && [[ ${reasons[0]} == fixed* ]]; then
            echo "fixed $name${reasons[0]#fixed}"
        else
            joined=$(printf '%s; ' "${reasons[@]}")
            echo "FAIL $name: ${joined%; }"
            printf '%s' "$details"
        fi
    elif ((${#expected_zones[@]})); then
        expected=$((expected + 1))
        zones_text=""
        ((${#expected_zones[@]} < ${#zones[@]})) && zones_text=" (TZ=${expected_zones[*]})"
        joined=$(printf '%s; ' "${expected_reasons[@]}")
        echo "expected $name$zones_text: ${joined%; }"
    else
        agreed=$((agreed + 1))
        echo "ok $name"
    fi
done

total=$((${#files[@]} + ${#missing[@]}))
compared=$((${#files[@]} - skipped))
summary="rie: $agreed agree, $expected expected differences, $failed failed (of $total)"
if ((${#problems[@]})); then summary+="; ${#problems[@]} problems with expected-differences.tsv or oracle.py"; fi
echo "$summary"
if ((compared > 0)); then
    percent=$(awk -v a="$oracle_agreed" -v c="$compared" 'BEGIN { printf "%.1f", 100 * a / c }')
    echo "rie: $oracle_agreed of $compared compared files agree in every zone (${zones[*]}): $percent%; $skipped not compared (the oracle cannot read them)"
fi
echo "rie: round trip (export, import into a fresh store, list): $round_trips_same of $round_trips files appt imports list the same occurrences in every zone"
((failed == 0 && ${#problems[@]} == 0))
