/** The part of a net.Socket (or TLSSocket) a {@link WriteBatch} uses. */
export interface Corkable {
  cork(): void;
  uncork(): void;
  readonly destroyed: boolean;
}

/**
 * Frames written to one connection during an event-loop turn go out in one `writev`: the first
 * write of a turn corks the connection's socket, and one setImmediate for the whole gateway
 * uncorks every socket corked in that turn. Without it each WebSocket frame is its own `writev`
 * syscall (`ws` corks only around the two parts of one frame), which a profile of 300 members
 * showed as 44 % of the gateway's CPU. Node counts corks, so the `ws` sender's own cork/uncork
 * per frame nests inside ours; `end()` uncorks fully, so a socket closed meanwhile flushes anyway.
 */
export class WriteBatch {
  #corked = new Set<Corkable>();
  #scheduled = false;
  readonly #flush = (): void => this.flush();

  /** Cork `socket` until the end of this turn, unless it already is. */
  hold(socket: Corkable): void {
    if (socket.destroyed || this.#corked.has(socket)) return;
    socket.cork();
    this.#corked.add(socket);
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(this.#flush);
    }
  }

  /** Uncork every socket corked since the last flush (each one's frames leave in one write). */
  flush(): void {
    const corked = this.#corked;
    this.#corked = new Set();
    this.#scheduled = false;
    for (const socket of corked) socket.uncork();
  }
}
