/* html: the merged model as one self-contained HTML page (no network, no
 * CDN: inline CSS and script; report/FORMAT.md, "HTML report"):
 *  - the device access matrix: rows the launch device, columns the owner of
 *    the memory (each device, pinned host, pageable host, managed); each
 *    cell the operands checked, the findings by severity, the bytes
 *    migrated;
 *  - the transfer matrix: bytes and calls copied between host and devices
 *    and between devices, with each pair's top call sites;
 *  - the findings grouped by kind, deduplicated, each with its headline and
 *    its report as `devcheck report` writes them (report/kinds.h: one
 *    description per kind for every sink), its launch and allocation sites,
 *    NVTX ranges, hint and the processes it was seen in;
 *    filters by rank and process for merged reports.
 * The data is the merged JSON Lines (dc_model_jsonl) embedded as one JSON
 * array; the script draws the page from it.  Every number the matrices show
 * is also in a data-* attribute, so a test compares them with the JSON. */
#include "report/html.h"

#include <stdio.h>
#include <string.h>

static const char css[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#1d2330;background:#f5f6f8}"
    "header{background:#1d2a44;color:#fff;padding:18px 28px}header h1{margin:0;font-size:20px;font-weight:600}"
    "header .sum{margin-top:6px;color:#c8d3ea;font-family:ui-monospace,monospace;font-size:12.5px}"
    "main{padding:18px 28px;max-width:1280px}section{background:#fff;border-radius:8px;box-shadow:0 1px 3px #0002;"
    "padding:14px 18px;margin-bottom:18px}h2{font-size:16px;margin:0 0 4px}p.note{margin:0 0 10px;color:#5b6477;font-size:12.5px}"
    "table.m{border-collapse:collapse}table.m th,table.m td{border:1px solid #dde1e8;padding:6px 10px;text-align:center;"
    "min-width:92px}table.m th{background:#eef1f6;font-weight:600}table.m td.e{background:#fde4e4}table.m td.w{background:#fff3d6}"
    "table.m td.ok{background:#e6f4ea}table.m td.z{color:#aab}.n{font-size:17px;font-weight:600}.s{font-size:11.5px;color:#5b6477}"
    ".sev{display:inline-block;border-radius:3px;padding:0 5px;font-size:11px;font-weight:600;color:#fff}"
    ".sev.error{background:#c62828}.sev.warning{background:#d98a00}.sev.info{background:#5b6477}"
    ".f{border-left:4px solid #c62828;padding:8px 12px;margin:10px 0;background:#fbfbfc}.f.warning{border-color:#d98a00}"
    ".f.info{border-color:#5b6477}.f .msg{font-weight:600}.f .kv{font-size:12.5px;color:#39414f;margin-top:3px}"
    ".f code,.sites code{font-family:ui-monospace,monospace;font-size:12px;background:#eef1f6;padding:0 4px;border-radius:3px}"
    "details{margin-top:4px}summary{cursor:pointer;color:#2856b6;font-size:12.5px}pre{margin:4px 0;font-size:11.5px;"
    "background:#f1f3f7;padding:6px 8px;overflow-x:auto}.filters{margin:8px 0 0}.filters select{margin-right:12px}"
    ".sites{font-size:12.5px;margin:8px 0 0;padding-left:18px}.bad{color:#c62828}";

static const char script[] =
    "(function(){'use strict';\n"
    "var recs=JSON.parse(document.getElementById('devcheck-data').textContent);\n"
    "var fs=recs.filter(function(r){return r.type==='finding';});\n"
    "var sm=recs.filter(function(r){return r.type==='summary';})[0]||{};\n"
    "function el(t,a,kids){var e=document.createElement(t);if(a)for(var k in a){if(k==='text')e.textContent=a[k];"
    "else e.setAttribute(k,a[k]);}(kids||[]).forEach(function(c){if(c)e.appendChild(c);});return e;}\n"
    /* merged processes: a device number is a GPU of sm.gpus (by host and UUID, report/merge.h) */
    "function gpuName(c){var g=(sm.gpus||[]).filter(function(x){return x.device===c;})[0];if(!g)return 'cuda:'+c;"
    "return (g.uuid?g.uuid.slice(0,12)+'\\u2026':'cuda:'+c)+(g.host?' on '+g.host:'');}\n"
    "function colName(c){return c>=0?gpuName(c):c===-1?'pinned host':c===-2?'pageable host':'managed';}\n"
    "function bytes(n){var u=['B','KiB','MiB','GiB','TiB'],i=0;while(n>=1024&&i<4){n/=1024;i++;}"
    "return (i?n.toFixed(1):n)+' '+u[i];}\n"
    "function cols(list,keys){var s={};list.forEach(function(c){keys.forEach(function(k){s[c[k]]=1;});});"
    "return Object.keys(s).map(Number).sort(function(a,b){return (a<0?100-a:a)-(b<0?100-b:b);});}\n"
    "document.getElementById('sum').textContent=document.getElementById('sum').getAttribute('data-text');\n"
    /* access matrix */
    "var acc=sm.access||[],rows=cols(acc,['launch_device']),owners=cols(acc,['owner']);\n"
    "var at=document.getElementById('access');\n"
    "if(!acc.length){at.replaceWith(el('p',{text:'No operand was checked.'}));}else{\n"
    "var hr=el('tr',{},[el('th',{text:'launch \\u2193 / owner \\u2192'})]);owners.forEach(function(o){hr.appendChild(el('th',{text:colName(o)}));});"
    "at.appendChild(hr);\n"
    "rows.forEach(function(r){var tr=el('tr',{},[el('th',{text:colName(r)})]);owners.forEach(function(o){\n"
    "var c=acc.filter(function(x){return x.launch_device===r&&x.owner===o;})[0]||{operands:0,errors:0,warnings:0,infos:0,bytes_migrated:0};\n"
    "var cls=c.errors?'e':c.warnings?'w':c.operands?'ok':'z';\n"
    "var td=el('td',{'class':'cell '+cls,'data-row':r,'data-col':o,'data-operands':c.operands,'data-errors':c.errors||0,"
    "'data-warnings':c.warnings||0,'data-infos':c.infos||0,'data-bytes-migrated':c.bytes_migrated||0});\n"
    "td.appendChild(el('div',{'class':'n',text:String(c.operands)}));td.appendChild(el('div',{'class':'s',text:'operands'}));\n"
    "if(c.errors||c.warnings||c.infos)td.appendChild(el('div',{'class':'s',text:(c.errors||0)+' E \\u00b7 '+(c.warnings||0)+' W \\u00b7 '+(c.infos||0)+' I'}));\n"
    "if(c.bytes_migrated)td.appendChild(el('div',{'class':'s',text:bytes(c.bytes_migrated)+' migrated'}));\n"
    "tr.appendChild(td);});at.appendChild(tr);});}\n"
    /* transfer matrix */
    "var tx=sm.transfers||[],ends=cols(tx,['src','dst']);var tt=document.getElementById('transfers');\n"
    "if(!tx.length){tt.replaceWith(el('p',{text:'No copy was seen.'}));}else{\n"
    "var h2=el('tr',{},[el('th',{text:'from \\u2193 / to \\u2192'})]);ends.forEach(function(d){h2.appendChild(el('th',{text:colName(d)}));});tt.appendChild(h2);\n"
    "ends.forEach(function(s){var tr=el('tr',{},[el('th',{text:colName(s)})]);ends.forEach(function(d){\n"
    "var c=tx.filter(function(x){return x.src===s&&x.dst===d;})[0];\n"
    "var td=el('td',{'class':'xcell '+(c?(s<0||d<0?'w':'ok'):'z'),'data-src':s,'data-dst':d,'data-calls':c?c.calls:0,'data-bytes':c?c.bytes:0});\n"
    "if(c){td.appendChild(el('div',{'class':'n',text:bytes(c.bytes)}));td.appendChild(el('div',{'class':'s',text:c.calls+' call'+(c.calls===1?'':'s')}));}\n"
    "else td.textContent='\\u2013';tr.appendChild(td);});tt.appendChild(tr);});\n"
    "var ul=document.getElementById('sites');tx.forEach(function(c){(c.sites||[]).slice(0,5).forEach(function(st){\n"
    "ul.appendChild(el('li',{},[el('span',{text:colName(c.src)+' \\u2192 '+colName(c.dst)+': '+bytes(st.bytes)+' in '+st.calls+' call'+(st.calls===1?'':'s')+' at '}),el('code',{text:st.site})]));});});}\n"
    /* findings and filters */
    "var procs=(sm.processes||[]);var rk=document.getElementById('rank'),pr=document.getElementById('proc');\n"
    "var ranks={};procs.forEach(function(p){if(p.rank!==null&&p.rank!==undefined)ranks[p.rank]=1;});\n"
    "Object.keys(ranks).forEach(function(r){rk.appendChild(el('option',{value:r,text:'rank '+r}));});\n"
    "procs.forEach(function(p){pr.appendChild(el('option',{value:p.host+':'+p.pid,text:'pid '+p.pid+(p.host?' on '+p.host:'')+(p.rank!==null&&p.rank!==undefined?' (rank '+p.rank+')':'')}));});\n"
    "if(procs.length<2)document.getElementById('filters').style.display='none';\n"
    "function site(st){for(var i=0;i<(st||[]).length;i++){var f=st[i];if(f.file&&!/^\\/usr\\/|site-packages|libcudart|libcuda\\./.test(f.file+' '+(f.module||'')))return f.file+':'+f.line;}return st&&st[0]?(st[0].function||'?'+'?'):'\\u2013';}\n"
    "function draw(){var list=document.getElementById('findings');list.textContent='';var r=rk.value,p=pr.value,shown=0;\n"
    "var kinds={};fs.forEach(function(f){var ps=f.processes||[{pid:f.pid,rank:f.rank,host:f.host,count:f.count}];\n"
    "if(r!==''&&!ps.some(function(x){return String(x.rank)===r;}))return;if(p!==''&&!ps.some(function(x){return x.host+':'+x.pid===p;}))return;\n"
    "(kinds[f.kind]=kinds[f.kind]||[]).push(f);});\n"
    "Object.keys(kinds).forEach(function(k){list.appendChild(el('h3',{text:k+' ('+kinds[k].length+')'}));kinds[k].forEach(function(f){shown++;\n"
    "var op=f.operand||{};var d=el('div',{'class':'f '+f.severity,'data-kind':f.kind});\n"
    "d.appendChild(el('div',{'class':'msg'},[el('span',{'class':'sev '+f.severity,text:f.severity}),el('span',{'class':'headline',text:' '+f.headline})]));\n"
    "d.appendChild(el('div',{'class':'kv'},[el('span',{text:'launched at '}),el('code',{text:site(f.launch_python_stack&&f.launch_python_stack.length?f.launch_python_stack:f.launch_stack)}),\n"
    "el('span',{text:(f.alloc_stack&&f.alloc_stack.length?' \\u00b7 allocated at ':'')}),f.alloc_stack&&f.alloc_stack.length?el('code',{text:site(f.alloc_python_stack&&f.alloc_python_stack.length?f.alloc_python_stack:f.alloc_stack)}):null,\n"
    "el('span',{text:' \\u00b7 '+f.count+' time'+(f.count===1?'':'s')})]));\n"
    "if(f.nvtx&&f.nvtx.length)d.appendChild(el('div',{'class':'kv',text:'NVTX: '+f.nvtx.join(' \\u203a ')}));\n"
    "if(op.access)d.appendChild(el('div',{'class':'kv',text:op.access}));\n"
    "if(f.hint)d.appendChild(el('div',{'class':'kv',text:'hint: '+f.hint}));\n"
    "var ps=(f.processes||[]).map(function(x){return 'pid '+x.pid+(x.rank!==null&&x.rank!==undefined?' rank '+x.rank:'')+(x.host?' on '+x.host:'')+' ('+x.count+')';}).join(', ');\n"
    "if(ps)d.appendChild(el('div',{'class':'kv',text:'seen in: '+ps}));\n"
    "d.appendChild(el('details',{},[el('summary',{text:'the report'}),el('pre',{text:f.report})]));\n"
    "list.appendChild(d);});});\n"
    "if(!shown)list.appendChild(el('p',{text:'No findings.'}));document.getElementById('shown').textContent=shown+' of '+fs.length;}\n"
    "rk.onchange=draw;pr.onchange=draw;draw();document.body.setAttribute('data-rendered','1');\n"
    "})();\n";

/* JSON text safe inside <script>: '<' escaped (only strings can hold it). */
static void put_json_script(struct dc_sbuf *o, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '<')
            dc_sput(o, "\\u003c");
        else if (s[i] == '\n')
            dc_sput(o, "%s", i + 1 < n ? "," : "");
        else
            dc_sputn(o, &s[i], 1);
    }
}

void dc_model_html(const struct dc_model *m, struct dc_sbuf *o)
{
    struct dc_sbuf data = { 0 };
    dc_model_jsonl_text(m, &data, 1);
    char sum[1024];
    struct dc_buf b = { sum, sizeof sum, 0, 0 };
    dc_text_summary_for_model(m, &b);
    dc_sput(o, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
               "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
               "<title>devcheck report</title><style>%s</style></head>\n"
               "<body data-rendered=\"0\"><script>window.onerror=function(m){document.body.setAttribute('data-js-error',String(m));};</script>\n"
               "<header><h1>devcheck: device placement report</h1><div class=\"sum\" id=\"sum\" data-text=\"",
            css);
    dc_sxml_str(o, sum + strlen("devcheck: "));
    dc_sput(o, "\"></div></header>\n<main>\n"
               "<section><h2>Device access matrix</h2><p class=\"note\">Rows: the device a kernel was launched on. "
               "Columns: who owns the memory an operand points into. Each cell: operands checked, findings by severity "
               "(E/W/I), bytes migrated.</p><table class=\"m\" id=\"access\"></table></section>\n"
               "<section><h2>Transfer matrix</h2><p class=\"note\">Bytes and calls copied (memcpy, peer copies, "
               "prefetches) from the row to the column, and the top call sites. Host rows and columns are the traffic "
               "between host and devices.</p><table class=\"m\" id=\"transfers\"></table><ul class=\"sites\" id=\"sites\"></ul></section>\n"
               "<section><h2>Findings <span class=\"s\" id=\"shown\"></span></h2>"
               "<div class=\"filters\" id=\"filters\">Filter: <select id=\"rank\"><option value=\"\">all ranks</option></select>"
               "<select id=\"proc\"><option value=\"\">all processes</option></select></div>"
               "<div id=\"findings\"></div></section>\n</main>\n"
               "<script type=\"application/json\" id=\"devcheck-data\">[");
    if (data.p)
        put_json_script(o, data.p, data.len);
    dc_sput(o, "]</script>\n<script>%s</script>\n</body></html>\n", script);
    dc_sfree(&data);
}
