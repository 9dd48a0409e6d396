# What the benchmark scripts share: Benchmarks/sync.sh, remind.sh and link-order.sh source
# this, run.sh for bench_install_missing and release_forget_stale_link, the Makefile for the
# latter (it is not run on its own).
#
# bench_init PART: the environment every part measures in (from the repository's root, UTC,
# C.UTF-8, no backtrace prompt), SCRATCH and DATA (BENCH_SCRATCH, BENCH_DATA), RESULTS,
# START_SECONDS and LOAD_START (the load average at the start: other work on the machine
# skews every figure); `log` then prints "==> PART: ..." with the seconds since.
bench_init() {
  BENCH_PART=$1
  cd "$(dirname "${BASH_SOURCE[0]}")/.."
  export PATH="$PATH:/opt/swift/usr/bin"
  export SWIFT_BACKTRACE=interactive=no
  export TZ=UTC
  export LC_ALL=C.UTF-8
  SCRATCH=${BENCH_SCRATCH:-.build}
  DATA=${BENCH_DATA:-$SCRATCH/bench-data}
  RESULTS=Benchmarks/results
  START_SECONDS=$SECONDS
  LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
}

log() { printf '\n==> %s: %s  [%ds]\n' "$BENCH_PART" "$*" $((SECONDS - START_SECONDS)) >&2; }

# bench_install_missing PACKAGE...: installs the Debian packages not installed yet (apt-get,
# through sudo unless root).
bench_install_missing() {
  local missing=() package sudo=""
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'ok installed' || missing+=("$package")
  done
  ((${#missing[@]})) || return 0
  log "installing ${missing[*]}"
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# release_forget_stale_link SCRATCH: removes SCRATCH's release `appt` when
# Resources/link-order.txt is newer. SwiftPM does not know the link reads that list
# (Package.swift), so it would keep a binary laid out in the old order. `make release` and
# the benchmark scripts call it before building.
release_forget_stale_link() {
  local appt="$1/release/appt"
  [ ! Resources/link-order.txt -nt "$appt" ] || rm -f "$appt"
}

# bench_evict FILE...: drops FILE's pages from the page cache. A program's peak RSS counts the
# pages of its binary the kernel maps 64 KB at a time around each one touched, of those in the
# page cache: a binary just written is cached whole, one in use for a while holds only what
# runs read (and read ahead). Measuring after this is the latter, whatever ran before.
bench_evict() {
  python3 -c 'import os, sys
for path in sys.argv[1:]:
    fd = os.open(path, os.O_RDONLY)
    os.fsync(fd)  # a page not yet written back is not dropped
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)' "$@"
}

# bench_release_binary PRODUCT: builds PRODUCT in release (static Swift runtime, in SCRATCH)
# and prints its path.
bench_release_binary() {
  [ "$1" != appt ] || release_forget_stale_link "$SCRATCH"
  swift build -c release --static-swift-stdlib --scratch-path "$SCRATCH" --product "$1" >&2
  echo "$(swift build -c release --static-swift-stdlib --scratch-path "$SCRATCH" --show-bin-path)/$1"
}

# bench_workdir NAME: `work`, a fresh temporary directory removed at exit, and `pids`, the
# background processes to stop then (TERM, then waited for); INT, TERM and HUP end the script
# with 130, 143 and 129 after the same cleanup.
bench_workdir() {
  mkdir -p "$DATA" "$RESULTS"
  work=$(mktemp -d "${TMPDIR:-/tmp}/appt-bench-$1.XXXXXX")
  pids=()
  trap bench_cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  trap 'exit 129' HUP
}

bench_cleanup() {
  local status=$? pid
  trap '' INT TERM HUP
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
  exit "$status"
}
