# khsend — check a kernel patch series for "fixed" jokes before sending it.
#
# The following variables may be overridden on the command line:
#   make PREFIX=/usr DESTDIR=/tmp/pkg install
#   make check SAN=1        # AddressSanitizer + UBSan build, then the suite
#   make DEVELOPER=0        # without -Werror
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share/khsend
LIBEXECDIR ?= $(PREFIX)/lib/khsend
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
DESTDIR ?=
CC ?= cc
PKG_CONFIG ?= pkg-config
INSTALL ?= install
BATS ?= bats
SAN ?=
DEVELOPER ?= 1

ifeq ($(shell $(PKG_CONFIG) --exists libgit2 yaml-0.1 && echo yes),)
$(error libgit2 and libyaml are needed: apt-get install libgit2-dev libyaml-dev pkg-config)
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
	$(shell $(PKG_CONFIG) --cflags libgit2 yaml-0.1)
override CPPFLAGS += -MMD -MP -DKHSEND_DATADIR='"$(DATADIR)"' -DKHSEND_LIBEXECDIR='"$(LIBEXECDIR)"'
override LDFLAGS += $(SANFLAGS)
LDLIBS += $(shell $(PKG_CONFIG) --libs libgit2 yaml-0.1)

SRCS := \
	wrapper/khsend.c \
	wrapper/boot.c \
	wrapper/boot-build.c \
	wrapper/boot-child.c \
	wrapper/boot-coverage.c \
	wrapper/boot-initramfs.c \
	wrapper/boot-kconfig.c \
	wrapper/boot-progress.c \
	wrapper/boot-qemu.c \
	wrapper/boot-results.c \
	wrapper/boot-tree.c \
	wrapper/boot-verdict.c \
	wrapper/cmd-boot.c \
	wrapper/cmd-check.c \
	wrapper/cmd-policy.c \
	wrapper/cmd-scan.c \
	wrapper/color.c \
	wrapper/detect.c \
	wrapper/gitutil.c \
	wrapper/glob.c \
	wrapper/json.c \
	wrapper/parse-options.c \
	wrapper/path.c \
	wrapper/policy.c \
	wrapper/report.c \
	wrapper/revisions.c \
	wrapper/run-command.c \
	wrapper/series.c \
	wrapper/strbuf.c \
	wrapper/strvec.c \
	wrapper/usage.c

OBJS := $(SRCS:wrapper/%.c=$(OUT)/%.o) $(OUT)/embedded-policy.o
PROG := $(OUT)/khsend
# The guest's /init for khsend boot: static, so the initramfs needs nothing else.
# Never sanitized (ASan cannot link statically); khsend finds it beside itself.
BOOT_INIT := $(OUT)/boot-init
BOOT_INIT_CC ?= gcc

all: $(PROG) $(BOOT_INIT)

$(PROG): $(OBJS)
	$(CC) $(CFLAGS) -o $@ $(OBJS) $(LDFLAGS) $(LDLIBS)

$(OUT)/%.o: wrapper/%.c | $(OUT)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(OUT)/embedded-policy.o: wrapper/embedded-policy.S policy.yaml | $(OUT)
	$(CC) -c -DKHSEND_POLICY_FILE='"policy.yaml"' -o $@ wrapper/embedded-policy.S

$(BOOT_INIT): wrapper/boot-init.c | $(OUT)
	$(BOOT_INIT_CC) -static -Os -std=gnu11 -Wall -Wextra $(if $(filter 1,$(DEVELOPER)),-Werror) -o $@ $<

$(OUT):
	mkdir -p $@

-include $(OBJS:.o=.d)

# The suite runs against $(PROG); KHSEND_SAN tells it a sanitizer build is under test.
check: $(PROG) $(BOOT_INIT)
	KHSEND=$(abspath $(PROG)) KHSEND_SAN=$(SAN) $(BATS) $(if $(CI),--tap) tests

# Cold and warm wall time of khsend boot for a one-file series, split into build and boot.
bench-boot: $(PROG) $(BOOT_INIT)
	KHSEND=$(abspath $(PROG)) bash bench/bench-boot.sh

install: $(PROG) $(BOOT_INIT)
	$(INSTALL) -m 755 -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(DATADIR)
	$(INSTALL) -m 755 $(PROG) $(DESTDIR)$(BINDIR)/khsend
	$(INSTALL) -m 755 $(BOOT_INIT) $(DESTDIR)$(LIBEXECDIR)/boot-init
	$(INSTALL) -m 644 data/boot.config $(DESTDIR)$(DATADIR)/boot.config

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/khsend $(DESTDIR)$(LIBEXECDIR)/boot-init \
		$(DESTDIR)$(DATADIR)/boot.config

clean:
	rm -rf build build-san

.PHONY: all check clean bench-boot install uninstall
