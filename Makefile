# smtpdiag - build, test, install.  `make help` lists the targets.
.SUFFIXES:

VERSION   = 0.1.0
SOVERSION = 0
PREFIX   ?= /usr/local
UNITDIR  ?= $(PREFIX)/lib/systemd/system
# where the libraries and smtpdiag.pc go (a Debian package: $(PREFIX)/lib/$(DEB_HOST_MULTIARCH))
LIBDIR   ?= $(PREFIX)/lib
DESTDIR  ?=
BUILD    ?= build

ifeq ($(origin CC),default)
CC        = cc
endif
CFLAGS   ?= -O2 -g
WERROR   ?=
SAN      ?=
WARN      = -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes -Wformat -Wformat-security \
            -Wno-unused-parameter -Wvla $(if $(WERROR),-Werror)
SAN_ON    = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
SANFLAGS  = $(if $(SAN),$(SAN_ON))
ALLCFLAGS = -std=c11 -D_GNU_SOURCE -fPIC -fvisibility=hidden $(WARN) $(SANFLAGS) $(CFLAGS)
CPPFLAGS += -Iinclude -Isrc/lib -I$(BUILD)/gen
# libmicrohttpd is opened by `serve` at run time (src/httpd/mhd_load.c), not linked.
# pkg-config is asked when a recipe first needs the flags (then kept), not when the Makefile
# is read: on a fresh machine `deps` installs pkg-config and the libraries first.
# nettle is linked (SHA-1 of decode's token, base64 of MIME bodies); hogweed (the webhook
# signature checks of serve) is opened at run time (src/httpd/crypto.c).
PKGS      = libhs libmicrohttpd zlib jansson sqlite3 libpq nettle hogweed libcurl
PKG_CFLAGS = $(eval PKG_CFLAGS := $$(shell pkg-config --cflags $$(PKGS) 2>/dev/null))$(PKG_CFLAGS)
# libpq too is opened at run time, by the first postgresql:// store (src/lib/store/pq_load.c),
# and libcurl by the first bounce mailbox read or webhook posted (src/cli/curl_load.c).
PKG_LIBS   = $(eval PKG_LIBS := $$(shell pkg-config --libs libhs zlib jansson sqlite3 nettle 2>/dev/null || \
                echo -lhs -lz -ljansson -lsqlite3 -lnettle) -ldl -lpthread)$(PKG_LIBS)
LDLIBS    = $(PKG_LIBS) -lstdc++ -lm

LIB_SRC   = $(sort $(shell find src/lib -name "*.c"))
GEN_SRC   = $(BUILD)/gen/kb_data.c $(BUILD)/gen/rules_db.c $(BUILD)/gen/taxonomy.c $(BUILD)/gen/vendor_db.c
LIB_OBJ   = $(LIB_SRC:%.c=$(BUILD)/%.o) $(GEN_SRC:.c=.o)
CLI_SRC   = $(sort $(wildcard src/cli/*.c src/httpd/*.c))
CLI_OBJ   = $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_SRC  = $(sort $(wildcard tests/unit/test_*.c))
TEST_BIN  = $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)
KB_FILES  = $(sort $(wildcard kb/entries/*.kb)) $(wildcard kb/reference/*.tsv)
RULE_FILES= $(sort $(wildcard rules/*.rules rules/*.tsv))
TAX_FILES = $(sort $(wildcard rules/taxonomy/*.tsv))

STATIC    = $(BUILD)/libsmtpdiag.a
SHARED    = $(BUILD)/libsmtpdiag.so.$(VERSION)
BIN       = $(BUILD)/smtpdiag

all: $(BIN) $(STATIC) $(SHARED) $(BUILD)/smtpdiag.pc

help:
	@echo "make            build $(BIN), the static and shared library"
	@echo "make run        install missing packages, build, explain and decode bundled samples"
	@echo "make check      install missing packages, build, run every test"
	@echo "make python-check  the Python binding's tests (bindings/python), against the library as built"
	@echo "make conformance  score decode against the shared corpus gold file"
	@echo "make verdict-report  the verdict on the labelled reply tables, per path and provider"
	@echo "make sanitize   the whole test suite under ASan+UBSan (in $(BUILD)-san)"
	@echo "make fuzz-replay  replay the fuzz seed corpora"
	@echo "make fuzz-run   run every fuzz target FUZZ_SECONDS (default 60) from its seeds"
	@echo "make bench      build and run the benchmarks"
	@echo "make fresh-check  make run and make check on a new Debian bookworm root (debootstrap)"
	@echo "make go-check   go vet and go test of the Go binding (bindings/go)"
	@echo "make install    install to DESTDIR/PREFIX (default $(PREFIX)), libraries to LIBDIR, the systemd units to UNITDIR"
	@echo "make deb        the Debian packages (dpkg-buildpackage), copied to $(BUILD)/deb"
	@echo "make deb-check  make deb, lintian, install them on a new Debian root, run them; a container"

# The targets of the README install what is missing first, then build in a new make.
# deps-build: what building and `make run` need; deps: that and the test tools.
deps:
	@sh tools/install-deps.sh all

deps-build:
	@sh tools/install-deps.sh build

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(ALLCFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/gen/%.o: $(BUILD)/gen/%.c
	$(CC) $(CPPFLAGS) $(ALLCFLAGS) -Wno-missing-prototypes -c $< -o $@

# Build-time generators run on the build machine, without sanitizers.
$(BUILD)/kbgen: tools/kbgen.c src/lib/verdict/reasons.def
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE -O1 $(WARN) tools/kbgen.c -o $@

$(BUILD)/rulegen: tools/rulegen.c tools/genutil.h
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE -O1 $(WARN) $(PKG_CFLAGS) tools/rulegen.c -o $@ $(PKG_LIBS) -lstdc++ -lm

# vendorgen links the knowledge base kbgen made: the words of its very vendor rows.
$(BUILD)/vendorgen: tools/vendorgen.c tools/genutil.h src/lib/kb/vendor_words.h src/lib/kb/codes.h $(BUILD)/gen/kb_data.c
	$(CC) -std=c11 -D_GNU_SOURCE -O1 $(WARN) -Wno-missing-prototypes -Iinclude -Isrc/lib $(PKG_CFLAGS) \
	  tools/vendorgen.c $(BUILD)/gen/kb_data.c -o $@ $(PKG_LIBS) -lstdc++ -lm

$(BUILD)/gen/vendor_db.c: $(BUILD)/vendorgen
	$(BUILD)/vendorgen -o $@

$(BUILD)/gen/kb_data.c: $(BUILD)/kbgen $(KB_FILES)
	@mkdir -p $(@D)
	$(BUILD)/kbgen -o $@ kb/reference kb/entries/*.kb

$(BUILD)/gen/rules_db.c: $(BUILD)/rulegen $(RULE_FILES)
	@mkdir -p $(@D)
	$(BUILD)/rulegen -o $@ rules

$(BUILD)/gen/taxonomy.c: tools/taxgen.sh $(TAX_FILES)
	@mkdir -p $(@D)
	sh tools/taxgen.sh $@ rules/taxonomy

# The SONAMEs of the libraries opened at run time, from the libraries the build finds.
$(BUILD)/gen/sd_sonames.h: tools/sonames.sh
	@mkdir -p $(@D)
	CC="$(CC)" sh tools/sonames.sh $@

$(BUILD)/src/lib/store/pq_load.o $(BUILD)/src/lib/store/pg.o $(BUILD)/src/httpd/mhd_load.o \
  $(BUILD)/src/httpd/crypto.o $(BUILD)/src/cli/curl_load.o: $(BUILD)/gen/sd_sonames.h

$(LIB_OBJ): $(BUILD)/gen/kb_data.c $(BUILD)/gen/rules_db.c $(BUILD)/gen/taxonomy.c $(BUILD)/gen/vendor_db.c

$(STATIC): $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $(LIB_OBJ)

$(SHARED): $(LIB_OBJ)
	$(CC) -shared -Wl,-soname,libsmtpdiag.so.$(SOVERSION) $(SANFLAGS) $(LDFLAGS) -o $@ $(LIB_OBJ) $(LDLIBS)
	ln -sf libsmtpdiag.so.$(VERSION) $(BUILD)/libsmtpdiag.so.$(SOVERSION)
	ln -sf libsmtpdiag.so.$(VERSION) $(BUILD)/libsmtpdiag.so

# The binary exports its recv(), which libmicrohttpd binds to (src/httpd/wire.c).
$(BIN): $(CLI_OBJ) $(STATIC)
	$(CC) $(SANFLAGS) $(LDFLAGS) -Wl,--export-dynamic-symbol=recv -o $@ $(CLI_OBJ) $(STATIC) $(LDLIBS)

# remade each time: PREFIX and LIBDIR come from the command line
$(BUILD)/smtpdiag.pc: smtpdiag.pc.in FORCE
	@mkdir -p $(@D)
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@VERSION@|$(VERSION)|g' smtpdiag.pc.in > $@

$(BUILD)/tests/%: tests/unit/%.c $(STATIC)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(ALLCFLAGS) -Wno-missing-prototypes $< -o $@ \
	  $(filter $(BUILD)/src/cli/%.o $(BUILD)/src/httpd/%.o,$^) $(STATIC) -lcmocka $(LDLIBS)

# decode's input walker is tested on its own
$(BUILD)/tests/test_input: $(BUILD)/src/cli/input.o
# and the metrics of followed logs
$(BUILD)/tests/test_logmetrics: $(BUILD)/src/httpd/logmetrics.o

# Misbehaving HTTP clients for the serve tests and the soak bench (loopback only).
$(BUILD)/tests/hostile: tests/hostile.c
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) $< -o $@ -lpthread

tests: $(TEST_BIN) $(BIN) $(SHARED) $(BUILD)/tests/hostile

# The test command of the README.
check: deps
	@$(MAKE) --no-print-directory tests
	@BUILD=$(BUILD) SAN=$(SAN) sh tests/run.sh

# The Python binding alone (make check runs it too: tests/cli/python.sh).
python-check: $(SHARED)
	@BUILD=$(BUILD) sh tests/cli/python.sh

sanitize:
	@$(MAKE) --no-print-directory BUILD=$(BUILD)-san SAN=1 CC=clang CFLAGS="-O1 -g" check

FUZZ_SRC  = $(sort $(wildcard fuzz/fuzz_*.c))
FUZZ_BIN  = $(FUZZ_SRC:fuzz/%.c=$(BUILD)-fuzz/fuzz/%)
FUZZ_LIB  = $(BUILD)-fuzz/libsmtpdiag.a
FUZZ_SAN  = -fsanitize=address,undefined -fno-sanitize-recover=all

# The library once, instrumented for libFuzzer; then each target links to it.
$(FUZZ_LIB): FORCE
	@$(MAKE) --no-print-directory BUILD=$(BUILD)-fuzz CC=clang \
	  CFLAGS="-O1 -g -fsanitize=fuzzer-no-link $(FUZZ_SAN)" $(FUZZ_LIB)

$(BUILD)-fuzz/fuzz/%: fuzz/%.c $(FUZZ_LIB)
	@mkdir -p $(@D)
	clang $(CPPFLAGS:$(BUILD)/gen=$(BUILD)-fuzz/gen) $(PKG_CFLAGS) -std=c11 -D_GNU_SOURCE -g -O1 \
	  -fsanitize=fuzzer $(FUZZ_SAN) $< -o $@ $(FUZZ_LIB) $(LDLIBS)

fuzz-build: $(FUZZ_BIN)

fuzz-replay: deps
	@$(MAKE) --no-print-directory fuzz-build
	@sh tests/fuzz.sh replay $(BUILD)-fuzz/fuzz

FUZZ_SECONDS ?= 60
fuzz-run: deps-build
	@$(MAKE) --no-print-directory fuzz-build
	@FUZZ_SECONDS=$(FUZZ_SECONDS) sh tests/fuzz.sh run $(BUILD)-fuzz/fuzz

conformance: deps
	@$(MAKE) --no-print-directory $(BIN)
	@SD_LIBS="$(LDLIBS)" sh tests/conformance.sh $(BIN)

verdict-report:
	@$(MAKE) -s --no-print-directory $(BUILD)/tests/test_verdict_table
	@BUILD=$(BUILD) sh tests/verdict-report.sh

run: deps-build
	@$(MAKE) --no-print-directory $(BIN)
	@sh tools/run-samples.sh $(BIN)

BENCH_SRC = $(sort $(wildcard bench/*.c))
bench:
	@BENCH=1 sh tools/install-deps.sh
	@$(MAKE) --no-print-directory $(BIN) $(BUILD)/tests/hostile
	@for b in bench/*.sh; do [ -f "$$b" ] && BUILD=$(BUILD) sh $$b; done; true

# The Debian packages (debian/), built by dpkg-buildpackage into ..; copied to $(BUILD)/deb.
deb:
	@sh tools/deb.sh build $(BUILD)/deb

# lintian, then the packages installed on a new Debian root, then the container (needs root).
deb-check: deb
	@sh tools/deb.sh check $(BUILD)/deb

# A new minimal Debian root with git and make only, a clone of HEAD: make run, make check.
fresh-check:
	@sh tools/fresh-check.sh

# The Go binding (bindings/go) against a staged install of this tree.
go-check: all
	@BUILD=$(BUILD) sh tools/go-check.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PREFIX)/include \
	  $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man3 \
	  $(DESTDIR)$(PREFIX)/share/doc/smtpdiag
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/smtpdiag
	install -m 644 $(STATIC) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(SHARED) $(DESTDIR)$(LIBDIR)/
	ln -sf libsmtpdiag.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libsmtpdiag.so.$(SOVERSION)
	ln -sf libsmtpdiag.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libsmtpdiag.so
	install -m 644 include/smtpdiag.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(BUILD)/smtpdiag.pc $(DESTDIR)$(LIBDIR)/pkgconfig/smtpdiag.pc
	install -m 644 man/smtpdiag.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 man/smtpdiag.3 $(DESTDIR)$(PREFIX)/share/man/man3/
	install -m 644 LICENSE $(DESTDIR)$(PREFIX)/share/doc/smtpdiag/
	install -d $(DESTDIR)$(UNITDIR)
	for u in systemd/*.service systemd/*.socket; do \
	  sed -e 's|/usr/bin/smtpdiag |$(PREFIX)/bin/smtpdiag |g' $$u > $(DESTDIR)$(UNITDIR)/$${u#systemd/} || exit 1; \
	  chmod 644 $(DESTDIR)$(UNITDIR)/$${u#systemd/}; done

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/smtpdiag $(DESTDIR)$(LIBDIR)/libsmtpdiag.* \
	  $(DESTDIR)$(PREFIX)/include/smtpdiag.h $(DESTDIR)$(LIBDIR)/pkgconfig/smtpdiag.pc \
	  $(DESTDIR)$(PREFIX)/share/man/man1/smtpdiag.1 $(DESTDIR)$(PREFIX)/share/man/man3/smtpdiag.3 \
	  $(DESTDIR)$(PREFIX)/share/doc/smtpdiag/LICENSE \
	  $(DESTDIR)$(UNITDIR)/smtpdiag-serve.service $(DESTDIR)$(UNITDIR)/smtpdiag-serve.socket \
	  $(DESTDIR)$(UNITDIR)/smtpdiag-scan@.service

clean:
	rm -rf $(BUILD) $(BUILD)-san $(BUILD)-fuzz

FORCE:

.PHONY: FORCE all help deps deps-build tests check python-check sanitize fuzz-build fuzz-replay fuzz-run conformance verdict-report run bench fresh-check go-check deb deb-check install uninstall clean

# (not build/deb: the package build's own tree and the Debian root of make deb-check)
-include $(shell find $(BUILD) -path $(BUILD)/deb -prune -o -type f -name '*.d' -print 2>/dev/null)
