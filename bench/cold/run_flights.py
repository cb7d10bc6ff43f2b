import subprocess, json, time, statistics, sys, os, glob
L='/work/main/build/lakeindex'; PY='/work/main/.venv/bin/python'
T=sys.argv[1] if len(sys.argv)>1 else '/tmp/i52/fl'
col=sys.argv[2] if len(sys.argv)>2 else 'tailnum'
keys=[l.split()[0] for l in open(sys.argv[3] if len(sys.argv)>3 else '/tmp/i52/tails.txt')]
quote=(lambda k: f"'{k}'") if col=='tailnum' else (lambda k:k)
total=sum(os.path.getsize(f) for f in glob.glob(T+'/data/*.parquet'))
env=dict(os.environ)
duck_code='''import time,sys
t0=time.perf_counter(); import duckdb; t1=time.perf_counter()
c=duckdb.connect(); r=c.execute(sys.argv[1]).fetchall(); t2=time.perf_counter()
print(len(r), (t2-t1)*1000, (t2-t0)*1000)'''
rows=[]
for k in keys:
    w=f"{col} = {quote(k)}"
    ex=json.loads(subprocess.run([L,'explain',T,'--where',w,'--analyze','--json'],capture_output=True,text=True,check=True).stdout)
    t0=time.perf_counter(); subprocess.run(f"{L} query {T} --where \"{w}\" --format csv > /dev/null",shell=True,check=True); q=(time.perf_counter()-t0)*1000
    sql=f"SELECT * FROM read_parquet('{T}/data/*.parquet') WHERE {w}"
    t0=time.perf_counter(); o=subprocess.run([PY,'-c',duck_code,sql],capture_output=True,text=True,check=True).stdout.split(); dw=(time.perf_counter()-t0)*1000
    r=dict(key=k,rows=ex['rows_returned'],bytes=ex['bytes_read'],pct=100*ex['bytes_read']/total,req=ex['io_requests'],pages=ex['pages_read'],pages_total=ex['pages_total'],
           idx_bytes=ex.get('index_bytes_read'),explain_ms=ex['elapsed_ms'],query_wall_ms=q,duck_rows=int(o[0]),duck_q_ms=float(o[1]),duck_wall_ms=dw)
    rows.append(r); print(json.dumps(r),flush=True)
json.dump(rows,open(f'/tmp/i52/res_{os.path.basename(T)}.json','w'))
def med(f): return statistics.median(r[f] for r in rows)
print('total data bytes',total)
for f in ['rows','bytes','pct','req','pages','explain_ms','query_wall_ms','duck_q_ms','duck_wall_ms']: print(f, 'median', round(med(f),2), 'min', round(min(r[f] for r in rows),2),'max', round(max(r[f] for r in rows),2))
