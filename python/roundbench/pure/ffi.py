"""Round ffi in pure Python: the trivial callee as a Python function."""


def noop(x: int) -> int:
    """What rb_ffi_noop does in C: return x + 1."""
    return x + 1
