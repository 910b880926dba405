#!/usr/bin/env python3
"""Structure check: the layers of docs/architecture.md hold in the code.

    python3 scripts/structure_check.py            # prints the file graph's problems, exit 1 if any
    python3 scripts/structure_check.py --graph    # also prints every file's imports
    python3 scripts/structure_check.py --root DIR # checks the tree at DIR instead

Rust (crates/lnsim/src): every `crate::…`, `super::…` and `self::…` path a file names (in `use`
trees and in code; comments, string and char literals left out) is resolved to the file that
defines that module — or, for a name a module re-exports (`pub use wheel::EventQueue`), to the
file that defines the name — giving a graph of files. A module's table of contents — `mod x;`
and `pub use x::…` of its own children in `mod.rs` or `lib.rs` — is not a dependency; neither is
code inside `#[cfg(test)] mod tests { … }`, nor a file that only holds tests (`tests.rs`); the
children a `mod.rs` names by their bare name (a dispatch arm, `use dbbm::Dbbm;`) are
registrations: they count as uses (below), not as imports that could close a circle. The check
then reports

* an import from a lower layer to a higher one (layers below, lowest first),
* an import from one model wing into the other,
* every circle of files (strongly connected components of more than one file),
* a wing-only file in the foundation: a foundation file that one wing alone uses, directly or
  through foundation files only that wing uses (a file imported from above the wings, `api.rs`,
  serves both), belongs in that wing,
* a mechanism (LIAN, ACOR, DDBBM, DRB: `MECHANISMS`) named in the code of a file other than its
  own and its seams' registrations (a registry's dispatch arm, its keys' declaration); the places
  still to remove are listed with their reason and printed as notes (`--graph` or
  `--mechanisms`), and a listed place that no longer names it must leave the list,
* a Rust file without its row in docs/architecture.md's file table, or a row of a file that is
  gone.

    python3 scripts/structure_check.py --mechanisms   # per mechanism, the files naming it outside its own

Python (python/lnsim, packages included): `import lnsim.x`, `from lnsim.x import …`,
`from . import x`, `from .x import …` and `from .. import y` — function-local imports included —
give a graph of dotted modules; every circle is reported.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "crates" / "lnsim" / "src"
PY = ROOT / "python" / "lnsim"
DOC = ROOT / "docs" / "architecture.md"

#: Rust layers, lowest first: a file may import from its own layer or a lower one. The two wings
#: share a layer and may not import each other.
LAYERS: list[tuple[str, set[str]]] = [
    ("base", {"error", "outdir", "lib"}),  # lib.rs: the crate root (VERSION, re-exports)
    ("configuration", {"config"}),
    ("foundation", {"engine", "topology", "routing", "traffic", "stats"}),
    ("wings", {"credit", "cycle"}),
    ("entry points", {"api"}),
]
WINGS = {"credit", "cycle"}


def top_of(mod: tuple[str, ...]) -> str:
    return mod[0] if mod else "lib"



def layer_of(top: str) -> int:
    for i, (_, tops) in enumerate(LAYERS):
        if top in tops:
            return i
    return -1


# ---------------------------------------------------------------- Rust


def rust_modules() -> dict[tuple[str, ...], Path]:
    mods: dict[tuple[str, ...], Path] = {}
    for f in sorted(SRC.rglob("*.rs")):
        rel = f.relative_to(SRC).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] in ("mod", "lib"):
            parts = parts[:-1]
        mods[tuple(parts)] = f
    return mods


#: Comments, string literals (raw too) and char literals of Rust source.
LEXEMES = re.compile(
    r"""//[^\n]*|/\*.*?\*/|b?r(#*)".*?"\1|b?"(?:\\.|[^"\\])*"|'(?:\\.|[^\\'\n])'""",
    re.S,
)


def strip_comments_and_tests(text: str) -> str:
    # one pass, so that a `//` inside a string or a quote inside a comment is read as what it is
    # (strings may span lines: a `\` before the line end continues them)
    text = LEXEMES.sub(lambda m: "" if m.group(0).startswith("/") else '""', text)
    m = re.search(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{", text)
    if m:
        text = text[: m.start()]
    return text


def expand_use_tree(tree: str) -> list[str]:
    """`a::{b, c::{d, e}}` → [`a::b`, `a::c::d`, `a::c::e`]."""
    tree = tree.replace(" ", "").replace("\n", "")
    i = tree.find("{")
    if i < 0:
        return [re.sub(r"as\w+$", "", tree)]
    prefix, inner = tree[:i], tree[i + 1 : tree.rfind("}")]
    parts, depth, cur = [], 0, ""
    for ch in inner:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur += ch
    parts.append(cur)
    out = []
    for p in parts:
        if not p:
            continue
        if p == "self":
            out.append(prefix.rstrip(":"))
        else:
            out.extend(expand_use_tree(prefix + p))
    return out


def resolve(
    path: str,
    here: tuple[str, ...],
    is_mod_file: bool,
    mods,
    reexports: dict | None = None,
    bare_children: bool = False,
) -> tuple[str, ...] | None:
    segs = [s for s in path.split("::") if s]
    if not segs:
        return None
    # the module a file's `self` is: a mod.rs is its folder's module
    cur = list(here)
    if segs[0] == "crate":
        base: list[str] = []
        segs = segs[1:]
    elif segs[0] in ("super", "self"):
        base = cur
        while segs and segs[0] in ("super", "self"):
            if segs[0] == "super":
                base = base[:-1]
            segs = segs[1:]
    elif bare_children and tuple(cur + segs[:1]) in mods:
        base = cur  # a child module named without `self::` (`pub use wheel::EventQueue`)
    else:
        return None
    # longest prefix that is a module file
    best = None
    for k in range(len(segs), -1, -1):
        cand = tuple(base + segs[:k])
        if cand in mods:
            best = cand
            # a name the module re-exports (`pub use wheel::EventQueue` in engine/mod.rs) is
            # the file that defines it
            if reexports and k < len(segs) and (cand, segs[k]) in reexports:
                best = reexports[(cand, segs[k])]
            break
    return best


def rust_reexports(mods) -> dict[tuple[tuple[str, ...], str], tuple[str, ...]]:
    """`pub use path::Name;` of every file: (the file's module, Name) → the file `path` names."""
    out = {}
    for mod, f in mods.items():
        text = strip_comments_and_tests(f.read_text())
        is_mod_file = f.name in ("mod.rs", "lib.rs")
        for m in re.finditer(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]+);", text):
            for p in expand_use_tree(m.group(1)):
                name = p.rsplit("::", 1)[-1]
                tgt = resolve(p, mod, is_mod_file, mods, bare_children=True)
                if tgt is not None and name != "*" and tgt != mod:
                    out[(mod, name)] = tgt
    return out


def rust_graph() -> tuple[dict, dict, dict]:
    """The files each file imports, the module files, and per module file the children it
    registers: names in its code by their bare name (`fat_tree::build(…)` in topology/mod.rs,
    `use dbbm::Dbbm;` for a dispatch arm) — a use, but not an import that can close a circle
    (a seam's mod.rs and its variants name each other by design)."""
    mods = rust_modules()
    reexports = rust_reexports(mods)
    graph: dict[tuple[str, ...], set[tuple[str, ...]]] = {m: set() for m in mods}
    registered: dict[tuple[str, ...], set[tuple[str, ...]]] = {m: set() for m in mods}
    for mod, f in mods.items():
        if f.name == "tests.rs":
            continue
        text = strip_comments_and_tests(f.read_text())
        is_mod_file = f.name in ("mod.rs", "lib.rs")
        paths: list[str] = []
        for m in re.finditer(r"\b(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", text):
            public = bool(m.group(1))
            for p in expand_use_tree(m.group(2)):
                if public and is_mod_file:
                    # a re-export of one of its own children is the module's table of contents
                    tgt = resolve(p, mod, True, mods)
                    if tgt and tgt[: len(mod)] == mod and len(tgt) > len(mod):
                        continue
                paths.append(p)
                if is_mod_file and not public and tuple(mod) + (p.split("::")[0],) in mods:
                    registered[mod].add(tuple(mod) + (p.split("::")[0],))
        body = re.sub(r"\buse\s+[^;]+;", "", text)
        paths += re.findall(r"\b(?:crate|super|self)(?:::\w+)+", body)
        for p in paths:
            tgt = resolve(p, mod, is_mod_file, mods, reexports)
            if tgt is not None and tgt != mod:
                graph[mod].add(tgt)
        if is_mod_file:
            for name in re.findall(r"(?<![:\w])(\w+)::\w", body):
                if tuple(mod) + (name,) in mods:
                    registered[mod].add(tuple(mod) + (name,))
    return graph, mods, registered


def sccs(graph: dict) -> list[list]:
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def rust_name(mod: tuple[str, ...], mods) -> str:
    return str(mods[mod].relative_to(SRC))


def wings_reaching(graph: dict, registered: dict) -> dict[tuple[str, ...], set[str]]:
    """Per foundation file, the wings that use it: directly (a file of the wing imports it) or
    through a foundation file they use (by an import or a registration: `topology::build`
    builds every family); a file imported from above the wings (`api.rs`) serves both. A
    fixpoint over the import graph, so a chain of foundation files inherits the wings of its
    first link."""
    graph = {m: graph[m] | registered.get(m, set()) for m in graph}
    wings_layer = layer_of(next(iter(WINGS)))
    foundation = {m for m in graph if layer_of(top_of(m)) == wings_layer - 1}
    reach: dict[tuple[str, ...], set[str]] = {m: set() for m in foundation}
    for a, targets in graph.items():
        ta = top_of(a)
        for b in targets & foundation:
            if ta in WINGS:
                reach[b].add(ta)
            elif layer_of(ta) > wings_layer:
                reach[b] |= WINGS
    changed = True
    while changed:
        changed = False
        for a in foundation:
            for b in graph[a] & foundation:
                if not reach[a] <= reach[b]:
                    reach[b] |= reach[a]
                    changed = True
    return reach


def wing_only_in_foundation(graph: dict, mods, registered: dict) -> list[str]:
    """A foundation file that one wing alone uses (directly or through foundation files) belongs
    in that wing."""
    out = []
    for m, wings in sorted(wings_reaching(graph, registered).items()):
        if len(wings) == 1:
            (w,) = wings
            users = sorted(rust_name(a, mods) for a in graph if m in graph[a] and top_of(a) == w)
            via = f"imported by {', '.join(users)}" if users else "reached through foundation files only it uses"
            out.append(f"wing-only file in the foundation ({w} alone uses it): {rust_name(m, mods)} ({via})")
    return out


#: The mechanisms whose spread the check bounds: per mechanism, the words that name it in code
#: (identifiers split at `_` and at case changes: `DdbbmLanes`, `ddbbm_detection`), its own files
#: (paths under crates/lnsim/src, a trailing `/` for a folder), and its seams' registrations: the
#: files that may name it to plug it in (a dispatch arm, a key's declaration). Any other file
#: naming it is reported. Comments, strings and tests are not code and are not counted.
MECHANISMS: dict[str, dict] = {
    "LIAN": {
        "words": {"lian"},
        # the group counters and their observer serve TPR and LIAN; LIAN's mode extends them
        "own": ["cycle/routing/lian.rs", "cycle/routing/group_counters.rs", "cycle/counter_trace.rs"],
        "registrations": ["config/schema.rs", "config/keys.rs", "cycle/routing/mod.rs"],
        "pending": {},
    },
    "ACOR": {
        "words": {"acor"},
        "own": ["cycle/routing/acor.rs", "cycle/routing/acor_levels.rs"],
        # the routing registry, the routing-state seam's variant and the state the algorithm asks for
        "registrations": [
            "config/schema.rs",
            "config/keys.rs",
            "cycle/routing/mod.rs",
            "cycle/mechanism.rs",
            "cycle/routing/algorithm.rs",
        ],
        "pending": {},
    },
    "DDBBM": {
        "words": {"ddbbm"},
        "own": ["credit/cc/ddbbm_detection.rs", "credit/cc/ddbbm_lanes.rs", "credit/switch/buffer/ddbbm.rs"],
        # congestion management's, the queue schemes' and the source lane choice's registries
        "registrations": [
            "config/schema.rs",
            "config/keys.rs",
            "credit/cc/mod.rs",
            "credit/switch/buffer/mod.rs",
            "credit/lanes.rs",
        ],
        "pending": {},
    },
    "DRB": {
        "words": {"drb"},
        "own": ["credit/cc/drb.rs", "credit/cc/port_monitor.rs", "credit/routing/multipath.rs"],
        "registrations": ["config/schema.rs", "credit/cc/mod.rs"],
        "pending": {},
    },
}


def identifier_words(code: str) -> set[str]:
    """The lower-cased words of every identifier of `code` (`PbAcor` → pb, acor)."""
    out = set()
    for ident in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", code):
        for part in ident.split("_"):
            out.update(w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+", part))
    return out


def mechanism_mentions() -> dict[str, list[str]]:
    """Per mechanism of MECHANISMS, the source files outside its own that name it in code."""
    words = {}
    for f in sorted(SRC.rglob("*.rs")):
        if f.name != "tests.rs":
            words[f.relative_to(SRC).as_posix()] = identifier_words(strip_comments_and_tests(f.read_text()))
    out = {}
    for mech, spec in MECHANISMS.items():
        own = spec["own"]
        out[mech] = [
            f
            for f, w in words.items()
            if w & set(spec["words"]) and not any(f == o or (o.endswith("/") and f.startswith(o)) for o in own)
        ]
    return out


def mechanisms_spread() -> tuple[list[str], list[str]]:
    """A mechanism named outside its own files anywhere but in its seams' registrations is a
    problem, unless it is one of the known places still to remove (`pending`, each with its
    reason): those are reported as notes, and a pending place that no longer names it is a
    problem too (the list must shrink with the code)."""
    problems, notes = [], []
    for mech, files in mechanism_mentions().items():
        spec = MECHANISMS[mech]
        for f in files:
            if f in spec["pending"]:
                notes.append(f"still to remove: {mech} named in {f}: {spec['pending'][f]}")
            elif f not in spec["registrations"]:
                problems.append(f"mechanism named outside its files and its seams' registrations: {mech} in {f}")
        for f in sorted(set(spec["pending"]) - set(files)):
            problems.append(f"{mech} is no longer named in {f}: remove it from MECHANISMS' pending list")
    return problems, notes


def check_rust(show: bool) -> list[str]:
    graph, mods, registered = rust_graph()
    problems = []
    for a in sorted(graph):
        ta = top_of(a)
        la = layer_of(ta)
        for b in sorted(graph[a]):
            tb = top_of(b)
            lb = layer_of(tb)
            if ta in WINGS and tb in WINGS and ta != tb:
                problems.append(f"wing imports wing: {rust_name(a, mods)} -> {rust_name(b, mods)}")
            elif la >= 0 and lb > la:
                problems.append(
                    f"upward import ({LAYERS[la][0]} -> {LAYERS[lb][0]}): {rust_name(a, mods)} -> {rust_name(b, mods)}"
                )
            elif la < 0:
                problems.append(f"folder in no layer: {ta} ({rust_name(a, mods)}); add it to LAYERS")
    for comp in sccs(graph):
        problems.append("circle of files: " + " <-> ".join(rust_name(m, mods) for m in comp))
    problems += wing_only_in_foundation(graph, mods, registered)
    spread, notes = mechanisms_spread()
    problems += spread
    if show:
        for n in notes:
            print(n)
    if show:
        for a in sorted(graph):
            print(rust_name(a, mods), "->", ", ".join(rust_name(b, mods) for b in sorted(graph[a])))
    return problems


# ---------------------------------------------------------------- Python


def py_modules() -> dict[str, Path]:
    """Dotted module names of python/lnsim (packages recursively), e.g. `lnsim.plot._style`."""
    mods = {}
    for f in sorted(PY.rglob("*.py")):
        rel = f.relative_to(PY.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = f
    # the compiled core is a module too (imported as `from . import _core`)
    mods.setdefault("lnsim._core", PY / "_core")
    return mods


def check_python(show: bool) -> list[str]:
    mods = py_modules()
    graph: dict[str, set[str]] = {m: set() for m in mods}

    def known(name: str) -> str | None:
        # the longest prefix that is a module
        parts = name.split(".")
        for k in range(len(parts), 0, -1):
            cand = ".".join(parts[:k])
            if cand in mods:
                return cand
        return None

    for mod, f in mods.items():
        if not f.suffix:
            continue
        is_pkg = f.name == "__init__.py"
        package = mod if is_pkg else mod.rpartition(".")[0]
        tree = ast.parse(f.read_text())
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names if a.name.split(".")[0] == "lnsim"]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    base = base[: len(base) - (node.level - 1)]
                    origin = ".".join(base + ([node.module] if node.module else []))
                elif (node.module or "").split(".")[0] == "lnsim":
                    origin = node.module
                else:
                    continue
                for a in node.names:
                    # `from pkg import sub` names a submodule when one exists
                    sub = f"{origin}.{a.name}"
                    targets.append(sub if sub in mods else origin)
            for t in targets:
                k = known(t)
                if k is not None and k != mod:
                    graph[mod].add(k)
    problems = []
    # a package's __init__ re-exports its modules' public names: that is its table of contents,
    # not a dependency, unless a module of the package imports the package back
    for comp in sccs(graph):
        problems.append("python circle: " + " <-> ".join(comp))
    if show:
        for a in sorted(graph):
            print(f"{a} ->", ", ".join(sorted(graph[a])))
    return problems


def check_docs() -> list[str]:
    """docs/architecture.md lists every Rust file of the core (a row `| `path.rs` | ... |`, path
    relative to crates/lnsim/src) and no file that is gone (other crates' rows start with
    `crates/`). Skipped when the tree has no docs/architecture.md."""
    if not DOC.exists():
        return []
    rows = set(re.findall(r"(?m)^\| `([^`]+\.rs)` \|", DOC.read_text()))
    rows = {r for r in rows if not r.startswith("crates/")}
    files = {p.relative_to(SRC).as_posix() for p in SRC.rglob("*.rs")}
    return [f"docs/architecture.md: no row for {f}" for f in sorted(files - rows)] + [
        f"docs/architecture.md: row for {f}, which does not exist" for f in sorted(rows - files)
    ]


def main(argv: list[str]) -> int:
    global SRC, PY, DOC
    show = "--graph" in argv
    if "--root" in argv:
        # check another tree of the same shape (the tests plant faults in a copy)
        root = Path(argv[argv.index("--root") + 1])
        SRC, PY = root / "crates" / "lnsim" / "src", root / "python" / "lnsim"
        DOC = root / "docs" / "architecture.md"
    if "--mechanisms" in argv:
        # the files that name each mechanism outside its own (the closing notes' figure)
        for mech, files in mechanism_mentions().items():
            print(f"{mech}: {len(files)} file(s) outside its own: {', '.join(files) or '-'}")
        for n in mechanisms_spread()[1]:
            print(n)
        return 0
    problems = check_rust(show) + check_python(show) + check_docs()
    for p in problems:
        print(p)
    if problems:
        print(f"structure check: {len(problems)} problem(s)")
        return 1
    print(
        "structure check: ok (layers hold, wings independent, no circle of files, no wing-only file in the foundation, "
        "no mechanism named outside its files but in its seams' registrations and the places listed as still to remove)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
