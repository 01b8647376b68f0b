"""Issues 14 and 36: imports point one way. No file-level import cycle among the Rust modules of
each crate or among the Python modules of the package, and no import from a higher floor
(the floors of ARCHITECTURE.md, written here as data).

A file depends on another when it names something defined there. In Rust: every path that
starts at `crate::`, `super::` or `self::`, in a `use` (top of file or inside a function,
`pub use` included, except a module's re-export of its own child's names) or inline in the
code (`crate::a::b::f()`), and a bare `name::...` where `name` is a child module the file
declares (`mod name;`); `super::` inside an inline `mod tests { ... }` is the file itself. A
name a `mod.rs` only re-exports with `pub use child::X` counts as the child's. Comments,
strings and character literals are not code. Test code counts: it is part of the file. In
Python: `import` / `from ... import` anywhere in a module (a local import is still a
dependency).

Run as a script to print the whole graph's violations: `python tests/test_no_import_cycles.py`."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "crates" / "aqmlab-core" / "src"
CRATES = [CORE, ROOT / "crates" / "aqmlab-py" / "src", ROOT / "crates" / "aqmlab-emulator" / "src"]
PACKAGE = ROOT / "python" / "aqmlab"

# The floors of aqmlab-core, bottom to top (ARCHITECTURE.md, "Floors"). A file belongs to the
# floor of the longest module prefix listed; it may import its own floor's files only within
# its own folder (sideways), and any lower floor.
RUST_FLOORS: list[tuple[str, list[str]]] = [
    ("sim", ["sim"]),
    ("units and errors", ["units"]),
    ("net", ["net"]),
    ("metrics", ["metrics"]),
    ("aqm", ["aqm"]),
    ("link", ["link"]),
    ("transport", ["transport"]),
    ("scenario", ["scenario"]),
    ("simulator", ["timeline", "simulator", "run_checks", "result", "run_warnings"]),
    ("build", ["build"]),
    ("emulation and the crate's root", ["emulation", ""]),
]

# The Python package's floors, bottom to top (ARCHITECTURE.md, "Code map", python/aqmlab/).
PYTHON_FLOORS: list[tuple[str, list[str]]] = [
    ("the extension, errors and a sweep table's columns", ["aqmlab._core", "aqmlab.errors", "aqmlab.tidy_table"]),
    ("the analytic models and the drawing", ["aqmlab.analytic", "aqmlab.plot"]),
    ("the public API", ["aqmlab"]),
    ("sweeps", ["aqmlab.sweep"]),
    ("papers and the emulation", ["aqmlab.reproduce", "aqmlab.emulation"]),
    ("the league", ["aqmlab.league"]),
    ("the command line", ["aqmlab.cli", "aqmlab.cli_plot", "aqmlab.entry", "aqmlab.__main__"]),
]

# What still points the wrong way (issue 36, item 2, not yet moved): each entry is one import
# (file -> file, paths from the crate's src/ or the package). The test fails when one of them
# is gone without being removed here, so this list can only shrink.
ALLOWED_RUST: set[tuple[str, str]] = set()
ALLOWED_PYTHON: set[tuple[str, str]] = set()

USE = re.compile(r"\b(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", re.S)
INLINE = re.compile(r"(?<![:\w])((?:crate|super|self)(?:\s*::\s*\w+)+)")
MOD = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", re.M)
# Comments, strings (raw ones too) and character literals, in the order they start.
NOT_CODE = re.compile(r"""//[^\n]*|/\*.*?\*/|r(#*)".*?"\1|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)'""", re.S)


def _module_files(src: Path) -> dict[tuple[str, ...], Path]:
    """Module path (from the crate root) -> file."""
    out: dict[tuple[str, ...], Path] = {}
    for f in src.rglob("*.rs"):
        parts = list(f.relative_to(src).with_suffix("").parts)
        if parts[-1] in ("mod", "lib", "main"):
            parts = parts[:-1]
        out[tuple(parts)] = f
    return out


def _code(f: Path) -> str:
    return NOT_CODE.sub(lambda m: '""' if m.group(0)[0] in "r\"'" else " ", f.read_text())


def _expand(tree: str) -> list[list[str]]:
    """`a::b::{c, d::{e, f}}` -> [[a, b, c], [a, b, d, e], [a, b, d, f]] (aliases dropped)."""
    tree = re.sub(r"\s+", "", re.sub(r"\s+as\s+\w+", "", tree))
    depth, split = 0, None
    for i, ch in enumerate(tree):
        if ch == "{":
            if depth == 0:
                split = i
            depth += 1
        elif ch == "}":
            depth -= 1
    if split is None:
        return [[p for p in tree.split("::") if p]]
    prefix = [p for p in tree[:split].split("::") if p]
    inner, items, depth, start = tree[split + 1 : -1], [], 0, 0
    for i, ch in enumerate(inner):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(inner[start:i])
            start = i + 1
    items.append(inner[start:])
    return [prefix + rest for item in items if item for rest in _expand(item)]


def _rust_graph(src: Path) -> dict[Path, set[Path]]:
    files = _module_files(src)
    codes = {mod: _code(f) for mod, f in files.items()}
    children = {mod: set(MOD.findall(code)) for mod, code in codes.items()}
    reexports: dict[tuple[str, ...], dict[str, tuple[str, ...]]] = {}
    for mod, code in codes.items():
        for m in USE.finditer(code):
            if m.group(1):  # pub use: name -> the module it comes from, relative to `mod`
                for path in _expand(m.group(2)):
                    if len(path) >= 2 and path[0] in children[mod]:
                        reexports.setdefault(mod, {})[path[-1]] = mod + tuple(path[:-1])

    def resolve(mod: tuple[str, ...], path: list[str], inline: int) -> Path | None:
        if path[0] == "crate":
            base, rest = (), path[1:]
        elif path[0] in ("super", "self"):
            # Inside `mod tests { ... }` (depth `inline`), `super` first climbs to the file.
            rest = path[1:] if path[0] == "self" else path
            if path[0] == "super":
                while rest and rest[0] == "super" and inline:
                    rest, inline = rest[1:], inline - 1
            if inline:
                return None  # a name of the file's own inline module
            base = mod
            while rest and rest[0] == "super":
                base, rest = base[:-1], rest[1:]
        elif path[0] in children[mod] and not inline:
            base, rest = mod, path
        else:
            return None  # another crate, or a name in scope
        # The longest prefix that is a module; the rest names an item in it.
        for k in range(len(rest), -1, -1):
            target = base + tuple(rest[:k])
            if target in files:
                name = rest[k] if k < len(rest) else None
                origin = reexports.get(target, {}).get(name) if name else None
                return files.get(origin, files[target]) if origin else files[target]
        return None

    graph: dict[Path, set[Path]] = {f: set() for f in files.values()}
    for mod, f in files.items():
        code = codes[mod]
        blocks = _inline_modules(code)
        paths: list[tuple[list[str], int]] = []
        for m in USE.finditer(code):
            depth = sum(a < m.start() < b for a, b in blocks)
            for path in _expand(m.group(2)):
                if m.group(1) and path and path[0] in children[mod] and not depth:
                    continue  # a re-export of a child's name: the façade, not a use
                paths.append((path, depth))
        bare = USE.sub(lambda m: " " * len(m.group(0)), code)  # positions kept
        for m in INLINE.finditer(bare):
            depth = sum(a < m.start() < b for a, b in blocks)
            paths.append((re.sub(r"\s+", "", m.group(1)).split("::"), depth))
        for path, depth in paths:
            target = resolve(mod, path, depth) if path else None
            if target is not None and target != f:
                graph[f].add(target)
    return graph


def _inline_modules(code: str) -> list[tuple[int, int]]:
    """The spans of the inline modules of a file (`mod tests { ... }`)."""
    out = []
    for m in re.finditer(r"\bmod\s+\w+\s*\{", code):
        depth = 0
        for i in range(m.end() - 1, len(code)):
            depth += {"{": 1, "}": -1}.get(code[i], 0)
            if depth == 0:
                out.append((m.end() - 1, i))
                break
    return out


def _python_graph(pkg: Path) -> dict[Path, set[Path]]:
    files = {f: _py_name(f, pkg) for f in pkg.rglob("*.py")}
    by_name = {name.removesuffix(".__init__"): f for f, name in files.items()}
    graph: dict[Path, set[Path]] = {f: set() for f in files}
    for f, name in files.items():
        package = name.removesuffix(".__init__") if f.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(f.read_text())):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
                targets = [_imported(base, a.name, by_name) for a in node.names]
            for t in targets:
                if t in by_name and by_name[t] != f:
                    graph[f].add(by_name[t])
    return graph


def _py_name(f: Path, pkg: Path) -> str:
    return ".".join(("aqmlab",) + f.relative_to(pkg).with_suffix("").parts)


def _imported(base: str, name: str, by_name: dict[str, Path]) -> str:
    """What `from base import name` depends on: the submodule `name` if there is one (a .py
    file, or a compiled one such as `_core`), else `base` itself."""
    sub = f"{base}.{name}"
    if sub in by_name:
        return sub
    folder = PACKAGE.parent.joinpath(*base.split("."))
    if folder.is_dir() and any(folder.glob(f"{name}.*")):
        return sub  # a compiled module: not one of the files checked
    return base


def _cycles(graph: dict[Path, set[Path]]) -> list[list[Path]]:
    """Strongly connected components of more than one file (Tarjan)."""
    index: dict[Path, int] = {}
    low: dict[Path, int] = {}
    stack: list[Path] = []
    on_stack: set[Path] = set()
    out: list[list[Path]] = []

    def visit(v: Path) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _names(cycles: list[list[Path]]) -> list[list[str]]:
    return [[str(p.relative_to(ROOT)) for p in c] for c in cycles]


def _floor(name: str, sep: str, floors: list[tuple[str, list[str]]]) -> tuple[int, str]:
    """(floor, folder) of a module: the floor of the longest listed prefix, and that prefix."""
    best, best_len = (-1, ""), -1
    for level, (_, prefixes) in enumerate(floors):
        for p in prefixes:
            if (p == "" or name == p or name.startswith(p + sep)) and len(p) > best_len:
                best, best_len = (level, p), len(p)
    return best


def _rust_module(f: Path, src: Path) -> str:
    parts = list(f.relative_to(src).with_suffix("").parts)
    if parts[-1] in ("mod", "lib"):
        parts = parts[:-1]
    return "::".join(parts)


def _folder(name: str, sep: str, is_package: bool) -> str:
    return name if is_package else name.rpartition(sep)[0]


def _violations(graph: dict[Path, set[Path]], name, sep: str, floors) -> set[tuple[str, str]]:
    """Imports that point to a higher floor, or sideways to another folder of the same floor."""
    out = set()
    for f, targets in graph.items():
        a = name(f)
        fa, _ = _floor(a, sep, floors)
        for t in targets:
            b = name(t)
            fb, _ = _floor(b, sep, floors)
            sideways_ok = fa == fb and _group(a, sep, floors) == _group(b, sep, floors)
            if fb > fa or (fb == fa and not sideways_ok):
                out.add((_rel(f), _rel(t)))
    return out


def _group(name: str, sep: str, floors) -> str:
    """The folder a module counts in: its top folder under the crate or package (the root's
    files are one folder)."""
    del floors
    parts = name.split(sep)
    if sep == ".":
        parts = parts[1:]  # below `aqmlab`
    return parts[0] if len(parts) > 1 or _is_folder(name, sep) else ""


def _is_folder(name: str, sep: str) -> bool:
    parts = name.split(sep)
    if sep == ".":
        return (PACKAGE.joinpath(*parts[1:]) / "__init__.py").exists() and len(parts) > 1
    return bool(name) and (CORE.joinpath(*parts) / "mod.rs").exists()


def _rel(p: Path) -> str:
    for base in (CORE, PACKAGE.parent):
        if p.is_relative_to(base):
            return str(p.relative_to(base))
    return str(p.relative_to(ROOT))


def rust_violations() -> set[tuple[str, str]]:
    return _violations(_rust_graph(CORE), lambda f: _rust_module(f, CORE), "::", RUST_FLOORS)


def python_violations() -> set[tuple[str, str]]:
    return _violations(
        _python_graph(PACKAGE), lambda f: _py_name(f, PACKAGE).removesuffix(".__init__"), ".", PYTHON_FLOORS
    )


def test_no_rust_module_cycle() -> None:
    for src in CRATES:
        assert _names(_cycles(_rust_graph(src))) == [], src


def test_no_python_module_cycle() -> None:
    assert _names(_cycles(_python_graph(PACKAGE))) == []


def test_rust_imports_point_down() -> None:
    found = rust_violations()
    assert sorted(found - ALLOWED_RUST) == []
    assert sorted(ALLOWED_RUST - found) == [], "fixed: remove these from ALLOWED_RUST"


def test_python_imports_point_down() -> None:
    found = python_violations()
    assert sorted(found - ALLOWED_PYTHON) == []
    assert sorted(ALLOWED_PYTHON - found) == [], "fixed: remove these from ALLOWED_PYTHON"


def test_floors_are_those_of_architecture_md() -> None:
    text = (ROOT / "ARCHITECTURE.md").read_text()
    section = text.split("## Floors", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^\d+\. \*\*([^*]+)\*\*", section, re.M)
    assert listed == [name for name, _ in RUST_FLOORS]


def test_the_checks_see_a_cycle() -> None:
    # The graphs are not empty by accident: known one-way dependencies are found, inline
    # paths are seen, and a cycle made by hand is reported.
    rust = _rust_graph(CORE)
    red = CORE / "aqm" / "red.rs"
    assert CORE / "aqm" / "params.rs" in rust[red]
    assert red in rust[CORE / "aqm" / "registry.rs"]
    py = _python_graph(PACKAGE)
    store, aggregate = PACKAGE / "sweep" / "store.py", PACKAGE / "sweep" / "aggregate.py"
    assert aggregate in py[store]
    py[aggregate].add(store)
    assert _names(_cycles(py)) == [[str(aggregate.relative_to(ROOT)), str(store.relative_to(ROOT))]]


def test_the_checks_see_an_import_from_above() -> None:
    rust = _rust_graph(CORE)
    sim = CORE / "sim" / "time.rs"
    rust[sim].add(CORE / "simulator.rs")
    found = _violations(rust, lambda f: _rust_module(f, CORE), "::", RUST_FLOORS)
    assert ("sim/time.rs", "simulator.rs") in found
    py = _python_graph(PACKAGE)
    py[PACKAGE / "analytic" / "mm1k.py"].add(PACKAGE / "api.py")
    found = _violations(py, lambda f: _py_name(f, PACKAGE).removesuffix(".__init__"), ".", PYTHON_FLOORS)
    assert ("aqmlab/analytic/mm1k.py", "aqmlab/api.py") in found


if __name__ == "__main__":
    for src in CRATES:
        for c in _names(_cycles(_rust_graph(src))):
            print("cycle:", c)
    for c in _names(_cycles(_python_graph(PACKAGE))):
        print("python cycle:", c)
    for a, b in sorted(rust_violations()):
        print(f"rust: {a} -> {b}")
    for a, b in sorted(python_violations()):
        print(f"python: {a} -> {b}")
