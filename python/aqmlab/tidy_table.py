"""The columns of a sweep's tidy table (one row per point and metric): the statistics that
``sweep/aggregate.py`` writes after the axes and ``metric``, and that the sweep figure
(``plot/sweep.py``) reads. Here, below both, so that the drawing needs nothing of ``sweep/``."""

STAT_COLUMNS = ("mean", "std", "n", "ci95_low", "ci95_high", "ci95_half_width")
