// SPDX-License-Identifier: GPL-2.0-only
/* address: addresses, encoded words and dates for the mails khsend writes. */
#include "reply/address.h"
#include "lib/json.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * The first `c` outside quoted strings, comments and (unless c is '<')
 * angle brackets, or NULL.
 */
static const char *
find_top_level(const char *s, int c)
{
	int quoted = 0, comment = 0, angle = 0;

	for (; *s; s++) {
		if ((quoted || comment) && *s == '\\' && s[1]) {
			s++;
		} else if (quoted) {
			quoted = *s != '"';
		} else if (comment) {
			comment += (*s == '(') - (*s == ')');
		} else if (*s == c && !angle) {
			return s;
		} else if (*s == '"') {
			quoted = 1;
		} else if (*s == '(') {
			comment = 1;
		} else if (*s == '<' || *s == '>') {
			angle = *s == '<';
		}
	}
	return NULL;
}

static void
push_trimmed(struct strvec *out, const char *start, const char *end)
{
	while (start < end && isspace((unsigned char)*start))
		start++;
	while (end > start && isspace((unsigned char)end[-1]))
		end--;
	if (end > start)
		strvec_push_nodup(out, xstrndup(start, (size_t)(end - start)));
}

void
mail_split_addresses(const char *list, struct strvec *out)
{
	const char *comma;

	while ((comma = find_top_level(list, ','))) {
		push_trimmed(out, list, comma);
		list = comma + 1;
	}
	push_trimmed(out, list, list + strlen(list));
}

static char *
lower_trimmed(const char *start, const char *end)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_add(&sb, start, (size_t)(end - start));
	strbuf_trim(&sb);
	for (size_t i = 0; i < sb.len; i++)
		sb.buf[i] = (char)tolower((unsigned char)sb.buf[i]);
	return strbuf_detach(&sb, NULL);
}

char *
mail_address_spec(const char *address)
{
	const char *lt = find_top_level(address, '<'), *p;
	struct strbuf bare = STRBUF_INIT;
	char *ret;
	int comment = 0;

	if (lt) {
		const char *gt = strchr(lt, '>');

		return lower_trimmed(lt + 1, gt ? gt : lt + strlen(lt));
	}
	/* "a@b (Name)": the address is what is outside the comment. */
	for (p = address; *p; p++) {
		if (*p == '(')
			comment++;
		else if (*p == ')' && comment)
			comment--;
		else if (!comment)
			strbuf_addch(&bare, *p);
	}
	ret = lower_trimmed(bare.buf, bare.buf + bare.len);
	strbuf_release(&bare);
	if (!strchr(ret, '@')) {
		free(ret);
		return xstrdup("");
	}
	return ret;
}

/* Remove the quotes and backslashes of a quoted string, trimmed. */
static char *
unquote(const char *start, const char *end)
{
	struct strbuf sb = STRBUF_INIT;

	for (const char *p = start; p < end; p++) {
		if (*p == '"')
			continue;
		if (*p == '\\' && p + 1 < end)
			p++;
		strbuf_addch(&sb, *p);
	}
	strbuf_trim(&sb);
	return strbuf_detach(&sb, NULL);
}

char *
mail_display_name(const char *address)
{
	const char *lt = find_top_level(address, '<'), *open, *close;

	if (lt)
		return unquote(address, lt);
	open = strchr(address, '(');
	close = open ? strrchr(open, ')') : NULL;
	if (open && close)
		return unquote(open + 1, close);
	return xstrdup("");
}

int
mail_has_8bit(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return 1;
	return 0;
}

/* RFC 2047 section 5 (3): what may stand for itself in a "Q" encoded word. */
static int
q_safe(unsigned char c)
{
	return isalnum(c) || strchr("!*+-/", c);
}

/* Encoded words of at most 75 characters, never splitting a UTF-8 character. */
static void
add_encoded_words(struct strbuf *sb, const char *text)
{
	static const char prefix[] = "=?UTF-8?q?";
	const unsigned char *p = (const unsigned char *)text;
	size_t word = 0;

	while (*p) {
		size_t n = utf8_len(p), need;
		char piece[16];
		size_t len = 0;

		if (!n)
			n = 1;	/* not UTF-8: the byte is encoded as it is */
		for (size_t i = 0; i < n; i++) {
			if (p[i] == ' ')
				piece[len++] = '_';
			else if (q_safe(p[i]))
				piece[len++] = (char)p[i];
			else
				len += (size_t)snprintf(piece + len, sizeof(piece) - len, "=%02X", p[i]);
		}
		need = len + 2;	/* and the closing "?=" */
		if (word && word + need > 75) {
			strbuf_addstr(sb, "?=\n ");
			word = 0;
		}
		if (!word) {
			strbuf_addstr(sb, prefix);
			word = sizeof(prefix) - 1;
		}
		strbuf_add(sb, piece, len);
		word += len;
		p += n;
	}
	if (word)
		strbuf_addstr(sb, "?=");
}

void
mail_add_header_text(struct strbuf *sb, const char *text)
{
	if (mail_has_8bit(text))
		add_encoded_words(sb, text);
	else
		strbuf_addstr(sb, text);
}

void
mail_add_address(struct strbuf *sb, const char *name, const char *address)
{
	if (!name || !*name) {
		strbuf_addstr(sb, address);
		return;
	}
	if (mail_has_8bit(name)) {
		add_encoded_words(sb, name);
	} else if (strpbrk(name, "()<>[]:;@\\,.\"")) {
		strbuf_addch(sb, '"');
		for (const char *p = name; *p; p++) {
			if (*p == '"' || *p == '\\')
				strbuf_addch(sb, '\\');
			strbuf_addch(sb, *p);
		}
		strbuf_addch(sb, '"');
	} else {
		strbuf_addstr(sb, name);
	}
	strbuf_addf(sb, " <%s>", address);
}

void
mail_add_date(struct strbuf *sb, time_t when, int tz_minutes)
{
	static const char *const days[] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
	static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	time_t local = when + (time_t)tz_minutes * 60;
	int off = tz_minutes < 0 ? -tz_minutes : tz_minutes;
	struct tm tm;

	gmtime_r(&local, &tm);
	strbuf_addf(sb, "%s, %d %s %d %02d:%02d:%02d %c%02d%02d", days[tm.tm_wday], tm.tm_mday,
		    months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec,
		    tz_minutes < 0 ? '-' : '+', off / 60, off % 60);
}

int
mail_parse_raw_date(const char *s, time_t *when, int *tz_minutes)
{
	char *end;
	long long secs;
	long tz;

	if (*s == '@')
		s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	secs = strtoll(s, &end, 10);
	if (errno || secs < 0)
		return -1;
	while (*end == ' ')
		end++;
	*when = (time_t)secs;
	*tz_minutes = 0;
	if (!*end)
		return 0;
	if ((*end != '+' && *end != '-') || strlen(end) != 5 || strspn(end + 1, "0123456789") != 4)
		return -1;
	tz = strtol(end + 1, NULL, 10);
	if (tz % 100 >= 60)
		return -1;
	*tz_minutes = (int)((tz / 100) * 60 + tz % 100) * (*end == '-' ? -1 : 1);
	return 0;
}
