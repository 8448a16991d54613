"""Running the suite: the runner (runner.py) makes one child process per
run and records what it measured, standing on three rooms: what runs
(plans.py: cells, sizes, rows), when (schedule.py: waves, adaptive
stopping, budgets, with policy.py's defaults) and how one child runs
(spawn.py, beside launch.py, which says what command a variant runs); the
progress lines are progress.py's. The child (child.py, `python -m
roundbench.run.child`) runs one Python variant, and provenance.py gathers
what a reader needs to judge a result file (the judge layer judges it).

Layer: above judge and everything below it; beside report, which it does
not import; only cli and crossing import it.
"""
