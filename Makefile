# Imago: `make test` and `make bench` are the two commands; everything else supports them.
SHELL := /bin/bash
APT_PACKAGES := pkg-config libpng-dev libjpeg-dev libwebp-dev
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
RELEASE_BIN := .build/release/imago

.PHONY: deps build test bench corpus release

# Installs the codec libraries' development packages when any is missing (idempotent).
deps:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "make deps: installing$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi

build: deps
	swift build

test: deps
	swift test

release: deps
	swift build -c release --product imago

# Decode benchmark over the corpus and generated large inputs (the full harness is issue 5).
bench: release
	$(RELEASE_BIN) bench

# Regenerates the committed corpus (Corpus/ and Corpus/manifest.json) deterministically.
corpus: deps
	swift run imago corpus Corpus
