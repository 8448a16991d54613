# roundbench build. `make help` lists the targets.
#
# Portable release flags by default (docs/ARCHITECTURE.md, "One build table": C at -O2, no
# -march=native). TUNE=1 builds the tuned variant (-O3 -march=native for C,
# the core that cgo compiles into the Go runners included, GOAMD64=v3 for
# Go); the flags in force are written into every result file.

# PYTHON is the interpreter the project's virtual environment is made from;
# every target runs the venv's own, VPY (scripts/setup.sh says why).
PYTHON ?= python3
GO ?= go
CC ?= gcc
CXX ?= g++
BUILD := build
VENV := .venv
VPY := $(VENV)/bin/python

# The venv is ready when setup.sh has filled it since requirements-dev.txt
# last changed, from the interpreter PYTHON names now; otherwise the first
# target that needs it runs setup.sh, which makes it again.
VENV_READY := $(VENV)/.roundbench-ready
PYTHON_REAL := $(shell $(PYTHON) -c 'import os, sys; print(os.path.realpath(sys.executable))' 2>/dev/null)
ifneq ($(PYTHON_REAL),$(shell readlink -f $(VPY) 2>/dev/null))
.PHONY: $(VENV_READY)
endif

# The build table: the flags, the BLAS macros, the C programs and the Go
# runners built apart, which setup.py and roundbench.runtimes.programs read too (its
# opening comment says how). Everything below derives from it.
BUILD_TABLE := python/roundbench/build.mk
include $(BUILD_TABLE)

ifeq ($(TUNE),1)
OPT := $(OPT_TUNED)
export GOAMD64 := $(GOAMD64_TUNED)
# The core as cgo compiles it into the Go runners (go/cgo.go adds no -O):
# the same tuning as the C programs' and the extension's. The go command
# records it in each program (the go-build provenance line shows it).
export CGO_CFLAGS := -g $(OPT_TUNED)
export ROUNDBENCH_TUNE := 1
else
OPT := $(OPT_PORTABLE)
endif
CFLAGS_CORE := $(OPT) $(CORE_CFLAGS)
CFLAGS := $(CFLAGS_CORE) -DRB_CFLAGS='"$(CFLAGS_CORE)"' $(PROGRAM_INCLUDES)
SANFLAGS := $(SAN_CFLAGS) $(PROGRAM_INCLUDES)

CORE_SRC := $(sort $(wildcard csrc/*.c))
CORE_HDR := $(wildcard csrc/*.h)
CORE_OBJ := $(CORE_SRC:csrc/%.c=$(BUILD)/obj/%.o)
RUNNER_SRC := $(sort $(wildcard csrc/runner/*.c))
RUNNER_HDR := $(wildcard csrc/runner/*.h)
TEST_SRC := $(sort $(wildcard csrc/tests/test_*.c))
TEST_BIN := $(TEST_SRC:csrc/tests/%.c=$(BUILD)/asan/%)
# The Go release the go command runs now (GOTOOLCHAIN=go1.27.4 names another;
# make suite does for the newest served): every Go program depends on a
# stamp that changes with it, so a build never mixes two Go releases.
GO_VERSION_NOW := $(shell $(GO) env GOVERSION 2>/dev/null)
GO_STAMP := $(BUILD)/go-toolchain
GO_SRC := $(shell find go -name '*.go' -o -name '*.c' -o -name '*.h') $(CORE_SRC) $(CORE_HDR) go.mod $(GO_STAMP)

# ---- The BLAS ----------------------------------------------------------------
# The core uses the OpenBLAS that the scipy-openblas64 package ships: the
# same library, version and kernel choice as the one numpy's wheels bundle,
# so c-blas, go-c and py-c compare like with like against py-numpy (docs/rounds/matmul.md,
# "The BLAS"). build/blas links to that package in the venv. Nothing links
# it: the core dlopen()s it on first use (csrc/roundbench.h,
# rb_blas_set_library), so only processes that multiply pay for its ~30 MB
# and its threads. The default file is build/blas/lib's; ROUNDBENCH_BLAS_LIB
# overrides it. Its symbols carry a prefix and suffix and its integers are
# 64-bit.
BLAS_DIR := $(BUILD)/blas
BLAS_LIB := $(BLAS_DIR)/lib/$(BLAS_LIB_FILE)
BLAS_CFLAGS := $(BLAS_MACROS) -DRB_BLAS_DEFAULT_LIB='"$(abspath $(BLAS_LIB))"'
CFLAGS += $(BLAS_CFLAGS)
SANFLAGS += $(BLAS_CFLAGS)

.PHONY: help setup build c go py pgo-profiles install check test test-c test-go test-py test-fuzz fuzz fuzz-build fuzz-plants bench jsonl-speed fidelity pythons suite matrix cgo-by-go asan format lint clean links

help: ## list the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | awk -F'\t' '{printf "  make %-10s %s\n", $$1, $$2}'

setup: ## install what the build and tests need (Debian packages, the .venv, Go modules); safe to rerun
	PYTHON="$(PYTHON)" VENV="$(VENV)" ./scripts/setup.sh

$(VENV_READY): requirements-dev.txt
	PYTHON="$(PYTHON)" VENV="$(VENV)" ./scripts/setup.sh

build: c go py ## build the C core and runners, the Go runner and the Python extension (in place)

c: $(BUILD)/libroundbench.a $(BUILD)/libroundbench.so ## build the C core, its libraries and the C programs (the build table's C_PROGRAMS and C_TOOLS)

# A core file's own flags come after the core's (the build table's
# csrc/<file>.c.cflags).
$(BUILD)/obj/%.o: csrc/%.c $(CORE_HDR) $(BUILD_TABLE)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $($<.cflags) -c $< -o $@

$(BUILD)/libroundbench.a: $(CORE_OBJ)
	ar rcs $@ $^

$(BUILD)/libroundbench.so: $(CORE_OBJ)
	$(CC) -shared -o $@ $^ $(BLAS_LIBS)

# ---- The C programs, from the build table ------------------------------------
# A program's NAME.src, each pattern expanded in place; a pattern that
# matches nothing stops make.
program_sources = $(foreach p,$($(1).src),$(or $(sort $(wildcard $(p))),$(error $(BUILD_TABLE): $(1).src: $(p) matches no file)))
# Each link mode (NAME.link): its flag, where the core comes from, what it
# links besides, what must be built first.
LINK_MODES := core shared static none
LINK_FLAG.static := -static
LINK_CORE.core = $(BUILD)/libroundbench.a
LINK_CORE.shared = -L$(BUILD) -lroundbench -Wl,-rpath,'$$ORIGIN'
LINK_CORE.static = $(BUILD)/libroundbench.a
LINK_LIBS.core = $(BLAS_LIBS) $(CORE_LIBS)
LINK_LIBS.shared = $(BLAS_LIBS) $(CORE_LIBS)
LINK_LIBS.static = $(CORE_LIBS)
LINK_DEP.core = $(BUILD)/libroundbench.a
LINK_DEP.shared = $(BUILD)/libroundbench.so
LINK_DEP.static = $(BUILD)/libroundbench.a
C_HDR := $(wildcard csrc/*.h csrc/*/*.h)
library_found = $(shell pkg-config --exists $(1) 2>/dev/null && echo yes)

# A C program: compiled and linked in one command.
define c_program
$(1).SOURCES := $$(call program_sources,$(1))
$$(BUILD)/$(1): $$($(1).SOURCES) $$(C_HDR) $$(BUILD_TABLE) $$(LINK_DEP.$$($(1).link))
	@mkdir -p $$(BUILD)
	$$(CC) $$(CFLAGS) $$(LINK_FLAG.$$($(1).link)) $$($(1).SOURCES) $$(LINK_CORE.$$($(1).link)) -o $$@ $$(LINK_LIBS.$$($(1).link))
endef

# A program against a library that pkg-config finds (NAME.library), its
# objects in build/obj-NAME/: the C++ sources compiled with the library's
# flags, the whole linked by the C++ compiler. Left out, with a message,
# where pkg-config does not find the library; the variant then says why.
define library_program
$(1).SOURCES := $$(call program_sources,$(1))
$(1).OBJ := $$(patsubst csrc/%,$$(BUILD)/obj-$(1)/%.o,$$(basename $$($(1).SOURCES)))
$$(BUILD)/obj-$(1)/%.o: csrc/%.c $$(C_HDR) $$(BUILD_TABLE)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CFLAGS) -c $$< -o $$@
$$(BUILD)/obj-$(1)/%.o: csrc/%.cc $$(C_HDR) $$(BUILD_TABLE)
	@mkdir -p $$(dir $$@)
	$$(CXX) $$(OPT) $$(CXX_CFLAGS) $$(PROGRAM_INCLUDES) $$(shell pkg-config --cflags $$($(1).library)) -c $$< -o $$@
$$(BUILD)/$(1): $$($(1).OBJ) $$(LINK_DEP.$$($(1).link))
	$$(CXX) $$(LINK_FLAG.$$($(1).link)) $$($(1).OBJ) $$(LINK_CORE.$$($(1).link)) -o $$@ $$(shell pkg-config --libs $$($(1).library)) $$(LINK_LIBS.$$($(1).link))
ifeq ($$(call library_found,$$($(1).library)),yes)
c: $$(BUILD)/$(1)
else
c: skip-$(1)
endif
endef

$(foreach p,$(C_PROGRAMS) $(C_TOOLS),$(if $(filter $(LINK_MODES),$($(p).link)),,$(error $(BUILD_TABLE): $(p).link is "$($(p).link)", not one of $(LINK_MODES))))
$(foreach p,$(C_PROGRAMS) $(C_TOOLS),$(if $($(p).library),$(eval $(call library_program,$(p))),$(eval $(call c_program,$(p)))$(eval c: $(BUILD)/$(p))))
C_LINKED := $(foreach p,$(C_PROGRAMS) $(C_TOOLS),$(if $(filter core shared,$($(p).link)),$(BUILD)/$(p)))

# What a program left out says, once per make.
skip-%:
	@echo "build/$*: skipped: pkg-config finds no $($*.library) (Debian: apt-get install $($*.debian); make setup does)"

# round jsonl: the core's throughput from memory, kernel by kernel
# (`make jsonl-speed` runs build/rb-jsonl-speed on the round's default log).
REPS ?= 15

# One Go child runner per round, go/cmd/rb-go/<round>/ -> build/rb-go-<round>
# (the http round's servers too): a Go binary in the page cache is mostly
# resident once started (the kernel faults in its pages around each one
# touched), so a child that carried every round's code would weigh every
# round's on its peak RSS. A new round's directory is found here.
GO_RUNNERS := $(patsubst go/cmd/rb-go/%/,$(BUILD)/rb-go-%,$(sort $(dir $(wildcard go/cmd/rb-go/*/*.go))))

go: $(GO_RUNNERS) ## build the Go runners, one per round (the core reaches them through go/core_*.c links)

.PHONY: go-toolchain-check
$(GO_STAMP): go-toolchain-check
	@mkdir -p $(BUILD)
	@if [ "$$(cat $@ 2>/dev/null)" != "$(GO_VERSION_NOW)" ]; then echo "$(GO_VERSION_NOW)" > $@; fi

$(GO_RUNNERS): $(BUILD)/rb-go-%: $(GO_SRC)
	@mkdir -p $(BUILD)
	$(GO) build -o $@ ./go/cmd/rb-go/$*

# The Go part of the static scan of the timed code (python/roundbench/judge/scan.py).
build: $(BUILD)/rb-scan
$(BUILD)/rb-scan: $(wildcard go/cmd/rb-scan/*.go) go.mod $(GO_STAMP)
	@mkdir -p $(BUILD)
	CGO_ENABLED=0 $(GO) build -o $@ ./go/cmd/rb-scan

# ---- The Go runners built apart, from the build table --------------------------
# A round's directory built again into a program of its own: with a Go
# experiment on (GO_EXPERIMENT_RUNNERS, NAME.goexperiment), or with a tag
# against a C library that pkg-config finds (GO_LIBRARY_RUNNERS, NAME.tag,
# NAME.library), its link flags and a run path to its folder in
# CGO_LDFLAGS. The directory's build tags give each its own variants. A
# library runner is left out, with a message, where pkg-config does not
# find the library; the variant then says why.
define go_experiment_runner
go: $$(BUILD)/$(1)
$$(BUILD)/$(1): $$(GO_SRC) $$(BUILD_TABLE)
	@mkdir -p $$(BUILD)
	GOEXPERIMENT=$$($(1).goexperiment) $$(GO) build -o $$@ ./$$($(1).package)
endef

define go_library_runner
$(1).LDFLAGS = $$(shell pkg-config --libs $$($(1).library)) -Wl,-rpath,$$(shell pkg-config --variable=libdir $$($(1).library))
ifeq ($$(call library_found,$$($(1).library)),yes)
go: $$(BUILD)/$(1)
else
go: skip-$(1)
endif
$$(BUILD)/$(1): $$(GO_SRC) $$(BUILD_TABLE)
	@mkdir -p $$(BUILD)
	CGO_LDFLAGS="$$($(1).LDFLAGS)" $$(GO) build -tags $$($(1).tag) -o $$@ ./$$($(1).package)
endef

# A build twin (GO_BUILD_RUNNERS): the standard toolchain's own speed
# options, a PGO profile (NAME.pgo) and an amd64 level (NAME.goamd64; v1,
# Go's default, where absent, whatever TUNE says, so that a twin is what its
# name says), otherwise as the round's own runner, tagged GO_TWIN_TAG
# (docs/go-builds.md).
define go_build_runner
go: $$(BUILD)/$(1)
$$(BUILD)/$(1): $$(GO_SRC) $$(BUILD_TABLE) $$($(1).pgo)
	@mkdir -p $$(BUILD)
	GOAMD64=$$(or $$($(1).goamd64),v1) $$(GO) build -tags $$(GO_TWIN_TAG) $$(if $$($(1).pgo),-pgo=$$(abspath $$($(1).pgo))) -o $$@ ./$$($(1).package)
endef

$(foreach r,$(GO_EXPERIMENT_RUNNERS),$(eval $(call go_experiment_runner,$(r))))
$(foreach r,$(GO_LIBRARY_RUNNERS),$(eval $(call go_library_runner,$(r))))
$(foreach r,$(GO_BUILD_RUNNERS),$(eval $(call go_build_runner,$(r))))

# The PGO profiles of the build twins (go/pgo/<round>.pgo, committed):
# each round's runner built with GO_PROFILE_TAG (the only build that can
# write a profile) runs its twins' base variant at a large size, and the
# runs' profiles are merged (scripts/pgo-profiles.sh; docs/go-builds.md).
pgo-profiles: $(VENV_READY) ## refresh the PGO profiles of the Go build twins (go/pgo/<round>.pgo; commit them), then make go
	GO="$(GO)" BUILD="$(BUILD)" VPY="$(VPY)" PROFILE_TAG="$(GO_PROFILE_TAG)" ./scripts/pgo-profiles.sh
	$(MAKE) go

# test-go and lint check round matmul's netlib build where it can be built.
OPENBLAS_OK := $(call library_found,$(rb-go-matmul-netlib.library))
NETLIB_GO = CGO_LDFLAGS="$(rb-go-matmul-netlib.LDFLAGS)" $(GO)

py: $(VENV_READY) ## build the Python extension in place (python/roundbench), and round loop's Cython, mypyc and Pythran modules
	$(VPY) setup.py -q build_ext --inplace
	PYTHONPATH=python $(VPY) -m roundbench.runtimes.aotbuild

# --- round startup: its launcher and the programs it starts ------------------
# rb-c-static is the C runner linked statically: round startup's launcher,
# whose own small peak RSS is the floor under the peak of every program it
# starts (csrc/runner/run_startup.c). The hello programs are the round's
# targets: C with the core's flags, dynamic and static; Go without cgo
# (static), the same program with cgo (dynamic), and a Go program that calls
# the core once. The C ones are the build table's.
STARTUP_BIN := $(BUILD)/rb-c-static $(BUILD)/hello-c $(BUILD)/hello-c-static \
  $(BUILD)/hello-go $(BUILD)/hello-go-cgo $(BUILD)/hello-go-c
.PHONY: startup
build: startup
startup: $(STARTUP_BIN) ## build round startup's launcher and the hello programs it starts

$(BUILD)/hello-go: $(wildcard go/cmd/rb-hello/*.go) go.mod $(GO_STAMP)
	@mkdir -p $(BUILD)
	CGO_ENABLED=0 $(GO) build -o $@ ./go/cmd/rb-hello

$(BUILD)/hello-go-cgo: $(wildcard go/cmd/rb-hello/*.go) go.mod $(GO_STAMP)
	@mkdir -p $(BUILD)
	CGO_ENABLED=1 $(GO) build -o $@ ./go/cmd/rb-hello

$(BUILD)/hello-go-c: $(GO_SRC)
	@mkdir -p $(BUILD)
	$(GO) build -o $@ ./go/cmd/rb-hello-core

# --- round aspects: the whole program, in C and in Go -------------------------
# What the round's launch modes start: `aspects EPHEMERIS EVENTS [--print]
# [--combo C]` writing the search's output to stdout. The C one (the build
# table's) links the core's archive, of which only aspects.o and common.o
# are pulled in; the Go one is go/cmd/aspects, pure Go (`go run
# ./go/cmd/aspects` is the same program).
.PHONY: aspects
build: aspects
aspects: $(BUILD)/aspects-c $(BUILD)/aspects-go ## build round aspects' whole programs (C and Go)

$(BUILD)/aspects-go: $(wildcard go/cmd/aspects/*.go) $(wildcard go/*.go) go.mod $(GO_STAMP)
	@mkdir -p $(BUILD)
	CGO_ENABLED=0 $(GO) build -o $@ ./go/cmd/aspects

install: $(VENV_READY) ## pip install the package into the venv (.venv/bin/roundbench)
	$(VPY) -m pip install -q .

links: ## recreate go/core_*.c links for every csrc/*.c (after adding a round)
	cd go && for f in ../csrc/*.c; do ln -sfn "$$f" "core_$$(basename $$f)"; done && \
	  for h in ../csrc/*.h; do ln -sfn "$$h" "$$(basename $$h)"; done

# test_harness.c compiles the C runner's harness.c into itself.
$(BUILD)/asan/%: csrc/tests/%.c csrc/tests/vectors.h $(CORE_SRC) $(CORE_HDR) $(RUNNER_SRC) $(RUNNER_HDR) $(BUILD_TABLE)
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) -Icsrc/tests $< $(CORE_SRC) -o $@ $(BLAS_LIBS) $(CORE_LIBS)

# The C runner under the same sanitizers, for test_args.c's argument sweep,
# which runs it from beside itself (build/asan/rb-c).
$(BUILD)/asan/rb-c: $(RUNNER_SRC) $(RUNNER_HDR) $(CORE_SRC) $(CORE_HDR) $(BUILD_TABLE)
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) $(RUNNER_SRC) $(CORE_SRC) -o $@ $(BLAS_LIBS) $(CORE_LIBS)
$(BUILD)/asan/test_args: $(BUILD)/asan/rb-c

# The threads test again under ThreadSanitizer: every entry point the Python
# extension calls without the GIL, from several threads at once.
TSAN_BIN := $(BUILD)/tsan/test_threads
$(TSAN_BIN): csrc/tests/test_threads.c csrc/tests/vectors.h $(CORE_SRC) $(CORE_HDR) $(BUILD_TABLE)
	@mkdir -p $(dir $@)
	$(CC) $(TSAN_CFLAGS) $(PROGRAM_INCLUDES) -Icsrc/tests $< $(CORE_SRC) -o $@ $(BLAS_LIBS) $(CORE_LIBS)

test-c: $(TEST_BIN) $(TSAN_BIN) ## C unit tests under AddressSanitizer and UndefinedBehaviorSanitizer, the threads test under ThreadSanitizer
	@set -e; for t in $(TEST_BIN); do echo "== $$t"; ASAN_OPTIONS=detect_leaks=1 $$t testdata/vectors.txt; done
	@echo "== $(TSAN_BIN)"; TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" $(TSAN_BIN) testdata/vectors.txt

asan: $(TEST_BIN) ## build the C core's tests with ASan and UBSan (make test-c runs them)

test-go: ## Go tests, with -race, with GOEXPERIMENT=cgocheck2, without cgo (the pure package alone), jsonl's jsonv2 build and matmul's netlib build
	$(GO) vet ./go/...
	$(GO) test -count=1 -race ./go/...
	GOEXPERIMENT=cgocheck2 $(GO) test -count=1 ./go/...
	CGO_ENABLED=0 $(GO) vet ./go/...
	CGO_ENABLED=0 $(GO) test -count=1 ./go/...
	GOEXPERIMENT=jsonv2 $(GO) vet ./go/cmd/rb-go/jsonl
	GOEXPERIMENT=jsonv2 $(GO) test -count=1 ./go/cmd/rb-go/jsonl
	CGO_ENABLED=0 $(GO) vet -tags $(GO_PROFILE_TAG) ./go/internal/harness
	$(GO) test -run '^$$' -fuzz '^FuzzJsonlLine$$' -fuzztime 10000x -parallel 2 ./go
	$(GO) test -run '^$$' -fuzz '^FuzzAspectsEphemeris$$' -fuzztime 50000x -parallel 2 ./go
	$(GO) test -run '^$$' -fuzz '^FuzzAspectsEvents$$' -fuzztime 50000x -parallel 2 ./go
	CGO_ENABLED=0 $(GO) vet -tags netlib ./go ./go/cmd/rb-go/matmul
ifeq ($(OPENBLAS_OK),yes)
	$(GO) vet -tags netlib ./go ./go/cmd/rb-go/matmul
	$(NETLIB_GO) test -count=1 -tags netlib -run 'Matmul|Netlib' ./go
else
	@echo "test-go: matmul's netlib build skipped: pkg-config finds no openblas (make setup installs it)"
endif

# ---- Fuzzing ------------------------------------------------------------------
# csrc/fuzz/: one libFuzzer target per parser of untrusted bytes, each built
# by clang with libFuzzer, ASan and UBSan into build/fuzz/<target>, linking
# only the core files it drives: the build table's FUZZ_TARGETS and each
# target's NAME.src. scripts/fuzz.sh says what each mode does.
FUZZ_CC ?= clang
# The sanitizer build's flags and libFuzzer's (the build table's).
FUZZ_CFLAGS := $(SAN_CFLAGS) $(FUZZ_SAN_CFLAGS) -Icsrc
FUZZ_BIN := $(FUZZ_TARGETS:%=$(BUILD)/fuzz/%)
FUZZ_SECONDS ?= 180
FUZZ_RUNS ?= 20000
PLANT_SECONDS ?= 60

$(BUILD)/fuzz/%: csrc/fuzz/%.c $(wildcard csrc/fuzz/*.h csrc/fuzz/*.c) $(CORE_SRC) $(CORE_HDR)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(csrc/aspects.c.cflags) $< $($*.src) -o $@ $(CORE_LIBS)

fuzz-build: $(FUZZ_BIN) ## build the fuzz targets (clang, libFuzzer, ASan, UBSan) into build/fuzz/

fuzz: $(FUZZ_BIN) $(VENV_READY) ## run every fuzz target for FUZZ_SECONDS (default 180) each, then executions, coverage and findings per target
	FUZZ_SECONDS=$(FUZZ_SECONDS) VPY=$(VPY) BUILD=$(BUILD) ./scripts/fuzz.sh run $(FUZZ_ONLY)

fuzz-plants: $(VENV_READY) ## plant a known fault in a copy of the core and show its fuzz target finds it from the seeds alone within PLANT_SECONDS (default 60)
	$(VPY) scripts/fuzz_plants.py --seconds $(PLANT_SECONDS)

test-fuzz: $(FUZZ_BIN) ## replay every fuzz target's committed corpus (testdata/fuzz/) plus FUZZ_RUNS seeded executions
	FUZZ_RUNS=$(FUZZ_RUNS) BUILD=$(BUILD) ./scripts/fuzz.sh replay

test-py: build ## pytest (builds first)
	$(VPY) -m pytest -q

check: $(VENV_READY) ## the fast checks before a commit (well under a minute): lint, test_docs, no import cycle
	$(MAKE) lint
	$(VPY) -m pytest -q -p no:cacheprovider tests/test_docs.py tests/test_imports.py

test: setup ## run every test: formatting and lint, C (sanitizers), the fuzz targets' corpora, Go (race, cgocheck2, without cgo), Python
	$(MAKE) build
	$(MAKE) lint
	$(MAKE) test-c
	$(MAKE) test-fuzz
	$(MAKE) test-go
	$(MAKE) test-py

bench: build ## go test -bench over the Go package (quick look; the suite is `make suite`)
	$(GO) test -run '^$$' -bench . -benchtime 200ms ./go/...

jsonl-speed: $(BUILD)/rb-jsonl-speed $(VENV_READY) ## the jsonl core's GB/s from memory, each kernel, on the round's default log (REPS=15)
	@log="$$(PYTHONPATH=python $(VPY) -c 'from roundbench.runtimes.programs import build_dir; from roundbench.rounds.jsonl import genlog; print(genlog.cached(build_dir() / "data"))')" && \
	  $(BUILD)/rb-jsonl-speed "$$log" $(REPS)

fidelity: build ## compare the suite's cgo and METH_O figures with go test -bench and python -m timeit
	$(VPY) scripts/fidelity.py

# The suite's time budget in minutes (`make suite BUDGET=45`; BUDGET=none
# for none): every variant's first run is made whatever it says, and the
# minimum runs become what it pays for (docs/measurement.md, "The time
# budget"). SIZES=all adds the cells beside the verdict (`run --sizes all`).
BUDGET ?= 30
SIZES ?= default

pythons: setup ## provision CPython 3.13.5 (PGO+LTO, and its --disable-gil twin) and Debian unstable's 3.14 and 3.15, outside the checkout (root, Debian; roundbench pythons --help)
	PYTHONPATH=python $(VPY) -m roundbench pythons

suite: setup ## run the whole suite at its default sizes within BUDGET minutes (default 30), then the report (OUT=dir; SIZES=all adds the cells beside the verdict)
	VENV="$(VENV)" BUDGET="$(BUDGET)" SIZES="$(SIZES)" MAKE="$(MAKE)" ./scripts/suite.sh $(OUT)

matrix: setup ## the rounds where runtime versions matter under the age-matched Go, the newest Go, CPython and PyPy (scripts/matrix.sh; OUT=dir)
	$(MAKE) build
	VENV="$(VENV)" ./scripts/matrix.sh $(OUT)

# The cgo call's cost by Go release: round ffi under each of these toolchains.
CGO_GO ?= 1.20 1.22 1.24 1.25 1.26

cgo-by-go: setup ## round ffi's crossings under each Go of CGO_GO (default 1.20 1.22 1.24 1.25 1.26), then the report
	$(MAKE) build
	PYTHONPATH=python $(VPY) -m roundbench run ffi $(foreach v,$(CGO_GO),--go $(v)) $(if $(OUT),--out $(OUT))

C_FORMATTED := $(wildcard csrc/*.c csrc/*.h csrc/*/*.c csrc/*/*.h csrc/*/*.cc) python/roundbench/_core.c $(wildcard python/roundbench/bindings/*.c python/roundbench/bindings/*.cpp)
PY_FORMATTED := python tests scripts setup.py

format: $(VENV_READY) ## format the C (clang-format), Go (gofmt) and Python (black) sources
	gofmt -w go
	clang-format -i $(C_FORMATTED)
	$(VPY) -m black -q $(PY_FORMATTED)

lint: $(VENV_READY) ## check formatting and lint (clang-format, black, ruff, the import layers, gofmt, go vet); make test runs it
	clang-format --dry-run --Werror $(C_FORMATTED)
	$(VPY) -m black --check -q $(PY_FORMATTED)
	$(VPY) -m ruff check -q $(PY_FORMATTED)
	cd python && ../$(VENV)/bin/lint-imports --no-cache ../.importlinter
	@out="$$(gofmt -l go)"; if [ -n "$$out" ]; then echo "gofmt: these need formatting (make format):"; echo "$$out"; exit 1; fi
	$(GO) vet ./go/...
	GOEXPERIMENT=jsonv2 $(GO) vet ./go/cmd/rb-go/jsonl
	CGO_ENABLED=0 $(GO) vet -tags $(GO_PROFILE_TAG) ./go/internal/harness
	CGO_ENABLED=0 $(GO) vet -tags netlib ./go ./go/cmd/rb-go/matmul
ifeq ($(OPENBLAS_OK),yes)
	$(GO) vet -tags netlib ./go ./go/cmd/rb-go/matmul
endif

# The BLAS link, made again with the venv (make follows a link to its
# target's time, so a stamp beside it says when it was made).
BLAS_LINK := $(BUILD)/.blas-link
$(BLAS_LINK): $(VENV_READY)
	@mkdir -p $(BUILD)
	ln -sfn "$$($(VPY) -c 'import os, scipy_openblas64 as s; print(os.path.dirname(s.get_lib_dir()))')" $(BLAS_DIR)
	@touch $@
# Building needs no BLAS; running the C and Go programs and tests does.
$(C_LINKED) $(BUILD)/libroundbench.so $(TEST_BIN) $(TSAN_BIN) $(GO_RUNNERS) $(addprefix $(BUILD)/,$(GO_EXPERIMENT_RUNNERS) $(GO_LIBRARY_RUNNERS) $(GO_BUILD_RUNNERS)) test-go: | $(BLAS_LINK)

clean: ## remove build outputs
	rm -rf $(BUILD) python/roundbench/*.so python/roundbench/_cffi_api.c python/roundbench/_cffi_api.o
