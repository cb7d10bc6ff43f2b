import sys, struct, glob, numpy as np, pyarrow.parquet as pq
sys.argv=[sys.argv[0]]
exec(open('/tmp/i52/pageindex.py').read().split('ch,flen,size=parse')[0])
def offset_index(path):
    ch,flen,size=parse(path); data=open(path,'rb').read(); res=[]
    for c in ch:
        b=data[c[4]:c[4]+c[5]]
        # OffsetIndex: field 1 list<PageLocation>
        locs=[]
        def pl(b,i):
            o,i=struct_(b,i,None); locs.append((zz_fix(o.get(1)),o.get(2),o.get(3,0))); return i
        def lst(b,i,path,out):
            h=b[i]; i+=1; n=h>>4
            if n==15: n,i=varint(b,i)
            for _ in range(n): i=pl(b,i)
            return i
        struct_(b,0,lambda p,fid,t: lst if fid==1 and t==9 and p==() else None)
        res.append(locs)
    return res
def zz_fix(v): return v
f=glob.glob('/tmp/i52/fl/data/*.parquet')[0]
oi=offset_index(f)
print('pages per column', [len(x) for x in oi][:3], 'first locs', oi[0][:2])
# data-chunk end per column for the last page length
tails=[l.split()[0] for l in open('/tmp/i52/tails.txt')]
tn=pq.read_table('/tmp/i52/flights.parquet',columns=['tailnum'])['tailnum'].to_numpy(zero_copy_only=False)
N=len(tn); total=7092912
cols=range(len(oi))
def sim(rows, holes):
    out={}
    ranges=[]
    for c in cols:
        locs=oi[c]; firsts=np.array([l[2] for l in locs])
        pg=np.unique(np.searchsorted(firsts, rows, side='right')-1)
        for p in pg: ranges.append((locs[p][0], locs[p][0]+locs[p][1]))
    ranges.sort(); pages=len(ranges); pbytes=sum(e-s for s,e in ranges)
    for H in holes:
        req=0; by=0; cs=ce=None
        for s,e in ranges:
            if cs is None: cs,ce=s,e
            elif s-ce<=H: ce=max(ce,e)
            else: req+=1; by+=ce-cs; cs,ce=s,e
        req+=1; by+=ce-cs
        out[H]=(req,by)
    return pages,pbytes,out
holes=[0,4096,8192,65536,1<<20]
res=[]
for t in tails:
    rows=np.nonzero(tn==t)[0]
    res.append(sim(rows,holes))
med=lambda xs: float(np.median(xs))
print('median pages', med([r[0] for r in res]), 'page bytes', med([r[1] for r in res]), f"{100*med([r[1] for r in res])/total:.1f}%")
for H in holes: print(f'hole {H:8d}: requests median', med([r[2][H][0] for r in res]), 'bytes', med([r[2][H][1] for r in res]), f"{100*med([r[2][H][1] for r in res])/total:.1f}%")
# pages touched at other page sizes (uniform pages cut by rows), fraction of pages
for P in [1024,512,256,128,64,16,1]:
    fr=[len(np.unique(np.nonzero(tn==t)[0]//P))/((N+P-1)//P) for t in tails]
    print(f'P={P:5d}: median fraction of pages touched per column {100*med(fr):.2f}%')
