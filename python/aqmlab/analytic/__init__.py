"""Analytic models aqmlab uses to validate its simulator.

One module per model, each naming its source in its docstring:

* :mod:`.mm1k` -- M/M/1/K (K = max packets in system) and the queue-limit form.
* :mod:`.padhye` -- PFTK 1998 TCP Reno throughput, full and approximate.
* :mod:`.morrison` -- Morrison's threshold two-server queue (Orange paper eqs. 1-12).
* :mod:`.orange_ctmc` -- the exact CTMC of the Orange queue.
* :mod:`.dsred_chain` -- DSRED paper sec. 3.3 birth-death drop model (and RED's).
"""

from .dsred_chain import (
    DropChainResult,
    drop_chain,
    dsred_chain,
    dsred_drop_probability,
    dsred_drop_vs_load,
    red_chain,
    red_drop_probability,
    red_drop_vs_load,
)
from .mm1k import MM1KResult, mm1k, mm1k_from_queue_limit, mm1k_probabilities
from .morrison import (
    MorrisonResult,
    morrison,
    morrison_p0,
    morrison_probabilities,
    morrison_sojourn_time,
    morrison_waiting_time,
    orange_morrison,
)
from .orange_ctmc import OrangeCTMCResult, orange_ctmc, orange_generator
from .padhye import (
    expected_window,
    padhye_approx,
    padhye_full,
    timeout_backoff_factor,
    timeout_probability,
)

__all__ = [
    "DropChainResult",
    "MM1KResult",
    "MorrisonResult",
    "OrangeCTMCResult",
    "drop_chain",
    "dsred_chain",
    "dsred_drop_probability",
    "dsred_drop_vs_load",
    "expected_window",
    "mm1k",
    "mm1k_from_queue_limit",
    "mm1k_probabilities",
    "morrison",
    "morrison_p0",
    "morrison_probabilities",
    "morrison_sojourn_time",
    "morrison_waiting_time",
    "orange_ctmc",
    "orange_generator",
    "orange_morrison",
    "padhye_approx",
    "padhye_full",
    "red_chain",
    "red_drop_probability",
    "red_drop_vs_load",
    "timeout_backoff_factor",
    "timeout_probability",
]
