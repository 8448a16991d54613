"""roundbench crossing --header: zlib's header and one of the tests' own
read through the preprocessor (its macros decide what a name is), a
buffer's length may be any name that comes out as size_t, and an unknown
or unfit type is refused in one line that names it."""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest

from roundbench import cli
from roundbench.crossing import decl, header
from roundbench.crossing.measure import measure, parse
from roundbench.errors import UsageError

WIDTHS = Path(__file__).resolve().parents[1] / "testdata" / "crossing" / "widths.h"


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> str:
    return str(tmp_path_factory.mktemp("cache"))


# ---- --header ------------------------------------------------------------------------


def test_zlib_prototype_as_copied_from_its_header():
    """uLong, Bytef (Byte FAR, FAR an empty macro) and z_size_t (size_t
    where zconf.h finds STDC) come out as C types; zlib.h's own line, with
    ZEXTERN, ZEXPORT and OF(()), reads the same."""
    dc, vals, hdr = parse("uLong crc32_z(uLong crc, const Bytef *buf, z_size_t len)", [], "zlib.h")
    assert dc.c_prototype() == "uint64_t crc32_z(uint64_t crc, const uint8_t *buf, size_t len)"
    assert dc.text == "uLong crc32_z(uLong crc, const Bytef *buf, z_size_t len)"
    assert vals == [0]  # no --args: 0 for each
    assert hdr.path.endswith("/zlib.h")
    assert [hdr.chain(n) for n in hdr.used()] == [
        "uLong -> unsigned long",
        "Bytef -> Byte -> unsigned char",
        "z_size_t -> size_t -> long unsigned int",
    ]
    copied = "ZEXTERN uLong ZEXPORT crc32_z OF((uLong crc, const Bytef *buf, z_size_t len));"
    assert parse(copied, ["1"], "zlib.h")[0].c_prototype() == dc.c_prototype()


def test_zlib_crc32_z_end_to_end(tmp_path, cache):
    """The acceptance declaration, run (the mechanisms that build fast):
    the result is zlib's own crc32 of the buffer."""
    res = measure("libz.so.1", "uLong crc32_z(uLong crc, const Bytef *buf, z_size_t len)", [], header="zlib.h",
                  buffer_size=4096, runs=1, out=str(tmp_path), cache=cache, progress=None,
                  only=["c-linked", "py-ctypes"])  # fmt: skip
    assert not res.failed and not res.skipped, (res.failed, res.skipped)
    assert res.result == str(zlib.crc32(bytes((i * 7 + 3) & 0xFF for i in range(4096))))
    report = (tmp_path / "report.md").read_text()
    assert "uLong -> unsigned long; Bytef -> Byte -> unsigned char; z_size_t -> size_t" in report


def _widths(text: str, cc=("cc",)) -> decl.Declaration:
    h = header.read(str(WIDTHS), text, list(cc))
    return decl.parse(h.declaration, h.typedefs)


def test_own_header_macros_decide_the_types():
    """count_t is uint32_t, or uint64_t when the compiler is given
    -DWIDE_COUNTS: the typedefs are read after the preprocessor, not from
    the text (both definitions are in it)."""
    text = "API count_t widths_sum(CONST byte_t *p, len_t n)"
    assert _widths(text).c_prototype() == "uint32_t widths_sum(const uint8_t *p, size_t n)"
    assert _widths(text, ("cc", "-DWIDE_COUNTS")).c_prototype() == "uint64_t widths_sum(const uint8_t *p, size_t n)"
    # A pointer typedef whose target is const is a buffer.
    assert _widths("count_t f(bytes_t p, len_t n)").c_prototype() == "uint32_t f(const uint8_t *p, size_t n)"


@pytest.mark.parametrize(
    "text, said",
    [
        ("count_t f(point_t p)", "point_t is struct point ({h})"),
        ("count_t f(callback_t cb)", "callback_t is a function pointer ({h})"),
        ("count_t f(nope_t x)", "nope_t is no C type, and {h} declares no typedef of that name"),
        ("count_t f(bytes_t p, small_len_t n)", "small_len_t cannot be the length of the buffer before it"),
    ],
)
def test_own_header_refusals_name_the_type(text, said):
    with pytest.raises(decl.Unsupported) as e:
        _widths(text)
    assert said.format(h=WIDTHS) in str(e.value)
    assert "\n" not in str(e.value)


def test_a_length_that_comes_out_as_size_t_is_accepted():
    """size_t's width and sign on this ABI: z_size_t and len_t (typedefs of
    size_t), and unsigned long, which the ABI passes as size_t; not uInt
    (unsigned int) nor int."""
    for text in (
        "uLong f(const Bytef *b, z_size_t n)",
        "uLong f(const Bytef *b, uLong n)",
        "uLong f(const Bytef *b, unsigned long n)",
    ):
        dc, _, _ = parse(text, [], "zlib.h")
        assert dc.c_prototype() == "uint64_t f(const uint8_t *b, size_t n)", text
    for text, said in (
        ("uLong f(const Bytef *b, uInt n)", "uInt cannot be the length of the buffer before it: a length is a "
         "size_t (a 64-bit unsigned integer on this ABI), and uInt is a 32-bit unsigned integer"),
        ("uLong f(const Bytef *b, int n)", "int is a 32-bit signed integer"),
    ):  # fmt: skip
        with pytest.raises(UsageError) as e:
            parse(text, [], "zlib.h")
        assert said in str(e.value), e.value


@pytest.mark.parametrize(
    "argv, said",
    [
        (["uLong crc32_z(uLongg crc)", "--header", "zlib.h"], "uLongg is no C type, and zlib.h declares no typedef"),
        (["uLong crc32_z(uLong crc)"], "uLong is no C type (--header names a header that declares it)"),
        (["uLong crc32_z(z_stream s)", "--header", "zlib.h"], "z_stream is struct z_stream_s (zlib.h)"),
        (["uLong crc32_z(uLong crc)", "--header", "nope_no_such.h"], "--header nope_no_such.h: cc -E cannot read"),
    ],
)
def test_unknown_type_or_header_is_one_line_naming_it(argv, said, capsys):
    assert cli.main(["crossing", "libz.so.1", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and said in err, err
