import { Hono } from 'hono';

/**
 * The dashboard's only two static files, served from this origin (no CDN, no bundler: the
 * emulator works offline). Kept as strings so they ship with the code wherever it is installed.
 */
const CSS = `
:root { --fg: #1d2330; --muted: #5d6675; --line: #d9dee7; --accent: #2f5bd3; --bad: #b42318; --good: #137333; --bg: #f6f7f9; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; gap: 24px; align-items: center; padding: 10px 20px; background: #fff; border-bottom: 1px solid var(--line); }
header .brand { font-weight: 700; color: var(--fg); text-decoration: none; }
nav { display: flex; gap: 4px; flex-wrap: wrap; }
nav a { padding: 4px 10px; border-radius: 6px; color: var(--muted); text-decoration: none; }
nav a.current, nav a:hover { background: var(--bg); color: var(--fg); }
main { padding: 16px 20px 40px; max-width: 1200px; }
h1 { font-size: 20px; margin: 4px 0 12px; }
h2 { font-size: 16px; margin: 20px 0 8px; }
a { color: var(--accent); }
table { border-collapse: collapse; width: 100%; background: #fff; border: 1px solid var(--line); }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); background: #fafbfc; }
tr.unread td { font-weight: 600; }
.muted { color: var(--muted); }
.snippet { color: var(--muted); font-weight: 400; }
.badge { display: inline-block; padding: 0 6px; border-radius: 10px; font-size: 12px; background: var(--bg); border: 1px solid var(--line); }
.badge.ok, .badge.succeeded, .badge.active { color: var(--good); border-color: #b7dfc2; }
.badge.bad, .badge.failed, .badge.paused, .badge.disabled { color: var(--bad); border-color: #f1b9b3; }
.badge.pending { color: #8a5a00; border-color: #ecd38f; }
form.filters, form.card { display: flex; flex-wrap: wrap; gap: 8px 12px; align-items: end; background: #fff; border: 1px solid var(--line); padding: 10px; margin: 0 0 12px; }
form.inline { display: inline; margin: 0; }
label { display: flex; flex-direction: column; gap: 2px; font-size: 12px; color: var(--muted); }
input, select, button { font: inherit; padding: 4px 6px; border: 1px solid var(--line); border-radius: 4px; background: #fff; color: var(--fg); }
button { cursor: pointer; background: var(--accent); color: #fff; border-color: var(--accent); }
button.secondary { background: #fff; color: var(--fg); border-color: var(--line); }
button.danger { background: #fff; color: var(--bad); border-color: #f1b9b3; }
.error { color: var(--bad); background: #fdecea; border: 1px solid #f1b9b3; padding: 6px 10px; }
.notice { color: var(--good); background: #e9f6ec; border: 1px solid #b7dfc2; padding: 6px 10px; }
.secret { font: 13px ui-monospace, monospace; background: #fff8e1; border: 1px solid #ecd38f; padding: 8px; word-break: break-all; }
pre { background: #fff; border: 1px solid var(--line); padding: 8px; overflow: auto; max-height: 420px; white-space: pre-wrap; word-break: break-all; font: 12px/1.4 ui-monospace, monospace; }
iframe.mail { width: 100%; height: 480px; border: 1px solid var(--line); background: #fff; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; background: #fff; border: 1px solid var(--line); padding: 8px; }
table.headers th { width: 14em; white-space: nowrap; }
dl.meta dt { color: var(--muted); }
dl.meta dd { margin: 0; }
details { background: #fff; border: 1px solid var(--line); margin: 6px 0; padding: 6px 8px; }
summary { cursor: pointer; }
.pager { display: flex; gap: 12px; margin: 8px 0; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(320px, 1fr)); gap: 12px; }
.card-box { background: #fff; border: 1px solid var(--line); padding: 10px; }
.card-box ul { margin: 6px 0 0; padding-left: 18px; }
.card-box h2 { margin-top: 0; }
[hidden] { display: none !important; }
h1, td, dd, .snippet { overflow-wrap: anywhere; }
.table-wrap { overflow-x: auto; max-width: 100%; }
.email-actions { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin: 0 0 12px; }
.email-actions form.move { display: inline-flex; gap: 6px; align-items: end; }
.email-actions details.delete { margin: 0; padding: 4px 8px; }
.email-actions details.delete[open] form { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin-top: 6px; }
[role="tablist"] { display: flex; flex-wrap: wrap; gap: 2px; margin: 16px 0 0; border-bottom: 1px solid var(--line); }
[role="tab"] { padding: 6px 12px; border: 1px solid transparent; border-bottom: none; border-radius: 6px 6px 0 0; color: var(--muted); text-decoration: none; }
[role="tab"][aria-selected="true"] { background: #fff; border-color: var(--line); color: var(--fg); font-weight: 600; margin-bottom: -1px; }
[role="tab"]:focus-visible, [role="tabpanel"]:focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
[role="tabpanel"] { background: #fff; border: 1px solid var(--line); border-top: none; padding: 10px; }
[role="tabpanel"] > pre, [role="tabpanel"] > .table-wrap > table { border: none; }
/* A phone (390 px): the header wraps, the mailbox list becomes one card per email, the
   email's fields stack; any other table scrolls inside its own box, never the page. */
@media (max-width: 640px) {
  header { flex-wrap: wrap; gap: 4px 12px; padding: 8px 12px; }
  main { padding: 12px 12px 32px; }
  table.emails thead { display: none; }
  table.emails, table.emails tbody, table.emails tr, table.emails td { display: block; }
  table.emails tr { padding: 6px 8px; border-bottom: 1px solid var(--line); }
  table.emails td { padding: 0; border: none; }
  table.emails td:empty { display: none; }
  table.emails td.folder, table.emails td.files, table.emails td.star { display: inline-block; margin-right: 8px; }
  dl.meta { grid-template-columns: 1fr; }
  dl.meta dd { margin-bottom: 4px; }
  .cards { grid-template-columns: 1fr; }
  iframe.mail { height: 360px; }
  table.headers th { width: auto; white-space: normal; }
}
`;

const LIVE_JS = `
// mailtwin dashboard: live updates over Server-Sent Events, and forms sent without leaving the
// page. A page lists the topics it shows in <body data-live>; when an event names one of them,
// the page fetches itself again and swaps its #live region (the server renders everything).
(() => {
  const body = document.body;
  const topics = (body.dataset.live || '').split(' ').filter(Boolean);
  let refreshing = false;
  let again = false;
  async function refresh() {
    if (refreshing) { again = true; return; }
    refreshing = true;
    try {
      const response = await fetch(location.href, { headers: { Accept: 'text/html' } });
      if (response.ok) {
        const fresh = new DOMParser().parseFromString(await response.text(), 'text/html').getElementById('live');
        const live = document.getElementById('live');
        // What the reader opened stays open: <details> keep their state across a refresh.
        const open = new Set(Array.from(document.querySelectorAll('details[id][open]'), (d) => d.id));
        if (fresh && live) live.replaceChildren(...Array.from(fresh.childNodes));
        for (const id of open) document.getElementById(id)?.setAttribute('open', '');
        body.dataset.refreshes = String(Number(body.dataset.refreshes || 0) + 1);
      }
    } finally {
      refreshing = false;
      if (again) { again = false; void refresh(); }
    }
  }
  // A hidden tab lets its stream go: browsers allow about six connections per origin, and
  // every open tab holding one would leave the others' pages waiting. Back in view, it listens
  // again and refreshes once for whatever happened meanwhile.
  let source = null;
  function listen() {
    source = new EventSource('/dashboard/events');
    source.addEventListener('ready', () => { body.dataset.liveReady = 'true'; });
    source.addEventListener('change', (event) => {
      const touched = JSON.parse(event.data).topics;
      if (touched.some((topic) => topics.includes(topic))) void refresh();
    });
  }
  if (topics.length > 0) {
    listen();
    document.addEventListener('visibilitychange', () => {
      if (document.hidden && source) {
        source.close();
        source = null;
        body.dataset.liveReady = 'false';
      } else if (!document.hidden && !source) {
        listen();
        void refresh();
      }
    });
  }
  // Tabs (the email page): links that work without script (?tab=), switched in place with
  // it; arrow keys, Home and End move between tabs (WAI-ARIA Authoring Practices, Tabs).
  function selectTab(tab, focus) {
    const list = tab.closest('[role="tablist"]');
    if (!list) return;
    for (const other of list.querySelectorAll('[role="tab"]')) {
      const selected = other === tab;
      other.setAttribute('aria-selected', String(selected));
      other.tabIndex = selected ? 0 : -1;
      const panel = document.getElementById(other.getAttribute('aria-controls') || '');
      if (panel) panel.hidden = !selected;
    }
    if (focus) tab.focus();
    const url = new URL(tab.href);
    history.replaceState(null, '', url.pathname + url.search);
  }
  const tabOf = (event) => (event.target instanceof Element ? event.target.closest('[role="tab"]') : null);
  document.addEventListener('click', (event) => {
    const tab = tabOf(event);
    if (!tab || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey) return;
    event.preventDefault();
    selectTab(tab, false);
  });
  document.addEventListener('keydown', (event) => {
    const tab = tabOf(event);
    const list = tab && tab.closest('[role="tablist"]');
    if (!list) return;
    const tabs = Array.from(list.querySelectorAll('[role="tab"]'));
    const i = tabs.indexOf(tab);
    const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    selectTab(tabs[(to + tabs.length) % tabs.length], true);
  });
  document.addEventListener('submit', async (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute('data-async')) return;
    event.preventDefault();
    const flash = document.getElementById('flash');
    const response = await fetch(form.action, {
      method: 'POST',
      body: new URLSearchParams(new FormData(form)),
      headers: { 'X-Dashboard-Async': '1' },
    });
    if (flash) {
      flash.hidden = response.ok;
      flash.textContent = response.ok ? '' : await response.text();
    }
  });
})();
`;

/** `/dashboard/assets/*`: the stylesheet and the live-update script. */
export function assetRoutes(): Hono {
  const app = new Hono();
  const headers = (type: string) => ({
    'Content-Type': `${type}; charset=utf-8`,
    'Cache-Control': 'no-cache',
    'X-Content-Type-Options': 'nosniff',
  });
  app.get('/dashboard.css', (c) => c.body(CSS, 200, headers('text/css')));
  app.get('/live.js', (c) => c.body(LIVE_JS, 200, headers('text/javascript')));
  return app;
}
