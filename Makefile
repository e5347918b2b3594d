# SPDX-License-Identifier: GPL-2.0-only
# khsend — check a kernel patch series for "fixed" jokes before sending it.
#
# The following variables may be overridden on the command line:
#   make PREFIX=/usr DESTDIR=/tmp/pkg install   # and the same for uninstall
#   make check SAN=1        # AddressSanitizer + UBSan build, then the suite
#   make DEVELOPER=0        # without -Werror
#   make PYTHON3=/usr/bin/python3   # the python3 with kconfiglib, for khsend boot
PREFIX ?= /usr/local
BINDIR := $(PREFIX)/bin
DATADIR := $(PREFIX)/share/khsend
LIBEXECDIR := $(PREFIX)/lib/khsend
MANDIR ?= $(PREFIX)/share/man
LOCALEDIR := $(PREFIX)/share/locale
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
DESTDIR ?=
CC ?= cc
PKG_CONFIG ?= pkg-config
INSTALL ?= install
BATS ?= bats
MSGFMT ?= msgfmt
XGETTEXT ?= xgettext
MSGMERGE ?= msgmerge
SAN ?=
DEVELOPER ?= 1
# The interpreter Debian's python3-kconfiglib belongs to (khsend boot's Kconfig chase).
PYTHON3 ?= /usr/bin/python3

ifeq ($(shell $(PKG_CONFIG) --exists libgit2 yaml-0.1 libpcre2-8 && echo yes),)
$(error libgit2, libyaml and PCRE2 are needed: apt-get install libgit2-dev libyaml-dev libpcre2-dev pkg-config)
endif

ifeq ($(shell command -v $(MSGFMT)),)
$(error gettext is needed for the message catalogues: apt-get install gettext)
endif

ifeq ($(SAN),)
OUT := build
SANFLAGS :=
else
OUT := build-san
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
endif

WARNINGS := -Wall -Wextra -Wformat-security -Wpointer-arith -Wstrict-prototypes \
	-Wmissing-prototypes -Wvla -Wwrite-strings -Wshadow -Wold-style-definition \
	-Wno-unused-parameter
ifeq ($(DEVELOPER),1)
WARNINGS += -Werror
endif

CFLAGS ?= -O2 -g
override CFLAGS += -std=gnu11 $(WARNINGS) $(SANFLAGS) \
	$(shell $(PKG_CONFIG) --cflags libgit2 yaml-0.1 libpcre2-8)
override CPPFLAGS += -MMD -MP -Iwrapper -DKHSEND_PYTHON='"$(PYTHON3)"'
override LDFLAGS += $(SANFLAGS)
LDLIBS += $(shell $(PKG_CONFIG) --libs libgit2 yaml-0.1 libpcre2-8)

# One folder per pipeline stage (wrapper/<stage>/); the guest's init is not part of khsend.
SRCS := wrapper/khsend.c $(sort $(filter-out wrapper/guest/%,$(wildcard wrapper/*/*.c)))

OBJS := $(SRCS:wrapper/%.c=$(OUT)/%.o) $(OUT)/policy/embedded-policy.o $(OUT)/policy/embedded-lexicon.o \
	$(OUT)/hook/embedded-hooks.o
PROG := $(OUT)/khsend
# The guest's /init for khsend boot: static, so the initramfs needs nothing else.
# Never sanitized (ASan cannot link statically); khsend finds it beside itself.
BOOT_INIT := $(OUT)/boot-init
BOOT_INIT_CC ?= gcc

# What make install puts where, and make uninstall takes away again.
MANPAGES := doc/khsend.1 doc/khsend-policy.5
COMPLETION := completion/khsend.bash
HOOKS := $(wildcard hooks/*)
# More files for $(DATADIR) (beside policy.yaml) and for $(LIBEXECDIR); khsend boot adds its own.
DATA_FILES := data/boot.config data/compile.config data/kconfig-chase.py
LIBEXEC_FILES := $(BOOT_INIT)
# khsend's messages in other languages: po/<lang>.po for each line of po/LINGUAS,
# built into $(OUT)/locale/, where the khsend beside it finds them.
LINGUAS := $(shell sed -e 's/\#.*//' po/LINGUAS)
MO_FILES := $(LINGUAS:%=$(OUT)/locale/%/LC_MESSAGES/khsend.mo)

all: $(PROG) $(BOOT_INIT) $(MO_FILES)

$(PROG): $(OBJS)
	$(CC) $(CFLAGS) -o $@ $(OBJS) $(LDFLAGS) $(LDLIBS)

$(OUT)/%.o: wrapper/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(OUT)/policy/embedded-policy.o: wrapper/policy/embedded-policy.S policy.yaml
	@mkdir -p $(@D)
	$(CC) -c -DKHSEND_POLICY_FILE='"policy.yaml"' -o $@ wrapper/policy/embedded-policy.S

# The word lists, one after another, each after a "%category NAME" line (policy/lexicon.c).
LEXICON := $(sort $(wildcard tools/lexicon/*.txt))
$(OUT)/lexicon.txt: $(LEXICON)
	@mkdir -p $(@D)
	for f in $(LEXICON); do n=$${f##*/}; printf '%%category %s\n' "$${n%.txt}"; cat "$$f"; echo; done > $@+
	mv $@+ $@

$(OUT)/policy/embedded-lexicon.o: wrapper/policy/embedded-lexicon.S $(OUT)/lexicon.txt
	@mkdir -p $(@D)
	$(CC) -c -DKHSEND_LEXICON_FILE='"$(OUT)/lexicon.txt"' -o $@ wrapper/policy/embedded-lexicon.S

$(OUT)/hook/embedded-hooks.o: wrapper/hook/embedded-hooks.S $(HOOKS)
	@mkdir -p $(@D)
	$(CC) -c -o $@ wrapper/hook/embedded-hooks.S

$(BOOT_INIT): wrapper/guest/boot-init.c | $(OUT)
	$(BOOT_INIT_CC) -static -Os -std=gnu11 -Wall -Wextra $(if $(filter 1,$(DEVELOPER)),-Werror) -o $@ $<

$(OUT):
	mkdir -p $@

# msgfmt --check: the header, and format strings that match the English ones.
$(OUT)/locale/%/LC_MESSAGES/khsend.mo: po/%.po
	@mkdir -p $(@D)
	$(MSGFMT) --check -o $@ $<

# The messages marked with _(), N_() and Q_() in the sources, for translators.
XGETTEXT_FLAGS := --from-code=UTF-8 --language=C --keyword=_ --keyword=N_ --keyword=Q_:1,2 \
	--add-comments=TRANSLATORS: --package-name=khsend --sort-by-file --no-wrap
pot:
	$(XGETTEXT) $(XGETTEXT_FLAGS) -o po/khsend.pot $(SRCS)

# After changing messages: the template again, merged into every translation.
po: pot
	for l in $(LINGUAS); do $(MSGMERGE) --quiet --no-wrap --update --backup=none po/$$l.po po/khsend.pot || exit; done

-include $(OBJS:.o=.d)

# Fuzz targets (libFuzzer, clang): the policy loader and the series reader.
FUZZ_CC ?= clang
FUZZ_FLAGS := -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined
# The stages the fuzz targets drive, without the commands.
LIB_SRCS := $(filter-out $(wildcard wrapper/*/cmd-*.c),$(wildcard $(addprefix wrapper/,$(addsuffix /*.c,lib policy series check))))
FUZZ_OBJS := $(LIB_SRCS:wrapper/%.c=build-fuzz/%.o) build-fuzz/policy/embedded-policy.o \
	build-fuzz/policy/embedded-lexicon.o
FUZZERS := build-fuzz/policy-fuzz build-fuzz/patch-fuzz

fuzz: $(FUZZERS)

build-fuzz/%.o: wrapper/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(CPPFLAGS) -std=gnu11 $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

build-fuzz/policy/embedded-lexicon.o: wrapper/policy/embedded-lexicon.S $(OUT)/lexicon.txt
	@mkdir -p $(@D)
	$(FUZZ_CC) -c -DKHSEND_LEXICON_FILE='"$(OUT)/lexicon.txt"' -o $@ wrapper/policy/embedded-lexicon.S

build-fuzz/policy/embedded-policy.o: wrapper/policy/embedded-policy.S policy.yaml
	@mkdir -p $(@D)
	$(FUZZ_CC) -c -DKHSEND_POLICY_FILE='"policy.yaml"' -o $@ wrapper/policy/embedded-policy.S

build-fuzz/%-fuzz: tests/fuzz/%-fuzz.c $(FUZZ_OBJS)
	$(FUZZ_CC) -std=gnu11 $(FUZZ_FLAGS) -fsanitize=fuzzer -Iwrapper -o $@ $< $(FUZZ_OBJS) $(LDLIBS)

build-fuzz:
	mkdir -p $@

-include $(FUZZ_OBJS:.o=.d)

# Nothing is compiled for PREFIX: the binary finds its files at run time, from
# where it is (<prefix>/bin/khsend reads <prefix>/share/khsend and
# <prefix>/lib/khsend).  So "make" as yourself, then "sudo make install
# PREFIX=/usr" copies what was built and writes nothing into $(OUT); only the
# installed man pages are edited on their way to name the installed paths.
# DATADIR and LIBEXECDIR are therefore fixed below PREFIX.
MAN_SED := -e 's|/usr/local/share/khsend|$(DATADIR)|g' -e 's|/usr/local/lib/khsend|$(LIBEXECDIR)|g'
# PYTHON3 is compiled in (Debian's kconfiglib belongs to that interpreter).
$(OUT)/python.stamp: FORCE | $(OUT)
	@echo '$(PYTHON3)' | cmp -s - $@ || echo '$(PYTHON3)' > $@
$(OUT)/boot/boot-kconfig.o: $(OUT)/python.stamp

install: $(PROG) $(BOOT_INIT) $(MO_FILES)
	$(INSTALL) -d -m 755 "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(DATADIR)" "$(DESTDIR)$(MANDIR)/man1" \
		"$(DESTDIR)$(MANDIR)/man5" "$(DESTDIR)$(BASHCOMPDIR)"
	$(INSTALL) -m 755 $(PROG) "$(DESTDIR)$(BINDIR)/khsend"
	$(INSTALL) -m 644 policy.yaml $(DATA_FILES) "$(DESTDIR)$(DATADIR)/"
ifneq ($(HOOKS),)
	$(INSTALL) -d -m 755 "$(DESTDIR)$(DATADIR)/hooks"
	$(INSTALL) -m 755 $(HOOKS) "$(DESTDIR)$(DATADIR)/hooks/"
endif
ifneq ($(LIBEXEC_FILES),)
	$(INSTALL) -d -m 755 "$(DESTDIR)$(LIBEXECDIR)"
	$(INSTALL) -m 755 $(LIBEXEC_FILES) "$(DESTDIR)$(LIBEXECDIR)/"
endif
	sed $(MAN_SED) doc/khsend.1 > "$(DESTDIR)$(MANDIR)/man1/khsend.1"
	sed $(MAN_SED) doc/khsend-policy.5 > "$(DESTDIR)$(MANDIR)/man5/khsend-policy.5"
	chmod 644 "$(DESTDIR)$(MANDIR)/man1/khsend.1" "$(DESTDIR)$(MANDIR)/man5/khsend-policy.5"
	$(INSTALL) -m 644 $(COMPLETION) "$(DESTDIR)$(BASHCOMPDIR)/khsend"
	for l in $(LINGUAS); do \
		$(INSTALL) -d -m 755 "$(DESTDIR)$(LOCALEDIR)/$$l/LC_MESSAGES" && \
		$(INSTALL) -m 644 "$(OUT)/locale/$$l/LC_MESSAGES/khsend.mo" "$(DESTDIR)$(LOCALEDIR)/$$l/LC_MESSAGES/" || exit; \
	done

# The mirror of install: the same files, then the directories that are khsend's own.
uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/khsend" \
		$(foreach f,policy.yaml $(DATA_FILES),"$(DESTDIR)$(DATADIR)/$(notdir $(f))") \
		$(foreach f,$(HOOKS),"$(DESTDIR)$(DATADIR)/hooks/$(notdir $(f))") \
		$(foreach f,$(LIBEXEC_FILES),"$(DESTDIR)$(LIBEXECDIR)/$(notdir $(f))") \
		"$(DESTDIR)$(MANDIR)/man1/khsend.1" "$(DESTDIR)$(MANDIR)/man5/khsend-policy.5" \
		"$(DESTDIR)$(BASHCOMPDIR)/khsend" \
		$(foreach l,$(LINGUAS),"$(DESTDIR)$(LOCALEDIR)/$(l)/LC_MESSAGES/khsend.mo")
	for d in "$(DESTDIR)$(DATADIR)/hooks" "$(DESTDIR)$(DATADIR)" "$(DESTDIR)$(LIBEXECDIR)"; do \
		if [ -d "$$d" ]; then rmdir "$$d" 2>/dev/null || echo "not removed, not empty: $$d"; fi; \
	done

# The suite runs against $(PROG); KHSEND_SAN tells it a sanitizer build is under test.
check: all
	KHSEND=$(abspath $(PROG)) KHSEND_SAN=$(SAN) $(BATS) $(if $(CI),--tap) tests

# The README's main job (./quickstart.sh demo): the example series on the built-in defaults.
demo: all
	KHSEND=$(abspath $(PROG)) tools/demo.sh

# git's own send-email tests (t9001 of git 2.39.5) with the real git send-email, then with
# khsend --no-boot in its place: the two must pass and fail alike, but for the tests listed in
# tests/compat/t9001-known-differences.  Fetches and builds git's test tools once, into
# KHSEND_COMPAT_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/khsend-compat).
compat: $(PROG)
	KHSEND=$(abspath $(PROG)) tests/compat/t9001.sh

# What CI runs (./quickstart.sh test): the suite with the plain build, then with ASan/UBSan,
# then git's own send-email tests against khsend.
ci:
	$(MAKE) check
	$(MAKE) check SAN=1
	$(MAKE) compat

clean:
	rm -rf build build-san build-fuzz

.PHONY: all check ci clean compat demo fuzz install uninstall po pot FORCE

# Benchmarks are not part of the suite: speed goals live here, not in timed tests.
bench: $(PROG) bench-send
	KHSEND=$(abspath $(PROG)) tests/bench/check.sh

# khsend's added time over plain git send-email --dry-run, 30 patches (target <= 100 ms).
bench-send: $(PROG)
	KHSEND=$(abspath $(PROG)) tests/bench/send.sh

# Cold and warm wall time of khsend boot for a one-file series, split into build and boot.
bench-boot: $(PROG) $(BOOT_INIT)
	KHSEND=$(abspath $(PROG)) bash tests/bench/boot.sh

# The series "codespell -w" makes of the whole packaged tree, and khsend check on it.
bench-codespell: $(PROG)
	KHSEND=$(abspath $(PROG)) tests/bench/codespell.sh

.PHONY: bench bench-send bench-boot bench-codespell
