// Input: clicks on [data-action] elements and submits of form[data-form] become calls
// to the page's handlers. Buttons handle Enter and Space natively, so keyboard users get
// the same actions. Elements marked aria-disabled do nothing, unless the page has a
// `refused:<action>` handler, which is told (e.g. why a card cannot be played).

export function bindActions(root, handlers) {
  root.addEventListener("click", (event) => {
    const el = event.target.closest("[data-action]");
    if (!el || !root.contains(el)) return;
    if (el.getAttribute("aria-disabled") === "true" || el.disabled) {
      const refused = handlers[`refused:${el.dataset.action}`];
      if (refused && !el.disabled) {
        event.preventDefault();
        refused(el.dataset, el, event);
      }
      return;
    }
    const handler = handlers[el.dataset.action];
    if (!handler) return;
    event.preventDefault();
    handler(el.dataset, el, event);
  });
  root.addEventListener("submit", (event) => {
    const form = event.target.closest("form[data-form]");
    if (!form) return;
    event.preventDefault();
    const handler = handlers[`submit:${form.dataset.form}`];
    if (handler) handler(form, event);
  });
}
