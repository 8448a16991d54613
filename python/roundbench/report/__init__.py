"""Reading results through the rounds' declarations: the cells of a result
set (cells.py), their comparison (compare.py, scorechanges.py), the score
and verdict (summary.py), the published claims (claims.py), the fairness
audit and the static scan of the timed code (fairness.py, scan.py), the
runtimes section (runtime_axis.py), and the report itself, Markdown and
HTML (document.py, templates/).

Layer: above rounds, results, runtimes and measure; imported by run, crossing
and cli.
"""
