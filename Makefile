# roundbench build. `make help` lists the targets.
#
# Portable release flags by default (shared/DESIGN.md: C at -O2, no
# -march=native). TUNE=1 builds the tuned variant (-O3 -march=native for C,
# GOAMD64=v3 for Go); the flags in force are written into every result file.

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

ifeq ($(TUNE),1)
OPT := -O3 -march=native
export GOAMD64 := v3
export ROUNDBENCH_TUNE := 1
else
OPT := -O2
endif
CFLAGS_CORE := $(OPT) -g -std=gnu11 -Wall -Wextra -Wshadow -fPIC -fno-strict-aliasing
CFLAGS := $(CFLAGS_CORE) -DRB_CFLAGS='"$(CFLAGS_CORE)"' -Icsrc -Icsrc/runner
SANFLAGS := -O1 -g -std=gnu11 -Wall -Wextra -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all -Icsrc -Icsrc/runner

CORE_SRC := $(sort $(wildcard csrc/*.c))
CORE_HDR := $(wildcard csrc/*.h)
CORE_OBJ := $(CORE_SRC:csrc/%.c=$(BUILD)/obj/%.o)
RUNNER_SRC := $(sort $(wildcard csrc/runner/*.c))
RUNNER_HDR := $(wildcard csrc/runner/*.h)
TEST_SRC := $(sort $(wildcard csrc/tests/test_*.c))
TEST_BIN := $(TEST_SRC:csrc/tests/%.c=$(BUILD)/asan/%)
GO_SRC := $(shell find go -name '*.go' -o -name '*.c' -o -name '*.h') $(CORE_SRC) $(CORE_HDR) go.mod

# ---- The BLAS ----------------------------------------------------------------
# The core uses the OpenBLAS that the scipy-openblas64 package ships: the
# same library, version and kernel choice as the one numpy's wheels bundle,
# so c-blas, go-c and py-c compare like with like against py-numpy (README,
# "The BLAS"). build/blas links to that package in the venv. Nothing links
# it: the core dlopen()s it on first use (csrc/roundbench.h,
# rb_blas_set_library), so only processes that multiply pay for its ~30 MB
# and its threads. The default file is build/blas/lib's; ROUNDBENCH_BLAS_LIB
# overrides it. Its symbols carry a prefix and suffix and its integers are
# 64-bit.
BLAS_DIR := $(BUILD)/blas
BLAS_LIB := $(BLAS_DIR)/lib/libscipy_openblas64_.so
BLAS_CFLAGS := -DBLAS_SYMBOL_PREFIX=scipy_ -DBLAS_SYMBOL_SUFFIX=64_ -DBLAS_ILP64 \
  -DRB_BLAS_DEFAULT_LIB='"$(abspath $(BLAS_LIB))"'
BLAS_LIBS := -ldl
CFLAGS += $(BLAS_CFLAGS)
SANFLAGS += $(BLAS_CFLAGS)

.PHONY: help setup build c go py install test test-c test-go test-py bench jsonl-speed fidelity suite report asan format lint clean links

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | awk -F'\t' '{printf "  make %-10s %s\n", $$1, $$2}'

setup: ## install what the build and tests need (Debian packages, the .venv, Go modules); safe to rerun
	PYTHON="$(PYTHON)" VENV="$(VENV)" ./scripts/setup.sh

$(VENV_READY): requirements-dev.txt
	PYTHON="$(PYTHON)" VENV="$(VENV)" ./scripts/setup.sh

build: c go py ## build the C core and runners, the Go runner and the Python extension (in place)

c: $(BUILD)/rb-spawn $(BUILD)/rb-c $(BUILD)/rb-c-so $(BUILD)/libroundbench.a $(BUILD)/libroundbench.so ## build the C core, its libraries and the C runners

$(BUILD)/obj/%.o: csrc/%.c $(CORE_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

# Round aspects prints the same bytes from every build, the tuned one
# included: no multiply-add may be fused into an FMA there. The file says so
# itself (a pragma, for the extension's and cgo's builds); here too.
$(BUILD)/obj/aspects.o: CFLAGS += -ffp-contract=off

$(BUILD)/libroundbench.a: $(CORE_OBJ)
	ar rcs $@ $^

$(BUILD)/libroundbench.so: $(CORE_OBJ)
	$(CC) -shared -o $@ $^ $(BLAS_LIBS)

$(BUILD)/rb-c: $(RUNNER_SRC) $(RUNNER_HDR) $(BUILD)/libroundbench.a
	$(CC) $(CFLAGS) $(RUNNER_SRC) $(BUILD)/libroundbench.a -o $@ $(BLAS_LIBS) -lpthread -lm

# The runner's launcher: children forked from it report their own peak RSS.
# Its fork/exec/wait4 is the C runner's own (round startup uses it too).
$(BUILD)/rb-spawn: csrc/tools/spawn.c csrc/runner/forkwait.c csrc/runner/forkwait.h
	@mkdir -p $(BUILD)
	$(CC) $(CFLAGS) csrc/tools/spawn.c csrc/runner/forkwait.c -o $@

# round http: the fixed-rate load generator (latency from the intended send
# time); the round's driver runs it as a separate process.
c: $(BUILD)/rb-load
$(BUILD)/rb-load: csrc/tools/loadgen.c
	@mkdir -p $(BUILD)
	$(CC) $(CFLAGS) $< -o $@

# round jsonl: the core's throughput from memory, kernel by kernel
# (`make jsonl-speed` runs it on the round's default log).
c: $(BUILD)/rb-jsonl-speed
REPS ?= 15
$(BUILD)/rb-jsonl-speed: csrc/tools/jsonl_speed.c csrc/runner/jsonl_run.c csrc/runner/harness.c $(RUNNER_HDR) $(BUILD)/libroundbench.a
	$(CC) $(CFLAGS) csrc/tools/jsonl_speed.c csrc/runner/jsonl_run.c csrc/runner/harness.c $(BUILD)/libroundbench.a -o $@ $(BLAS_LIBS) -lpthread -lm

# The same runner linked against the shared library: calls into the core go
# through the PLT (round ffi, variant c-so).
$(BUILD)/rb-c-so: $(RUNNER_SRC) $(RUNNER_HDR) $(BUILD)/libroundbench.so
	$(CC) $(CFLAGS) $(RUNNER_SRC) -L$(BUILD) -lroundbench -Wl,-rpath,'$$ORIGIN' -o $@ $(BLAS_LIBS) -lpthread -lm

# One Go child runner per round, go/cmd/rb-go/<round>/ -> build/rb-go-<round>
# (the http round's servers too): a Go binary in the page cache is mostly
# resident once started (the kernel faults in its pages around each one
# touched), so a child that carried every round's code would weigh every
# round's on its peak RSS. A new round's directory is found here.
GO_RUNNERS := $(patsubst go/cmd/rb-go/%/,$(BUILD)/rb-go-%,$(sort $(dir $(wildcard go/cmd/rb-go/*/*.go))))

go: $(GO_RUNNERS) ## build the Go runners, one per round (the core reaches them through go/core_*.c links)

$(GO_RUNNERS): $(BUILD)/rb-go-%: $(GO_SRC)
	@mkdir -p $(BUILD)
	$(GO) build -o $@ ./go/cmd/rb-go/$*

# The Go part of the static scan of the timed code (python/roundbench/scan.py).
build: $(BUILD)/rb-scan
$(BUILD)/rb-scan: $(wildcard go/cmd/rb-scan/*.go) go.mod
	@mkdir -p $(BUILD)
	CGO_ENABLED=0 $(GO) build -o $@ ./go/cmd/rb-scan

# round jsonl's go-jsonv2: the same directory built with GOEXPERIMENT=jsonv2
# (its files' build tags give it that variant alone). The experiment also
# reimplements encoding/json on v2, so the go variant keeps its own binary.
go: $(BUILD)/rb-go-jsonl-v2
$(BUILD)/rb-go-jsonl-v2: $(GO_SRC)
	@mkdir -p $(BUILD)
	GOEXPERIMENT=jsonv2 $(GO) build -o $@ ./go/cmd/rb-go/jsonl

# round matmul's go-gonum-netlib: the same directory built with the tag
# netlib (its files' tags give it that variant alone) into a program of its
# own, linked against the system's OpenBLAS (Debian's
# libopenblas-pthread-dev) through its CBLAS: gonum's netlib binding calls
# cblas_dgemm with C ints, which the core's scipy-openblas64 (ILP64,
# renamed symbols) does not have. pkg-config gives the library, and the
# run path pins the flavour the build linked (Debian switches
# libopenblas.so.0 among pthreads, OpenMP and serial builds by
# update-alternatives). OpenBLAS starts its threads when it is loaded, so
# no other child carries it. Left out, with a message, where pkg-config
# finds no openblas; the variant then says why.
OPENBLAS_OK := $(shell pkg-config --exists openblas 2>/dev/null && echo yes)
NETLIB_LDFLAGS = $(shell pkg-config --libs openblas) -Wl,-rpath,$(shell pkg-config --variable=libdir openblas)
NETLIB_GO = CGO_LDFLAGS="$(NETLIB_LDFLAGS)" $(GO)
go: netlib
.PHONY: netlib
ifeq ($(OPENBLAS_OK),yes)
netlib: $(BUILD)/rb-go-matmul-netlib
else
netlib:
	@echo "build/rb-go-matmul-netlib: skipped: pkg-config finds no openblas (Debian: apt-get install libopenblas-pthread-dev; make setup does)"
endif

$(BUILD)/rb-go-matmul-netlib: $(GO_SRC)
	@mkdir -p $(BUILD)
	$(NETLIB_GO) build -tags netlib -o $@ ./go/cmd/rb-go/matmul

# round jsonl's c-simdjson: a C++ program of its own against Debian's
# libsimdjson-dev (the C runner's main, harness and jsonl protocol around
# csrc/simdjson/), so that no other C child maps the library. Left out, with
# a message, where the library is absent; the variant then says why.
# pkg-config gives the library's flags: Debian's is built with
# SIMDJSON_THREADS_ENABLED, which changes its classes' layout, so every file
# that includes simdjson.h must say so too.
SIMDJSON_OK := $(shell pkg-config --exists simdjson 2>/dev/null && echo yes)
SIMDJSON_SRC := csrc/simdjson/run_jsonl_simdjson.c csrc/runner/main.c csrc/runner/harness.c csrc/runner/jsonl_run.c
SIMDJSON_OBJ := $(SIMDJSON_SRC:csrc/%.c=$(BUILD)/obj-simdjson/%.o) $(BUILD)/obj-simdjson/simdjson/jsonl_simdjson.o
CXXFLAGS_SIMDJSON = $(OPT) -g -std=c++17 -Wall -Wextra -Wshadow -Icsrc -Icsrc/runner $(shell pkg-config --cflags simdjson)
c: simdjson
.PHONY: simdjson
ifeq ($(SIMDJSON_OK),yes)
simdjson: $(BUILD)/rb-c-simdjson
else
simdjson:
	@echo "build/rb-c-simdjson: skipped: pkg-config finds no simdjson (Debian: apt-get install libsimdjson-dev; make setup does)"
endif

$(BUILD)/obj-simdjson/%.o: csrc/%.c $(CORE_HDR) $(RUNNER_HDR) csrc/simdjson/jsonl_simdjson.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Icsrc/simdjson -c $< -o $@

$(BUILD)/obj-simdjson/simdjson/jsonl_simdjson.o: csrc/simdjson/jsonl_simdjson.cc csrc/simdjson/jsonl_simdjson.h $(CORE_HDR)
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS_SIMDJSON) -c $< -o $@

$(BUILD)/rb-c-simdjson: $(SIMDJSON_OBJ) $(BUILD)/libroundbench.a
	$(CXX) $(SIMDJSON_OBJ) $(BUILD)/libroundbench.a -o $@ $$(pkg-config --libs simdjson) $(BLAS_LIBS) -lpthread -lm

py: $(VENV_READY) ## build the Python extension in place (python/roundbench)
	$(VPY) setup.py -q build_ext --inplace

# --- round startup: its launcher and the programs it starts ------------------
# rb-c-static is the C runner linked statically: round startup's launcher,
# whose own small peak RSS is the floor under the peak of every program it
# starts (csrc/runner/run_startup.c). The hello programs are the round's
# targets: C with the core's flags, dynamic and static; Go without cgo
# (static), the same program with cgo (dynamic), and a Go program that calls
# the core once.
STARTUP_BIN := $(BUILD)/rb-c-static $(BUILD)/hello-c $(BUILD)/hello-c-static \
  $(BUILD)/hello-go $(BUILD)/hello-go-cgo $(BUILD)/hello-go-c
.PHONY: startup
build: startup
startup: $(STARTUP_BIN) ## build round startup's launcher and the hello programs it starts

$(BUILD)/rb-c-static: $(RUNNER_SRC) $(RUNNER_HDR) $(BUILD)/libroundbench.a
	$(CC) $(CFLAGS) -static $(RUNNER_SRC) $(BUILD)/libroundbench.a -o $@ -lpthread -lm

$(BUILD)/hello-c: csrc/tools/hello.c
	@mkdir -p $(BUILD)
	$(CC) $(CFLAGS_CORE) $< -o $@

$(BUILD)/hello-c-static: csrc/tools/hello.c
	@mkdir -p $(BUILD)
	$(CC) $(CFLAGS_CORE) -static $< -o $@

$(BUILD)/hello-go: $(wildcard go/cmd/rb-hello/*.go) go.mod
	@mkdir -p $(BUILD)
	CGO_ENABLED=0 $(GO) build -o $@ ./go/cmd/rb-hello

$(BUILD)/hello-go-cgo: $(wildcard go/cmd/rb-hello/*.go) go.mod
	@mkdir -p $(BUILD)
	CGO_ENABLED=1 $(GO) build -o $@ ./go/cmd/rb-hello

$(BUILD)/hello-go-c: $(GO_SRC)
	@mkdir -p $(BUILD)
	$(GO) build -o $@ ./go/cmd/rb-hello-core

# --- round aspects: the whole program, in C and in Go -------------------------
# What the round's launch modes start: `aspects EPHEMERIS EVENTS [--print]
# [--combo C]` writing the search's output to stdout. The C one links the
# core's archive (only aspects.o and common.o are pulled in); the Go one is
# go/cmd/aspects, pure Go (`go run ./go/cmd/aspects` is the same program).
.PHONY: aspects
build: aspects
aspects: $(BUILD)/aspects-c $(BUILD)/aspects-go ## build round aspects' whole programs (C and Go)

$(BUILD)/aspects-c: csrc/tools/aspects.c $(BUILD)/libroundbench.a
	$(CC) $(CFLAGS_CORE) -Icsrc $< $(BUILD)/libroundbench.a -o $@

$(BUILD)/aspects-go: $(wildcard go/cmd/aspects/*.go) $(wildcard go/*.go) go.mod
	@mkdir -p $(BUILD)
	CGO_ENABLED=0 $(GO) build -o $@ ./go/cmd/aspects

install: $(VENV_READY) ## pip install the package into the venv (.venv/bin/roundbench)
	$(VPY) -m pip install -q .

links: ## recreate go/core_*.c links for every csrc/*.c (after adding a round)
	cd go && for f in ../csrc/*.c; do ln -sfn "$$f" "core_$$(basename $$f)"; done && \
	  for h in ../csrc/*.h; do ln -sfn "$$h" "$$(basename $$h)"; done

# test_harness.c compiles the C runner's harness.c into itself.
$(BUILD)/asan/%: csrc/tests/%.c csrc/tests/vectors.h $(CORE_SRC) $(CORE_HDR) $(RUNNER_SRC) $(RUNNER_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) -Icsrc/tests $< $(CORE_SRC) -o $@ $(BLAS_LIBS) -lpthread -lm

test-c: $(TEST_BIN) ## C unit tests under AddressSanitizer and UndefinedBehaviorSanitizer
	@set -e; for t in $(TEST_BIN); do echo "== $$t"; ASAN_OPTIONS=detect_leaks=1 $$t testdata/vectors.txt; done

asan: $(TEST_BIN) ## build the C core's tests with ASan and UBSan (make test-c runs them)

test-go: ## Go tests, with -race, with GOEXPERIMENT=cgocheck2, without cgo (the pure package alone), jsonl's jsonv2 build and matmul's netlib build
	$(GO) vet ./go/...
	$(GO) test -count=1 -race ./go/...
	GOEXPERIMENT=cgocheck2 $(GO) test -count=1 ./go/...
	CGO_ENABLED=0 $(GO) vet ./go/...
	CGO_ENABLED=0 $(GO) test -count=1 ./go/...
	GOEXPERIMENT=jsonv2 $(GO) vet ./go/cmd/rb-go/jsonl
	GOEXPERIMENT=jsonv2 $(GO) test -count=1 ./go/cmd/rb-go/jsonl
	CGO_ENABLED=0 $(GO) vet -tags netlib ./go ./go/cmd/rb-go/matmul
ifeq ($(OPENBLAS_OK),yes)
	$(GO) vet -tags netlib ./go ./go/cmd/rb-go/matmul
	$(NETLIB_GO) test -count=1 -tags netlib -run 'Matmul|Netlib' ./go
else
	@echo "test-go: matmul's netlib build skipped: pkg-config finds no openblas (make setup installs it)"
endif

test-py: build ## pytest (builds first)
	$(VPY) -m pytest -q

test: setup ## run every test: formatting and lint, C (sanitizers), Go (race, cgocheck2, without cgo), Python
	$(MAKE) build
	$(MAKE) lint
	$(MAKE) test-c
	$(MAKE) test-go
	$(MAKE) test-py

bench: build ## go test -bench over the Go package (quick look; the suite is `make suite`)
	$(GO) test -run '^$$' -bench . -benchtime 200ms ./go/...

jsonl-speed: $(BUILD)/rb-jsonl-speed $(VENV_READY) ## the jsonl core's GB/s from memory, each kernel, on the round's default log (REPS=15)
	@log="$$(PYTHONPATH=python $(VPY) -c 'from roundbench.rounds import build_dir; from roundbench.rounds.jsonl import genlog; print(genlog.cached(build_dir() / "data"))')" && \
	  $(BUILD)/rb-jsonl-speed "$$log" $(REPS)

fidelity: build ## compare the suite's cgo and METH_O figures with go test -bench and python -m timeit
	$(VPY) scripts/fidelity.py

suite: setup ## run the whole suite at its default sizes, then the report (OUT=dir to choose where)
	$(MAKE) build
	VENV="$(VENV)" ./scripts/suite.sh $(OUT)

C_FORMATTED := $(wildcard csrc/*.c csrc/*.h csrc/*/*.c csrc/*/*.h csrc/*/*.cc) python/roundbench/_core.c
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
$(BUILD)/rb-c $(BUILD)/rb-c-so $(BUILD)/libroundbench.so $(TEST_BIN) $(GO_RUNNERS) $(BUILD)/rb-go-jsonl-v2 test-go: | $(BLAS_LINK)

clean: ## remove build outputs
	rm -rf $(BUILD) python/roundbench/*.so python/roundbench/_cffi_api.c python/roundbench/_cffi_api.o
