import re, sys, collections, pyarrow.parquet as pq, os
pat=re.compile(r'^\d+\s+pread64\(\d+<([^>]+)>, .*, (\d+), (\d+)\) = (\d+)')
meta={}
def cols(path):
    if path not in meta:
        md=pq.ParquetFile(path).metadata; rs=[]
        for rg in range(md.num_row_groups):
            r=md.row_group(rg)
            for c in range(r.num_columns):
                cc=r.column(c); st=cc.dictionary_page_offset if cc.has_dictionary_page and cc.dictionary_page_offset else cc.data_page_offset
                rs.append((st, st+cc.total_compressed_size, cc.path_in_schema))
        meta[path]=(rs, md.serialized_size, os.path.getsize(path))
    return meta[path]
agg=collections.OrderedDict(); seq=[]
def add(k,n):
    a=agg.setdefault(k,[0,0]); a[0]+=1; a[1]+=n
for line in open(sys.argv[1]):
    m=pat.match(line)
    if not m or '/tmp/i52/' not in m.group(1) or not m.group(1).startswith(sys.argv[2]): continue
    path,n,off=m.group(1),int(m.group(4)),int(m.group(3))
    if '/_versions/' in path: add('manifest/_latest',n)
    elif 'page_lookup' in path: add('btree page_lookup',n)
    elif 'page_data' in path: add('btree leaf pages (page_data)',n)
    elif '/data/' in path:
        rs,fs,size=cols(path)
        if off+n==size and off < min(r[1] for r in rs)+1e18 and off>=max(r[1] for r in rs):
            add('data footer (FileMetaData)',fs+8); add('data page index (ColumnIndex+OffsetIndex)',n-fs-8)
        else:
            hit=[r for r in rs if r[0]<=off<r[1]]
            add('data pages: '+(hit[0][2] if hit else '?'),n)
    else: add(path,n)
tot=[0,0]
for k,(c,b) in agg.items(): print(f"{k:45s} {c:6d} req {b:10d} B"); tot[0]+=c; tot[1]+=b
dp=[(c,b) for k,(c,b) in agg.items() if k.startswith('data pages')]
print(f"{'data pages (all columns)':45s} {sum(c for c,b in dp):6d} req {sum(b for c,b in dp):10d} B")
print(f"{'TOTAL':45s} {tot[0]:6d} req {tot[1]:10d} B")
