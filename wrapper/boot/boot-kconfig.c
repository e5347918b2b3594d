// SPDX-License-Identifier: GPL-2.0-only
/*
 * boot-kconfig: tinyconfig builds almost nothing, so a smoke test of a
 * driver fix would boot a kernel without the driver.  For each touched
 * .c file the kbuild Makefiles say which symbol builds it:
 *   obj-$(CONFIG_FOO) += x.o          in its directory,
 *   foo-y := x.o / foo-objs / foo-$(CONFIG_BAR) += x.o   (a composite foo.o),
 *   obj-$(CONFIG_BAZ) += dir/         in a parent, up to the top Kbuild;
 * and a file no Makefile names may be #included by one that is
 * (kernel/sched/topology.c inside build_utility.c, under #ifdef
 * CONFIG_SMP).  Those symbols are added to the fragment as =y.  This reads Makefiles
 * the way people write them, not the way make evaluates them: conditions
 * around a line (ifdef ...) are not followed, and the final .config is
 * checked for what really got enabled.
 */
#define _GNU_SOURCE
#include "boot/boot-internal.h"
#include "lib/path.h"
#include "lib/usage.h"

#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_DEPTH 24

/* One "var op values" assignment of a Makefile, continuation lines joined. */
struct assignment {
	char *var;
	char *values;
};

struct makefile {
	struct assignment *a;
	size_t nr, alloc;
};

static void
makefile_release(struct makefile *mf)
{
	for (size_t i = 0; i < mf->nr; i++) {
		free(mf->a[i].var);
		free(mf->a[i].values);
	}
	free(mf->a);
	mf->a = NULL;
	mf->nr = mf->alloc = 0;
}

static void
parse_logical_line(struct makefile *mf, char *line)
{
	char *hash = strchr(line, '#'), *op, *var_end, *var = line;

	if (hash)
		*hash = '\0';
	if (line[0] == '\t')
		return;	/* a recipe */
	op = strchr(line, '=');
	if (!op || op == line)
		return;
	var_end = op;
	if (op[-1] == '+' || op[-1] == ':' || op[-1] == '?')
		var_end--;
	while (*var == ' ' || *var == '\t')
		var++;
	while (var_end > var && (var_end[-1] == ' ' || var_end[-1] == '\t'))
		var_end--;
	if (var_end <= var || memchr(var, ' ', (size_t)(var_end - var)))
		return;	/* "ifeq (a,b)" and the like, not an assignment */
	ALLOC_GROW(mf->a, mf->nr + 1, mf->alloc);
	mf->a[mf->nr].var = xstrndup(var, (size_t)(var_end - var));
	mf->a[mf->nr].values = xstrdup(op + 1);
	mf->nr++;
}

static void
makefile_read(struct makefile *mf, const char *path)
{
	struct strbuf sb = STRBUF_INIT, logical = STRBUF_INIT;
	char *p;

	if (strbuf_read_file(&sb, path, 4 << 20) < 0) {
		strbuf_release(&sb);
		return;
	}
	for (p = sb.buf; *p;) {
		char *nl = strchrnul(p, '\n');
		size_t len = (size_t)(nl - p);

		if (len && p[len - 1] == '\\') {
			strbuf_add(&logical, p, len - 1);
			strbuf_addch(&logical, ' ');
		} else {
			strbuf_add(&logical, p, len);
			parse_logical_line(mf, logical.buf);
			strbuf_reset(&logical);
		}
		p = *nl ? nl + 1 : nl;
	}
	strbuf_release(&sb);
	strbuf_release(&logical);
}

/* Does the value list hold this word?  $(SRCARCH) is x86 for us. */
static int
values_have(const char *values, const char *word)
{
	size_t wlen = strlen(word);

	for (const char *p = values; *p;) {
		const char *end;

		while (*p == ' ' || *p == '\t')
			p++;
		end = p;
		while (*end && *end != ' ' && *end != '\t')
			end++;
		if ((size_t)(end - p) == wlen && !memcmp(p, word, wlen))
			return 1;
		if (skip_prefix(p, "arch/$(SRCARCH)/", &p) && starts_with(word, "arch/x86/") &&
		    (size_t)(end - p) == wlen - 9 && !memcmp(p, word + 9, wlen - 9))
			return 1;
		p = end;
	}
	return 0;
}

/* The CONFIG_ symbol in "obj-$(CONFIG_FOO)" or "obj-$(subst m,y,$(CONFIG_FOO))". */
static char *
symbol_in(const char *suffix)
{
	const char *p = strstr(suffix, "$(CONFIG_"), *end;

	if (!p)
		return NULL;
	p += 9;
	for (end = p; (*end >= 'A' && *end <= 'Z') || (*end >= '0' && *end <= '9') || *end == '_'; end++)
		;
	return end > p ? xstrndup(p, (size_t)(end - p)) : NULL;
}

static int
is_list_prefix(const char *prefix, size_t len)
{
	static const char *const lists[] = {
		"obj", "lib", "core", "drivers", "libs", "extra", "head", "always", NULL,
	};

	for (size_t i = 0; lists[i]; i++)
		if (strlen(lists[i]) == len && !memcmp(lists[i], prefix, len))
			return 1;
	return 0;
}

static int resolve(const char *src, const char *path, int is_dir, struct strvec *symbols, int depth);

/*
 * Look for `word` (path relative to dir) in dir's Makefile and Kbuild.
 * 1 resolved, 0 not mentioned, -1 mentioned but only as a module.
 */
static int
find_in_dir(const char *src, const char *dir, const char *word, struct strvec *symbols, int depth)
{
	static const char *const names[] = { "Makefile", "Kbuild", NULL };
	int module_only = 0;

	for (size_t n = 0; names[n]; n++) {
		struct makefile mf = { NULL, 0, 0 };
		char *path = *dir ? xstrfmt("%s/%s/%s", src, dir, names[n]) : xstrfmt("%s/%s", src, names[n]);
		int ret = 0;

		makefile_read(&mf, path);
		/* The top Makefile includes the arch one, which names arch/x86/ directories. */
		if (!*dir && n == 0) {
			free(path);
			path = xstrfmt("%s/arch/x86/Makefile", src);
			makefile_read(&mf, path);
		}
		free(path);
		for (size_t i = 0; i < mf.nr && !ret; i++) {
			const char *var = mf.a[i].var, *dash = strrchr(var, '-'), *suffix;
			char *sym, *composite;

			/* "obj-$(CONFIG_X)" has its dash before the "$(": find the list's dash. */
			if (strstr(var, "-$("))
				dash = strstr(var, "-$(");
			if (!dash || !values_have(mf.a[i].values, word))
				continue;
			suffix = dash + 1;
			if (!strcmp(suffix, "m")) {
				module_only = 1;
				continue;
			}
			sym = symbol_in(suffix);
			if (!sym && strcmp(suffix, "y") && strcmp(suffix, "objs"))
				continue;	/* ccflags-..., subdir-..., and the like */
			if (sym && !strvec_contains(symbols, sym))
				strvec_push(symbols, sym);
			free(sym);
			if (is_list_prefix(var, (size_t)(dash - var))) {
				/* Built if dir itself is: go on with the directory. */
				ret = *dir ? resolve(src, dir, 1, symbols, depth + 1) : 1;
				continue;
			}
			/* Part of a composite object: how is that one built? */
			composite = *dir ? xstrfmt("%s/%.*s.o", dir, (int)(dash - var), var)
					 : xstrfmt("%.*s.o", (int)(dash - var), var);
			ret = resolve(src, composite, 0, symbols, depth + 1);
			free(composite);
		}
		makefile_release(&mf);
		if (ret)
			return ret;
	}
	return module_only ? -1 : 0;
}

/* path: "dir/x.o" (an object) or "dir/sub" (a directory), relative to src. */
static int
resolve(const char *src, const char *path, int is_dir, struct strvec *symbols, int depth)
{
	char *dir = xstrdup(path);
	int ret = 0;

	if (depth > MAX_DEPTH) {
		free(dir);
		return 0;
	}
	/* Try the directory holding it, then each parent with the longer relative path. */
	for (;;) {
		char *slash = strrchr(dir, '/');
		const char *rel;
		char *word;

		if (slash)
			*slash = '\0';
		else
			dir[0] = '\0';
		rel = path + (dir[0] ? strlen(dir) + 1 : 0);
		word = xstrfmt("%s%s", rel, is_dir ? "/" : "");
		ret = find_in_dir(src, dir, word, symbols, depth);
		free(word);
		if (ret || !dir[0])
			break;
	}
	free(dir);
	return ret > 0;
}

/* The CONFIG_ symbol an "#if..." line tests, if it tests exactly one plainly. */
static char *
guard_symbol(const char *line)
{
	const char *p = line + 1;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!starts_with(p, "ifdef") && !starts_with(p, "if ") && !starts_with(p, "if\t") &&
	    !starts_with(p, "if("))
		return NULL;
	if (strstr(p, "ifndef") || strstr(p, "!") || strstr(p, "||"))
		return NULL;
	p = strstr(p, "CONFIG_");
	if (!p)
		return NULL;
	p += 7;
	{
		const char *end = p;

		while (isalnum((unsigned char)*end) || *end == '_')
			end++;
		return end > p ? xstrndup(p, (size_t)(end - p)) : NULL;
	}
}

/*
 * If a .c file in the same directory #includes `name`, push the symbols of
 * the #if blocks around that line and return the includer (malloc()ed).
 */
static char *
find_includer(const char *src, const char *dir, const char *name, struct strvec *symbols)
{
	char *path = xstrfmt("%s/%s", src, dir), *found = NULL;
	DIR *d = opendir(path);
	struct dirent *e;

	free(path);
	if (!d)
		return NULL;
	while (!found && (e = readdir(d))) {
		struct strbuf sb = STRBUF_INIT;
		struct strvec guards = STRVEC_INIT;	/* one entry per open #if, "" if not a symbol */
		char *file;

		if (!ends_with(e->d_name, ".c") || !strcmp(e->d_name, name))
			continue;
		file = xstrfmt("%s/%s/%s", src, dir, e->d_name);
		if (strbuf_read_file(&sb, file, 8 << 20) < 0) {
			free(file);
			strbuf_release(&sb);
			continue;
		}
		free(file);
		for (char *p = sb.buf; *p && !found;) {
			char *nl = strchrnul(p, '\n'), *q = p;
			int more = *nl != '\0';

			*nl = '\0';
			while (*q == ' ' || *q == '\t')
				q++;
			if (*q == '#') {
				char *d2 = q + 1;

				while (*d2 == ' ' || *d2 == '\t')
					d2++;
				if (starts_with(d2, "if")) {
					char *sym = guard_symbol(q);

					strvec_push_nodup(&guards, sym ? sym : xstrdup(""));
				} else if (starts_with(d2, "endif") && guards.nr) {
					free((char *)guards.v[--guards.nr]);
					guards.v[guards.nr] = NULL;
				} else if (starts_with(d2, "include")) {
					char *quoted = xstrfmt("\"%s\"", name);

					if (strstr(d2, quoted)) {
						for (size_t i = 0; i < guards.nr; i++)
							if (*guards.v[i] && !strvec_contains(symbols, guards.v[i]))
								strvec_push(symbols, guards.v[i]);
						found = xstrfmt("%s/%s", dir, e->d_name);
					}
					free(quoted);
				}
			}
			p = more ? nl + 1 : nl;
		}
		strvec_clear(&guards);
		strbuf_release(&sb);
	}
	closedir(d);
	return found;
}

static int
symbols_for(const char *src, const char *path, struct strvec *symbols, int depth)
{
	struct strbuf obj = STRBUF_INIT;
	int ret;

	if (depth > 4)
		return 0;
	strbuf_addstr(&obj, path);
	if (ends_with(obj.buf, ".c") || ends_with(obj.buf, ".S"))
		strbuf_setlen(&obj, obj.len - 2);
	strbuf_addstr(&obj, ".o");
	ret = resolve(src, obj.buf, 0, symbols, 0);
	if (!ret && ends_with(path, ".c")) {
		char *dir = xstrdup(path), *slash = strrchr(dir, '/');
		char *includer;

		if (slash) {
			*slash = '\0';
			includer = find_includer(src, dir, slash + 1, symbols);
			if (includer)
				ret = symbols_for(src, includer, symbols, depth + 1);
			free(includer);
		}
		free(dir);
	}
	strbuf_release(&obj);
	return ret;
}

char *
kconfig_includer(const char *src, const char *path)
{
	struct strvec ignored = STRVEC_INIT;
	char *dir = xstrdup(path), *slash = strrchr(dir, '/'), *found = NULL;

	if (slash) {
		*slash = '\0';
		found = find_includer(src, dir, slash + 1, &ignored);
	}
	strvec_clear(&ignored);
	free(dir);
	return found;
}

int
kconfig_symbols_for(const char *src, const char *path, struct strvec *symbols)
{
	return symbols_for(src, path, symbols, 0);
}

/* scripts/kconfig/merge_config.sh -m: the fragment onto build/.config, nothing settled yet. */
static int
merge_fragment(const char *src, const char *build, const char *fragment, int log_fd)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct watch w = { log_fd, NULL, -1, NULL, NULL, NULL };
	char *config = xstrfmt("%s/.config", build);
	char *script = xstrfmt("%s/scripts/kconfig/merge_config.sh", src);
	enum watch_end end;
	int outcome, rc = 0;

	strvec_pushl(&cp.args, script, "-m", "-O", build, config, fragment, NULL);
	strvec_pushl(&cp.env, "LC_ALL=C", "KCONFIG_CONFIG", NULL);
	cp.dir = build;
	end = watch_command(&cp, &w, &outcome);
	if (end == WATCH_INTERRUPTED || end == WATCH_NOT_STARTED)
		rc = -1;
	else if (outcome)
		rc = 1;
	free(config);
	free(script);
	return rc;
}

/* Is CONFIG_<sym> =y (or, with module, =m as well) in this .config text (a leading newline)? */
static int
config_has(const struct strbuf *config, const char *sym, int module)
{
	char *y = xstrfmt("\nCONFIG_%s=y\n", sym), *m = xstrfmt("\nCONFIG_%s=m\n", sym);
	int found = strstr(config->buf, y) || (module && strstr(config->buf, m));

	free(y);
	free(m);
	return found;
}

int
kconfig_state(const char *build, const char *sym)
{
	struct strbuf config = STRBUF_INIT;
	char *path = xstrfmt("%s/.config", build);
	int state = -1;

	strbuf_addch(&config, '\n');
	if (strbuf_read_file(&config, path, 0) >= 0)
		state = config_has(&config, sym, 0) ? 2 : config_has(&config, sym, 1) ? 1 : 0;
	strbuf_release(&config);
	free(path);
	return state;
}

/* The environment the kernel's Makefile gives scripts/kconfig/conf, for kconfiglib. */
static void
kconfig_env(struct child_process *cp, const char *src)
{
	struct child_process gcc = CHILD_PROCESS_INIT;
	struct strbuf version = STRBUF_INIT;

	strvec_pushl(&gcc.args, "gcc", "--version", NULL);
	strvec_push(&gcc.env, "LC_ALL=C");
	capture_command(&gcc, &version);
	strbuf_setlen(&version, strchrnul(version.buf, '\n') - version.buf);
	strvec_pushf(&cp->env, "srctree=%s", src);
	strvec_pushl(&cp->env, "ARCH=x86_64", "SRCARCH=x86", "CC=gcc", "LD=ld", "HOSTCC=gcc",
		     "HOSTCXX=g++", "KERNELVERSION=khsend", "LC_ALL=C", "KCONFIG_CONFIG",
		     "KCONFIG_ALLCONFIG", "CROSS_COMPILE", "LLVM", NULL);
	strvec_pushf(&cp->env, "CC_VERSION_TEXT=%s", version.buf);
	strbuf_release(&version);
}

/*
 * kconfiglib (data/kconfig-chase.py) turns on each wanted symbol that
 * olddefconfig left off, with what it depends on; its assignments go to
 * `out` (a fragment) and its verdict per symbol, one line each, to `lines`.
 */
static int
chase(const struct boot_tree *t, const struct strvec *wanted, const char *out,
      struct strvec *lines, int log_fd)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf stdout_buf = STRBUF_INIT, err = STRBUF_INIT;
	char *script = shipped_file(INSTALLED_DATA, "kconfig-chase.py", "../data/kconfig-chase.py");
	char *config = xstrfmt("%s/.config", t->build);
	int rc;

	strvec_pushl(&cp.args, KHSEND_PYTHON, script, "--exclude", "COMPILE_TEST", config, out, NULL);
	strvec_pushv(&cp.args, wanted->v);
	kconfig_env(&cp, t->src);
	cp.dir = t->src;
	cp.new_process_group = 1;
	rc = pipe_command(&cp, NULL, 0, &stdout_buf, &err);
	/* The log is a copy: a short write loses nothing the report needs. */
	if (log_fd >= 0 && write(log_fd, err.buf, err.len) >= 0)
		(void)!write(log_fd, stdout_buf.buf, stdout_buf.len);
	if (rc) {
		strbuf_trim(&err);
		rc = boot_interrupted ? -1
				      : error("the Kconfig dependency chase (%s) failed%s%s", script,
					      err.len ? ":\n" : "", err.buf);
	} else {
		for (char *p = stdout_buf.buf; *p;) {
			char *nl = strchrnul(p, '\n');

			if (nl > p)
				strvec_push_nodup(lines, xstrndup(p, (size_t)(nl - p)));
			p = *nl ? nl + 1 : nl;
		}
	}
	strbuf_release(&stdout_buf);
	strbuf_release(&err);
	free(script);
	free(config);
	return rc;
}

/* How many of `syms` are =y in the build's .config. */
static size_t
count_enabled(const char *build, const struct strvec *syms)
{
	size_t n = 0;

	for (size_t i = 0; i < syms->nr; i++)
		n += kconfig_state(build, syms->v[i]) == 2;
	return n;
}

/*
 * Settle the merged .config as tinyconfig settles tiny.config: "make
 * allnoconfig" with the merged file as KCONFIG_ALLCONFIG, so an option the
 * chase made visible (TCP/IP and IPv6 once NET is on) stays off instead of
 * taking its default; the chase read the config the same way.  Should that
 * leave off a symbol the chase turned on ("ok" in `chased`), olddefconfig
 * settles the merged file instead, defaults and all.
 */
static int
settle_minimal(const struct boot_tree *t, const struct strvec *wanted, const struct strvec *chased,
	       int log_fd)
{
	char *config = xstrfmt("%s/.config", t->build);
	char *merged = xstrfmt("%s/.khsend-merged.config", t->build);
	char *allconfig = xstrfmt("KCONFIG_ALLCONFIG=%s", merged);
	const char *targets[] = { "allnoconfig", NULL }, *env[] = { allconfig, NULL };
	struct make_job job = { NULL, targets, env, 0, log_fd, "config" };
	size_t want = 0;
	int rc;

	for (size_t i = 0; i < chased->nr; i++)
		want += starts_with(chased->v[i], "ok ");
	if (copy_file(merged, config)) {
		rc = error_errno("cannot copy '%s'", config);
		goto out;
	}
	rc = run_make_in(t, &job, NULL);
	if (!rc && count_enabled(t->build, wanted) < want) {
		if (copy_file(config, merged))
			rc = error_errno("cannot copy '%s'", merged);
		else
			rc = run_make(t, "olddefconfig", log_fd, "config", NULL);
	}
out:
	unlink(merged);
	free(config);
	free(merged);
	free(allconfig);
	return rc;
}

int
kconfig_make_config(const struct boot_tree *t, const char *shipped, const struct strvec *wanted,
		    const char *stamp, struct strvec *chased, int log_fd)
{
	char *stamp_path = xstrfmt("%s/.khsend-config", t->build);
	char *chase_path = xstrfmt("%s/.khsend-chase", t->build);
	char *chase_config = xstrfmt("%s/.khsend-chase.config", t->build);
	struct strbuf have = STRBUF_INIT, lines = STRBUF_INIT;
	struct strvec missing = STRVEC_INIT;
	int rc;

	/* The same base, fragment and compiler as last time: the same .config. */
	if (strbuf_read_file(&have, stamp_path, 0) >= 0 && !strcmp(have.buf, stamp) &&
	    read_list_file(chase_path, chased) == 0 && kconfig_state(t->build, "64BIT") == 2) {
		rc = 0;
		goto out;
	}
	strvec_clear(chased);
	unlink(stamp_path);
	rc = run_make(t, "tinyconfig", log_fd, "config", NULL);
	if (!rc)
		rc = merge_fragment(t->src, t->build, shipped, log_fd);
	if (!rc)
		rc = run_make(t, "olddefconfig", log_fd, "config", NULL);
	for (size_t i = 0; !rc && i < wanted->nr; i++)
		if (kconfig_state(t->build, wanted->v[i]) != 2)
			strvec_push(&missing, wanted->v[i]);
	if (!rc && missing.nr) {
		rc = chase(t, &missing, chase_config, chased, log_fd);
		if (!rc)
			rc = merge_fragment(t->src, t->build, chase_config, log_fd);
		if (!rc)
			rc = settle_minimal(t, &missing, chased, log_fd);
	}
	if (!rc && (write_list_file(chase_path, chased) ||
		    write_file_buf(stamp_path, stamp, strlen(stamp))))
		rc = -1;
out:
	free(stamp_path);
	free(chase_path);
	free(chase_config);
	strbuf_release(&have);
	strbuf_release(&lines);
	strvec_clear(&missing);
	return rc;
}

void
kconfig_unmet(const char *build, const char *fragment, struct strvec *unmet)
{
	struct strbuf frag = STRBUF_INIT, config = STRBUF_INIT, want = STRBUF_INIT;
	char *path = xstrfmt("%s/.config", build);

	/* A leading newline lets "\nCONFIG_X=y\n" match the first line too. */
	strbuf_addch(&config, '\n');
	if (strbuf_read_file(&frag, fragment, 0) < 0 || strbuf_read_file(&config, path, 0) < 0)
		goto out;
	for (char *p = frag.buf; *p;) {
		char *nl = strchrnul(p, '\n');

		strbuf_reset(&want);
		strbuf_addch(&want, '\n');
		strbuf_add(&want, p, (size_t)(nl - p));
		strbuf_addch(&want, '\n');
		if (starts_with(p, "CONFIG_") && !strstr(config.buf, want.buf))
			strvec_push_nodup(unmet, xstrndup(p, (size_t)(nl - p)));
		p = *nl ? nl + 1 : nl;
	}
out:
	free(path);
	strbuf_release(&frag);
	strbuf_release(&config);
	strbuf_release(&want);
}
