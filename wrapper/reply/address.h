/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * address: the few RFC 5322 / RFC 2047 pieces that writing a reply needs:
 * address lists, display names, encoded words and the Date format.
 */
#ifndef KHSEND_ADDRESS_H
#define KHSEND_ADDRESS_H

#include "lib/strbuf.h"
#include "lib/strvec.h"

#include <time.h>

/* Split an address list at the commas that are outside quotes, <> and (). */
void mail_split_addresses(const char *list, struct strvec *out);
/* The address itself ("a@b" of "Name <a@b>"), lower-cased; malloc()ed, "" if none. */
char *mail_address_spec(const char *address);
/* The display name ("Name" of "\"Name\" <a@b>" or "a@b (Name)"), unquoted; malloc()ed, "" if none. */
char *mail_display_name(const char *address);

/* Does the string hold a byte outside ASCII? */
int mail_has_8bit(const char *s);
/* Append text for a header, as RFC 2047 encoded words (UTF-8, "Q") if it is not ASCII. */
void mail_add_header_text(struct strbuf *sb, const char *text);
/* Append "Name <address>", quoting or encoding the name as it needs. */
void mail_add_address(struct strbuf *sb, const char *name, const char *address);

/* Append an RFC 5322 date: "Thu, 7 Apr 2005 22:13:13 +0200"; tz is in minutes east of UTC. */
void mail_add_date(struct strbuf *sb, time_t when, int tz_minutes);
/*
 * Parse git's raw date forms "<seconds> <+hhmm>" and "@<seconds> <+hhmm>"
 * (the zone may be left out: UTC).  0 on success, -1 otherwise.
 */
int mail_parse_raw_date(const char *s, time_t *when, int *tz_minutes);

#endif
