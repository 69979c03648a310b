// The home page's Account section: a guest may create an account (a username and a
// password: the same player, their name and games kept) or sign in to one (with its
// password or a passkey); a signed-in browser may add a passkey, sign out, sign out
// everywhere, change the password or delete the account.
// The session is an HttpOnly cookie the server sets; this browser only remembers which
// account it is signed in to (storage.getAccount) and asks GET /api/me whether it still is.

import { announce } from "./announce.js";
import * as api from "./api.js";
import { h, mount, trackDirty } from "./dom.js";
import { bindActions } from "./input.js";
import { ensurePlayer } from "./player.js";
import * as storage from "./storage.js";

const USERNAME_HELP = "3 to 24 letters, digits, _ . or -";

// Passkeys need the browser's WebAuthn JSON helpers (Chromium 129+, Firefox 119+, Safari 18+).
const PASSKEYS = typeof window.PublicKeyCredential === "function"
  && typeof window.PublicKeyCredential.parseCreationOptionsFromJSON === "function";

function field(id, label, attrs) {
  return h("div", { class: "field" },
    h("label", { for: id }, label),
    h("input", { id, name: id, "data-key": id, required: true, ...attrs }));
}

function guestView(model) {
  return [
    h("h2", { id: "account-title" }, "Your account"),
    h("p", { class: "muted" }, "You are playing as a guest: this browser keeps your name and your games. " +
      "Create an account to keep them on every device, or sign in to the one you have."),
    h("div", { class: "row2 account-forms" },
      h("form", { "data-form": "create-account", "aria-label": "Create an account" },
        h("h3", {}, "Create an account"),
        field("account-username", "Username", { autocomplete: "username", maxlength: 24, pattern: "[A-Za-z0-9_.\\-]{3,24}", title: USERNAME_HELP }),
        field("account-password", "Password", { type: "password", autocomplete: "new-password", minlength: 8, maxlength: 256 }),
        h("button", { type: "submit", class: "btn primary", disabled: model.busy }, "Create account")),
      h("form", { "data-form": "sign-in", "aria-label": "Sign in" },
        h("h3", {}, "Sign in"),
        field("signin-username", "Username", { autocomplete: "username", maxlength: 64 }),
        field("signin-password", "Password", { type: "password", autocomplete: "current-password", maxlength: 256 }),
        h("button", { type: "submit", class: "btn", disabled: model.busy }, "Sign in"),
        PASSKEYS ? h("button", { type: "button", class: "btn", "data-action": "passkey-sign-in", disabled: model.busy }, "Sign in with a passkey") : null)),
  ];
}

function accountView(model) {
  const { account } = model;
  return [
    h("h2", { id: "account-title" }, "Your account"),
    h("p", { class: "signed-in" }, "Signed in as ", h("strong", {}, account.username), "."),
    // Shown to administrators only (GET /api/me says); the page's routes refuse anyone else.
    model.admin ? h("p", {}, h("a", { href: "/#admin", "data-testid": "admin-link" }, "Administration: reports, mutes and bans")) : null,
    h("div", { class: "inline" },
      h("button", { type: "button", class: "btn", "data-action": "sign-out", disabled: model.busy }, "Sign out"),
      h("button", { type: "button", class: "btn", "data-action": "sign-out-everywhere", disabled: model.busy }, "Sign out everywhere"),
      PASSKEYS ? h("button", { type: "button", class: "btn", "data-action": "add-passkey", disabled: model.busy }, "Add a passkey") : null),
    h("details", { class: "account-more", "data-key": "account-password-details", "data-keep-open": "" },
      h("summary", {}, "Change password"),
      h("form", { "data-form": "change-password" },
        field("current-password", "Current password", { type: "password", autocomplete: "current-password", maxlength: 256 }),
        field("new-password", "New password", { type: "password", autocomplete: "new-password", minlength: 8, maxlength: 256 }),
        h("button", { type: "submit", class: "btn", disabled: model.busy }, "Change password"))),
    h("details", { class: "account-more", "data-key": "account-delete-details", "data-keep-open": "" },
      h("summary", {}, "Delete account"),
      h("p", { class: "muted small" }, "Your name leaves every game and record (they show “Deleted player”); the games stay."),
      h("form", { "data-form": "delete-account" },
        field("delete-password", "Password", { type: "password", autocomplete: "current-password", maxlength: 256 }),
        h("button", { type: "submit", class: "btn danger", disabled: model.busy }, "Delete account"))),
  ];
}

function view(model) {
  return [
    model.account ? accountView(model) : guestView(model),
    model.error ? h("p", { class: "form-error", role: "alert" }, model.error) : null,
    model.notice ? h("p", { class: "muted", role: "status" }, model.notice) : null,
  ];
}

/** The Account section, in `el` (a section of the home page). */
export function startAccount(el) {
  const model = { account: storage.getAccount(), busy: false, error: null, notice: null };
  el.classList.add("card-panel", "account");
  el.setAttribute("aria-labelledby", "account-title");
  const render = () => mount(el, view(model));

  // Signed in or out: this browser's player changed, so the whole page starts again.
  const signedIn = (player) => {
    storage.setAccount({ id: player.id, username: player.username });
    storage.setPlayer(null); // a claimed guest's secret no longer works; a signed-in browser needs none
    if (player.name) storage.setName(player.name);
    location.reload();
  };
  const signedOut = () => {
    storage.setAccount(null);
    location.reload();
  };

  const run = async (work) => {
    model.busy = true;
    model.error = null;
    model.notice = null;
    render();
    try {
      await work();
    } catch (err) {
      // A passkey prompt closed without choosing one is no error worth a word.
      if (err.name === "NotAllowedError" || err.name === "AbortError") model.error = "No passkey was used.";
      else model.error = err.message || "Something went wrong";
    }
    model.busy = false;
    render();
  };
  const value = (form, name) => form.elements.namedItem(name).value;

  bindActions(el, {
    "submit:create-account": (form) => run(async () => {
      await ensurePlayer(); // the guest whose games the account keeps
      const made = await api.claimAccount({ username: value(form, "account-username").trim(), password: value(form, "account-password") });
      signedIn(made);
    }),
    "submit:sign-in": (form) => run(async () => {
      const player = await api.signIn({ username: value(form, "signin-username").trim(), password: value(form, "signin-password") });
      signedIn(player);
    }),
    "sign-out": () => run(async () => {
      await api.signOut();
      signedOut();
    }),
    "sign-out-everywhere": () => run(async () => {
      await api.signOutEverywhere();
      signedOut();
    }),
    "add-passkey": () => run(async () => {
      const { challenge_id: challengeId, options } = await api.passkeyOptions();
      const made = await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options) });
      await api.addPasskey({ challenge_id: challengeId, credential: made.toJSON() });
      model.notice = "Passkey added: sign in with it on any browser that has it.";
      announce(model.notice);
    }),
    "passkey-sign-in": () => run(async () => {
      const { challenge_id: challengeId, options } = await api.passkeySignInOptions();
      const used = await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options) });
      signedIn(await api.passkeySignIn({ challenge_id: challengeId, credential: used.toJSON() }));
    }),
    "submit:change-password": (form) => run(async () => {
      await api.changePassword({ current_password: value(form, "current-password"), new_password: value(form, "new-password") });
      form.reset();
      model.notice = "Password changed. Every other browser signed in to your account is signed out.";
      announce(model.notice);
    }),
    "submit:delete-account": (form) => run(async () => {
      const sure = window.confirm(`Delete the account ${model.account.username}? Your name leaves every game; this cannot be undone.`);
      if (!sure) return;
      await api.deleteAccount({ password: value(form, "delete-password") });
      signedOut();
    }),
  });
  trackDirty(el);
  render();

  // Still signed in? (The session may have been signed out elsewhere, or have lapsed.)
  if (model.account) {
    api.getMe().then((me) => {
      if (!me.account) signedOut();
      else if (me.admin) {
        model.admin = true;
        render();
      }
    }, (err) => {
      if (err.status === 401) {
        storage.setAccount(null);
        model.account = null;
        render();
      }
    });
  }
}
