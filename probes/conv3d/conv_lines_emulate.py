"""conv3d_lines_bf16_16's index arithmetic (models/ops/opencl/kernels/conv3d_lines_bf16_nvidia.cl),
emulated off-device: the ring copies (cp.async with zero fill), the swizzled rows, ldmatrix.x4's
lane addresses and fragments, mma.sync m16n8k16's A/B/C layouts and the stores, step for step
as the kernel does them, in float64, against a direct 3^3 convolution. Pure Python (no numpy):
run before a device call to catch an indexing slip that only an NVIDIA device would show.

Usage: python3 probes/conv3d/conv_lines_emulate.py [B D H W CX C0 PAIRS_PER]
(defaults 1 3 4 32 32 16 5: channels 16-31 of 32, a walk crossing planes)
"""
import sys
import random,math
random.seed(1)
NAN=float('nan')
B,D,H,W,CX,C0,PAIRS=[int(v) for v in sys.argv[1:8]] if len(sys.argv)>7 else (1,3,4,32,32,16,5)
xf=[random.gauss(0,1) for _ in range(B*D*H*W*CX)]
wv=[random.gauss(0,1) for _ in range(16*CX*27)]  # [o][c][t]
K_W=27*CX
wtf=[0.0]*(16*K_W)
for o in range(16):
  for c in range(CX):
    for t in range(27): wtf[o*K_W+t*CX+c]=wv[(o*CX+c)*27+t]
XR=66; ROW=XR*32; XB=12*ROW; K=432; WP=K+8; WB=16*WP*2
smem=[NAN]*((XB+WB)//2)
def slot(r,hc): return r*32+((hc^((r>>2)&1))<<4)
def cp16(dst,src_vals):  # 8 values
    assert dst%16==0
    smem[dst//2:dst//2+8]=list(src_vals)
def copy_rows(b,oz,oy0,yy0):
    chunks=(W+2)*2
    for kz in range(3):
        for yy in range(yy0,4):
            z=oz+kz-1; y=oy0-1+yy
            pin= 0<=z<D and 0<=y<H
            row0=((b*D+z)*H+y)*W if pin else 0
            dst=(kz*4+(y&3))*ROW
            for q in range(chunks):
                r=q>>1; hc=q&1; ix=r-1
                inn= pin and 0<=ix<W
                if inn:
                    off=(row0+ix)*CX+C0+hc*8
                    cp16(dst+slot(r,hc), xf[off:off+8])
                else: cp16(dst+slot(r,hc), [0.0]*8)
def ldm(addrs):  # addrs[32] -> r[lane][4]: each a pair of values
    r=[[None]*4 for _ in range(32)]
    for j in range(4):
        for i in range(32):
            a=addrs[j*8+i//4]
            assert a%16==0
            e=a//2+2*(i%4)
            r[i][j]=(smem[e],smem[e+1])
    return r
def mma(acc,a,b0,b1):  # per lane lists
    A=[[NAN]*16 for _ in range(16)]; Bm=[[NAN]*8 for _ in range(16)]
    for l in range(32):
        g=l>>2; t=l&3
        A[g][2*t:2*t+2]=a[l][0]; A[g+8][2*t:2*t+2]=a[l][1]; A[g][2*t+8:2*t+10]=a[l][2]; A[g+8][2*t+8:2*t+10]=a[l][3]
        Bm[2*t][g],Bm[2*t+1][g]=b0[l]; Bm[2*t+8][g],Bm[2*t+9][g]=b1[l]
    Cm=[[sum(A[i][k]*Bm[k][j] for k in range(16)) for j in range(8)] for i in range(16)]
    for l in range(32):
        g=l>>2; t=l&3
        acc[l][0]+=Cm[g][2*t]; acc[l][1]+=Cm[g][2*t+1]; acc[l][2]+=Cm[g+8][2*t]; acc[l][3]+=Cm[g+8][2*t+1]
y=[NAN]*(B*D*H*W*16)
wsm=XB
for q in range(16*(K//8)):
    n=q//(K//8); c8=(q-n*(K//8))*8; tap=c8>>4
    off=n*K_W+tap*CX+C0+(c8&8)
    cp16(wsm+(n*WP+c8)*2, wtf[off:off+8])
half_h=H>>1; total=B*D*half_h; pairs_per=PAIRS
tiles=W>>4; per_warp=W>>5
for grp in range((total+pairs_per-1)//pairs_per):
  pb=grp*pairs_per; pe=min(total,pb+pairs_per)
  for p in range(pb,pe):
    pair=p%half_h; rest=p//half_h; oz=rest%D; b=rest//D; oy0=2*pair
    copy_rows(b,oz,oy0,0 if (p==pb or pair==0) else 2)
    for warp in range(4):
      line=[0,0]; m0=[0,0]
      for mi in range(2):
          qq=warp*per_warp+mi; line[mi]=qq//tiles; m0[mi]=(qq-line[mi]*tiles)*16
      acc=[[[[0.0]*4 for _ in range(32)] for _ in range(2)] for _ in range(2)]
      for kz in range(3):
        for ky in range(3):
          row=[(kz*4+((oy0+line[mi]+ky-1)&3))*ROW for mi in range(2)]
          for kx in range(3):
            baddr=[]
            for lane in range(32):
                lj=lane>>3; lr=lane&7
                baddr.append(wsm+((lr+8*(lj>>1))*WP+8*(lj&1))*2+((kz*3+ky)*3+kx)*32)
            bf=ldm(baddr)
            for mi in range(per_warp):
                aaddr=[]
                for lane in range(32):
                    lj=lane>>3; lr=lane&7
                    aaddr.append(row[mi]+slot(m0[mi]+lr+8*(lj&1)+kx, lj>>1))
                a=ldm(aaddr)
                mma(acc[mi][0],a,[bf[l][0] for l in range(32)],[bf[l][1] for l in range(32)])
                mma(acc[mi][1],a,[bf[l][2] for l in range(32)],[bf[l][3] for l in range(32)])
      for mi in range(per_warp):
        for lane in range(32):
          g=lane>>2; t=lane&3
          v=(((b*D+oz)*H+oy0+line[mi])*W+m0[mi]+g)
          for nt in range(2):
            o=v*16+nt*8+2*t
            y[o]=acc[mi][nt][lane][0]; y[o+1]=acc[mi][nt][lane][1]
            y[o+128]=acc[mi][nt][lane][2]; y[o+129]=acc[mi][nt][lane][3]
err=0.0; nan=0; mx=0.0
for b in range(B):
 for z in range(D):
  for yy in range(H):
   for xx in range(W):
    for o in range(16):
     acc=0.0
     for t in range(27):
      iz,iy,ix=z+t//9-1,yy+t//3%3-1,xx+t%3-1
      if 0<=iz<D and 0<=iy<H and 0<=ix<W:
       for c in range(16):
        acc+=xf[(((b*D+iz)*H+iy)*W+ix)*CX+C0+c]*wv[(o*CX+C0+c)*27+t]
     got=y[(((b*D+z)*H+yy)*W+xx)*16+o]
     if math.isnan(got): nan+=1
     else: err=max(err,abs(got-acc)); mx=max(mx,abs(acc))
print("unwritten:", nan, "max abs error:", err, "largest |y|:", mx)
sys.exit(0 if nan == 0 and err < 1e-9 * max(mx, 1) else 1)
