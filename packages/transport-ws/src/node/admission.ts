import { isIP } from 'node:net';

/**
 * What a client address counts under for maxSessionsPerIp: an IPv4 address as it is (also when
 * IPv4-mapped in IPv6), an IPv6 address by its /64, the block one subscriber usually holds whole.
 * Anything else (a custom clientAddress that is not an IP) counts as given.
 */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped !== null) return mapped[1]!;
  const bare = address.replace(/%.*$/, '');
  if (isIP(bare) !== 6) return address;
  const [head = '', tail] = bare.split('::');
  const groups = (part: string): string[] => (part === '' ? [] : part.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g])));
  const front = groups(head);
  const back = tail === undefined ? [] : groups(tail);
  const all = [...front, ...Array<string>(8 - front.length - back.length).fill('0'), ...back];
  return `${all
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

/**
 * Open WebSocket connections, in total and per client address, checked at the upgrade so that a
 * refused connection costs nothing but the HTTP answer.
 */
export class ConnectionSlots {
  readonly #perAddress = new Map<string, number>();
  #total = 0;

  constructor(
    private readonly maxTotal: number,
    private readonly maxPerAddress: number,
  ) {}

  /** Take a slot for `key`: 'ok', or why not ('address': its own maximum; 'total': the gateway's). */
  take(key: string): 'ok' | 'address' | 'total' {
    const mine = this.#perAddress.get(key) ?? 0;
    if (mine >= this.maxPerAddress) return 'address';
    if (this.#total >= this.maxTotal) return 'total';
    this.#perAddress.set(key, mine + 1);
    this.#total++;
    return 'ok';
  }

  give(key: string): void {
    const mine = this.#perAddress.get(key) ?? 0;
    if (mine <= 1) this.#perAddress.delete(key);
    else this.#perAddress.set(key, mine - 1);
    this.#total = Math.max(0, this.#total - 1);
  }
}
