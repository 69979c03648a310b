// The game settings form, shared by "Create room" on the home page and the host's
// settings in a room: mode, target, timers, nil options, bot level, public.

import { h } from "../dom.js";

const TARGET_PRESETS = [200, 300, 500];
const TURN_CHOICES = [[0, "Off"], [15, "15 s"], [30, "30 s"], [60, "1 min"], [120, "2 min"]];
const CLOCK_CHOICES = [[0, "None"], [15, "15 min"], [30, "30 min"], [45, "45 min"], [60, "1 hour"], [90, "1 h 30"]];
export const BOT_LEVELS = [["easy", "Easy"], ["basic", "Normal"], ["strong", "Hard"]];

function radio(name, value, checked, label, extra = {}) {
  const id = `${name}-${value}`;
  return h("label", { class: "chip", for: id },
    h("input", { type: "radio", id, name, value: String(value), checked, "data-key": id, ...extra }),
    h("span", {}, label));
}

function select(name, choices, current, label) {
  const id = `${name}-select`;
  return h("div", { class: "field" },
    h("label", { for: id }, label),
    h("select", { id, name, "data-key": id },
      choices.map(([value, text]) => h("option", { value: String(value), selected: String(value) === String(current) }, text))));
}

function check(name, checked, label) {
  const id = `${name}-check`;
  return h("label", { class: "check", for: id },
    h("input", { type: "checkbox", id, name, checked, "data-key": id }),
    h("span", {}, label));
}

/** The fields, filled from `settings`. `prefix` keeps ids unique per form. */
export function settingsFields(settings, { prefix = "new", includePublic = true } = {}) {
  const p = (name) => `${prefix}-${name}`;
  const custom = !TARGET_PRESETS.includes(Number(settings.target));
  const rules = settings.rules || {};
  return h("div", { class: "settings" },
    h("fieldset", { class: "field" },
      h("legend", {}, "Mode"),
      h("div", { class: "chips" },
        radio(p("mode"), "partnership", settings.mode === "partnership", "Partners (2 vs 2)"),
        radio(p("mode"), "individual", settings.mode === "individual", "Every player for themself"))),
    h("fieldset", { class: "field" },
      h("legend", {}, "Play to"),
      h("div", { class: "chips" },
        TARGET_PRESETS.map((t) => radio(p("target"), t, !custom && Number(settings.target) === t, `${t}`)),
        radio(p("target"), "custom", custom, "Custom"),
        h("label", { class: "sr-only", for: p("target-value") }, "Custom target score"),
        h("input", {
          type: "number", id: p("target-value"), name: p("target-value"), class: "custom-target",
          min: 1, max: 10000, inputmode: "numeric", placeholder: "e.g. 250",
          value: custom ? String(settings.target) : "", "data-key": p("target-value"),
          "data-custom-for": p("target"),
        }))),
    h("div", { class: "row2" },
      select(p("turn"), TURN_CHOICES, settings.turn_seconds, "Turn timer"),
      select(p("clock"), CLOCK_CHOICES, settings.game_minutes, "Game clock")),
    h("fieldset", { class: "field" },
      h("legend", {}, "Bids"),
      h("div", { class: "checks" },
        check(p("nil"), rules.nil !== false, "Nil"),
        check(p("blind-nil"), rules.blind_nil !== false, "Blind nil"))),
    select(p("bots"), BOT_LEVELS, settings.bot_level, "Bot level"),
    includePublic ? check(p("public"), Boolean(settings.public), "List in public rooms") : null,
    h("details", { class: "advanced", "data-key": p("advanced"), "data-keep-open": "" },
      h("summary", {}, "More rules"),
      h("div", { class: "row2" },
        numberField(p("deficit"), rules.blind_nil_deficit ?? 100, "Blind nil when behind by", 0, 10000),
        numberField(p("bag-limit"), rules.bag_limit ?? 10, "Bags per penalty (0 = off)", 0, 100),
        numberField(p("bag-penalty"), rules.bag_penalty ?? 100, "Bag penalty", 0, 1000),
        numberField(p("nil-value"), rules.nil_value ?? 100, "Nil is worth", 0, 1000)),
      check(p("broken"), rules.spades_must_be_broken !== false, "Spades must be broken before they are led")));
}

function numberField(id, value, label, min, max) {
  return h("div", { class: "field" },
    h("label", { for: id }, label),
    h("input", { type: "number", id, name: id, min, max, value: String(value), inputmode: "numeric", "data-key": id }));
}

/** Read the fields back into a settings object (the wire form of POST /api/rooms). */
export function readSettings(form, { prefix = "new", includePublic = true } = {}) {
  const p = (name) => `${prefix}-${name}`;
  const el = (name) => form.elements.namedItem(p(name));
  const picked = form.querySelector(`input[name="${p("target")}"]:checked`);
  let target = picked ? picked.value : "300";
  if (target === "custom") target = el("target-value").value;
  const num = (name, fallback) => {
    const v = Number.parseInt(el(name) && el(name).value, 10);
    return Number.isFinite(v) ? v : fallback;
  };
  const settings = {
    mode: form.querySelector(`input[name="${p("mode")}"]:checked`)?.value || "partnership",
    target: Number.parseInt(target, 10) || 300,
    turn_seconds: num("turn-select", 0),
    game_minutes: num("clock-select", 0),
    rules: {
      nil: el("nil-check").checked,
      blind_nil: el("blind-nil-check").checked,
      blind_nil_deficit: num("deficit", 100),
      bag_limit: num("bag-limit", 10),
      bag_penalty: num("bag-penalty", 100),
      nil_value: num("nil-value", 100),
      spades_must_be_broken: el("broken-check").checked,
    },
    bot_level: el("bots-select").value,
  };
  if (includePublic) settings.public = el("public-check").checked;
  return settings;
}

/** Typing a custom target picks the "Custom" choice. */
export function wireCustomTarget(root) {
  root.addEventListener("input", (event) => {
    const forName = event.target.dataset && event.target.dataset.customFor;
    if (!forName) return;
    const choice = root.querySelector(`input[name="${forName}"][value="custom"]`);
    if (choice) {
      choice.checked = true;
      choice.dataset.dirty = "1";
    }
  });
}

/** One line describing settings, e.g. "Partners · to 300 · 30 s turns · Normal bots". */
export function settingsSummary(settings) {
  const parts = [settings.mode === "individual" ? "Every player for themself" : "Partners", `to ${settings.target}`];
  if (settings.turn_seconds) parts.push(`${settings.turn_seconds} s turns`);
  if (settings.game_minutes) parts.push(`${settings.game_minutes} min clock`);
  const rules = settings.rules || {};
  if (rules.nil === false) parts.push("no nil");
  if (rules.blind_nil === false) parts.push("no blind nil");
  const level = BOT_LEVELS.find(([v]) => v === settings.bot_level);
  parts.push(`${level ? level[1] : settings.bot_level} bots`);
  return parts.join(" · ");
}
