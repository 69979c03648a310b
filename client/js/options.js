// The player's table options, kept in this browser (localStorage `spades.options`): sound
// (off until switched on), a vibration on your turn, motion (on unless the system asks for
// reduced motion), larger cards, a four-colour deck, auto-play of a forced last card, and
// quick chat shown or hidden.

const KEY = "spades.options";
const DEFAULTS = Object.freeze({ sound: false, vibrate: true, motion: true, large: false, fourColour: false, autoPlay: false, hideQuick: false });

let current = read();

function read() {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) || "{}");
    const picked = {};
    for (const name of Object.keys(DEFAULTS)) if (typeof saved[name] === "boolean") picked[name] = saved[name];
    return { ...DEFAULTS, ...picked };
  } catch {
    return { ...DEFAULTS };
  }
}

/** The options as they are now. */
export function getOptions() {
  return current;
}

/** Change one option, remember it, and show what it changes on the page at once. */
export function setOption(name, value) {
  if (!(name in DEFAULTS)) return;
  current = { ...current, [name]: Boolean(value) };
  try {
    localStorage.setItem(KEY, JSON.stringify(current));
  } catch {
    // private mode: kept for this page only
  }
  applyOptions();
}

/** The look the options give the page: classes on <body> the stylesheet reads. */
export function applyOptions() {
  document.body.classList.toggle("opt-large-cards", current.large);
  document.body.classList.toggle("opt-four-colour", current.fourColour);
  document.body.classList.toggle("opt-no-motion", !current.motion);
}

/** Whether the table moves: the Motion option on, and the system not asking for reduced motion. */
export function motionOn() {
  const reduced = Boolean(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
  return current.motion && !reduced;
}
