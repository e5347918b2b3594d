// SPDX-License-Identifier: GPL-2.0-only
/*
 * compose: the kind reply itself -- thanks first, the changed lines
 * quoted, the joke explained, what happens next -- as a mail git
 * send-email takes as it is: threaded to the patch, to its author, copied
 * to everyone it was sent to.
 */
#include "reply/compose.h"
#include "lib/config.h"
#include "lib/i18n.h"
#include "lib/json.h"
#include "lib/lg2.h"
#include "lib/strbuf.h"
#include "lib/usage.h"
#include "reply/address.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define WRAP_COLUMN 72
#define QUOTE_CONTEXT 3		/* lines of context around the change */
#define QUOTE_MAX_BLOCK 10	/* a longer run of changes is quoted in part */
#define QUOTE_MAX_LINE 900	/* mail lines may not pass 998 bytes (RFC 5322) */


static const char *
nonempty_env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

/* Take a config value or an environment variable, whichever comes first. */
static char *
env_or_config(const char *env, const char *key)
{
	const char *v = nonempty_env(env), *c = config_get(key);

	if (v)
		return xstrdup(v);
	if (c && *c)
		return xstrdup(c);
	return NULL;
}

/*
 * The sender git send-email would use: sendemail.from, else the author
 * identity (GIT_AUTHOR_NAME/EMAIL, user.name/email, EMAIL); the date is
 * GIT_AUTHOR_DATE in git's raw form if set, else now.
 */
int
replier_init(struct replier *r)
{
	char *from = config_get("sendemail.from") ? xstrdup(config_get("sendemail.from")) : NULL;
	const char *date = nonempty_env("GIT_AUTHOR_DATE");
	time_t when;
	int tz;

	memset(r, 0, sizeof(*r));
	strbuf_init(&r->date, 0);
	if (from && *from) {
		r->name = mail_display_name(from);
		r->address = mail_address_spec(from);
		if (!*r->address) {
			error(_("sendemail.from '%s' holds no mail address"), from);
			free(from);
			return -1;
		}
		if (mail_has_8bit(from)) {
			struct strbuf sb = STRBUF_INIT;

			mail_add_address(&sb, r->name, r->address);
			free(from);
			from = strbuf_detach(&sb, NULL);
		}
		r->from = from;
	} else {
		struct strbuf sb = STRBUF_INIT;
		char *address;

		free(from);
		r->name = env_or_config("GIT_AUTHOR_NAME", "user.name");
		address = env_or_config("GIT_AUTHOR_EMAIL", "user.email");
		if (!address && nonempty_env("EMAIL"))
			address = xstrdup(getenv("EMAIL"));
		if (!address)
			return error(_("cannot tell who is replying: set your name and address first,\n"
				       "as git send-email needs them too:\n"
				       "    git config --global user.name \"Your Name\"\n"
				       "    git config --global user.email you@example.org"));
		if (!r->name) {
			warning(_("user.name is not set; the reply is signed with your address"));
			r->name = xstrdup("");
		}
		mail_add_address(&sb, r->name, address);
		r->from = strbuf_detach(&sb, NULL);
		r->address = mail_address_spec(address);
		free(address);
	}
	if (strpbrk(r->from, "\r\n"))
		return error(_("your name or address holds a line break, which would end the From: line"));
	if (!*r->name) {
		free(r->name);
		r->name = xstrdup(r->address);
	}
	if (date) {
		if (mail_parse_raw_date(date, &when, &tz))
			return error(_("GIT_AUTHOR_DATE='%s' is not a date khsend reads "
				       "(write it as git's raw form: '<seconds> <+hhmm>')"), date);
	} else {
		struct tm tm;

		when = time(NULL);
		localtime_r(&when, &tm);
		tz = (int)(tm.tm_gmtoff / 60);
	}
	mail_add_date(&r->date, when, tz);
	return 0;
}

void
replier_release(struct replier *r)
{
	free(r->from);
	free(r->name);
	free(r->address);
	strbuf_release(&r->date);
}

/* Append a paragraph, wrapped at WRAP_COLUMN, and a newline. */
static void
add_paragraph(struct strbuf *sb, const char *text)
{
	size_t col = 0;

	while (*text) {
		size_t n = strcspn(text, " ");

		if (col && col + 1 + n > WRAP_COLUMN) {
			strbuf_addch(sb, '\n');
			col = 0;
		} else if (col) {
			strbuf_addch(sb, ' ');
			col++;
		}
		strbuf_add(sb, text, n);
		col += n;
		text += n;
		while (*text == ' ')
			text++;
	}
	strbuf_addch(sb, '\n');
}

static int
is_change(const git_diff_line *l)
{
	return l->origin == GIT_DIFF_LINE_ADDITION || l->origin == GIT_DIFF_LINE_DELETION;
}

static const git_diff_line *
hunk_line(git_patch *patch, size_t h, size_t i)
{
	const git_diff_line *l = NULL;

	if (git_patch_get_line_in_hunk(&l, patch, h, i) < 0)
		return NULL;
	return l;
}

static void
quote_line(struct strbuf *q, const git_diff_line *l)
{
	size_t len = l->content_len;

	while (len && (l->content[len - 1] == '\n' || l->content[len - 1] == '\r'))
		len--;
	strbuf_addf(q, "> %c", l->origin == GIT_DIFF_LINE_CONTEXT ? ' ' : l->origin);
	if (len > QUOTE_MAX_LINE) {
		strbuf_add(q, l->content, QUOTE_MAX_LINE);
		strbuf_addstr(q, " [...]");
	} else {
		strbuf_add(q, l->content, len);
	}
	strbuf_rtrim(q);
	strbuf_addch(q, '\n');
}

/* Quote lines lo..hi of a hunk, skipping git's "no newline" markers. */
static void
quote_range(struct strbuf *q, git_patch *patch, size_t h, size_t lo, size_t hi)
{
	for (size_t i = lo; i <= hi; i++) {
		const git_diff_line *l = hunk_line(patch, h, i);

		if (l && (is_change(l) || l->origin == GIT_DIFF_LINE_CONTEXT))
			quote_line(q, l);
	}
}

/*
 * The hunk around the finding's removed line, with a little context; a
 * long run of changes is cut down to the removed line and its new text.
 */
static int
quote_hunk(struct strbuf *q, git_patch *patch, const struct patch_file *pf, const struct finding *f)
{
	for (size_t h = 0; h < git_patch_num_hunks(patch); h++) {
		const git_diff_hunk *hunk;
		size_t n, k, bs, be, lo, hi;
		const git_diff_line *l;

		if (git_patch_get_hunk(&hunk, &n, patch, h) < 0 || !n)
			continue;
		for (k = 0; k < n; k++)
			if ((l = hunk_line(patch, h, k)) && l->origin == GIT_DIFF_LINE_DELETION &&
			    l->old_lineno == f->line)
				break;
		if (k == n)
			continue;
		for (bs = k; bs > 0 && (l = hunk_line(patch, h, bs - 1)) && is_change(l); bs--)
			;
		for (be = k; be + 1 < n && (l = hunk_line(patch, h, be + 1)) && is_change(l); be++)
			;
		strbuf_addf(q, "> --- a/%s\n", pf->old_path);
		if (!pf->new_path)
			strbuf_addstr(q, "> +++ /dev/null\n");
		else
			strbuf_addf(q, "> +++ b/%s\n", pf->new_path);
		strbuf_addstr(q, "> ");
		strbuf_add(q, hunk->header, strcspn(hunk->header, "\n"));
		strbuf_addch(q, '\n');
		if (be - bs < QUOTE_MAX_BLOCK) {
			lo = bs > QUOTE_CONTEXT ? bs - QUOTE_CONTEXT : 0;
			hi = be + QUOTE_CONTEXT < n ? be + QUOTE_CONTEXT : n - 1;
			if (lo > 0)
				strbuf_addstr(q, "> [...]\n");
			quote_range(q, patch, h, lo, hi);
			if (hi < n - 1)
				strbuf_addstr(q, "> [...]\n");
			return 0;
		}
		/* Only the removed line and, if it has one, the line that took its place. */
		strbuf_addstr(q, "> [...]\n");
		quote_range(q, patch, h, k, k);
		for (size_t i = k + 1; f->added && i <= be; i++) {
			size_t len;

			l = hunk_line(patch, h, i);
			if (!l || l->origin != GIT_DIFF_LINE_ADDITION)
				continue;
			for (len = l->content_len; len && strchr("\r\n", l->content[len - 1]); len--)
				;
			if (len == strlen(f->added) && !strncmp(l->content, f->added, len)) {
				if (i > k + 1)
					strbuf_addstr(q, "> [...]\n");
				quote_range(q, patch, h, i, i);
				break;
			}
		}
		strbuf_addstr(q, "> [...]\n");
		return 0;
	}
	return -1;
}

/* Find the finding's file in the patch (git apply's names) and quote its hunk (once per reply). */
static void
quote_finding(struct strbuf *body, const struct message *m, const struct finding *f, struct strvec *quoted)
{
	struct strbuf q = STRBUF_INIT;
	int found = -1;

	for (size_t i = 0; m->diff && found && i < m->files_nr; i++) {
		const struct patch_file *pf = &m->files[i];
		git_patch *patch = NULL;

		if (!pf->old_path || strcmp(pf->old_path, f->file) || pf->binary)
			continue;
		if (git_patch_from_diff(&patch, m->diff, pf->delta) < 0) {
			git_error_clear();
			continue;
		}
		if (patch)
			found = quote_hunk(&q, patch, pf, f);
		git_patch_free(patch);
	}
	if (found) {
		/* Cannot happen for a finding the detector made; quote what it saw. */
		strbuf_reset(&q);
		strbuf_addf(&q, "> -%s\n", f->removed);
		if (f->added)
			strbuf_addf(&q, "> +%s\n", f->added);
	}
	if (!strvec_contains(quoted, q.buf)) {
		strbuf_addbuf(body, &q);
		strvec_push(quoted, q.buf);
	}
	strbuf_release(&q);
}

/* Does the patch change more lines than the findings account for? */
static int
has_other_changes(const struct message *m, const struct finding *f, size_t nf)
{
	size_t changed = 0, found = 0;

	for (size_t i = 0; i < m->files_nr; i++) {
		if (m->files[i].binary)
			return 1;	/* certainly something else */
		changed += m->files[i].added + m->files[i].removed;
	}
	for (size_t i = 0; i < nf; i++)
		found += 1 + (f[i].added != NULL);
	return changed > found;
}

/*
 * Below the English that the list reads, the same explanation in the
 * author's language, marked with the language's names and, until a
 * speaker has confirmed it, as not yet reviewed.  (No line may start with
 * "---" or "diff -": git am would take the rest of the mail for a patch.)
 */
static void
add_translation(struct strbuf *body, const struct policy_entry *e, const char *lang)
{
	struct strvec langs = STRVEC_INIT;
	const struct policy_text *t;

	if (!lang)
		return;
	strvec_push(&langs, lang);
	t = policy_entry_translation(e, &langs);
	strvec_clear(&langs);
	if (!t) {
		note(_("the policy has no %s text for '%s'; the reply explains it in English only"),
		     i18n_english_name(lang), e->id);
		return;
	}
	strbuf_addf(body, "\n[%s / %s%s]\n", i18n_native_name(t->lang), i18n_english_name(t->lang),
		    t->reviewed ? "" : "; not yet reviewed by a native speaker");
	strbuf_addstr(body, t->text);
	strbuf_addch(body, '\n');
}

/*
 * The reply's wording, from git config khsend.reply.*: what a maintainer
 * would otherwise edit before it goes to a list.
 */
struct reply_template {
	const char *greeting;	/* khsend.reply.greeting: %n first name, %N full name */
	const char *closing;	/* khsend.reply.closing */
	long links;		/* khsend.reply.links: how many "see" links an entry keeps */
	int advertise;		/* khsend.reply.advertise: the line about khsend */
};

static void
reply_template_read(struct reply_template *t)
{
	const char *links = config_get("khsend.reply.links");

	t->greeting = config_get("khsend.reply.greeting");
	if (!t->greeting)
		t->greeting = "Hello %n,";
	t->closing = config_get("khsend.reply.closing");
	if (!t->closing)
		t->closing = "Thanks again,";
	t->links = 1;
	if (links) {
		char *end;

		if (!strcmp(links, "all"))
			t->links = -1;
		else if ((t->links = strtol(links, &end, 10)) < 0 || end == links || *end)
			die("khsend.reply.links='%s': expected a number of links, or 'all'", links);
	}
	t->advertise = 0;
	config_get_bool("khsend.reply.advertise", &t->advertise);
}

/*
 * The first name of a display name: "Zhen Lei" -> "Zhen", "Müller, José"
 * -> "José".  A name of one word is itself; no name is "".
 */
static char *
first_name(const char *name)
{
	const char *comma = strchr(name, ','), *p = comma ? comma + 1 : name;

	while (*p == ' ')
		p++;
	if (!*p)
		return xstrdup(name);
	return xstrndup(p, strcspn(p, " "));
}

/* The greeting with %n (first name), %N (full name) and %% put in; a missing name takes the space before it. */
static void
add_greeting(struct strbuf *body, const char *tmpl, const char *name)
{
	char *first = first_name(name);

	for (const char *p = tmpl; *p; p++) {
		const char *with = NULL;

		if (*p == '%' && (p[1] == 'n' || p[1] == 'N'))
			with = p[1] == 'n' ? first : name;
		if (*p == '%' && p[1] == '%')
			with = "%";
		if (!with) {
			strbuf_addch(body, *p);
			continue;
		}
		if (!*with && body->len && body->buf[body->len - 1] == ' ')
			strbuf_setlen(body, body->len - 1);
		strbuf_addstr(body, with);
		p++;
	}
	strbuf_addch(body, '\n');
	free(first);
}

/* One entry's part of the reply: the quotes, what changed where, the joke. */
static void
explain_entry(struct strbuf *body, const struct message *m, const struct finding *f, size_t nf,
	      const struct policy_entry *e, struct strvec *quoted, const struct reply_template *t,
	      const char *lang)
{
	size_t nlinks;
	struct strbuf s = STRBUF_INIT;
	size_t places = 0;

	for (size_t i = 0; i < nf; i++)
		if (f[i].entry == e) {
			quote_finding(body, m, &f[i], quoted);
			places++;
		}
	strbuf_addch(body, '\n');
	if (e->string)
		strbuf_addf(&s, "This changes \"%s\" in ", e->string);
	else
		strbuf_addstr(&s, "This changes text in ");
	if (places > 1)
		strbuf_addf(&s, "%zu places: ", places);
	for (size_t i = 0, done = 0; i < nf; i++)
		if (f[i].entry == e)
			strbuf_addf(&s, "%s%s (line %d)", done++ ? "; " : "", f[i].file, f[i].line);
	/*
	 * The explanation is the policy's, written about "the maintainers":
	 * quoted as the note kept about the joke, it reads right from the
	 * maintainer who declines, too.
	 */
	strbuf_addstr(&s, ". It is written this way on purpose. The note we keep about it says:");
	add_paragraph(body, s.buf);
	strbuf_addch(body, '\n');
	for (const char *line = e->explain; *line;) {
		size_t n = strcspn(line, "\n");

		if (n)
			strbuf_addstr(body, "  ");
		strbuf_add(body, line, n);
		strbuf_addch(body, '\n');
		line += n + (line[n] == '\n');
	}
	add_translation(body, e, lang);
	nlinks = t->links < 0 || (size_t)t->links > e->see.nr ? e->see.nr : (size_t)t->links;
	if (nlinks) {
		strbuf_addstr(body, "\nThere is more about it here:\n");
		for (size_t i = 0; i < nlinks; i++)
			strbuf_addf(body, "  %s\n", e->see.v[i]);
	}
	strbuf_addch(body, '\n');
	strbuf_release(&s);
}

/*
 * The body is plain text anyone may have written (the patch, the policy),
 * so make it safe to send: no control characters, only UTF-8, lines that
 * fit in a mail, and no line that git send-email would read as a trailer
 * to copy ("Cc:", "Signed-off-by:") or that an mbox reader would read as a
 * new message ("From ").
 */
static void
finish_body(struct strbuf *out, const char *body)
{
	while (*body) {
		size_t len = strcspn(body, "\n"), col = 0;
		const char *colon = memchr(body, ':', len);
		int trailer = 0;

		if (colon && colon > body && *body != '>' && *body != ' ') {
			size_t n = (size_t)(colon - body);

			trailer = (n == 2 && !strncasecmp(body, "cc", 2)) ||
				  (n > 3 && !strncasecmp(colon - 3, "-by", 3) &&
				   strspn(body, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-") == n);
		}
		if (trailer || !strncmp(body, "From ", 5))
			strbuf_addch(out, ' ');
		for (const unsigned char *p = (const unsigned char *)body; p < (const unsigned char *)body + len;) {
			size_t n = utf8_len(p);

			if (col >= 990) {
				strbuf_addch(out, '\n');
				col = 0;
			}
			if (!n || (n == 1 && ((*p < 0x20 && *p != '\t') || *p == 0x7f))) {
				strbuf_addch(out, '?');
				n = 1;
			} else {
				strbuf_add(out, p, n);
			}
			p += n;
			col += n;
		}
		strbuf_addch(out, '\n');
		body += len;
		if (*body == '\n')
			body++;
	}
}

static int
has_reply_prefix(const char *subject)
{
	while (isspace((unsigned char)*subject))
		subject++;
	return !strncasecmp(subject, "re:", 3);
}

/* An address for a header: as it was, unless it needs encoding. */
static void
add_header_address(struct strbuf *sb, const char *address)
{
	if (mail_has_8bit(address)) {
		char *name = mail_display_name(address), *spec = mail_address_spec(address);

		mail_add_address(sb, name, spec);
		free(name);
		free(spec);
	} else {
		strbuf_addstr(sb, address);
	}
}

/* Cc: everyone the patch went to, but neither its author (To:) nor us. */
static void
add_cc(struct strbuf *hdr, const struct message *m, const char *author, const struct replier *r)
{
	struct strvec seen = STRVEC_INIT;
	int any = 0;

	strvec_push_nodup(&seen, mail_address_spec(author));
	strvec_push(&seen, r->address);
	for (size_t i = 0; i < m->headers.nr; i++) {
		struct strvec list = STRVEC_INIT;

		if (strcasecmp(m->headers.v[i].name, "To") && strcasecmp(m->headers.v[i].name, "Cc"))
			continue;
		mail_split_addresses(m->headers.v[i].value, &list);
		for (size_t k = 0; k < list.nr; k++) {
			char *spec = mail_address_spec(list.v[k]);

			if (!*spec || strvec_contains(&seen, spec)) {
				free(spec);
				continue;
			}
			strvec_push_nodup(&seen, spec);
			strbuf_addstr(hdr, any++ ? ",\n\t" : "Cc: ");
			add_header_address(hdr, list.v[k]);
		}
		strvec_clear(&list);
	}
	if (any)
		strbuf_addch(hdr, '\n');
	strvec_clear(&seen);
}

/* In-Reply-To: the patch; References: its References (or In-Reply-To), then the patch. */
static void
add_threading(struct strbuf *hdr, const struct message *m)
{
	const char *id = mail_header(&m->headers, "Message-Id");
	const char *refs = mail_header(&m->headers, "References");
	const char *parent = mail_header(&m->headers, "In-Reply-To");
	struct strbuf msgid = STRBUF_INIT;

	if (!id || !*id) {
		warning(_("'%s' has no Message-Id, so the reply cannot say which mail it answers;\n"
			  "add --in-reply-to=<message-id> when you send it"), m->name);
		return;
	}
	if (*id != '<')
		strbuf_addf(&msgid, "<%s>", id);
	else
		strbuf_addstr(&msgid, id);
	strbuf_addf(hdr, "In-Reply-To: %s\nReferences:", msgid.buf);
	if (!refs && parent && strchr(parent, '<') == strrchr(parent, '<'))
		refs = parent;	/* RFC 5322 3.6.4: a parent without References */
	for (const char *p = refs ? refs : ""; *p;) {
		size_t n;

		p += strspn(p, " \t");
		n = strcspn(p, " \t");
		if (n)
			strbuf_addf(hdr, " %.*s\n", (int)n, p);
		p += n;
	}
	strbuf_addf(hdr, " %s\n", msgid.buf);
	strbuf_release(&msgid);
}

/* The whole reply to one message: headers and body. */
int
compose_reply(struct strbuf *out, struct message *mp, const struct finding *f, size_t nf,
	      const struct replier *r, const char *tmpdir)
{
	const struct message *m = mp;
	struct strbuf hdr = STRBUF_INIT, body = STRBUF_INIT, safe = STRBUF_INIT;
	struct strvec quoted = STRVEC_INIT;
	struct reply_template t;
	const char *author, *subject, *date;
	char *name = NULL;
	int blocks = 0, ret = -1;

	if (message_read_diff(mp, tmpdir))
		goto out;
	author = mail_header(&m->headers, "From");
	if (!m->is_mail || !author || !*author) {
		error(_("'%s' is not a mail (it has no From: header), so there is nobody to reply to;\n"
		        "'khsend reply' answers a patch mail, such as the output of git format-patch"), m->name);
		goto out;
	}
	name = mail_display_name(m->author ? m->author : author);
	subject = mail_header(&m->headers, "Subject");
	date = mail_header(&m->headers, "Date");

	strbuf_addf(&hdr, "From: %s\nTo: ", r->from);
	add_header_address(&hdr, author);
	strbuf_addch(&hdr, '\n');
	add_cc(&hdr, m, author, r);
	strbuf_addstr(&hdr, "Subject: ");
	if (!subject || !*subject)
		subject = "your patch";
	if (!has_reply_prefix(m->subject ? m->subject : subject))
		strbuf_addstr(&hdr, "Re: ");
	mail_add_header_text(&hdr, subject);
	strbuf_addf(&hdr, "\nDate: %s\n", r->date.buf);
	add_threading(&hdr, m);

	reply_template_read(&t);
	add_greeting(&body, t.greeting, name);
	strbuf_addch(&body, '\n');
	add_paragraph(&body, "Thank you for your patch, and for reading the kernel code so carefully.");
	strbuf_addch(&body, '\n');
	if (date && *name)
		strbuf_addf(&body, "On %s, %s wrote:\n", date, name);
	else if (*name)
		strbuf_addf(&body, "%s wrote:\n", name);
	else
		strbuf_addstr(&body, "You wrote:\n");
	/* Each entry once, in the order of its first finding. */
	for (size_t i = 0; i < nf; i++) {
		size_t j;

		for (j = 0; j < i && f[j].entry != f[i].entry; j++)
			;
		if (j == i)
			explain_entry(&body, m, f, nf, f[i].entry, &quoted, &t, r->lang);
		blocks |= f[i].action == POLICY_BLOCK;
	}
	if (blocks && has_other_changes(m, f, nf))
		add_paragraph(&body, "So I am not applying this patch as it is. If its other changes are "
			      "still useful, please send them again without this one, as a new version (v2) "
			      "of the patch.");
	else if (blocks)
		add_paragraph(&body, "So I am not applying this patch. Please do not let that stop you: "
			      "real fixes in other places are very welcome.");
	else
		add_paragraph(&body, "Unless you changed this on purpose (for example, because the code "
			      "around it goes away), please send a new version (v2) of the patch that "
			      "keeps it as it is. If you did mean to change it, please say why in the "
			      "commit message.");
	if (t.advertise) {
		strbuf_addch(&body, '\n');
		add_paragraph(&body, "Next time, you can check a patch before you send it: run \"khsend check "
			      "<patch>\", or send it with \"khsend\" instead of \"git send-email\". It knows "
			      "about jokes like this one and explains them before anything is sent.");
	}
	strbuf_addf(&body, "\n%s\n%s\n", t.closing, r->name);

	finish_body(&safe, body.buf);
	strbuf_addf(&hdr, "MIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\n"
		    "Content-Transfer-Encoding: %s\n\n", mail_has_8bit(safe.buf) ? "8bit" : "7bit");
	strbuf_addbuf(out, &hdr);
	strbuf_addbuf(out, &safe);
	ret = 0;
out:
	free(name);
	strvec_clear(&quoted);
	strbuf_release(&hdr);
	strbuf_release(&body);
	strbuf_release(&safe);
	return ret;
}
