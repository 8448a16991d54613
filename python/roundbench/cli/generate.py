"""The rounds' input generators as subcommands (rounds.Generator: jsonl's
`gen-log`, aspects' `gen-ephemeris`): one parser each, with OUT, --seed
and the generator's own options."""

from __future__ import annotations

from .. import rounds
from ..errors import EXIT_OK, UsageError
from . import _types


def add_parser(sub) -> None:
    for gen in rounds.generators():
        _add(sub, gen)


def _add(sub, gen: rounds.Generator) -> None:
    g = sub.add_parser(gen.name, help=gen.help, description=gen.description, epilog=gen.epilog)
    g.add_argument("out", type=_types.out_file, metavar="OUT", help="the file to write")
    g.add_argument("--seed", type=_types.integer(0), default=gen.default_seed, metavar="S", help=gen.seed_help)
    for flag, keywords in gen.options:
        g.add_argument(flag, **keywords)

    def cmd(args) -> int:
        try:
            gen.run(args)
        except (ValueError, OSError) as e:
            raise UsageError(str(e).removeprefix(f"{gen.name}: ")) from None
        return EXIT_OK

    g.set_defaults(func=cmd)
