"""Results that accumulate: an embedded store of every run (SQLite by
default, PostgreSQL through a URL), queried by `key:value` terms, exported
in the Go benchmark format, and read across machines and runtimes: the
verdict on each machine and runtime pair (verdict.py) and each series'
history with the changes that exceed its noise (trends.py).

- db.py: the connection (a path or sqlite:// is SQLite through the standard
  library; postgresql:// is a server through psycopg) and the schema, one
  for both engines.
- ingest.py: a results file imported whole (raw text and its hash, so a
  second import adds nothing), checked line by line and against the seal of
  its END line, then indexed: the machine's fingerprint, the runtimes, the
  run, every result line with its labels.
- query.py: `key:value` terms to runs and lines; the export.
- verdict.py, trends.py: the pages.

Layer: above report, results and runtimes; imported by cli only.
"""
