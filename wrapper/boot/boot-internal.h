/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * boot-internal: what the stages of khsend boot share.  One file per
 * stage: boot-tree.c (cache, private work tree, git am), boot-kconfig.c
 * (symbols and the fragment), boot-build.c (make with a progress line),
 * boot-coverage.c, boot-initramfs.c, boot-qemu.c, boot-verdict.c,
 * boot-results.c; boot.c runs them in order.
 */
#ifndef KHSEND_BOOT_INTERNAL_H
#define KHSEND_BOOT_INTERNAL_H

#include "lib/path.h"
#include "lib/run-command.h"
#include "lib/strbuf.h"
#include "lib/strvec.h"

#include <git2.h>
#include <signal.h>

/* The signal (SIGINT, SIGTERM, SIGHUP) that asked us to stop, or 0. */
extern volatile sig_atomic_t boot_interrupted;

/* ---- boot-child.c: a long child in its own process group, watched ---- */

struct watch {
	int log_fd;			/* everything the child prints is copied here, or -1 */
	struct strbuf *keep;		/* ... and kept here, or NULL */
	int timeout_ms;			/* -1: no limit */
	/* Called for each complete line; nonzero stops (kills) the child. */
	int (*line_fn)(const char *line, void *data);
	void (*tick_fn)(void *data);	/* about five times a second */
	void *data;
};

enum watch_end {
	WATCH_EXITED,		/* *outcome holds how */
	WATCH_TIMED_OUT,
	WATCH_STOPPED,		/* line_fn asked to stop it */
	WATCH_INTERRUPTED,	/* boot_interrupted was set */
	WATCH_NOT_STARTED,	/* reported */
};

/*
 * Start cp (its stdout and stderr merged into one pipe, stdin /dev/null,
 * a process group of its own) and watch it.  Whenever it is not left to
 * exit by itself the whole group is killed and reaped before returning.
 */
enum watch_end watch_command(struct child_process *cp, struct watch *w, int *outcome);

/* Seconds since an arbitrary point, for elapsed times. */
double monotonic_seconds(void);

/* A shipped file: installed (lib/path.h), else `in_build` beside the binary of a build directory. */
char *shipped_file(enum installed_dir dir, const char *name, const char *in_build);

/* ---- boot-progress.c: one updating line on a terminal, a line per stage elsewhere ---- */

void progress_stage(const char *stage);
__attribute__((format(printf, 1, 2))) void progress_update(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void progress_done(const char *fmt, ...);
/* Wipe the updating line before printing anything else on stderr. */
void progress_clear(void);
/* "file" or "files", for "%u %s compiled" (boot's messages are English only). */
static inline const char *
files_word(unsigned n)
{
	return n == 1 ? "file" : "files";
}

/* ---- boot-tree.c: the cache, the private work trees, git am ---- */

struct boot_tree {
	char *cache;		/* the cache root */
	char *dir;		/* cache/trees/<key> */
	char *src;		/* dir/src: the private work tree khsend alone touches */
	char *build;		/* dir/build: the persistent O= directory */
	char *user_tree;	/* the real path of --tree, NULL for the default tree */
	int lock_fd;
};

#define BOOT_TREE_INIT { NULL, NULL, NULL, NULL, NULL, -1 }

/* $KHSEND_CACHE_DIR, khsend.cacheDir, $XDG_CACHE_HOME/khsend or ~/.cache/khsend. */
void boot_cache_root(struct strbuf *out);

/* Does dir hold a kernel source tree khsend can configure and build? */
int is_kernel_tree(const char *dir);
/* Lay out (and lock) the cache directory of the default tree or of --tree. */
int tree_open(struct boot_tree *t, const char *cache, const char *user_tree);
/* Take the tree's lock, waiting (interruptibly) for another run to finish. */
int tree_lock(struct boot_tree *t);
/* Extract the packaged kernel into t->src unless it is there (or force). */
int tree_setup_default(struct boot_tree *t, int force);
/* The full commit id of rev in the user's tree (or the default tree's base); -1 reported. */
int tree_resolve_base(const struct boot_tree *t, const char *rev, struct strbuf *oid);
/* Rewrite the private work tree to be exactly this commit (only differing files change). */
int tree_reset(const struct boot_tree *t, const char *commit);
/* git am the mails; 0 applied, 1 did not apply (git's message in why), -1 error. */
int tree_apply(const struct boot_tree *t, const struct strvec *mails, struct strbuf *why);
/* Run git in the private tree and keep its stdout (trimmed); 0 or -1 reported. */
int tree_git_capture(const struct boot_tree *t, struct strbuf *out, ...);
/* The same with the arguments in a vector; quiet: a failure is not reported. */
int tree_git_capturev(const struct boot_tree *t, struct strbuf *out, const struct strvec *args,
		      int quiet);
void tree_release(struct boot_tree *t);
/* The environment every git child gets in a private tree: no user config, fixed identity. */
void private_git_env(struct child_process *cp);

/* ---- boot-base.c: the commit the series is applied on ---- */

struct base_choice {
	struct strbuf oid;	/* the full commit id */
	const char *how;	/* for the report: "--base", "HEAD", ... */
	int may_search;		/* HEAD by default: older commits may be tried */
	int applied;		/* the private tree was moved off its last state */
	struct strvec tried;	/* "<id> (<how>)" of each base git am was tried on */
	char *missing_line;	/* a base-commit line naming a commit the tree lacks */
};

#define BASE_CHOICE_INIT { STRBUF_INIT, NULL, 0, 0, STRVEC_INIT, NULL }

struct series;
/* --base (rev), else the series' own base, else HEAD or the default tree's commit; 0 or -1. */
int base_choose(const struct boot_tree *t, const char *rev, const struct series *s,
		struct base_choice *b);
/*
 * git am the mails on b->oid in the private tree; when that fails and
 * b->may_search, on the newest older commits with the series' files as it
 * expects them (b->oid and b->how then name the one used).  0 applied,
 * 1 not (why: git's words for the first base), -1 error or interrupted.
 */
int base_apply(const struct boot_tree *t, const struct series *s, const struct strvec *mails,
	       const char *scratch, struct base_choice *b, struct strbuf *why);
void base_choice_release(struct base_choice *b);

/* ---- boot-kconfig.c: the Kconfig symbols that build a file, and the config ---- */

/*
 * Push the CONFIG_ symbols (without the prefix) that build src/path into
 * the kernel, from the Makefiles of its directory and its parents.
 * 1: a rule was found (no symbols: always built); 0: none was found.
 */
int kconfig_symbols_for(const char *src, const char *path, struct strvec *symbols);
/*
 * tinyconfig, merge_config.sh with the shipped fragment (boot.config),
 * olddefconfig; then each wanted symbol still off is chased with its
 * dependencies (kconfiglib, data/kconfig-chase.py), its lines ("ok SYM
 * DEP..." / "fail SYM why") into `chased`, and the result merged and
 * settled as tinyconfig settles (allnoconfig), so that what the wanted
 * symbols make visible stays off.  Skipped when build/.config was made
 * for the same `stamp` (base, fragment, compiler).  0, 1 failed (see the
 * log), -1 error.
 */
int kconfig_make_config(const struct boot_tree *t, const char *shipped, const struct strvec *wanted,
			const char *stamp, struct strvec *chased, int log_fd);
/* CONFIG_<sym> in build/.config: 2 =y, 1 =m, 0 off, -1 no .config. */
int kconfig_state(const char *build, const char *sym);
/* A .c file in the same directory that #includes the header `path` (malloc()ed), or NULL. */
char *kconfig_includer(const char *src, const char *path);
/* Push each "CONFIG_X=y" of the fragment that the final .config does not have. */
void kconfig_unmet(const char *build, const char *fragment, struct strvec *unmet);

/* ---- boot-build.c: make, with a progress line ---- */

struct build_stats {
	unsigned compiled;	/* "CC" lines: files compiled this run */
	double seconds;
};

/* make -C src O=build <target>: 0, 1 failed (see the log), -1 interrupted or error. */
int run_make(const struct boot_tree *t, const char *target, int log_fd, const char *stage,
	     struct build_stats *st);

struct make_job {
	const char *build;		/* the O= directory; NULL: the tree's build/ */
	const char **targets;		/* NULL-terminated */
	const char **env;		/* more "VAR=value" for make, NULL-terminated, or NULL */
	int keep_going;			/* make -k: every target that can be built is */
	int log_fd;
	const char *stage;		/* the progress line's stage, or NULL for none */
};

/* The same with more say over make; the same answers. */
int run_make_in(const struct boot_tree *t, const struct make_job *job, struct build_stats *st);
/* The lines of a failed build worth showing: the first errors and their context. */
void build_failure_excerpt(const char *log_path, struct strbuf *out);

/* ---- boot-coverage.c: which touched files the booted kernel was built from ---- */

/*
 * Set hit[i] for each touched file (a path in src) that one of `objects`
 * (paths in build; NULL: the objects linked into vmlinux) was compiled
 * from or #included.  0, or -1 (reported).
 */
int coverage_mark(const char *src, const char *build, const struct strvec *objects,
		  const struct strvec *touched, int *hit);

/* ---- boot-compile.c: the compile-test ---- */

struct compile_test {
	struct strvec objects;		/* in: the objects to build (dir/x.o) */
	struct strvec built;		/* out: those that were built */
	struct strvec failed;		/* out: those that were not */
	struct strvec off;		/* out: "dir/x.o\tCONFIG_X" not even allmodconfig builds */
	struct build_stats st;
	char *log;			/* the log of make */
	char *build;			/* the compile-test's O= directory */
};

#define COMPILE_TEST_INIT { STRVEC_INIT, STRVEC_INIT, STRVEC_INIT, STRVEC_INIT, { 0, 0 }, NULL, NULL }

/*
 * Configure t->dir/compile as allmodconfig with data/compile.config (again
 * only when `stamp` changed) and make each object there, make -k.
 * 0 (each object built or failed, see ct), -1 error or interrupted.
 */
int compile_test_run(const struct boot_tree *t, const char *stamp, const char *log_dir,
		     struct compile_test *ct);
void compile_test_release(struct compile_test *ct);

/* ---- boot-initramfs.c ---- */

/* Pack the static init as /init with the built tree's usr/gen_init_cpio; 0 or -1 reported. */
int initramfs_make(const char *build, const char *init_binary, const char *cpio, const char *scratch);

/* ---- boot-qemu.c ---- */

enum qemu_end {
	QEMU_EXITED,		/* QEMU ended by itself */
	QEMU_TIMED_OUT,
	QEMU_HALTED,		/* "System halted": the guest stopped but QEMU would not exit */
	QEMU_INTERRUPTED,
	QEMU_NOT_STARTED,
};

struct qemu_run {
	struct strbuf log;	/* the serial console, as printed */
	enum qemu_end end;
	int outcome;		/* with QEMU_EXITED */
	double seconds;
	const char *accel;	/* "kvm" or "tcg" */
};

#define QEMU_RUN_INIT { STRBUF_INIT, QEMU_NOT_STARTED, -1, 0, NULL }

struct qemu_params {
	const char *kernel;
	const char *initrd;
	const char *nonce;
	int memory_mb;
	int timeout;		/* seconds */
	const char *log_path;	/* the serial log is written here as it comes */
	const char *cache;	/* where the KVM probe's answer is remembered */
};

int qemu_boot(const struct qemu_params *p, struct qemu_run *run);
void qemu_run_release(struct qemu_run *run);

/* ---- boot-verdict.c ---- */

struct problem {
	size_t line;		/* 0-based line in the serial log */
	char *text;		/* the line, its timestamp stripped */
	unsigned preexisting:1;	/* the base boot printed it too */
};

struct verdict {
	int marker;		/* init printed the marker with our nonce */
	int shut_down;		/* "reboot: Restarting system" (or "Power down") */
	int panicked;
	struct problem *problems;
	size_t nr, alloc;
};

#define VERDICT_INIT { 0, 0, 0, NULL, 0, 0 }

void verdict_scan(struct verdict *v, const struct strbuf *log, const char *nonce);
/* Mark the problems the base's log has too (timestamps and addresses aside). */
void verdict_compare_base(struct verdict *v, const struct strbuf *base_log);
size_t verdict_new_problems(const struct verdict *v);
/* The lines of the log around the first new problem (or its end, when there is none). */
void verdict_excerpt(const struct verdict *v, const struct strbuf *log, struct strbuf *out);
void verdict_release(struct verdict *v);

/* ---- boot-results.c: verdicts kept by (series tree, config, parameters) ---- */

/* A hex key for the result cache; inputs are hashed in order. */
void results_key(struct strbuf *key, const char *tree_id, const char *fragment,
		 const char *params);
/* 1 and the stored report and exit code if cached, 0 if not. */
int results_lookup(const struct boot_tree *t, const char *key, struct strbuf *report, int *code);
int results_store(const struct boot_tree *t, const char *key, const char *report, int code);
/* A hash of a buffer in hex, for keys and file names. */
void hash_hex(struct strbuf *out, const char *buf, size_t len);

#endif
