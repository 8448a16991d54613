"""What an executable file says about itself, read from its own headers.

Round delivery reports whether each program is static or dynamic and what
a cross-compiled file is, from the bytes of the file rather than from the
prose of a tool such as `file` or `ldd` (ldd runs the program's loader,
which only works for the machine's own architecture and is unsafe on
untrusted files).

- ELF (the System V ABI, gABI chapters 4 and 5): class, byte order,
  machine, type; the program interpreter (PT_INTERP) and the needed
  libraries (DT_NEEDED entries of PT_DYNAMIC, names in DT_STRTAB). A file
  with neither is static: the kernel maps it and jumps to its entry point.
- PE (Microsoft PE format): the COFF machine after the "PE\\0\\0" signature
  the MS-DOS header points at.
- Mach-O (<mach-o/loader.h>): the magic and the CPU type.

Malformed or truncated input raises ValueError; nothing is executed.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

ELF_MACHINES = {
    3: "x86",
    8: "mips",
    20: "ppc",
    21: "ppc64",
    22: "s390x",
    40: "arm",
    62: "x86-64",
    183: "arm64",
    243: "riscv",
}
ELF_TYPES = {1: "relocatable", 2: "executable", 3: "shared object or PIE", 4: "core"}
PE_MACHINES = {0x14C: "x86", 0x8664: "x86-64", 0x1C4: "arm", 0xAA64: "arm64"}
MACHO_CPUS = {7: "x86", 0x01000007: "x86-64", 12: "arm", 0x0100000C: "arm64"}

PT_DYNAMIC, PT_INTERP, PT_LOAD = 2, 3, 1
DT_NULL, DT_NEEDED, DT_STRTAB, DT_STRSZ = 0, 1, 5, 10
DT_FLAGS_1, DF_1_PIE = 0x6FFFFFFB, 0x08000000
ET_DYN = 3


@dataclass
class ExecInfo:
    format: str  # "ELF", "PE" or "Mach-O"
    arch: str  # "x86-64", "arm64", ... or "machine 0x..." when unknown
    bits: int
    kind: str = ""  # ELF: executable, shared object or PIE, ...
    interp: Optional[str] = None  # ELF: the program interpreter
    needed: list = field(default_factory=list)  # ELF: DT_NEEDED, in order
    shared: bool = False  # ELF: type ET_DYN (a shared library or a PIE)
    pie: bool = False  # ELF: DF_1_PIE set (a position-independent executable)

    @property
    def static(self) -> bool:
        """An ELF executable that the kernel runs without a loader: no
        interpreter and no needed library."""
        return self.format == "ELF" and self.interp is None and not self.needed and (self.pie or not self.shared)

    @property
    def linkage(self) -> str:
        """static, static-pie, dynamic (an interpreter loads it and its
        libraries) or shared library (no interpreter of its own)."""
        if self.format != "ELF":
            return "unknown (not ELF)"
        if self.interp is not None:
            return "dynamic"
        if self.shared and not self.pie:
            return "shared library"
        if self.needed:
            return "dynamic"
        return "static-pie" if self.shared else "static"


def _need(data: bytes, off: int, size: int, what: str) -> None:
    if off < 0 or size < 0 or off + size > len(data):
        raise ValueError(f"truncated file: {what} at offset {off} runs past the end ({len(data)} bytes)")


def _cstr(data: bytes, off: int, limit: int) -> str:
    _need(data, off, 1, "string")
    end = data.find(b"\0", off, min(limit, len(data)))
    if end < 0:
        raise ValueError(f"unterminated string at offset {off}")
    return data[off:end].decode("utf-8", "replace")


def read_elf(data: bytes) -> ExecInfo:
    _need(data, 0, 16, "ELF identification")
    if data[:4] != b"\x7fELF":
        raise ValueError("not an ELF file")
    cls, order = data[4], data[5]
    if cls not in (1, 2) or order not in (1, 2):
        raise ValueError(f"bad ELF class {cls} or byte order {order}")
    e = "<" if order == 1 else ">"
    is64 = cls == 2
    if is64:
        _need(data, 0, 64, "ELF header")
        etype, machine = struct.unpack_from(e + "HH", data, 16)
        (phoff,) = struct.unpack_from(e + "Q", data, 32)
        phentsize, phnum = struct.unpack_from(e + "HH", data, 54)
        ph_fmt, ph_min = e + "IIQQQQQQ", 56
    else:
        _need(data, 0, 52, "ELF header")
        etype, machine = struct.unpack_from(e + "HH", data, 16)
        (phoff,) = struct.unpack_from(e + "I", data, 28)
        phentsize, phnum = struct.unpack_from(e + "HH", data, 42)
        ph_fmt, ph_min = e + "IIIIIIII", 32
    info = ExecInfo(
        "ELF",
        ELF_MACHINES.get(machine, f"machine {machine:#x}"),
        64 if is64 else 32,
        ELF_TYPES.get(etype, f"type {etype}"),
        shared=etype == ET_DYN,
    )
    if phnum == 0:
        return info
    if phnum == 0xFFFF:
        raise ValueError("more than 65534 program headers (PN_XNUM) is not supported")
    if phentsize < ph_min:
        raise ValueError(f"program header entries of {phentsize} bytes, want at least {ph_min}")
    _need(data, phoff, phentsize * phnum, "program headers")
    loads, dynamic = [], None
    for i in range(phnum):
        f = struct.unpack_from(ph_fmt, data, phoff + i * phentsize)
        if is64:
            ptype, _flags, offset, vaddr, _paddr, filesz, _memsz, _align = f
        else:
            ptype, offset, vaddr, _paddr, filesz, _memsz, _flags, _align = f
        if ptype == PT_LOAD:
            loads.append((vaddr, filesz, offset))
        elif ptype == PT_INTERP:
            _need(data, offset, filesz, "PT_INTERP")
            info.interp = _cstr(data, offset, offset + filesz)
        elif ptype == PT_DYNAMIC:
            dynamic = (offset, filesz)
    if dynamic is None:
        return info
    offset, filesz = dynamic
    _need(data, offset, filesz, "PT_DYNAMIC")
    ent = struct.Struct(e + ("qQ" if is64 else "iI"))
    needed_offsets, strtab, strsz = [], None, None
    for pos in range(offset, offset + filesz - ent.size + 1, ent.size):
        tag, val = ent.unpack_from(data, pos)
        if tag == DT_NULL:
            break
        if tag == DT_NEEDED:
            needed_offsets.append(val)
        elif tag == DT_STRTAB:
            strtab = val
        elif tag == DT_STRSZ:
            strsz = val
        elif tag == DT_FLAGS_1:
            info.pie = bool(val & DF_1_PIE)
    if needed_offsets:
        if strtab is None:
            raise ValueError("DT_NEEDED without DT_STRTAB")
        # DT_STRTAB is an address: find the loaded segment that holds it.
        base = None
        for vaddr, lfilesz, loffset in loads:
            if vaddr <= strtab < vaddr + lfilesz:
                base = strtab - vaddr + loffset
        if base is None:
            raise ValueError(f"DT_STRTAB {strtab:#x} lies in no PT_LOAD segment")
        limit = base + strsz if strsz is not None else len(data)
        info.needed = [_cstr(data, base + off, limit) for off in needed_offsets]
    return info


def read_pe(data: bytes) -> ExecInfo:
    _need(data, 0, 0x40, "MS-DOS header")
    if data[:2] != b"MZ":
        raise ValueError("not a PE file")
    (pe,) = struct.unpack_from("<I", data, 0x3C)
    _need(data, pe, 26, "PE header")
    if data[pe : pe + 4] != b"PE\0\0":
        raise ValueError("MZ file without a PE signature")
    (machine,) = struct.unpack_from("<H", data, pe + 4)
    (magic,) = struct.unpack_from("<H", data, pe + 24)
    bits = {0x10B: 32, 0x20B: 64}.get(magic, 0)
    return ExecInfo("PE", PE_MACHINES.get(machine, f"machine {machine:#x}"), bits, "executable")


def read_macho(data: bytes) -> ExecInfo:
    _need(data, 0, 8, "Mach-O header")
    for e in ("<", ">"):
        magic, cpu = struct.unpack_from(e + "Ii", data, 0)
        if magic in (0xFEEDFACE, 0xFEEDFACF):
            bits = 64 if magic == 0xFEEDFACF else 32
            return ExecInfo("Mach-O", MACHO_CPUS.get(cpu & 0xFFFFFFFF, f"cpu {cpu & 0xFFFFFFFF:#x}"), bits)
    raise ValueError("not a Mach-O file")


def read(path) -> ExecInfo:
    """The headers of the executable at `path` (ELF, PE or Mach-O)."""
    data = Path(path).read_bytes()
    if data[:4] == b"\x7fELF":
        return read_elf(data)
    if data[:2] == b"MZ":
        return read_pe(data)
    if data[:4] in (b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe", b"\xfe\xed\xfa\xcf", b"\xfe\xed\xfa\xce"):
        return read_macho(data)
    raise ValueError(f"{path}: not an ELF, PE or Mach-O file")
