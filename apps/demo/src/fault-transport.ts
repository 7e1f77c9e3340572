/**
 * Faults for in-process demo members over real UDP/TCP: what the simulator does to a memory
 * network (blackout, partition, pause), done at each member's transport, since the members share
 * one process and cannot be SIGSTOPped or cut off one by one at the socket level.
 */
import type { StreamOptions, StreamResult, Transport, TransportHandlers } from '@swim/runtime';

/** Which members are cut off, and the partition groups (members outside any group see everyone). */
export class DemoFaults {
  readonly #blackedOut = new Set<string>();
  readonly #group = new Map<string, number>();

  setBlackout(address: string, on: boolean): void {
    if (on) this.#blackedOut.add(address);
    else this.#blackedOut.delete(address);
  }

  isBlackedOut(address: string): boolean {
    return this.#blackedOut.has(address);
  }

  /** Split: every address in `groups[i]` is in group i; traffic between groups is dropped. */
  partition(groups: readonly (readonly string[])[]): void {
    this.#group.clear();
    groups.forEach((addresses, index) => addresses.forEach((address) => this.#group.set(address, index)));
  }

  heal(): void {
    this.#group.clear();
  }

  groupOf(address: string): number | undefined {
    return this.#group.get(address);
  }

  get partitioned(): boolean {
    return this.#group.size > 0;
  }

  /** Traffic from `from` to `to` is lost. */
  blocks(from: string, to: string): boolean {
    if (this.#blackedOut.has(from) || this.#blackedOut.has(to)) return true;
    const a = this.#group.get(from);
    const b = this.#group.get(to);
    return a !== undefined && b !== undefined && a !== b;
  }
}

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
    private readonly faults: DemoFaults,
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
        if (this.faults.blocks(from, this.address)) {
          this.dropped++;
          return;
        }
        this.#deliver(() => handlers.packet(from, bytes));
      },
      stream: (from, bytes, reply) => {
        if (this.faults.isBlackedOut(this.address)) return reply(undefined);
        this.#deliver(() => handlers.stream(from, bytes, reply));
      },
    });
  }

  sendPacket(to: string, bytes: Uint8Array): void {
    if (this.#paused) return;
    if (this.faults.blocks(this.address, to)) {
      this.dropped++;
      return;
    }
    this.inner.sendPacket(to, bytes);
  }

  request(to: string, bytes: Uint8Array, options: StreamOptions, done: (result: StreamResult) => void): void {
    const finish = (result: StreamResult) => this.#deliver(() => done(result));
    if (this.faults.blocks(this.address, to)) {
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
