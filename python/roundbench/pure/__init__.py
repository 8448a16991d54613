"""Pure-Python versions of the rounds, one file per round, written as a
competent Python programmer would write them, with the standard library
only: each file imports nothing else but this package's own modules
(tests/test_imports.py holds them to it), and the loc round counts them as
each round's Python. The library variants (numpy, pandas, orjson,
greenlet, ...) live with their rounds, in rounds/; the servers that stand
on a framework or the core (Flask, FastAPI, the py-c server) in apps/."""
