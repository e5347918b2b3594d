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
void tree_release(struct boot_tree *t);
/* The environment every git child gets in a private tree: no user config, fixed identity. */
void private_git_env(struct child_process *cp);

/* ---- boot-kconfig.c: the Kconfig symbols that build a file, and the config ---- */

/*
 * Push the CONFIG_ symbols (without the prefix) that build src/path into
 * the kernel, from the Makefiles of its directory and its parents.
 * 1: a rule was found (no symbols: always built); 0: none was found.
 */
int kconfig_symbols_for(const char *src, const char *path, struct strvec *symbols);
/* tinyconfig, merge_config.sh with the fragment, olddefconfig; 0, 1 failed (log), -1 error. */
int kconfig_make_config(const struct boot_tree *t, const char *fragment, int log_fd);
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
/* The lines of a failed build worth showing: the first errors and their context. */
void build_failure_excerpt(const char *log_path, struct strbuf *out);

/* ---- boot-coverage.c: which touched files the booted kernel was built from ---- */

struct coverage {
	struct strvec compiled;		/* touched .c files in the kernel */
	struct strvec not_compiled;
};

#define COVERAGE_INIT { STRVEC_INIT, STRVEC_INIT }

int coverage_compute(const char *src, const char *build, const struct strvec *touched,
		     struct coverage *cov);
void coverage_release(struct coverage *cov);

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
	int powered_off;	/* "reboot: Power down" */
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
