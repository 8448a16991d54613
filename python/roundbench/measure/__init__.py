"""How one run is timed and where it runs: the Python side of the timed
protocol that every Python variant calls (harness.py), this machine's
facts and the checks that harm repeatability (machine.py), and the CPUs
each child is pinned to (placement.py).

Layer: below rounds, beside runtimes and pure; imports only results and
errors.
"""
