# The CLI's second start for huge pages, by command: median wall time of 15 new processes with and
# without LAKEINDEX_NO_REEXEC=1, in a directory holding `ev` (2M events rows, btree on score; see
# docs/random-access-plan.md). Run: cd /tmp/i52 && .venv/bin/python bench/cold/reexec.py
import subprocess, time, os, statistics, sys
L=os.environ.get("LAKEINDEX_CLI", "/work/main/build/lakeindex")
def t(args, env):
    xs=[]
    for _ in range(15):
        s=time.perf_counter(); subprocess.run([L]+args, env=env, stdout=subprocess.DEVNULL, check=True); xs.append(time.perf_counter()-s)
    return statistics.median(xs)*1000
base=dict(os.environ); base.pop("LAKEINDEX_NO_REEXEC",None)
no=dict(base); no["LAKEINDEX_NO_REEXEC"]="1"
for name,args in [("version",["--version"]),("lookup",["query","ev","--where","score = 669192","--format","csv"]),("scan",["query","ev","--where","name LIKE '%zz%'","--format","csv"]),("agg",["query","ev","--agg","avg(score), max(x)"])]:
    print(name, "reexec %.1f ms" % t(args,base), "noreexec %.1f ms" % t(args,no))
