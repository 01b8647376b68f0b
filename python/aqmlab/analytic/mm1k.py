"""M/M/1/K queue: the closed form for a finite-buffer DropTail link.

Source: textbook birth-death result (e.g. Kleinrock, *Queueing Systems* vol. 1,
sec. 3.6; Gross & Harris, *Fundamentals of Queueing Theory*, sec. 2.5):

    p_n = (1 - rho) rho^n / (1 - rho^(K+1)),   n = 0..K,  rho = lam/mu != 1
    p_n = 1 / (K + 1)                                      rho == 1

Convention: **K = capacity = maximum number of packets in the system**, i.e.
waiting packets plus the one in transmission. aqmlab's queue limit L counts
waiting packets only (the packet on the wire is excluded), so a queue limit L
is an M/M/1/(L+1) system: use :func:`mm1k_from_queue_limit` for that.

Parameters and units:
    lam       Poisson arrival rate, packets/s (> 0)
    mu        exponential service rate, packets/s (> 0)
    capacity  K, max packets in the system, integer >= 1
    queue_limit  L, max waiting packets excluding the one in service, integer >= 0

Outputs: state probabilities p_0..p_K, mean number in system L_s, mean number
waiting L_q (excluding the one in service), blocking probability p_K (PASTA:
Poisson arrivals see time averages), throughput lam (1 - p_K) = mu (1 - p_0),
mean sojourn time L_s / throughput and mean waiting time L_q / throughput (both
by Little's law over *accepted* packets), in seconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ._validation import integer, positive


@dataclass(frozen=True)
class MM1KResult:
    """Stationary metrics of an M/M/1/K queue (K = max number in system)."""

    lam: float
    mu: float
    capacity: int
    probabilities: np.ndarray = field(repr=False)  # p_n for n = 0..capacity
    mean_in_system: float  # packets, waiting + in service
    mean_waiting: float  # packets, excluding the one in service
    loss_probability: float  # blocking probability p_K
    throughput: float  # packets/s
    mean_sojourn_time: float  # s, accepted packets
    mean_waiting_time: float  # s, accepted packets, excluding own service


def mm1k_probabilities(lam: float, mu: float, capacity: int) -> np.ndarray:
    """Return p_n, n = 0..capacity, for M/M/1/K with K = ``capacity`` (max in system)."""
    lam = positive("lam", lam)
    mu = positive("mu", mu)
    k = integer("capacity", capacity, minimum=1)
    # p_n is proportional to rho^n; working in logs keeps rho^K finite for
    # large K and rho > 1, and avoids the 0/0 of the closed form at rho = 1.
    log_w = np.arange(k + 1) * np.log(lam / mu)
    w = np.exp(log_w - log_w.max())
    p: np.ndarray = w / w.sum()
    return p


def single_server_means(p_n: np.ndarray) -> tuple[float, float]:
    """(mean in system, mean waiting) of a single-server queue whose number in system n =
    0, 1, ... has the distribution ``p_n``: one of the n is in service, the others wait."""
    n = np.arange(len(p_n))
    return float(n @ p_n), float(np.maximum(n - 1, 0) @ p_n)


def carried(lam: float, loss: float, mean_in_system: float, mean_waiting: float) -> tuple[float, float, float]:
    """(throughput, mean sojourn time, mean waiting time) of a queue offered ``lam`` that loses
    the fraction ``loss``: the admitted rate, and Little's law over it."""
    throughput = lam * (1.0 - loss)
    return throughput, mean_in_system / throughput, mean_waiting / throughput


def mm1k(lam: float, mu: float, capacity: int) -> MM1KResult:
    """Solve M/M/1/K where ``capacity`` = K = max packets in the system."""
    p = mm1k_probabilities(lam, mu, capacity)
    lam, mu, k = float(lam), float(mu), int(capacity)
    mean_in_system, mean_waiting = single_server_means(p)
    loss = float(p[-1])
    throughput, sojourn, waiting = carried(lam, loss, mean_in_system, mean_waiting)
    return MM1KResult(
        lam=lam,
        mu=mu,
        capacity=k,
        probabilities=p,
        mean_in_system=mean_in_system,
        mean_waiting=mean_waiting,
        loss_probability=loss,
        throughput=throughput,
        mean_sojourn_time=sojourn,
        mean_waiting_time=waiting,
    )


def mm1k_from_queue_limit(lam: float, mu: float, queue_limit: int) -> MM1KResult:
    """Solve the DropTail link whose limit counts *waiting* packets only.

    A queue limit of L waiting places plus the packet in transmission is
    M/M/1/K with K = L + 1.
    """
    limit = integer("queue_limit", queue_limit, minimum=0)
    return mm1k(lam, mu, limit + 1)
