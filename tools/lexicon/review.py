#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Build tools/lexicon/REVIEW.md from the hunt output, the scan output and
the verdict rules below, written while reading every candidate by hand.

usage: tools/lexicon/review.py HUNT SCAN POLICY > tools/lexicon/REVIEW.md

HUNT is "tools/hunt TREE", SCAN is "khsend scan --policy POLICY TREE".  A
candidate is a joke when an entry of the policy matches its line (and the
word is part of that joke); otherwise the first matching rule gives the
reason it was rejected.  codespell-series.md (the findings on the codespell
series, make bench-codespell) is appended."""
import re
import sys
import yaml

hunt_file, scan_file, policy_file = sys.argv[1:4]
policy = yaml.safe_load(open(policy_file))
action = {e["id"]: e.get("action", "block") for e in policy["entries"]}
rank = {"block": 0, "annotate": 1, "warn": 2}

covered = {}
for line in open(scan_file, encoding="utf-8", errors="surrogateescape"):
    m = re.match(r"^(.*?):(\d+): ([a-z0-9-]+): ", line)
    if m:
        covered.setdefault((m.group(1), int(m.group(2))), []).append(m.group(3))

cands = []
for line in open(hunt_file, encoding="utf-8", errors="surrogateescape"):
    m = re.match(r"^(.*?):(\d+): ([a-z]+): (.*?): (.*)$", line.rstrip("\n"))
    if not m:
        sys.exit("bad hunt line: " + line)
    cands.append((m.group(1), int(m.group(2)), m.group(3), m.group(4), m.group(5)))

NAME = "a person's name or an e-mail or web address, not a joke"
PLAIN = "plain English used in its normal sense; nothing a fix would touch"
INFORMAL = "an informal word in a comment, not a message users see; no tool flags it, and nothing needs fixing"
RUDE = "a rude word or an insult, not a joke; a cleanup is the maintainer's call (the policy leaves rude words out on purpose)"
IDENT = "a name in code, hardware or a file (identifier, register, label, macro), not a joke word"
TYPO = "a genuine typo, not a joke: a fix is welcome"
TERM = "an established technical or jargon term, used in its normal sense; not a joke to protect"
HEX = "a hex value or hexspeak constant: code, not a word any spelling tool touches"

# (category regex, word regex, path regex, text regex, reason); first match wins.
RULES = [
    (".*", r".", r"^(CREDITS|MAINTAINERS|\.mailmap)$", None, NAME),
    (".*", r".", None, r"[\w.+-]+@[\w-]+\.[\w.]+|https?://", NAME),
    (".*", r"^(Jesus|Limerick|Llamas|Beer|Kilroy|Garfield|Watson|Houston|Cheshire|Moar|Hamster|Christ|Nay|Teh|HOMER|Borg|Jedi)$", None, None, NAME),
    ("codespell|leetspeak", r"^teh$", r"^scripts/spelling.txt$", None, "a data line in checkpatch's own list of typos (teh||the), not a joke in the code"),
    ("archaic", r"^(hast|thy|thee|thou)$", r"(ubifs|ubi-user|dsi_host|netjet|rtllib|rtl8192u|sti/NOTES|testusb|power9)", None, TYPO + " ('hast' for 'has', 'thy' for 'they', 'thee' for 'the', 'thou' for 'though')"),
    ("archaic", r"^whither$", r"snmp_counter", None, TYPO + " ('whither' for 'whether')"),
    ("archaic", r"^(thine|Thine|THine)$", None, None, "THine Electronics, a company name"),
    ("archaic", r"^behold$", None, None, "the Behold TV tuner (rc-behold keymap), a product name"),
    ("archaic", r"^(WOE|woe)$", r"xtensa|xhci", None, "PS.WOE, an Xtensa register bit (or an xhci flag name)"),
    ("archaic", r"^(Wert|tWas)$", None, None, "a German word ('Wert' = value) or '\\tWas' in a format string"),
    ("archaic", r"^nay$", None, None, NAME),
    ("archaic", r"(eth)$", None, None, "a name in code (a header or a debugfs label), not an -eth verb"),
    ("archaic", r"^(there be|Here be|here be)$", None, None, "plain English ('should there be', 'will there be'), not the old-map joke"),
    ("archaic", r"^(alas|Alas|ALAS|hitherto|thence|whither|ere)$", None, None, PLAIN + " ('alas' and 'thence' are still normal, if formal, English)"),
    ("spoonerisms", r"^(sofware|Sofware)$", None, None, TYPO + " ('software')"),
    ("spoonerisms", r"sic", None, None, "marks a quoted typo with [sic] on purpose; a quote of a spec, not a joke"),
    ("spoonerisms", r"misfeature", None, None, TERM + " (the speculation-control ABI calls it a misfeature)"),
    ("spoonerisms", r"(optimi|pessimi)", None, None, TERM),
    ("spoonerisms", r"^macen$", None, None, IDENT),
    ("spoonerisms", r"(bells and whistles|not a bug|undocumented feature|bloatware)", None, None, PLAIN + " (a common idiom)"),
    ("users", r"(malicious|evil|lazy|poor|confused|dummy|stupid|foolish) user", None, None, PLAIN + " (a technical description of a user)"),
    ("users", r"^your mother$", None, None, "'mother board' split over words, not a joke"),
    ("users", r"^(BOZO|lusercopy)$", None, None, IDENT),
    ("users", r"^bozo$", r"lanai", None, IDENT + " (the 'bozo bit' of the hardware)"),
    ("users", r"(idiot|moron|dimwit|clown|nincompoop|bozo)", None, None, RUDE),
    ("users", r"(newbie|Newbie|clueless|mere mortal|brave soul|the brave|the unwary|some poor|monkeys|weenies)", None, None, PLAIN),
    ("users", r"(BOZO|lusercopy)", None, None, IDENT),
    ("leetspeak", r"^(wtf|WTF)$", None, None, RUDE + " ('WTF')"),
    ("leetspeak", r"^(FTW|ftw|FML|PWN|pwn|omg|sux|hax|Moar|0xB0BA|0xb0ba)$", None, None, IDENT + " (ftw() is a libc function, FTW a VAS window type, FML an ARM FPA instruction, PWN a pin)"),
    ("leetspeak|kernel", r"^(coffee|Coffee|C0FFEE|c0ffee)$", None, None, "literal (Coffee Lake CPUs, KEY_COFFEE, a vending machine, test data), or a plain-English joke that no fix would touch"),
    ("leetspeak", r"(f00d|badf00d|baadf00d|DABBAD00|d00dfeed|deadcode|c0de)", None, None, HEX),
    ("leetspeak", r"^(thx|coz|cuz|win!|Teh|teh)$", None, None, "an informal abbreviation or a surname, not leetspeak; a fix would be harmless"),
    ("codespell", r"^(Teh|teh)$", None, None, "Jonathan Teh Soon Yew, a surname (codespell flags it anyway)"),
    ("swearing", r"^(beeping|Beeping|bleep|SOD|SoD|sod|f\.k|BFU|fing|fudging|Fubar|fubar|FUBAR|crud|Crud|bastard)$", None, None, "literal or a name in code (beeping speaker, the SOD register, bleep() in speakup, Fubar field, 'fubar' example name)"),
    ("swearing", r"(fsck-ing|fscked)", r"(ocfs2|ext4)", None, "literal: checked by the fsck tool"),
    ("swearing", r".", None, None, RUDE),
    ("jargon", r"^(xyzzy|frotz|Frob|frob|frobbing|frobbed|Frobs|quux|qux)$", None, None, "a metasyntactic name (a placeholder like foo) or 'frob' (to adjust), used in its normal sense"),
    ("jargon", r"^rtfm$", None, None, IDENT + " (rtfm = the request's crypto tfm)"),
    ("jargon", r"^RTFP$", None, None, "the file name RTFP.txt; the title itself is protected"),
    ("jargon", r"bolixed", None, None, IDENT + " (the word inside a name; bolixed-identifiers warns about the names it covers)"),
    ("jargon", r"^(blinken)$", None, None, "the header name asm/blinken.h (a file name); the word blinkenlights is in the policy"),
    ("jargon", r"(braindead|brain|Brain)", None, None, RUDE + " ('braindead' design)"),
    ("jargon", r"^(Wintel|M\$)$", None, None, "a brand name (Wintel Mini-PCs) or Perl's -M$prog, not a pun"),
    ("jargon", r"(bogomips|BogoMIPS|BOGOMIPS|Bogomips)", None, None, TERM + " (BogoMIPS, shown in /proc/cpuinfo; no fix would rename it)"),
    ("jargon", r".", None, None, TERM),
    ("popculture", r"^(xyzzy)$", None, None, "a metasyntactic name or an e-mail user name"),
    ("popculture", r"^(doh|dOh|DOH)$", r"(ipvs|kernel-doc|rt1305|pinctrl)", None, IDENT),
    ("popculture", r"(don't panic|Don't panic)", None, None, "literal: 'do not panic the kernel'"),
    ("popculture", r"(mostly harmless)", None, None, "literal: a harmless race, not the Hitchhiker's quote"),
    ("popculture", r"(Inferno|inferno|lasciate|Lasciate|Snoopy|snoopy|pacman|wookie|Spock|spock|balrog|kilroy|Scooby|toto|TOTO|Phaser|Garfield)$", None, None, "a product, board, tool or person's name, an Italian word, or test data, not a quote"),
    ("popculture", r".", None, None, PLAIN + " (an idiom, not a quote of the film or show)"),
    ("kernel", r"(penguin|Penguin)", None, None, "literal: the Tux logo, Penguin Computing, a default SSID, or a script option (chief penguin)"),
    ("kernel", r"(tux|Tux|TUX)", None, None, "literal: the Tux logo"),
    ("kernel", r"^(hangover|Haiku|haiku|Dragon|Vampire|Goat|vodka|Vodka|Unicorn|unicorn|Pizza|pizza|witch|Devil|gremlin|KABOOM|kaboom|die die die)$", None, None, IDENT + " or a product name (Haiku OS, Dragon boards, the WORKER_DIE flag), or a typo ('witch' for 'which')"),
    ("kernel", r".", None, None, PLAIN + " (informal wording that no fix would touch)"),
    ("exclamations", r"^(oops|Oops|OOPS|oops,|Oops,|OOPS,|Oops:|OOPS:|oops:|oops\.)$", None, r"(an oops|oops_|kernel oops|oops, panic|Oops, warning|Panic, Oops|\"Oops:|Oops: %s|Oops, BUG|warning or oops|void \*oops|, oops,|level,  oops)", "the kernel term 'oops' (a crash report), not an exclamation"),
    ("exclamations", r"^(hrm|HRM|erm|ERM|AIE|PSST|drat|argh|ARGH|gack|ZZZ|zzz|Zzz|zzzz|zzzzzzz|zzzzzzzz|ZZZZZZZZ|ZZZZ|ZZZZZZ|AAAH|AAAh|AAh|ah,|ah\.|AH:|ha:|ha\.|HA\.|ho:|hm\.|hmm\.|wow|WOW|wow\.|wow:|WOW:|ZAP\.|DRAT|umm|Bang Bang|bang bang|bleh|whoopsie|Hooray|presto)$", None, None, IDENT + " (a variable, register, hardware term, file name, placeholder or foreign word)"),
    ("exclamations", r"(Oops:|oops:|OOPS:)", None, None, "'Oops:' at the start of a message reads like the kernel's own oops report; left out of exclaim-in-messages on purpose"),
    ("exclamations", r".", None, r'^[^*/]*"[^"]*', "in a string that is not a message (a file name, a format, data) or a word that is not used as an exclamation"),
    ("exclamations", r".", None, None, INFORMAL),
]


def entry_re(e):
    if "string" in e:
        return re.compile(re.escape(e["string"]), re.I if e.get("ignore-case") else 0)
    rx = e["regex"].replace("\\<", "\\b").replace("\\>", "\\b")
    return re.compile(rx, re.I if e.get("ignore-case") else 0)


entry_res = {e["id"]: entry_re(e) for e in policy["entries"]}


def overlaps(eid, text, word):
    """Whether the candidate word lies inside a match of the entry on this line."""
    spans = [m.span() for m in entry_res[eid].finditer(text)]
    w = [m.span() for m in re.finditer(re.escape(word), text)]
    return any(a < d and c < b for a, b in spans for c, d in w)


def verdict(path, num, cat, word, text):
    ids = covered.get((path, num))
    if ids:
        inside = [i for i in set(ids) if overlaps(i, text, word)]
        if inside:
            inside = sorted(inside, key=lambda i: (rank[action[i]], i))
            return ("joke", inside)
        # Not inside the match, but part of the same joke phrase (a quote,
        # a song, a rhyme), unless it is a rude word or the line's only
        # entries are about identifiers.
        id_only = set(ids) <= {"bolixed-identifiers", "scsi-borken-identifiers", "sparc-penguin-identifiers"}
        rude = cat == "swearing" or re.search(r"^(wtf|clown|crap)$", word, re.I)
        if not id_only and not rude:
            return ("joke", sorted(set(ids), key=lambda i: (rank[action[i]], i)))
        other = ", ".join(sorted(set(ids)))
        for c, w, p, t, reason in RULES:
            if re.fullmatch(c, cat) and re.search(w, word, re.I) and not (p and not re.search(p, path)) and not (t and not re.search(t, text)):
                return ("no", reason + f" (the line's joke is covered by {other}; this word is not part of it)")
        return ("no", f"not part of the joke on this line (covered by {other})")
    for c, w, p, t, reason in RULES:
        if not re.fullmatch(c, cat):
            continue
        if not re.search(w, word, re.I):
            continue
        if p and not re.search(p, path):
            continue
        if t and not re.search(t, text):
            continue
        return ("no", reason)
    return ("no", "??")


rows = [(c, verdict(*c)) for c in cands]
lines = {}
for (path, num, cat, word, text), (kind, v) in rows:
    key = (path, num)
    if kind == "joke":
        lines[key] = min(rank[action[i]] for i in v)
    else:
        lines.setdefault(key, None)
jokes = {k: r for k, r in lines.items() if r is not None}
protected = sum(1 for r in jokes.values() if r < 2)
warned = sum(1 for r in jokes.values() if r == 2)
rejected = sum(1 for r in lines.values() if r is None)

# Lines the policy protects that the hunt did not list.
hunted = {(c[0], c[1]) for c in cands}
extra = sorted(k for k in covered if k not in hunted)

out = sys.stdout
out.write("""# Review of the hunt over linux-source 6.1.192

`tools/hunt /work/linux-6.1` (the lexicon in this directory) lists every
candidate as `file:line: category: word: text`. Each one was read by hand in
its context. A candidate is a **joke** when the shipped policy.yaml has an
entry that matches that line (`khsend scan` says which); the entry's action
says whether it is protected (block, annotate) or only warned about. Every
other candidate is **rejected**, with the reason.

Regenerate the raw lists with:

    tools/hunt /work/linux-6.1 > hunt.txt
    build/khsend scan --policy policy.yaml /work/linux-6.1 > scan.txt
    tools/lexicon/review.py hunt.txt scan.txt policy.yaml > tools/lexicon/REVIEW.md

## Counts

""")
out.write(f"| what | count |\n| --- | ---: |\n")
out.write(f"| candidates found (file:line, category, word) | {len(cands)} |\n")
out.write(f"| distinct lines among them | {len(lines)} |\n")
out.write(f"| judged jokes (lines) | {len(jokes)} |\n")
out.write(f"| protected: block or annotate (lines) | {protected} |\n")
out.write(f"| warned (lines) | {warned} |\n")
out.write(f"| rejected (lines) | {rejected} |\n")
out.write(f"| more lines the policy protects, found by reading around the hits | {len(extra)} |\n")
out.write(f"| policy entries | {len(policy['entries'])} (35 before) |\n\n")

bycat = {}
for (c, v) in rows:
    bycat.setdefault(c[2], []).append((c, v))
out.write("| category | candidates | jokes | rejected |\n| --- | ---: | ---: | ---: |\n")
for cat in sorted(bycat):
    rs = bycat[cat]
    j = sum(1 for _, v in rs if v[0] == "joke")
    out.write(f"| {cat} | {len(rs)} | {j} | {len(rs) - j} |\n")
out.write("\n")

def md(s):
    s = s.replace("\t", " ").strip()
    if len(s) > 110:
        s = s[:107] + "..."
    return s.replace("`", "'")

for cat in sorted(bycat):
    out.write(f"## {cat}\n\n")
    for (path, num, c, word, text), (kind, v) in bycat[cat]:
        if kind == "joke":
            ver = "**joke** → " + ", ".join(f"{i} ({action[i]})" for i in v)
        else:
            ver = "rejected: " + v
        out.write(f"- `{path}:{num}` `{md(word)}` — {ver}\n  `{md(text)}`\n")
    out.write("\n")

out.write("## Lines the policy protects that the hunt did not list\n\n")
out.write("Found while reading the hits in their context (the next line of a joke,\n"
          "a name made from the joke, a quote that has no lexicon word).\n\n")
scanned = {}
for line in open(scan_file, encoding="utf-8", errors="surrogateescape"):
    m = re.match(r"^(.*?):(\d+): ([a-z0-9-]+): (.*)$", line.rstrip("\n"))
    if m:
        scanned.setdefault((m.group(1), int(m.group(2))), (m.group(3), m.group(4)))
for k in extra:
    ids = sorted(set(covered[k]))
    out.write(f"- `{k[0]}:{k[1]}` → {', '.join(f'{i} ({action[i]})' for i in ids)}\n  `{md(scanned[k][1])}`\n")
import os
extra_md = os.path.join(os.path.dirname(os.path.abspath(__file__)), "codespell-series.md")
if os.path.exists(extra_md):
    out.write("\n" + open(extra_md).read())
print(f"candidates {len(cands)} lines {len(lines)} jokes {len(jokes)} protected {protected} warned {warned} rejected {rejected} extra {len(extra)}", file=sys.stderr)
unknown = [c for c, v in rows if v == ("no", "??")]
print(f"unclassified {len(unknown)}", file=sys.stderr)
