// The Replay page's board: a Spades table drawn in the browser from a whole game's timeline
// (dashboard/timeline.py), stepped by keys, buttons and the list of plays without asking the
// server. The position goes into the address at once (history.replaceState) and to Python a
// moment after the last step (the state value "position"), so that the address the app writes
// and the one shown agree. Every text from a record is set as text, never as markup.

const REPORT_DELAY_MS = 200;
// While hands are analysed on the server, the board asks again this long after each answer.
const POLL_MS = 1000;
const STORE_KEY = "spades-replay-board";

// What survives the board being drawn again (a rerun of the page): the position of each game
// and view, and the reader's choices (four-colour deck, rotation).
const memory = { positions: new Map(), fourColour: false, rotation: new Map(), best: false, untold: null, told: 0 };
try {
  memory.fourColour = window.localStorage.getItem(STORE_KEY + ":four-colour") === "1";
} catch (error) {
  memory.fourColour = false;
}

// Whether the reader has asked for another page (leaving.js notes it, and the address it
// leaves, until the new page's address shows).
function leaving() {
  const from = window.spadesReplayLeaving;
  if (from === undefined || from === null) return false;
  if (window.location.pathname === from) return true;
  window.spadesReplayLeaving = null;
  return false;
}

function el(tag, attributes, children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "text") node.textContent = String(value);
    else if (name === "onclick") node.addEventListener("click", value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children || []) {
    if (child === null || child === undefined) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

class Cards {
  constructor(text) {
    this.ranks = text.ranks;
    this.suits = text.suits;
    this.order = text.order;
  }
  suit(card) {
    return Math.floor(card / 13);
  }
  label(card) {
    return this.ranks[card % 13] + this.suits[this.suit(card)];
  }
  // One card as the dashboard writes it everywhere: rank and suit symbol, in its suit's colour.
  node(card, extra) {
    return el("span", { class: `card s${this.suit(card)} ${extra || ""}`.trim(), text: this.label(card) });
  }
  // A holding grouped by suit (spades, hearts, clubs, diamonds), high cards first; no suit
  // is broken across lines.
  holding(cards) {
    const groups = [];
    for (const suit of this.order) {
      const ranks = cards.filter((card) => this.suit(card) === suit).sort((a, b) => b - a);
      const group = el("span", { class: `suit s${suit}` }, [
        el("span", { class: "symbol", text: this.suits[suit] }),
      ]);
      if (ranks.length === 0) group.append(el("span", { class: "void", text: "—" }));
      for (const card of ranks) group.append(el("span", { class: "rank", text: this.ranks[card % 13] }));
      groups.push(group);
    }
    return groups;
  }
}

function nextMark(marks, step, last) {
  for (const mark of marks) if (mark > step) return mark;
  return last;
}

function previousMark(marks, step) {
  for (let i = marks.length - 1; i >= 0; i -= 1) if (marks[i] < step) return marks[i];
  return 0;
}

// Whether a card's double-dummy mark says it was a mistake: it cost tricks, or lost or let
// off a Nil ("?", not analysed, is none).
function isMistake(mark) {
  return Boolean(mark) && mark.split(" ").some((part) => part !== "?");
}

const SVG_NS = "http://www.w3.org/2000/svg";

function svg(tag, attributes, children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === null || value === undefined) continue;
    if (name === "text") node.textContent = String(value);
    else node.setAttribute(name, String(value));
  }
  for (const child of children || []) if (child) node.append(child);
  return node;
}

// A name fit for a file: letters, digits, dots, dashes and underscores only.
function fileSafe(text) {
  return String(text || "").replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 80);
}

class Board {
  constructor(parent) {
    this.parent = parent;
    this.root = el("div", { class: "board", tabindex: "-1" });
    parent.append(this.root);
    this.onKey = (event) => this.key(event);
    window.addEventListener("keydown", this.onKey);
    this.timer = null;
    this.report = null;
    this.ask = null;
    this.pollTimer = null;
    this.polls = 0;
    this.page = null;
    this.token = null;
    this.shownTo = null;
  }

  // Whether the board may tell Python anything: not once the reader has asked for another
  // page, by a link or by the browser's Back and Forward, nor when the address shows another
  // page than the board's (data.page, from Python: its page's path, and whether it is the
  // app's default page, at the app's root). A board drawn by what is left of its page's run
  // after the reader clicked another page may be drawn once the address has changed.
  heard() {
    if (leaving() || this.page === null) return false;
    const path = window.location.pathname.replace(/\/+$/, "");
    const here = window.location.pathname.endsWith("/") && this.page.default;
    return here || path.endsWith("/" + this.page.path);
  }

  // Ask the server again, a moment from now, while it analyses hands for this board; and
  // again each moment after, until an answer says nothing is waiting (a question whose run
  // the server let go, or whose answer did not reach the board, is asked again).
  poll(waiting) {
    if (this.pollTimer !== null) window.clearTimeout(this.pollTimer);
    this.pollTimer = null;
    if (!waiting || waiting.length === 0) return;
    this.pollTimer = window.setTimeout(() => {
      this.pollTimer = null;
      if (!this.heard()) return;
      this.polls += 1;
      if (this.ask) this.ask(this.polls);
      this.poll(waiting);
    }, POLL_MS);
  }

  destroy() {
    window.removeEventListener("keydown", this.onKey);
    if (this.pollTimer !== null) window.clearTimeout(this.pollTimer);
    this.tellNow();
    this.root.remove();
  }

  update(data, report, ask, drawn) {
    this.page = data.page;
    this.report = report;
    this.ask = ask;
    // data-heard on the board: the position the session held in the run that sent this
    // (hand number:step), so that a page can tell when Python has heard a step
    this.root.dataset.heard = `${data.heard.hand}:${data.heard.step}`;
    this.poll(data.waiting);
    // the last step, until Python has heard it: another view of the same game asked for
    // before the board told it (it tells a moment after the step) starts there, not at the
    // position Python held when that view's run began, whether this board draws it or a
    // new one (even in the run that heard it: a view's first run fixes its start); another
    // game forgets it
    const untold = memory.untold && memory.untold.gameKey === data.gameKey ? memory.untold : null;
    if (!untold || (data.heard.hand === untold.number && data.heard.step === untold.step)) {
      memory.untold = null;
    }
    if (data.token === this.token) {
      this.tellDrawn(data, drawn);
      if (data.version !== this.data.version) {
        // the same game and view, with more of it analysed: the position stays
        this.data = data;
        this.game = data.game;
        this.forget();
        this.draw(false);
      }
      this.address();
      return;
    }
    this.token = data.token;
    this.data = data;
    this.game = data.game;
    this.cards = new Cards(this.game.cards);
    this.spoilerFree = Boolean(data.spoilerFree);
    const kept = untold || memory.positions.get(data.token);
    const start = kept || data.start;
    this.hand = Math.min(Math.max(start.hand, 0), this.game.hands.length - 1);
    this.step = Math.min(Math.max(start.step, 0), this.steps().length - 1);
    if (!memory.rotation.has(data.token)) {
      memory.rotation.set(data.token, this.game.viewer === null ? 0 : this.game.viewer);
    }
    this.build();
    this.draw(false);
    this.tellDrawn(data, drawn);
    // a step Python was not told (the reader left the page at once) is told now; one it
    // holds is not told again (each telling is a new value, which asks for a run)
    const number = this.game.hands[this.hand].number;
    if (kept && (number !== data.heard.hand || this.step !== data.heard.step)) this.remember();
  }

  // The page adds what is slow to load in the browser (the score chart) once the board is
  // on the screen: tell Python so, with a new value, after each run that had not heard it.
  tellDrawn(data, drawn) {
    if (data.drawn || this.shownTo === data || !this.heard()) return;
    this.shownTo = data;
    drawn(Date.now());
  }

  steps() {
    return this.game.hands[this.hand].steps;
  }

  last() {
    return this.steps().length - 1;
  }

  // --- moving ---------------------------------------------------------------------------

  go(hand, step) {
    const hands = this.game.hands.length;
    const target = Math.min(Math.max(hand, 0), hands - 1);
    const count = this.game.hands[target].steps.length;
    const where = Math.min(Math.max(step, 0), count - 1);
    if (target === this.hand && where === this.step) return false;
    this.hand = target;
    this.step = where;
    this.draw(true);
    return true;
  }

  moves() {
    const hand = this.game.hands[this.hand];
    const last = this.last();
    return {
      first: [this.hand, 0],
      previousTrick: [this.hand, previousMark(hand.marks, this.step)],
      previous: [this.hand, this.step - 1],
      next: [this.hand, this.step + 1],
      nextTrick: [this.hand, nextMark(hand.marks, this.step, last)],
      last: [this.hand, last],
      previousHand: [this.hand - 1, 0],
      nextHand: [this.hand + 1, 0],
      nextMistake: this.mistake(1),
      previousMistake: this.mistake(-1),
    };
  }

  // The steps of a hand's mistakes, in order (none before its analysis, or in a seat's view);
  // found once per hand and analysis.
  mistakes(handIndex) {
    let steps = this.mistakeSteps.get(handIndex);
    if (steps === undefined) {
      const hand = this.game.hands[handIndex];
      const marks = hand.analysis ? hand.analysis.marks : {};
      steps = hand.analysis ? hand.log.filter((entry) => entry.kind === "card" && isMistake(marks[String(entry.play)])).map((entry) => entry.step) : [];
      this.mistakeSteps.set(handIndex, steps);
    }
    return steps;
  }

  // The next (direction 1) or previous (-1) mistake, in this hand or the hands after (or
  // before) it; the position shown when there is none.
  mistake(direction) {
    for (let index = this.hand; index >= 0 && index < this.game.hands.length; index += direction) {
      const steps = this.mistakes(index);
      const found = direction > 0 ? steps.filter((step) => index !== this.hand || step > this.step) : steps.filter((step) => index !== this.hand || step < this.step).reverse();
      if (found.length) return [index, found[0]];
    }
    return [this.hand, this.step];
  }

  move(name) {
    const [hand, step] = this.moves()[name];
    return this.go(hand, step);
  }

  key(event) {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.composedPath()[0];
    if (target && target.nodeType === 1) {
      const tag = target.tagName;
      const role = target.getAttribute("role");
      // a box ticked or a button pressed keeps the keys for the board; typing does not
      const ticked = tag === "INPUT" && (target.type === "checkbox" || target.type === "button");
      if ((tag === "INPUT" && !ticked) || tag === "TEXTAREA" || tag === "SELECT" || target.isContentEditable) return;
      if (role === "combobox" || role === "listbox" || role === "option" || role === "slider") return;
    }
    if (!this.root.isConnected) return;
    const keys = {
      ArrowRight: event.shiftKey ? "nextTrick" : "next",
      ArrowLeft: event.shiftKey ? "previousTrick" : "previous",
      ArrowDown: "nextTrick",
      ArrowUp: "previousTrick",
      PageDown: "nextHand",
      PageUp: "previousHand",
      Home: "first",
      End: "last",
      m: "nextMistake",
      M: "previousMistake",
    };
    if (event.key === "b" || event.key === "B") {
      if (this.game.viewer !== null) return;
      event.preventDefault();
      this.toggleBest();
      return;
    }
    const name = keys[event.key];
    if (!name) return;
    event.preventDefault();
    this.move(name);
  }

  // --- telling the address and Python ----------------------------------------------------

  remember() {
    memory.positions.set(this.token, { hand: this.hand, step: this.step });
    const number = this.game.hands[this.hand].number;
    memory.untold = { gameKey: this.data.gameKey, hand: this.hand, number, step: this.step };
    this.address();
    if (this.timer !== null) window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => this.flush(), REPORT_DELAY_MS);
  }

  // Write the position into the address (history.replaceState, no run) where it says
  // another, unless the address is not the board's page's. After each step, and each time
  // Python draws the board: a full run of the page writes the address at its end with the
  // position the session held, which may be older than the board's (a step told only once
  // the reader came back to the page); the run that hears the step, a run of the board's
  // fragment alone, writes no address, and comes after that full run.
  address() {
    if (!this.heard()) return;
    const number = this.game.hands[this.hand].number;
    const url = new URL(window.location.href);
    if (url.searchParams.get("hand") === String(number) && url.searchParams.get("step") === String(this.step)) return;
    url.searchParams.set("hand", String(number));
    url.searchParams.set("step", String(this.step));
    window.history.replaceState(window.history.state, "", url);
  }

  flush() {
    this.timer = null;
    // each telling a new value (told counts them): a board drawn anew may tell the position
    // an old one told in its last moment, which the server may not have heard
    if (!this.report || !this.heard()) return;
    memory.told += 1;
    this.report({ hand: this.game.hands[this.hand].number, step: this.step, told: memory.told });
  }

  // Tell the position at once if a step has not been told yet (the board is taken off the
  // page: drawn again for another game or view; once the reader is leaving the page, the
  // step stays untold, kept in memory, and is told when the board is drawn again).
  tellNow() {
    if (this.timer === null) return;
    window.clearTimeout(this.timer);
    this.flush();
  }

  // --- drawing --------------------------------------------------------------------------

  // The board's frame: the table, the controls and the notes beside them. Each part drawn
  // in it (a seat, the trick, each note) keeps its place, held by an empty comment until it
  // is first drawn (part()).
  build() {
    this.root.replaceChildren();
    this.root.classList.toggle("four-colour", memory.fourColour);
    this.root.classList.toggle("two", this.game.seats === 2);
    this.table = el("div", { class: "table", role: "group", "aria-label": "the table" });
    this.controls = this.buildControls();
    this.side = el("div", { class: "side" });
    this.notes = el("div", { class: "notes" });
    this.side.append(this.controls, this.notes);
    this.root.append(this.table, this.side);
    this.parts = new Map();
    const place = (parent, name) => {
      const node = document.createComment(name);
      parent.append(node);
      this.parts.set(name, { key: null, node });
    };
    for (let seat = 0; seat < this.game.seats; seat += 1) place(this.table, `seat ${seat}`);
    place(this.table, "centre");
    for (const name of ["what", "contracts", "best", "par", "log", "score"]) place(this.notes, name);
    this.forget();
  }

  // Forget what was drawn from the data (a new analysis came): every part is drawn again.
  forget() {
    for (const part of this.parts.values()) part.key = null;
    this.mistakeSteps = new Map();
  }

  // Draw the part ``name`` with ``make()`` (``null``: nothing there), unless it was last drawn
  // from the same ``key`` (``null``: always draw it): a step redraws only what it changed,
  // and the nodes of the rest stay as they are.
  part(name, key, make) {
    const part = this.parts.get(name);
    if (key !== null && part.key === key) return part.node;
    const node = make() || document.createComment(name);
    part.node.replaceWith(node);
    part.node = node;
    part.key = key;
    return node;
  }

  button(label, title, action, extra) {
    return el("button", { type: "button", class: `control ${extra || ""}`.trim(), title, "aria-label": title, text: label, onclick: action });
  }

  buildControls() {
    const moves = [
      ["|◀", "Start of the hand (Home)", "first"],
      ["◀◀", "Previous trick (↑ or Shift+←)", "previousTrick"],
      ["◀", "Previous action (←)", "previous"],
      ["▶", "Next action (→)", "next"],
      ["▶▶", "Next trick (↓ or Shift+→)", "nextTrick"],
      ["▶|", "End of the hand (End)", "last"],
    ];
    this.moveButtons = {};
    const row = el("div", { class: "controls", role: "toolbar", "aria-label": "step controls" });
    const handRow = el("div", { class: "hands" });
    this.moveButtons.previousHand = this.button("◁ Hand", "Previous hand (PageUp)", () => this.move("previousHand"), "hand-button");
    this.handLabel = el("span", { class: "hand-label" });
    this.moveButtons.nextHand = this.button("Hand ▷", "Next hand (PageDown)", () => this.move("nextHand"), "hand-button");
    handRow.append(this.moveButtons.previousHand, this.handLabel, this.moveButtons.nextHand);
    const stepRow = el("div", { class: "steps" });
    for (const [label, title, name] of moves) {
      const button = this.button(label, title, () => this.move(name), `move-${name}`);
      button.dataset.move = name;
      this.moveButtons[name] = button;
      stepRow.append(button);
    }
    this.stepLabel = el("span", { class: "step-label" });
    stepRow.append(this.stepLabel);
    const rows = [handRow, stepRow];
    if (this.game.viewer === null) {
      // double dummy reads every hand: a seat's view has no mistakes and no best cards
      this.moveButtons.previousMistake = this.button("◀ Mistake", "Previous mistake (Shift+M)", () => this.move("previousMistake"), "mistake-button");
      this.moveButtons.nextMistake = this.button("Mistake ▶", "Next mistake (M)", () => this.move("nextMistake"), "mistake-button");
      this.bestButton = this.button("Best cards", "Show or hide the best cards of the play shown (B)", () => this.toggleBest(), "best-button");
      rows.push(el("div", { class: "mistakes" }, [this.moveButtons.previousMistake, this.moveButtons.nextMistake, this.bestButton]));
    }
    const tools = el("div", { class: "tools" }, [
      this.button("⟳ Rotate", "Turn the table: the next seat at the bottom", () => this.rotate(), "rotate"),
      this.fourColourToggle(),
      this.button("Copy link", "Copy the link to this position", () => this.copyLink(), "copy-link"),
      this.button("PNG", "Download this position as a PNG picture", () => this.download("png"), "download"),
      this.button("SVG", "Download this position as an SVG picture", () => this.download("svg"), "download"),
    ]);
    this.copied = el("span", { class: "copied", role: "status" });
    tools.append(this.copied);
    row.append(...rows, tools);
    return row;
  }

  toggleBest() {
    memory.best = !memory.best;
    this.draw(false);
  }

  fourColourToggle() {
    const box = el("input", { type: "checkbox", class: "four-colour-box" });
    box.checked = memory.fourColour;
    box.addEventListener("change", () => {
      memory.fourColour = box.checked;
      try {
        window.localStorage.setItem(STORE_KEY + ":four-colour", box.checked ? "1" : "0");
      } catch (error) {
        // a browser that keeps nothing still draws the deck it was asked for
      }
      this.root.classList.toggle("four-colour", box.checked);
    });
    return el("label", { class: "toggle", title: "Clubs green and diamonds blue" }, [box, " Four-colour deck"]);
  }

  rotate() {
    const bottom = memory.rotation.get(this.token);
    memory.rotation.set(this.token, (bottom + 1) % this.game.seats);
    this.draw(false);
  }

  copyLink() {
    const link = window.location.href;
    const done = () => {
      this.copied.textContent = "Link copied";
      window.setTimeout(() => {
        this.copied.textContent = "";
      }, 2000);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(link).then(done, () => this.showLink(link));
    } else {
      this.showLink(link);
    }
  }

  showLink(link) {
    const field = el("input", { class: "link-field", readonly: true, value: link, "aria-label": "link to this position" });
    this.copied.replaceChildren(field);
    field.select();
  }

  // The position shown as a picture: an SVG document of the table (each seat's name, bid,
  // tricks won and cards, the trick in the centre, what just happened), as the view may
  // see it. Text is set as text: the serializer escapes it.
  positionSvg() {
    const hand = this.game.hands[this.hand];
    const state = hand.steps[this.step];
    const places = this.places();
    const four = this.game.seats === 4;
    const width = 760;
    const height = four ? 560 : 500;
    const colours = memory.fourColour ? ["#1a7f37", "#1f5fa8", "#c8102e", "#1b1b1b"] : ["#1b1b1b", "#c8102e", "#c8102e", "#1b1b1b"];
    const font = "font-family: 'DejaVu Sans', 'Source Sans Pro', sans-serif";
    const root = svg("svg", { xmlns: SVG_NS, width, height, viewBox: `0 0 ${width} ${height}`, style: font });
    root.append(svg("rect", { x: 0, y: 0, width, height, fill: "#ffffff" }));
    root.append(svg("rect", { x: 10, y: 40, width: width - 20, height: height - 90, rx: 28, fill: "#1d6b45" }));
    const title = `Hand ${hand.number} · step ${this.step} of ${this.last()} · ${state.phase}`;
    root.append(svg("text", { x: 14, y: 26, "font-size": 16, "font-weight": 700, fill: "#262730", text: title }));
    const spots = four
      ? { bottom: [width / 2, height - 150], top: [width / 2, 56], left: [30, height / 2 - 60], right: [width - 200, height / 2 - 60] }
      : { bottom: [width / 2, height - 150], top: [width / 2, 56] };
    for (let seat = 0; seat < this.game.seats; seat += 1) {
      const place = places[seat];
      const [left, top] = spots[place];
      const boxWidth = 170;
      const x = place === "top" || place === "bottom" ? left - boxWidth / 2 : left;
      const group = svg("g", { transform: `translate(${x} ${top})` });
      group.append(svg("rect", { x: 0, y: 0, width: boxWidth, height: 96, rx: 8, fill: "#ffffff", stroke: state.turn === seat ? "#f2b134" : "#cccccc", "stroke-width": state.turn === seat ? 3 : 1 }));
      group.append(svg("text", { x: 8, y: 17, "font-size": 13, "font-weight": 700, fill: "#262730", text: `${this.game.players[seat]} (seat ${seat})` }));
      const bid = state.bids[seat];
      const badges = [bid === null ? "bid —" : state.nil[seat] ? bid : `bid ${bid}`, `won ${state.won[seat]}`];
      if (seat === hand.dealer) badges.push(four ? "dealer" : "first");
      if (state.turn === seat) badges.push("to act");
      group.append(svg("text", { x: 8, y: 33, "font-size": 11, fill: "#555555", text: badges.join(" · ") }));
      const holding = state.hands[seat];
      if (Array.isArray(holding)) {
        this.cards.order.forEach((suit, row) => {
          const ranks = holding.filter((card) => this.cards.suit(card) === suit).sort((a, b) => b - a);
          const line = `${this.cards.suits[suit]} ${ranks.length ? ranks.map((card) => this.cards.ranks[card % 13]).join(" ") : "—"}`;
          group.append(svg("text", { x: 8, y: 49 + row * 13, "font-size": 12, "font-weight": 600, fill: colours[suit], text: line }));
        });
      } else {
        group.append(svg("text", { x: 8, y: 56, "font-size": 12, fill: "#5a6f8f", text: `${holding} card${holding === 1 ? "" : "s"}, hidden` }));
      }
      root.append(group);
    }
    const trick = state.trick;
    if (trick) {
      const centre = [width / 2, four ? height / 2 - 20 : height / 2 - 20];
      const offsets = { bottom: [0, 46], top: [0, -46], left: [-70, 0], right: [70, 0] };
      trick.plays.forEach(([seat, card]) => {
        const [dx, dy] = offsets[places[seat]];
        const won = seat === trick.winner;
        const group = svg("g", { transform: `translate(${centre[0] + dx - 24} ${centre[1] + dy - 18})` });
        group.append(svg("rect", { x: 0, y: 0, width: 48, height: 34, rx: 5, fill: "#ffffff", stroke: won ? "#f2b134" : "#999999", "stroke-width": won ? 3 : 1, "stroke-dasharray": won && !trick.complete ? "4 3" : null }));
        group.append(svg("text", { x: 24, y: 23, "text-anchor": "middle", "font-size": 16, "font-weight": 700, fill: colours[this.cards.suit(card)], text: this.cards.label(card) }));
        root.append(group);
      });
      const words = `Trick ${trick.number}${trick.complete ? `, won by ${this.game.players[trick.winner]}` : ""}`;
      root.append(svg("text", { x: centre[0], y: centre[1] + 96, "text-anchor": "middle", "font-size": 12, fill: "#ffffff", text: words }));
    }
    const said = state.text.map((part) => (typeof part === "string" ? part : this.cards.label(part.c))).join("");
    root.append(svg("text", { x: 14, y: height - 18, "font-size": 13, fill: "#262730", text: said }));
    return new XMLSerializer().serializeToString(root);
  }

  // Download the position shown as an SVG or PNG file (the PNG is the SVG drawn on a canvas
  // at twice its size).
  download(kind) {
    const text = this.positionSvg();
    const game = new URL(window.location.href).searchParams.get("game");
    const name = `${fileSafe(game || "game")}-hand${this.game.hands[this.hand].number}-step${this.step}.${kind}`;
    const save = (blob) => {
      const link = el("a", { href: URL.createObjectURL(blob), download: name, class: "download-link" });
      this.root.append(link);
      link.click();
      link.remove();
      window.setTimeout(() => URL.revokeObjectURL(link.href), 10000);
    };
    if (kind === "svg") {
      save(new Blob([text], { type: "image/svg+xml" }));
      return;
    }
    const image = new Image();
    image.onload = () => {
      const canvas = document.createElement("canvas");
      canvas.width = image.width * 2;
      canvas.height = image.height * 2;
      const context = canvas.getContext("2d");
      context.scale(2, 2);
      context.drawImage(image, 0, 0);
      canvas.toBlob((blob) => save(blob), "image/png");
    };
    image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(text)}`;
  }

  // Where each seat sits: the bottom seat, then clockwise (the order of play).
  places() {
    const bottom = memory.rotation.get(this.token);
    const names = this.game.seats === 2 ? ["bottom", "top"] : ["bottom", "left", "top", "right"];
    const places = [];
    for (let seat = 0; seat < this.game.seats; seat += 1) {
      places[seat] = names[(seat - bottom + this.game.seats) % this.game.seats];
    }
    return places;
  }

  draw(moved) {
    const hand = this.game.hands[this.hand];
    const state = hand.steps[this.step];
    const places = this.places();
    const analysis = hand.analysis;
    const marks = analysis ? analysis.marks : {};
    for (let seat = 0; seat < this.game.seats; seat += 1) {
      const verdict = hand.analysis && state.nil[seat] ? hand.analysis.verdicts[seat] : "";
      const seen = [this.hand, places[seat], state.bids[seat], state.nil[seat], verdict, state.won[seat], state.turn === seat, state.hands[seat]];
      this.part(`seat ${seat}`, JSON.stringify(seen), () => this.seatBox(hand, state, seat, places[seat]));
    }
    this.part("centre", null, () => this.centre(hand, state, places, marks));
    this.handLabel.textContent = `Hand ${hand.number} of ${this.game.hands.length}`;
    this.stepLabel.textContent = `Step ${this.step} of ${this.last()}`;
    const moves = this.moves();
    for (const [name, button] of Object.entries(this.moveButtons)) {
      const [toHand, toStep] = moves[name];
      const target = Math.min(Math.max(toHand, 0), this.game.hands.length - 1);
      button.disabled = target === this.hand && (name.endsWith("Hand") || toStep === this.step || toStep < 0 || toStep > this.last());
    }
    if (this.bestButton) this.bestButton.setAttribute("aria-pressed", memory.best ? "true" : "false");
    this.drawSide(hand, state, marks);
    this.root.dataset.hand = String(hand.number);
    this.root.dataset.step = String(this.step);
    this.root.dataset.analysed = String(this.game.hands.filter((each) => each.analysis).length);
    if (moved) this.remember();
  }

  seatBox(hand, state, seat, place) {
    const name = this.game.players[seat];
    const badges = el("div", { class: "badges" });
    if (seat === hand.dealer) badges.append(el("span", { class: "badge dealer", title: this.game.seats === 2 ? "first player" : "dealer", text: this.game.seats === 2 ? "first" : "dealer" }));
    const bid = state.bids[seat];
    badges.append(el("span", { class: `badge bid${state.nil[seat] ? " nil" : ""}`, text: bid === null ? "bid —" : state.nil[seat] ? bid : `bid ${bid}` }));
    const verdict = hand.analysis && state.nil[seat] ? hand.analysis.verdicts[seat] : "";
    if (verdict) badges.append(el("span", { class: "badge verdict", title: "double dummy, from the start of play", text: verdict }));
    badges.append(el("span", { class: "badge won", text: `won ${state.won[seat]}` }));
    if (state.turn === seat) badges.append(el("span", { class: "badge turn", text: "to act" }));
    const holding = state.hands[seat];
    let cards;
    if (Array.isArray(holding)) {
      cards = el("div", { class: "holding" }, this.cards.holding(holding));
    } else {
      cards = el("div", { class: "holding hidden-hand" }, [
        el("span", { class: "backs", "aria-hidden": "true", text: "▮".repeat(Math.min(holding, 13)) }),
        el("span", { class: "count", text: `${holding} card${holding === 1 ? "" : "s"}, hidden` }),
      ]);
    }
    const team = this.game.seats === 4 ? ` · team ${this.game.sideOf[seat]}` : "";
    return el("div", { class: `seat ${place}${state.turn === seat ? " to-act" : ""}`, "data-seat": String(seat) }, [
      el("div", { class: "who" }, [el("span", { class: "name", text: name }), el("span", { class: "seat-number", text: ` seat ${seat}${team}` })]),
      badges,
      cards,
    ]);
  }

  centre(hand, state, places, marks) {
    const centre = el("div", { class: "centre" });
    const trick = state.trick;
    const spots = el("div", { class: "trick" });
    if (trick) {
      trick.plays.forEach(([seat, card], position) => {
        const mark = marks[String(trick.first + position)] || "";
        const classes = ["played", places[seat]];
        if (seat === trick.winner) classes.push(trick.complete ? "winner" : "winning");
        const labels = [];
        if (seat === trick.leader) labels.push(el("span", { class: "tag led", text: "led" }));
        if (seat === trick.winner) labels.push(el("span", { class: "tag win", text: trick.complete ? "won" : "winning" }));
        if (mark) labels.push(el("span", { class: "tag mark", text: mark }));
        spots.append(el("div", { class: classes.join(" ") }, [this.cards.node(card, "big"), ...labels]));
      });
    }
    const title = trick ? `Trick ${trick.number}${trick.complete ? `, won by ${this.game.players[trick.winner]}` : ""}` : state.phase;
    centre.append(
      spots,
      el("div", { class: "centre-text" }, [
        el("div", { class: "trick-title", text: title }),
        el("div", { class: "phase", text: `${state.phase} · spades ${state.broken ? "broken" : "not broken"}` }),
      ]),
    );
    return centre;
  }

  sentence(parts) {
    return parts.map((part) => (typeof part === "string" ? document.createTextNode(part) : this.cards.node(part.c)));
  }

  // The notes beside the table. The par strip and the list of actions are drawn once per
  // hand (and analysis): a step only moves their marks of the position shown. Without
  // spoilers, or in a seat's view, they stop at the step shown, so a step draws them again.
  drawSide(hand, state, marks) {
    const cut = this.game.viewer !== null || this.spoilerFree;
    const whole = `${this.hand}`;
    this.part("what", null, () => el("p", { class: "what" }, this.sentence(state.text)));
    this.part("contracts", null, () => this.contracts(hand, state));
    const best = this.game.viewer === null && memory.best;
    this.part("best", best ? null : "none", () => (best ? this.bestPanel(hand) : null));
    if (hand.analysis) {
      const strip = this.part("par", this.spoilerFree ? null : whole, () => this.parStrip(hand));
      strip.at(state.played);
    } else {
      this.part("par", "none", () => null);
    }
    const list = this.part("log", cut ? null : whole, () => this.logList(hand, marks));
    const current = list.at(this.step);
    this.part("score", null, () => this.scoreBox(hand, state));
    if (current && current !== list.shown) {
      list.shown = current;
      // the scroll is checked in the next frame, before it is laid out: read here, after
      // the step's changes, the layout would be made twice (once for this reading, once
      // more for the frame after the changes that follow)
      window.requestAnimationFrame(() => this.keepInView(list, current));
    }
  }

  // Scroll the list so that its entry of the step shown is in view, unless a later step
  // moved it on, or the list was drawn again, meanwhile.
  keepInView(list, current) {
    if (list.shown !== current || !list.isConnected) return;
    const top = current.offsetTop - list.offsetTop;
    if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - current.offsetHeight) {
      list.scrollTop = Math.max(top - list.clientHeight / 2, 0);
    }
  }

  contracts(hand, state) {
    const box = el("div", { class: "contracts" });
    for (const sideNumber of [0, 1]) {
      const seats = [];
      for (let seat = 0; seat < this.game.seats; seat += 1) if (this.game.sideOf[seat] === sideNumber) seats.push(seat);
      const bids = seats.map((seat) => state.bids[seat]);
      const won = seats.reduce((total, seat) => total + state.won[seat], 0);
      const text = bids.some((bid) => bid === null) ? "bidding" : `bids ${bids.join(" + ")}`;
      const par = hand.analysis && hand.analysis.par ? ` · par ${hand.analysis.par[sideNumber]}` : "";
      box.append(el("div", { class: "contract" }, [el("strong", { text: this.game.sides[sideNumber] }), ` ${text}, ${won} won${par}`]));
    }
    return box;
  }

  jump(step) {
    return () => this.go(this.hand, step);
  }

  // The card played at the step shown: its entry in the log, or null.
  cardShown(hand) {
    return hand.log.find((entry) => entry.step === this.step && entry.kind === "card") || null;
  }

  // The best alternatives of the play shown: the cards that kept its side's best, what that
  // best was, and what the card played cost.
  bestPanel(hand) {
    const box = el("div", { class: "best", role: "region", "aria-label": "best cards of this play" });
    const entry = this.cardShown(hand);
    if (!hand.analysis) {
      box.append(el("p", { text: "Best cards: this hand's double-dummy analysis has not arrived yet." }));
      return box;
    }
    if (!entry) {
      box.append(el("p", { text: "Best cards: go to a card played to see the best ones of its play." }));
      return box;
    }
    const play = hand.analysis.plays[entry.play];
    const who = this.game.players[entry.seat];
    if (!play || play.cost === null) {
      box.append(el("p", { text: `Best cards: ${who}'s play was not analysed (the time cap struck first).` }));
      return box;
    }
    const side = this.game.sideOf[entry.seat];
    const best = play.after[side] + play.cost;
    const cards = [...play.best].sort((a, b) => b - a).flatMap((card) => [this.cards.node(card), " "]);
    const whose = this.game.seats === 2 ? "she" : "her side";
    const verdict = play.cost ? [" cost ", el("strong", { text: String(play.cost) }), ` trick(s): ${whose} could make ${best}, and ${play.after[side]} after it.`] : [` is one of them: ${whose} could make ${best}.`];
    box.append(el("p", {}, [el("strong", { text: "Best cards: " }), ...cards, "· ", who, "'s ", this.cards.node(entry.card), ...verdict]));
    return box;
  }

  // The tricks each side can still make, double dummy, from the start of play and after
  // each card: a small chart along the hand. A click on it goes to that card; mistakes are
  // dotted, the position shown is the upright line. Without spoilers it stops at the card
  // shown. Its ``at(played)`` moves the line and the legend to the position after that many
  // cards.
  parStrip(hand) {
    const analysis = hand.analysis;
    const cards = hand.log.filter((entry) => entry.kind === "card");
    const shown = this.spoilerFree ? cards.filter((entry) => entry.step <= this.step).length : analysis.plays.length;
    const points = [analysis.par, ...analysis.plays.slice(0, shown).map((play) => play.after)];
    const steps = [cards.length ? cards[0].step - 1 : 0, ...cards.slice(0, shown).map((entry) => entry.step)];
    const width = 320;
    const height = 64;
    const pad = 4;
    const count = analysis.plays.length || 1;
    const x = (index) => pad + (index * (width - 2 * pad)) / count;
    const y = (tricks) => height - pad - (tricks * (height - 2 * pad)) / 13;
    const chart = svg("svg", { class: "par-chart", viewBox: `0 0 ${width} ${height}`, preserveAspectRatio: "none", role: "img", "aria-label": "tricks each side can still make, card by card" });
    for (const tricks of [0, 6.5, 13]) chart.append(svg("line", { class: "par-grid", x1: 0, x2: width, y1: y(tricks), y2: y(tricks) }));
    for (const side of [0, 1]) {
      let path = "";
      points.forEach((point, index) => {
        if (!point) return;
        path += `${path && points[index - 1] ? "L" : "M"}${x(index).toFixed(1)},${y(point[side]).toFixed(1)}`;
      });
      if (path) chart.append(svg("path", { class: `par-line side${side}`, d: path }));
    }
    const marks = analysis.marks;
    const cursor = svg("line", { class: "par-cursor", y1: 0, y2: height });
    chart.append(cursor);
    cards.slice(0, shown).forEach((entry, index) => {
      const point = analysis.plays[index].after;
      if (point && isMistake(marks[String(entry.play)])) {
        const side = this.game.sideOf[entry.seat];
        chart.append(svg("circle", { class: "par-mistake", cx: x(index + 1), cy: y(point[side]), r: 2.6 }));
      }
    });
    const half = (width - 2 * pad) / count / 2;
    steps.forEach((step, index) => {
      const point = points[index];
      const label = index === 0 ? "start of play" : `after ${this.cards.label(cards[index - 1].card)} (${this.game.players[cards[index - 1].seat]})`;
      const said = point ? `${this.game.sides[0]} ${point[0]}, ${this.game.sides[1]} ${point[1]}` : "not analysed";
      const spot = svg("rect", { class: "par-spot", x: Math.max(x(index) - half, 0), y: 0, width: 2 * half, height, "data-step": step, "data-index": index }, [svg("title", { text: `${label}: ${said}` })]);
      spot.addEventListener("click", () => this.go(this.hand, step));
      chart.append(spot);
    });
    const keys = [0, 1].map((side) => el("span", { class: `par-key side${side}` }));
    const strip = el("div", { class: "par-strip", title: "Double dummy: the tricks each side can still make (its final count) after each card; click to go there" }, [
      el("div", { class: "log-head", text: "Par, card by card" }),
      chart,
      el("div", { class: "par-legend" }, keys),
    ]);
    strip.at = (played) => {
      if (played <= shown) {
        cursor.setAttribute("x1", String(x(played)));
        cursor.setAttribute("x2", String(x(played)));
        cursor.removeAttribute("visibility");
      } else {
        cursor.setAttribute("visibility", "hidden");
      }
      const now = points[played] || null;
      keys.forEach((key, side) => {
        key.textContent = `${this.game.sides[side]}${now ? ` ${now[side]}` : ""}`;
      });
    };
    return strip;
  }

  entryNode(entry, marks) {
    const who = this.game.players[entry.seat];
    let body;
    if (entry.kind === "card") {
      const mark = marks[String(entry.play)] || "";
      body = [this.cards.node(entry.card), mark ? el("span", { class: "tag mark", text: mark }) : null];
    } else if (entry.kind === "bid") {
      body = [`${who}: ${entry.bid}`];
    } else if (entry.kind === "blind") {
      body = [`${who}: Blind Nil`];
    } else if (entry.kind === "draft") {
      const kept = entry.kept === null ? "hidden" : null;
      body = [`${who} keeps `, kept ? kept : this.cards.node(entry.kept), entry.keep ? " (top), discards " : " (next), discards ", entry.thrown === null ? "unseen" : this.cards.node(entry.thrown)];
    } else {
      const shown = (cards) => (Array.isArray(cards) ? cards.flatMap((card) => [this.cards.node(card), " "]) : [`${cards} card(s)`]);
      body = [`${who} exchanges `, ...shown(entry.out), "for ", ...shown(entry.in)];
    }
    return el("button", { type: "button", class: "entry", "data-step": String(entry.step), title: `step ${entry.step}`, onclick: this.jump(entry.step) }, body);
  }

  logList(hand, marks) {
    const list = el("div", { class: "log", "aria-label": "the hand's actions: click one to go there" });
    const shown = hand.log.filter((entry) => !this.hides(entry));
    const setup = shown.filter((entry) => entry.kind !== "card");
    const draft = setup.filter((entry) => entry.kind === "draft");
    const other = setup.filter((entry) => entry.kind !== "draft");
    if (draft.length) {
      const rows = el("ol", { class: "draft" });
      for (const entry of draft) rows.append(el("li", {}, [this.entryNode(entry, marks)]));
      list.append(el("div", { class: "log-head", text: "Draft" }), rows);
    }
    if (other.length) {
      list.append(el("div", { class: "log-head", text: "Bidding" }), el("div", { class: "log-row" }, other.map((entry) => this.entryNode(entry, marks))));
    }
    const cards = shown.filter((entry) => entry.kind === "card");
    if (cards.length) {
      list.append(el("div", { class: "log-head", text: "Tricks" }));
      for (let start = 0; start < cards.length; start += this.game.seats) {
        const trick = cards.slice(start, start + this.game.seats);
        const number = start / this.game.seats + 1;
        const end = trick[trick.length - 1].step;
        list.append(
          el("div", { class: "log-row trick-row" }, [
            el("button", { type: "button", class: "trick-number", title: `end of trick ${number}`, text: String(number), onclick: this.jump(end) }),
            ...trick.map((entry) => this.entryNode(entry, marks)),
          ]),
        );
      }
    }
    // the entries, each with its step: at(step) marks the current one (which it returns)
    // and the later ones
    const entries = [...list.querySelectorAll(".entry")].map((node) => [Number(node.dataset.step), node]);
    list.at = (step) => {
      let current = null;
      for (const [at, node] of entries) {
        node.classList.toggle("current", at === step);
        node.classList.toggle("later", at > step);
        if (at === step) current = node;
      }
      return current;
    };
    return list;
  }

  // In one seat's view, or without spoilers, the list stops at the step shown.
  hides(entry) {
    return (this.game.viewer !== null || this.spoilerFree) && entry.step > this.step;
  }

  scoreBox(hand, state) {
    const box = el("div", { class: "score" });
    if (state.phase === "hand over" && hand.score) {
      const columns = Object.keys(hand.score[0]);
      const head = el("tr", {}, columns.map((column) => el("th", { text: column })));
      const rows = hand.score.map((row) => el("tr", {}, columns.map((column) => el("td", { text: row[column] }))));
      box.append(el("div", { class: "log-head", text: `Score of hand ${hand.number}` }), el("table", {}, [el("thead", {}, [head]), el("tbody", {}, rows)]));
      return box;
    }
    if (this.step === this.last() && !hand.complete) {
      box.append(el("p", { class: "warning", text: "The record stops here, before the end of the hand: it has no score." }));
    }
    const before = hand.before;
    box.append(
      el("p", {
        text: `Going into hand ${hand.number}: ${this.game.sides[0]} ${before.scores[0]} (${before.bags[0]} bags) · ${this.game.sides[1]} ${before.scores[1]} (${before.bags[1]} bags)`,
      }),
    );
    return box;
  }
}

const boards = new WeakMap();

const decoder = new TextDecoder();

export default function (component) {
  const { parentElement, setStateValue } = component;
  let board = boards.get(parentElement);
  if (!board) {
    board = new Board(parentElement);
    boards.set(parentElement, board);
  }
  // the data comes as bytes (board_widget.py): a line of JSON with this run's fields, then
  // the game as JSON, parsed only when the board has not got it (a new token or version)
  const bytes = component.data instanceof Uint8Array ? component.data : new Uint8Array(component.data);
  const cut = bytes.indexOf(10);
  const data = JSON.parse(decoder.decode(bytes.subarray(0, cut)));
  const kept = data.token === board.token && board.data && data.version === board.data.version;
  data.game = kept ? board.data.game : JSON.parse(decoder.decode(bytes.subarray(cut + 1)));
  board.update(
    data,
    (position) => setStateValue("position", position),
    (count) => setStateValue("poll", count),
    (when) => setStateValue("drawn", when),
  );
  return () => {
    board.destroy();
    boards.delete(parentElement);
  };
}
