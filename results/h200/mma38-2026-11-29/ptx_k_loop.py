#!/usr/bin/env python3
# mma38: counts the K loop's PTX instructions by kind in the programs the probe read back
# (usage: ptx_k_loop.py FORM.ptx.gz ...; call1/ptx-k-loop.txt).
import gzip,re,sys
# The K loop's body in NVIDIA's PTX: the region between a label and the branch back to it that
# holds the most mma.sync; counts of its instructions by kind.
for f in sys.argv[1:]:
    lines=[l.strip() for l in gzip.open(f,'rt').read().split('\n')]
    labels={}
    for i,l in enumerate(lines):
        m=re.match(r'^(\$L__\w+):',l)
        if m: labels[m.group(1)]=i
    best=None
    for i,l in enumerate(lines):
        m=re.search(r'bra(\.uni)?\s+(\$L__\w+);',l)
        if m and m.group(2) in labels and labels[m.group(2)]<i:
            body=lines[labels[m.group(2)]:i+1]
            n=sum('mma.sync' in x for x in body)
            if best is None or n>best[0]: best=(n,body)
    n,body=best
    ins=[x for x in body if x and not x.startswith('//') and not x.endswith(':') and not x.startswith('{') and not x.startswith('}')]
    kinds={'mma':0,'ldmatrix':0,'cp.async':0,'bar':0,'other':0}
    for x in ins:
        if 'mma.sync' in x: kinds['mma']+=1
        elif 'ldmatrix' in x: kinds['ldmatrix']+=1
        elif x.startswith('cp.async'): kinds['cp.async']+=1
        elif x.startswith('bar'): kinds['bar']+=1
        else: kinds['other']+=1
    print(f.split('/')[-1].replace('.ptx.gz',''), 'loop:', kinds, 'total', len(ins))
