// The game settings form, shared by "Create room" on the home page and the host's
// settings in a room. Its fields, limits, defaults and titles come from the server's
// RoomSettings, served as JSON Schema at GET /api/settings: nothing is repeated here but
// the presentation (the words for each choice, the order of the fields). The values offered
// as one click (`presets`) and Play solo's own settings (`solo`) are served beside it.

import { h } from "../dom.js";

async function loadSchema() {
  try {
    const response = await fetch("/api/settings");
    if (response.ok) return await response.json();
  } catch {
    // offline: fields without limits; the server still checks everything
  }
  return { properties: {}, $defs: {}, presets: {}, solo: {}, lengths: {} };
}

const SCHEMA = await loadSchema();
const FIELDS = SCHEMA.properties || {};
const RULES = ((SCHEMA.$defs || {}).RuleOptions || {}).properties || {};

const CHOICE_WORDS = {
  mode: { partnership: "Partners (2 vs 2)", individual: "Every player for themself" },
  bot_level: { easy: "Easy", basic: "Normal", strong: "Hard" },
};
const PRESETS = SCHEMA.presets || {};
// Named sets of rule options ("Classic" is the defaults), each over the defaults.
const RULE_PRESETS = SCHEMA.rule_presets || {};
const preset = (name) => PRESETS[name] || [];

/** A turn timer in words: "Off", "15 s", "1 min", "2 min". */
const turnWords = (seconds) => {
  if (!seconds) return "Off";
  return seconds % 60 ? `${seconds} s` : `${seconds / 60} min`;
};
/** A game clock in words: "None", "45 min", "1 hour", "1 h 30". */
const clockWords = (minutes) => {
  if (!minutes) return "None";
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (rest) return `${hours} h ${String(rest).padStart(2, "0")}`;
  return hours === 1 ? "1 hour" : `${hours} hours`;
};

/** The targets offered as one click, within the server's limits. */
export const targetPresets = () => preset("target").filter((t) => within(FIELDS.target, t));
/** The targets quick play offers (the server's SPADES_QUICKPLAY_TARGETS). */
export const quickPlayTargets = () => {
  const targets = (SCHEMA.quickplay || {}).targets;
  return Array.isArray(targets) && targets.length ? targets : targetPresets();
};
/** The turn timers offered, as [seconds, words]. */
export const turnChoices = () => preset("turn_seconds").map((s) => [s, turnWords(s)]);
const clockChoices = () => preset("game_minutes").map((m) => [m, clockWords(m)]);
// Rule options shown with the bids; the others go under "More rules", in schema order.
const BID_RULES = ["nil", "blind_nil"];
// Form names of the rule options (kept stable: saved forms and tests use them).
const RULE_IDS = {
  nil: "nil-check", blind_nil: "blind-nil-check", blind_nil_deficit: "deficit", bag_limit: "bag-limit",
  bag_penalty: "bag-penalty", nil_value: "nil-value", spades_must_be_broken: "broken-check",
  blind_nil_value: "blind-nil-value", bag_value: "bag-value", nil_tricks_count_for_partner: "partner-nil-check",
};
const ruleId = (name) => RULE_IDS[name] || `${name.replaceAll("_", "-")}${RULES[name].type === "boolean" ? "-check" : ""}`;

const choices = (name) => (FIELDS[name] && FIELDS[name].enum) || Object.keys(CHOICE_WORDS[name]);
const wordFor = (name, value) => (CHOICE_WORDS[name] || {})[value] || String(value);
const title = (field, fallback) => ((field && field.title) || fallback).replace(/ \(.*\)$/, "");
const within = (field, value) => !field
  || ((field.minimum === undefined || value >= field.minimum) && (field.maximum === undefined || value <= field.maximum));

/** The longest name and chat message the server takes (it may be set to take less). */
export { NAME_LENGTH, CHAT_LENGTH } from "../messages.js";

/** The target's limits as the server states them (`minimum`, `maximum`). */
export const TARGET_LIMITS = FIELDS.target || {};

// The client offers the levels it has a word for ("random" is for tests).
export const BOT_LEVELS = choices("bot_level")
  .filter((level) => level in CHOICE_WORDS.bot_level)
  .map((level) => [level, wordFor("bot_level", level)]);

/** The server's defaults for every setting. */
export function defaultSettings() {
  const settings = { rules: {} };
  for (const [name, field] of Object.entries(FIELDS)) if ("default" in field) settings[name] = field.default;
  for (const [name, field] of Object.entries(RULES)) settings.rules[name] = field.default;
  return settings;
}

/** Play solo's settings before any choice: the defaults, with the server's solo ones over them. */
export function soloDefaults() {
  return { ...defaultSettings(), ...(SCHEMA.solo || {}) };
}

function complete(settings) {
  const base = defaultSettings();
  return { ...base, ...settings, rules: { ...base.rules, ...((settings && settings.rules) || {}) } };
}

function radio(name, value, checked, label, extra = {}) {
  const id = `${name}-${value}`;
  return h("label", { class: "chip", for: id },
    h("input", { type: "radio", id, name, value: String(value), checked, "data-key": id, ...extra }),
    h("span", {}, label));
}

function select(name, options, current, label) {
  const id = `${name}-select`;
  return h("div", { class: "field" },
    h("label", { for: id }, label),
    h("select", { id, name, "data-key": id },
      options.map(([value, text]) => h("option", { value: String(value), selected: String(value) === String(current) }, text))));
}

function check(name, checked, label, hint) {
  const id = `${name}-check`;
  return h("label", { class: "check", for: id, title: hint || null },
    h("input", { type: "checkbox", id, name, checked, "data-key": id }),
    h("span", {}, label));
}

// A field's error, in words, right under it (the field is aria-invalid and described by it).
export function fieldError(id, errors) {
  const text = errors && errors[id];
  return text ? h("p", { class: "form-error field-error", id: `${id}-error` }, text) : null;
}

export function describedBy(id, hint, errors) {
  const ids = [errors && errors[id] ? `${id}-error` : null, hint ? `${id}-hint` : null].filter(Boolean);
  return ids.length ? ids.join(" ") : null;
}

function numberField(id, value, field, errors) {
  return h("div", { class: "field" },
    h("label", { for: id }, title(field, id)),
    h("input", {
      type: "number", id, name: id, min: field.minimum, max: field.maximum, value: String(value),
      inputmode: "numeric", "data-key": id, "aria-describedby": describedBy(id, field.description, errors),
      "aria-invalid": errors && errors[id] ? "true" : null,
    }),
    fieldError(id, errors),
    field.description ? h("small", { class: "muted small", id: `${id}-hint` }, field.description) : null);
}

/** A select's choices within the field's limits, with the current value kept. */
function limited(field, list, current) {
  const kept = list.filter(([value]) => within(field, value));
  if (!kept.some(([value]) => String(value) === String(current))) kept.push([current, String(current)]);
  return kept;
}

// One rule option's field (a check box or a number), its id under `prefix`.
function ruleFieldOf(prefix, rules, errors) {
  return (name) => {
    const field = RULES[name];
    const id = `${prefix}-${ruleId(name)}`;
    return field.type === "boolean"
      ? check(id.replace(/-check$/, ""), rules[name] !== false, title(field, name), field.description)
      : numberField(id, rules[name], field, errors);
  };
}

// "More rules": every rule option but the bids' (or every one, `withBids`), numbers first.
function moreRules(prefix, rules, errors, { withBids = false } = {}) {
  const ruleField = ruleFieldOf(prefix, rules, errors);
  const more = Object.keys(RULES).filter((name) => withBids || !BID_RULES.includes(name));
  // Open when a field in it has an error: the message must be seen.
  const open = Boolean(errors) && Object.keys(errors).some((id) => more.some((name) => id === `${prefix}-${ruleId(name)}`));
  return h("details", { class: "advanced", "data-key": `${prefix}-advanced`, "data-keep-open": open ? null : "", open },
    h("summary", {}, "More rules"),
    withBids ? h("div", { class: "checks" }, more.filter((name) => RULES[name].type === "boolean" && BID_RULES.includes(name)).map(ruleField)) : null,
    h("div", { class: "row2" }, more.filter((name) => RULES[name].type !== "boolean").map(ruleField)),
    more.filter((name) => RULES[name].type === "boolean" && !BID_RULES.includes(name)).map(ruleField));
}

/** Play solo's own rule options ("More rules", the bids' with them), filled from `rules`. */
export function soloRuleFields(rules, errors) {
  return moreRules("solo", { ...defaultSettings().rules, ...(rules || {}) }, errors, { withBids: true });
}

/** The fields, filled from `settings`. `prefix` keeps ids unique per form. `errors`: the
 * message of each field refused (by its id), said under it. */
export function settingsFields(given, { prefix = "new", includePublic = true, includeRated = false, errors = null } = {}) {
  const settings = complete(given);
  const p = (name) => `${prefix}-${name}`;
  const target = FIELDS.target || {};
  const presets = targetPresets();
  const custom = !presets.includes(Number(settings.target)) || Boolean(errors && errors[p("target-value")]);
  const rules = settings.rules;
  const ruleField = ruleFieldOf(prefix, rules, errors);
  return h("div", { class: "settings" },
    h("fieldset", { class: "field" },
      h("legend", {}, title(FIELDS.mode, "Mode")),
      h("div", { class: "chips" },
        choices("mode").map((mode) => radio(p("mode"), mode, settings.mode === mode, wordFor("mode", mode))))),
    h("fieldset", { class: "field" },
      h("legend", {}, title(target, "Play to")),
      h("div", { class: "chips" },
        presets.map((t) => radio(p("target"), t, !custom && Number(settings.target) === t, `${t}`)),
        radio(p("target"), "custom", custom, "Custom"),
        h("label", { class: "sr-only", for: p("target-value") }, "Custom target score"),
        h("input", {
          type: "number", id: p("target-value"), name: p("target-value"), class: "custom-target",
          min: target.minimum, max: target.maximum, inputmode: "numeric",
          placeholder: target.minimum !== undefined ? `${target.minimum}–${target.maximum}` : "",
          value: custom && Number.isFinite(Number(settings.target)) ? String(settings.target) : "", "data-key": p("target-value"),
          "data-custom-for": p("target"), "aria-invalid": errors && errors[p("target-value")] ? "true" : null,
          "aria-describedby": describedBy(p("target-value"), null, errors),
        })),
      fieldError(p("target-value"), errors)),
    h("div", { class: "row2" },
      select(p("turn"), limited(FIELDS.turn_seconds, turnChoices(), settings.turn_seconds), settings.turn_seconds, title(FIELDS.turn_seconds, "Turn timer")),
      select(p("clock"), limited(FIELDS.game_minutes, clockChoices(), settings.game_minutes), settings.game_minutes, title(FIELDS.game_minutes, "Game clock"))),
    presetField(prefix, settings.rules),
    h("fieldset", { class: "field" },
      h("legend", {}, "Bids"),
      h("div", { class: "checks" }, BID_RULES.filter((name) => RULES[name]).map(ruleField))),
    select(p("bots"), BOT_LEVELS, settings.bot_level, title(FIELDS.bot_level, "Bot level")),
    includePublic ? check(p("public"), Boolean(settings.public), title(FIELDS.public, "List in public rooms")) : null,
    // Rated is chosen when the room is made (and cannot be changed in it).
    includeRated ? check(p("rated"), Boolean(settings.rated), title(FIELDS.rated, "Rated"),
      "Ratings change with the result. A game that starts with bots in empty seats is not rated.") : null,
    moreRules(prefix, rules, errors));
}

/** Every number field of a form under `prefix` whose value the server would refuse, and a
 * custom target that is empty or out of range: {field id: the reason in words}. Nothing is
 * replaced by a default: a value refused is said, next to its field. */
export function settingsErrors(form, { prefix = "new" } = {}) {
  const errors = {};
  const p = (name) => `${prefix}-${name}`;
  const wholeIn = (id, field, what) => {
    const input = form.elements.namedItem(id);
    if (!input) return;
    const raw = String(input.value).trim();
    const low = field.minimum;
    const high = field.maximum;
    const range = low !== undefined && high !== undefined ? ` from ${low} to ${high}` : "";
    if (!/^-?\d+$/.test(raw)) errors[id] = raw === "" ? `Enter ${what}${range}.` : `${what[0].toUpperCase()}${what.slice(1)} must be a whole number${range}.`;
    else if ((low !== undefined && Number(raw) < low) || (high !== undefined && Number(raw) > high)) errors[id] = `${Number(raw)} is out of range: enter ${what}${range}.`;
  };
  const picked = form.querySelector(`input[name="${p("target")}"]:checked`);
  if (picked && picked.value === "custom") wholeIn(p("target-value"), FIELDS.target || {}, "a target score");
  for (const [name, field] of Object.entries(RULES)) {
    if (field.type !== "boolean") wholeIn(p(ruleId(name)), field, `a number for “${title(field, name)}”`);
  }
  return errors;
}

/** Where a server's refusal ("rules.bag_limit: Input should be …") belongs in a form under
 * `prefix`: {field id: the reason with the field's name}, or null when it names no field. */
export function serverFieldError(message, { prefix = "new" } = {}) {
  const match = /^(rules\.)?([a-z_]+): (.*)$/.exec(String(message || ""));
  if (!match) return null;
  const [, rule, name, why] = match;
  if (rule && RULES[name] && RULES[name].type !== "boolean") return { [`${prefix}-${ruleId(name)}`]: `${title(RULES[name], name)}: ${why}` };
  if (!rule && name === "target") return { [`${prefix}-target-value`]: `Target: ${why}` };
  return null;
}

/** Read Play solo's rule options (`solo-` fields) back from its form. */
export function readSoloRules(form) {
  const rules = {};
  for (const [name, field] of Object.entries(RULES)) {
    const input = form.elements.namedItem(`solo-${ruleId(name)}`);
    if (!input) continue;
    const value = Number.parseInt(input.value, 10);
    rules[name] = field.type === "boolean" ? input.checked : Number.isFinite(value) ? value : field.default;
  }
  return rules;
}

// Each rule away from the standard, in words (`text`) and in a few (`short`, for a summary
// line). The standard is the server's default.
const RULE_WORDS = {
  nil: (on) => (on ? ["Nil bids are allowed", "nil"] : ["No nil bids", "no nil"]),
  blind_nil: (on) => (on ? ["Blind nil is allowed", "blind nil"] : ["No blind nil", "no blind nil"]),
  blind_nil_deficit: (n) => [`Blind nil only for a side behind by ${n} points or more`, `blind nil when ${n} behind`],
  blind_bid_deficit: (n) => (n ? [`Blind bids of 6 or more, scored double, for a side behind by ${n} points or more`, `blind 6+ when ${n} behind`] : ["No blind bids of a number", "no blind 6+"]),
  nil_value: (n) => [`Nil is worth ${n} points`, `nil ${n}`],
  blind_nil_value: (n) => [`Blind nil is worth ${n} points`, `blind nil ${n}`],
  bag_value: (n) => [`Each bag (overtrick) is worth ${n} ${n === 1 ? "point" : "points"}`, `${n} per bag`],
  bag_limit: (n) => (n ? [`A bag penalty every ${n} bags`, `penalty every ${n} bags`] : ["No bag penalty", "no bag penalty"]),
  bag_penalty: (n) => [`The bag penalty costs ${n} points`, `bag penalty ${n}`],
  spades_must_be_broken: (on) => (on ? ["Spades may not be led until one has been played", "spades must be broken"] : ["Spades may be led at any time", "spades led any time"]),
  nil_tricks_count_for_partner: (on) => (on ? ["A failed nil's tricks count toward the partner's bid", "nil tricks count for partner"] : ["A failed nil's tricks do not count toward the partner's bid", "nil tricks not for partner"]),
  jokers: (on) => (on ? ["Jokers: the Big and Little Joker are the top trumps (the 2 of clubs and the 2 of hearts are out)", "jokers"] : ["No jokers", "no jokers"]),
  deuces: (on) => (on ? ["Deuce-Deuce: the 2 of diamonds, then the 2 of spades, are the next trumps below the jokers (the 2 of diamonds counts as a spade)", "deuce-deuce"] : ["No Deuce-Deuce", "no deuce-deuce"]),
  whiz: (on) => (on ? ["Whiz: every player bids nil or the number of spades they hold", "whiz"] : ["No whiz", "no whiz"]),
  mirror: (on) => (on ? ["Mirror: every player bids the number of spades they hold (none: nil)", "mirror"] : ["No mirror", "no mirror"]),
  suicide: (on) => (on ? ["Suicide: one partner of each team bids nil, the other a number", "suicide"] : ["No suicide", "no suicide"]),
  suicide_min_bid: (n) => [`Under suicide, the partner who does not bid nil bids ${n} or more`, `suicide bid ${n}+`],
  min_team_bid: (n) => (n ? [`Partners must bid at least ${n} together (nil counts 0)`, `team bid ${n}+`] : ["No minimum team bid", "no minimum bid"]),
  big_bid: (n) => (n ? [`A contract of ${n} or more scores the big bid value, made or set`, `big bid from ${n}`] : ["No big-bid bonus", "no big bid"]),
  big_bid_value: (n) => [`A big contract is worth ${n} points`, `big bid worth ${n}`],
  moon_bonus: (n) => (n ? [`Taking all 13 tricks (contract made) scores ${n} more`, `moon +${n}`] : ["No moon bonus", "no moon bonus"]),
  moon_wins: (on) => (on ? ["Taking all 13 tricks (contract made) wins the game", "moon wins"] : ["Taking all 13 tricks does not end the game", "moon does not win"]),
  set_out_after: (n) => (n ? [`A team set ${n} ${n === 1 ? "hand" : "hands in a row"} loses the game`, `set out after ${n}`] : ["No set-out rule", "no set out"]),
  mercy_score: (n) => (n ? [`A team at −${n} or below loses the game`, `mercy at −${n}`] : ["No mercy rule", "no mercy"]),
};

/** The name of the rule preset `rules` are exactly, or "" when they are none of them. */
export function presetOf(rules) {
  const all = { ...defaultSettings().rules, ...(rules || {}) };
  for (const [name, preset] of Object.entries(RULE_PRESETS)) {
    const want = { ...defaultSettings().rules, ...preset };
    if (Object.keys(RULES).every((key) => all[key] === want[key])) return name;
  }
  return "";
}

// The preset choice: picking one fills every rule field of the form with it.
function presetField(prefix, rules) {
  const names = Object.keys(RULE_PRESETS);
  if (!names.length) return null;
  const current = presetOf(rules);
  const options = [...names.map((name) => [name, name]), ...(current ? [] : [["", "Custom"]])];
  const field = select(`${prefix}-preset`, options, current, "Rules preset");
  field.querySelector("select").dataset.rulePreset = prefix;
  return field;
}

function applyPreset(root, prefix, name) {
  const rules = { ...defaultSettings().rules, ...(RULE_PRESETS[name] || {}) };
  for (const [key, field] of Object.entries(RULES)) {
    const input = root.querySelector(`#${prefix}-${ruleId(key)}`);
    if (!input) continue;
    if (field.type === "boolean") input.checked = Boolean(rules[key]);
    else input.value = String(rules[key]);
  }
}

/** The rules of `settings` that differ from the standard: [{ name, text, short, standard }]. */
export function houseRules(settings) {
  const rules = { ...defaultSettings().rules, ...((settings && settings.rules) || {}) };
  const out = [];
  for (const [name, field] of Object.entries(RULES)) {
    if (rules[name] === field.default || rules[name] === undefined) continue;
    const words = RULE_WORDS[name] ? RULE_WORDS[name](rules[name]) : [`${title(field, name)}: ${shown(name, rules[name])}`, `${title(field, name).toLowerCase()} ${shown(name, rules[name])}`];
    // A rule that is off by default (0) says so, not "standard: 0" after its own words.
    const standard = typeof field.default === "boolean" ? null : `standard: ${field.default === 0 ? "off" : field.default}`;
    out.push({ name, text: words[0], short: words[1], standard });
  }
  return out;
}

/** Every rule in words, each marked when it is a house rule: [{ name, text, house }]. */
export function allRules(settings) {
  const rules = { ...defaultSettings().rules, ...((settings && settings.rules) || {}) };
  return Object.entries(RULES).map(([name, field]) => {
    const words = RULE_WORDS[name] ? RULE_WORDS[name](rules[name]) : [`${title(field, name)}: ${shown(name, rules[name])}`];
    return { name, text: words[0], house: rules[name] !== field.default };
  });
}

/** Read the fields back into a settings object (the wire form of POST /api/rooms). */
export function readSettings(form, { prefix = "new", includePublic = true } = {}) {
  const p = (name) => `${prefix}-${name}`;
  const el = (name) => form.elements.namedItem(p(name));
  const defaults = defaultSettings();
  const picked = form.querySelector(`input[name="${p("target")}"]:checked`);
  let target = picked ? picked.value : String(defaults.target);
  if (target === "custom") target = el("target-value").value;
  const num = (name, fallback) => {
    const v = Number.parseInt(el(name) && el(name).value, 10);
    return Number.isFinite(v) ? v : fallback;
  };
  const rules = {};
  for (const [name, field] of Object.entries(RULES)) {
    const input = el(ruleId(name));
    if (!input) continue;
    rules[name] = field.type === "boolean" ? input.checked : num(ruleId(name), field.default);
  }
  const settings = {
    mode: form.querySelector(`input[name="${p("mode")}"]:checked`)?.value || defaults.mode,
    target: Number.parseInt(target, 10) || defaults.target,
    turn_seconds: num("turn-select", defaults.turn_seconds),
    game_minutes: num("clock-select", defaults.game_minutes),
    rules,
    bot_level: el("bots-select").value,
  };
  if (includePublic) settings.public = el("public-check").checked;
  const rated = el("rated-check");
  if (rated) settings.rated = rated.checked;
  return settings;
}

/** Typing a custom target picks the "Custom" choice. */
export function wireCustomTarget(root) {
  root.addEventListener("change", (event) => {
    const prefix = event.target.dataset && event.target.dataset.rulePreset;
    if (prefix && event.target.value) applyPreset(root, prefix, event.target.value);
  });
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

function shown(name, value) {
  if (typeof value === "boolean") return value ? "on" : "off";
  if (CHOICE_WORDS[name]) return wordFor(name, value);
  return String(value);
}

/** What saving changed, in words: "Play to 300 → 500; Nil off". Empty when nothing did. */
export function settingsChanges(before, after) {
  const was = complete(before);
  const now = complete(after);
  const changes = [];
  for (const [name, field] of Object.entries(FIELDS)) {
    if (name === "rules" || was[name] === now[name]) continue;
    changes.push(`${title(field, name)} ${shown(name, was[name])} → ${shown(name, now[name])}`);
  }
  for (const [name, field] of Object.entries(RULES)) {
    if (was.rules[name] === now.rules[name]) continue;
    changes.push(`${title(field, name)} ${shown(name, was.rules[name])} → ${shown(name, now.rules[name])}`);
  }
  return changes.join("; ");
}

/** One line describing settings, e.g. "Partners · to 300 · 30 s turns · Normal bots". */
export function settingsSummary(settings) {
  const parts = [settings.mode === "individual" ? "Every player for themself" : "Partners", `to ${Number.isFinite(settings.target) ? settings.target : "?"}`];
  if (settings.rated) parts.unshift("Rated");
  if (settings.turn_seconds) parts.push(`${settings.turn_seconds} s turns`);
  if (settings.game_minutes) parts.push(`${settings.game_minutes} min clock`);
  parts.push(`${wordFor("bot_level", settings.bot_level)} bots`);
  const house = houseRules(settings);
  parts.push(house.length ? `house rules: ${house.map((rule) => rule.short).join(", ")}` : "standard rules");
  return parts.join(" · ");
}
