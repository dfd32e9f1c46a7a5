# The README's test command is `make test`: it installs what the tests
# need on a fresh machine (Debian's chromium, the web-client's npm
# packages, Go modules) and runs every test.
SHELL := /bin/bash
GO ?= go
CHROMIUM ?= /usr/bin/chromium
PROMETHEUS ?= /usr/bin/prometheus
PODMAN ?= /usr/bin/podman
WRK ?= /usr/bin/wrk
H2LOAD ?= /usr/bin/h2load

.PHONY: test deps vet cross quic-go-check x-net-check qpack-check go-test hit-ratio-check cache-tests web-test fuzz lab-smoke k6-test k6-smoke k6 build image image-test

# One build configuration for every go command below (tests, the binaries
# tests and scripts run, the image): the image's, static and with trimmed
# paths. Each package then compiles once per run; with the defaults, the
# image rebuilt all of Caddy a second time.
export CGO_ENABLED := 0
export GOFLAGS := $(filter-out -trimpath,$(shell $(GO) env GOFLAGS)) -trimpath

# What `make test` runs, in this order, each timed (docs/BENCHMARKS.md,
# "CI time", says where a fresh machine's time goes). Not `fuzz`: go-test
# runs the fuzz targets' seeds and saved crashers on every run, and
# fuzzing them costs 4.5 min of instrumented builds (all of Caddy again)
# for 10 s per target.
TEST_TARGETS := deps vet cross quic-go-check x-net-check qpack-check go-test hit-ratio-check cache-tests web-test lab-smoke k6-test image-test

test:
	@start=$$SECONDS; for t in $(TEST_TARGETS); do \
		s=$$SECONDS; $(MAKE) --no-print-directory $$t || exit 1; \
		echo "make test: $$t took $$((SECONDS - s)) s" >&2; \
	done; echo "make test: all took $$((SECONDS - start)) s" >&2

# Go modules: those the packages and tests of each module import (`go mod
# download` would fetch every module go.mod lists, needed or not), and
# those of the quic-go and x/net packages whose own tests quic-go-check
# and x-net-check run.
deps: $(CHROMIUM) $(PROMETHEUS) $(PODMAN) $(WRK) $(H2LOAD) web-client/node_modules/.package-lock.json modules/httpcache/cachetests/node_modules/.package-lock.json
	$(GO) list -deps -test ./... >/dev/null
	cd loadtest/k6 && $(GO) list -deps -test ./... >/dev/null
	cd .ci/crosscheck && $(GO) list -deps ./... >/dev/null
	cd third_party/quic-go && $(GO) list -deps -test . ./internal/ackhandler/ ./internal/congestion/ ./internal/protocol/ ./http3/ ./integrationtests/self/ >/dev/null
	cd third_party/x-net && $(GO) list -deps -test ./http2/ >/dev/null
	cd third_party/qpack && $(GO) list -deps -test . >/dev/null

# Debian's chromium for the browser tests, prometheus for the tests of k6's
# remote-write output and of deploy/'s Prometheus files, podman to build
# the container image, wrk and h2load (nghttp2-client) for
# hit-ratio-check. A fresh machine's unattended upgrades may hold dpkg's
# lock for a while: the install waits for it.
$(CHROMIUM) $(PROMETHEUS) $(PODMAN) $(WRK) $(H2LOAD) &:
	@if [ "$$(id -u)" != 0 ]; then echo "missing: run 'apt-get install chromium prometheus podman wrk nghttp2-client' as root" >&2; exit 1; fi
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 chromium prometheus podman wrk nghttp2-client ca-certificates >/dev/null

web-client/node_modules/.package-lock.json: web-client/package-lock.json
	cd web-client && npm ci --no-audit --no-fund

# gofmt and go vet clean (go test runs only part of vet; loadtest/k6 is
# vetted by k6-test).
vet:
	@files=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^third_party/')); [ -z "$$files" ] || { echo "gofmt: $$files" >&2; exit 1; }
	$(GO) vet ./...

# The edge builds with quic-go plus lastmile's congestion-controller hook
# (third_party/quic-go/README.md). The tree must be pristine quic-go plus
# third_party/quic-go.patch; quic-go's own tests of the packages the patch
# touches must pass; and lastmile's modules must still build against
# upstream quic-go and x/net, as xcaddy builds them without --replace.
quic-go-check:
	third_party/patched.sh check quic-go
	# quic-go's tests find their certificates by source path: no -trimpath.
	cd third_party/quic-go && GOFLAGS= $(GO) test -count=1 . ./internal/ackhandler/ ./internal/congestion/ ./internal/protocol/ ./http3/
	# quic-go's end-to-end tests over real connections, with the patch's
	# packing and copies at work; TestACKBundling expects no tail copies
	# (third_party/quic-go/README.md). TestNATRebinding leaves a keylog.
	cd third_party/quic-go && GOFLAGS= $(GO) test -count=1 -skip '^TestACKBundling$$' ./integrationtests/self/ && rm -f integrationtests/self/keylog.txt
	tmp=$$(mktemp -d) && cp go.mod $$tmp/upstream.mod && cp go.sum $$tmp/upstream.sum && \
	$(GO) mod edit -modfile=$$tmp/upstream.mod -dropreplace=github.com/quic-go/quic-go -dropreplace=golang.org/x/net -dropreplace=github.com/quic-go/qpack && \
	$(GO) mod download -modfile=$$tmp/upstream.mod github.com/quic-go/quic-go golang.org/x/net github.com/quic-go/qpack && \
	$(GO) build -modfile=$$tmp/upstream.mod ./modules/... ./internal/... ./edge && \
	LASTMILE_UPSTREAM_QUIC_GO=1 $(GO) test -count=1 -modfile=$$tmp/upstream.mod ./internal/congestion/quichook/; \
	rc=$$?; rm -rf $$tmp; exit $$rc

# HTTP/2 is served by x/net's server plus lastmile's patch
# (third_party/x-net/README.md): the tree must be pristine x/net plus
# third_party/x-net.patch, and x/net's own tests of http2 must pass.
x-net-check:
	third_party/patched.sh check x-net
	cd third_party/x-net && $(GO) test -count=1 ./http2/

# HTTP/3's QPACK has a dynamic table (third_party/qpack/README.md): the
# tree must be pristine qpack plus third_party/qpack.patch, and qpack's own
# tests must pass (its interop tests need a git submodule the module lacks).
qpack-check:
	third_party/patched.sh check qpack
	cd third_party/qpack && $(GO) test -count=1 .

# Builds wherever Caddy builds: both modules, tests included, type-checked
# for darwin, freebsd and windows (a cross build would compile all of Caddy
# once more per system: 3.7 min each on two cores, against ~15 s).
cross:
	cd .ci/crosscheck && $(GO) run . ../.. ../../loadtest/k6

modules/httpcache/cachetests/node_modules/.package-lock.json: modules/httpcache/cachetests/package-lock.json
	cd modules/httpcache/cachetests && npm ci --no-audit --no-fund

# Every package but the cache test suite's, which cache-tests runs. The
# edge's browser tests load the web-client's built bundles (dist/ is not
# committed).
go-test: web-client/dist/lastmile-subscribe.mjs
	CI=$${CI:-local} $(GO) test -count=1 -timeout 15m $$($(GO) list ./... | grep -v /modules/httpcache/cachetests$$)

# The hit path's speed, as ratios to Caddy's `respond` in the same run,
# and HTTP/3 hits against HTTP/2 hits (HTTP/1.1, HTTP/2, HTTP/3 with and
# without a QPACK table, three rounds of 2 s each, about 75 s; the floors
# and why they cannot flake are in the script).
hit-ratio-check:
	loadtest/hit-ratio-check.sh

# The public HTTP cache test suite (cache-tests.fyi) against edge_cache:
# prints the score, fails below the floor in suite_test.go, and leaves the
# results in the suite's own format in build/cache-tests/lastmile.json.
cache-tests:
	mkdir -p build/cache-tests
	set -o pipefail; CI=$${CI:-local} LASTMILE_CACHE_TESTS_OUT=$(CURDIR)/build/cache-tests/lastmile.json \
		$(GO) test -count=1 -timeout 10m -v -run '^TestCacheTestsSuite$$' ./modules/httpcache/cachetests/ | grep -v '^{"level"'

web-client/dist/lastmile-subscribe.mjs: web-client/node_modules/.package-lock.json $(wildcard web-client/src/*.ts) web-client/build.mjs
	cd web-client && npm run build

# The snippet: type check, build (failing over its 5 KB gzip budget; the
# <script> build goes to modules/rum/, which embeds it, and is committed)
# and unit tests under Node's test runner.
web-test:
	cd web-client && npm test
	git diff --exit-code -- modules/rum/lastmile-rum.min.js || { echo "modules/rum/lastmile-rum.min.js is stale: commit the rebuilt snippet" >&2; exit 1; }

# Fuzzing, when a parser changes and before a release:
#   make fuzz FUZZTIME=10m
# Every fuzz target of the tree (go-test runs their seeds and saved
# crashers on every `make test`; see the top).
FUZZTIME ?= 10s
fuzz:
	@git grep -o '^func Fuzz[A-Za-z0-9_]*' -- '*_test.go' ':!third_party' | \
	while IFS=: read -r file fn; do \
		name=$${fn#func }; dir=./$$(dirname $$file)/; \
		echo "fuzzing $$name in $$dir"; \
		$(GO) test -run='^$$' -fuzz="^$$name\$$" -fuzztime=$(FUZZTIME) $$dir || exit 1; \
	done

# The network lab's short run: one profile's self-test and page loads over
# HTTP/2 and HTTP/3 through the edge (skipped, saying why, without root).
lab-smoke:
	$(GO) run ./loadtest/cmd/netlab smoke

# k6 with lastmile's extension (HTTP/3, WebTransport), and its CI smoke
# against `lastmile demo`: seconds, a handful of VUs, thresholds enforced.
k6:
	cd loadtest/k6 && $(GO) build -o ../bin/k6 .

k6-smoke:
	loadtest/k6/smoke.sh

# The extension's own tests (real k6 against the real demo edge: the
# connection and session lifecycle, the WebTransport API, remote write to a
# real Prometheus), then the smoke.
k6-test:
	cd loadtest/k6 && $(GO) vet ./... && $(GO) test -count=1 -timeout 5m ./...
	loadtest/k6/smoke.sh

build:
	$(GO) build -o bin/lastmile ./edge

# The container image (deploy/Containerfile): a static binary, the CA
# bundle and the default Caddyfile, built with podman (vfs storage: no
# overlay mounts needed).
image:
	rm -rf build/image && mkdir -p build/image/data
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags='-s -w' -o build/image/lastmile ./edge
	cp Caddyfile /etc/ssl/certs/ca-certificates.crt build/image/
	$(PODMAN) --storage-driver vfs build -q -t lastmile:dev -f deploy/Containerfile build/image

image-test:
	deploy/image-test.sh
