"""aqmlab: packet-level simulation of Active Queue Management algorithms.

>>> import aqmlab
>>> r = aqmlab.run("scenario.toml", seed=1)        # doctest: +SKIP
>>> r.queues, r.flows, r.timeseries, r.summary     # doctest: +SKIP
"""

from __future__ import annotations

from ._core import version as _engine_version
from .api import aqms, run
from .custom_aqm import register_aqm, registered_aqms, unregister_aqm
from .errors import ScenarioError, ScenarioWarning, SimulationError
from .interrupt import install_sigint_handler as _install_sigint_handler
from .interrupt import interrupt
from .memory_limit import estimate_memory
from .result import Result
from .scenario import default_scenario_path, load_scenario, validate_scenario

__version__: str = _engine_version()
_install_sigint_handler()

__all__ = [
    "Result",
    "ScenarioError",
    "ScenarioWarning",
    "SimulationError",
    "__version__",
    "aqms",
    "default_scenario_path",
    "estimate_memory",
    "interrupt",
    "load_scenario",
    "register_aqm",
    "registered_aqms",
    "run",
    "unregister_aqm",
    "validate_scenario",
]
