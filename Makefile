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
	wrapper/cmd-check.c \
	wrapper/cmd-policy.c \
	wrapper/cmd-reply.c \
	wrapper/cmd-scan.c \
	wrapper/color.c \
	wrapper/detect.c \
	wrapper/gitutil.c \
	wrapper/glob.c \
	wrapper/json.c \
	wrapper/mail.c \
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

all: $(PROG)

$(PROG): $(OBJS)
	$(CC) $(CFLAGS) -o $@ $(OBJS) $(LDFLAGS) $(LDLIBS)

$(OUT)/%.o: wrapper/%.c | $(OUT)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(OUT)/embedded-policy.o: wrapper/embedded-policy.S policy.yaml | $(OUT)
	$(CC) -c -DKHSEND_POLICY_FILE='"policy.yaml"' -o $@ wrapper/embedded-policy.S

$(OUT):
	mkdir -p $@

-include $(OBJS:.o=.d)

# The suite runs against $(PROG); KHSEND_SAN tells it a sanitizer build is under test.
check: $(PROG)
	KHSEND=$(abspath $(PROG)) KHSEND_SAN=$(SAN) $(BATS) $(if $(CI),--tap) tests

clean:
	rm -rf build build-san

.PHONY: all check clean
