"""Running the suite: the runner (runner.py) starts one child process per
run and records what it measured, the child (child.py, `python -m
roundbench.run.child`) runs one Python variant, and provenance.py gathers
what a reader needs to judge a result file (the judge layer judges it).

Layer: above judge and everything below it; beside report, which it does
not import; only cli and crossing import it.
"""
