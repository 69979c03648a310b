// Events: after an accepted action the server sends what happened, not the whole state
// (docs/protocol.md, "event"). An event applies only to the state it follows: the same game,
// the very next seq. This module keeps that version and turns each event into a `state`
// message the page folds in as usual (room unchanged, view keys merged). When an event does
// not follow, it answers null and the connection says hello again for a whole state.

export class EventFollower {
  constructor() {
    this.reset();
  }

  /** Forget the version held (a new socket: its first state is whole). */
  reset() {
    this.seq = -1;
    this.gameId = null;
    this.hasView = false;
    this.resyncing = false; // a hello was sent for a whole state: drop events until it comes
  }

  /**
   * A server message as the page should see it: a state, or an event turned into the state
   * message it leads to. Null when an event does not follow: drop it, and when `resync()`
   * says so, say hello again.
   */
  accept(msg) {
    if (msg.type === "state") {
      if (msg.room) this.gameId = msg.room.game_id;
      this.seq = msg.seq;
      this.hasView = msg.view !== null;
      this.resyncing = false;
      return msg;
    }
    if (msg.type !== "event") return msg;
    if (this.resyncing || !this.hasView || msg.game_id !== this.gameId || msg.seq !== this.seq + 1) return null;
    this.seq = msg.seq;
    return {
      type: "state",
      seq: msg.seq,
      view: { ...msg.view, ...(msg.you || {}) },
      clock: msg.clock,
      ref: msg.ref,
    };
  }

  /** True once after an event did not follow: time to ask for a whole state. */
  resync() {
    if (this.resyncing) return false;
    this.resyncing = true;
    return true;
  }
}
