"""The result format and what is computed from a result's numbers alone:
the Go benchmark format the suite writes and reads (benchfmt.py), a cell's
statistics (stats.py), the levels a variant belongs to (levels.py), how
figures are printed (textfmt.py) and drawn (charts.py).

Layer: the lowest; it knows no round and imports nothing of the package
but errors.
"""
