#!/usr/bin/env python3
"""The commands the documentation names exist (run by `make test` and `make readme-check`).

Reads README.md and the DocC articles (Sources/*/*.docc/*.md) and fails when
- a `make TARGET` in their code (inline code spans and code blocks) is not a target of the Makefile;
- an `imago SUBCOMMAND --flag` in their code names a subcommand or a flag the built CLI does not
  have (each subcommand's `--help`; a subcommand whose `--help` fails does not exist);
- the README's account of CI (the paragraph that starts "CI (`.ci/run`") does not list the
  `make` steps of .ci/run (its `step NAME make TARGET` lines), in their order;
- a rule ID of Docs/phase-rules.md is missing from the conformance catalog's Rules article.

Usage: python3 Scripts/readme-check.py --imago PATH/TO/imago [FILE.md ...]
Prints one line per problem and exits 1, or prints a summary and exits 0.
"""
import argparse
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def makefile_targets(path):
    targets = set()
    for line in open(path, encoding="utf-8"):
        if line.startswith((" ", "\t", "#")):
            continue
        match = re.match(r"^([A-Za-z0-9_.\- ]+):(?!=)", line)
        if match:
            targets.update(match.group(1).split())
    return targets


def code_fragments(text):
    """Yields (line number, code) for every line of a fenced block and every inline code span."""
    in_block = False
    for number, line in enumerate(text.split("\n"), 1):
        if line.lstrip().startswith("```"):
            in_block = not in_block
            continue
        if in_block:
            yield number, line, True
        else:
            for span in re.findall(r"`([^`]+)`", line):
                yield number, span, False


def commands(text, word):
    """(line, command text) for every `word ...` command in the code of `text`. In a code block a
    line that starts with whitespace and `[` continues the command above it (a usage synopsis)."""
    found = []
    last = None
    for number, code, in_block in code_fragments(text):
        if in_block and last is not None and re.match(r"^\s+\[", code):
            found[last] = (found[last][0], found[last][1] + " " + code.strip())
            continue
        last = None
        for match in re.finditer(r"(?:^|[\s/(])" + word + r" (\S.*)", code):
            rest = match.group(1)
            rest = re.split(r"\s#|&&|;|\)$", rest)[0]   # a comment, the next command
            found.append((number, rest))
            if in_block:
                last = len(found) - 1
    return found


class CLI:
    def __init__(self, executable):
        self.executable = executable
        self.cache = {}

    def flags(self, subcommand):
        """The flags of `subcommand` (None: no such subcommand); '' is the top level."""
        if subcommand not in self.cache:
            arguments = [self.executable] + subcommand.split() + ["--help"]
            result = subprocess.run(arguments, capture_output=True, text=True)
            # An unknown subcommand may still print the top level's help: its own usage names it.
            usage = re.search(r"USAGE: imago" + (" " + re.escape(subcommand) if subcommand else "") + r"(\s|$)",
                              result.stdout)
            if result.returncode != 0 or usage is None:
                self.cache[subcommand] = None
            else:
                names = set(re.findall(r"(?m)^\s+(?:-\w, )?(--[a-z0-9][a-z0-9-]*)", result.stdout))
                names.update(re.findall(r"\[(--[a-z0-9][a-z0-9-]*)", result.stdout))
                self.cache[subcommand] = names | {"--help"}
        return self.cache[subcommand]


def check(files, makefile, cli, ci_script, rules_source, rules_article):
    problems = []
    targets = makefile_targets(makefile)
    checked_make, checked_imago = 0, 0
    for path in files:
        text = open(path, encoding="utf-8").read()
        name = os.path.relpath(path, ROOT)
        for line, rest in commands(text, "make"):
            target = rest.split()[0]
            if "=" in target or not re.match(r"^[a-z][a-z0-9-]*$", target):
                continue
            checked_make += 1
            if target not in targets:
                problems.append(f"{name}:{line}: `make {target}` is not a target of the Makefile")
        for line, rest in commands(text, "imago"):
            words = rest.split()
            if not words or not re.match(r"^(--)?[a-z][a-z0-9-]*$", words[0]):
                continue
            subcommand = "" if words[0].startswith("--") else words[0]
            # A nested subcommand (`imago bench compare`) has flags of its own.
            if subcommand and len(words) > 1 and re.match(r"^[a-z][a-z0-9-]*$", words[1]) \
                    and cli.flags(f"{subcommand} {words[1]}") is not None:
                subcommand = f"{subcommand} {words[1]}"
            flags = cli.flags(subcommand)
            checked_imago += 1
            if flags is None:
                problems.append(f"{name}:{line}: `imago {subcommand}` is not a subcommand (`imago --help`)")
                continue
            for flag in re.findall(r"(?<![\w-])(--[a-z0-9][a-z0-9-]*)", rest):
                if flag not in flags:
                    where = f"imago {subcommand}".strip()
                    problems.append(f"{name}:{line}: `{where}` has no flag {flag} (`{where} --help`)")
    # The README's account of CI against .ci/run.
    readme = os.path.join(ROOT, "README.md")
    # Its steps are `step NAME make TARGET` lines: the deps step, then each lane's, in file order.
    ci_steps = re.findall(r"(?m)^\s*step \S+ make ([a-z][a-z0-9-]*)", open(ci_script, encoding="utf-8").read())
    paragraph = re.search(r"CI \(`\.ci/run`.*?(?:\n\n|$)", open(readme, encoding="utf-8").read(), re.S)
    if paragraph is None:
        problems.append("README.md: no paragraph starting \"CI (`.ci/run`\" says what CI runs")
    else:
        named = re.findall(r"`make ([a-z][a-z0-9-]*)`", paragraph.group(0))
        if named != ci_steps:
            problems.append(f"README.md: CI is said to run {named}, but .ci/run runs {ci_steps}")
    # Every rule in the conformance catalog.
    rule_ids = re.findall(r"(?m)^- \*\*([A-Z]+-[A-Z0-9]+)\*\*", open(rules_source, encoding="utf-8").read())
    article = open(rules_article, encoding="utf-8").read()
    for rule in rule_ids:
        if not re.search(r"(?m)^- term " + re.escape(rule) + ":", article):
            problems.append(f"{os.path.relpath(rules_article, ROOT)}: rule {rule} of Docs/phase-rules.md is missing")
    return problems, checked_make, checked_imago, len(ci_steps), len(rule_ids)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--imago", required=True, help="the built imago executable")
    parser.add_argument("files", nargs="*", help="Markdown files (default: README.md and the DocC articles)")
    options = parser.parse_args()
    if not os.access(options.imago, os.X_OK):
        print(f"readme-check: no imago executable at {options.imago} (swift build --product imago)")
        return 1
    files = options.files or [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "Sources/*/*.docc/*.md")))
    problems, makes, imagos, ci, rules = check(
        files, os.path.join(ROOT, "Makefile"), CLI(options.imago), os.path.join(ROOT, ".ci/run"),
        os.path.join(ROOT, "Docs/phase-rules.md"),
        os.path.join(ROOT, "Sources/ImagoConformance/ImagoConformance.docc/Rules.md"))
    for problem in problems:
        print(problem)
    if problems:
        print(f"readme-check: {len(problems)} problem(s) in {len(files)} files")
        return 1
    print(f"readme-check: {len(files)} files, {makes} make commands, {imagos} imago commands, "
          f"{ci} CI steps and {rules} rules agree with the Makefile, the CLI, .ci/run and Docs/phase-rules.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
