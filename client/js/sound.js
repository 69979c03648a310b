// The table's sounds, made with Web Audio (no sound file is downloaded): a card played, your
// turn (a two-note chime), a trick won (three rising notes). Silent until the player switches
// sound on (Table options), which also unlocks the browser's audio; remembered (options.js).

import { getOptions } from "./options.js";

let context = null;
/** What was played, by name (read by the browser tests). */
export const stats = { played: [] };

function audio() {
  const Maker = window.AudioContext || window.webkitAudioContext;
  if (!Maker) return null;
  if (!context) context = new Maker();
  if (context.state === "suspended") context.resume().catch(() => {});
  return context;
}

function tone(a, frequency, start, length, { type = "sine", volume = 0.07 } = {}) {
  const oscillator = a.createOscillator();
  const gain = a.createGain();
  const at = a.currentTime + start;
  oscillator.type = type;
  oscillator.frequency.setValueAtTime(frequency, at);
  gain.gain.setValueAtTime(0.0001, at);
  gain.gain.exponentialRampToValueAtTime(volume, at + 0.01);
  gain.gain.exponentialRampToValueAtTime(0.0001, at + length);
  oscillator.connect(gain).connect(a.destination);
  oscillator.start(at);
  oscillator.stop(at + length + 0.02);
}

const SOUNDS = {
  card: (a) => tone(a, 180, 0, 0.07, { type: "triangle", volume: 0.09 }),
  turn: (a) => {
    tone(a, 660, 0, 0.14);
    tone(a, 880, 0.13, 0.22);
  },
  trick: (a) => {
    tone(a, 523, 0, 0.1);
    tone(a, 659, 0.08, 0.1);
    tone(a, 784, 0.16, 0.18);
  },
};

/** Play a sound by name, if sound is on. */
export function playSound(name) {
  if (!getOptions().sound || !SOUNDS[name]) return;
  stats.played.push(name);
  try {
    const a = audio();
    if (a) SOUNDS[name](a);
  } catch {
    // no audio device: silence
  }
}

/** Sound was just switched on (a click): unlock the browser's audio now, with a chime. */
export function soundSwitchedOn() {
  audio();
  playSound("turn");
}

/** A short vibration on your turn, where the device has one and the option is on. */
export function vibrateTurn() {
  // Not before the first tap on the page (the browser refuses it then).
  const tapped = !navigator.userActivation || navigator.userActivation.hasBeenActive;
  if (getOptions().vibrate && navigator.vibrate && tapped) {
    try {
      navigator.vibrate(120);
    } catch {
      // not allowed before the first tap: nothing
    }
  }
}
