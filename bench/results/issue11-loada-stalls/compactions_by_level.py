# Sums RocksDB's EVENT_LOG compaction_finished events of a DB LOG (plain or .gz) by output level,
# split by whether L0 files were inputs. Usage: compactions_by_level.py LOG [LOG...]
import gzip,json,sys,re
for path in sys.argv[1:]:
    base=None; rows=[]
    started={}
    for line in (gzip.open(path,'rt') if path.endswith('.gz') else open(path)):
        m=re.search(r'EVENT_LOG_v1 (\{.*\})',line)
        if not m: continue
        e=json.loads(m.group(1))
        if e.get('event')=='compaction_started':
            started[e['job']]=e
        if e.get('event')=='compaction_finished':
            s=started.get(e['job'],{})
            l0=len(s.get('files_L0',[]))
            rows.append((e['output_level'],l0,e['compaction_time_micros'],e['num_input_records'],e['total_output_size'] if 'total_output_size' in e else 0, e.get('compaction_time_cpu_micros',0)))
    from collections import defaultdict
    agg=defaultdict(lambda:[0,0,0,0,0])
    for ol,l0,t,rec,out,cpu in rows:
        k=(ol, 'L0in' if l0 else '')
        a=agg[k]; a[0]+=1; a[1]+=t; a[2]+=rec; a[3]+=out; a[4]+=cpu
    print(path)
    for k in sorted(agg):
        n,t,rec,out,cpu=agg[k]
        print(f"  out L{k[0]} {k[1]:5s} n={n:3d} time={t/1e6:6.2f}s cpu={cpu/1e6:6.2f}s recs={rec:8d} out={out/1e6:7.1f}MB  us/rec={t/max(rec,1):.2f}")
