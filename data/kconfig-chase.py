#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""kconfig-chase: turn Kconfig symbols on, with what they depend on (khsend boot).

usage: kconfig-chase.py [--exclude SYMBOL]... CONFIG FRAGMENT SYMBOL...

Run from the top of a kernel source tree, with the environment the kernel's
own Kconfig expects (srctree, ARCH, SRCARCH, CC, LD, CC_VERSION_TEXT, ...;
khsend sets it, as the kernel's Makefile does for scripts/kconfig/conf).
The Kconfig language is read by kconfiglib (Debian's python3-kconfiglib),
never by hand.

CONFIG is a .config to start from.  For each SYMBOL, in order, the chase
tries to make it =y: first its "depends on" (for "a || b", the first branch
that can be met, then the next), then, if it has no prompt or its prompt is
hidden, a symbol that selects it or a default that turns it on.  Symbols
named with --exclude are never turned on (COMPILE_TEST: a booted kernel is
built for x86_64 alone).  What was turned on stays for the next SYMBOL.

The chase reads CONFIG as "make allnoconfig" with KCONFIG_ALLCONFIG=CONFIG
will: an option CONFIG does not list (one it showed no prompt for) is off,
not its default.  So NET turned on for TASKSTATS does not bring TCP/IP and
IPv6 with it; every option the wanted ones need is in FRAGMENT.

FRAGMENT gets every assignment the chase made, as "CONFIG_X=y" lines, for
scripts/kconfig/merge_config.sh to merge and the kernel's own conf to
settle (khsend: allnoconfig, as above).
Standard output gets one line per SYMBOL:

    ok SYMBOL [OTHER...]   SYMBOL is =y; OTHER are the symbols set for it
    fail SYMBOL REASON     SYMBOL cannot be =y here, and why

Exit status: 0, or 2 when the Kconfig or the CONFIG cannot be read.
"""
import io
import os
import re
import sys

try:
    import kconfiglib
    from kconfiglib import AND, BOOL, EQUAL, NOT, OR, TRISTATE, UNEQUAL, Choice, Symbol
    from kconfiglib import expr_str, expr_value, split_expr
except ImportError:
    sys.stderr.write("kconfig-chase: python3-kconfiglib is not installed "
                     "(apt-get install python3-kconfiglib)\n")
    sys.exit(2)

MAX_DEPTH = 40

# Linux 6.0 made "option modules" a bare "modules" line, which kconfiglib 14.1
# (Debian 12's) predates: hand it the older spelling, same line numbers.
MODULES_LINE = re.compile(r"^([ \t]+)modules[ \t]*$", re.MULTILINE)


class KernelKconfig(kconfiglib.Kconfig):
    def _open(self, filename, mode):
        f = super()._open(filename, mode)
        if mode != "r" or not os.path.basename(filename).startswith("Kconfig"):
            return f
        with f:
            text = f.read()
        return io.StringIO(MODULES_LINE.sub(r"\1option modules", text))


def other_arch(sym):
    """The other architecture a symbol is defined for alone, or None."""
    dirs = set()
    for node in sym.nodes:
        parts = node.filename.split("/")
        if len(parts) < 3 or parts[0] != "arch":
            return None
        dirs.add(parts[1])
    if dirs and os.environ.get("SRCARCH", "x86") not in dirs:
        return ", ".join(sorted(dirs))
    return None


def short(expr, limit=120):
    text = expr_str(expr)
    return text if len(text) <= limit else text[:limit - 3] + "..."


class Chase:
    def __init__(self, kconf, exclude):
        self.kconf = kconf
        self.exclude = set(exclude)
        self.journal = []       # (symbol or choice, its user value before), for undo
        self.active = set()     # symbols being chased: a dependency loop stops here

    # ---- assignments that can be taken back --------------------------------

    def mark(self):
        return len(self.journal)

    def undo(self, mark):
        while len(self.journal) > mark:
            item, old, selection = self.journal.pop()
            item.unset_value()
            if old is not None:
                item.set_value(old)
            if isinstance(item, Choice) and selection is not None:
                selection.set_value(2)

    def assign(self, item, value):
        selection = item.user_selection if isinstance(item, Choice) else None
        self.journal.append((item, item.user_value, selection))
        if isinstance(item, Symbol) and item.choice is not None:
            choice = item.choice
            self.journal.append((choice, choice.user_value, choice.user_selection))
        return item.set_value(value)

    # ---- the chase -----------------------------------------------------------

    def enable(self, sym, depth):
        """None when sym is =y (now), else why not."""
        if sym.tri_value == 2:
            return None
        if sym.is_constant:
            return "%s is a constant" % sym.name
        if not sym.nodes:
            return "%s is not defined in this tree's Kconfig" % sym.name
        if sym.type not in (BOOL, TRISTATE):
            return "%s is not a bool or tristate option" % sym.name
        if sym.name in self.exclude:
            return "%s is left off in the booted kernel" % sym.name
        arch = other_arch(sym)
        if arch:
            return "%s exists only for arch/%s" % (sym.name, arch)
        if sym in self.active or depth > MAX_DEPTH:
            return "%s depends on itself through a loop" % sym.name
        self.active.add(sym)
        try:
            return self._enable(sym, depth)
        finally:
            self.active.discard(sym)

    def _enable(self, sym, depth):
        mark = self.mark()
        why = self.satisfy(sym.direct_dep, depth + 1)
        if why is None:
            why = self.make_visible(sym, depth)
            if why is None and 2 in sym.assignable:
                self.assign(sym, 2)
                if sym.tri_value == 2:
                    return None
            if why is None:
                why = "%s has no prompt to set" % sym.name
        else:
            why = "%s depends on %s: %s" % (sym.name, short(sym.direct_dep), why)
        self.undo(mark)
        # Without a prompt of its own: something that selects it, or a default.
        for term in split_expr(sym.rev_dep, OR):
            if term is self.kconf.n:
                continue
            if self.satisfy(term, depth + 1) is None and sym.tri_value == 2:
                return None
            self.undo(mark)
        for value, cond in sym.defaults:
            if expr_value(value) == 0 and not isinstance(value, Symbol):
                continue
            if self.satisfy(cond, depth + 1) is None and \
                    self.satisfy(value, depth + 1) is None and sym.tri_value == 2:
                return None
            self.undo(mark)
        return why

    def make_visible(self, sym, depth):
        if sym.choice is not None:
            choice = sym.choice
            why = self.satisfy(choice.direct_dep, depth + 1)
            if why is not None:
                return why
            if choice.tri_value != 2 and 2 in choice.assignable:
                self.assign(choice, 2)
        if sym.visibility == 2:
            return None
        prompts = [node.prompt[1] for node in sym.nodes if node.prompt]
        if not prompts:
            selectors = sorted({s.name for s in _syms(sym.rev_dep) if s.nodes})
            if not selectors:
                return "%s has no prompt, and nothing selects it" % sym.name
            return "%s is only selected (by %s), and none of those can be set here" % (
                sym.name, ", ".join(selectors[:6]) + (", ..." if len(selectors) > 6 else ""))
        why = None
        for cond in prompts:
            mark = self.mark()
            why = self.satisfy(cond, depth + 1)
            if why is None and sym.visibility == 2:
                return None
            self.undo(mark)
        return why or "%s cannot be shown" % sym.name

    def satisfy(self, expr, depth):
        """None when expr is y (now), else why not."""
        if expr_value(expr) == 2:
            return None
        if isinstance(expr, Symbol):
            return self.enable(expr, depth)
        if isinstance(expr, Choice):
            return "a choice cannot be set this way"
        op = expr[0]
        if op == AND:
            return self.satisfy(expr[1], depth) or self.satisfy(expr[2], depth)
        if op == OR:
            branches = split_expr(expr, OR)
            # A branch through an excluded symbol (COMPILE_TEST) last.
            branches.sort(key=lambda b: any(s.name in self.exclude for s in _syms(b)))
            for branch in branches:
                mark = self.mark()
                if self.satisfy(branch, depth) is None and expr_value(expr) == 2:
                    return None
                self.undo(mark)
            left = sorted({s.name for b in branches for s in _syms(b) if s.name in self.exclude})
            return "none of %s can be set here%s" % (
                short(expr), " (%s is left off in the booted kernel)" % ", ".join(left) if left else "")
        if op == NOT:
            return "needs %s off" % short(expr[1])
        if op in (EQUAL, UNEQUAL):
            left, right = expr[1], expr[2]
            if op == EQUAL and right is self.kconf.y:
                return self.satisfy(left, depth)
            if op == UNEQUAL and right is self.kconf.n:
                return self.satisfy(left, depth)
        return "needs %s" % short(expr)

    def chase(self, name):
        sym = self.kconf.syms.get(name)
        if sym is None or not sym.nodes:
            return None, "%s is not defined in this tree's Kconfig" % name
        mark = self.mark()
        why = self.enable(sym, 0)
        if why is not None:
            self.undo(mark)
            return None, why
        return [item for item, _, _ in self.journal[mark:]], None


def _syms(expr):
    if isinstance(expr, Symbol):
        return [expr]
    if isinstance(expr, tuple):
        return [s for part in expr[1:] for s in _syms(part)]
    return []


def main(argv):
    exclude = []
    while len(argv) >= 2 and argv[0] == "--exclude":
        exclude.append(argv[1])
        argv = argv[2:]
    if len(argv) < 2:
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    config, fragment, wanted = argv[0], argv[1], argv[2:]
    try:
        kconf = KernelKconfig("Kconfig", warn=False)
        kconf.load_config(config)
    except (kconfiglib.KconfigError, OSError) as e:
        sys.stderr.write("kconfig-chase: %s\n" % e)
        return 2
    # As allnoconfig: what CONFIG does not list and has a prompt starts off.
    for sym in kconf.unique_defined_syms:
        if sym.user_value is None and sym.type in (BOOL, TRISTATE) and sym.choice is None \
                and any(node.prompt for node in sym.nodes):
            sym.set_value(0)
    chase = Chase(kconf, exclude)
    out = []
    for name in wanted:
        done, why = chase.chase(name)
        if why is None:
            others = []
            for item in done:
                if isinstance(item, Symbol) and item.name != name and \
                        item.tri_value == 2 and item.name not in others:
                    others.append(item.name)
            out.append(" ".join(["ok", name] + others))
        else:
            out.append("fail %s %s" % (name, " ".join(why.split())))
    seen = set()
    with open(fragment, "w") as f:
        f.write("# kconfig-chase: the symbols turned on for the touched files, with their dependencies\n")
        for item, _, _ in chase.journal:
            if isinstance(item, Symbol) and item.tri_value == 2 and item.name not in seen:
                seen.add(item.name)
                f.write("CONFIG_%s=y\n" % item.name)
    sys.stdout.write("".join(line + "\n" for line in out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
