// Building and swapping DOM. Text from the server (names, chat) is always a text node:
// nothing here ever parses a string as HTML.

const SVG_NS = "http://www.w3.org/2000/svg";

function setAttrs(el, attrs) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.setAttribute("class", Array.isArray(value) ? value.filter(Boolean).join(" ") : value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "value") el.value = value;
    else if (key === "checked" || key === "selected") el[key] = Boolean(value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
}

function addChildren(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) addChildren(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
}

/** An HTML element: h("button", {class: "x"}, "text", otherNode, [more]). */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  addChildren(el, children);
  return el;
}

/** An SVG element, same calling convention as h(). */
export function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs);
  addChildren(el, children);
  return el;
}

function keyOf(el) {
  const keyed = el && el.closest ? el.closest("[data-key]") : null;
  return keyed ? keyed.dataset.key : null;
}

/**
 * Replace the children of `container` with `nodes`, keeping what the user was doing:
 * the focused control (by data-key, else another of its data-group, else data-focus-home),
 * values typed into keyed fields, open <details>, and scroll positions of keyed lists.
 */
export function mount(container, nodes) {
  const active = document.activeElement;
  const hadFocus = active && active !== document.body && container.contains(active);
  const focusKey = hadFocus ? keyOf(active) : null;
  const focusGroup = hadFocus && active.closest("[data-group]") ? active.closest("[data-group]").dataset.group : null;

  const kept = new Map();
  for (const el of container.querySelectorAll("[data-key]")) {
    kept.set(el.dataset.key, {
      dirty: el.dataset.dirty === "1",
      value: el.value,
      checked: el.checked,
      open: el.tagName === "DETAILS" ? el.open : undefined,
      scroll: el.dataset.keepScroll ? el.scrollTop : undefined,
    });
  }

  container.replaceChildren(...[nodes].flat(Infinity).filter(Boolean));

  for (const el of container.querySelectorAll("[data-key]")) {
    const old = kept.get(el.dataset.key);
    if (!old) continue;
    if (old.dirty) {
      if (el.type === "checkbox" || el.type === "radio") el.checked = old.checked;
      else el.value = old.value;
      el.dataset.dirty = "1";
    }
    if (old.open !== undefined && el.dataset.keepOpen !== undefined) el.open = old.open;
    if (old.scroll !== undefined) el.scrollTop = old.scroll;
  }

  if (!hadFocus) return;
  let target = focusKey ? container.querySelector(`[data-key="${CSS.escape(focusKey)}"]`) : null;
  if (!target && focusGroup) {
    const group = container.querySelector(`[data-group="${CSS.escape(focusGroup)}"]`);
    target = group ? group.querySelector("[data-key]:not([aria-disabled='true'])") : null;
  }
  if (!target) target = container.querySelector("[data-focus-home]");
  if (target) target.focus({ preventScroll: true });
}

/** Mark keyed form fields as edited by the user, so mount() keeps their values. */
export function trackDirty(root) {
  const mark = (event) => {
    const el = event.target;
    if (el && el.dataset && el.dataset.key) el.dataset.dirty = "1";
  };
  root.addEventListener("input", mark);
  root.addEventListener("change", mark);
}

/** A table box that scrolls sideways (wider than its room) takes the focus, so a keyboard
 * can scroll it; one that fits is skipped by Tab. Run after drawing and on resize. */
export function focusWideTables(root) {
  for (const box of root.querySelectorAll(".table-scroll")) {
    const wide = box.scrollWidth > box.clientWidth + 1;
    if (wide && box.getAttribute("tabindex") !== "0") box.setAttribute("tabindex", "0");
    else if (!wide && box.hasAttribute("tabindex")) box.removeAttribute("tabindex");
  }
}
