"use strict";
const DATA = JSON.parse(document.getElementById("replay-data").textContent);
const STEPS = DATA.steps;
const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const SUIT_CHARS = "\u2663\u2666\u2665\u2660";  // clubs diamonds hearts spades, as card = suit * 13 + rank
const RED = "#c81a2c", BLACK = "#18181c";
let index = 0, timer = null;

function esc(s) { return String(s).replace(/[&<>"]/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"})[c]); }
function suitShape(suit, x, y, size, color) {
  const t = `translate(${x} ${y}) scale(${size})`;
  if (suit === 1) return `<path transform="${t}" fill="${color}" d="M0,-0.5 L0.38,0 L0,0.5 L-0.38,0 Z"/>`;
  if (suit === 2) return `<path transform="${t}" fill="${color}" d="M0,0.48 C-0.75,-0.05 -0.45,-0.7 0,-0.22 C0.45,-0.7 0.75,-0.05 0,0.48 Z"/>`;
  if (suit === 3) return `<path transform="${t}" fill="${color}" d="M0,-0.5 C-0.75,0.0 -0.42,0.55 0,0.14 C0.42,0.55 0.75,0.0 0,-0.5 Z M0,0.05 L-0.22,0.5 L0.22,0.5 Z"/>`;
  return `<g transform="${t}" fill="${color}"><circle cx="0" cy="-0.25" r="0.22"/><circle cx="-0.25" cy="0.1" r="0.22"/>` +
    `<circle cx="0.25" cy="0.1" r="0.22"/><circle cx="0" cy="0" r="0.16"/><path d="M0,-0.05 L-0.2,0.5 L0.2,0.5 Z"/></g>`;
}
function suitIcon(ch) {
  const suit = SUIT_CHARS.indexOf(ch);
  const color = suit === 1 || suit === 2 ? "#ff6e6e" : "currentColor";
  return `<svg class="suit" viewBox="-0.5 -0.5 1 1" role="img"><title>${ch}</title>${suitShape(suit, 0, 0, 1, color)}</svg>`;
}
function rich(text) {  // escaped text, suit symbols as inline SVG (their <title> keeps the symbol in the text)
  let out = "";
  for (const ch of String(text)) out += SUIT_CHARS.includes(ch) ? suitIcon(ch) : esc(ch);
  return out;
}
function cardSvg(card, mark) {
  const cls = "card" + (mark ? " " + mark : "");
  if (card < 0) {
    return `<svg class="${cls}" viewBox="0 0 62 88" role="img"><title>face down</title>` +
      `<rect x="0.5" y="0.5" width="61" height="87" rx="7" fill="url(#lattice)" stroke="#787878"/>` +
      `<rect x="5" y="5" width="52" height="78" rx="4" fill="none" stroke="#fcfbf6" stroke-width="2"/></svg>`;
  }
  const suit = Math.floor(card / 13), rank = card % 13, color = suit === 1 || suit === 2 ? RED : BLACK;
  const name = (rank === 9 ? "T" : RANKS[rank]) + SUIT_CHARS[suit];
  return `<svg class="${cls}" viewBox="0 0 62 88" role="img" data-card="${name}"><title>${name}</title>` +
    `<rect x="0.5" y="0.5" width="61" height="87" rx="7" fill="#fcfbf6" stroke="#787878"/>` +
    `<text x="6" y="22" font-size="21" font-weight="bold" fill="${color}">${RANKS[rank]}</text>` +
    suitShape(suit, 14, 36, 13, color) + suitShape(suit, 38, 62, 30, color) + `</svg>`;
}
function rowHtml(row) {
  let head = `<span class="who${row.to_act ? " act" : ""}">${esc(row.name)}</span>`;
  if (row.to_act) head += `<span class="badge">to act</span>`;
  head += `<span class="info">${rich(row.info)}</span>`;
  const groups = row.groups.map(g =>
    `<div class="group ${g.kind}">` + g.cards.map(([c, m]) => cardSvg(c, m)).join("") + `</div>`).join("");
  return `<div>${head}</div><div class="cards">${groups}</div>`;
}
function show(i) {
  index = Math.max(0, Math.min(STEPS.length - 1, i));
  const step = STEPS[index], m = step.model;
  document.getElementById("heading").innerHTML = rich(step.heading);
  document.getElementById("counter").textContent = `step ${index + 1} / ${STEPS.length}`;
  document.getElementById("slider").value = index + 1;
  document.getElementById("title").innerHTML = rich(m.title);
  document.getElementById("scores").innerHTML = m.scores ? rich(m.scores) : "";
  document.getElementById("row0").innerHTML = rowHtml(m.rows[0]);
  document.getElementById("row1").innerHTML = rowHtml(m.rows[1]);
  document.getElementById("stock-label").textContent = `Stock: ${m.stock}`;
  document.getElementById("stock").innerHTML = cardSvg(-1, "");
  document.getElementById("pile-label").textContent = m.pile.label + (m.pile.note ? ` - ${m.pile.note}` : "");
  const below = m.pile.below.slice(0, 6).reverse();
  document.getElementById("pile").innerHTML = m.pile.top === null ? `<div class="empty"></div>` :
    below.map(c => cardSvg(c, "")).join("") + cardSvg(m.pile.top, "");
  document.getElementById("notes").innerHTML = m.notes.map(n => `<div>${rich(n)}</div>`).join("");
  const panel = document.getElementById("panel"), lines = document.getElementById("panel-lines");
  const result = document.getElementById("result");
  if (m.showdown.length) {
    panel.className = "showdown";
    document.getElementById("panel-title").textContent = "Showdown";
    lines.innerHTML = m.showdown.slice(0, -1).map(l => `<div>${rich(l)}</div>`).join("");
    result.innerHTML = rich(m.showdown[m.showdown.length - 1]);
  } else {
    panel.className = "";
    document.getElementById("panel-title").textContent = "Last move";
    lines.innerHTML = `<div>${rich(step.move || "(no move yet)")}</div>`;
    result.textContent = "";
  }
  const moves = [];
  for (let j = 0; j <= index; j++) {
    if (STEPS[j].hand === step.hand && STEPS[j].move) moves.push(`<li${j === index ? ' class="now"' : ""}>${rich(STEPS[j].move)}</li>`);
  }
  const list = document.getElementById("moves");
  list.innerHTML = moves.join("") || "<li>(no move yet)</li>";
  list.scrollTop = list.scrollHeight;
  document.getElementById("text").textContent = step.text;
  const hash = `#step=${index + 1}`;
  if (location.hash !== hash && !(location.hash === "#step=last" && index === STEPS.length - 1)) {
    history.replaceState(null, "", hash);
  }
}
function play() {
  const button = document.getElementById("play");
  if (timer !== null) { clearInterval(timer); timer = null; button.textContent = "play"; return; }
  if (index >= STEPS.length - 1) show(0);
  button.textContent = "pause";
  timer = setInterval(() => { if (index >= STEPS.length - 1) play(); else show(index + 1); }, 700);
}
function fromHash() {
  const m = /step=(last|\d+)/.exec(location.hash);
  if (!m) return 0;
  return m[1] === "last" ? STEPS.length - 1 : parseInt(m[1], 10) - 1;
}
document.getElementById("first").onclick = () => show(0);
document.getElementById("prev").onclick = () => show(index - 1);
document.getElementById("next").onclick = () => show(index + 1);
document.getElementById("last").onclick = () => show(STEPS.length - 1);
document.getElementById("play").onclick = play;
const slider = document.getElementById("slider");
slider.max = STEPS.length;
slider.oninput = () => show(parseInt(slider.value, 10) - 1);
document.addEventListener("keydown", e => {
  if (e.target === slider && (e.key === "ArrowLeft" || e.key === "ArrowRight")) return;
  if (e.key === "ArrowRight" || e.key === "n") show(index + 1);
  else if (e.key === "ArrowLeft" || e.key === "p") show(index - 1);
  else if (e.key === "Home") show(0);
  else if (e.key === "End") show(STEPS.length - 1);
  else if (e.key === " ") { e.preventDefault(); play(); }
  else return;
});
window.addEventListener("hashchange", () => show(fromHash()));
document.title = DATA.title;
document.getElementById("page-title").textContent = DATA.title;
show(fromHash());
