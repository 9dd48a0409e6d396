# appt: `make run` to use it, `make test` to check it. Both install what is missing first.

SHELL := /bin/bash
export PATH := $(PATH):/opt/swift/usr/bin
export SWIFT_BACKTRACE := interactive=no

SWIFT ?= swift
# Debian packages appt needs to build (the -dev packages), run (tzdata) and test (tmux).
PACKAGES := libncurses-dev libsqlite3-dev tzdata tmux
DEMO_DB ?= $(CURDIR)/.build/demo.sqlite3

FUZZ_SECONDS ?= 60

.PHONY: all deps build release run demo test unit-tests e2e-tests tsan asan fuzz fuzz-smoke bench lint format clean

all: build

## deps: install the Debian packages that are missing (and only those)
deps:
	@missing=""; \
	for package in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  sudo=""; [ "$$(id -u)" -eq 0 ] || sudo="sudo"; \
	  $$sudo apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing; \
	fi

build: deps
	$(SWIFT) build

# The Swift runtime linked in: a third less memory and half the start-up time of the shared
# libraries (BENCHMARKS.md), for a 70 MB binary.
RELEASE_FLAGS := -c release --static-swift-stdlib

release: deps
	$(SWIFT) build $(RELEASE_FLAGS)

## run: the full-screen calendar on the default database ($XDG_DATA_HOME/appt/...)
run: release
	.build/release/appt

## demo: a fresh demo database filled with a sample week, opened in the calendar
demo: release
	rm -f $(DEMO_DB) $(DEMO_DB)-wal $(DEMO_DB)-shm
	.build/release/appt --db $(DEMO_DB) < Resources/sample-week.appt
	.build/release/appt --db $(DEMO_DB)

## test: formatting, zero warnings, every unit/integration/e2e test, the suite under TSan and
## ASan, and a short run of each fuzzer
test: deps lint unit-tests e2e-tests tsan asan fuzz-smoke

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests Benchmarks/Sources

unit-tests:
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors
	$(SWIFT) test --skip-build

e2e-tests: unit-tests
	bash Tests/e2e/run.sh .build/debug/appt

tsan:
	$(SWIFT) test --sanitize=thread --scratch-path .build/tsan

# XCTest's async machinery reports false leaks under ASan (PLATFORM.md): leaks off, errors on.
asan:
	ASAN_OPTIONS=detect_leaks=0 $(SWIFT) test --sanitize=address --scratch-path .build/asan

## bench: measure appt against sqlite3 and calcurse at 10k, 100k and 1M (writes BENCHMARKS.md)
bench: deps
	bash Benchmarks/run.sh

## fuzz: build the libFuzzer targets (Fuzz/targets) and run each for FUZZ_SECONDS
fuzz: deps
	bash Fuzz/run.sh $(FUZZ_SECONDS)

fuzz-smoke: deps
	bash Fuzz/run.sh 10

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests

clean:
	rm -rf .build
