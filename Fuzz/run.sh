#!/usr/bin/env bash
# Builds every fuzz target and runs each for a while with libFuzzer (+ AddressSanitizer).
#
# usage: Fuzz/run.sh [SECONDS [TARGET...]]
#   SECONDS   how long each target fuzzes (default 60); `make test` uses a short smoke time
#   TARGET    names from Fuzz/targets/ (default: all of them)
#
# Each target is ApptCore's sources + Fuzz/support/*.swift + Fuzz/targets/NAME.swift compiled
# as one module (so internal API is reachable) into .build/fuzz/NAME. A run first replays the
# seed corpus Fuzz/corpus/NAME/ (read-only: inputs libFuzzer finds go to .build/fuzz/corpus/NAME),
# then mutates. A crash, a broken invariant (abort), a timeout or running out of memory saves
# the input as Fuzz/crashes/NAME-crash-<sha1> (or -timeout-/-oom-) and makes this script exit 1.
# Environment: SWIFTC (default swiftc), FUZZ_FLAGS (extra libFuzzer flags).
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
export PATH="$PATH:/opt/swift/usr/bin"
# A crash must not wait for a debugger or print Swift's backtrace over libFuzzer's report.
export SWIFT_BACKTRACE=enable=no

duration=${1:-60}
shift || true
if ! [[ $duration =~ ^[0-9]+$ ]] || ((duration < 1)); then
    echo "usage: Fuzz/run.sh [SECONDS [TARGET...]]" >&2
    exit 2
fi
targets=("$@")
if ((${#targets[@]} == 0)); then
    for file in Fuzz/targets/*.swift; do
        name=$(basename "$file" .swift)
        targets+=("$name")
    done
fi

swiftc=${SWIFTC:-swiftc}
build_dir=.build/fuzz
mkdir -p "$build_dir" Fuzz/crashes

# build NAME: compile one target (unless it is newer than every source it is built from);
# its log is $build_dir/NAME.build.log.
build() {
    local name=$1 log="$build_dir/$1.build.log"
    if [[ -x $build_dir/$name && -z $(find Sources/ApptCore Fuzz/support "Fuzz/targets/$name.swift" Fuzz/run.sh \
        -newer "$build_dir/$name" -print -quit) ]]; then
        echo "(up to date)" >"$log"
        return 0
    fi
    # shellcheck disable=SC2054 # the comma belongs to -sanitize=fuzzer,address
    local args=(-sanitize=fuzzer,address -parse-as-library -O -module-name ApptCore
        Sources/ApptCore/*.swift Fuzz/support/*.swift "Fuzz/targets/$name.swift" -o "$build_dir/$name")
    # lld links the sanitizer runtimes without gold's "cannot export local symbol" warnings.
    "$swiftc" "${args[@]}" -use-ld=lld >"$log" 2>&1 || "$swiftc" "${args[@]}" >"$log" 2>&1
}

failed=()
echo "fuzz: building ${targets[*]}"
pids=()
for name in "${targets[@]}"; do
    if [[ ! -f Fuzz/targets/$name.swift ]]; then
        echo "fuzz: no target Fuzz/targets/$name.swift" >&2
        exit 2
    fi
    build "$name" &
    pids+=($!)
done
for i in "${!targets[@]}"; do
    if ! wait "${pids[$i]}"; then
        echo "fuzz ${targets[$i]}: BUILD FAILED"
        sed 's/^/  | /' "$build_dir/${targets[$i]}.build.log"
        failed+=("${targets[$i]}")
    fi
done

for name in "${targets[@]}"; do
    [[ " ${failed[*]} " == *" $name "* ]] && continue
    work="$build_dir/corpus/$name"
    log="$build_dir/$name.log"
    mkdir -p "$work" "Fuzz/corpus/$name"
    before=$(find Fuzz/crashes -maxdepth 1 -type f -name "$name-*" | wc -l)
    # shellcheck disable=SC2086 # FUZZ_FLAGS is a list of flags
    "$build_dir/$name" "$work" "Fuzz/corpus/$name" \
        -max_total_time="$duration" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
        -artifact_prefix="Fuzz/crashes/$name-" -print_final_stats=1 ${FUZZ_FLAGS:-} >"$log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    after=$(find Fuzz/crashes -maxdepth 1 -type f -name "$name-*" | wc -l)
    if [[ $rc -eq 0 && $after -eq $before ]]; then
        echo "fuzz $name: ok, ${runs:-?} runs in ${duration}s (${speed:-?} exec/s)"
    else
        failed+=("$name")
        echo "fuzz $name: FAILED (exit $rc) after ${runs:-?} runs; the report:"
        grep -E -A 30 '^(==[0-9]+==ERROR|INVARIANT BROKEN|Fatal error|ALARM|==[0-9]+== ERROR)' "$log" | head -60 |
            sed 's/^/  | /'
        grep -E '^(Test unit written to|Base64:)' "$log" | awk '!seen[$0]++' | sed 's/^/  | /'
    fi
done

if ((${#failed[@]} > 0)); then
    echo "fuzz: FAILED: ${failed[*]} (inputs in Fuzz/crashes/; see Fuzz/README.md)"
    exit 1
fi
echo "fuzz: ${#targets[@]} targets ok"
