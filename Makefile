# SPDX-License-Identifier: GPL-2.0-or-later
# lvx build.  `make` builds build/liblvx.a, build/liblvx.so and build/lvx.
# `make SAN=1` builds the same with ASan+UBSan into build-asan/.
# `make check` installs missing Debian packages, builds with sanitizers and runs all tests.

SAN ?= 0
ifeq ($(SAN),1)
BUILD ?= build-asan
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
OPT := -O1
EXE_NOPIE := -no-pie
else
BUILD ?= build
SANFLAGS :=
OPT := -O2
endif

CC ?= cc
SOVERSION := 0
VERSION := $(shell sed -n 's/^#define LVX_VERSION "\(.*\)"/\1/p' src/util/version.h)
PREFIX ?= /usr/local
DESTDIR ?=
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions

WARN := -Wall -Wextra -Werror -Wno-unused-parameter -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CFLAGS_ALL := -std=c11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 $(OPT) -g $(WARN) -fPIC \
              -Isrc -Iinclude $(SANFLAGS) $(CFLAGS)
LIBS := -luring -lblkid -lpthread
LDFLAGS_ALL := $(SANFLAGS) $(LDFLAGS)

LIB_SRC := $(sort $(shell find src -name '*.c' ! -name 'lvx.c' 2>/dev/null))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
BIN_OBJ := $(BUILD)/obj/src/lvx.o
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
TESTLIB_SRC := $(wildcard tests/unit/tap.c tests/unit/fixture.c)
TESTLIB_OBJ := $(TESTLIB_SRC:%.c=$(BUILD)/obj/%.o)

.PHONY: all lib unit check test fuzz fuzz-deep demo clean install bench
all: $(BUILD)/liblvx.a $(BUILD)/liblvx.so $(BUILD)/lvx

lib: $(BUILD)/liblvx.a $(BUILD)/liblvx.so

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

$(BUILD)/liblvx.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

# Only the public API (include/lvx.h) is exported: src/liblvx.map.
$(BUILD)/liblvx.so: $(LIB_OBJ) src/liblvx.map
	$(CC) -shared -Wl,-soname,liblvx.so.$(SOVERSION) -Wl,--version-script,src/liblvx.map \
		-o $(BUILD)/liblvx.so.$(VERSION) $(LIB_OBJ) $(LDFLAGS_ALL) $(LIBS)
	ln -sf liblvx.so.$(VERSION) $(BUILD)/liblvx.so.$(SOVERSION)
	ln -sf liblvx.so.$(VERSION) $@

# The sanitized lvx is linked without PIE: the loader then relocates none of its
# instrumented data, a third fewer page faults per command (the test suite runs it
# thousands of times).  The plain build stays PIE.
$(BUILD)/lvx: $(BIN_OBJ) $(BUILD)/liblvx.a
	$(CC) -o $@ $(BIN_OBJ) $(BUILD)/liblvx.a $(LDFLAGS_ALL) $(EXE_NOPIE) $(LIBS) -lreadline

# Man pages ($(BUILD)/man/lvx.8, lvx-CMD.8), the bash completion ($(BUILD)/completion/lvx)
# and the LVM2 command names lvx implements ($(BUILD)/lvm2-names), generated from the
# command and option tables by tools/docgen.c.
.PHONY: man install-lvm-names uninstall
all: man
man: $(BUILD)/man/.stamp
DOCGEN := $(BUILD)/lvx-docgen
MAN_DATE ?= $(shell git log -1 --format=%cs 2>/dev/null || date +%F)
$(DOCGEN): $(BUILD)/obj/tools/docgen.o $(BUILD)/liblvx.a
	$(CC) -o $@ $< $(BUILD)/liblvx.a $(LDFLAGS_ALL) $(LIBS)
$(BUILD)/man/.stamp: $(DOCGEN)
	rm -rf $(BUILD)/man $(BUILD)/completion
	mkdir -p $(BUILD)/man $(BUILD)/completion
	$(DOCGEN) man $(BUILD)/man "$(MAN_DATE)"
	$(DOCGEN) completion >$(BUILD)/completion/lvx
	$(DOCGEN) lvm2-names >$(BUILD)/lvm2-names
	touch $@

unit: $(UNIT_BIN)

$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(TESTLIB_OBJ) $(BUILD)/liblvx.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(TESTLIB_OBJ) $(BUILD)/liblvx.a $(LDFLAGS_ALL) $(LIBS) -lz

# The README's test command.  Installs what is missing (idempotent), builds plain and
# sanitized, runs every test through prove.
check:
	bash tests/install-deps.sh
	$(MAKE) -j$$(nproc) all unit
	$(MAKE) -j$$(nproc) SAN=1 all unit
	bash tests/run-all.sh

test:
	bash tests/run-all.sh

FUZZ_TARGETS := fuzz_headers fuzz_text fuzz_config fuzz_cmdline fuzz_restore
fuzz:
	bash fuzz/run.sh $${FUZZ_SECONDS:-60}

# every harness for FUZZ_MINUTES (default 10), corpus merged, table in fuzz/results/deep.txt
fuzz-deep:
	bash fuzz/deep.sh $${FUZZ_MINUTES:-10}

demo:
	bash tests/install-deps.sh
	$(MAKE) all
	bash tests/tools/demo.sh
	LVX=$(BUILD)/lvx bash tests/tools/stripe-demo.sh

# bench/stripe knobs: N (disks), MIBS (per disk), STRIPE, RUNTIME; see bench/stripe.
bench: all
	bash tests/install-deps.sh --bench
	LVX=$(BUILD)/lvx bash bench/stripe

# Honours PREFIX and DESTDIR; lvx.pc is generated for the final PREFIX.
install: all
	install -d $(DESTDIR)$(PREFIX)/sbin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include \
		$(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 755 $(BUILD)/lvx $(DESTDIR)$(PREFIX)/sbin/lvx
	install -m 644 $(BUILD)/liblvx.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(BUILD)/liblvx.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/
	ln -sf liblvx.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/liblvx.so.$(SOVERSION)
	ln -sf liblvx.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/liblvx.so
	install -m 644 include/lvx.h $(DESTDIR)$(PREFIX)/include/lvx.h
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' lvx.pc.in \
		>$(DESTDIR)$(PREFIX)/lib/pkgconfig/lvx.pc
	chmod 644 $(DESTDIR)$(PREFIX)/lib/pkgconfig/lvx.pc
	install -d $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(BASHCOMPDIR)
	install -m 644 $(BUILD)/man/*.8 $(DESTDIR)$(MANDIR)/man8/
	install -m 644 $(BUILD)/completion/lvx $(DESTDIR)$(BASHCOMPDIR)/lvx
	$(if $(filter 1,$(LVM2_NAMES)),$(MAKE) install-lvm-names)

# lvm, pvs, lvcreate, ... as links to lvx in $(PREFIX)/sbin, with their man page and
# completion links (tools/lvm-names.sh: refuses to replace a file that is not its link,
# unless FORCE=1).  Also `make install LVM2_NAMES=1`.
LVM_NAMES_ENV = DESTDIR="$(DESTDIR)" SBINDIR="$(PREFIX)/sbin" MANDIR="$(MANDIR)" \
	BASHCOMPDIR="$(BASHCOMPDIR)" FORCE="$(FORCE)"
install-lvm-names: man
	$(LVM_NAMES_ENV) sh tools/lvm-names.sh install $(BUILD)/lvm2-names

uninstall:
	$(LVM_NAMES_ENV) sh tools/lvm-names.sh uninstall
	rm -f $(DESTDIR)$(PREFIX)/sbin/lvx $(DESTDIR)$(PREFIX)/lib/liblvx.a \
		$(DESTDIR)$(PREFIX)/lib/liblvx.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/liblvx.so.$(SOVERSION) \
		$(DESTDIR)$(PREFIX)/lib/liblvx.so $(DESTDIR)$(PREFIX)/include/lvx.h \
		$(DESTDIR)$(PREFIX)/lib/pkgconfig/lvx.pc $(DESTDIR)$(BASHCOMPDIR)/lvx
	rm -f $(DESTDIR)$(MANDIR)/man8/lvx.8 $(DESTDIR)$(MANDIR)/man8/lvx-*.8

clean:
	rm -rf build build-asan build-fuzz build-fuzz-smoke

-include $(LIB_OBJ:.o=.d) $(BIN_OBJ:.o=.d) $(TESTLIB_OBJ:.o=.d) $(BUILD)/obj/tools/docgen.d \
         $(UNIT_SRC:tests/unit/%.c=$(BUILD)/obj/tests/unit/%.d)
