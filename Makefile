# Top-level driver: CMake for the tool and tests, Kbuild for the module, the QEMU lab.
#   make            build rdmastat (build/rdmastat)
#   make module     build rdmastat.ko and rdmastat_kping.ko against the lab kernel (KBUILD=, KSRC= for another)
#   make demo       boot the lab, start rping over siw and rxe, show rdmastat's views
#   make check      every test, in timed stages run side by side (scripts/check.sh):
#                   dependencies, the gcc build and its unit tests, make sanitize,
#                   Prometheus, and each kernel's lab, DKMS and Debian packages (the
#                   trixie package build is make check-suite's build and unit tests,
#                   with -Werror); the stage table is kept in build/check-times.txt
#   make check-matrix  make check plus the lanes of Debian's newest kernel (sid) and of
#                   the debug kernel (Debian 13's source with KASAN and lockdep)
#   make unit       the gcc build and its unit tests, no lab (the inner loop)
#   make check-suite  the tool and unit tests in a debootstrapped Debian root
#                   (SUITE=trixie by default; tests/suites/check.sh)
#   make sanitize   build-asan: clang, ASan+UBSan, libFuzzer targets; unit tests, then
#                   each fuzzer for its fixed number of executions (about 20 s of a
#                   core), or for FUZZ_SECONDS if set; make asan-build only builds
#   make fixtures   refresh tests/fixtures from the lab kernel (kernels/X.Y/ for
#                   RDMASTAT_LAB_SUITE=trixie or sid)
#   make bench      the scale benchmark (bench/run.sh): rdmastat against raw NLDEV dumps
#                   and rdma at 1k and 10k cm_ids, and a 1M-connection snapshot
#                   and one Prometheus scrape of 10000 cm_ids from a snapshot, and
#                   serve's scrape latency with and without 1000 idle connections
#   make bench-ping rdmastat ping against ib_write_bw, ib_write_lat and rping
#   make bench-events -E's collector under connection churn: lost events, delay,
#                   CPU against polling (bench/events-run.sh)
# Every build compiles through ccache when it is installed (scripts/install-deps.sh
# installs it), keyed on paths relative to the tree, so a fresh clone hits it too.
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_SECONDS ?=
CMAKE_FLAGS ?=

.PHONY: all deps configure build module demo check check-matrix check-suite unit sanitize asan-build fixtures bench bench-ping bench-events clean

all: build

deps:
	scripts/install-deps.sh
	tests/lab/lab.sh deps

# Where dpkg-buildflags exists, the build is compiled as debian/rules compiles
# the package (hardening=+all, CPPFLAGS in CXXFLAGS as debhelper's cmake does,
# CMAKE_BUILD_TYPE=None): the lab tests the tool as users get it, and a package
# build with the host's compiler hits this build's ccache (tests/deb/check.sh).
$(BUILD)/build.ninja:
	set -e; type=; \
	if command -v dpkg-buildflags >/dev/null 2>&1; then \
		f() { DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get "$$1"; }; \
		export CFLAGS="$$(f CFLAGS) $$(f CPPFLAGS)" CXXFLAGS="$$(f CXXFLAGS) $$(f CPPFLAGS)" \
			LDFLAGS="$$(f LDFLAGS)"; \
		type=-DCMAKE_BUILD_TYPE=None; \
	fi; \
	cmake -S . -B $(BUILD) -G Ninja $$type -DRDMASTAT_WERROR=ON -DRDMASTAT_CCACHE=ON $(CMAKE_FLAGS)

configure: $(BUILD)/build.ninja

build: configure
	cmake --build $(BUILD)

# The lab's kernel by default (built in its suite's root, RDMASTAT_LAB_SUITE);
# on a host, KBUILD=/lib/modules/$(uname -r)/build and KSRC=<that kernel's
# source tree> (see Kbuild). Either way with the layout guard where the
# target's BTF is found (kernel/rdmastat/btf-layout.sh).
module:
	if [ -n "$${KBUILD:-}" ]; then \
		kernel/rdmastat/btf-layout.sh btf-layout.h "$$($(MAKE) -s -C "$$KBUILD" kernelrelease)" && \
		$(MAKE) -C "$$KBUILD" M=$(CURDIR) KSRC=$${KSRC:-} RDMASTAT_BTF_LAYOUT=$(CURDIR)/btf-layout.h modules; \
	else \
		kernel/rdmastat/btf-layout.sh btf-layout.h "$$(tests/lab/lab.sh kver)" "$$(tests/lab/lab.sh kdir)" && \
		tests/lab/lab.sh kmake M=$(CURDIR) KSRC=$${KSRC:-$$(tests/lab/lab.sh ksrc)} \
			RDMASTAT_BTF_LAYOUT=$(CURDIR)/btf-layout.h modules; \
	fi

unit: build
	cd $(BUILD) && ctest --output-on-failure -L unit

# No precompiled header in the clang build: clang's is named by its absolute path
# in every compile command, so ccache would miss it in a clone in another folder.
asan-build:
	CC=clang CXX=clang++ cmake -S . -B $(ASAN_BUILD) -G Ninja -DRDMASTAT_WERROR=ON \
		-DRDMASTAT_LAB=OFF -DRDMASTAT_SANITIZE=ON -DRDMASTAT_FUZZ=ON -DRDMASTAT_CCACHE=ON \
		-DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON \
		-DRDMASTAT_FUZZ_SECONDS=$(FUZZ_SECONDS) $(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD)

sanitize: asan-build
	cd $(ASAN_BUILD) && ctest --output-on-failure -L unit -E '^layers$$'
	cd $(ASAN_BUILD) && ctest --output-on-failure -L fuzz -j2

# Every stage, timed, in lanes side by side (scripts/check.sh says how).
check:
	BUILD=$(BUILD) ASAN_BUILD=$(ASAN_BUILD) SUITE=$(SUITE) scripts/check.sh

# make check plus the lab, DKMS and module build on Debian's newest kernel (sid),
# and the debug kernel's build and lab (tests/lab/sh/debug.sh, tests/lab/debug/).
check-matrix:
	BUILD=$(BUILD) ASAN_BUILD=$(ASAN_BUILD) SUITE=$(SUITE) scripts/check.sh --matrix

# Only what the demo runs: the tool, its helper and two lab programs (a TCP
# service, a rejecting rdma_cm server); no unit tests, no kernel module.
demo_bins = rdmastat rdmastat-full rdmastat-bind rdmastat-reject
demo: deps
	$(MAKE) configure
	cmake --build $(BUILD) --target $(demo_bins)
	tests/lab/lab.sh prepare
	tests/lab/lab.sh run --out $(BUILD)/demo $(foreach b,rdmastat rdmastat-bind rdmastat-reject,--bin $(BUILD)/$(b)) \
		tests/lab/scenarios/demo.sh
	cat $(BUILD)/demo/demo.log

# The tool and its unit tests built and run in a debootstrapped root of another
# Debian release (tests/suites/check.sh): trixie's gcc 14 and Catch2 3.
SUITE ?= trixie
check-suite:
	tests/suites/check.sh $(SUITE) $(BUILD)/suite-$(SUITE)

fixtures: deps
	$(MAKE) build
	tests/lab/lab.sh prepare
	tests/lab/lab.sh run --out $(BUILD)/capture --bin $(BUILD)/rdmastat \
		--bin $(BUILD)/rdmastat-capture --bin $(BUILD)/rdmastat-cmids tests/lab/scenarios/capture.sh
	# Bytes, referee output, owners and snapshot were taken together: keep them together.
	# Debian 12's kernel fills tests/fixtures; another suite's fills kernels/X.Y.
	set -e; suite=$${RDMASTAT_LAB_SUITE:-bookworm}; dest=tests/fixtures; \
	if [ "$$suite" != bookworm ]; then \
		dest=tests/fixtures/kernels/$$(tests/lab/lab.sh kver | cut -d. -f1,2); fi; \
	mkdir -p $$dest; cp $(BUILD)/capture/fixtures/* $$dest/; echo "fixtures -> $$dest"

bench: deps
	$(MAKE) build
	tests/lab/lab.sh prepare
	BUILD=$(BUILD) bench/run.sh
	tests/prometheus/bench.sh $(BUILD)/rdmastat $(BUILD)/rdmastat-timeit
	tests/serve/bench.sh $(BUILD)/rdmastat $(BUILD)/rdmastat-flood

bench-ping: deps
	$(MAKE) build
	tests/lab/lab.sh prepare
	RDMASTAT_LAB_SCENARIO_TIMEOUT=1500 RDMASTAT_LAB_TIMEOUT=1800 \
		tests/lab/lab.sh run --out $(BUILD)/bench-ping --bin $(BUILD)/rdmastat \
		--bin $(BUILD)/rdmastat-timeit tests/lab/scenarios/pingbench.sh
	cat $(BUILD)/bench-ping/pingbench.log

bench-events: deps
	$(MAKE) build
	tests/lab/lab.sh prepare
	BUILD=$(BUILD) bench/events-run.sh

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
	rm -f rdmastat.ko rdmastat.o rdmastat.mod rdmastat.mod.c Module.symvers modules.order \
		rdmastat_kping.ko rdmastat_kping.o rdmastat_kping.mod rdmastat_kping.mod.c \
		kernel/*/*.o .*.cmd kernel/*/.*.cmd
