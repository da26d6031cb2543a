# warmsched — the two commands a new user needs (see README.md):
#   make run    install what is missing, build, run the default experiment
#   make test   install what is missing, build, run the test suite
# Other targets: make build, make test-asan (the suite under ASan and UBSan), make bench,
# make validate-published (the model against the published tables,
# docs/validation.md section 10; about an hour on 2 cores), make fuzz (the libFuzzer harnesses of fuzz/,
# FUZZ_SECONDS per harness, default 3600; docs/validation.md section 11), make format, make clean,
# make deps (the Debian packages, and the Debian kernels `warmsched twin` boots).
# `make test` ends with the fuzz regression run: every harness over its seed corpus, each input once.
BUILD ?= build
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 3600
FUZZ_SMOKE_SECONDS ?= 0
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
# CI builds with warnings as errors.
ifneq ($(CI),)
CMAKE_FLAGS += -DWARMSCHED_WERROR=ON
endif
DEB_PACKAGES := g++ make cmake pkg-config libsystemc-dev libyaml-cpp-dev libboost-graph-dev \
                catch2 libcli11-dev nlohmann-json3-dev gnuplot-nox libhwloc-dev hwloc libprotobuf-dev \
                protobuf-compiler clang libsqlite3-dev slurm-wlm munge time
# warmsched twin: QEMU, the guest's initramfs (busybox-static, cpio) and the real tools it runs there.
TWIN_PACKAGES := qemu-system-x86 busybox-static cpio rt-tests linux-perf fio rt-app dbench make gcc binutils
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test test-asan build deps bench validate-published fuzz fuzz-build format clean

run: build
	./$(BUILD)/warmsched run configs/experiments/default.yaml

test: build fuzz-build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	sh fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SMOKE_SECONDS)

# The harnesses, in their own tree: clang, libFuzzer, ASan and UBSan over every layer they reach.
fuzz-build: deps
	cmake -S . -B $(FUZZ_BUILD) -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DWARMSCHED_FUZZ=ON -DWARMSCHED_BUILD_TESTS=OFF -DWARMSCHED_BUILD_BENCH=OFF
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_harnesses

# The suite under AddressSanitizer and UBSan (docs/validation.md section 11): a RelWithDebInfo tree of its
# own; undefined behaviour stops the process (halt_on_error), so a test that meets it fails.
test-asan: deps
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWARMSCHED_SANITIZE=ON -DWARMSCHED_BUILD_BENCH=OFF
	cmake --build build-asan -j $(JOBS)
	@sh twin/guest/fetch-kernels.sh build-asan/twin/kernels
	cd build-asan && UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
	  ctest --output-on-failure -j $(JOBS)

fuzz: fuzz-build
	sh fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)

deps:
	@missing=""; for p in $(DEB_PACKAGES) $(TWIN_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y $$missing; \
	fi
	@# The Debian kernels the twin boots, unpacked next to the binary (twin/guest/fetch-kernels.sh).
	@sh twin/guest/fetch-kernels.sh $(BUILD)/twin/kernels

bench: build
	SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 ./$(BUILD)/bench/cache_throughput zen3-5950x 20
	./$(BUILD)/bench/queue_cost zen3-5950x
	/usr/bin/time -f "c2c genoa-9654-2s 1000 pairs: %e s wall, %M KiB max RSS" ./$(BUILD)/warmsched probe c2c --platform genoa-9654-2s --sample 1000 --summary > /dev/null
	/usr/bin/time -f "hackbench -p -g 10 -l 100: %e s wall, %M KiB max RSS" ./$(BUILD)/warmsched run --force --out $(BUILD)/bench-results/hb100 -- hackbench -p -g 10 -l 100 > /dev/null
	/usr/bin/time -f "hackbench -p -g 10 -l 1000: %e s wall, %M KiB max RSS" ./$(BUILD)/warmsched run --force --out $(BUILD)/bench-results/hb1000 -- hackbench -p -g 10 -l 1000 > /dev/null
	SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 /usr/bin/time -f "%e s wall, %M KiB max RSS" ./$(BUILD)/bench/cpu_hogs zen3-5950x 32 4 10 1.0 8

validate-published: build
	bash bench/published/validate.sh --build $(BUILD) -j $(JOBS)

format:
	clang-format -i $$(git ls-files '*.h' '*.cpp')

clean:
	rm -rf $(BUILD) $(FUZZ_BUILD)
