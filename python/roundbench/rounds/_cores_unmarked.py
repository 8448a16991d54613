"""The py-freethreaded-unmarked child, run as a script by a free-threaded
interpreter that may not have roundbench installed:
`_cores_unmarked.py FOLDER N WORKERS` imports the module `unmarked` from
FOLDER (data/unmarked.c, which does not declare Py_mod_gil, so the
interpreter turns the GIL back on and warns), then makes pure/cores.py's
measurement, and prints its JSON line with the warnings the import raised.
Like pure/cores.py it imports only the standard library, and that module
by its path."""

from __future__ import annotations

import importlib.util
import json
import sys
import warnings
from pathlib import Path


def main(folder: str, n: int, workers: int) -> dict:
    sys.path.insert(0, folder)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        import unmarked  # noqa: F401  (the import is the experiment)
    warned = [f"{w.category.__name__}: {w.message}" for w in caught]
    path = Path(__file__).resolve().parents[1] / "pure" / "cores.py"
    spec = importlib.util.spec_from_file_location("roundbench_pure_cores", path)
    cores = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cores)
    return {**cores.measure(n, workers), "warnings": warned}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))))
