# stationdb: `make` builds Japan's station bundle from raw/ into dist/;
# `make test` runs the tests; `make help` lists every target and variable.
# Paths may be overridden from anywhere, e.g.
#   make -f /path/to/stationdb/Makefile RAW=/data/raw DIST=/srv/dist
#
# Every value make hands the shell goes through q (single-quoted, a ' inside spelled '\''):
# a path with a space stays one argument, and no value is ever run as shell text
# (UPSTREAM='http://x/;touch FILE;#' is a URL, nothing more). qw quotes each word of a
# list on its own (GUARDS="--max-removed 5" is two arguments).
q  = '$(subst ','\'',$(1))'
qw = $(foreach w,$(1),$(call q,$(w)))

# A switch is 1 (on) or 0, empty or unset (off); a choice is one of its words; a number is a
# whole number in its range. Each is checked before stationdb runs, and a wrong one is named as
# the variable typed: stationdb would name its --option, and make's last line would blame raw/.
# Every wrong value of a run is named, a line each, then the recipe stops with 2, bad input's
# status. $(call checked,CHECKS) runs CHECKS, each one of these:
#   $(call one_of,NAME,WORDS)               NAME empty or one of WORDS
#   $(call switch,NAME)                     NAME empty, 1 or 0
#   $(call whole_number,NAME,MIN,MAX)       NAME empty or a whole number from MIN to MAX
# A number is compared as text (the longer, or at one length the later, is the larger): SEED's
# range, a UInt64's, is beyond the shell's arithmetic.
checked = wrong=; $(1); [ -z "$$wrong" ] || exit 2
must_be = { printf "make: %s must be %s (or unset), not '%s'\n" $(1) $(call q,$(2)) $(call q,$($(1))) >&2; wrong=1; }
one_of = case $(call q,$($(1))) in ''$(foreach w,$(2),|$(w))) ;; *) $(call must_be,$(1),$(call or_list,$(2))) ;; esac
switch = $(call one_of,$(1),1 0)
whole_number = n=$(call q,$($(1))); min=$(2); max=$(3); case $$n in '') ;; *[!0-9]*) $(call must_be,$(1),a whole number from $(2) to $(3)) ;; \
	*) n=$${n\#"$${n%%[!0]*}"}; n=$${n:-0}; \
	if [ $${\#n} -lt $${\#min} ] || { [ $${\#n} -eq $${\#min} ] && [ "$$n" \< "$$min" ]; } || \
	   [ $${\#n} -gt $${\#max} ] || { [ $${\#n} -eq $${\#max} ] && [ "$$n" \> "$$max" ]; }; then $(call must_be,$(1),a whole number from $(2) to $(3)); fi ;; esac
# text markdown json: "text, markdown or json".
comma := ,
empty :=
space := $(empty) $(empty)
or_list = $(subst $(space),$(comma)$(space),$(filter-out $(lastword $(1)),$(1))) or $(lastword $(1))

# This Makefile's folder. Nothing is included before this line, so MAKEFILE_LIST is this
# file's path alone (after a space), which may hold spaces: make's word functions
# ($(dir), $(lastword)) would split it, the shell does not.
ROOT  := $(shell f=$(call q,$(MAKEFILE_LIST)); f=$${f# }; cd -- "$$(dirname -- "$$f")" && pwd)
RAW   ?= $(ROOT)/raw
BUILD ?= $(ROOT)/build
DIST  ?= $(ROOT)/dist
# Empty: stationdb's one default seed (`stationdb priority assign --help`). Another
# seed reshuffles every machine weight in the country.
SEED  ?=
# Empty: blue-noise machine weights; METHOD=mesh-lottery for the classic
# per-square lottery (`stationdb priority assign --help`).
METHOD ?=
# Empty: the next version after every one in $(DIST).
VERSION ?=
# Before publishing, the new bundle is compared with the published one and a
# publish that exceeds a guard is refused (exit 4 from stationdb, nothing
# published); see `stationdb build --help`. GUARDS overrides some, e.g.
#   make GUARDS="--max-removed 5"
# FORCE_PUBLISH=1 publishes a big intended change the guards refuse.
GUARDS ?=
FORCE_PUBLISH ?=
# NO_WAIT=1: exit (status 3 from stationdb) instead of waiting while another
# publish holds $(DIST).
NO_WAIT ?=
# stationdb reads no file larger than 2,000,000,000 bytes (far above any real source)
# unless told otherwise: make STATIONDB_MAX_SOURCE_BYTES=3000000000 (a variable on make's
# command line reaches stationdb's environment as it is).
# make diff OLD=... NEW=... FORMAT=text|json|markdown|sql; make plan FORMAT=text|markdown|json
FORMAT ?=
# make plan AGAINST=https://...: compare with the dist the apps download from, not the local one.
AGAINST ?=
# make plan EXPLAIN=1: each identity the plan names with its evidence, term by term, and its
# best rival's (stationdb explain S_ID shows any one s_id so).
EXPLAIN ?=
# make fetch UPSTREAM=https://...: read the station_database sources from a mirror laid out as the
# upstream's repository (out/main/*.csv, src/company.csv, latest_info.json) instead of their url.
UPSTREAM ?=
# make fetch ALLOW_OLDER_RELEASE=1: take an upstream release older than raw/'s (or whose files
# are older than the version it claims), which fetch otherwise refuses: the apps would go back;
# make (and make plan) ALLOW_OLDER_RELEASE=1: publish a release older than the published version's.
ALLOW_OLDER_RELEASE ?=
# make fetch ALLOW_FUTURE_RELEASE=1: take an upstream release dated after tomorrow, which fetch
# otherwise refuses: it would stand above every real release after it.
ALLOW_FUTURE_RELEASE ?=
# make deploy TARGET=/srv/www/stations (or host:/srv/www/stations, rsync over ssh): where the
# web server serves the dist from; CHECK=https://...: read it back there as the apps do;
# DRY_RUN=1: list what would be copied.
TARGET ?=
CHECK ?=
DRY_RUN ?=

export PATH := $(PATH):/opt/swift/usr/bin

RELEASE := $(ROOT)/.build/release/stationdb
# The tests run make with the binary built beside them (the same one): BIN=.../stationdb.
BIN     ?= $(RELEASE)

.PHONY: all help setup fetch lint plan deploy install test bench history diff clean binary release-binary
# One target at a time, in the order given: `make -j2 plan all` plans, then publishes.
.NOTPARALLEL:

# What make says when stationdb fails: its own exit status, which make turns into 2, in
# the words of the command that failed. Only `make` (publish) publishes, so only its
# failures say "nothing was published"; fetch, lint and plan say what they leave as it was.
SAY_WHY = status=$$?; case $$status in \
	2) echo "make: bad input (exit 2 from stationdb): see the message above; nothing was published" >&2 ;; \
	3) echo "make: I/O failure, a damaged dist, or another run holds the lock named above (exit 3 from stationdb); nothing was published" >&2 ;; \
	4) echo "make: refused by a guard (exit 4 from stationdb)" >&2 ;; \
	5) echo "make: raw/registry.csv lags the published version (exit 5 from stationdb): restore it as said above and commit it" >&2 ;; \
	esac; exit $$status
SAY_WHY_FETCH = status=$$?; case $$status in \
	2) echo "make: fetch refused: bad input (exit 2 from stationdb): see the message above; the source it names is left as it was in raw/" >&2 ;; \
	3) echo "make: fetch failed: the network, the server or the disk (exit 3 from stationdb): see the message above; the source it names is left as it was in raw/; try again later" >&2 ;; \
	esac; exit $$status
SAY_WHY_LINT = status=$$?; case $$status in \
	2) echo "make: lint stopped: bad input (exit 2 from stationdb): mend raw/ as the message above says" >&2 ;; \
	3) echo "make: lint stopped: I/O failure (exit 3 from stationdb): see the message above" >&2 ;; \
	esac; exit $$status
SAY_WHY_PLAN = status=$$?; case $$status in \
	2) echo "make: plan stopped: bad input (exit 2 from stationdb): mend raw/ as the message above says; dist/ and raw/ are as they were" >&2 ;; \
	3) echo "make: plan stopped: I/O failure, a damaged dist, or another run holds the lock named above (exit 3 from stationdb); dist/ and raw/ are as they were" >&2 ;; \
	4) echo "make: a publish would be refused by a guard (exit 4 from stationdb): see the report above" >&2 ;; \
	5) echo "make: raw/registry.csv lags the published version (exit 5 from stationdb): restore it as said above and commit it" >&2 ;; \
	esac; exit $$status

# Every stage runs only when what it reads changed (by content: a deleted fix or
# hand weight is a change too); stationdb decides that, not file times, so the
# stages run by hand agree with make. The dist is locked for the whole run.
STAGE_OPTIONS = --raw $(call q,$(RAW)) --build $(call q,$(BUILD)) --dist $(call q,$(DIST)) $(if $(SEED),--seed $(call q,$(SEED))) \
	$(if $(METHOD),--method $(call q,$(METHOD))) $(if $(VERSION),--as-version $(call q,$(VERSION))) $(call qw,$(GUARDS)) \
	$(if $(filter 1,$(FORCE_PUBLISH)),--force) $(if $(filter 1,$(NO_WAIT)),--no-wait) $(if $(filter 1,$(ALLOW_OLDER_RELEASE)),--allow-older-release)
# What of STAGE_OPTIONS make can check exactly: --seed is a UInt64, --as-version a bundle's
# user_version (that it is larger than every version in $(DIST) is stationdb's to say).
STAGE_CHECKS = $(call whole_number,SEED,0,18446744073709551615); $(call one_of,METHOD,blue-noise mesh-lottery); \
	$(call whole_number,VERSION,1,2147483647); $(call switch,FORCE_PUBLISH); $(call switch,NO_WAIT); $(call switch,ALLOW_OLDER_RELEASE)
STATIONDB = $(call q,$(BIN))

# stationdb's usage error (ArgumentParser's "Error: ...", before it runs anything) has bad
# input's status, 2, as a mistake in raw/ does. GUARDS is the one value make hands stationdb as
# options of its own, unchecked, so when a run ends 2 with GUARDS set, stationdb is asked
# whether GUARDS alone parse: in a plan of an empty folder, where anything else fails as its own
# "error: ...". $(call GUARDS_WHY,COMMAND,WHAT IS LEFT AS IT WAS), after status=$$?.
GUARDS_WHY = if [ $$status = 2 ] && [ -n $(call q,$(GUARDS)) ] && t=$$(mktemp -d); then \
	$(STATIONDB) plan --raw "$$t/raw" --build "$$t/build" --dist "$$t/dist" $(call qw,$(GUARDS)) 2>&1 >/dev/null | grep -q '^Error: '; \
	usage=$$?; rm -rf -- "$$t"; if [ $$usage = 0 ]; then printf "make: %sbad input (exit 2 from stationdb): the message above is about GUARDS='%s' (stationdb %s --help lists the guards); %s\n" \
	$(if $(filter plan,$(1)),'plan stopped: ','') $(call q,$(GUARDS)) $(1) $(call q,$(2)) >&2; exit 2; fi; fi

all: binary
	@$(call checked,$(STAGE_CHECKS))
	@$(STATIONDB) publish $(STAGE_OPTIONS); status=$$?; $(call GUARDS_WHY,publish,nothing was published); (exit $$status); $(SAY_WHY)

# What the next `make` would publish, without publishing anything: the report on
# stdout and build/preview.html. Succeeds when nothing (stationdb's 0) or a new
# version (its 1) would be published; a `make` after it publishes that very version.
plan: binary
	@$(call checked,$(STAGE_CHECKS); $(call one_of,FORMAT,text markdown json); $(call switch,EXPLAIN))
	@$(STATIONDB) plan $(STAGE_OPTIONS) $(if $(AGAINST),--against $(call q,$(AGAINST))) $(if $(FORMAT),--format $(call q,$(FORMAT))) $(if $(filter 1,$(EXPLAIN)),--explain); status=$$?; \
	if [ $$status -gt 1 ]; then $(call GUARDS_WHY,plan,dist/ and raw/ are as they were); (exit $$status); $(SAY_WHY_PLAN); fi

# Copies $(DIST) to where the apps download it: the version folders the target lacks, each
# whole, then latest.json; never deletes there. See `stationdb deploy --help`.
deploy: binary
	@test -n $(call q,$(TARGET)) || { echo "usage: make deploy TARGET=/srv/www/stations|host:/srv/www/stations [CHECK=https://stations.example.org] [DRY_RUN=1]" >&2; exit 2; }
	@$(call checked,$(call switch,DRY_RUN); $(call switch,NO_WAIT))
	@$(STATIONDB) deploy $(if $(CHECK),--check=$(call q,$(CHECK))) $(if $(filter 1,$(DRY_RUN)),--dry-run) $(if $(filter 1,$(NO_WAIT)),--no-wait) -- $(call q,$(DIST)) $(call q,$(TARGET)); status=$$?; case $$status in \
	2) echo "make: deploy refused (exit 2 from stationdb): see the message above; nothing was copied" >&2 ;; \
	3) echo "make: deploy failed (exit 3 from stationdb): see the message above; the target still serves a whole version (the old or the new one); make deploy again once mended" >&2 ;; \
	esac; exit $$status

help:
	@echo 'make                the nightly job: raw/ -> build/ -> a new version in dist/ when anything changed'
	@echo 'make plan           what the next make would publish, without publishing: a report by station name'
	@echo '                    and build/preview.html, the map the apps would show [FORMAT=markdown AGAINST=URL'
	@echo '                    EXPLAIN=1: each identity it names with its evidence, term by term]'
	@echo 'make history        replay the upstream'"'"'s 46 releases since 2021 as nightlies: docs/identity-history.md'
	@echo 'make deploy TARGET=/srv/www/stations   (or TARGET=host:/srv/www/stations, rsync over ssh)'
	@echo '                    copy dist/ to where the apps download it: new version folders, then latest.json'
	@echo '                    [CHECK=https://... reads it back as the apps do; DRY_RUN=1 lists only]'
	@echo 'make fetch all      refresh the sources that have a url in raw/sources.json, then build'
	@echo '                    [UPSTREAM=URL reads the station_database sources from a mirror of the upstream;'
	@echo '                    ALLOW_OLDER_RELEASE=1 takes a release older than raw/s,'
	@echo '                    ALLOW_FUTURE_RELEASE=1 one dated after tomorrow]'
	@echo 'make lint           list every value of raw/ worth a look (file:line:field and why)'
	@echo 'make diff OLD=dist/3 NEW=dist/4 [FORMAT=text|json|markdown|sql]'
	@echo '                    what changed between two bundles (succeeds whether same or different)'
	@echo 'make test           the tests;  make bench: speed against sqlite3, sqldiff, xmllint'
	@echo 'make setup          install the Debian packages the build needs'
	@printf 'make install        put stationdb on PATH: PREFIX/bin/stationdb (PREFIX=%s)\n' $(call q,$(PREFIX))
	@echo 'make clean          remove build/ (published versions in dist/ are kept)'
	@printf 'Variables: RAW=%s BUILD=%s DIST=%s\n' $(call q,$(RAW)) $(call q,$(BUILD)) $(call q,$(DIST))
	@echo '  SEED=N  METHOD=mesh-lottery  VERSION=N  GUARDS="--max-removed 5"  FORCE_PUBLISH=1  NO_WAIT=1  BIN=path/to/stationdb'
	@printf '  PREFIX=%s (make install)  OLD=, NEW= (make diff)  FORMAT=text|markdown|json (make plan, make diff; sql for diff too)  AGAINST=URL (make plan)\n' $(call q,$(PREFIX))
	@echo '  STATIONDB_MAX_SOURCE_BYTES=N  read files up to N bytes (default 2000000000)'
	@echo '  TARGET=folder|host:path  CHECK=URL  DRY_RUN=1 (make deploy)'
	@echo '  Switches (FORCE_PUBLISH NO_WAIT EXPLAIN DRY_RUN ALLOW_OLDER_RELEASE ALLOW_FUTURE_RELEASE): 1 on, 0 or unset off;'
	@echo '  any other value, or a METHOD, FORMAT, SEED or VERSION stationdb would not take, stops make (2) naming it'
	@echo 'make exits 0 when done and 2 on any failure, its last line naming stationdb'"'"'s status; a script that'
	@echo 'branches on the cause runs stationdb itself (e.g. stationdb publish --raw raw --build build --dist dist).'
	@echo 'Exit statuses of stationdb:'
	@echo '  0 success/same  1 different (diff) or would publish (plan)  4 refused by a guard'
	@echo '  5 raw/registry.csv lags the published version (not updated)'
	@echo '  2 bad input: what was given is wrong (a value, a path that names nothing or no file, a URL that'
	@echo '    serves no dist: a 404 for latest.json; for deploy, a target that differs or whose version the dist does not descend from)'
	@echo '  3 I/O: what it leads to failed or is damaged (the disk, the network, a lock with NO_WAIT; a dist'
	@echo '    whose latest.json or manifest names a file that is missing or differs; a failed copy or --check)'

setup:
	@$(call q,$(ROOT)/scripts/setup)

# The one build configuration: release. `make` runs the binary that `make test` builds
# its tests beside (the same objects: nothing is compiled twice), linked against the
# toolchain's Swift runtime. The Debian packages are checked when the binary is built
# (they are what it builds and links against), not on every run. It is built when
# Package.swift or a file under Sources/ is newer than it; the shell compares, since a
# make prerequisite cannot hold a path with a space.
BUILD_RELEASE = root=$(call q,$(ROOT)); release=$(call q,$(RELEASE)); \
	if [ ! -x "$$release" ] || [ -n "$$(find "$$root/Package.swift" "$$root/Sources" -newer "$$release" -print 2>/dev/null | head -n 1)" ]; then \
	    "$$root/scripts/setup" || exit $$?; \
	    echo "cd $$root && swift build -c release --product stationdb"; \
	    (cd "$$root" && swift build -c release --product stationdb) || exit $$?; \
	    touch "$$release"; \
	fi

# The stationdb the targets run: BIN, or the release binary, built when it is stale.
binary:
	@if [ $(call q,$(BIN)) = $(call q,$(RELEASE)) ]; then $(BUILD_RELEASE); \
	elif [ ! -x $(call q,$(BIN)) ]; then printf 'make: BIN=%s is not an executable stationdb\n' $(call q,$(BIN)) >&2; exit 2; fi

# The release binary alone (scripts/ci-plan, bench/run and make test build it so).
release-binary:
	@$(BUILD_RELEASE)

# Refreshes the sources of $(RAW)/sources.json that have a url (see `stationdb fetch --help`).
fetch: binary
	@$(call checked,$(call switch,ALLOW_OLDER_RELEASE); $(call switch,ALLOW_FUTURE_RELEASE))
	@$(STATIONDB) fetch --raw $(call q,$(RAW)) --dist $(call q,$(DIST)) $(if $(UPSTREAM),--upstream $(call q,$(UPSTREAM))) \
	$(if $(filter 1,$(ALLOW_OLDER_RELEASE)),--allow-older-release) $(if $(filter 1,$(ALLOW_FUTURE_RELEASE)),--allow-future-release); $(SAY_WHY_FETCH)

# Every value of raw/ worth a maintainer's look, with file:line:field and why.
lint: binary
	@$(STATIONDB) lint --raw $(call q,$(RAW)); $(SAY_WHY_LINT)

# Besides the build's packages, the tests need sqldiff (sqlite3-tools), which they hold
# `stationdb diff` against, python3 for their HTTP server and Python's gzip reader, chromium, which opens the
# preview page (scripts/setup adds fonts-noto-cjk, its font for Japanese), and rsync for deploy's: without one, the tests that use it fail, saying
# so, rather than skip. One build, release: the tests and the stationdb they run (the one
# make ships) are compiled once (scripts/build-tests), then run in two processes side by
# side, never built again (scripts/run-tests).
test:
	@$(call q,$(ROOT)/scripts/setup) sqlite3-tools python3 chromium rsync
	cd $(call q,$(ROOT)) && scripts/build-tests
	cd $(call q,$(ROOT)) && scripts/run-tests

bench: setup
	$(call q,$(ROOT)/bench/run)

# Every upstream release since v20211026 (Tests/Fixtures/station_database/history.tar.xz)
# replayed as the nightly publishes them, national, from an empty registry: the confusion
# table per night and in all, with the replay's time, in docs/identity-history.md (about 90 s).
history:
	cd $(call q,$(ROOT)) && scripts/build-tests
	cd $(call q,$(ROOT)) && STATIONDB_HISTORY=national STATIONDB_WRITE_GOLDEN=1 .build/release/stationdbPackageTests.xctest \
		PublishingTests.IdentityCorpusTests/testTheWholeHistoryReplaysAsNightlies

# Succeeds when the diff ran, whether the bundles are the same (stationdb's 0)
# or different (its 1); CI that must tell them apart calls `stationdb diff`.
diff: binary
	@test -n $(call q,$(OLD)) -a -n $(call q,$(NEW)) || { echo "usage: make diff OLD=<bundle|version folder|dist> NEW=<...> [FORMAT=text|json|markdown|sql]" >&2; exit 2; }
	@$(call checked,$(call one_of,FORMAT,text json markdown sql))
	@$(STATIONDB) diff $(call q,$(OLD)) $(call q,$(NEW)) $(if $(FORMAT),--format $(call q,$(FORMAT))); status=$$?; \
	if [ $$status -gt 1 ]; then echo "make: the diff did not run (exit $$status from stationdb)" >&2; exit $$status; fi

# Puts stationdb on PATH as PREFIX/bin/stationdb, by default in the user's own ~/.local/bin
# (no root needed): BIN when given, else a build of its own (.build-install) with the Swift
# runtime linked in (--static-swift-stdlib), which keeps working when the toolchain is
# upgraded or removed (the tests' build cannot link it so: XCTest needs the shared runtime).
# When that folder is not on PATH it says the line that puts it there: logging in again does
# so only for ~/.local/bin, only where the login shell's profile adds it, and only when it
# existed at login.
PREFIX ?= $(HOME)/.local
INSTALLED = $(ROOT)/.build-install/release/stationdb
install:
	@if [ $(call q,$(BIN)) = $(call q,$(RELEASE)) ]; then \
	    $(call q,$(ROOT)/scripts/setup) || exit $$?; \
	    echo "cd $(ROOT) && swift build -c release --product stationdb --static-swift-stdlib --scratch-path .build-install"; \
	    (cd $(call q,$(ROOT)) && swift build -c release --product stationdb --static-swift-stdlib --scratch-path .build-install) || exit $$?; \
	    install -D -m 755 $(call q,$(INSTALLED)) $(call q,$(PREFIX)/bin/stationdb); \
	else \
	    $(MAKE) -s -f $(call q,$(ROOT)/Makefile) BIN=$(call q,$(BIN)) binary || exit $$?; \
	    install -D -m 755 $(call q,$(BIN)) $(call q,$(PREFIX)/bin/stationdb); \
	fi
	@bin=$(call q,$(PREFIX)/bin); case ":$$PATH:" in *":$$bin:"*) ;; *) \
	printf 'make install: %s is not on PATH; put it there with this line, now and in your shell'"'"'s startup file (~/.bashrc, ~/.profile):\n' "$$bin" >&2; \
	printf '  export PATH="%s:$$PATH"\n' "$$bin" >&2 ;; esac

# Removes intermediate files only: published versions in dist/ are kept.
clean:
	rm -rf -- $(call q,$(BUILD))
