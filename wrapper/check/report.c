/*
 * report: checkpatch's "file:line:" shape, but it thanks the contributor
 * first and explains the joke before saying what to do.
 */
#include "check/report.h"
#include "lib/color.h"
#include "lib/json.h"
#include "lib/strbuf.h"
#include "lib/usage.h"

#include <string.h>

static const char *
col(FILE *fp, const char *code)
{
	return color_code(fileno(fp), code);
}

void
print_sanitized(FILE *fp, const char *prefix, const char *text)
{
	char *copy = xstrdup(text);

	sanitize_terminal(copy);
	fprintf(fp, "%s%s\n", prefix, copy);
	free(copy);
}

void
report_explain(FILE *fp, const struct policy_entry *e, const char *indent)
{
	char *copy = xstrdup(e->explain);

	sanitize_terminal(copy);
	for (char *line = copy, *nl; line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		fprintf(fp, "%s%s\n", *line ? indent : "", line);
	}
	free(copy);
}

/* What to do about the findings of one action, said once for the series. */
static const char *
what_to_do(enum policy_action action, int allowed, enum report_mode mode)
{
	if (allowed)
		return "You allowed a change with --allow; it goes out with a note for the reviewers.";
	switch (action) {
	case POLICY_BLOCK:
		switch (mode) {
		case REPORT_APPLY:
			return "A patch with a blocked change should not be applied as it is. 'khsend reply'\n"
			       "drafts a kind answer for its author.";
		case REPORT_COMMIT:
			return "Please keep the lines marked 'block' as they are before you commit; other\n"
			       "fixes are welcome.";
		default:
			return "Please keep the lines marked 'block' as they are, and remove those changes\n"
			       "from your patches. Nothing is sent while they are there. Your other changes\n"
			       "are welcome.";
		}
	case POLICY_ANNOTATE:
		if (mode == REPORT_VALIDATE)
			return "A change marked 'annotate' may go out with a short note for the reviewers\n"
			       "below its '---' line, which git send-email cannot add: please send the series\n"
			       "with khsend instead (same arguments), which adds the note, or remove the change.";
		if (mode == REPORT_SEND)
			return "A patch with a change marked 'annotate' goes out with a short note below its\n"
			       "'---' line, so reviewers know you were told. If you did not mean to make the\n"
			       "change, please remove it.";
		return "Sending a change marked 'annotate' adds a short note for the reviewers below\n"
		       "the '---' line. If you did not mean to make the change, please remove it.";
	case POLICY_WARN:
		return "A change marked 'warn' is only a note: it can still go out as it is.";
	}
	return "";
}

/* "file:line: action: id: "text" is changed", where and in which patch, and the lines. */
static void
print_finding(FILE *fp, const struct finding *f)
{
	const char *colour = f->action == POLICY_BLOCK ? COLOR_RED
			     : f->action == POLICY_ANNOTATE ? COLOR_YELLOW : COLOR_CYAN;
	struct strbuf where = STRBUF_INIT, what = STRBUF_INIT, in = STRBUF_INIT;

	strbuf_addf(&where, "%s:%d: ", f->file, f->line);
	sanitize_terminal(where.buf);
	strbuf_addf(&what, "%s: \"%s\" is changed", f->entry->id, f->matched);
	sanitize_terminal(what.buf);
	fprintf(fp, "%s%s%s%s%s%s: %s\n", col(fp, COLOR_BOLD), where.buf, col(fp, COLOR_RESET), col(fp, colour),
		policy_action_name(f->action), col(fp, COLOR_RESET), what.buf);
	strbuf_addf(&in, "  in %s", f->patch);
	if (f->subject && *f->subject)
		strbuf_addf(&in, ": %s", f->subject);
	print_sanitized(fp, "", in.buf);
	fprintf(fp, "%s", col(fp, COLOR_RED));
	print_sanitized(fp, "  -", f->removed);
	fprintf(fp, "%s%s", col(fp, COLOR_RESET), col(fp, COLOR_GREEN));
	if (f->added)
		print_sanitized(fp, "  +", f->added);
	else if (f->note)
		print_sanitized(fp, "  ", f->note);
	else
		fprintf(fp, "  (the line is deleted)\n");
	fprintf(fp, "%s", col(fp, COLOR_RESET));
	strbuf_release(&where);
	strbuf_release(&what);
	strbuf_release(&in);
}

/* One explanation for both: the same entry, or two words of one category of the lexicon. */
static int
same_explanation(const struct policy_entry *a, const struct policy_entry *b)
{
	return a == b || (a->lexicon && b->lexicon && !strcmp(a->lexicon, b->lexicon));
}

/* The findings of one entry, then its explanation once. */
static void
print_entry(FILE *fp, const struct detector *d, const struct policy_entry *e)
{
	for (size_t i = 0; i < d->nr; i++)
		if (same_explanation(d->findings[i].entry, e))
			print_finding(fp, &d->findings[i]);
	fputc('\n', fp);
	report_explain(fp, e, "    ");
	for (size_t i = 0; i < e->see.nr; i++)
		print_sanitized(fp, i ? "         " : "    See: ", e->see.v[i]);
	fputc('\n', fp);
}

static const char *
plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* A series that changes a repository's policy file: the maintainer should see that change on its own. */
static void
report_policy_changes(FILE *fp, const struct strvec *changes)
{
	for (size_t i = 0; i < changes->nr; i++) {
		const char *tab = strchr(changes->v[i], '\t');
		struct strbuf sb = STRBUF_INIT;

		strbuf_addf(&sb, "khsend: %.*s changes khsend's policy file %s. It was checked with the policy "
			    "as it was before the series, not with this change; please look at the change "
			    "to the policy on its own.", (int)(tab - changes->v[i]), changes->v[i], tab + 1);
		print_sanitized(fp, "", sb.buf);
		strbuf_release(&sb);
	}
}

void
report_text(FILE *fp, const struct checker *c, enum report_mode mode)
{
	const struct detector *d = &c->det;
	size_t blocks = detector_count(d, POLICY_BLOCK);
	size_t notes = detector_count(d, POLICY_ANNOTATE);
	size_t warns = detector_count(d, POLICY_WARN);
	size_t guesses = 0;

	report_policy_changes(fp, &c->policy_changes);
	if (!d->nr) {
		fprintf(fp, "khsend: %zu %s checked, no protected string is changed\n", d->messages,
			plural(d->messages, "message", "messages"));
		return;
	}
	for (size_t i = 0; i < d->nr; i++)
		guesses += d->findings[i].entry->lexicon != NULL;
	if (guesses < d->nr)
		fprintf(fp, "Thank you for your work on the kernel! khsend found %zu %s to text that the\n"
			    "maintainers wrote that way on purpose. Kernel code has jokes in it, and a spell\n"
			    "checker cannot tell them from typos. Here is what they mean.\n\n",
			d->nr, plural(d->nr, "change", "changes"));
	else
		fprintf(fp, "Thank you for your work on the kernel! khsend found %zu %s to words that\n"
			    "kernel authors often use as jokes. A spell checker cannot tell them from typos.\n\n",
			d->nr, plural(d->nr, "change", "changes"));
	/* Each entry once, in the order of its first finding. */
	for (size_t i = 0; i < d->nr; i++) {
		size_t first = 0;

		while (!same_explanation(d->findings[first].entry, d->findings[i].entry))
			first++;
		if (first == i)
			print_entry(fp, d, d->findings[i].entry);
	}
	/* What to do, once for each kind of finding there is. */
	for (int action = POLICY_BLOCK; action >= POLICY_WARN; action--) {
		for (size_t i = 0; i < d->nr; i++)
			if ((int)d->findings[i].action == action && !d->findings[i].allowed) {
				fprintf(fp, "%s\n\n", what_to_do((enum policy_action)action, 0, mode));
				break;
			}
	}
	for (size_t i = 0; i < d->nr; i++)
		if (d->findings[i].allowed) {
			fprintf(fp, "%s\n\n", what_to_do(POLICY_ANNOTATE, 1, mode));
			break;
		}
	fprintf(fp, "khsend: %zu %s checked: %zu %s, %zu %s, %zu %s",
		d->messages, plural(d->messages, "message", "messages"),
		blocks, plural(blocks, "change blocks", "changes block"),
		notes, plural(notes, "note for reviewers", "notes for reviewers"),
		warns, plural(warns, "warning", "warnings"));
	if ((blocks || (notes && mode == REPORT_VALIDATE)) && (mode == REPORT_SEND || mode == REPORT_VALIDATE))
		fprintf(fp, "; nothing was sent");
	fputc('\n', fp);
	if (blocks)
		fprintf(fp, "khsend: 'khsend explain ID' tells more about an entry.\n");
}

void
report_json(FILE *fp, const struct detector *d)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "{\"blocked\": %s, \"findings\": [", detector_blocked(d) ? "true" : "false");
	for (size_t i = 0; i < d->nr; i++) {
		const struct finding *f = &d->findings[i];

		strbuf_addstr(&sb, i ? ", {" : "{");
		strbuf_addstr(&sb, "\"id\": ");
		json_add_string(&sb, f->entry->id);
		strbuf_addstr(&sb, ", \"action\": ");
		json_add_string(&sb, policy_action_name(f->action));
		strbuf_addf(&sb, ", \"index\": %zu, \"patch\": ", f->index);
		json_add_string(&sb, f->patch);
		strbuf_addstr(&sb, ", \"commit\": ");
		json_add_string_or_null(&sb, f->commit);
		strbuf_addstr(&sb, ", \"subject\": ");
		json_add_string(&sb, f->subject ? f->subject : "");
		strbuf_addstr(&sb, ", \"file\": ");
		json_add_string(&sb, f->file);
		strbuf_addf(&sb, ", \"line\": %d, \"removed\": ", f->line);
		json_add_string(&sb, f->removed);
		strbuf_addstr(&sb, ", \"added\": ");
		json_add_string_or_null(&sb, f->added);
		strbuf_addstr(&sb, ", \"note\": ");
		json_add_string_or_null(&sb, f->note);
		strbuf_addstr(&sb, ", \"explain\": ");
		json_add_string(&sb, f->entry->explain);
		strbuf_addch(&sb, '}');
	}
	strbuf_addstr(&sb, "]}\n");
	fwrite(sb.buf, 1, sb.len, fp);
	strbuf_release(&sb);
}
