# Imago: `make test` and `make bench` are the two commands; everything else supports them.
SHELL := /bin/bash
# nginx: the real server the nginx integration tests start on loopback (Debian 12's `nginx` is
# the binary itself, built with gzip_static, limit_rate and proxy; the tests skip without it).
# gcc: the `cc` that `make stream-check` compiles the push decoders' plain-C checks with.
# tmux: the real terminal `imago show`'s end-to-end tests run it in (ShowTerminalTests: keys,
# resizes, the screen read back with its colours); without it they are skipped.
# openssl: the private CA and certificates the nginx HTTPS tests make (TestCertificates);
# without it those tests are skipped.
# valgrind: callgrind counts the decode rows' instructions in `make bench` (InstructionCounter),
# and the counter's tests run it; without it those rows and tests are skipped.
APT_PACKAGES := pkg-config libpng-dev libdeflate-dev libisal-dev libjpeg-dev libwebp-dev zlib1g-dev nginx openssl gcc tmux valgrind
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# The release build has a build directory of its own: SwiftPM locks a build directory for the
# whole of a command, so a release build in .build would make a `swift test` or `make docs`
# started beside it (CI's other lane, or a second terminal) wait until it is done.
RELEASE_SCRATCH := .build-release
RELEASE_BIN := $(RELEASE_SCRATCH)/release/imago

.PHONY: deps build test bench bench-quick corpus release conform conform-repeat

# Installs the codec libraries' development packages and nginx when any is missing
# (idempotent, silent when all are there). nginx's postinst starts the system service on port 80
# through invoke-rc.d (and on systemd hosts deb-systemd-invoke), which both ask
# /usr/sbin/policy-rc.d first: where there is none, a temporary one answering 101 ("action
# forbidden") is put there for the install and removed afterwards, so nothing is started, the
# install does not fail in a container without an init system, and port 80 stays free. An
# existing policy-rc.d (Docker images ship one that denies everything) is left as it is.
POLICY_RC_D := /usr/sbin/policy-rc.d
deps:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "make deps: installing$$missing"; \
	  if [ ! -e $(POLICY_RC_D) ]; then \
	    trap '$(SUDO) rm -f $(POLICY_RC_D)' EXIT; \
	    printf '#!/bin/sh\n# make deps: no service starts while packages install\nexit 101\n' \
	      | $(SUDO) tee $(POLICY_RC_D) >/dev/null && $(SUDO) chmod 755 $(POLICY_RC_D); \
	  fi; \
	  $(SUDO) apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi

build: deps
	swift build

# The suite, then the README check (below) against the executable the suite's build made.
test: deps
	swift test
	python3 Scripts/readme-check.py --imago "$$(swift build --show-bin-path)/imago"

# The documentation names only what exists: every `make X` in README.md and the DocC articles is a
# target here, every `imago SUB --flag` a subcommand and flag of the built CLI (its --help), the
# README's account of CI is .ci/run's steps in order, and every rule of Docs/phase-rules.md is in
# the conformance catalog's Rules article (Scripts/readme-check.py; seconds once imago is built).
.PHONY: readme-check
readme-check:
	swift build --product imago
	python3 Scripts/readme-check.py --imago "$$(swift build --show-bin-path)/imago"

# Both DocC catalogs (Sources/Imago/Imago.docc, Sources/ImagoConformance/ImagoConformance.docc)
# and the two other library products an adopter reads (ImagoConformanceXCTest, ImagoTestServer;
# no catalog, their symbols' comments only) through swift-docc-plugin, warnings as errors, into
# .build/plugins/Swift-DocC/outputs/. CI runs it after `make test` (under a minute once the
# suite's build is there).
# Then the doc-comment check: every public symbol of those four modules has a `///` comment of
# its own (Scripts/doc-coverage.py says which symbols count), because DocC itself renders an
# undocumented symbol without a word of complaint. It reads the symbol graphs the plugin has just
# extracted for the archives, so it adds no build of its own (under a second).
DOC_MODULES := Imago ImagoConformance ImagoConformanceXCTest ImagoTestServer
.PHONY: docs
docs:
	swift package generate-documentation $(foreach module,$(DOC_MODULES),--target $(module)) --warnings-as-errors
	python3 Scripts/doc-coverage.py $(DOC_MODULES)

# imago-bench-count: the small program the decode scenario counts instructions in under
# callgrind (InstructionCounter); it must sit beside imago.
release: deps
	swift build -c release --product imago --scratch-path $(RELEASE_SCRATCH)
	swift build -c release --product imago-bench-count --scratch-path $(RELEASE_SCRATCH)

# The peers the decode and thumbnail benchmarks compare Imago with, pinned (manylinux wheels for
# CPython 3.11 on x86_64): Pillow, libvips (pyvips with its bundled libvips, pyvips-binary),
# OpenCV, simplejpeg and libspng (through imagecodecs). Each is installed on its own, so one that
# fails prints one line and the bench goes on with that peer's rows "skipped: not installed";
# one already at its pinned version is left alone. Not needed by `make test` or CI.
PILLOW_VERSION := 13.0.0
PYVIPS_VERSION := 3.2.0
PYVIPS_BINARY_VERSION := 8.18.7
OPENCV_VERSION := 5.0.0.93
SIMPLEJPEG_VERSION := 1.9.0
IMAGECODECS_VERSION := 2026.3.6
PEER_REQUIREMENTS := pillow:pillow==$(PILLOW_VERSION) \
  libvips:pyvips-binary==$(PYVIPS_BINARY_VERSION)+pyvips==$(PYVIPS_VERSION) \
  opencv:opencv-python-headless==$(OPENCV_VERSION) simplejpeg:simplejpeg==$(SIMPLEJPEG_VERSION) \
  libspng:imagecodecs==$(IMAGECODECS_VERSION)
.PHONY: peers
peers:
	@for entry in $(PEER_REQUIREMENTS); do \
	  peer=$${entry%%:*}; packages=$$(echo $${entry#*:} | tr + ' '); \
	  python3 -m pip install --quiet --disable-pip-version-check $$packages >/dev/null 2>&1 \
	    || echo "make peers: $$peer ($$packages) could not be installed; its bench rows will be skipped"; \
	done

# The benchmark harness (issue 5): every scenario, written to Reports/<UTC timestamp>/
# (results.csv, report.md, SVG charts) with Reports/latest pointing at it. Full run about
# 18 minutes on 2 cores with the peers (stream 5, decode 4, thumbnails 3); bench-quick about 2.
bench: release peers
	$(RELEASE_BIN) bench --out Reports

bench-quick: release peers
	$(RELEASE_BIN) bench --quick --out Reports

# The memory-regression gate CI runs: memory scenarios in fresh processes against the
# committed Reports/baseline.json, plus one pressure run (300 loads, default configuration, in
# a 256 MiB memory cgroup: any OOM kill fails; skipped where no cgroup can be made). Exit 0
# within tolerance, 2 regression or failed pressure run, 4 improvement (then run bench-baseline
# and commit the new baseline).
.PHONY: bench-check bench-baseline
bench-check: release
	$(RELEASE_BIN) bench-check --baseline Reports/baseline.json

bench-baseline: release
	$(RELEASE_BIN) bench-baseline --baseline Reports/baseline.json

# Regenerates the committed corpus (Corpus/ and Corpus/manifest.json) deterministically, and the
# conformance suite's shipped images (Sources/ImagoConformance/Images: the suite serves these
# files so that it links no codec library; ConformanceTests fails when they drift from the encoders).
.PHONY: conformance-images
corpus: deps conformance-images
	swift run imago corpus Corpus

conformance-images: deps
	swift run imago conformance-images Sources/ImagoConformance/Images

# The conformance matrix (every Imago configuration and every mutant) as Markdown.
conform: deps
	swift build --product imago
	.build/debug/imago conform --out Reports/conformance.md

# The conformance products reach no C target and no system library of this package, so an adopter
# depending on ImagoConformance alone needs no codec -dev package (issue 22). Static, seconds.
.PHONY: conformance-closure
conformance-closure:
	swift package describe --type json | python3 Scripts/conformance-closure.py

# The adopter's example (issue 13): a blog-style loader and its conformance adapter in a package
# of their own (Examples/BlogLoader, depending on this one by path), with a .build of its own.
# Runs the suite against it and writes Examples/BlogLoader/blog-conformance.md; exits 0 only
# when the loader fails exactly the rules its ExpectedScore.swift lists. Then its XCTest version
# (the assertConforms snippet of the DocC article Adopting the Suite), the same checks again, a few seconds.
EXAMPLE := Examples/BlogLoader
.PHONY: example
# blog-conformance killed by a signal (status above 128) is run once more, after naming the check
# it died in (its results log): corelibs FoundationNetworking has been seen to die with a fatal
# error about once in 50 suite runs, which says nothing about the example's score. A second
# crash, or any ordinary failure (status 1: an unexpected score), fails the target.
example: deps
	swift build --package-path $(EXAMPLE) --build-tests
	@# The example stands for an app already on swift-nio 2.101.3 (issue 22): Imago's ranges must
	@# let that version win, not merely resolve.
	@grep -A6 '"identity" : "swift-nio"' $(EXAMPLE)/Package.resolved | grep -q '"version" : "2.101.3"' \
	  || { echo "make example: swift-nio did not resolve to 2.101.3 (Examples/BlogLoader/Package.resolved)"; exit 1; }
	@bin=$$(swift build --package-path $(EXAMPLE) --show-bin-path); \
	for attempt in 1 2; do \
	  $$bin/blog-conformance $(EXAMPLE)/blog-conformance.md; status=$$?; \
	  if [ $$status -le 128 ] || [ $$attempt = 2 ]; then exit $$status; fi; \
	  echo "make example: blog-conformance died (status $$status) in:"; \
	  grep '"event":"start"' $(EXAMPLE)/blog-conformance.jsonl | tail -1; \
	done
	@# The adopter's bench, short (--quick: a few seconds); its reports stay out of git.
	$$(swift build --package-path $(EXAMPLE) --show-bin-path)/blog-bench --quick $(EXAMPLE)/blog-bench-reports
	swift test --package-path $(EXAMPLE) --skip-build

# Determinism (issue 13): every Imago configuration, every rule, CONFORM_RUNS times (default 3);
# exits 1 when any verdict differs between runs (each flip is printed on stderr as
# `FLIP SHARE-4 on imago-data-memory: pass 2, fail 1`) or when a configuration fails a rule. Two
# processes side by side, each with half of the configurations (no cache and both caches; memory
# only and disk only): the checks mostly wait on gates, sockets and settle windows (a run takes
# about 4 s of CPU for each minute), so two halve the wall time for little CPU, and each verdict
# must hold with the other busy anyway. The reports go to .build/conformance-repeat-{1,2}.md and
# the results, line by line as they come, to .build/conformance-repeat-{1,2}.jsonl.
CONFORM_RUNS ?= 3
IMAGO_SUBJECTS := $(foreach strategy,data file stream,$(foreach caches,none memory disk memory+disk,imago-$(strategy)-$(caches)))
CONFORM_HALF_1 := $(foreach strategy,data file stream,$(foreach caches,none memory+disk,imago-$(strategy)-$(caches)))
CONFORM_HALF_2 := $(filter-out $(CONFORM_HALF_1),$(IMAGO_SUBJECTS))
conform-repeat: deps
	swift build --product imago
	.build/debug/imago conform --repeat $(CONFORM_RUNS) $(foreach subject,$(CONFORM_HALF_1),--subject $(subject)) \
	  --out .build/conformance-repeat-1.md --jsonl .build/conformance-repeat-1.jsonl & first=$$!; \
	.build/debug/imago conform --repeat $(CONFORM_RUNS) $(foreach subject,$(CONFORM_HALF_2),--subject $(subject)) \
	  --out .build/conformance-repeat-2.md --jsonl .build/conformance-repeat-2.jsonl; second=$$?; \
	wait $$first; first=$$?; \
	echo "conform-repeat: exit $$first ($(CONFORM_HALF_1)), $$second ($(CONFORM_HALF_2))"; \
	test $$first = 0 && test $$second = 0

# Mutation testing of Imago's own pipeline (issue 13): each planted bug is a part of the
# harness's (ImagoConformanceSubjects/PipelineMutants) given to Imago in place of its own; Imago
# has none. Each bug runs in its own process: every check once, then its own rule until
# MUTANT_RUNS runs, into Reports/mutants.md (about 30 minutes at 20 runs for generation 1's 47
# bugs; generation 2's, written blind, roughly as long again). Exit 1 unless every generation-1
# bug is caught by its rule in every run; generation 2 is measured, not required.
# MUTANT_RUNS: runs of each bug's rule (default 20).
MUTANT_RUNS ?= 20
.PHONY: mutants
mutants: deps
	swift build --product imago
	.build/debug/imago mutants --repeat $(MUTANT_RUNS) --out Reports/mutants.md

# The push decoders (issue 14) against the pull decoders, byte for byte, in plain C under ASan and
# UBSan (Scripts/stream-check: every corpus image in many piece sizes, sizes, previews, prefixes,
# invalid inputs, crafted PNG chunks; about 2 minutes). No Swift build needed.
STREAM_CHECK_FLAGS := -O1 -g -fsanitize=address,undefined
STREAM_CHECK_LIBS = $$(pkg-config --cflags --libs libjpeg libpng libwebp libwebpdemux libwebpmux zlib libdeflate libisal)
.PHONY: stream-check
stream-check: deps
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	cc $(STREAM_CHECK_FLAGS) -I Sources/CImagoCodecs/include -I Sources/CImagoCodecs Sources/CImagoCodecs/*.c \
	  Scripts/stream-check/jpeg_stream_check.c $(STREAM_CHECK_LIBS) -Wl,--wrap=calloc -o $$tmp/jpeg && \
	cc $(STREAM_CHECK_FLAGS) -I Sources/CImagoCodecs/include -I Sources/CImagoCodecs Sources/CImagoCodecs/*.c \
	  Scripts/stream-check/pngwebp_stream_check.c $(STREAM_CHECK_LIBS) -o $$tmp/pngwebp && \
	$$tmp/jpeg Corpus && $$tmp/pngwebp Corpus

# The PNG fast path (issue 27) against libpng alone, byte for byte, in plain C under ASan and UBSan
# (Scripts/png-fast-check: every corpus PNG and invalid file, synthesised RGB/RGBA files with
# every filter, zlib window and IDAT split, each mutated; both forms of the fast path, the row path
# from memory and from a file, at full size and a third; about 45 s), and the known difference
# (Scripts/png-fast-check/known: Reports/fuzz-findings/png-fast-bit-length-repeat.bin with its
# CRCs fixed), which it must count apart, not as a mismatch; and the 26 PngSuite images pypng ships
# (Scripts/png-fast-check/pngsuite). PNG_FAST_DIRS: extra directories of PNGs (e.g. a whole PngSuite
# checkout), default none.
PNG_FAST_DIRS ?=
PNG_FAST_SOURCES = -I Sources/CImagoCodecs/include -I Sources/CImagoCodecs Sources/CImagoCodecs/*.c
.PHONY: png-fast-check png-fast-fuzz
png-fast-check: deps
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	cc $(STREAM_CHECK_FLAGS) $(PNG_FAST_SOURCES) Scripts/png-fast-check/png_fast_check.c $(STREAM_CHECK_LIBS) \
	  -o $$tmp/check && $$tmp/check Corpus Scripts/png-fast-check/known Scripts/png-fast-check/pngsuite $(PNG_FAST_DIRS)

# The same comparison under libFuzzer (the toolchain's clang, ASan): PNG_FAST_RUNS executions
# (default 1000000; inputs up to 8 KiB, headers up to 16384 pixels, so a run takes minutes), corpus in Reports/fuzz/png-fast, seeded from Corpus/png,
# the PngSuite images and the check's synthesised files; a mismatch aborts and leaves Reports/fuzz/png-fast-artifacts/crash-*.
PNG_FAST_RUNS ?= 1000000
png-fast-fuzz: deps
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; mkdir -p $(FUZZ_WORK)/png-fast $(FUZZ_WORK)/png-fast-artifacts; \
	cc -O1 $(PNG_FAST_SOURCES) Scripts/png-fast-check/png_fast_check.c $(STREAM_CHECK_LIBS) -o $$tmp/check && \
	mkdir $$tmp/seeds && $$tmp/check --seeds $$tmp/seeds && \
	clang -O1 -g -fsanitize=fuzzer,address $(PNG_FAST_SOURCES) Scripts/png-fast-check/png_fast_fuzz.c $(STREAM_CHECK_LIBS) \
	  -o $$tmp/fuzz && \
	$$tmp/fuzz -runs=$(PNG_FAST_RUNS) -max_len=8192 -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
	  -artifact_prefix=$(FUZZ_WORK)/png-fast-artifacts/ $(FUZZ_WORK)/png-fast Corpus/png Scripts/png-fast-check/pngsuite \
	  $$tmp/seeds

# --- Reliability (issue 6): fuzzing, sanitizers, soak ------------------------------------
# The fuzz targets live in their own package (Fuzz/) so the main package carries no sanitizer
# flags; both Imago's Swift code and the CImagoCodecs shim are instrumented. The codec
# libraries themselves are Debian's (not instrumented): the targets exercise Imago's handling
# of whatever they report.
# Which target `make fuzz` runs (default png) and for how long (default 60 seconds). MODE=chunked
# feeds each input to the push decoders in pseudo-random pieces and checks the result equals the
# one-shot decode's (default: the one-shot checks); its corpus and artifacts are kept apart.
FORMAT ?= png
SECONDS ?= 60
MODE ?= oneshot
FUZZ_SCRATCH := $(CURDIR)/.build-fuzz
# `--sanitize fuzzer` tells SwiftPM to link libFuzzer's main (instead of the executable's own);
# the combined -sanitize= for swiftc comes last because the Swift driver keeps only the last one
# given (SwiftPM's `--sanitize fuzzer --sanitize address` would drop coverage from Swift code).
FUZZ_FLAGS := --package-path Fuzz --scratch-path $(FUZZ_SCRATCH) -c release --sanitize fuzzer \
  -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=address
FUZZ_WORK := Reports/fuzz
FUZZ_SEEDS_png := Corpus/png
FUZZ_SEEDS_jpeg := Corpus/jpeg
FUZZ_SEEDS_webp := Corpus/webp
FUZZ_SEEDS_decode := Corpus/png Corpus/jpeg Corpus/webp Corpus/invalid
# 64 KiB inputs, 2 GiB RSS, 10 s per input; extra libFuzzer flags via FUZZ_ARGS.
FUZZ_ARGS ?=

.PHONY: fuzz-build fuzz test-sanitized test-asan test-tsan soak

fuzz-build: deps
	swift build $(FUZZ_FLAGS)

# make fuzz FORMAT=png|jpeg|webp|decode SECONDS=N [MODE=chunked]: grows Reports/fuzz/FORMAT
# (FORMAT-chunked in the chunked mode; seeded from Corpus/ and, chunked, the one-shot corpus too),
# crash inputs go to Reports/fuzz/FORMAT[-chunked]-artifacts/. The decode target's file path
# rewrites a scratch file per input, on tmpfs when there is one (measured 3x faster than ext4 here).
FUZZ_DIR = $(FORMAT)$(if $(filter chunked,$(MODE)),-chunked,)
FUZZ_EXTRA_SEEDS = $(if $(filter chunked,$(MODE)),$(wildcard $(FUZZ_WORK)/$(FORMAT)),)
fuzz: fuzz-build
	@case "$(FORMAT)" in png|jpeg|webp|decode) ;; *) echo "FORMAT must be png, jpeg, webp or decode"; exit 2;; esac
	@case "$(MODE)" in oneshot|chunked) ;; *) echo "MODE must be oneshot or chunked"; exit 2;; esac
	mkdir -p $(FUZZ_WORK)/$(FUZZ_DIR) $(FUZZ_WORK)/$(FUZZ_DIR)-artifacts
	scratch=$$([ -d /dev/shm ] && echo /dev/shm || echo $(CURDIR)/$(FUZZ_WORK))/imago-fuzz-$(FORMAT)-$$$$.bin; \
	IMAGO_FUZZ_MODE=$(MODE) IMAGO_FUZZ_SCRATCH=$$scratch $$(swift build $(FUZZ_FLAGS) --show-bin-path)/fuzz-$(FORMAT) \
	  -max_total_time=$(SECONDS) -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
	  -print_final_stats=1 -artifact_prefix=$(FUZZ_WORK)/$(FUZZ_DIR)-artifacts/ $(FUZZ_ARGS) \
	  $(FUZZ_WORK)/$(FUZZ_DIR) $(FUZZ_SEEDS_$(FORMAT)) $(FUZZ_EXTRA_SEEDS); \
	status=$$?; rm -f $$scratch; exit $$status

# The whole suite under AddressSanitizer and, separately, ThreadSanitizer, each in its own
# build directory (a sanitized build shares nothing with the plain one). Leak checking is off
# under ASan: at exit LeakSanitizer reports what the test harness itself keeps (XCTest holds
# every test case and its fixtures until exit, NIO's event loop threads, libcurl inside
# corelibs' URLSession, Swift weak-reference side tables). The decoders' leaks are checked per
# input by the fuzz targets; the soak counts descriptors, files and connections.
# ASan's quarantine holds freed memory, so the soak's resident-memory margin is widened.
test-asan: deps
	ASAN_OPTIONS="detect_leaks=0 $${ASAN_OPTIONS:-}" IMAGO_SOAK_RESIDENT_MARGIN_MB=512 \
	  swift test --sanitize=address --scratch-path .build-asan

# Scripts/tsan-suppressions.txt says why reports inside `Mutex.withLock` bodies are dropped (a
# toolchain limitation, not a race); child processes of the crash tests inherit TSAN_OPTIONS.
# Skipped here, each run by `make test` (the decoders also under ASan by `make stream-check`):
# - every toy mutant through every check (MutantSelfTests, 2.5 minutes under TSan). It asks
#   whether the suite catches bugs planted in the toy loader, test code; the same checks run here
#   against the bug-free toy, which is where a race in the harness would show;
# - nine of the twelve Imago configurations of ImagoConformanceTests (2 minutes under TSan): the
#   three kept, one per fetch strategy with both caches, run every path of the other nine (a
#   fetch and decode, memory hits and inserts, disk hits and stores) and where they meet;
# - the corpus decoded whole and in every split (CorpusTests, StreamingDecoderTests: 37 s under
#   TSan): one thread each, nothing for TSan to find.
TSAN_SKIPS := 'MutantSelfTests/testEveryMutantIsCaughtByExactlyItsRules' \
  'ImagoConformanceTests/test(DataTask|Streaming|DownloadToFile)(NoCache|MemoryCache|DiskCache)$$' \
  'CorpusTests/testEveryValidFileDecodesToItsExpectation' \
  'StreamingDecoderTests/testEveryValidImageDecodesTheSameInAnyPieces'
test-tsan: deps
	TSAN_OPTIONS="suppressions=$(CURDIR)/Scripts/tsan-suppressions.txt $${TSAN_OPTIONS:-}" \
	IMAGO_SOAK_DESCRIPTOR_SLACK=4 \
	  swift test --sanitize=thread --scratch-path .build-tsan $(addprefix --skip ,$(TSAN_SKIPS))

test-sanitized: test-asan test-tsan

# The long versions of the suite's soak and crash tests: 2,000 seeded loads through the fault
# server and 200 SIGKILL rounds (the suite itself runs 200 and 24).
soak: deps
	IMAGO_SOAK_LOADS=2000 IMAGO_CRASH_ROUNDS=200 \
	  swift test --filter 'HTTPFaultSoakTests|DiskCacheKillTests'
