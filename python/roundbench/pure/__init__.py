"""Pure-Python versions of the rounds, one file per round, written as a
competent Python programmer would write them, with the standard library
only. Two files also carry a variant that shares their program but not
that rule, each imported only where it is used: chain.py's greenlet
version (the same chain on greenlet's coroutines) and http.py's py-c
server (the core's server answering through the file's own `hello`). The
library variants proper (numpy, pandas, orjson, ...) live with their
rounds, in rounds/<round>/."""
