# stationdb: `make` builds Japan's station bundle from raw/ into dist/;
# `make test` runs the tests. Paths may be overridden from anywhere, e.g.
#   make -f /path/to/stationdb/Makefile RAW=/data/raw DIST=/srv/dist
ROOT  := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
RAW   ?= $(ROOT)/raw
BUILD ?= $(ROOT)/build
DIST  ?= $(ROOT)/dist
# Seed of the machine weights' random picks: changing it reshuffles the country.
SEED  ?= 20240401
# Empty: the next version after $(DIST)/latest.json (1 for an empty dist).
VERSION ?=
# Before publishing, `stationdb build` diffs the new bundle against the published one
# and refuses (exit 4, nothing published) when a guard is exceeded: defaults
# --max-removed 2 --max-disabled 2 --max-moved-m 5000 --max-weight-churn 10 (percent,
# metres); see `stationdb build --help`. GUARDS overrides some, e.g.
#   make GUARDS="--max-removed 5"
# Set FORCE_PUBLISH=1 to publish a big intended change the guards refuse.
GUARDS ?=
FORCE_PUBLISH ?=

# Recipes go through /bin/sh, and the file lists below come from make's own
# wildcard, not `find` in a shell: make then runs a plain command line itself,
# without a shell. Each process started costs milliseconds here, and a whole
# national `make` is a few hundred of them.
export PATH := $(PATH):/opt/swift/usr/bin

BIN      := $(ROOT)/.build/release/stationdb
SOURCES  := $(ROOT)/Package.swift $(wildcard $(ROOT)/Sources/*/* $(ROOT)/Sources/*/*/*)
# Every file of raw/ that ingest reads, four folders deep (hand weights and
# renumberings are read later; dotfiles and fetch's .etag files not at all).
RAW_ALL  := $(wildcard $(RAW)/* $(RAW)/*/* $(RAW)/*/*/* $(RAW)/*/*/*/*)
RAW_DIRS := $(patsubst %/,%,$(wildcard $(RAW)/*/ $(RAW)/*/*/ $(RAW)/*/*/*/ $(RAW)/*/*/*/*/))
RAW_INPUTS := $(sort $(filter-out $(RAW_DIRS) %/weights.csv %/renumbered.csv %.etag,$(RAW_ALL)))
HAND_WEIGHTS := $(wildcard $(RAW)/weights.csv)
RENUMBERED   := $(wildcard $(RAW)/renumbered.csv)
STAGING  := $(BUILD)/staging.bin
WEIGHTS  := $(BUILD)/weights.csv
LINT     := $(BUILD)/lint.json
STAMP    := $(DIST)/.published
CONFIG   := $(BUILD)/.config

.PHONY: all setup fetch priority lint test bench diff clean
.DELETE_ON_ERROR:

# $(BUILD)/.ran holds "ran" while a publish of this run is not yet reported;
# read and cleared with make's file function, so a run that did the work starts
# no further process here.
all: $(STAMP)
	$(if $(file <$(BUILD)/.ran),$(file >$(BUILD)/.ran),@echo "stationdb: nothing changed; $(DIST) is up to date (version $$(sed -n 's/.*"version" *: *\([0-9]*\).*/\1/p' $(DIST)/latest.json | head -1))")

setup:
	@$(ROOT)/scripts/setup

# Linked statically against the Swift runtime and FoundationEssentials: a run
# starts in a few milliseconds instead of tens, which is most of a national
# stage's time. Linked at a fixed address (-no-pie): a batch tool that reads
# local files gives nothing up with it, and each start fixes up fewer pointers.
# The C libraries come from Debian's static archives too: loading and binding
# SQLite, libxml2, ICU and libcrypto cost every command about 3 ms (a national
# priority run is 10). The package links them by name (-lsqlite3, and -lxml2
# through pkg-config); for this build only, $(STATIC) holds linker scripts
# named like the shared libraries that point each name at its archive, and a
# libxml-2.0.pc that puts $(STATIC) first on the search path.
# The Debian packages are checked when the binary is built (they are what it
# builds and links against), not on every run.
STATIC := $(ROOT)/.build/static-libs
LIBDIR := /usr/lib/$(shell uname -m)-linux-gnu
$(BIN): $(SOURCES)
	@$(ROOT)/scripts/setup
	@mkdir -p $(STATIC)
	@echo 'INPUT($(LIBDIR)/libsqlite3.a)' >$(STATIC)/libsqlite3.so
	@echo 'INPUT($(LIBDIR)/libcrypto.a)' >$(STATIC)/libcrypto.so
	@echo 'INPUT($(LIBDIR)/libz.a)' >$(STATIC)/libz.so
	@echo 'INPUT($(LIBDIR)/libicuuc.a $(LIBDIR)/libicudata.a -lstdc++)' >$(STATIC)/libicuuc.so
	@echo 'INPUT($(LIBDIR)/libxml2.a $(LIBDIR)/libicui18n.a -licuuc $(LIBDIR)/liblzma.a -lz -lm)' >$(STATIC)/libxml2.so
	@printf 'Name: libXML\nDescription: libxml2 from its static archive (see the Makefile)\nVersion: %s\nLibs: -L$(STATIC) -lxml2\nCflags: %s\n' \
		"$$(pkg-config --modversion libxml-2.0)" "$$(pkg-config --cflags libxml-2.0)" >$(STATIC)/libxml-2.0.pc
	cd $(ROOT) && PKG_CONFIG_PATH=$(STATIC) swift build -c release --product stationdb --static-swift-stdlib -Xlinker -no-pie
	@touch $@

# The paths and seed in force, rewritten only when they change, so that
# switching RAW or SEED redoes exactly the stages they feed. Compared and
# written with make's file functions while the Makefile is read.
CONFIG_TEXT := RAW=$(abspath $(RAW)) SEED=$(SEED)
ifneq ($(file <$(CONFIG)),$(CONFIG_TEXT))
$(shell mkdir -p $(BUILD))
$(file >$(CONFIG),$(CONFIG_TEXT))
endif

# Ingest also checks the values as `stationdb lint` does (hand weights included), from the same reading.
$(STAGING): $(RAW_INPUTS) $(HAND_WEIGHTS) $(BIN) $(CONFIG)
	$(BIN) ingest --raw $(RAW) --out $@ --lint $(LINT)

$(WEIGHTS): $(STAGING) $(HAND_WEIGHTS) $(BIN) $(CONFIG)
	$(BIN) priority --staging $(STAGING) $(if $(HAND_WEIGHTS),--hand $(HAND_WEIGHTS),--no-hand) --seed $(SEED) --out $@

$(STAMP): $(WEIGHTS) $(STAGING) $(RENUMBERED) $(BIN)
	$(BIN) build --staging $(STAGING) --weights $(WEIGHTS) --dist $(DIST) --lint $(LINT) \
		$(if $(RENUMBERED),--renumbered $(RENUMBERED)) $(if $(VERSION),--version $(VERSION)) \
		$(GUARDS) $(if $(FORCE_PUBLISH),--force)
	$(file >$(BUILD)/.ran,ran)
	@touch $@

# Refreshes the sources of $(RAW)/sources.json that have a url (see `stationdb fetch --help`).
fetch: $(BIN)
	$(BIN) fetch --raw $(RAW)

# Every value of raw/ worth a maintainer's look, with file:line:field and why.
lint: $(BIN)
	$(BIN) lint --raw $(RAW)

# After a data fix or a change of hand weights: redo priorities and the bundle.
priority: $(BIN) $(STAGING)
	rm -f $(WEIGHTS)
	$(MAKE) -f $(ROOT)/Makefile all

test: setup
	cd $(ROOT) && swift build --build-tests && swift test

bench: setup
	$(ROOT)/bench/run

# make diff OLD=dist/3 NEW=dist   (each a .sqlite, a version folder or a dist folder)
diff: $(BIN)
	@test -n "$(OLD)" -a -n "$(NEW)" || { echo "usage: make diff OLD=<bundle|version folder|dist> NEW=<...>"; exit 2; }
	$(BIN) diff $(OLD) $(NEW)

# Removes intermediate files only: published versions in dist/ are kept.
clean:
	rm -rf $(BUILD)
