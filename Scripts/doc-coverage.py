#!/usr/bin/env python3
"""Every public symbol of the named modules has a doc comment of its own.

Reads the symbol graphs that `swift package generate-documentation` (swift-docc-plugin, the
`make docs` target) leaves in .build/<triple>/extracted-symbols/<package>/<Module>/: the
module's own graph and its `Module@Other` graphs (public extensions of other modules' types).
Those graphs hold the public and open symbols only (the plugin's default minimum access level).
Prints one line per symbol without a doc comment of its own, `file:line: kind name`, and exits
1 if there is any; exits 2 when a module's graph is missing or older than its sources (run
`make docs` first). Reading the graphs takes well under a second.

Policy (strict: a symbol is checked unless its author cannot document it):
- Checked: every symbol with a source location: types, protocols, typealiases, initialisers,
  methods, properties, subscripts, operators, and every enum case (a case says what it means
  for the code that meets it; a shared `/// ...` above `case a, b` counts for each).
- Implementations of protocol requirements are checked too (`description`, `hash(into:)`,
  `==`, `<`, a conformer's `fetch(_:progress:)`): the graph copies the requirement's doc onto
  an implementation that has none, and that copy says what the protocol asks, not what this
  type does (which text `description` gives, what equality compares). Only a comment written
  at the declaration counts: its file is the declaration's and nothing but attributes and
  blank lines stand between the two.
- Not checked: symbols without a source location (the compiler synthesised them: `Equatable`
  `==`, `Codable` and `RawRepresentable` members, defaults inherited from other modules'
  protocol extensions), extension blocks themselves (their members are checked), and
  `@_spi` symbols (the plugin leaves them out of the graphs: not part of the public API).

Usage: doc-coverage.py [--build DIR] MODULE...   (DIR defaults to .build)
"""
import argparse
import glob
import json
import os
import sys
from urllib.parse import unquote, urlparse

SKIPPED_KINDS = {"swift.extension"}


def symbol_graphs(build: str, module: str) -> list[str]:
    """The module's graph files in the newest extracted-symbols directory holding it."""
    directories = glob.glob(os.path.join(build, "*", "extracted-symbols", "*", module))
    if not directories:
        return []
    newest = max(directories, key=os.path.getmtime)
    return sorted(glob.glob(os.path.join(newest, f"{module}.symbols.json"))
                  + glob.glob(os.path.join(newest, f"{module}@*.symbols.json")))


def newest_source(module: str) -> float:
    times = [os.path.getmtime(path)
             for path in glob.glob(os.path.join("Sources", module, "**", "*.swift"), recursive=True)]
    return max(times, default=0.0)


def path_of(uri: str) -> str:
    return unquote(urlparse(uri).path)


class SourceLines:
    """Source files read once, for what stands between a doc comment and its declaration."""

    def __init__(self) -> None:
        self.files: dict[str, list[str]] = {}

    def between(self, path: str, first: int, last: int) -> list[str]:
        if path not in self.files:
            with open(path, encoding="utf-8") as handle:
                self.files[path] = handle.read().splitlines()
        return self.files[path][first:last]


def has_own_doc(symbol: dict, sources: SourceLines) -> bool:
    doc, location = symbol.get("docComment"), symbol["location"]
    if not doc or doc.get("uri") != location["uri"]:
        return False
    lines = [line for line in doc.get("lines", []) if "range" in line]
    if not lines or not any(line["text"].strip() for line in lines):
        return False
    doc_end = lines[-1]["range"]["end"]["line"]  # 0-based, as is the declaration's line
    declaration = location["position"]["line"]
    if doc_end > declaration:
        return False
    if doc_end == declaration:  # `case a, b` on one line: the comment above belongs to both
        return True
    # Only attributes may stand between, an attribute's arguments possibly over several lines.
    depth = 0
    for line in sources.between(path_of(location["uri"]), doc_end + 1, declaration):
        text = line.strip()
        if depth == 0 and text and not text.startswith("@"):
            return False
        depth = max(0, depth + text.count("(") - text.count(")"))
    return True


def undocumented(graph_paths: list[str], root: str) -> tuple[list[tuple[str, int, str, str]], int]:
    """The checked symbols without a doc comment of their own (sorted), and how many were checked."""
    sources, found, seen = SourceLines(), [], set()
    for graph_path in graph_paths:
        with open(graph_path, encoding="utf-8") as handle:
            graph = json.load(handle)
        for symbol in graph["symbols"]:
            kind = symbol["kind"]["identifier"]
            if kind in SKIPPED_KINDS or "location" not in symbol:
                continue
            if symbol["identifier"]["precise"] in seen:
                continue
            seen.add(symbol["identifier"]["precise"])
            if has_own_doc(symbol, sources):
                continue
            path = os.path.relpath(path_of(symbol["location"]["uri"]), root)
            line = symbol["location"]["position"]["line"] + 1
            found.append((path, line, kind.removeprefix("swift."), ".".join(symbol["pathComponents"])))
    return sorted(found), len(seen)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=".build", help="the build directory (default .build)")
    parser.add_argument("modules", nargs="+", metavar="MODULE")
    arguments = parser.parse_args()
    root, missing = os.getcwd(), 0
    for module in arguments.modules:
        paths = symbol_graphs(arguments.build, module)
        if not paths:
            print(f"doc-coverage: no symbol graph for {module} under {arguments.build}: run make docs",
                  file=sys.stderr)
            return 2
        if min(os.path.getmtime(path) for path in paths) < newest_source(module):
            print(f"doc-coverage: the symbol graph for {module} is older than Sources/{module}: "
                  "run make docs", file=sys.stderr)
            return 2
        found, checked = undocumented(paths, root)
        for path, line, kind, name in found:
            print(f"{path}:{line}: {kind} {name}")
        print(f"doc-coverage: {module}: {len(found)} of {checked} public symbols without a doc comment",
              file=sys.stderr)
        missing += len(found)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
