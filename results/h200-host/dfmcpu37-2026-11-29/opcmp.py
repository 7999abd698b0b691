import json,sys,re,collections
def load(p):
    d=json.load(open(p)); out={}
    for st in d['runs'][0]['stages']:
        oc=st.get('opencl') or {}
        if not oc.get('kernels'): continue
        cat=collections.Counter()
        for k in oc['kernels']:
            n=k['name']; t=k['total_ns']/1e3
            if n.startswith('gemm_batched 1x'): c='GEMM, one product (27)'
            elif n.startswith('gemm_batched'): c='GEMM, batched tiny items'
            else: c=n.split()[0]
            cat[c]+=t
        cat['TOTAL']=sum(v for k,v in cat.items())
        out[st['id']]=(cat, st['time']['median_ms'])
    return out
a=load(sys.argv[1]); b=load(sys.argv[2])
for s in ('preallocated-loss','amp'):
    ca,ta=a[s]; cb,tb=b[s]
    print(f"\n{s}: stage median off {ta:.3f} ms, new {tb:.3f} ms")
    print("| op | off us | new us |")
    print("|---|---|---|")
    keys=sorted(set(ca)|set(cb), key=lambda k:-(ca.get(k,0)+cb.get(k,0)))
    for k in keys:
        if ca.get(k,0)+cb.get(k,0) < 15: continue
        print(f"| {k} | {ca.get(k,0):.0f} | {cb.get(k,0):.0f} |")
