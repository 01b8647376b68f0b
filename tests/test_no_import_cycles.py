"""Issue 14: no import cycle among the Rust modules of each crate or among the Python modules
of the package, so that data flows one way (scenario -> build -> engine -> result -> tables).

A file depends on another when it uses a name defined there: `use crate::a::b::{X, Y}` and
`use super::X` in Rust (a name a `mod.rs` only re-exports with `pub use child::X` counts as
the child's; re-exports themselves are not uses), `import` / `from ... import` anywhere in a
Python module (a local import is still a dependency)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CRATES = [ROOT / "crates" / "aqmlab-core" / "src", ROOT / "crates" / "aqmlab-py" / "src"]
PACKAGE = ROOT / "python" / "aqmlab"

USE = re.compile(r"^\s*(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", re.M | re.S)


def _module_files(src: Path) -> dict[tuple[str, ...], Path]:
    """Module path (from the crate root) -> file."""
    out: dict[tuple[str, ...], Path] = {}
    for f in src.rglob("*.rs"):
        parts = list(f.relative_to(src).with_suffix("").parts)
        if parts[-1] in ("mod", "lib"):
            parts = parts[:-1]
        out[tuple(parts)] = f
    return out


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
    reexports: dict[tuple[str, ...], dict[str, tuple[str, ...]]] = {}
    for mod, f in files.items():
        for m in USE.finditer(f.read_text()):
            if m.group(1):  # pub use: name -> the module it comes from, relative to `mod`
                for path in _expand(m.group(2)):
                    if len(path) >= 2 and path[0] not in ("crate", "super", "self", "std", "pyo3"):
                        reexports.setdefault(mod, {})[path[-1]] = mod + tuple(path[:-1])

    def resolve(mod: tuple[str, ...], path: list[str]) -> Path | None:
        if path[0] == "crate":
            base, rest = (), path[1:]
        elif path[0] == "super":
            base, rest = mod[:-1], path[1:]
            while rest and rest[0] == "super":
                base, rest = base[:-1], rest[1:]
        elif path[0] == "self":
            base, rest = mod, path[1:]
        else:
            return None  # another crate
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
        for m in USE.finditer(f.read_text()):
            if m.group(1):
                continue
            for path in _expand(m.group(2)):
                target = resolve(mod, path)
                if target is not None and target != f:
                    graph[f].add(target)
    return graph


def _python_graph(pkg: Path) -> dict[Path, set[Path]]:
    files = {f: ".".join(("aqmlab",) + f.relative_to(pkg).with_suffix("").parts) for f in pkg.rglob("*.py")}
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


def test_no_rust_module_cycle() -> None:
    for src in CRATES:
        assert _names(_cycles(_rust_graph(src))) == [], src


def test_no_python_module_cycle() -> None:
    assert _names(_cycles(_python_graph(PACKAGE))) == []


def test_the_checks_see_a_cycle() -> None:
    # The graphs are not empty by accident: known one-way dependencies are found, and a
    # cycle made by hand is reported.
    rust = _rust_graph(CRATES[0])
    red = CRATES[0] / "aqm" / "red.rs"
    assert CRATES[0] / "aqm" / "params.rs" in rust[red]
    assert red in rust[CRATES[0] / "aqm" / "registry.rs"]
    py = _python_graph(PACKAGE)
    store, aggregate = PACKAGE / "sweep" / "store.py", PACKAGE / "sweep" / "aggregate.py"
    assert aggregate in py[store]
    py[aggregate].add(store)
    assert _names(_cycles(py)) == [[str(aggregate.relative_to(ROOT)), str(store.relative_to(ROOT))]]
