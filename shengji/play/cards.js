// Drawing cards, shared by the round viewer (viewer.html) and the play page (shengji play).
const SYMBOL = {S: "\u2660", H: "\u2665", C: "\u2663", D: "\u2666"};
let trumps = new Set();  // the trump cards of the round shown: cardEl shades them

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function cardEl(card) {
  const e = el("span", "card");
  e.dataset.card = card;
  if (card === "BJ" || card === "SJ") {
    e.classList.add("joker", card === "BJ" ? "red" : "black");
    e.title = card === "BJ" ? "big joker" : "small joker";
    e.append(el("span", "r", card), el("span", "s", "\u2605"));
  } else {
    const suit = card.slice(-1);
    e.classList.add(suit === "H" || suit === "D" ? "red" : "black");
    e.append(el("span", "r", card.slice(0, -1)), el("span", "s", SYMBOL[suit]));
  }
  if (trumps.has(card)) e.classList.add("trump");
  return e;
}

function cardsEl(cards) {
  const e = el("span", "cards");
  for (const c of cards) e.append(cardEl(c));
  return e;
}

function team(s) { return s % 2 === 0 ? "0+2" : "1+3"; }

function noteText(n) {
  // a cost in the texts shengji analyze round prints (a saving shown below 0)
  const cost = (text, unit) => text.replace("-", "\u2212") + " " + unit;
  return "cost " + cost(n[3], "levels") + ", " + cost(n[4], "points");
}

function signed(x) { return (x > 0 ? "+" : "") + x; }
