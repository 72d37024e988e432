/** The dashboard's one stylesheet, served by leadline itself (no CDN, no build step). */
export const STYLE = `
:root { --fg:#1b2431; --muted:#566173; --line:#d7dce4; --bg:#f4f6f9; --card:#fff; --accent:#1d5bbf; --accent-d:#164a9c;
  --danger:#b42318; --ok:#157f3b; --warn:#9a5b00; }
* { box-sizing: border-box; }
html { font-size: 15px; }
body { margin: 0; font: 1rem/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color: var(--fg); background: var(--bg); }
a { color: var(--accent-d); }
:focus-visible { outline: 3px solid #f5a524; outline-offset: 2px; }
.skip { position: absolute; left: -9999px; }
.skip:focus { left: 8px; top: 8px; background: #fff; padding: 8px 12px; z-index: 10; }
header.top { background: #152030; color: #fff; display: flex; align-items: center; gap: 20px; padding: 0 24px; min-height: 52px; flex-wrap: wrap; }
header.top .brand { font-weight: 700; font-size: 1.1rem; color: #fff; text-decoration: none; }
header.top .brand small { font-weight: 400; color: #9fb0c6; margin-left: 6px; }
nav.main { display: flex; gap: 4px; }
nav.main a { color: #c8d3e2; text-decoration: none; padding: 14px 10px; }
nav.main a:hover { color: #fff; }
nav.main a[aria-current="page"] { color: #fff; box-shadow: inset 0 -3px 0 #6aa5ff; }
header.top .who { margin-left: auto; display: flex; gap: 12px; align-items: center; color: #c8d3e2; font-size: .93rem; }
header.top .who a { color: #c8d3e2; }
header.top .who a:hover, header.top .who a[aria-current="page"] { color: #fff; }
header.top .who form { margin: 0; }
header.top .who button { background: transparent; border-color: #5b6b82; color: #e3eaf4; padding: 4px 10px; }
main { max-width: 1200px; margin: 0 auto; padding: 24px; }
h1 { font-size: 1.6rem; margin: 0 0 4px; }
h1 + .sub { color: var(--muted); margin: 0 0 20px; }
h2 { font-size: 1.15rem; margin: 28px 0 10px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 16px 20px; margin-bottom: 16px; }
.card h2:first-child { margin-top: 0; }
table + .card, table + .pager { margin-top: 20px; }
table { width: 100%; border-collapse: collapse; background: var(--card); border: 1px solid var(--line); }
th, td { text-align: left; padding: 8px 10px; border-bottom: 1px solid var(--line); vertical-align: middle; }
th { font-size: .8rem; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); font-weight: 600; background: #edf0f4; }
tbody tr:hover { background: #f8fafc; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
td.empty { color: var(--muted); text-align: center; padding: 24px; }
/* Next up: why a lead is held back, one reason a line */
td ul.reasons { margin: 4px 0 0; padding-left: 1.1em; }
.badge { display: inline-block; padding: 0 9px; border-radius: 999px; font-size: .85rem; font-weight: 600; border: 1px solid; white-space: nowrap; }
.badge.raw { color: #3d4a5c; background: #eef1f5; border-color: #c9d0da; }
.badge.attempting { color: #0b4ea2; background: #e8f1ff; border-color: #a9c8f5; }
.badge.exhausted { color: #8a4b00; background: #fff4e0; border-color: #f0c98a; }
.badge.concluded, .badge.active, .badge.enabled, .badge.listed, .badge.ok { color: #126b33; background: #e8f7ee; border-color: #9fd8b4; }
.badge.revoked, .badge.disabled, .badge.failed { color: #8f1c13; background: #fdeceb; border-color: #f0b2ac; }
form { margin: 0; }
.field { margin: 0 0 14px; }
.field label, .field legend { display: block; font-weight: 600; margin-bottom: 4px; }
.field .hint { color: var(--muted); font-size: .9rem; margin-top: 2px; }
.field .field-error { color: var(--danger); font-size: .9rem; margin-top: 2px; }
.field [aria-invalid="true"] { border-color: var(--danger); }
fieldset.field { border: 0; padding: 0; }
fieldset.field label { font-weight: 400; display: inline-flex; gap: 6px; margin-right: 18px; }
input[type=text], input[type=email], input[type=password], input[type=url], input[type=number], input[type=search], select, textarea {
  font: inherit; padding: 7px 10px; border: 1px solid #aeb8c5; border-radius: 6px; width: 100%; max-width: 440px; background: #fff; color: var(--fg); }
.toolbar { display: flex; gap: 10px; align-items: flex-end; flex-wrap: wrap; margin-bottom: 12px; }
.toolbar .field { margin: 0; }
.toolbar input, .toolbar select { width: auto; }
button, .button { font: inherit; padding: 7px 14px; border-radius: 6px; border: 1px solid var(--accent-d); background: var(--accent);
  color: #fff; cursor: pointer; text-decoration: none; display: inline-block; line-height: 1.4; }
button:hover, .button:hover { background: var(--accent-d); }
.button.secondary, button.secondary { background: #fff; color: var(--accent-d); border-color: #aeb8c5; }
.button.secondary:hover, button.secondary:hover { background: #eef3fb; }
button.danger, .button.danger { background: var(--danger); border-color: #8f1c13; color: #fff; }
button.small, .button.small { padding: 2px 10px; font-size: .9rem; }
.actions { display: flex; gap: 10px; align-items: center; margin-top: 16px; }
.notice { border-left: 4px solid; padding: 10px 14px; background: #fff; margin: 0 0 16px; border-radius: 0 6px 6px 0; }
.notice.error { border-color: var(--danger); background: #fdf0ef; }
.notice.warn { border-color: var(--warn); background: #fff6e4; }
.notice.ok { border-color: var(--ok); background: #edf9f1; }
.notice p { margin: 4px 0; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9rem; }
.secret { display: flex; gap: 10px; align-items: center; flex-wrap: wrap; margin: 10px 0; }
.secret code { padding: 8px 12px; background: #0f1722; color: #e7f0ff; border-radius: 6px; font-size: 1rem; word-break: break-all; }
.stats { display: grid; grid-template-columns: repeat(auto-fit, minmax(150px, 1fr)); gap: 12px; margin-bottom: 8px; }
.stat { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; }
.stat .n { font-size: 1.9rem; font-weight: 700; font-variant-numeric: tabular-nums; }
.stat .l { color: var(--muted); font-size: .8rem; text-transform: uppercase; letter-spacing: .04em; }
.muted { color: var(--muted); }
dl.props { display: grid; grid-template-columns: minmax(140px, 220px) 1fr; gap: 6px 16px; margin: 0; }
dl.props dt { color: var(--muted); }
dl.props dd { margin: 0; }
pre { background: #0f1722; color: #e7f0ff; padding: 12px; border-radius: 6px; overflow: auto; margin: 0; }
.pager { display: flex; gap: 10px; align-items: center; margin-top: 12px; }
.tabs { display: flex; gap: 4px; border-bottom: 1px solid var(--line); margin-bottom: 18px; }
.tabs a { padding: 8px 14px; text-decoration: none; color: var(--muted); }
.tabs a[aria-current="page"] { color: var(--fg); box-shadow: inset 0 -3px 0 var(--accent); font-weight: 600; }
.columns { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 16px; }
.signin { max-width: 400px; margin: 72px auto; }
.signin .brand { font-size: 1.4rem; font-weight: 700; margin-bottom: 12px; }
.signin input { max-width: none; }
td { overflow-wrap: anywhere; }
figure.chart { margin: 0 0 8px; background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px; }
figure.chart > svg { width: 100%; height: 180px; display: block; }
figure.chart text { font-size: 11px; fill: var(--muted); }
figure.chart figcaption { font-size: .9rem; margin-top: 6px; display: flex; flex-wrap: wrap; gap: 4px 14px; }
figure.chart .key { display: inline-flex; align-items: center; gap: 5px; }
/* A phone (390 px): nothing scrolls sideways. A table's rows become stacked cards, each cell labelled
   with its column (data-label, set by layout.ts); the header row stays for screen readers only. */
@media (max-width: 640px) {
  main { padding: 16px 12px; }
  header.top { padding: 0 12px; gap: 8px; }
  header.top .who { margin-left: 0; flex-wrap: wrap; }
  nav.main { flex-wrap: wrap; }
  nav.main a { padding: 10px 8px; }
  .columns { grid-template-columns: 1fr; }
  .card { padding: 12px 14px; }
  dl.props { grid-template-columns: 1fr; }
  table, thead, tbody, tr, td { display: block; width: 100%; }
  table { border: 0; background: transparent; }
  thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
  tbody tr { background: var(--card); border: 1px solid var(--line); border-radius: 8px; margin-bottom: 10px; padding: 6px 0; }
  td { border: 0; padding: 4px 12px; display: flex; gap: 12px; justify-content: space-between; align-items: baseline; text-align: right; }
  td[data-label]::before { content: attr(data-label); color: var(--muted); font-size: .8rem; text-transform: uppercase;
    letter-spacing: .04em; font-weight: 600; text-align: left; flex: none; }
  td[data-label=""]::before { content: none; }
  td.empty { display: block; text-align: center; }
  .toolbar input, .toolbar select { width: 100%; }
  .toolbar .field { flex: 1 1 100%; }
}
`;
