# The README's test command is `make test`: it installs what the tests
# need on a fresh machine (Debian's chromium, the web-client's npm
# packages, Go modules) and runs every test.
SHELL := /bin/bash
GO ?= go
CHROMIUM ?= /usr/bin/chromium
PROMETHEUS ?= /usr/bin/prometheus
PODMAN ?= /usr/bin/podman

.PHONY: test deps go-test web-test fuzz lab-smoke k6-test k6-smoke k6 build image image-test

# How long each fuzz target runs in `make test`; longer runs: make fuzz FUZZTIME=10m
FUZZTIME ?= 10s

test: deps go-test web-test fuzz lab-smoke k6-test image-test

deps: $(CHROMIUM) $(PROMETHEUS) $(PODMAN) web-client/node_modules/.package-lock.json
	$(GO) mod download

# Debian's chromium for the browser tests, prometheus for the tests of k6's
# remote-write output and of deploy/'s Prometheus files, podman to build
# the container image.
$(CHROMIUM) $(PROMETHEUS) $(PODMAN) &:
	@if [ "$$(id -u)" != 0 ]; then echo "missing: run 'apt-get install chromium prometheus podman' as root" >&2; exit 1; fi
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium prometheus podman ca-certificates >/dev/null

web-client/node_modules/.package-lock.json: web-client/package-lock.json
	cd web-client && npm ci --no-audit --no-fund

go-test:
	CI=$${CI:-local} $(GO) test -count=1 -timeout 15m ./...

# The snippet: type check, build (failing over its 5 KB gzip budget) and
# unit tests under Node's test runner.
web-test:
	cd web-client && npm test
	git diff --exit-code -- web-client/dist/lastmile-rum.min.js || { echo "web-client/dist/lastmile-rum.min.js is stale: commit the rebuilt snippet" >&2; exit 1; }

fuzz:
	$(GO) test -run='^$$' -fuzz='^FuzzParseCacheControl$$' -fuzztime=$(FUZZTIME) ./modules/httpcache/
	$(GO) test -run='^$$' -fuzz='^FuzzParseVary$$' -fuzztime=$(FUZZTIME) ./modules/httpcache/
	$(GO) test -run='^$$' -fuzz='^FuzzDecodeBeacon$$' -fuzztime=$(FUZZTIME) ./modules/rum/
	$(GO) test -run='^$$' -fuzz='^FuzzController$$' -fuzztime=$(FUZZTIME) ./internal/congestion/bbr/

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
