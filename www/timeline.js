// The "who held the lease when" chart: one row for the grantor's own view (polled from
// /v1/status) and one per tab (each tab reports its holds over BroadcastChannel), drawn as SVG.
// The TabLease page draws the same chart without the grantor row, its numbers being epochs.
//
// A segment is `{row, token, start, end, reason, frozenUntil}` with wall-clock milliseconds:
// every tab runs on the same machine, so their Date.now() readings line up well enough to draw.

const SVG = "http://www.w3.org/2000/svg";
const ROW_HEIGHT = 28;
const LABEL_WIDTH = 112;
const AXIS_HEIGHT = 22;

/** A stable, distinct colour per fencing token, so a handover reads as a change of colour. */
export function tokenColour(token) {
  return `hsl(${(token * 137.508) % 360} 58% 46%)`;
}

function element(name, attributes = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  parent?.appendChild(node);
  return node;
}

function seconds(ms) {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** Segments merged from every tab, and their drawing. */
export class Timeline {
  #svg;
  #self;
  #windowMs;
  #pinnedRows;
  #tokenName;
  #segments = new Map();
  #firstSeen = new Map();

  /**
   * Draws into `svg`; `self` is this tab's row name, `windowMs` how much history is shown,
   * `pinnedRows` the rows drawn first whether or not they have segments, and `tokenName` what a
   * segment's number is called in its tooltip.
   */
  constructor(svg, { self, windowMs = 60_000, pinnedRows = ["grantor"], tokenName = "token" }) {
    this.#svg = svg;
    this.#self = self;
    this.#windowMs = windowMs;
    this.#pinnedRows = pinnedRows;
    this.#tokenName = tokenName;
  }

  /**
   * Adds or updates a segment. Reports of one segment merge: the earliest start, and the
   * earliest end anyone reported (a later report of "still open" never reopens it).
   */
  put(segment) {
    const key = `${segment.row}#${segment.token}`;
    const known = this.#segments.get(key);
    if (!this.#firstSeen.has(segment.row)) this.#firstSeen.set(segment.row, segment.start);
    if (known === undefined) {
      this.#segments.set(key, { ...segment });
      return;
    }
    known.start = Math.min(known.start, segment.start);
    if (segment.end !== null && (known.end === null || segment.end < known.end)) {
      known.end = segment.end;
      known.reason = segment.reason ?? known.reason;
      known.frozenUntil = segment.frozenUntil ?? known.frozenUntil;
    }
    known.holder ??= segment.holder;
  }

  /** Every segment still inside the window, for a tab that just opened. */
  recent(now = Date.now()) {
    const from = now - this.#windowMs;
    return [...this.#segments.values()].filter((s) => s.end === null || s.end >= from);
  }

  /** The open segment of `row`, if any. */
  open(row) {
    for (const segment of this.#segments.values()) {
      if (segment.row === row && segment.end === null) return segment;
    }
    return null;
  }

  /** Redraws the chart for the window ending `now`, with a row for each of `rows` too. */
  render(rows, now = Date.now()) {
    const from = now - this.#windowMs;
    for (const [key, segment] of this.#segments) {
      if (segment.end !== null && segment.end < from - this.#windowMs) this.#segments.delete(key);
    }
    const visible = [...this.#segments.values()].filter((s) => s.end === null || s.end >= from);
    const pinned = this.#pinnedRows;
    const names = new Set([this.#self, ...rows, ...visible.map((s) => s.row)]);
    const ordered = [...pinned, ...[...names].filter((n) => !pinned.includes(n)).sort(
      (a, b) => (this.#firstSeen.get(a) ?? now) - (this.#firstSeen.get(b) ?? now) || a.localeCompare(b),
    )];

    const width = Math.max(320, Math.round(this.#svg.clientWidth || 640));
    const height = ordered.length * ROW_HEIGHT + AXIS_HEIGHT;
    // Room on the right for the axis's "now".
    const track = width - LABEL_WIDTH - 18;
    const x = (t) => LABEL_WIDTH + ((Math.max(from, Math.min(now, t)) - from) / this.#windowMs) * track;

    const svg = this.#svg;
    svg.replaceChildren();
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    svg.setAttribute("height", String(height));
    const defs = element("defs", {}, svg);
    const hatch = element("pattern", {
      id: "frozen-hatch",
      width: 6,
      height: 6,
      patternUnits: "userSpaceOnUse",
      patternTransform: "rotate(45)",
    }, defs);
    element("rect", { width: 6, height: 6, fill: "#e9ecf2" }, hatch);
    element("line", { x1: 0, y1: 0, x2: 0, y2: 6, stroke: "#9aa3b5", "stroke-width": 2 }, hatch);

    ordered.forEach((row, index) => {
      const y = index * ROW_HEIGHT;
      element("rect", {
        class: "lane",
        x: LABEL_WIDTH,
        y: y + 3,
        width: track,
        height: ROW_HEIGHT - 6,
        rx: 4,
      }, svg);
      const label = element("text", {
        class: row === this.#self ? "row-label self" : row === "grantor" ? "row-label grantor" : "row-label",
        x: LABEL_WIDTH - 10,
        y: y + ROW_HEIGHT / 2 + 4,
        "text-anchor": "end",
      }, svg);
      label.textContent = row === this.#self ? `${row} (you)` : row;
    });

    for (const segment of visible) {
      const index = ordered.indexOf(segment.row);
      const y = index * ROW_HEIGHT + 5;
      const end = segment.end ?? now;
      const x0 = x(segment.start);
      const x1 = Math.max(x0 + 2, x(end));
      const group = element("g", {
        class: "seg",
        "data-row": segment.row,
        "data-token": segment.token,
        "data-open": String(segment.end === null),
      }, svg);
      const title = element("title", {}, group);
      const who = segment.row === "grantor" ? `grantor: ${segment.holder ?? "?"}` : segment.row;
      title.textContent =
        `${who}, ${this.#tokenName} ${segment.token}, ${seconds(end - segment.start)}` +
        (segment.reason ? `, ended: ${segment.reason}` : segment.end === null ? ", now" : "");
      element("rect", {
        x: x0,
        y,
        width: x1 - x0,
        height: ROW_HEIGHT - 10,
        rx: 3,
        fill: tokenColour(segment.token),
      }, group);
      if (x1 - x0 > 22) {
        const text = element("text", { class: "seg-label", x: x0 + 6, y: y + ROW_HEIGHT / 2 - 1 }, group);
        text.textContent = String(segment.token);
      }
      if (segment.frozenUntil) {
        // The tab was frozen past the end of its hold and only learned of it on waking.
        const f1 = x(segment.frozenUntil);
        if (f1 > x1) {
          element("rect", {
            class: "seg-frozen",
            x: x1,
            y: y + 3,
            width: f1 - x1,
            height: ROW_HEIGHT - 16,
            fill: "url(#frozen-hatch)",
          }, group);
        }
      }
      if (segment.end !== null && segment.reason && segment.reason !== "released") {
        element("rect", { class: "seg-loss", x: x1 - 2, y: y - 2, width: 3, height: ROW_HEIGHT - 6 }, group);
      }
    }

    const axisY = ordered.length * ROW_HEIGHT + 14;
    for (let ago = Math.floor(this.#windowMs / 10_000) * 10_000; ago >= 0; ago -= 10_000) {
      const tx = x(now - ago);
      element("line", { class: "tick", x1: tx, x2: tx, y1: 0, y2: axisY - 10 }, svg);
      const text = element("text", { class: "axis", x: tx, y: axisY, "text-anchor": "middle" }, svg);
      text.textContent = ago === 0 ? "now" : `−${ago / 1000} s`;
    }
  }
}
