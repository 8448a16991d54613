# The build table: the compiler flags, the BLAS macros, the C programs and
# the Go runners built apart. Three readers, one table, so no two builds can
# drift: the Makefile `include`s it (a checkout's build/), setup.py reads it
# (the extension, and an installed package's roundbench/bin/), and
# roundbench.runtimes.programs reads it at run time (the Go runners it builds on first
# use). It lives in the package so that an installed one carries it.
#
# Every line is a comment, empty, or `NAME := VALUE` with VALUE literal text:
# no `$`, `#` or `\`, nothing around it but that one blank on each side of
# `:=`. Make and roundbench.runtimes.buildtable.read() then read the same strings, and
# read() refuses any other line. The Makefile and setup.py add only what a
# build decides itself: paths, TUNE, the macros that quote a flag or a path.

# ---- Flags ----------------------------------------------------------------
# Portable by default (C at -O2, no -march=native, Go at its default GOAMD64);
# TUNE=1 (make) or ROUNDBENCH_TUNE=1 (setup.py) gives the tuned build.
OPT_PORTABLE := -O2
OPT_TUNED := -O3 -march=native
GOAMD64_TUNED := v3

# The core's and the C programs' flags after OPT. OPT and these are what
# the programs record as their build flags (RB_CFLAGS, in every result file).
CORE_CFLAGS := -g -std=gnu11 -Wall -Wextra -Wshadow -fPIC -fno-strict-aliasing
PROGRAM_INCLUDES := -Icsrc -Icsrc/runner

# One core file's own flags, after the core's. Round aspects prints the same
# bytes from every build, the tuned one included: no multiply-add may be
# fused into an FMA there. The file says so itself with a pragma, which is
# all the extension's and cgo's builds have.
csrc/aspects.c.cflags := -ffp-contract=off

# The extension's flags after Python's own CFLAGS and OPT (its RB_CFLAGS is
# all three).
EXT_CFLAGS := -std=gnu11 -fno-strict-aliasing

# A C++ source's flags after OPT (with PROGRAM_INCLUDES and its library's).
CXX_CFLAGS := -g -std=c++17 -Wall -Wextra -Wshadow

# The C tests (make test-c): AddressSanitizer and UndefinedBehaviorSanitizer.
SAN_CFLAGS := -O1 -g -std=gnu11 -Wall -Wextra -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
# The C test of calls from several threads at once (csrc/tests/test_threads.c)
# again under ThreadSanitizer, which ASan cannot run beside.
TSAN_CFLAGS := -O1 -g -std=gnu11 -Wall -Wextra -fsanitize=thread -fno-omit-frame-pointer
# The fuzz targets (csrc/fuzz/, make fuzz): the sanitizer build's flags and
# these, clang's libFuzzer.
FUZZ_SAN_CFLAGS := -fsanitize=fuzzer

# ---- The BLAS -------------------------------------------------------------
# The OpenBLAS of the scipy-openblas64 package (docs/rounds/matmul.md, "The BLAS"), which
# the core dlopen()s on first use, so nothing links it: its symbols carry
# this prefix and suffix and take 64-bit integers. BLAS_LIB_FILE is its
# file, RB_BLAS_DEFAULT_LIB's name in the folder each build chooses.
# go/cgo.go repeats the macros (cgo takes its flags from the source);
# tests/test_build.py holds it to these.
BLAS_MACROS := -DBLAS_SYMBOL_PREFIX=scipy_ -DBLAS_SYMBOL_SUFFIX=64_ -DBLAS_ILP64
BLAS_LIB_FILE := libscipy_openblas64_.so
BLAS_LIBS := -ldl
# What a program that contains the core links besides the BLAS's.
CORE_LIBS := -lpthread -lm

# ---- The C programs -------------------------------------------------------
# C_PROGRAMS are built by both builds (make into build/, setup.py into an
# installed package's roundbench/bin/); C_TOOLS by make alone. Per program:
#
#   NAME.src      its sources, in link order; a pattern is expanded in place
#                 (sorted), and must match a file
#   NAME.link     how it holds the core:
#                   core    the core's static archive (the members it uses)
#                   shared  libroundbench.so, found beside it ($ORIGIN)
#                   static  linked all static (-static), the core's archive
#                   none    no core
#   NAME.library  a pkg-config package it needs: its flags go to the C++
#                 sources (the ones that include its header), and the C++
#                 compiler links the program
#   NAME.debian   the Debian package that has that library
#
# C_OPTIONAL are left out, with the reason, where they cannot be built: make
# skips a program whose library pkg-config does not find; setup.py skips any
# of them that fails (static linking needs the C library's static archive)
# and writes why into bin/unbuilt.txt for roundbench.runtimes.programs to report.
C_PROGRAMS := rb-c rb-c-so rb-c-static rb-spawn rb-load hello-c hello-c-static aspects-c rb-c-simdjson
C_TOOLS := rb-jsonl-speed
C_OPTIONAL := rb-c-static hello-c-static rb-c-simdjson

# The C child runner: csrc/runner/harness.c is the timing loop, each
# run_<round>.c registers its round.
rb-c.src := csrc/runner/*.c
rb-c.link := core
# The same runner calling the core through the shared library's PLT (round
# ffi, variant c-so).
rb-c-so.src := csrc/runner/*.c
rb-c-so.link := shared
# The same runner linked statically: round startup's launcher, whose own
# small peak RSS is the floor under every program it starts, and round
# aspects' launcher.
rb-c-static.src := csrc/runner/*.c
rb-c-static.link := static
# The runner's launcher: each child forked from it reports its own peak RSS
# (its fork/exec/wait4 is the C runner's own).
rb-spawn.src := csrc/tools/spawn.c csrc/runner/forkwait.c
rb-spawn.link := none
# Round http's fixed-rate load generator.
rb-load.src := csrc/tools/loadgen.c
rb-load.link := none
# Round startup's C hello-world, dynamic and static.
hello-c.src := csrc/tools/hello.c
hello-c.link := none
hello-c-static.src := csrc/tools/hello.c
hello-c-static.link := static
# Round aspects' whole program in C (its launch modes start it).
aspects-c.src := csrc/tools/aspects.c
aspects-c.link := core
# Round jsonl's c-simdjson: the C runner's main, harness and jsonl protocol
# around a counter in C++ against the system's simdjson, in a program of its
# own so that no other C child maps the library. Debian's simdjson is built
# with SIMDJSON_THREADS_ENABLED, which changes its classes' layout, so the
# file that includes simdjson.h takes pkg-config's flags.
rb-c-simdjson.src := csrc/simdjson/run_jsonl_simdjson.c csrc/runner/main.c csrc/runner/harness.c csrc/runner/jsonl_protocol.c csrc/simdjson/jsonl_simdjson.cc
rb-c-simdjson.link := core
rb-c-simdjson.library := simdjson
rb-c-simdjson.debian := libsimdjson-dev
# Round jsonl's core from memory, kernel by kernel (make jsonl-speed).
rb-jsonl-speed.src := csrc/tools/jsonl_speed.c csrc/runner/jsonl_protocol.c csrc/runner/harness.c
rb-jsonl-speed.link := core

# ---- The Go runners built apart -------------------------------------------
# A round's Go runner is go/cmd/rb-go/<round>/ built as rb-go-<round> (found
# from the directories). These are the same directories built otherwise
# into programs of their own; the directory's build tags give each its own
# variants. NAME.package is the directory.
#
# GO_EXPERIMENT_RUNNERS are built with a Go experiment on (NAME.goexperiment):
# round jsonl's go-jsonv2. The experiment also reimplements encoding/json on
# v2, so the plain go variant keeps its own binary.
GO_EXPERIMENT_RUNNERS := rb-go-jsonl-v2
rb-go-jsonl-v2.package := go/cmd/rb-go/jsonl
rb-go-jsonl-v2.goexperiment := jsonv2
#
# GO_LIBRARY_RUNNERS are built with a tag (NAME.tag) against a C library
# that pkg-config finds (NAME.library, in NAME.debian): its link flags and a
# run path to its folder go into CGO_LDFLAGS. The run path pins the build
# the program linked, where Debian's alternatives switch among several.
# Round matmul's go-gonum-netlib: gonum's netlib binding calls cblas_dgemm
# with C ints, which the core's scipy-openblas64 (ILP64, renamed symbols)
# lacks; OpenBLAS starts its threads when it is loaded, so no other child
# may carry it.
GO_LIBRARY_RUNNERS := rb-go-matmul-netlib
rb-go-matmul-netlib.package := go/cmd/rb-go/matmul
rb-go-matmul-netlib.tag := netlib
rb-go-matmul-netlib.library := openblas
rb-go-matmul-netlib.debian := libopenblas-pthread-dev
#
# GO_BUILD_RUNNERS are built by the standard toolchain with its own speed
# options, and otherwise as the round's own runner is (cgo included, so
# that a twin's peak RSS and start-up are its base variant's): profile-
# guided optimisation from NAME.pgo (a profile kept in the repository,
# go/pgo/<round>.pgo, which `make pgo-profiles` refreshes; outside the
# package directories, where go build's default -pgo=auto would find a
# default.pgo and give it to the round's own runner too) and the amd64
# level NAME.goamd64 (v1, Go's default, where absent, whatever TUNE says).
# They are tagged rbtwin, and such a build lists and runs only the twins of
# the variants its round declares with harness.Twin, named from its own
# build information: go-pgo, go-v3, go-pgo-v3 for go.
GO_BUILD_RUNNERS := rb-go-loop-pgo rb-go-loop-v3 rb-go-loop-pgo-v3 rb-go-temps-pgo rb-go-temps-v3 rb-go-temps-pgo-v3 rb-go-jsonl-pgo rb-go-jsonl-v3 rb-go-jsonl-pgo-v3 rb-go-aspects-pgo rb-go-aspects-v3 rb-go-aspects-pgo-v3
rb-go-loop-pgo.package := go/cmd/rb-go/loop
rb-go-loop-pgo.pgo := go/pgo/loop.pgo
rb-go-loop-v3.package := go/cmd/rb-go/loop
rb-go-loop-v3.goamd64 := v3
rb-go-loop-pgo-v3.package := go/cmd/rb-go/loop
rb-go-loop-pgo-v3.pgo := go/pgo/loop.pgo
rb-go-loop-pgo-v3.goamd64 := v3
rb-go-temps-pgo.package := go/cmd/rb-go/temps
rb-go-temps-pgo.pgo := go/pgo/temps.pgo
rb-go-temps-v3.package := go/cmd/rb-go/temps
rb-go-temps-v3.goamd64 := v3
rb-go-temps-pgo-v3.package := go/cmd/rb-go/temps
rb-go-temps-pgo-v3.pgo := go/pgo/temps.pgo
rb-go-temps-pgo-v3.goamd64 := v3
rb-go-jsonl-pgo.package := go/cmd/rb-go/jsonl
rb-go-jsonl-pgo.pgo := go/pgo/jsonl.pgo
rb-go-jsonl-v3.package := go/cmd/rb-go/jsonl
rb-go-jsonl-v3.goamd64 := v3
rb-go-jsonl-pgo-v3.package := go/cmd/rb-go/jsonl
rb-go-jsonl-pgo-v3.pgo := go/pgo/jsonl.pgo
rb-go-jsonl-pgo-v3.goamd64 := v3
rb-go-aspects-pgo.package := go/cmd/rb-go/aspects
rb-go-aspects-pgo.pgo := go/pgo/aspects.pgo
rb-go-aspects-v3.package := go/cmd/rb-go/aspects
rb-go-aspects-v3.goamd64 := v3
rb-go-aspects-pgo-v3.package := go/cmd/rb-go/aspects
rb-go-aspects-pgo-v3.pgo := go/pgo/aspects.pgo
rb-go-aspects-pgo-v3.goamd64 := v3
# The tags of the builds above (the build twins' and the profiling copy of
# a round's runner that scripts/pgo-profiles.sh builds); go/internal/harness
# holds the same names (TwinTag, ProfileTag).
GO_TWIN_TAG := rbtwin
GO_PROFILE_TAG := rbprofile

# ---- Fuzz targets ---------------------------------------------------------
# csrc/fuzz/<target>.c: one libFuzzer target per parser of untrusted bytes
# (docs/fuzzing.md). The Makefile builds each with clang, libFuzzer, ASan and
# UBSan from its source and NAME.src (the core files it drives) into
# build/fuzz/<target>; scripts/fuzz.sh runs them with inputs of at most
# NAME.max_len bytes; tests/test_fuzz.py holds csrc/fuzz/ and the committed
# corpora (testdata/fuzz/<target>/) to this list.
FUZZ_TARGETS := http_request jsonl_kernels jsonl_line aspects_input
http_request.src := csrc/http.c csrc/common.c
http_request.max_len := 4096
jsonl_kernels.src := csrc/jsonl.c csrc/common.c
jsonl_kernels.max_len := 8192
jsonl_line.src := csrc/fuzz/jsonl_reference.c csrc/jsonl.c csrc/common.c
jsonl_line.max_len := 4096
aspects_input.src := csrc/aspects.c csrc/common.c
aspects_input.max_len := 8192
