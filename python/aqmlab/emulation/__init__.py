"""Emulation: real Linux TCP between network namespaces, through aqmlab's user-space router.

``netns`` creates and removes the hosts' namespaces; ``host_agent`` runs one host's traffic
inside its namespace (``python -m aqmlab.emulation.host_agent SPEC REPORT``)."""
