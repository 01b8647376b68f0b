"""``python -m aqmlab``: the command line."""

from .cli import main

main()
