"""`python -m roundbench`: the same as the `roundbench` command."""

import sys

from .cli import main

sys.exit(main())
