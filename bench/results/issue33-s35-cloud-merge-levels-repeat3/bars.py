# Medians (ranges) of each arm's ratios against blobdb-large over runN/results.tsv.
# Usage: python3 bars.py [DIR]   (DIR holds run1, run2, ...; default: this file's directory)
import csv,sys,glob,os,statistics as st
base=sys.argv[1] if len(sys.argv)>1 else os.path.dirname(os.path.abspath(__file__))
runs=sorted(glob.glob(os.path.join(base,'run*/results.tsv')))
data={}
for r in runs:
    rows={ (x['phase'],x['arm']):x for x in csv.DictReader(open(r),delimiter='\t')}
    for (ph,arm),x in rows.items():
        bl=rows.get((ph,'blobdb-large')); ip=rows.get((ph,'inplace'))
        d=data.setdefault((ph,arm),[])
        f=lambda k,ref: float(x[k])/float(ref[k]) if ref and x[k] not in ('','n/a') and ref[k] not in ('','n/a','0') and float(ref[k])!=0 else None
        d.append(dict(tput=f('ops_per_sec',bl), settled=f('settled_ops_per_sec',bl), settled_ip=f('settled_ops_per_sec',ip),
          rd=f('dev_read_reqs_per_op',bl), wr=f('io_amp_write',bl), cpu=f('cpu_us_per_op',bl)))
print(len(runs),'runs')
for (ph,arm),ds in data.items():
    if arm in('blobdb-large',):continue
    out=[]
    for k in ['tput','settled','settled_ip','rd','wr','cpu']:
        v=[d[k] for d in ds if d[k] is not None]
        if not v: continue
        out.append(f"{k} {st.median(v):.2f} ({min(v):.2f}-{max(v):.2f})")
    print(ph,arm,' | '.join(out))
