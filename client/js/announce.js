// The polite live region: turn changes and trick winners, read by screen readers.

let last = "";

export function announce(text) {
  const region = document.getElementById("live");
  if (!region || !text || text === last) return;
  last = text;
  // Clearing first makes repeated messages be read again.
  region.textContent = "";
  setTimeout(() => {
    region.textContent = text;
  }, 30);
}
