/**
 * Faults for in-process demo members over real UDP/TCP: what the simulator does to a memory
 * network (blackout, partition, pause), done at each member's transport, since the members share
 * one process and cannot be SIGSTOPped or cut off one by one at the socket level. Which links are
 * cut is decided by the simulator's own {@link Faults}, by address.
 */
import type { StreamOptions, StreamResult, Transport, TransportHandlers } from '@swim/runtime';
import type { Faults } from '@swim/transport-memory';

/**
 * A transport with the demo's faults applied. Packets to or from a cut-off peer are dropped;
 * streams to one time out as a real partition would. While paused (SIGSTOP), everything that
 * arrives is held and handed over on resume, in order; the member's clock is paused alongside.
 * Incoming streams are filtered on the sender's side only: their `from` is an ephemeral port.
 */
export class FaultTransport implements Transport {
  #paused = false;
  #held: Array<() => void> = [];
  dropped = 0;

  constructor(
    private readonly inner: Transport,
    private readonly faults: Faults,
    /** True while this member must refuse incoming streams (the far side of a partition). */
    private readonly refuseStreams: () => boolean = () => false,
  ) {}

  get address(): string {
    return this.inner.address;
  }

  get maxPacketBytes(): number {
    return this.inner.maxPacketBytes;
  }

  get supportsStreams(): boolean {
    return this.inner.supportsStreams;
  }

  get paused(): boolean {
    return this.#paused;
  }

  listen(handlers: TransportHandlers): void {
    this.inner.listen({
      packet: (from, bytes) => {
        if (this.faults.cut(from, this.address)) {
          this.dropped++;
          return;
        }
        this.#deliver(() => handlers.packet(from, bytes));
      },
      stream: (from, bytes, reply) => {
        if (this.faults.blackedOut(this.address) || this.refuseStreams()) return reply(undefined);
        this.#deliver(() => handlers.stream(from, bytes, reply));
      },
    });
  }

  sendPacket(to: string, bytes: Uint8Array): void {
    if (this.#paused) return;
    if (this.faults.cut(this.address, to)) {
      this.dropped++;
      return;
    }
    this.inner.sendPacket(to, bytes);
  }

  request(to: string, bytes: Uint8Array, options: StreamOptions, done: (result: StreamResult) => void): void {
    const finish = (result: StreamResult) => this.#deliver(() => done(result));
    if (this.faults.cut(this.address, to)) {
      setTimeout(() => finish({ ok: false, reason: `timed out after ${options.timeoutMs} ms (demo: cut off)` }), options.timeoutMs);
      return;
    }
    this.inner.request(to, bytes, options, finish);
  }

  pause(): void {
    this.#paused = true;
  }

  /** Hand over what arrived while paused. */
  resume(): void {
    this.#paused = false;
    const held = this.#held;
    this.#held = [];
    for (const deliver of held) deliver();
  }

  close(): Promise<void> {
    this.#held = [];
    return this.inner.close();
  }

  #deliver(deliver: () => void): void {
    if (this.#paused) this.#held.push(deliver);
    else deliver();
  }
}
