#!/usr/bin/env python2
"""House style checks: no tabs, no trailing whitespace, lines of at most 100 characters,
a module docstring. Exits 1 and lists the problems when there are any."""
import sys
import os

MAX = 100


def check(path):
    problems = []
    with open(path) as f:
        lines = f.read().split("\n")
    if not lines[0].startswith('"""'):
        problems.append("%s:1: missing module docstring" % path)
    for n, line in enumerate(lines, 1):
        if "\t" in line:
            problems.append("%s:%d: tab" % (path, n))
        if line != line.rstrip():
            problems.append("%s:%d: trailing whitespace" % (path, n))
        if len(line) > MAX:
            problems.append("%s:%d: line longer than %d" % (path, n, MAX))
    return problems


def main(args):
    problems = []
    for root in args:
        for dirpath, _, files in os.walk(root):
            for name in sorted(files):
                if name.endswith(".py"):
                    problems += check(os.path.join(dirpath, name))
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
