#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
"""Check commit messages against the project's rules.

  check-git-log.py                  the commits not yet on origin/main
                                    (on main where there is no origin/main)
  check-git-log.py REV..REV         the commits of a range (what git
                                    rev-list takes: REV..REV, REV, ^REV ...)
  check-git-log.py -n N [REV]       the last N commits of REV (HEAD)
  check-git-log.py --message FILE   one message, as git hands it to the
                                    commit-msg hook (scripts/git-hooks/)

Merge commits are left out: their subject is git's. Each problem is
printed as `COMMIT: problem` (the commit's hash cut to 12, or FILE); the
exit status is 1 if there was any, 2 if the commits could not be read.

The rules:
  subject   at most 60 characters, of the form `area: summary`: an area
            of lowercase letters, digits and / - _ , . only (a file's
            name may be the area: `twheel.h: ...`), a colon, one
            blank, a summary; no blank at its start or end, no period at
            its end
  line 2    blank, when there is more than the subject
  body      lines of at most 75 columns (tabs to 8), except a line
              - indented by four blanks or a tab: a command, a table,
                program output
              - beginning with `>`: a quoted log line
              - holding a URL (a word with `://` in it), which cannot be
                broken
  size      a commit with no body changes at most 10 lines (added plus
            removed, as git show --numstat counts them; a binary file
            counts as more): a bigger change says why
No Signed-off-by or other trailer is asked for.

With --message the text is first cleaned as git cleans an edited message
by default: from a scissors line on cut (git commit -v), then comment
lines and blanks at line ends dropped (git stripspace --strip-comments,
with core.commentChar). The size rule is not applied there: the hook does
not see the commit's diff; a range check does. Nor is a message whose
subject begins with `fixup! `, `squash! ` or `amend! ` checked there
(git commit --fixup and --squash make them for git rebase --autosquash);
a range check reports those that are left.
"""
import argparse
import re
import subprocess
import sys

SUBJECT_MAX = 60
BODY_MAX = 75
BODYLESS_MAX_LINES = 10
AREA = re.compile(r"[a-z0-9/_,.-]+\Z")
URL = re.compile(r"\S://\S")
SCISSORS = re.compile(r"^. -+ >8 -+$")
# git commit --fixup / --squash: for git rebase --autosquash, not to land
AUTOSQUASH = ("fixup! ", "squash! ", "amend! ")


def git(*args, cwd=None, text_in=None):
    r = subprocess.run(["git"] + list(args), input=text_in, capture_output=True,
                       cwd=cwd, text=True, errors="replace")
    if r.returncode != 0:
        raise RuntimeError("git %s: %s" % (" ".join(args), r.stderr.strip()))
    return r.stdout


def subject_problems(subject):
    """What is wrong with a subject line."""
    out = []
    if len(subject) > SUBJECT_MAX:
        out.append("subject is %d characters, at most %d" % (len(subject), SUBJECT_MAX))
    s = subject.strip()
    if s != subject:
        out.append("subject has a blank at its %s"
                   % ("start" if subject[:1].isspace() else "end"))
    area, colon, summary = s.partition(":")
    if not colon or not summary.startswith(" ") or not summary.strip() \
            or summary[1:2].isspace():
        out.append("subject is not `area: summary` (one blank after the colon)")
    elif not AREA.match(area):
        out.append("subject's area `%s` has more than lowercase letters, digits "
                   "and / - _ , ." % area)
    if s.endswith("."):
        out.append("subject ends with a period")
    return out


def long_line_allowed(line):
    """Whether a body line may pass BODY_MAX: a command, table or output
    (indented by four blanks or a tab), a quoted log line, a URL."""
    return (line.startswith("    ") or line.startswith("\t") or
            line.lstrip().startswith(">") or URL.search(line) is not None)


def message_problems(msg):
    """What is wrong with a commit message: (problems, has a body)."""
    lines = msg.rstrip("\n").split("\n")
    if not msg.strip():
        return ["message is empty"], False
    out = subject_problems(lines[0])
    if len(lines) > 1 and lines[1].strip():
        out.append("line 2 is not blank")
    for n, line in enumerate(lines[1:], 2):
        cols = len(line.expandtabs(8))
        if cols > BODY_MAX and not long_line_allowed(line):
            out.append("line %d is %d columns, at most %d" % (n, cols, BODY_MAX))
    body = any(line.strip() for line in lines[1:])
    return out, body


def changed_lines(commit):
    """Lines added plus removed by a commit (a binary file: more than
    BODYLESS_MAX_LINES)."""
    n = 0
    for row in git("show", "--numstat", "--format=", commit).splitlines():
        parts = row.split("\t")
        if len(parts) < 3:
            continue
        if parts[0] == "-" or parts[1] == "-":
            n += BODYLESS_MAX_LINES + 1
        else:
            n += int(parts[0]) + int(parts[1])
    return n


def commit_problems(commit):
    msg = git("show", "-s", "--format=%B", commit)
    out, body = message_problems(msg)
    if not body:
        n = changed_lines(commit)
        if n > BODYLESS_MAX_LINES:
            out.append("no body, and the change is %d lines (more than %d): say why"
                       % (n, BODYLESS_MAX_LINES))
    return out


def clean(text):
    """text as git's default cleanup of an edited message leaves it."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if SCISSORS.match(line):
            lines = lines[:i]
            break
    return git("stripspace", "--strip-comments", text_in="\n".join(lines) + "\n")


def default_base():
    for ref in ("origin/main", "main"):
        if subprocess.run(["git", "rev-parse", "--verify", "-q", ref + "^{commit}"],
                          capture_output=True).returncode == 0:
            return ref
    raise RuntimeError("no origin/main nor main: give REV..REV or -n N")


def main(argv):
    ap = argparse.ArgumentParser(description="Check commit messages (see the "
                                 "header of this script for the rules).")
    ap.add_argument("-n", type=int, metavar="N", help="the last N commits")
    ap.add_argument("--message", metavar="FILE", help="check one message file")
    ap.add_argument("revs", nargs="*", help="a range, as git rev-list takes it")
    a = ap.parse_args(argv[1:])
    found = 0
    try:
        if a.message is not None:
            if a.n is not None or a.revs:
                ap.error("--message takes no range")
            with open(a.message, errors="replace") as f:
                msg = clean(f.read())
            if msg.startswith(AUTOSQUASH):
                return 0
            problems, _ = message_problems(msg)
            for p in problems:
                print("%s: %s" % (a.message, p))
            return 1 if problems else 0
        revs = a.revs or (["HEAD"] if a.n is not None else [default_base() + "..HEAD"])
        args = ["rev-list", "--no-merges", "--reverse"]
        if a.n is not None:
            args += ["-n", str(a.n)]
        # --reverse after -n: the last N, oldest first
        commits = git(*(args + revs + ["--"])).split()
        for c in commits:
            for p in commit_problems(c):
                print("%s: %s" % (c[:12], p))
                found += 1
    except (OSError, RuntimeError) as e:
        print("check-git-log: %s" % e, file=sys.stderr)
        return 2
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
