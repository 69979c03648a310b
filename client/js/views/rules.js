// A room's rules in words, for everyone: the lobby's list of its house rules (every rule
// away from the standard, the server's default) and the table's "Rules" sheet.

import { h } from "../dom.js";
import { allRules, houseRules, settingsSummary } from "./settings.js";
import { dialog } from "./sheets.js";

function houseList(settings) {
  const house = houseRules(settings);
  if (!house.length) return h("p", { class: "muted small" }, "Standard rules: nothing differs from the rule book.");
  return h("ul", { class: "house-list" },
    house.map((rule) => h("li", {}, rule.text, rule.standard ? h("span", { class: "muted" }, ` (${rule.standard})`) : null)));
}

/** The lobby's block: the house rules, or that the rules are the standard ones. */
export function houseRulesBlock(settings) {
  const house = houseRules(settings);
  return h("section", { class: "house-rules", "aria-labelledby": "house-rules-title" },
    h("h2", { id: "house-rules-title", class: "panel-title" }, house.length ? `House rules (${house.length})` : "Rules"),
    houseList(settings));
}

/** The table's "Rules" dialog: the summary, the house rules, then every rule in words. */
export function rulesSheet(settings) {
  return dialog("rules-title", "rules-sheet",
    h("h2", { id: "rules-title", tabindex: "-1", "data-key": "rules-title" }, "Rules of this table"),
    h("p", { class: "muted" }, settingsSummary(settings)),
    h("h3", {}, "House rules"),
    houseList(settings),
    h("h3", {}, "Every rule"),
    h("ul", { class: "all-rules" },
      allRules(settings).map((rule) => h("li", {}, rule.text, rule.house ? h("span", { class: "tag house-tag" }, "House rule") : null))),
    h("div", { class: "sheet-actions" },
      h("button", { type: "button", class: "btn primary", "data-action": "close-rules", "data-key": "close-rules" }, "Close")));
}
