// SPDX-License-Identifier: GPL-2.0-only
/*
 * report: checkpatch's "file:line:" shape, but it thanks the contributor
 * first and explains the joke before saying what to do.
 */
#include "check/report.h"
#include "lib/color.h"
#include "lib/i18n.h"
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

/* Lines of text, each indented (but empty ones), control characters removed. */
static void
print_indented(FILE *fp, const char *text, const char *indent)
{
	char *copy = xstrdup(text);

	sanitize_terminal(copy);
	for (char *line = copy, *nl; line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		fprintf(fp, "%s%s\n", *line ? indent : "", line);
	}
	free(copy);
}

/*
 * The explanation in the reader's language when the policy has it, marked
 * with the language's name (and whether a speaker has reviewed it), then
 * the English text that the maintainers read.  English readers see only
 * the English, as before.
 */
void
report_explain(FILE *fp, const struct policy_entry *e, const char *indent)
{
	const struct policy_text *t = policy_entry_translation(e, i18n_languages());

	if (t) {
		struct strbuf label = STRBUF_INIT;

		strbuf_addf(&label, "[%s]", i18n_native_name(t->lang));
		if (!t->reviewed)
			strbuf_addf(&label, " %s", _("(this translation is not yet reviewed)"));
		print_indented(fp, label.buf, indent);
		print_indented(fp, t->text, indent);
		fputc('\n', fp);
		print_indented(fp, "[English]", indent);
		strbuf_release(&label);
	}
	print_indented(fp, e->explain, indent);
}

/* What to do about the findings of one action, said once for the series. */
static const char *
what_to_do(enum policy_action action, int allowed, enum report_mode mode)
{
	if (allowed && (mode == REPORT_APPLY || mode == REPORT_COMMIT))
		return _("You allowed a change (KHSEND_ALLOW or git config khsend.allow), so it goes in.");
	if (allowed)
		return _("You allowed a change with --allow; it goes out with a note for the reviewers.");
	if (mode == REPORT_APPLY && action != POLICY_BLOCK)
		return action == POLICY_ANNOTATE
			       ? _("The patch is applied. Its author may not have meant to change the lines marked\n"
				   "'annotate'; you may want to ask.")
			       : _("The lines marked 'warn' are only a note: the patch is applied.");
	switch (action) {
	case POLICY_BLOCK:
		switch (mode) {
		case REPORT_APPLY:
			return _("git am does not apply a patch with a change marked 'block' as it is; the ways\n"
				 "on are below.");
		case REPORT_COMMIT:
			return _("Please keep the lines marked 'block' as they are before you commit; other\n"
			         "fixes are welcome.");
		default:
			return _("Please keep the lines marked 'block' as they are, and remove those changes\n"
			         "from your patches. Nothing is sent while they are there. Your other changes\n"
			         "are welcome.");
		}
	case POLICY_ANNOTATE:
		if (mode == REPORT_VALIDATE)
			return _("A change marked 'annotate' may go out with a short note for the reviewers\n"
			         "below its '---' line, which git send-email cannot add: please send the series\n"
			         "with khsend instead (same arguments), which adds the note, or remove the change.");
		if (mode == REPORT_SEND)
			return _("A patch with a change marked 'annotate' goes out with a short note below its\n"
			         "'---' line, so reviewers know you were told. If you did not mean to make the\n"
			         "change, please remove it.");
		return _("Sending a change marked 'annotate' adds a short note for the reviewers below\n"
		         "the '---' line. If you did not mean to make the change, please remove it.");
	case POLICY_WARN:
		return _("A change marked 'warn' is only a note: it can still go out as it is.");
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
	/* TRANSLATORS: a policy entry's id, then the changed text. */
	strbuf_addf(&what, _("%s: \"%s\" is changed"), f->entry->id, f->matched);
	sanitize_terminal(what.buf);
	fprintf(fp, "%s%s%s%s%s%s: %s\n", col(fp, COLOR_BOLD), where.buf, col(fp, COLOR_RESET), col(fp, colour),
		policy_action_name(f->action), col(fp, COLOR_RESET), what.buf);
	/* A patch named by its subject is named once. */
	strbuf_addstr(&in, "  ");
	/* TRANSLATORS: the patch file's name. */
	if (f->subject && *f->subject && strstr(f->subject, f->patch)) {
		strbuf_addf(&in, _("in %s"), f->subject);
	} else {
		strbuf_addf(&in, _("in %s"), f->patch);
		if (f->subject && *f->subject)
			strbuf_addf(&in, ": %s", f->subject);
	}
	print_sanitized(fp, "", in.buf);
	fprintf(fp, "%s", col(fp, COLOR_RED));
	print_sanitized(fp, "  -", f->removed);
	fprintf(fp, "%s%s", col(fp, COLOR_RESET), col(fp, COLOR_GREEN));
	if (f->added)
		print_sanitized(fp, "  +", f->added);
	else if (f->note)
		print_sanitized(fp, "  ", f->note);
	else
		fprintf(fp, "  %s\n", _("(the line is deleted)"));
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
	if (e->see.nr) {
		/* TRANSLATORS: before the links about the joke; the links line up after it. */
		const char *see = _("See:");
		char *label = xstrfmt("    %s ", see), *pad = xstrfmt("%*s", (int)(5 + i18n_display_width(see)), "");

		for (size_t i = 0; i < e->see.nr; i++)
			print_sanitized(fp, i ? pad : label, e->see.v[i]);
		free(label);
		free(pad);
	}
	fputc('\n', fp);
}

/* A series that changes a repository's policy file: the maintainer should see that change on its own. */
static void
report_policy_changes(FILE *fp, const struct strvec *changes)
{
	for (size_t i = 0; i < changes->nr; i++) {
		const char *tab = strchr(changes->v[i], '\t');
		struct strbuf sb = STRBUF_INIT;

		strbuf_addstr(&sb, "khsend: ");
		/* TRANSLATORS: the patch, then the policy file it changes. */
		strbuf_addf(&sb, _("%.*s changes khsend's policy file %s. It was checked with the policy "
				   "as it was before the series, not with this change; please look at the change "
				   "to the policy on its own."), (int)(tab - changes->v[i]), changes->v[i], tab + 1);
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
		fputs("khsend: ", fp);
		fprintf(fp, Q_("%zu message checked, no protected string is changed\n",
			       "%zu messages checked, no protected string is changed\n", d->messages), d->messages);
		return;
	}
	for (size_t i = 0; i < d->nr; i++)
		guesses += d->findings[i].entry->lexicon != NULL;
	if (mode == REPORT_APPLY)
		fprintf(fp, Q_("khsend: this patch makes %zu change to text kept that way on purpose: kernel\n"
			       "jokes that a spell checker takes for typos. Here is what each one is.\n\n",
			       "khsend: this patch makes %zu changes to text kept that way on purpose: kernel\n"
			       "jokes that a spell checker takes for typos. Here is what each one is.\n\n", d->nr),
			d->nr);
	else if (guesses < d->nr)
		fprintf(fp, Q_("Thank you for your work on the kernel! khsend found %zu change to text that the\n"
			       "maintainers wrote that way on purpose. Kernel code has jokes in it, and a spell\n"
			       "checker cannot tell them from typos. Here is what they mean.\n\n",
			       "Thank you for your work on the kernel! khsend found %zu changes to text that the\n"
			       "maintainers wrote that way on purpose. Kernel code has jokes in it, and a spell\n"
			       "checker cannot tell them from typos. Here is what they mean.\n\n", d->nr), d->nr);
	else
		fprintf(fp, Q_("Thank you for your work on the kernel! khsend found %zu change to words that\n"
			       "kernel authors often use as jokes. A spell checker cannot tell them from typos.\n\n",
			       "Thank you for your work on the kernel! khsend found %zu changes to words that\n"
			       "kernel authors often use as jokes. A spell checker cannot tell them from typos.\n\n",
			       d->nr), d->nr);
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
	if (mode == REPORT_APPLY) {
		fputs("khsend: ", fp);
		fprintf(fp, Q_("%zu change stops git am", "%zu changes stop git am", blocks), blocks);
		fputs(", ", fp);
		fprintf(fp, _("%zu only explained"), notes + warns);
		fputc('\n', fp);
		return;
	}
	fputs("khsend: ", fp);
	fprintf(fp, Q_("%zu message checked", "%zu messages checked", d->messages), d->messages);
	fputs(": ", fp);
	fprintf(fp, Q_("%zu change blocks", "%zu changes block", blocks), blocks);
	fputs(", ", fp);
	fprintf(fp, Q_("%zu note for reviewers", "%zu notes for reviewers", notes), notes);
	fputs(", ", fp);
	fprintf(fp, Q_("%zu warning", "%zu warnings", warns), warns);
	if ((blocks || (notes && mode == REPORT_VALIDATE)) && (mode == REPORT_SEND || mode == REPORT_VALIDATE))
		fputs(_("; nothing was sent"), fp);
	fputc('\n', fp);
	if (blocks)
		fprintf(fp, "khsend: %s\n", _("'khsend explain ID' tells more about an entry."));
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
