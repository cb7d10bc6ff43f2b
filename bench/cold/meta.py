import pyarrow.parquet as pq, sys, glob
f=glob.glob('/tmp/i52/fl/data/*.parquet')[0] if len(sys.argv)<2 else sys.argv[1]
pf=pq.ParquetFile(f); md=pf.metadata
print(f, md.num_rows, md.num_row_groups, md.num_columns, 'footer', md.serialized_size)
import os; print('file size', os.path.getsize(f))
tot={}
for rg in range(md.num_row_groups):
    r=md.row_group(rg)
    for c in range(r.num_columns):
        cc=r.column(c)
        t=tot.setdefault(cc.path_in_schema,[0,0,set(),cc.compression,cc.physical_type,None,None])
        t[0]+=cc.total_compressed_size; t[1]+=cc.total_uncompressed_size; t[2].update(cc.encodings)
        t[5]=(cc.has_column_index, cc.has_offset_index)
print('rowgroups', md.num_row_groups, 'rows/rg', md.row_group(0).num_rows)
for k,v in tot.items(): print(f"{k:16s} {v[4]:12s} comp={v[0]:9d} uncomp={v[1]:9d} {v[3]} {sorted(v[2])} ci/oi={v[5]}")
print('sum comp', sum(v[0] for v in tot.values()))
