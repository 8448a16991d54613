"""Round loop in pure Python."""


def loop(n: int) -> int:
    """Sum of i*i % 7 for i in range(n)."""
    total = 0
    for i in range(n):
        total += i * i % 7
    return total
