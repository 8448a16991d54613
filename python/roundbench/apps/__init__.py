"""The programs a round runs that stand on more than the standard library
and are not the rounds' declarations: each a module a server or child
process imports alone, so that it pays for nothing else of the package
(apps/http.py: the Flask and FastAPI apps, the core's server). The
rounds' pure-language code is pure/'s; the library variants that run in
the round's own child live with their rounds, in rounds/."""
