#!/usr/bin/env python3
"""Drop a running process's executable pages from its resident set.

Asks the kernel (process_madvise(2), MADV_PAGEOUT, Linux 5.10+, root) to
reclaim the pages of the process's read-only mappings of its own
executable: code, read-only data, Go's pclntab. Pages touched again fault
back in. Run after start-up and before a load, then read the process's
RssFile: what is resident then is what serving touches, not what start-up
did (every package's init, the itab table; docs/BENCHMARKS.md, "Peak
RSS"). A measuring tool, not something the edge does.

    loadtest/peers/exe-pageout.py PID
"""
import ctypes
import os
import sys

SYS_PIDFD_OPEN = 434
SYS_PROCESS_MADVISE = 440
MADV_PAGEOUT = 21


class IOVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    pid = int(sys.argv[1])
    exe = os.readlink(f"/proc/{pid}/exe")
    libc = ctypes.CDLL(None, use_errno=True)
    pidfd = libc.syscall(SYS_PIDFD_OPEN, pid, 0)
    if pidfd < 0:
        sys.exit(f"pidfd_open {pid}: {os.strerror(ctypes.get_errno())}")
    with open(f"/proc/{pid}/maps") as maps:
        for line in maps:
            fields = line.split()
            if len(fields) < 6 or fields[5] != exe or "w" in fields[1]:
                continue
            start, end = (int(x, 16) for x in fields[0].split("-"))
            vec = IOVec(start, end - start)
            if libc.syscall(SYS_PROCESS_MADVISE, pidfd, ctypes.byref(vec), 1, MADV_PAGEOUT, 0) < 0:
                sys.exit(f"process_madvise {fields[0]}: {os.strerror(ctypes.get_errno())}")
            print(f"{fields[0]} {fields[1]} {(end - start) >> 20} MiB paged out")


if __name__ == "__main__":
    main()
