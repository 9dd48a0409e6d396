# appt: `make run` to use it, `make test` to check it. Both install what is missing first.
# `make test` runs `make check` under a throwaway PostgreSQL server (Tests/pg/with-server.sh)
# and throwaway CalDAV servers (Tests/caldav/with-servers.sh); `make check` alone runs the same
# checks without them (tests that need PostgreSQL or a CalDAV server skip).

SHELL := /bin/bash
export PATH := $(PATH):/opt/swift/usr/bin
export SWIFT_BACKTRACE := interactive=no

SWIFT ?= swift
# Debian packages appt needs to build (the -dev packages), run (tzdata) and test (tmux, and
# postgresql for the throwaway server of `make test`; openssl for the CalDAV tests' private CA).
# libcurl4-openssl-dev: curl's headers for CurlLoader (CalDAV with a private CA); zsh and fish
# to parse the completions `appt completion` writes for them.
PACKAGES := libncurses-dev libsqlite3-dev libpq-dev libcurl4-openssl-dev tzdata tmux postgresql openssl zsh fish
DEMO_DB ?= $(CURDIR)/.build/demo.sqlite3

FUZZ_SECONDS ?= 60

.PHONY: install uninstall all deps test-tools build release run demo test check pg-shell caldav-shell unit-tests e2e-tests e2e-release corpus-tests corpus-rie-tests e2e-tui-hours e2e-hours tsan asan fuzz fuzz-smoke bench link-order lint format clean

all: build

## deps: install the Debian packages that are missing (and only those)
# Installing postgresql would also create and start a system cluster (main, port 5432) that
# the tests never use: a drop-in for postgresql-common's createcluster.conf turns that off
# first (only when postgresql is missing, so an existing setup is left alone).
deps:
	@missing=""; \
	for package in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  sudo=""; [ "$$(id -u)" -eq 0 ] || sudo="sudo"; \
	  case " $$missing " in *" postgresql "*) \
	    $$sudo mkdir -p /etc/postgresql-common/createcluster.d && \
	    printf '# appt (Makefile deps): no default cluster; make test starts its own\ncreate_main_cluster = false\n' | \
	      $$sudo tee /etc/postgresql-common/createcluster.d/appt.conf >/dev/null;; \
	  esac; \
	  $$sudo apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing; \
	fi

## test-tools: Python's icalendar (6 or later) and dateutil, the corpus' reference
## (Tests/corpus), recurring-ical-events (3 or later), the oracle of Tests/corpus/rie, and the
## CalDAV servers and client of Tests/caldav (Radicale 3, Xandikos, caldav), from PyPI, and
## only when `import` fails; pip itself from Debian if missing.
## Debian's own Python refuses pip installs (externally managed): then --break-system-packages.
TEST_TOOLS_CHECK := import icalendar, dateutil, recurring_ical_events, sys; sys.exit(int(icalendar.__version__.split(".")[0]) < 6)
CALDAV_TOOLS_CHECK := import radicale, xandikos, caldav, sys; sys.exit(int(radicale.VERSION.split(".")[0]) < 3)
PIP_INSTALL := python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore
# $(call PIP_INSTALL_ANY,PACKAGES): with --break-system-packages only where pip refuses without it
PIP_INSTALL_ANY = $(PIP_INSTALL) $(1) 2>/dev/null || $(PIP_INSTALL) --break-system-packages $(1)
test-tools:
	@if ! python3 -c '$(TEST_TOOLS_CHECK)' 2>/dev/null || ! python3 -c '$(CALDAV_TOOLS_CHECK)' 2>/dev/null; then \
	  if ! python3 -m pip --version >/dev/null 2>&1; then \
	    sudo=""; [ "$$(id -u)" -eq 0 ] || sudo="sudo"; \
	    $$sudo apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends python3-pip; \
	  fi; \
	fi
	@if ! python3 -c '$(TEST_TOOLS_CHECK)' 2>/dev/null; then \
	  echo "Installing icalendar, python-dateutil and recurring-ical-events (PyPI)"; \
	  $(call PIP_INSTALL_ANY,'icalendar>=6' python-dateutil 'recurring-ical-events>=3'); \
	  python3 -c '$(TEST_TOOLS_CHECK)' || { echo "test-tools: icalendar >= 6, dateutil and recurring-ical-events still missing" >&2; exit 1; }; \
	fi
	@if ! python3 -c '$(CALDAV_TOOLS_CHECK)' 2>/dev/null; then \
	  echo "Installing radicale, xandikos and caldav (PyPI)"; \
	  $(call PIP_INSTALL_ANY,'radicale>=3' xandikos caldav); \
	  python3 -c '$(CALDAV_TOOLS_CHECK)' || { echo "test-tools: radicale >= 3, xandikos and caldav still missing" >&2; exit 1; }; \
	fi

build: deps
	$(SWIFT) build

# The Swift runtime linked in: a third less memory and half the start-up time of the shared
# libraries (BENCHMARKS.md), for an 80 MB binary. Package.swift lays out its code.
RELEASE_FLAGS := -c release --static-swift-stdlib

# SwiftPM does not know appt's link reads Resources/link-order.txt: a newer list links again.
release: deps
	@bash -c 'source Benchmarks/lib.sh && release_forget_stale_link .build'
	$(SWIFT) build $(RELEASE_FLAGS)

## run: the full-screen calendar on the default database ($XDG_DATA_HOME/appt/...)
run: release
	.build/release/appt

## demo: a fresh demo database filled with a sample week, opened in the calendar
demo: release
	rm -f $(DEMO_DB) $(DEMO_DB)-wal $(DEMO_DB)-shm
	.build/release/appt --db $(DEMO_DB) < Resources/sample-week.appt
	.build/release/appt --db $(DEMO_DB)

## test: `check` with a throwaway PostgreSQL server (Tests/pg/server.sh) and throwaway CalDAV
## servers (Tests/caldav/with-servers.sh: Radicale, Xandikos, Radicale over https with a private
## CA) spanning all of it, stopped and removed afterwards; the tests get APPT_TEST_PG...,
## APPT_TEST_RADICALE_URL... and APPT_REQUIRE_PG=1, APPT_REQUIRE_CALDAV=1, so such a test fails
## rather than skips. No server, no run: the with-server scripts fail first.
test: deps test-tools
	bash Tests/pg/with-server.sh bash Tests/caldav/with-servers.sh $(MAKE) --no-print-directory check

## check: formatting, zero warnings, every unit/integration/e2e test, the iCalendar corpus, the
## suite under TSan and ASan, a short run of each fuzzer, and the e2e scenarios against the
## release build (PostgreSQL tests run only under `make test`/`pg-shell`)
check: lint unit-tests e2e-tests corpus-tests corpus-rie-tests e2e-tui-hours tsan asan fuzz-smoke e2e-release

## pg-shell: a shell with a throwaway PostgreSQL server (e.g. for `swift test --filter ...`)
pg-shell: deps
	bash Tests/pg/with-server.sh bash

## caldav-shell: a shell with the throwaway CalDAV servers running (APPT_TEST_RADICALE_URL, ...)
caldav-shell: deps test-tools
	bash Tests/caldav/with-servers.sh bash

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests Benchmarks/Sources

unit-tests:
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors
	$(SWIFT) test --skip-build

e2e-tests: unit-tests
	bash Tests/e2e/run.sh .build/debug/appt

## e2e-release: the e2e scenarios again against the release build, whose link differs
## (Package.swift: lld, the order of Resources/link-order.txt, packed relocations)
e2e-release: release
	bash Tests/e2e/run.sh .build/release/appt

## corpus-tests: every calendar of Tests/corpus against an independent reference (Python's
## icalendar + dateutil) and through export again (on PostgreSQL too under `make test`)
corpus-tests: unit-tests test-tools
	bash Tests/corpus/run.sh .build/debug/appt

## corpus-rie-tests: recurring-ical-events' own test calendars (Tests/corpus/rie), appt against
## that library as the oracle, under TZ=UTC and Europe/Berlin; expected-differences.tsv lists
## where appt differs on purpose
corpus-rie-tests: unit-tests test-tools
	bash Tests/corpus/rie/run.sh .build/debug/appt

# The moments worth proving the e2e suites at, through appt's
# clock seam APPT_NOW (lib.sh gives it to every appt process and takes the scripts' "today"
# from it): just after midnight, a now line above a 10:00 appointment, noon, midnight passing
# during a run, and 01:59 on the night the clocks change in Berlin.
E2E_DAY ?= 2026-12-01
E2E_MOMENTS := $(E2E_DAY)T00:00:30 $(E2E_DAY)T09:51 $(E2E_DAY)T12:00 $(E2E_DAY)T23:59:10
E2E_DST_MOMENT := 2027-03-28T01:59

## e2e-hours: every e2e suite at each of those moments (UTC), and at the DST one in
## Europe/Berlin; the suites themselves still run at the real time in `check`
e2e-hours: build
	@failed=""; \
	for moment in $(E2E_MOMENTS); do \
	  APPT_NOW=$$moment bash Tests/e2e/run.sh .build/debug/appt || failed="$$failed $$moment"; \
	done; \
	E2E_TZ=Europe/Berlin APPT_NOW=$(E2E_DST_MOMENT) bash Tests/e2e/run.sh .build/debug/appt || \
	  failed="$$failed $(E2E_DST_MOMENT)(Europe/Berlin)"; \
	if [ -n "$$failed" ]; then echo "e2e-hours: failed at$$failed"; exit 1; fi

# The TUI suite again at the moments that broke it (a now line between rows, the week's now
# line on the row of a 10:00 appointment, midnight).
e2e-tui-hours: unit-tests
	APPT_NOW=$(E2E_DAY)T09:51 bash Tests/e2e/tui.sh .build/debug/appt
	APPT_NOW=$(E2E_DAY)T10:05 bash Tests/e2e/tui.sh .build/debug/appt
	APPT_NOW=$(E2E_DAY)T23:59:10 bash Tests/e2e/tui.sh .build/debug/appt

# TSan writes its reports to files (log_path, last: the last value of an option counts),
# printed again at the end: a report that fails CI is then in the last lines of the log, not
# thousands of lines above them. APPT_UNDER_TSAN=1 lets LockedTests hold that `Locked` found
# TSan's annotations.
TSAN_REPORTS := .build/tsan-reports
tsan:
	@rm -rf $(TSAN_REPORTS) && mkdir -p $(TSAN_REPORTS)
	@APPT_UNDER_TSAN=1 TSAN_OPTIONS="$$TSAN_OPTIONS log_path=$(CURDIR)/$(TSAN_REPORTS)/report" \
	  $(SWIFT) test --sanitize=thread --scratch-path .build/tsan; status=$$?; \
	  for report in $(TSAN_REPORTS)/report*; do \
	    [ -f "$$report" ] || continue; echo "== ThreadSanitizer report $$report"; cat "$$report"; status=1; \
	  done; \
	  grep -h '^SUMMARY: ThreadSanitizer' $(TSAN_REPORTS)/report* 2>/dev/null; exit $$status

# XCTest's async machinery reports false leaks under ASan: leaks off, errors on.
asan:
	ASAN_OPTIONS=detect_leaks=0 $(SWIFT) test --sanitize=address --scratch-path .build/asan

## bench: measure appt against sqlite3 and calcurse at 10k, 100k and 1M, and on PostgreSQL (a throwaway
## server, Benchmarks/postgres.sh) beside SQLite at 10k and 100k, and a sync of a 10,000-event
## calendar from a Radicale server on loopback (Benchmarks/sync.sh) (writes BENCHMARKS.md)
bench: deps test-tools
	bash Benchmarks/run.sh

## link-order: profile appt's everyday commands under valgrind's callgrind and write
## Resources/link-order.txt, the order the release link lays out functions in (Package.swift)
link-order: deps
	bash Benchmarks/link-order.sh

## fuzz: build the libFuzzer targets (Fuzz/targets) and run each for FUZZ_SECONDS
fuzz: deps
	bash Fuzz/run.sh $(FUZZ_SECONDS)

fuzz-smoke: deps
	bash Fuzz/run.sh 10

## install: the release programs, the man page, the bash, zsh and fish completions and the
## reminder daemon's systemd user unit (lib/systemd/user/appt-remind.service) under
## PREFIX (default /usr/local) inside DESTDIR; uninstall removes exactly what install put there.
## INSTALL_FROM=.build/debug installs a debug build instead (the tests do).
PREFIX ?= /usr/local
DESTDIR ?=
INSTALL_FROM ?= .build/release
install:
	@[ "$(INSTALL_FROM)" != .build/release ] || $(MAKE) --no-print-directory release
	@bash Resources/install.sh install "$(DESTDIR)" "$(PREFIX)" "$(INSTALL_FROM)"

uninstall:
	@bash Resources/install.sh uninstall "$(DESTDIR)" "$(PREFIX)" "$(INSTALL_FROM)"

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests

clean:
	rm -rf .build
