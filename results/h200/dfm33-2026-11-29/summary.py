# dfm33: per run, the amp, autotune and baseline stages: wall median, commands a step (launches in
# the device sample), device ms median, and the kernels this change touches (launches, us).
import json,sys,glob,os
# per run: amp and autotune stage's commands, device median, selected kernels, wall time
for f in sorted(glob.glob(sys.argv[1]+'/deepfm-full-*.json')):
    d=json.load(open(f)); st=d['runs'][0]['stages']
    for s in st:
        if s['id'] not in ('amp','autotune','baseline'): continue
        o=s.get('opencl',{}); ks={k['name']:(k['launches'],k['total_ns']/1e3) for k in o.get('kernels',[])}
        cmds=sum(k['launches'] for k in o.get('kernels',[]))
        sel={n:ks[n] for n in ('sum_axis1','sum_axis1_split','fill','pack_f16_pair','wgmma_f16_128','dropout') if n in ks}
        t=s.get('time',{})
        print(os.path.basename(f), s['id'], s['status'], 'wall', round(t.get('median_ms',0),3), 'cmds', cmds, 'dev', o.get('device_ms',{}).get('median'), sel)
