# ptxas.py LOG: per attention kernel, ptxas's registers, stack, spills and shared memory from a
# STAGEBENCH_CL_BUILD_LOG=1 build log (NVIDIA OpenCL, -cl-nv-verbose).
import re, sys
t = open(sys.argv[1], errors="replace").read()
for m in re.finditer(r"Compiling entry function '(\w*attention\w*)' for '(\w+)'\n(.*?)(?=ptxas info    : Compiling|\Z)", t, re.S):
    body = m.group(3)
    regs = re.search(r"Used (\d+) registers.*?(\d+) bytes smem", body)
    spill = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", body)
    stack = re.search(r"(\d+) bytes stack frame", body)
    print(f"{m.group(1)}\t{m.group(2)}\tregs {regs.group(1) if regs else '?'}\tsmem {regs.group(2) if regs else '?'}\tstack {stack.group(1) if stack else '?'}\tspill st/ld {spill.group(1)+'/'+spill.group(2) if spill else '?'}")
