// The administrators' page, /#admin: the open reports with their context (the message, the
// room, the game and its seq, who reported, the room's chat before it), a form to mute or
// ban a player or an address range with a reason and an end, the sanctions in force (each
// can be lifted), closing a room, and the audit log. Everything goes through the
// /api/admin/... routes, which answer administrators only: anyone else is shown a short
// refusal here and nothing of the rest (the server refuses them whatever they send).

import { announce } from "./announce.js";
import * as api from "./api.js";
import { h, mount, trackDirty } from "./dom.js";
import { bindActions } from "./input.js";

// How long a mute or a ban lasts (minutes), as offered; the server takes 1 minute to 10 years.
const DURATIONS = [[60, "1 hour"], [1440, "1 day"], [10080, "7 days"], [43200, "30 days"], [525600, "1 year"]];
const AUDIT_PAGE = 50;

const ACTIONS = {
  grant: "gave the administrator role to",
  revoke: "took the administrator role from",
  mute: "muted the chat of",
  ban: "banned from play",
  lift_mute: "lifted a mute of",
  lift_ban: "lifted a ban of",
  close_report: "closed report",
  close_room: "closed room",
};

/** A stored time as the server says it to the players it refuses: "2026-12-07 18:00 UTC". */
function utc(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "" : `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

function named(name, id) {
  if (!id) return name || "nobody known";
  return name ? `${name} · ${id}` : id;
}

// --- the reports -------------------------------------------------------------------------

function contextView(report) {
  if (!report.context || !report.context.length) return h("p", { class: "muted small" }, "The room's chat is no longer kept.");
  const reportedAt = report.message_at ? new Date(report.message_at).getTime() : null;
  return h("details", { class: "report-context", "data-key": `context-${report.id}`, "data-keep-open": "" },
    h("summary", {}, `The room's last ${report.context.length} chat messages`),
    h("ol", { class: "admin-chat" },
      report.context.map((m) => {
        // (`at` is rounded to the millisecond, the stored time has microseconds)
        const reported = reportedAt !== null && Math.abs(m.at - reportedAt) <= 1 && m.text === report.message;
        return h("li", { class: reported ? "reported" : null },
          h("strong", {}, `${m.name}: `), h("span", {}, m.text),
          reported ? h("span", { class: "tag" }, "reported") : null);
      })));
}

function reportItem(report) {
  const titleId = `report-${report.id}-title`;
  const who = report.name || report.player_name || "a spectator";
  return h("li", { class: "admin-item", "data-key": `report-${report.id}` },
    h("h3", { id: titleId }, `Report ${report.id}: ${who}`),
    h("dl", { class: "admin-facts" },
      h("dt", {}, "Reported player"), h("dd", {}, named(report.player_name, report.player_id),
        report.name ? ` (called “${report.name}” in the room)` : null),
      h("dt", {}, "Reported by"), h("dd", {}, named(report.reporter_name, report.reporter_id), ` at ${utc(report.at)}`),
      h("dt", {}, "Room"), h("dd", {}, report.room
        ? h("a", { href: `/r/${encodeURIComponent(report.room)}` }, report.room) : "none",
      report.seat !== null && report.seat !== undefined ? `, seat ${report.seat}` : ", a spectator"),
      h("dt", {}, "Game"), h("dd", {},
        report.game_id !== null && report.game_id !== undefined
          ? h("a", { href: `/#review/${report.game_id}` }, `game ${report.game_id}`) : "none given",
        report.seq !== null && report.seq !== undefined ? `, seq ${report.seq}` : null),
      h("dt", {}, "Reason"), h("dd", {}, report.reason)),
    report.message
      ? h("blockquote", { class: "reported-message" }, h("span", { class: "sr-only" }, "The message: "), report.message,
        h("span", { class: "muted small" }, ` (said ${utc(report.message_at)})`))
      : null,
    contextView(report),
    h("div", { class: "admin-actions" },
      report.player_id
        ? h("button", { type: "button", class: "btn small", "data-action": "sanction-player", "data-player": report.player_id, "data-key": `sanction-${report.id}` }, `Mute or ban ${who}`)
        : null,
      report.room
        ? h("button", { type: "button", class: "btn small", "data-action": "pick-room", "data-room": report.room, "data-key": `room-${report.id}` }, `Close room ${report.room}…`)
        : null,
      h("button", { type: "button", class: "btn small ghost", "data-action": "close-report", "data-id": String(report.id), "data-key": `close-${report.id}` }, "Mark dealt with")));
}

function reportsView(model) {
  const reports = model.reports || [];
  return h("section", { class: "card-panel", "aria-labelledby": "reports-title" },
    h("div", { class: "panel-head" },
      h("h2", { id: "reports-title" }, `Open reports (${reports.length})`),
      h("button", { type: "button", class: "btn small ghost", "data-action": "reload" }, "Refresh")),
    reports.length
      ? h("ol", { class: "admin-list", "aria-labelledby": "reports-title" }, reports.map(reportItem))
      : h("p", { class: "muted" }, "No open report."));
}

// --- sanctions ---------------------------------------------------------------------------

function sanctionForm(model) {
  return h("section", { class: "card-panel", "aria-labelledby": "sanction-title" },
    h("h2", { id: "sanction-title" }, "Mute or ban"),
    h("form", { "data-form": "sanction", class: "sanction-form", novalidate: true },
      h("fieldset", { class: "field" },
        h("legend", {}, "What"),
        h("div", { class: "checks" },
          h("label", { class: "check" }, h("input", { type: "radio", name: "sanction-kind", value: "mute", checked: true, "data-key": "kind-mute" }), "Mute chat"),
          h("label", { class: "check" }, h("input", { type: "radio", name: "sanction-kind", value: "ban", "data-key": "kind-ban" }), "Ban from playing and chatting"))),
      h("div", { class: "row2" },
        h("div", { class: "field" },
          h("label", { for: "sanction-player" }, "Player id"),
          h("input", { id: "sanction-player", name: "sanction-player", autocomplete: "off", maxlength: 32, "data-key": "sanction-player", "aria-describedby": "sanction-whom" })),
        h("div", { class: "field" },
          h("label", { for: "sanction-network" }, "Or an address range"),
          h("input", { id: "sanction-network", name: "sanction-network", autocomplete: "off", maxlength: 64, placeholder: "203.0.113.0/24", "data-key": "sanction-network", "aria-describedby": "sanction-whom" }))),
      h("p", { class: "muted small", id: "sanction-whom" }, "Fill one of the two. A range may hold many players who did nothing (a school, a mobile network): prefer the player."),
      h("div", { class: "field" },
        h("label", { for: "sanction-reason" }, "Reason (the player reads it)"),
        h("input", { id: "sanction-reason", name: "sanction-reason", autocomplete: "off", maxlength: 500, required: true, "data-key": "sanction-reason" })),
      h("div", { class: "field" },
        h("label", { for: "sanction-minutes" }, "For"),
        h("select", { id: "sanction-minutes", name: "sanction-minutes", "data-key": "sanction-minutes" },
          DURATIONS.map(([minutes, label]) => h("option", { value: String(minutes), selected: minutes === 1440 }, label)))),
      h("button", { type: "submit", class: "btn primary", disabled: model.busy }, "Apply"),
      model.formError ? h("p", { class: "form-error", role: "alert" }, model.formError) : null));
}

function sanctionRow(s) {
  const whom = s.player_id ? named(s.player_name, s.player_id) : `addresses ${s.network}`;
  return h("tr", { "data-key": `sanction-${s.id}` },
    h("td", {}, s.kind === "ban" ? "Ban" : "Mute"),
    h("td", {}, whom),
    h("td", {}, s.reason),
    h("td", {}, utc(s.ends_at)),
    h("td", {}, s.created_by ? named(s.created_by_name, s.created_by) : "command line"),
    h("td", {}, h("button", {
      type: "button", class: "btn small", "data-action": "lift", "data-id": String(s.id),
      "aria-label": `Lift the ${s.kind} of ${s.player_name || s.player_id || s.network}`,
    }, "Lift")));
}

function sanctionsView(model) {
  const rows = model.sanctions || [];
  return h("section", { class: "card-panel", "aria-labelledby": "sanctions-title" },
    h("h2", { id: "sanctions-title" }, `Mutes and bans in force (${rows.length})`),
    rows.length
      ? h("div", { class: "table-scroll" },
        h("table", { class: "stats-table admin-table", "aria-labelledby": "sanctions-title" },
          h("thead", {}, h("tr", {}, ["What", "Whom", "Reason", "Until", "By", ""].map((t) => h("th", { scope: "col" }, t)))),
          h("tbody", {}, rows.map(sanctionRow))))
      : h("p", { class: "muted" }, "None."));
}

// --- rooms and the audit log -------------------------------------------------------------

function closeRoomView(model) {
  return h("section", { class: "card-panel", "aria-labelledby": "close-room-title" },
    h("h2", { id: "close-room-title" }, "Close a room"),
    h("p", { class: "muted small" }, "Everyone in it is told the reason and disconnected; its finished games stay."),
    h("form", { "data-form": "close-room", novalidate: true },
      h("div", { class: "row2" },
        h("div", { class: "field" },
          h("label", { for: "close-code" }, "Room code"),
          h("input", { id: "close-code", name: "close-code", autocomplete: "off", maxlength: 16, required: true, "data-key": "close-code" })),
        h("div", { class: "field" },
          h("label", { for: "close-reason" }, "Reason (everyone in it reads it)"),
          h("input", { id: "close-reason", name: "close-reason", autocomplete: "off", maxlength: 300, required: true, "data-key": "close-reason" }))),
      h("button", { type: "submit", class: "btn danger", disabled: model.busy }, "Close the room"),
      model.roomError ? h("p", { class: "form-error", role: "alert" }, model.roomError) : null));
}

function detailText(entry) {
  const d = entry.detail || {};
  return [d.reason ? `“${d.reason}”` : null, d.ends_at ? `until ${utc(d.ends_at)}` : null, d.id !== undefined ? `#${d.id}` : null]
    .filter(Boolean).join(" ");
}

function auditView(model) {
  const entries = model.audit || [];
  return h("section", { class: "card-panel", "aria-labelledby": "audit-title" },
    h("h2", { id: "audit-title" }, "Audit log"),
    entries.length
      ? h("div", { class: "table-scroll" },
        h("table", { class: "stats-table admin-table", "aria-labelledby": "audit-title" },
          h("thead", {}, h("tr", {}, ["When", "Who", "Did", "To", "Detail"].map((t) => h("th", { scope: "col" }, t)))),
          h("tbody", {}, entries.map((e) => h("tr", { "data-key": `audit-${e.id}` },
            h("td", {}, utc(e.at)),
            h("td", {}, e.actor_id ? named(e.actor_name, e.actor_id) : "command line"),
            h("td", {}, ACTIONS[e.action] || e.action),
            h("td", {}, e.target_name ? `${e.target_name} · ${e.target}` : e.target || ""),
            h("td", {}, detailText(e)))))))
      : h("p", { class: "muted" }, "Nothing yet."),
    model.auditMore
      ? h("button", { type: "button", class: "btn small", "data-action": "older", "data-key": "audit-older" }, "Older entries")
      : null);
}

function pageView(model) {
  if (model.state === "loading") return h("p", { class: "muted" }, "Loading…");
  if (model.state === "denied") {
    return h("section", { class: "card-panel center-box", "aria-labelledby": "admin-title" },
      h("h1", { id: "admin-title" }, "Not available"),
      h("p", { "data-testid": "admin-refused" }, model.error || "This page is for the site's administrators only."),
      h("p", {}, h("a", { href: "/" }, "Back to home")));
  }
  return [
    h("h1", { id: "admin-title", class: "admin-heading" }, "Administration"),
    model.error ? h("p", { class: "form-error card-panel", role: "alert" }, model.error) : null,
    h("div", { class: "admin-grid" },
      h("div", { class: "stack" }, reportsView(model), auditView(model)),
      h("div", { class: "stack" }, sanctionForm(model), sanctionsView(model), closeRoomView(model))),
  ];
}

// --- the page ----------------------------------------------------------------------------

export function startAdmin(main) {
  const model = { state: "loading", reports: null, sanctions: null, audit: null, auditMore: false, busy: false };
  document.title = "Spades · Administration";
  const render = () => mount(main, pageView(model));
  const notAllowed = (err) => err.status === 401 || err.status === 403;

  const load = async () => {
    try {
      const [reports, sanctions, audit] = await Promise.all([
        api.adminReports(), api.adminSanctions(), api.auditLog(AUDIT_PAGE),
      ]);
      model.reports = reports.reports;
      model.sanctions = sanctions.sanctions;
      model.audit = audit.entries;
      model.auditMore = audit.entries.length === AUDIT_PAGE;
      model.state = "ready";
      model.error = null;
    } catch (err) {
      if (notAllowed(err)) {
        model.state = "denied";
        model.error = null;
      } else {
        model.error = `Couldn't load: ${err.message}`;
        if (model.state === "loading") model.state = "denied";
      }
    }
    render();
  };

  // A change, then everything read again (another administrator may have acted meanwhile).
  const act = async (work, done, errorKey = "error") => {
    model.busy = true;
    model[errorKey] = null;
    render();
    try {
      await work();
      if (done) announce(done);
    } catch (err) {
      model[errorKey] = err.message || "That did not work";
    }
    model.busy = false;
    await load();
  };

  const field = (name) => main.querySelector(`[name='${name}']`);
  const clean = (form) => {
    form.reset();
    for (const el of form.querySelectorAll("[data-dirty]")) delete el.dataset.dirty;
  };
  const fill = (name, value) => {
    const el = field(name);
    el.value = value;
    el.dataset.dirty = "1";
  };

  bindActions(main, {
    reload: () => load(),
    "close-report": (data) => act(() => api.closeReport(Number(data.id)), `Report ${data.id} closed`),
    lift: (data) => act(() => api.liftSanction(Number(data.id)), "Lifted"),
    "sanction-player": (data) => {
      fill("sanction-player", data.player);
      fill("sanction-network", "");
      field("sanction-reason").focus();
    },
    "pick-room": (data) => {
      fill("close-code", data.room);
      field("close-reason").focus();
    },
    older: async () => {
      const last = model.audit[model.audit.length - 1];
      try {
        const page = await api.auditLog(AUDIT_PAGE, last.id);
        model.audit = [...model.audit, ...page.entries];
        model.auditMore = page.entries.length === AUDIT_PAGE;
      } catch (err) {
        model.error = err.message;
      }
      render();
    },
    "submit:sanction": (form) => {
      const player = field("sanction-player").value.trim();
      const network = field("sanction-network").value.trim();
      const reason = field("sanction-reason").value.trim();
      if ((player === "") === (network === "")) {
        model.formError = "Name a player id or an address range (one of the two).";
      } else if (!reason) {
        model.formError = "Write the reason: the player is shown it.";
      } else {
        const kind = form.querySelector("[name='sanction-kind']:checked").value;
        const body = { kind, reason, minutes: Number(field("sanction-minutes").value), ...(player ? { player_id: player } : { network }) };
        act(async () => {
          const made = await api.addSanction(body);
          clean(form);
          announce(`${kind === "ban" ? "Banned" : "Muted"} until ${utc(made.ends_at)}`);
        }, null, "formError");
        return;
      }
      render();
      field("sanction-player").focus();
    },
    "submit:close-room": (form) => {
      const code = field("close-code").value.trim();
      const reason = field("close-reason").value.trim();
      if (!code || !reason) {
        model.roomError = "Give the room's code and the reason.";
        render();
        return;
      }
      act(async () => {
        await api.closeRoom(code, reason);
        clean(form);
      }, `Room ${code} closed`, "roomError");
    },
  });
  trackDirty(main);
  render();
  // Only an administrator is shown the page; the routes refuse anyone else all the same.
  api.getMe().then((me) => {
    if (me.admin) return load();
    model.state = "denied";
    render();
  }, (err) => {
    model.state = "denied";
    if (!notAllowed(err)) model.error = `Couldn't load: ${err.message}`;
    render();
  });
}
