# Imago: `make test` and `make bench` are the two commands; everything else supports them.
SHELL := /bin/bash
APT_PACKAGES := pkg-config libpng-dev libjpeg-dev libwebp-dev
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
RELEASE_BIN := .build/release/imago

.PHONY: deps build test bench bench-quick pillow corpus release conform

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

# Pillow is the peer the decode benchmark compares against; without it those rows say "skipped".
PILLOW_VERSION := 13.0.0
pillow:
	@python3 -c "import PIL" 2>/dev/null || python3 -m pip install --quiet "pillow==$(PILLOW_VERSION)" \
	  || echo "make pillow: Pillow could not be installed; its bench rows will be skipped"

# The benchmark harness (issue 5): every scenario, written to Reports/<UTC timestamp>/
# (results.csv, report.md, SVG charts) with Reports/latest pointing at it. Full run about
# 15 minutes on 2 cores; bench-quick about 2 minutes.
bench: release pillow
	$(RELEASE_BIN) bench --out Reports

bench-quick: release pillow
	$(RELEASE_BIN) bench --quick --out Reports

# The memory-regression gate CI runs: memory scenarios in fresh processes against the
# committed Reports/baseline.json. Exit 0 within tolerance, 2 regression, 4 improvement
# (then run bench-baseline and commit the new baseline).
.PHONY: bench-check bench-baseline
bench-check: release
	$(RELEASE_BIN) bench-check --baseline Reports/baseline.json

bench-baseline: release
	$(RELEASE_BIN) bench-baseline --baseline Reports/baseline.json

# Regenerates the committed corpus (Corpus/ and Corpus/manifest.json) deterministically.
corpus: deps
	swift run imago corpus Corpus

# The conformance matrix (every Imago configuration and every mutant) as Markdown.
conform: deps
	swift build --product imago
	.build/debug/imago conform --out Reports/conformance.md
