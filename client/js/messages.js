// Generated from the server's message registry (server/spades/rooms/protocol.py)
// by `python -m spades.api.docgen`: edit the registry, not this file.

// Every message type a client may send.
export const MESSAGE_TYPES = Object.freeze([
  "hello",
  "sit",
  "stand",
  "start",
  "set_seat",
  "settings",
  "look",
  "bid",
  "play",
  "hint",
  "chat",
  "quick",
  "mute",
  "play_again",
  "back",
  "ping"
]);
// The game's moves (the engine's actions).
export const GAME_ACTIONS = Object.freeze([
  "look",
  "bid",
  "play"
]);
// The longest display name (`sit`) and chat text (`chat`) the server takes.
export const NAME_LENGTH = 24;
export const CHAT_LENGTH = 300;
