"""Type stubs of the compiled engine binding ``aqmlab._core`` (crates/aqmlab-py)."""

from collections.abc import Callable, Mapping
from typing import Any, Literal, NotRequired, Protocol, TypedDict, final, type_check_only

# The names the extension module exports; the TypedDicts and the Protocol below exist only here
# (@type_check_only), to type the dictionaries and record batches its functions return.
__all__ = [
    "ScenarioError",
    "SimulationError",
    "QueueView",
    "PacketView",
    "Rng",
    "EmulationRouter",
    "run",
    "check",
    "interrupt_runs",
    "estimate_memory",
    "resolved_tcp",
    "resolve_scenario",
    "validate",
    "load_toml",
    "aqms",
    "series_docs",
    "tcp_profiles",
    "version",
    "_panic_for_test",
    "table_columns",
    "__version__",
]

__version__: str

class ScenarioError(ValueError):
    """A scenario is invalid: ``path`` names the field, ``message`` says why;
    ``str(e) == f"{path}: {message}"``."""

    path: str
    message: str

class SimulationError(RuntimeError):
    """The engine failed on a valid scenario (a bug in aqmlab), including a caught panic."""

@final  # a pyo3 class: it cannot be subclassed
class QueueView:
    """The queue as a Python AQM sees it at the moment of a call."""

    @property
    def now(self) -> float: ...
    @property
    def len_packets(self) -> int: ...
    @property
    def len_bytes(self) -> int: ...
    @property
    def limit(self) -> int: ...
    @property
    def limit_unit(self) -> Literal["packets", "bytes"]: ...
    @property
    def link_rate_bps(self) -> int: ...
    @property
    def idle_since(self) -> float | None: ...
    def is_full_for(self, size: int) -> bool: ...

@final  # a pyo3 class: it cannot be subclassed
class PacketView:
    """A read-only copy of the packet a Python AQM decides about."""

    @property
    def size(self) -> int: ...
    @property
    def flow(self) -> int: ...
    @property
    def ect(self) -> bool: ...
    @property
    def ce(self) -> bool: ...
    @property
    def kind(self) -> Literal["tcp_data", "tcp_ack", "udp"]: ...

@final  # a pyo3 class: it cannot be subclassed
class Rng:
    """The queue's random stream, set as ``self.rng`` on a Python AQM."""

    def uniform(self) -> float: ...
    def random(self) -> float: ...
    def bernoulli(self, p: float) -> bool:
        """True with probability ``p``; ValueError unless 0 <= p <= 1."""
    def exponential(self, mean: float) -> float:
        """Exponential with mean ``mean``; ValueError unless it is finite and > 0."""

@type_check_only
class ParamDoc(TypedDict):
    name: str
    default: str
    unit: str
    meaning: str
    plausible: tuple[float, float] | None

@type_check_only
class StateDoc(TypedDict):
    """A time-series variable (crates/aqmlab-core/src/aqm/state_docs.rs)."""

    name: str
    unit: str
    meaning: str

@type_check_only
class AqmInfo(TypedDict):
    name: str
    title: str
    source: str
    ecn: bool
    kind: Literal["fifo", "discipline"]
    params: list[ParamDoc]
    state: list[StateDoc]
    implemented: bool
    build_error: str | None

@type_check_only
class ArrowRecordBatch(Protocol):
    """A record batch exported through the Arrow PyCapsule interface (pyo3-arrow's
    RecordBatch): ``pyarrow.record_batch(batch)`` takes it without a copy."""

    def __arrow_c_array__(self, requested_schema: object | None = None) -> tuple[object, object]: ...

@type_check_only
class Timings(TypedDict):
    setup_s: float
    loop_s: float
    collect_s: float

@type_check_only
class RunWarning(TypedDict):
    """A warning about a run's result (crates/aqmlab-core/src/run_warnings.rs)."""

    path: str
    message: str

@type_check_only
class RawResult(TypedDict):
    """The engine's RunResult: scalars as Python values (non-finite floats are None), the
    tables as Arrow record batches (queues and flows one row per queue / flow; timeseries
    time_s, source, variable, value with source and variable dictionary-encoded; groups one
    row per flow group)."""

    name: str
    seed: int
    duration_s: float
    warmup_s: float
    events: int
    wall_time_s: float
    events_per_second: float | None
    timings: Timings
    peak_rss_bytes: int | None
    queues: ArrowRecordBatch
    flows: ArrowRecordBatch
    groups: ArrowRecordBatch
    jain_index: float | None
    jain_index_over: str
    jain_index_tcp: float | None
    jain_index_all_flows: float | None
    conserved: bool
    warnings: list[RunWarning]
    emulation: NotRequired[EmulationFidelity]
    timeseries: ArrowRecordBatch
    queue_delays: ArrowRecordBatch
    trace: NotRequired[ArrowRecordBatch]
    capture_files: NotRequired[list[str]]

@type_check_only
class EmulationFidelity(TypedDict):
    """How faithfully an emulation kept its schedule (crates/aqmlab-core/src/emulation/
    fidelity.rs); only in an emulation's result. The orchestrator adds host_write_errors."""

    departures: int
    departure_lag_p50_us: float | None
    departure_lag_p99_us: float | None
    departure_lag_max_us: float
    deliveries: int
    delivery_lag_p50_us: float | None
    delivery_lag_p99_us: float | None
    delivery_lag_max_us: float
    max_lag_p99_us: float
    valid: bool
    invalid_reason: str | None
    packets_not_carried: int
    host_write_errors: NotRequired[int]
    application_goodput_bps: NotRequired[float]

@type_check_only
class RouterFigures(TypedDict, total=False):
    stopped_early: bool
    host_write_errors: int
    wall_time_s: float
    error: str | None

@final  # a pyo3 class: it cannot be subclassed
class EmulationRouter:
    """The scenario's network between real hosts (Linux): builds it; ``create_devices()``
    creates one TUN device per host of ``plan()["hosts"]``, named ``device_prefix`` + the
    host's index, in the calling process's network namespace
    (crates/aqmlab-py/src/emulation.rs)."""

    def __new__(cls, scenario_json: str, seed: int, device_prefix: str) -> EmulationRouter: ...
    def create_devices(self) -> None: ...
    def devices(self) -> list[str]: ...
    def plan(self) -> dict[str, Any]: ...
    def start(self, t0_ns: int, spin_us: float = 0.0, cpu: int | None = None) -> None: ...
    def is_running(self) -> bool: ...
    def stop(self, now: bool = True) -> RouterFigures: ...
    def finish(self, reports_json: str, series_json: str, max_lag_us: float) -> RawResult: ...

def run(
    scenario_json: str,
    seed: int,
    progress: Callable[[float], bool | None] | None = None,
    custom_aqms: Mapping[str, type] | None = None,
    max_memory: int | None = None,
    warn: Callable[[str, str], None] | None = None,
    capture_dir: str | None = None,
) -> RawResult:
    """Runs a scenario (JSON text) with the GIL released; see :func:`aqmlab.run`. ``warn(path,
    message)`` is called with each warning about the scenario before the run; the warnings
    about the result are in its ``warnings``. Capture files go to ``capture_dir`` (default:
    the current directory)."""

def check(
    scenario_json: str,
    seed: int,
    custom_aqms: Mapping[str, type] | None = None,
    max_memory: int | None = None,
    warn: Callable[[str, str], None] | None = None,
) -> None:
    """Everything :func:`run` does before its first event, and nothing after: the scenario
    parsed, the memory limit, ``warn(path, message)`` for each warning, the simulator built
    (flows, AQM parameters, events checked) and dropped; writes nothing. Raises as ``run``
    would. See :func:`aqmlab.api.check`."""

@type_check_only
class MemoryPart(TypedDict):
    what: str
    field: str
    bytes: int

@type_check_only
class MemoryEstimate(TypedDict):
    total: int
    parts: list[MemoryPart]

def estimate_memory(scenario_json: str) -> MemoryEstimate:
    """The memory a run of the scenario (JSON text) would need; see aqmlab.estimate_memory."""

def resolved_tcp(scenario_json: str) -> list[dict[str, Any] | None]:
    """The TCP settings of each ``flows`` entry as the engine reads them (profile expanded,
    defaults filled in); None for a UDP flow. See aqmlab.scenario.resolved_tcp."""

def resolve_scenario(scenario_json: str) -> dict[str, Any]:
    """The scenario as the engine reads it, every default filled in; run as a scenario it runs
    bit-identically. See aqmlab.scenario.resolve_scenario."""

def interrupt_runs() -> None:
    """Stops every run in progress in this process, on any thread, with KeyboardInterrupt."""

def validate(
    scenario_json: str, custom_aqms: Mapping[str, type] | None = None, build: bool = False
) -> list[tuple[str, str]]:
    """Parses and checks a scenario (JSON text); raises ScenarioError. Returns its warnings as
    (path, message) pairs. With ``build`` the network is built too (AQM names and parameters
    checked, the Python AQMs of ``custom_aqms`` instantiated) and dropped."""

def load_toml(text: str) -> dict[str, Any]:
    """Parses TOML text; syntax errors raise ScenarioError with path ``"line N"``."""

def aqms() -> list[AqmInfo]:
    """The built-in AQM registry."""

def series_docs() -> dict[str, list[StateDoc]]:
    """The series every run records whatever its AQMs: "queue", "flows", "flow", "tcp"."""

def tcp_profiles() -> dict[str, dict[str, Any]]:
    """The TCP profiles the engine carries (``tcp.profile``): name -> the profile's fields."""

def version() -> str:
    """The engine's version."""

def _panic_for_test(message: str) -> None:
    """Test hook: panics inside the run guard; raises SimulationError."""

def table_columns(batch: ArrowRecordBatch) -> dict[str, list[Any]]:
    """A record batch's columns as lists (ints, floats, str, bool, None for a null), without
    pyarrow; TypeError for a column of another type (dictionary, nested)."""
