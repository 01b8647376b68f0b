"""Emulation: real Linux TCP between network namespaces, through aqmlab's user-space router.

``netns`` creates and removes the hosts' namespaces; ``host_agent`` runs one host's traffic
inside its namespace (``python -m aqmlab.emulation.host_agent SPEC REPORT``)."""

# The command line's defaults too, which is why they are here and not in emulate.py: the
# package imports nothing.

# A run whose departure clock's 99th percentile lag exceeds this is reported as not valid: at
# 500 us the router's lateness is 2.5 % of a 20 ms one-way delay and under half a 1500-byte
# packet's time at 10 Mb/s (1.2 ms). Measured lags are in BENCHMARKS.md.
DEFAULT_MAX_LAG_US = 500.0
# The last part of each wait spent polling instead of sleeping (router_loop.rs): a sleeping
# router woke 10 to 200 us after its timer on this project's virtual machine.
DEFAULT_SPIN_US = 250.0
