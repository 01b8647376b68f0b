"""Workloads, the FCT table and latency probes from Python (issue 27, item 3; docs/workloads.md)."""

from __future__ import annotations

import copy
import html
import math
from pathlib import Path
from typing import Any

import aqmlab
import pytest

ROOT = Path(__file__).resolve().parent.parent

#: The FCT table's columns: the contract with the plots helper first, then the extras.
FCT_COLUMNS = [
    "flow", "group", "size_bytes", "start_s", "fct_s", "completed", "ideal_fct_s", "slowdown",
    "retransmissions", "timeouts",
]  # fmt: skip

BASE: dict[str, Any] = {
    "duration": "30s",
    "topology": {
        "kind": "dumbbell",
        "senders": 4,
        "bottleneck": {"rate": "10Mbps", "delay": "10ms", "queue": {"limit": 100, "aqm": "fq_codel"}},
        "access": {"rate": "1Gbps", "delay": "1ms"},
    },
    "tcp": {"variant": "sack", "window": 100},
    "flows": [
        {
            "kind": "workload",
            "group": "web",
            "from": ["s0", "s1"],
            "to": ["d0", "d1"],
            "load": 0.3,
            "flows": 200,
            "sizes": {"dist": "lognormal", "median": "20KB", "sigma": 1.5},
            "max_size": "2MB",
        },
        {"kind": "ping", "group": "ping", "from": "s2", "to": "d2"},
        {"kind": "tcp_rr", "group": "rr", "from": "s3", "to": "d3"},
    ],
}


@pytest.fixture(scope="module")
def result() -> aqmlab.Result:
    return aqmlab.run(BASE, seed=2)


def test_fct_table_follows_the_contract(result: aqmlab.Result) -> None:
    fct = result.fct
    assert list(fct.columns) == FCT_COLUMNS
    # 30 % of 10 Mb/s in transfers of mean 61.6 KB (e^(ln 20000 + 1.5^2/2), hardly clipped):
    # 6.1 arrivals/s, 183 expected in 30 s (sd 13.5); `flows = 200` caps them.
    assert len(fct) == (result.flows["kind"] == "workload").sum()
    assert 130 < len(fct) <= 200
    assert fct["completed"].dtype == bool
    # Ids are the flow table's: each row's flow is a workload flow of the same group.
    flows = result.flows.set_index("flow")
    assert set(flows.loc[fct["flow"], "kind"]) == {"workload"}
    assert (flows.loc[fct["flow"], "group"].to_numpy() == fct["group"].to_numpy()).all()
    done = fct[fct["completed"]]
    assert len(done) > 0.8 * len(fct)
    assert (done["slowdown"] >= 1.0).all()
    assert (done["fct_s"] / done["ideal_fct_s"] - done["slowdown"]).abs().max() < 1e-12
    assert fct.loc[~fct["completed"], "fct_s"].isna().all()
    assert fct.loc[~fct["completed"], "slowdown"].isna().all()
    assert (fct["size_bytes"] <= 2_000_000).all()


def test_fct_summary_by_size_bin_and_in_the_run_summary(result: aqmlab.Result) -> None:
    bins = result.fct_summary()
    assert list(bins["bin"]) == ["small", "medium", "large", "all"]
    fct = result.fct
    assert int(bins.set_index("bin").loc["all", "started"]) == len(fct)
    assert int(bins.set_index("bin").loc["all", "completed"]) == int(fct["completed"].sum())
    s = result.summary
    done = fct[fct["completed"]]
    # The engine's percentiles are pandas' (type 7).
    assert s["fct.all.fct_p99_s"] == pytest.approx(done["fct_s"].quantile(0.99), rel=1e-12)
    small = done[done["size_bytes"] <= 100_000]
    assert s["fct.small.slowdown_p50"] == pytest.approx(small["slowdown"].median(), rel=1e-12)
    assert s["fct.large.started"] == 0 and math.isnan(s["fct.large.fct_p50_s"])


def test_latency_probes(result: aqmlab.Result) -> None:
    lat = result.latency
    assert list(lat.columns) == ["flow", "group", "kind", "time_s", "rtt_ms"]
    assert set(lat["kind"]) == {"ping", "tcp_rr"}
    ping = lat[lat["group"] == "ping"]
    # One request every 200 ms for 30 s; the path's RTT is at least its 24 ms of propagation.
    assert 140 <= len(ping) <= 150
    assert (ping["rtt_ms"] >= 24.0).all()
    summary = result.latency_summary.set_index("group")
    assert summary.loc["rr", "samples"] == (lat["group"] == "rr").sum()
    s = result.summary
    assert s["latency.ping.rtt_p50_ms"] == pytest.approx(ping["rtt_ms"].median(), rel=1e-12)
    assert "latency.rr.rtt_p99_ms" in s


def test_same_seed_same_transfers() -> None:
    a = aqmlab.run(BASE, seed=5).fct
    b = aqmlab.run(BASE, seed=5).fct
    c = aqmlab.run(BASE, seed=6).fct
    assert a.equals(b)
    assert not a["size_bytes"].equals(c["size_bytes"])


def test_tables_written_with_the_run(result: aqmlab.Result, tmp_path: Path) -> None:
    result.to_csv(tmp_path)
    assert (tmp_path / "fct.csv").read_text().splitlines()[0].split(",") == FCT_COLUMNS
    assert (tmp_path / "latency.csv").exists()


def test_a_run_without_workloads_has_no_fct_keys() -> None:
    s = copy.deepcopy(BASE)
    s["flows"] = [{"kind": "tcp", "from": "s0", "to": "d0"}]
    r = aqmlab.run(s, seed=1)
    assert len(r.fct) == 0 and len(r.latency) == 0
    assert not any(k.startswith(("fct.", "latency.")) for k in r.summary)


def _with_flow(**fields: Any) -> dict[str, Any]:
    s = copy.deepcopy(BASE)
    s["flows"][0].update(fields)
    s["flows"][0] = {k: v for k, v in s["flows"][0].items() if v is not None}
    return s


@pytest.mark.parametrize(
    ("fields", "path"),
    [
        ({"sizes": {"dist": "paretto", "shape": 2.5, "mean": "10KB"}}, "flows[0].sizes.dist"),
        ({"sizes": {"dist": "pareto", "mean": "10KB"}}, "flows[0].sizes.shape"),
        ({"sizes": {"dist": "pareto", "shape": 1.0, "mean": "10KB"}}, "flows[0].sizes.mean"),
        ({"sizes": {"dist": "cdf", "name": "websearch", "sigma": 1}}, "flows[0].sizes.sigma"),
        ({"sizes": {"dist": "cdf", "name": "web"}}, "flows[0].sizes.name"),
        ({"sizes": {"dist": "cdf", "file": "/nonexistent.cdf"}}, "flows[0].sizes.file"),
        ({"load": None}, "flows[0].rate"),
        ({"rate": 10}, "flows[0].load"),
        ({"load": 0.5, "load_link": "nolink"}, "flows[0].load_link"),
        ({"flows": 0}, "flows[0].flows"),
        ({"pairs": "shuffled"}, "flows[0].pairs"),
        ({"start": ["1s", "2s"]}, "flows[0].start"),
        ({"sizes": {"dist": "pareto", "shape": 2.5, "scale": "10KB"}, "max_size": "1KB"}, "flows[0].max_size"),
        # Issue 35, B: `load` with no usable mean (these ran with no arrivals).
        ({"sizes": {"dist": "pareto", "shape": 1.0, "scale": "1KB"}, "max_size": None}, "flows[0].sizes.shape"),
        ({"sizes": {"dist": "lognormal", "mean": "20KB", "sigma": 30}, "max_size": None}, "flows[0].sizes.sigma"),
        # Issue 35, H: sizes beyond 2^53 bytes (they saturated and the result table failed).
        (
            {"sizes": {"dist": "pareto", "shape": 0.02, "scale": "1KB"}, "load": None, "rate": 5, "max_size": None},
            "flows[0].sizes.shape",
        ),
        ({"max_size": 2**60}, "flows[0].max_size"),
    ],
)
def test_errors_name_the_field(fields: dict[str, Any], path: str) -> None:
    with pytest.raises(aqmlab.ScenarioError) as info:
        aqmlab.run(_with_flow(**fields))
    assert info.value.path == path, str(info.value)


def test_probe_errors_name_the_field() -> None:
    s = copy.deepcopy(BASE)
    s["flows"][1]["request_size"] = 10
    with pytest.raises(aqmlab.ScenarioError) as info:
        aqmlab.run(s)
    assert info.value.path == "flows[1].request_size"
    s = copy.deepcopy(BASE)
    s["fct_bins"] = {"edges": ["1MB", "10KB"]}
    with pytest.raises(aqmlab.ScenarioError) as info:
        aqmlab.run(s)
    assert info.value.path == "fct_bins.edges[1]"


def test_cdf_file_and_custom_bins(tmp_path: Path) -> None:
    cdf = tmp_path / "sizes.txt"
    cdf.write_text("# a two-point CDF in percent\n1000 0\n5000 100\n")
    s = _with_flow(sizes={"dist": "cdf", "file": str(cdf)}, max_size=None)
    s["fct_bins"] = {"edges": ["3KB"], "names": ["lower", "upper"]}
    r = aqmlab.run(s, seed=1)
    fct = r.fct
    assert fct["size_bytes"].between(1000, 5000).all()
    assert abs(fct["size_bytes"].mean() / 3000 - 1) < 0.1
    assert list(r.fct_summary()["bin"]) == ["lower", "upper", "all"]


def test_one_point_cdf_is_a_constant_size(tmp_path: Path) -> None:
    """Issue 35, A: a one-point CDF was refused at `flows[0].count`, a field it does not have."""
    cdf = tmp_path / "one.txt"
    cdf.write_text("1000 1\n")
    r = aqmlab.run(_with_flow(sizes={"dist": "cdf", "file": str(cdf)}, max_size=None, flows=None), seed=1)
    assert (r.fct["size_bytes"] == 1000).all()
    # 0.3 x 10 Mb/s / 8 kbit = 375 arrivals/s for 30 s: 11,250 (sd 106).
    assert abs(len(r.fct) - 11_250) < 5 * 106


def test_the_headline_jain_index_says_it_leaves_out_workload_transfers(tmp_path: Path) -> None:
    """Friction of issue 35: the web-search example's "Jain index (TCP flows)" was 1.00 over
    the two bulk flows while the web group's was 0.27: the label names the flows it is over."""
    from aqmlab.cli import app
    from typer.testing import CliRunner

    res = CliRunner().invoke(app, ["run", str(ROOT / "scenarios" / "websearch_fqcodel.toml"), "-q"])
    assert res.exit_code == 0, res.output
    assert 'Jain index (kind "tcp", 2 flows)' in res.output
    assert "Jain index (all flows)" in res.output
    assert "web " in res.output.split("Jain index by group")[1]
    r = aqmlab.run(str(ROOT / "scenarios" / "websearch_fqcodel.toml"), seed=1)
    assert html.escape('Jain index (kind "tcp", 2 flows)') in r._repr_html_()


def test_example_scenario_runs() -> None:
    r = aqmlab.run(str(ROOT / "scenarios" / "websearch_fqcodel.toml"), seed=1)
    assert len(r.fct) > 20
    assert r.summary["latency.ping.samples"] > 500
