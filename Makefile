# The whole set-up on a fresh Debian machine is `make demo` or `make test`; every target installs
# what is missing first (scripts/install-deps.sh is idempotent and quiet when nothing is missing).
BUILD       ?= build
BUILD_ASAN  ?= build-asan
BUILD_FUZZ  ?= build-fuzz
JOBS        ?= $(shell nproc)
FUZZ_SECONDS ?= 60
CMAKE_FLAGS ?=
PREFIX      ?= /usr/local

.PHONY: all deps build build-cli test test-engines test-trino demo bench fuzz sanitize clean install wheel

all: build

deps:
	@scripts/install-deps.sh

# Configured again whenever CMakeLists.txt or the venv changed (a build configured before the venv
# existed would leave the Python module out).
$(BUILD)/build.ninja: CMakeLists.txt $(wildcard .venv/.requirements.sha256)
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: deps
	@$(MAKE) --no-print-directory $(BUILD)/build.ninja
	ninja -C $(BUILD) -j $(JOBS)

# Only what the demo runs: the Debian packages that build the CLI, and the CLI.
build-cli:
	@scripts/install-deps.sh --cli
	@$(MAKE) --no-print-directory $(BUILD)/build.ninja
	ninja -C $(BUILD) -j $(JOBS) lakeindex_cli

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) --timeout 600

# The CLI, liblakeindex.so, the headers, the CMake package and lakeindex.pc under $(PREFIX)
# (staged under $(DESTDIR) when it is set). The Python module: pip install . (docs/python.md).
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# Every version of test tables read by Spark, PyIceberg, Polars and DuckDB with their default
# settings (also in `make test`, as CTest's engines.iceberg).
test-engines: build
	cd tests/engines && PYTHONPATH=$(CURDIR)/$(BUILD)/python:$(CURDIR)/python:$(CURDIR)/python/tests \
	  LAKEINDEX_CLI=$(CURDIR)/$(BUILD)/lakeindex $(CURDIR)/.venv/bin/python -m unittest -v test_engines

# The same tables read by Trino 476 (tests/engines/test_trino.py): opt-in, not in `make test`, as
# its server is ~800 MB and needs Java >= 24 (scripts/trino.sh fetches it, pinned, into .cache/trino
# and finds the Java). One server on 127.0.0.1, a 2 GB heap.
test-trino: build
	scripts/trino.sh >/dev/null
	cd tests/engines && PYTHONPATH=$(CURDIR)/$(BUILD)/python:$(CURDIR)/python:$(CURDIR)/python/tests \
	  LAKEINDEX_CLI=$(CURDIR)/$(BUILD)/lakeindex $(CURDIR)/.venv/bin/python -m unittest -v test_trino

# A manylinux wheel in dist/, repaired by auditwheel and checked in a fresh venv (scripts/wheel.sh).
wheel: build
	scripts/wheel.sh dist

demo: build-cli
	./$(BUILD)/lakeindex demo

bench: build
	@[ -d bench/node_modules/better-sqlite3 ] && [ -d bench/node_modules/@lancedb/lancedb ] || (cd bench && npm ci --no-audit --no-fund >&2)
	bench/run.sh $(BUILD)

sanitize: deps
	cmake -S . -B $(BUILD_ASAN) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DLAKEINDEX_SANITIZE=ON -DLAKEINDEX_BENCH=OFF
	ninja -C $(BUILD_ASAN) -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir $(BUILD_ASAN) --output-on-failure -j $(JOBS) --timeout 1200

fuzz: deps
	CC=clang CXX=clang++ cmake -S . -B $(BUILD_FUZZ) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DLAKEINDEX_FUZZ=ON -DLAKEINDEX_TESTS=OFF -DLAKEINDEX_BENCH=OFF
	ninja -C $(BUILD_FUZZ) -j $(JOBS)
	scripts/run-fuzzers.sh $(BUILD_FUZZ) $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) $(BUILD_FUZZ)
