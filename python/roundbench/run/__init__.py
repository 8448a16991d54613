"""Running the suite: the runner (runner.py) starts one child process per
run and records what it measured, the child (child.py, `python -m
roundbench.run.child`) runs one Python variant, and provenance.py writes what
a reader needs to judge a result file.

Layer: above report (the runner prints the run's summary) and everything
below it; only cli and crossing import it.
"""
