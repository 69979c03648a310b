// Entry point: "/" is the home page, "/r/{code}" a room, "/#review/{game}" a game's review,
// "/#player/{id}" a player's finished games, "/#leaderboard[/{mode}]" the leaderboard, "/#admin"
// the administrators' page (admin.js). Every page makes this browser's guest player
// on its first visit (player.js).

import { startAdmin } from "./admin.js";
import { joinCode, safeDecode, startHome } from "./home.js";
import { startLeaderboard } from "./leaderboard.js";
import { startPlayerPage } from "./playerpage.js";
import { startQuickPlay } from "./quickplay.js";
import { startReview } from "./review.js";
import { startRoom } from "./room.js";
import { mount } from "./dom.js";
import { ensurePlayer } from "./player.js";
import { topbar } from "./views/common.js";

const main = document.getElementById("main");
const match = location.pathname.match(/^\/r\/([^/]+)\/?$/);
if (match) {
  // Join codes are case-insensitive; tokens are kept under the canonical (upper-case) code.
  // A link pasted into the code (/r/https%3A%2F%2F...%2Fr%2FCODE) opens the room it names.
  const code = joinCode(safeDecode(match[1]));
  if (location.pathname !== `/r/${encodeURIComponent(code)}`) {
    history.replaceState(null, "", `/r/${encodeURIComponent(code)}${location.search}`);
  }
  startRoom({
    main,
    top: document.getElementById("topbar"),
    bannerEl: document.getElementById("banner"),
    toastEl: document.getElementById("toasts"),
  }, code);
} else if (/^#review\/\d+/.test(location.hash)) {
  // A game review: /#review/{game id}[/{step}] (a link that can be shared).
  const [, id, step] = location.hash.match(/^#review\/(\d+)(?:\/(\d+))?/);
  mount(document.getElementById("topbar"), topbar({ title: "Game review" }));
  startReview(main, Number(id), step ? Number(step) : 0);
} else if (/^#player\/[\w-]+$/.test(location.hash)) {
  // A player's finished games: /#player/{player id}.
  mount(document.getElementById("topbar"), topbar({ title: "Finished games" }));
  startPlayerPage(main, location.hash.slice("#player/".length));
} else if (/^#leaderboard(\/\w+)?$/.test(location.hash)) {
  mount(document.getElementById("topbar"), topbar({ title: "Leaderboard" }));
  startLeaderboard(main, location.hash.slice("#leaderboard/".length));
} else if (location.hash === "#admin") {
  mount(document.getElementById("topbar"), topbar({ title: "Administration" }));
  startAdmin(main);
} else {
  mount(document.getElementById("topbar"), topbar({}));
  // "Play now" (quickplay.js) keeps its own part of the page: home.js redraws only its own.
  const quick = document.createElement("div");
  const home = document.createElement("div");
  main.append(quick, home);
  startQuickPlay(quick);
  startHome(home);
}
ensurePlayer();
// Opening another review (or leaving one) by its link reloads the page for it.
window.addEventListener("hashchange", () => location.reload());
