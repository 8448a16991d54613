"""Pure-Python versions of the rounds: standard library only, one file per
round, written as a competent Python programmer would write them."""
