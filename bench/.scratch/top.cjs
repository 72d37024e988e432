const fs=require('fs');
const p=JSON.parse(fs.readFileSync(process.argv[2]));
const byId=new Map(p.nodes.map(n=>[n.id,n]));
const dt=p.timeDeltas; const total=dt.reduce((a,b)=>a+b,0);
const counts=new Map();
p.samples.forEach((s,i)=>counts.set(s,(counts.get(s)||0)+(dt[i]||0)));
const name=(n)=>{const cf=n.callFrame;return `${cf.functionName||'(anon)'} ${cf.url.replace(/.*node_modules\//,'nm/').replace(/.*\/dist\//,'dist/')}:${cf.lineNumber}`;};
const self=new Map();
for(const [id,t] of counts){const k=name(byId.get(id));self.set(k,(self.get(k)||0)+t);}
const idle=self.get('(idle) :-1')||0;
console.log('busy ms', ((total-idle)/1000).toFixed(0));
for(const [k,t] of [...self].sort((a,b)=>b[1]-a[1]).slice(0,+process.argv[3]||30)) console.log((t/(total-idle)*100).toFixed(1).padStart(5)+'% busy', k);
const parent=new Map(); for(const n of p.nodes) for(const c of (n.children||[])) parent.set(c,n.id);
const incl=new Map();
for(const [id,t] of counts){let cur=id; const seen=new Set(); while(cur!==undefined){const k=name(byId.get(cur)); if(!seen.has(k)){seen.add(k);incl.set(k,(incl.get(k)||0)+t);} cur=parent.get(cur);} }
console.log('--- inclusive (% of busy)');
const re = process.argv[5] ? new RegExp(process.argv[5]) : null;
for(const [k,t] of [...incl].sort((a,b)=>b[1]-a[1]).filter(([k])=>!re||re.test(k)).slice(0,+process.argv[4]||40)) console.log((t/(total-idle)*100).toFixed(1).padStart(5)+'%', k);
