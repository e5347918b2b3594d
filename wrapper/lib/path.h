/* SPDX-License-Identifier: GPL-2.0-only */
/* path: temporary directories, recursive removal and the XDG locations. */
#ifndef KHSEND_PATH_H
#define KHSEND_PATH_H

#include "lib/strbuf.h"
#include "lib/strvec.h"

/* mkdtemp() under $TMPDIR (or /tmp); die()s on failure; malloc()ed. */
char *make_temp_dir(const char *prefix);
/* rm -rf without following symlinks; 0 or -1. */
int remove_dir_recursively(const char *path);
/* mkdir -p with mode 0755 (0700 for the last component if `private`). */
int mkdir_p(const char *path, int private);
/* Register a directory for removal at exit and on die() (at most 8). */
void remove_at_exit(const char *path);
void run_exit_cleanup(void);
/* Clean up as at exit, then end by `sig` as its default action would (128+sig). */
void exit_by_signal(int sig) __attribute__((noreturn));

/* $XDG_CONFIG_HOME/khsend or ~/.config/khsend, and the cache twin. */
void xdg_config_dir(struct strbuf *out);
void xdg_cache_dir(struct strbuf *out);
/*
 * Where khsend's own files are installed, found at run time from where the
 * binary is, so "make install" builds nothing and an installed tree may
 * move: <prefix>/bin/khsend reads <prefix>/share/khsend/<name>
 * (INSTALLED_DATA) and <prefix>/lib/khsend/<name> (INSTALLED_LIBEXEC).
 * malloc()ed; the file need not exist (a build directory has none).
 */
enum installed_dir { INSTALLED_DATA, INSTALLED_LIBEXEC };
char *installed_path(enum installed_dir dir, const char *name);

/* Expand a leading "~/" the way git does for config paths. */
char *expand_user_path(const char *path);

/* The names in a directory but "." and "..", sorted; 0, or -1 with errno set. */
int read_dir_sorted(const char *dir, struct strvec *names);

int is_dir(const char *path);
int is_regular_or_fifo(const char *path);
int is_fifo(const char *path);
int file_exists(const char *path);
/* Do both names lead to the same file (after symlinks)? */
int same_file(const char *a, const char *b);
/* Copy a file's bytes (a FIFO is read to its end); 0 or -1 with a message. */
int copy_file(const char *dst, const char *src);
int write_file_buf(const char *path, const char *buf, size_t len);
const char *base_name(const char *path);

/* A list of strings in a file, each ended by a NUL (khsend's state for its shims); 0 or -1. */
int write_list_file(const char *path, const struct strvec *v);
int read_list_file(const char *path, struct strvec *v);

#endif
