#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
"""The commit message checker and its hook against sample messages (meson
suite fast-tests, git_log_check).

  test-check-git-log.py CHECKER HOOK

In a temporary git repository, made with no user or system git
configuration, each sample of SAMPLES is committed on its own (the hook
not run, the message kept verbatim) with a change of the sample's size.
Then:
  - CHECKER C^..C for each: a good sample gives no output and exit 0, a
    bad one exit 1 and exactly one line, `C: problem`, the problem the
    sample is made to show (each bad sample breaks one rule only);
  - CHECKER with no range (origin/main set to the commit before the
    samples, a merge made after them), and CHECKER -n N LAST with N the
    number of bad samples, which come last: the problems of every bad
    sample and no other, the merge left out;
  - HOOK FILE on each sample's message: exit 0 for the good ones, for
    the bad ones exit 1 and the same problem, but for the rules the hook
    does not apply (the size of the change; a subject's blank at its end,
    which git's cleanup removes); HOOK_ONLY's messages as git hands an
    edited one to the hook (comments, a scissors line and a diff after it)
    or one made by git commit --fixup;
  - git commit with core.hooksPath at HOOK's folder refuses a bad message
    (HEAD unchanged) and takes a good one; git merge's own message passes.
Exit 0 when every check holds, 1 otherwise, 77 (skipped) without git.
"""
import os
import shutil
import subprocess
import sys
import tempfile

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)
    return cond


B75 = "The wheel's slots were counted twice whenever a timer moved between levels;"
assert len(B75) == 75
S60 = "lib: " + "s" * 54 + "x"
assert len(S60) == 60

# a command, a table, a quoted log line, a URL: each over 75 columns
LONG = ["    meson test -C build --suite fast-tests --num-processes 1 --print-errorlogs -v",
        "\tcolumn one\tcolumn two\tcolumn three\tcolumn four\tcolumn five\tsix",
        "> EAL: Detected CPU lcores: 2 EAL: Detected NUMA nodes: 1 EAL: Detected static",
        "[1] https://example.org/a/very/long/path/that/cannot/be/wrapped/anywhere/at/all"]
assert all(len(line.expandtabs(8)) > 75 for line in LONG)

# (name, message, lines changed, the problem's text or None, whether the
# hook applies the rule)
SAMPLES = [
    ("good, body wrapped", "lib: count a moved timer once\n\n" + B75 + "\nmore.\n",
     40, None, True),
    ("good, no body, a small change", "doc: typo in the guide\n", 10, None, True),
    ("good, every area character", "examples/l3fwd-flowexp,scripts_x-2.py: y\n\nWhy.\n",
     30, None, True),
    ("good, subject of 60", S60 + "\n\nWhy.\n", 30, None, True),
    ("good, long lines that may be",
     "scripts: long lines that may be long\n\nA command, a table, a log, a link:\n\n" +
     "".join(line + "\n" for line in LONG), 30, None, True),
    ("bad, subject of 61", S60 + "y\n\nWhy.\n", 30, "subject is 61 characters", True),
    ("bad, no area", "Count a moved timer once\n\nWhy.\n", 30, "not `area: summary`", True),
    ("bad, no blank after the colon", "lib:count a moved timer once\n\nWhy.\n", 30,
     "not `area: summary`", True),
    ("bad, two blanks after the colon", "lib:  count a moved timer once\n\nWhy.\n", 30,
     "not `area: summary`", True),
    ("bad, empty summary", "lib:\n\nWhy.\n", 30, "not `area: summary`", True),
    ("bad, area in capitals", "Lib: count a moved timer once\n\nWhy.\n", 30,
     "area `Lib`", True),
    ("bad, area with a blank", "lib wheel: count a moved timer once\n\nWhy.\n", 30,
     "area `lib wheel`", True),
    ("bad, a period at the end", "lib: count a moved timer once.\n\nWhy.\n", 30,
     "ends with a period", True),
    ("bad, a blank at the start", " lib: count a moved timer once\n\nWhy.\n", 30,
     "blank at its start", True),
    ("bad, a blank at the end", "lib: count a moved timer once \n\nWhy.\n", 30,
     "blank at its end", False),
    ("bad, line 2 not blank", "lib: count a moved timer once\nWhy.\n", 30,
     "line 2 is not blank", True),
    ("bad, a body line of 76", "lib: count a moved timer once\n\n" + B75 + "o\n", 30,
     "line 3 is 76 columns", True),
    ("bad, indented by two only", "lib: count a moved timer once\n\nWhy:\n\n  " + B75 + "\n",
     30, "line 5 is 77 columns", True),
    ("bad, no body, a change of 11 lines", "lib: count a moved timer once\n", 11,
     "no body, and the change is 11 lines", False),
    ("bad, a fixup left", "fixup! lib: count a moved timer once\n", 2,
     "area `fixup! lib`", False),
]

SCISSORS = "# ------------------------ >8 ------------------------"
# what the hook is given for an edited message, and whether it must pass
HOOK_ONLY = [
    ("an edited message: comments and a diff after the scissors",
     "lib: count a moved timer once\n\nWhy.\n"
     "# Please enter the commit message for your changes. Lines starting with '#' will "
     "be ignored.\n" + SCISSORS + "\n# Do not modify or remove the line above.\n"
     "diff --git a/lib/twheel.c b/lib/twheel.c\n+" + "x" * 100 + "\n", None),
    ("an edited message whose subject is too long, a comment after it",
     S60 + "y\n# a comment\n\nWhy.\n", "subject is 61 characters"),
]


def main(argv):
    if len(argv) != 3:
        print(__doc__)
        return 2
    checker, hook = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    if shutil.which("git") is None:
        print("SKIP: no git")
        return 77
    with tempfile.TemporaryDirectory(prefix="gitlog_") as tmp:
        run(checker, hook, tmp)
    print("%d check(s) failed" % len(failures) if failures else "all checks passed")
    return 1 if failures else 0


def run(checker, hook, tmp):
    repo = os.path.join(tmp, "repo")
    env = dict(os.environ, HOME=tmp, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null",
               GIT_AUTHOR_NAME="T", GIT_AUTHOR_EMAIL="t@example.org",
               GIT_COMMITTER_NAME="T", GIT_COMMITTER_EMAIL="t@example.org", LC_ALL="C")
    for k in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        env.pop(k, None)

    def git(*args, ok=True):
        r = subprocess.run(["git"] + list(args), cwd=repo, env=env, capture_output=True,
                           text=True)
        if ok and r.returncode != 0:
            raise RuntimeError("git %s: %s" % (" ".join(args), r.stderr.strip()))
        return r

    def tool(*cmd):
        r = subprocess.run(list(cmd), cwd=repo, env=env, capture_output=True, text=True)
        return r.returncode, r.stdout.splitlines(), r.stderr.strip()

    def write(path, text):
        with open(path, "w") as f:
            f.write(text)
        return path

    os.makedirs(repo)
    git("init", "-q", "-b", "main")
    write(os.path.join(repo, "base"), "base\n")
    git("add", "base")
    git("commit", "-q", "--no-verify", "-m", "base: start")
    base = git("rev-parse", "HEAD").stdout.strip()

    commits = []
    for k, (name, msg, size, _, _) in enumerate(SAMPLES):
        write(os.path.join(repo, "f%d" % k), "".join("line %d\n" % i for i in range(size)))
        git("add", "f%d" % k)
        mfile = write(os.path.join(tmp, "msg%d" % k), msg)
        git("commit", "-q", "--no-verify", "--cleanup=verbatim", "-F", mfile)
        c = git("rev-parse", "HEAD").stdout.strip()
        got = git("show", "-s", "--format=%B", c).stdout
        same = got.rstrip("\n") == msg.rstrip("\n")
        check(same, "%s: committed as written%s" % (name, "" if same else " (%r)" % got))
        commits.append(c)

    expected = set()
    for (name, _, _, problem, _), c in zip(SAMPLES, commits):
        rc, out, err = tool(checker, c + "^.." + c)
        if problem is None:
            check(rc == 0 and not out and not err,
                  "%s: passes (exit %d, %s %s)" % (name, rc, out, err))
        else:
            expected.add((c[:12], problem))
            check(rc == 1 and len(out) == 1 and out[0].startswith(c[:12] + ": ") and
                  problem in out[0], "%s: caught as %r (exit %d, %s %s)"
                  % (name, problem, rc, out, err))

    # a merge after the samples, left out of the checks
    git("checkout", "-q", "-b", "side", base)
    write(os.path.join(repo, "side"), "side\n")
    git("add", "side")
    git("commit", "-q", "--no-verify", "-m", "side: a file")
    git("checkout", "-q", "main")
    git("merge", "-q", "--no-ff", "--no-edit", "--no-verify", "side")
    git("update-ref", "refs/remotes/origin/main", base)

    def matches(out):
        """Whether out is exactly one line for each expected problem."""
        if len(out) != len(expected):
            return False
        return all(any(line.startswith(h + ": ") and p in line for line in out)
                   for h, p in expected)

    # the bad samples come last: -n of their count from the last sample
    nbad = len(expected)
    assert all(p is not None for _, _, _, p, _ in SAMPLES[-nbad:])
    for args, what in (((), "no range: origin/main..HEAD, the merge left out"),
                       (("-n", str(nbad), commits[-1]), "-n %d LAST_SAMPLE" % nbad)):
        rc, out, err = tool(checker, *args)
        check(rc == 1 and matches(out) and not err,
              "%s: the %d bad samples' problems and no other (exit %d, %d lines%s)"
              % (what, nbad, rc, len(out), ", " + err if err else ""))
    rc, out, err = tool(checker, "HEAD^..HEAD")
    check(rc == 0 and not out, "a merge alone: nothing to check (exit %d, %s)" % (rc, out))

    # the hook, on each sample's message and on messages as git edits them
    hook_cases = [(name, msg, problem if applies else None,
                   "" if applies or problem is None else ", a rule it does not apply")
                  for name, msg, _, problem, applies in SAMPLES]
    hook_cases += [(name, msg, problem, "") for name, msg, problem in HOOK_ONLY]
    for k, (name, msg, problem, why) in enumerate(hook_cases):
        mfile = write(os.path.join(tmp, "hook%d" % k), msg)
        rc, out, err = tool(hook, mfile)
        if problem is None:
            check(rc == 0 and not out and not err,
                  "hook, %s: passes%s (exit %d, %s %s)" % (name, why, rc, out, err))
        else:
            check(rc == 1 and len(out) == 1 and out[0].startswith(mfile + ": ") and
                  problem in out[0], "hook, %s: refused as %r (exit %d, %s %s)"
                  % (name, problem, rc, out, err))

    # the hook installed: git commit refuses, takes; git merge passes
    hooks = os.path.dirname(hook)
    git("config", "core.hooksPath", hooks)
    head = git("rev-parse", "HEAD").stdout.strip()
    write(os.path.join(repo, "g"), "g\n")
    git("add", "g")
    r = git("commit", "-q", "-m", "Lib: count a moved timer once", ok=False)
    check(r.returncode != 0 and "area `Lib`" in r.stdout + r.stderr and
          git("rev-parse", "HEAD").stdout.strip() == head,
          "git commit with the hook refuses a bad message (exit %d, %s)"
          % (r.returncode, (r.stdout + r.stderr).strip()))
    r = git("commit", "-q", "-m", "lib: count a moved timer once", ok=False)
    check(r.returncode == 0 and git("rev-parse", "HEAD").stdout.strip() != head,
          "git commit with the hook takes a good one (exit %d, %s)"
          % (r.returncode, (r.stdout + r.stderr).strip()))
    git("checkout", "-q", "-b", "side2", base)
    write(os.path.join(repo, "side2"), "side2\n")
    git("add", "side2")
    git("commit", "-q", "-m", "side: another file")
    git("checkout", "-q", "main")
    r = git("merge", "-q", "--no-ff", "--no-edit", "side2", ok=False)
    subject = git("show", "-s", "--format=%s", "HEAD").stdout.strip()
    check(r.returncode == 0 and subject == "Merge branch 'side2'",
          "git merge with the hook: its own message passes (exit %d, %s, %s)"
          % (r.returncode, subject, (r.stdout + r.stderr).strip()))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
