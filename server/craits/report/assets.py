"""The report's stylesheet and the viewer's script, inlined into every page.

Kept as Python strings (not package data files) so they install with the code and each page
works alone from disk: no server, no network, no CDN, system fonts only. The script is a viewer
and nothing more: the states it shows are computed in Python (``frames``); it rebuilds them from
their patches, draws one, and moves between them on buttons, keys and the ``#step=N``,
``#move=N`` or ``#hand=N`` part of the address.
"""

from __future__ import annotations

from typing import Final

STYLE: Final = """
:root{--ink:#1d2433;--muted:#667085;--line:#dde2ea;--bg:#f5f6f8;--panel:#fff;
--accent:#2458d3;--felt:#1d6b47;--gold:#ffd54a}
*{box-sizing:border-box}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
color:var(--ink);background:var(--bg)}
a{color:var(--accent)}
header.top{background:var(--ink);color:#fff;padding:14px 24px}
header.top h1{margin:0;font-size:20px;font-weight:650}
header.top p{margin:3px 0 0;color:#c3c9d4;font-size:13px}
header.top a{color:#a9c6ff}
main{max-width:1200px;margin:0 auto;padding:8px 24px 40px}
.panel{background:var(--panel);border:1px solid var(--line);border-radius:8px;
padding:12px 16px;margin:14px 0;overflow-x:auto}
h2{font-size:16px;margin:0 0 8px}
p.note{color:var(--muted);font-size:13px;margin:6px 0 0}
span.note{color:var(--muted);font-size:12px}
table{border-collapse:collapse;font-variant-numeric:tabular-nums}
th,td{padding:4px 10px;border-bottom:1px solid var(--line);text-align:right;white-space:nowrap}
th{font-weight:600;color:var(--muted);font-size:13px}
th.name,td.name{text-align:left}
tbody tr:hover{background:#f0f4fb}
.matrix td{text-align:center;min-width:70px}
.win{font-weight:650}
.warn{color:#b54708}
svg text{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;fill:var(--ink)}
.controls{display:flex;gap:6px;align-items:center;flex-wrap:wrap}
button{font:inherit;padding:4px 11px;border:1px solid var(--line);border-radius:6px;
background:#fff;cursor:pointer}
button:hover{background:#eef2f8}
#slider{flex:1;min-width:180px}
#pos{font-variant-numeric:tabular-nums;color:var(--muted);min-width:210px}
.board{display:grid;grid-template-columns:minmax(0,1fr) 340px;gap:14px;margin-top:14px;
align-items:start}
@media (max-width:900px){.board{grid-template-columns:1fr}}
.felt{background:var(--felt);border-radius:12px;padding:14px;color:#fff}
.pile{display:flex;gap:20px;align-items:center;padding:10px 12px;margin-bottom:12px;
background:rgba(0,0,0,.18);border-radius:10px}
.pile dl{display:grid;grid-template-columns:auto auto auto auto;gap:3px 14px;margin:0}
.pile dt{color:#bfe3cf;font-size:13px}
.pile dd{margin:0;font-weight:600}
.seat{background:rgba(255,255,255,.08);border:2px solid transparent;border-radius:10px;
padding:7px 10px;margin-bottom:8px}
.seat.act{border-color:var(--gold);background:rgba(255,255,255,.14)}
.who{display:flex;gap:10px;align-items:baseline;flex-wrap:wrap}
.who b{font-size:15px}
.badge{font-size:11px;background:rgba(255,255,255,.22);border-radius:4px;padding:0 6px}
.badge.hot{background:var(--gold);color:var(--ink)}
.pts{margin-left:auto;font-variant-numeric:tabular-nums}
.cards{display:flex;flex-wrap:wrap;gap:4px;margin-top:6px;min-height:46px}
.card{display:inline-flex;align-items:center;justify-content:center;width:34px;height:46px;
background:#fff;color:#1d2433;border-radius:5px;font-weight:700;font-size:14px;
box-shadow:0 1px 2px rgba(0,0,0,.45)}
.card.red{color:#c62828}
.card.big{width:58px;height:80px;font-size:22px}
.empty{color:#bfe3cf;font-size:13px;align-self:center}
#log{margin:0;padding-left:20px}
#log li.warn{color:#b54708}
#log li.mv{font-weight:650;list-style:none;margin-left:-20px}
#scores td.out{color:#1d6b47;font-weight:650}
"""

VIEWER_JS: Final = r"""
(() => {
"use strict";
const D = JSON.parse(document.getElementById("game-data").textContent);
const SUIT = {C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660"};
const SUIT_NAME = {C: "clubs", D: "diamonds", H: "hearts", S: "spades"};
const states = [];
let prev = {h: []};
for (const patch of D.frames) {
  const s = Object.assign({}, prev, {log: [], mv: null}, patch);
  s.h = prev.h.slice();
  for (const seat in patch.h || {}) s.h[Number(seat)] = patch.h[seat];
  states.push(s);
  prev = s;
}
const $ = (id) => document.getElementById(id);
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
const plural = (n, word) => n + " " + word + (n === 1 ? "" : "s");
function card(text, big) {
  const suit = text.slice(-1);
  const e = el("span", "card" + ("DH".includes(suit) ? " red" : "") + (big ? " big" : ""),
               text.slice(0, -1) + SUIT[suit]);
  e.title = text;
  return e;
}
function seatBox(s, i) {
  const box = el("div", "seat" + (s.act === i ? " act" : ""));
  box.id = "seat-" + i;
  const cards = s.h[i] ? s.h[i].split(" ") : [];
  box.dataset.cards = cards.join(" ");
  const who = el("div", "who");
  who.append(el("b", "", D.seats[i]), el("span", "badge", "seat " + i));
  if (s.dl === i) who.append(el("span", "badge", "dealer"));
  if (s.act === i) who.append(el("span", "badge hot", "to act"));
  if (s.ff[i]) who.append(el("span", "badge", "forfeits " + plural(s.ff[i], "turn")));
  if (s.pr[i]) who.append(el("span", "badge", "pressure \u00d7" + s.pr[i]));
  who.append(el("span", "pts", plural(cards.length, "card") + " \u00b7 " + s.tot[i] + " pts"));
  const row = el("div", "cards");
  if (cards.length) cards.forEach((c) => row.append(card(c)));
  else row.append(el("span", "empty", "no cards"));
  box.append(who, row);
  return box;
}
function pile(s) {
  const top = $("top");
  top.replaceChildren(s.top ? card(s.top, true) : el("span", "empty", "none"));
  top.dataset.card = s.top;
  const facts = {
    "suit": SUIT[s.su] + " " + SUIT_NAME[s.su],
    "count": s.cnt ? String(s.cnt) : "\u2014",
    "jacks": s.jk ? s.jk + " cards pending" : "\u2014",
    "king": s.kg ? s.kg + " more to play" : "\u2014",
    "dir": s.dir > 0 ? "clockwise \u21bb" : "counter-clockwise \u21ba",
    "phase": s.ph.replace("_", " "),
    "stock": String(s.stk),
    "discard": String(s.dsc),
  };
  for (const k in facts) $(k).textContent = facts[k];
}
function log(s) {
  const items = [];
  if (s.mv) {
    const t = "move " + s.n + ": " + D.seats[s.mv.s] + " \u2192 " + s.mv.m +
      (s.mv.ms !== null ? " (" + s.mv.ms + " ms)" : "") +
      (s.mv.d ? " [chosen by the referee]" : "");
    items.push(el("li", "mv", t));
  }
  s.log.forEach((line) => items.push(el("li", line.startsWith("!") ? "warn" : "", line)));
  $("log").replaceChildren(...items);
}
function scores(s, at) {
  const head = el("tr");
  head.append(el("th", "name", "hand"), ...D.seats.map((n) => el("th", "", n)));
  const rows = [head];
  for (const h of D.hands) {
    if (h.end === undefined || h.end > at) continue;
    const tr = el("tr");
    tr.append(el("td", "name", String(h.n)));
    h.scores.forEach((v, k) => tr.append(
      el("td", h.out.includes(k) ? "out" : "", (v > 0 ? "+" : "") + v)));
    rows.push(tr);
  }
  const total = el("tr");
  total.append(el("th", "name", "total"), ...s.tot.map((v) => el("th", "", String(v))));
  rows.push(total);
  $("scores").replaceChildren(...rows);
}
let at = 0;
function show(i) {
  at = Math.max(0, Math.min(states.length - 1, i));
  const s = states[at];
  $("seats").replaceChildren(...D.seats.map((_, k) => seatBox(s, k)));
  pile(s);
  log(s);
  scores(s, at);
  const label = {deal: "deal", move: "move " + s.n, end: "hand over", over: "game over"}[s.k];
  $("pos").textContent = "step " + at + "/" + (states.length - 1) + " \u00b7 hand " + s.hn +
    "/" + D.hands.length + " \u00b7 " + label;
  document.body.dataset.step = String(at);
  document.body.dataset.move = String(s.n);
  $("slider").value = String(at);
  try { history.replaceState(null, "", "#step=" + at); } catch (e) { /* file: may refuse */ }
}
function handStart(s) {
  let i = D.hands.length - 1;
  while (i > 0 && D.hands[i].first > s) i--;
  return i;
}
const go = {
  first: () => show(0),
  prevhand: () => {
    const i = handStart(at);
    show(D.hands[D.hands[i].first < at ? i : Math.max(0, i - 1)].first);
  },
  prev: () => show(at - 1),
  next: () => show(at + 1),
  nexthand: () => {
    const i = handStart(at) + 1;
    show(i < D.hands.length ? D.hands[i].first : states.length - 1);
  },
  last: () => show(states.length - 1),
};
function fromHash() {
  const m = /^#(step|move|hand)=(\d+)$/.exec(location.hash);
  if (!m) return 0;
  const n = Number(m[2]);
  if (m[1] === "step") return n;
  if (m[1] === "hand") return D.hands[Math.max(0, Math.min(D.hands.length, n) - 1)].first;
  const i = states.findIndex((s) => s.n >= n);
  return i < 0 ? states.length - 1 : i;
}
for (const id in go) $(id).addEventListener("click", go[id]);
$("slider").max = String(states.length - 1);
$("slider").addEventListener("input", (e) => show(Number(e.target.value)));
const KEYS = {ArrowRight: "next", ArrowLeft: "prev", PageDown: "nexthand", PageUp: "prevhand",
  n: "nexthand", p: "prevhand", Home: "first", End: "last"};
document.addEventListener("keydown", (e) => {
  if (KEYS[e.key] && e.target.tagName !== "INPUT") { e.preventDefault(); go[KEYS[e.key]](); }
});
window.addEventListener("hashchange", () => show(fromHash()));
show(fromHash());
})();
"""
