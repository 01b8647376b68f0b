"""``python -m aqmlab``: the command line (``aqmlab run`` without the framework: entry.py)."""

from .entry import main

main()
