# minimal thrift-compact walker: per column chunk, the ColumnIndex and OffsetIndex lengths
import struct, sys, os, collections
def varint(b,i):
    r=s=0
    while True:
        x=b[i]; i+=1; r|=(x&0x7f)<<s; s+=7
        if not x&0x80: return r,i
def zz(n): return (n>>1)^-(n&1)
def skip(b,i,t):
    if t in (1,2): return i
    if t==3: return i+1
    if t in (4,5,6): return varint(b,i)[1]
    if t==7: return i+8
    if t==8: n,i=varint(b,i); return i+n
    if t in (9,10):
        h=b[i]; i+=1; n=h>>4; et=h&15
        if n==15: n,i=varint(b,i)
        for _ in range(n): i=skip(b,i,et)
        return i
    if t==12: return struct_(b,i,None)[1]
    raise ValueError(t)
def struct_(b,i,cb,path=()):
    fid=0; out={}
    while True:
        h=b[i]; i+=1
        if h==0: return out,i
        d=h>>4; t=h&15; fid = fid+d if d else zz(varint(b,i)[0]) 
        if not d: _,i=varint(b,i)
        if cb and cb(path,fid,t):
            i2=cb(path,fid,t)(b,i,path+(fid,),out); i=i2
        elif t in (5,6) : v,i=varint(b,i); out[fid]=zz(v)
        else: i=skip(b,i,t)
def parse(path):
    data=open(path,'rb').read(); flen=struct.unpack('<I',data[-8:-4])[0]; b=data[-8-flen:-8]
    chunks=[]
    # FileMetaData.row_groups=4 (list<RowGroup>), RowGroup.columns=1 (list<ColumnChunk>)
    def lst(handler):
        def f(b,i,path,out):
            h=b[i]; i+=1; n=h>>4
            if n==15: n,i=varint(b,i)
            for _ in range(n): i=handler(b,i)
            return i
        return f
    def cc(b,i):
        o,i=struct_(b,i,None); chunks.append(o); return i
    def rg(b,i):
        _,i=struct_(b,i,lambda p,fid,t: lst(cc) if fid==1 and t==9 else None); return i
    struct_(b,0,lambda p,fid,t: lst(rg) if fid==4 and t==9 and p==() else None)
    return chunks, flen, len(data)
ch,flen,size=parse(sys.argv[1])
ci=sum(c.get(7,0) for c in ch); oi=sum(c.get(5,0) for c in ch)
print(f"{os.path.basename(sys.argv[1])}: footer {flen} B, ColumnIndex {ci} B, OffsetIndex {oi} B, chunks {len(ch)}")
for n,c in zip(sys.argv[2].split(',') if len(sys.argv)>2 else range(len(ch)), ch): print(f"  {n}: CI {c.get(7)} OI {c.get(5)}")
