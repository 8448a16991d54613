"""The report: the run's verdict in words and its headline findings
(summary.py), two result sets compared (compare.py, scorechanges.py), the
published claims (claims.py), the runtimes section (runtime_axis.py), and
the document itself, Markdown and HTML (document.py, templates/). What is
decided (the score, the fairness checks, the scan) is the judge layer's;
the report only writes it down.

Layer: above judge and everything below it; beside run, which it does not
import; imported by store, crossing and cli.
"""
