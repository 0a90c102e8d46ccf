/** The dashboard's stylesheet: system fonts, no external resources. */
export const pageCss = `*,*::before,*::after{box-sizing:border-box}
[hidden]{display:none!important}
:root{--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--bg:#fff;--soft:#f6f8fa;--accent:#0b5cad;--bad:#b3261e;--good:#1a7f37;--focus:#0b5cad}
html{font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);background:var(--bg)}
body{margin:0}
.top{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between;padding:.75rem 1.25rem;border-bottom:1px solid var(--line);background:var(--soft)}
h1{font-size:1.25rem;margin:0}
h2{font-size:1.1rem;margin:0 0 .75rem}
#who{display:flex;gap:.75rem;align-items:center}
main{max-width:80rem;margin:0 auto;padding:1rem 1.25rem 3rem}
section{margin:0 0 1.75rem}
.panel{border:1px solid var(--line);border-radius:6px;padding:1rem 1.25rem;background:var(--bg)}
.bar{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin-bottom:.75rem}
.bar h2{margin:0 auto 0 0}
label{display:block;font-weight:600;margin:.25rem 0}
input[type=password],input[type=text],input[type=url]{width:100%;max-width:40rem;font:inherit;padding:.45rem .6rem;border:1px solid #8c959f;border-radius:4px;background:#fff;color:inherit}
input[aria-invalid=true]{border-color:var(--bad);border-width:2px}
button{font:inherit;padding:.4rem .8rem;border:1px solid #8c959f;border-radius:4px;background:#fff;color:var(--fg);cursor:pointer;margin:.15rem .25rem .15rem 0}
button:hover{background:var(--soft)}
button[type=submit],.primary{background:var(--accent);border-color:var(--accent);color:#fff}
button[type=submit]:hover,.primary:hover{background:#084a8c}
button.danger{color:var(--bad);border-color:var(--bad)}
button[aria-disabled=true],button:disabled{opacity:.6;cursor:progress}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
h2:focus{outline:none}
h2:focus-visible{outline:3px solid var(--focus)}
.muted{color:var(--muted)}
.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.875rem}
.small{font-size:.875rem}
.err{color:var(--bad);font-weight:600;margin:.25rem 0 .5rem}
.err::before{content:"\\26A0\\FE0E  "}
#status{min-height:1.5rem;margin:0 0 1rem;padding:.5rem .75rem;border-left:4px solid transparent}
#status:empty{padding:0;border:0}
#status.good{border-color:var(--good);background:#eef8f0}
#status.bad{border-color:var(--bad);background:#fdf0ef}
#status.info{border-color:var(--accent);background:#eef4fb}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:.925rem}
th,td{text-align:left;vertical-align:top;padding:.5rem .6rem;border-bottom:1px solid var(--line)}
thead th{background:var(--soft);font-weight:600;white-space:nowrap}
tbody th{font-weight:500;overflow-wrap:anywhere;min-width:12rem}
.events{margin:0;padding:0;list-style:none}
.events li{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85rem}
.dot{display:inline-block;width:.8rem;height:.8rem;border-radius:50%;margin-right:.4rem;vertical-align:-.05rem;border:1px solid rgba(0,0,0,.35)}
.dot.green{background:#2e9e44}.dot.yellow{background:#e3b500}.dot.red{background:#d32f2f}.dot.gray{background:#8c959f}
.health{white-space:nowrap;font-weight:600}
.state{display:inline-block;padding:.05rem .45rem;border-radius:999px;border:1px solid var(--line);font-size:.85rem;white-space:nowrap}
.state.delivered{background:#eef8f0;border-color:#8fd19e}.state.failed{background:#fdf0ef;border-color:#f0a39d}
.state.retrying,.state.pending{background:#fff8e1;border-color:#f0d58a}
.actions{min-width:13rem}
.actions .note{display:block;white-space:normal;max-width:18rem;font-size:.85rem;margin-top:.25rem}
.note.good{color:var(--good)}.note.bad{color:var(--bad)}
fieldset{border:1px solid var(--line);border-radius:6px;margin:1rem 0 .5rem;padding:.5rem 1rem 1rem;max-width:56rem}
fieldset[aria-invalid=true]{border-color:var(--bad);border-width:2px}
legend{font-weight:600;padding:0 .35rem}
fieldset fieldset{border:0;padding:0;margin:.5rem 0 0}
fieldset fieldset legend{padding:0;font-size:.95rem;text-transform:capitalize;color:var(--muted)}
.check{display:flex;gap:.5rem;align-items:baseline;padding:.15rem 0}
.check label{display:inline;font-weight:500;margin:0;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9rem}
.check input{width:1.05rem;height:1.05rem;margin:0}
.secret{border:2px solid var(--accent);background:#eef4fb}
.secret .important{font-weight:600}
.secret input{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.pager{display:flex;gap:.75rem;align-items:center;margin-top:.75rem}
.sr{position:absolute!important;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
@media (prefers-reduced-motion:no-preference){button{transition:background .1s}}
`;
