// Entry point: "/" is the home page, "/r/{code}" a room.

import { startHome } from "./home.js";
import { startRoom } from "./room.js";
import { mount } from "./dom.js";
import { topbar } from "./views/common.js";

const main = document.getElementById("main");
const match = location.pathname.match(/^\/r\/([^/]+)\/?$/);
if (match) {
  startRoom({
    main,
    top: document.getElementById("topbar"),
    bannerEl: document.getElementById("banner"),
    toastEl: document.getElementById("toasts"),
  }, decodeURIComponent(match[1]));
} else {
  mount(document.getElementById("topbar"), topbar({}));
  startHome(main);
}
