# Sluice: `make demo` runs the Playground, `make test` runs the tests.
# Both install the system packages they need first (Debian: libcurl's and zlib's headers, pkg-config).

SWIFT ?= swift
SUDO := $(shell [ "$$(id -u)" != "0" ] && command -v sudo >/dev/null && echo sudo)
FORMAT_PATHS := Package.swift Sources Tests Playground Fuzz/SluiceFuzz Benchmarks/Package.swift Benchmarks/Sources

.PHONY: deps test demo bench bench-cost bench-build docs strict tsan asan fuzz format lint clean

## Installs libcurl's and zlib's development files, pkg-config, iproute2, nginx and openssl when
## they are missing.
deps:
	@if ! pkg-config --exists libcurl 2>/dev/null; then \
		echo "Installing libcurl4-openssl-dev and pkg-config"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq libcurl4-openssl-dev pkg-config; \
	fi
	@if ! pkg-config --exists zlib 2>/dev/null; then \
		echo "Installing zlib1g-dev (gzip in SluiceTesting's MockServer)"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq zlib1g-dev pkg-config; \
	fi
	@if [ ! -x /usr/sbin/nginx ] || ! command -v openssl >/dev/null 2>&1; then \
		echo "Installing nginx-light and openssl (the HTTP/2 tests run a real nginx over TLS)"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq nginx-light openssl \
			|| echo "nginx or openssl could not be installed: the HTTP/2 tests will be skipped"; \
	fi
	@if ! command -v ip >/dev/null 2>&1; then \
		echo "Installing iproute2 (the reachability tests make a network namespace with ip)"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq iproute2; \
	fi

## Runs the whole test suite.
test: deps
	$(SWIFT) test

## Runs the Playground, a guided tour of Sluice.
demo: deps
	$(SWIFT) run Playground $(ARGS)

## Runs every benchmark (release build, its own package). The build plan is made afresh (a few
## seconds): SwiftPM keeps the library's file list in it, and after a file of the library was renamed
## or removed, a kept plan fails the build with "missing inputs". The benchmark's own targets are
## compiled afresh too (~20 s): after a change to the library's inlinable code (the operators, `start`),
## SwiftPM kept their objects, which went on measuring the old code.
bench: deps
	rm -f Benchmarks/.build/release.yaml
	rm -rf Benchmarks/.build/release/sluice_bench*.build Benchmarks/.build/release/BenchChild*.build
	$(SWIFT) run -c release --package-path Benchmarks sluice-bench all $(ARGS)

## Counts instructions and Swift objects per request under valgrind's callgrind (the cost suite, a
## few minutes; not part of bench) and writes them to Benchmarks/results/. Built afresh as for bench.
bench-cost: deps
	rm -f Benchmarks/.build/release.yaml
	rm -rf Benchmarks/.build/release/sluice_bench*.build Benchmarks/.build/release/BenchChild*.build
	$(SWIFT) run -c release --package-path Benchmarks sluice-bench cost $(ARGS)

## Compiles the benchmarks (a debug build, not run), so that a change to the library cannot
## leave them broken unnoticed.
bench-build: deps
	$(SWIFT) build --package-path Benchmarks

## Builds the API documentation with DocC into docs/ (open docs/index.html through a web server).
docs: deps
	$(SWIFT) package --allow-writing-to-directory docs generate-documentation --target Sluice \
		--disable-indexing --transform-for-static-hosting --output-path docs

## Builds everything with warnings treated as errors.
strict: deps
	$(SWIFT) build --build-tests --scratch-path .build-strict -Xswiftc -warnings-as-errors

## Runs the concurrency tests under the thread sanitizer: the reactive core's, and those of the
## interceptor chain, task events and transfer controls (concurrent refreshes, retries, cancellation
## and suspend/resume races). A report fails the run.
TSAN_SUITES := SluiceSignalsTests|AuthInterceptorTests|RetryInterceptorTests|RedirectInterceptorTests
TSAN_SUITES := $(TSAN_SUITES)|TaskEventTests|RequestTaskTests|ChainRegressionTests|OfflineRetryInterceptorTests
TSAN_SUITES := $(TSAN_SUITES)|InterceptorChainTests|RedirectHandOffTests|MetricsAggregatorTests|TransferControlRaceTests
TSAN_SUITES := $(TSAN_SUITES)|ChainResponse|CommandQueueTests|SuspensionRaceTests|ResponseBodyStreamTests
TSAN_SUITES := $(TSAN_SUITES)|CollectedResponseRaceTests|TransferTokenGateTests|OnePathTests|TransportExecutorTests
TSAN_SUITES := $(TSAN_SUITES)|ResponseChunksTests|StreamingChainTests|PooledHandleTests|CompletionCallbackTests|UploadVerbTests
TSAN_SUITES := $(TSAN_SUITES)|CoalescingTests|TracingInterceptorTests|MetricsInterceptorTests|RecordReplayTests
TSAN_SUITES := $(TSAN_SUITES)|OpenAPITransportTests|ReportListenerTests|ResponseChunksTapTests|CacheStreamedBodyTests
TSAN_SUITES := $(TSAN_SUITES)|RequestProducerRestartTests
TSAN_SUITES := $(TSAN_SUITES)|CookieJarTests|CacheStoreTests|CacheFreshnessTests|DownloadTests|DownloadResumeTests
TSAN_SUITES := $(TSAN_SUITES)|EventStreamTests|HARRecorderTests|TLSCloseNotifyTests
tsan: deps
	TSAN_OPTIONS=halt_on_error=1 $(SWIFT) test --sanitize=thread --scratch-path .build-tsan --filter '$(TSAN_SUITES)'

## Runs the whole test suite under the address sanitizer (the exit tests' children too, and the
## namespace tests as root); a report fails the run. One test at a time: slowed by the sanitizer
## and run all at once on two cores, tests that give a transfer a few seconds ran out of them. The
## hostile-input cases run on their own, six at once as they pace themselves (one at a time they
## took five minutes). Leak detection stays off: LeakSanitizer misses Swift's tagged pointers
## (Docs/Decisions.md).
ASAN_TEST := ASAN_OPTIONS=halt_on_error=1:detect_leaks=0 $(SWIFT) test --sanitize=address --scratch-path .build-asan
asan: deps
	$(ASAN_TEST) --no-parallel --skip HostileInputTests
	$(ASAN_TEST) --filter HostileInputTests

## Fuzzes each of Sluice's own parsers for FUZZ_SECONDS (libFuzzer, with the address sanitizer),
## starting from its checked-in corpus in Fuzz/corpus/<target>. New inputs go to .build-fuzz/corpus,
## a crash's input to Fuzz/crashes/<target>-crash-<hash>, and the first crash fails the run. Replay
## one with `SLUICE_FUZZ_TARGET=<target> swift run SluiceFuzz <file>` (a plain build runs files).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= json xml binary-plist xml-plist header-block raw-header-lines media-type http-date netlink \
	multipart base-url query event-stream cache-control cache-entry cookie-file download-fields
fuzz: deps
	$(SWIFT) build --product SluiceFuzz --scratch-path .build-fuzz \
		-Xswiftc -sanitize=fuzzer,address -Xswiftc -DSLUICE_FUZZING
	@mkdir -p Fuzz/crashes
	@for target in $(FUZZ_TARGETS); do \
		echo "== fuzzing $$target for $(FUZZ_SECONDS) s"; \
		mkdir -p .build-fuzz/corpus/$$target; \
		SWIFT_BACKTRACE=enable=no SLUICE_FUZZ_TARGET=$$target .build-fuzz/debug/SluiceFuzz \
			-max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 -artifact_prefix=Fuzz/crashes/$$target- \
			.build-fuzz/corpus/$$target Fuzz/corpus/$$target || exit 1; \
	done

## Formats the sources in place with the toolchain's swift-format and the checked-in .swift-format.
format:
	$(SWIFT) format --in-place --recursive $(FORMAT_PATHS)

## Fails when a file is not formatted.
lint:
	$(SWIFT) format lint --strict --recursive $(FORMAT_PATHS)
	@# The library links FoundationEssentials only: full Foundation (and its XML, networking and
	@# internationalization parts) would load some 6 MiB more into every program that uses Sluice
	@# (Docs/Decisions.md). Scoped imports (`import struct Foundation.Date`) load it just the same.
	@! grep -rnE '^[a-z@_ ]*import +((struct|class|enum|protocol|typealias|func|var|let) +)?Foundation(XML|Networking|Internationalization)?([. ;]|$$)' \
		Sources/Sluice Sources/SluiceSignals Sources/SluiceFormats Sources/SluiceReachability \
		Sources/SluiceHTTPTypes Sources/SluiceOpenAPI Sources/SluiceTracing Sources/SluiceMetrics Sources/SluiceHAR \
		|| { echo "Sluice and SluiceSignals import FoundationEssentials, not Foundation"; exit 1; }

clean:
	rm -rf .build .build-strict .build-tsan .build-asan .build-fuzz Benchmarks/.build
