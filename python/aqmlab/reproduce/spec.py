"""Loading the paper files (papers/<paper>.toml) into small typed objects.

One job: read and check the data, resolve names (``hybrid-red`` -> ``hybrid_red``),
and enumerate each configuration's points. Nothing here runs a simulation.
See papers/README.md for the format.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomllib

from . import PAPER_IDS, PAPERS, SCENARIOS
from .errors import ReproduceError
from .placeholders import substitute


def normalize_paper(name: str) -> str:
    return name.strip().lower().replace("-", "_")


@dataclass
class Configuration:
    name: str
    label: str
    aqm: Any  # "droptail" or a table with ${axis} placeholders
    grid: dict[str, list[Any]] | None = None
    points: list[dict[str, Any]] | None = None
    optional: bool = False

    def expand(self, default_axes: dict[str, list[Any]]) -> list[dict[str, Any]]:
        """The configuration's points (axis name -> value), per the README's rule: its
        ``points``, else the product of its ``grid``, else the product of the axes used in
        ``scenario_overrides`` (``default_axes``), else one empty point."""
        if self.points:
            return [dict(p) for p in self.points]
        axes = self.grid if self.grid else default_axes
        if not axes:
            return [{}]
        names = list(axes)
        return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*axes.values())]


@dataclass
class Experiment:
    paper: str
    id: str
    data: dict[str, Any]
    configurations: list[Configuration] = field(default_factory=list)

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    @property
    def title(self) -> str:
        return str(self.data.get("title", self.id))

    @property
    def scenarios(self) -> list[str]:
        return list(self.data.get("scenarios", []))

    @property
    def aqm_links(self) -> list[str]:
        return list(self.data.get("aqm_links", []))

    @property
    def report_links(self) -> list[str]:
        return list(self.data.get("report_links") or self.aqm_links or ["bottleneck"])

    @property
    def metrics(self) -> list[dict[str, Any]]:
        return list(self.data.get("metrics", []))

    @property
    def axes(self) -> list[dict[str, Any]]:
        return list(self.data.get("axes", []))

    @property
    def axis_names(self) -> list[str]:
        return [a["name"] for a in self.axes]

    @property
    def overrides(self) -> dict[str, Any]:
        return dict(self.data.get("scenario_overrides", {}))

    @property
    def axis_settings(self) -> dict[str, dict[str, dict[str, Any]]]:
        """Per axis with ``settings``: its value (as text) -> the overrides that value applies."""
        return {a["name"]: dict(a["settings"]) for a in self.axes if a.get("settings")}

    @property
    def paper_values(self) -> list[dict[str, Any]]:
        """The rows written in the paper file, then those read from a transcription
        (``paper_values_from``)."""
        return list(self.data.get("paper_values", [])) + self._transcribed

    @property
    def _transcribed(self) -> list[dict[str, Any]]:
        spec = self.data.get("paper_values_from")
        return transcribed_rows(spec, f"{self.paper}/{self.id}") if spec else []

    @property
    def derived_from(self) -> str | None:
        return self.data.get("derived_from")

    @property
    def analytic_only(self) -> bool:
        return not self.scenarios or int(self.data.get("replications_paper", 1)) == 0 and not self.configurations

    @property
    def replications_paper(self) -> int:
        return int(self.data.get("replications_paper", 1))

    @property
    def replications_suggested(self) -> int:
        return int(self.data.get("replications", self.replications_paper or 1))

    def override_axes(self) -> dict[str, list[Any]]:
        """Axes referenced by ``${...}`` in scenario_overrides (and the scenario axis), with
        the values of the experiment's ``axes`` table."""
        used: list[str] = []
        text = repr(self.overrides)
        for a in self.axes:
            if "${" + a["name"] + "}" in text or a.get("settings"):
                used.append(a["name"])
        sa = self.data.get("scenario_axis")
        if sa and sa not in used:
            used.append(sa)
        values = {a["name"]: list(a.get("values", [])) for a in self.axes}
        return {name: values[name] for name in used if values.get(name)}

    def configuration(self, name: str) -> Configuration:
        for c in self.configurations:
            if c.name == name:
                return c
        raise ReproduceError(f"{self.paper}/{self.id}: no configuration {name!r}")

    def points(self, config: Configuration) -> list[dict[str, Any]]:
        pts = config.expand(self.override_axes())
        # A configuration with its own grid/points that does not mention the scenario axis
        # (DSRED's load) runs at every value of it.
        sa = self.data.get("scenario_axis")
        if sa and (config.grid or config.points):
            if not all(sa in p for p in pts):
                vals = self.override_axes().get(sa, [])
                pts = [{**p, sa: v} for p in pts for v in vals] if vals else pts
        return pts

    def scenario_file(self, point: dict[str, Any]) -> Path:
        sa = self.data.get("scenario_axis")
        if sa:
            mapping = self.data.get("scenario_for", {})
            key = point.get(sa)
            if key not in mapping:
                raise ReproduceError(f"{self.paper}/{self.id}: no scenario for {sa} = {key!r}")
            file: str = mapping[key]
            return SCENARIOS / file
        if not self.scenarios:
            raise ReproduceError(f"{self.paper}/{self.id}: no scenario file (analytic-only experiment)")
        return SCENARIOS / self.scenarios[0]


def transcribed_rows(spec: dict[str, Any], where: str) -> list[dict[str, Any]]:
    """Paper values kept in a transcription of their own (a TOML file beside the paper files,
    one table per published cell), so that the numbers have one home. ``spec``: ``file``
    (relative to the papers directory), ``table`` (the array of cells, default ``cell``),
    ``where`` (field -> value: the cells kept), ``exclude`` (field -> values: cells left out),
    ``fields`` (row key -> a ``${cell field}`` template, or a list of them: the first whose
    fields the cell has; the configuration and the axes), ``config_names`` (what
    ``fields.config`` gives -> the configuration's name), ``metrics`` (cell fields copied as they
    are) and ``source`` (a template). A cell whose numbers are statements in a list of its own
    (``statements``: the list's field; each statement a table with ``metric`` and ``value``)
    gives a row per statement with a value (``statement_where`` filters them; ``metric_names``
    renames a statement's metric), marked approximate; templates see the cell's fields and the
    statement's."""
    path = PAPERS / str(spec.get("file", ""))
    if not path.is_file():
        raise ReproduceError(f"{where}: paper_values_from.file {spec.get('file')!r} not found in {PAPERS}")
    cells = tomllib.loads(path.read_text(encoding="utf-8")).get(spec.get("table", "cell"), [])
    keep = dict(spec.get("where", {}))
    drop = {k: set(v) for k, v in dict(spec.get("exclude", {})).items()}
    names = dict(spec.get("config_names", {}))
    rows = []
    for c in cells:
        if any(c.get(k) != v for k, v in keep.items()) or any(c.get(k) in v for k, v in drop.items()):
            continue
        if "statements" in spec:
            rows += _statement_rows(spec, c, names, where)
            continue
        row = _row(spec, c, names, where)
        for m in spec.get("metrics", []):
            if m not in c:
                raise ReproduceError(f"{where}: a transcribed cell has no {m!r}: {c}")
            row[m] = c[m]
        rows.append(row)
    if not rows:
        raise ReproduceError(f"{where}: paper_values_from selects no cell of {spec.get('file')!r}")
    return rows


def _row(spec: dict[str, Any], fields: dict[str, Any], names: dict[str, str], where: str) -> dict[str, Any]:
    row = {k: _first_filled(t, fields, f"{where}: fields.{k}") for k, t in dict(spec.get("fields", {})).items()}
    if "config" in row:
        row["config"] = names.get(row["config"], row["config"])
    if "source" in spec:
        row["source"] = substitute(spec["source"], fields)
    return row


def _statement_rows(
    spec: dict[str, Any], cell: dict[str, Any], names: dict[str, str], where: str
) -> list[dict[str, Any]]:
    keep = dict(spec.get("statement_where", {}))
    renamed = dict(spec.get("metric_names", {}))
    rows = []
    for st in cell.get(spec["statements"], []):
        if st.get("value") is None or any(st.get(k) != v for k, v in keep.items()):
            continue
        row = _row(spec, {**cell, **st}, names, where)
        row[renamed.get(st["metric"], st["metric"])] = st["value"]
        row["approximate"] = True
        rows.append(row)
    return rows


def _first_filled(template: Any, fields: dict[str, Any], where: str) -> Any:
    """``template`` filled from ``fields``; a list of templates: the first that fills."""
    if not isinstance(template, list):
        return substitute(template, fields)
    for t in template:
        try:
            return substitute(t, fields)
        except ReproduceError:
            continue
    raise ReproduceError(f"{where}: no template of {template} fills from {sorted(fields)}")


@dataclass
class Paper:
    id: str
    data: dict[str, Any]
    experiments: dict[str, Experiment]

    @property
    def info(self) -> dict[str, Any]:
        return dict(self.data.get("paper", {}))

    def experiment(self, name: str) -> Experiment:
        key = name.strip().replace("-", "_")
        if key not in self.experiments:
            raise ReproduceError(
                f"unknown experiment {name!r} for paper {self.id!r}; known: {', '.join(self.experiments)}"
            )
        return self.experiments[key]


def known_papers() -> list[str]:
    return list(PAPER_IDS)


def load_paper(name: str, papers_dir: Path | None = None) -> Paper:
    pid = normalize_paper(name)
    d = papers_dir or PAPERS
    path = d / f"{pid}.toml"
    if not path.is_file():
        known = ", ".join(p.replace("_", "-") for p in known_papers())
        raise ReproduceError(f"unknown paper {name!r}; known: {known} (or 'all')")
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return paper_from_dict(pid, data)


def paper_from_dict(pid: str, data: dict[str, Any]) -> Paper:
    exps: dict[str, Experiment] = {}
    for eid, e in data.get("experiments", {}).items():
        confs = [
            Configuration(
                name=c["name"],
                label=c.get("label", c["name"]),
                aqm=c.get("aqm", "droptail"),
                grid=c.get("grid"),
                points=c.get("points"),
                optional=bool(c.get("optional", False)),
            )
            for c in e.get("configurations", [])
        ]
        exps[eid] = Experiment(paper=pid, id=eid, data=e, configurations=confs)
    return Paper(id=pid, data=data, experiments=exps)
