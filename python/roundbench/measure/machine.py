"""`roundbench machine`: what a careful benchmarker checks before trusting a
run on this machine.

Each check reads what Linux exposes (/proc, /sys) and gives a status:

  ok    nothing here harms repeatability;
  warn  a condition that harms repeatability, with its fix;
  info  a fact a reader should know, or a check this machine cannot answer
        (a VM often hides the CPU's frequency controls).

`checks()` returns them; `roundbench machine` prints them; the runner writes
each as a `machine-<name>` provenance line, and every `warn` becomes a
fairness warning in the report, with its fix. Standard library only, and
nothing here needs root: a check that cannot read its file says so.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

SYS_CPU = Path("/sys/devices/system/cpu")


@dataclass
class Check:
    name: str
    status: str  # "ok", "warn" or "info"
    value: str
    fix: str = ""

    def line(self) -> str:
        text = f"{self.status}: {self.value}"
        return text + (f" (fix: {self.fix})" if self.fix else "")


def _read(path, default: Optional[str] = None) -> Optional[str]:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return default


def parse_cpulist(text: str) -> list:
    """'0-3,8,10-11' -> [0, 1, 2, 3, 8, 10, 11] (the kernel's cpulist format)."""
    out = []
    for part in text.replace("\n", ",").split(","):
        part = part.strip()
        if not part:
            continue
        lo, sep, hi = part.partition("-")
        out.extend(range(int(lo), int(hi) + 1) if sep else [int(lo)])
    return out


def format_cpulist(cpus) -> str:
    """[0, 1, 2, 5] -> '0-2,5'."""
    cpus = sorted(set(cpus))
    parts, i = [], 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        parts.append(str(cpus[i]) if i == j else f"{cpus[i]}-{cpus[j]}")
        i = j + 1
    return ",".join(parts)


def usable_cpus() -> list:
    """The CPUs this process may run on, sorted: its affinity mask. PyPy's
    os module has no sched_getaffinity; there it is the kernel's own
    account of the mask (/proc/self/status, Cpus_allowed_list), else every
    CPU."""
    if hasattr(os, "sched_getaffinity"):
        return sorted(os.sched_getaffinity(0))
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Cpus_allowed_list:"):
                    return parse_cpulist(line.split(":", 1)[1])
    except OSError:
        pass
    return list(range(os.cpu_count() or 1))


def _cpuinfo(field: str) -> Optional[str]:
    """The value of /proc/cpuinfo's first `field` line (the first CPU's), or
    None where the file or the line is missing."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(field):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def cpu_model() -> str:
    return _cpuinfo("model name") or platform.processor() or "unknown"


def _cpuinfo_flags() -> set:
    return set((_cpuinfo("flags") or "").split())


# The instruction sets that move this suite's figures (the jsonl kernels,
# the BLAS kernel, Go's GOAMD64 levels), in the order cpu_id lists them.
SIMD_FLAGS = ("sse4_2", "avx", "avx2", "fma", "bmi2", "avx512f", "avx512bw", "avx512vl", "avx512_vbmi2", "sha_ni")


def cpu_id() -> str:
    """What tells one CPU from another beyond its model name (a VM often
    shows "AMD EPYC" for every generation): the vendor, family, model and
    stepping, and the instruction sets the suite's kernels choose by
    ('AuthenticAMD family 25 model 17 stepping 1; avx2 avx512f ...')."""
    vendor = _cpuinfo("vendor_id")
    fields = [(k, _cpuinfo(k)) for k in ("cpu family", "model\t", "stepping")]
    if vendor is None and all(v is None for _, v in fields):
        return f"{platform.machine() or 'unknown'} (no /proc/cpuinfo)"
    ident = " ".join([vendor or "unknown vendor"] + [f"{k.split()[-1].strip()} {v}" for k, v in fields if v])
    flags = _cpuinfo_flags()
    have = [f for f in SIMD_FLAGS if f in flags]
    return f"{ident}; {' '.join(have) if have else 'none of ' + ' '.join(SIMD_FLAGS)}"


def check_cpus() -> list:
    online = _read(SYS_CPU / "online")
    usable = usable_cpus()
    isolated = _read(SYS_CPU / "isolated", "")
    out = [
        Check("cpu", "info", f"{cpu_model()}; online {online or os.cpu_count()}; usable here {format_cpulist(usable)}")
    ]
    if isolated:
        out.append(Check("isolated-cpus", "ok", f"isolated from the scheduler: {isolated}"))
    else:
        out.append(
            Check(
                "isolated-cpus",
                "info",
                "none: other processes may run on the CPU a child is pinned to",
                "boot with isolcpus=<cpus> (or a cpuset) to keep the measured CPU for the suite",
            )
        )
    # SMT: two logical CPUs of one core share its execution units, so a
    # child and anything on its sibling slow each other down.
    shared = []
    for cpu in usable:
        sib = _read(SYS_CPU / f"cpu{cpu}" / "topology" / "thread_siblings_list")
        if sib:
            others = [c for c in parse_cpulist(sib) if c != cpu and c in usable]
            if others:
                shared.append(f"{cpu}:{format_cpulist(others)}")
    smt = _read(SYS_CPU / "smt" / "active")
    if shared:
        out.append(
            Check(
                "smt",
                "warn",
                f"SMT siblings among the usable CPUs ({', '.join(shared)}): the runner's CPU may share a core "
                "with the measured one",
                "turn SMT off (echo off > /sys/devices/system/cpu/smt/control) or keep the siblings idle",
            )
        )
    else:
        out.append(Check("smt", "ok", "no two usable CPUs share a core" + (f" (smt active={smt})" if smt else "")))
    return out


def check_frequency() -> list:
    govs = {}
    for d in sorted(SYS_CPU.glob("cpu[0-9]*")):
        g = _read(d / "cpufreq" / "scaling_governor")
        if g:
            govs.setdefault(g, []).append(int(d.name[3:]))
    out = []
    if not govs:
        out.append(
            Check(
                "governor",
                "info",
                "not exposed (no cpufreq: typical of a VM, where the host sets the clock)",
            )
        )
    elif set(govs) == {"performance"}:
        out.append(Check("governor", "ok", "performance on every CPU"))
    else:
        text = ", ".join(f"{g} on {format_cpulist(c)}" for g, c in govs.items())
        out.append(
            Check(
                "governor",
                "warn",
                f"{text}: the clock follows the load, so the first part of a run is slower",
                "cpupower frequency-set -g performance",
            )
        )
    boost = _read(SYS_CPU / "cpufreq" / "boost")
    no_turbo = _read(SYS_CPU / "intel_pstate" / "no_turbo")
    if boost == "1" or no_turbo == "0":
        out.append(
            Check(
                "boost",
                "warn",
                "turbo/boost on: the clock depends on temperature and the other cores' load",
                "echo 0 > /sys/devices/system/cpu/cpufreq/boost (or 1 > intel_pstate/no_turbo)",
            )
        )
    elif boost == "0" or no_turbo == "1":
        out.append(Check("boost", "ok", "turbo/boost off"))
    else:
        out.append(Check("boost", "info", "not exposed"))
    return out


def check_load() -> list:
    load = os.getloadavg()
    n = len(usable_cpus())
    value = f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {n} usable CPUs"
    if load[0] > 0.5 * n:
        return [Check("load", "warn", f"busy: {value}", "wait until the machine is idle, or stop what runs on it")]
    return [Check("load", "ok", value)]


def check_memory() -> list:
    out = []
    thp = _read("/sys/kernel/mm/transparent_hugepage/enabled")
    if thp is None:
        out.append(Check("thp", "info", "transparent huge pages not exposed"))
    else:
        mode = thp[thp.find("[") + 1 : thp.find("]")] if "[" in thp else thp
        if mode == "always":
            out.append(
                Check(
                    "thp",
                    "warn",
                    "transparent huge pages: always (whether a large buffer gets huge pages depends on "
                    "what else the kernel is doing, so memory-bound rounds vary from process to process)",
                    "echo madvise > /sys/kernel/mm/transparent_hugepage/enabled",
                )
            )
        else:
            out.append(Check("thp", "ok", f"transparent huge pages: {mode}"))
    info = {}
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                k, _, v = line.partition(":")
                info[k] = int(v.split()[0]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    total, swap, swap_free = info.get("MemTotal"), info.get("SwapTotal", 0), info.get("SwapFree", 0)
    if total:
        out.append(Check("memory", "info", f"{total / 2**30:.1f} GiB, {info.get('MemAvailable', 0) / 2**30:.1f} free"))
    used = swap - swap_free
    if swap == 0:
        out.append(Check("swap", "ok", "no swap: a round that does not fit fails instead of crawling"))
    elif used > 64 * 2**20:
        out.append(
            Check(
                "swap",
                "warn",
                f"{used / 2**20:.0f} MiB of swap in use: pages a run touches may come back from disk",
                "free memory (or swapoff -a && swapon -a) before measuring",
            )
        )
    else:
        out.append(Check("swap", "ok", f"{swap / 2**30:.1f} GiB of swap, unused"))
    return out


def check_aslr() -> list:
    v = _read("/proc/sys/kernel/randomize_va_space")
    if v is None:
        return [Check("aslr", "info", "not exposed")]
    if v == "0":
        return [Check("aslr", "ok", "address-space randomisation off for the whole machine")]
    return [
        Check(
            "aslr",
            "info",
            f"randomize_va_space={v}: every process gets its own address layout (roundbench run --placement "
            "pinned-fixed turns it off for each child, as setarch -R does)",
        )
    ]


def check_perf() -> list:
    paranoid = _read("/proc/sys/kernel/perf_event_paranoid")
    if not shutil.which("perf"):
        return [
            Check(
                "perf",
                "info",
                f"perf not installed (perf_event_paranoid={paranoid}): instruction counts are not reported",
                "apt-get install linux-perf",
            )
        ]
    try:
        done = subprocess.run(
            ["perf", "stat", "-x,", "-e", "instructions", "true"], capture_output=True, text=True, timeout=20
        )
        ok, text = done.returncode == 0, done.stdout + done.stderr
    except (OSError, subprocess.TimeoutExpired) as e:
        ok, text = False, f"failed: {e}"
    if not ok or "not supported" in text or "not counted" in text:
        return [
            Check(
                "perf",
                "info",
                f"perf cannot count instructions here (perf_event_paranoid={paranoid}, a VM often hides the "
                "counters): instruction counts are not reported",
            )
        ]
    return [Check("perf", "ok", "perf counts instructions")]


def virtualization() -> str:
    """What the process runs in, as far as it can tell: a container, a VM, or
    bare metal ('none'), with how it knows."""
    found = []
    if Path("/.dockerenv").exists() or Path("/run/.containerenv").exists():
        found.append("container (/.dockerenv or /run/.containerenv)")
    cgroup = _read("/proc/1/cgroup", "") or ""
    if any(w in cgroup for w in ("docker", "kubepods", "containerd", "lxc")):
        found.append("container (/proc/1/cgroup)")
    if shutil.which("systemd-detect-virt"):
        try:
            out = subprocess.run(["systemd-detect-virt"], capture_output=True, text=True, timeout=10)
            what = out.stdout.strip()
            if what and what != "none":
                found.append(f"{what} (systemd-detect-virt)")
        except (OSError, subprocess.TimeoutExpired):
            pass
    if "hypervisor" in _cpuinfo_flags():
        vendor = _read("/sys/class/dmi/id/sys_vendor") or _read("/sys/class/dmi/id/product_name") or "unknown"
        found.append(f"VM (the CPU's hypervisor flag, vendor {vendor})")
    return ", ".join(found) if found else "none found"


def check_virtualization() -> list:
    where = virtualization()
    if where == "none found":
        return [Check("virtualization", "ok", "bare metal, as far as can be told")]
    return [
        Check(
            "virtualization",
            "warn",
            f"{where}: the host shares the CPUs with other guests, so speed varies from process to process",
            "compare within one run, read the unstable flags, and repeat the run (scripts/repeatability.sh)",
        )
    ]


def checks() -> list:
    out = []
    for f in (
        check_cpus,
        check_frequency,
        check_load,
        check_memory,
        check_aslr,
        check_perf,
        check_virtualization,
    ):
        out.extend(f())
    return out


def provenance() -> tuple:
    """(items, warnings) for the result file: one `machine-<name>` line per
    check, and each warn with its fix."""
    items, warnings = {}, []
    for c in checks():
        items[f"machine-{c.name}"] = c.line()
        if c.status == "warn":
            warnings.append(f"machine: {c.value}" + (f" (fix: {c.fix})" if c.fix else ""))
    return items, warnings
