/**
 * The agent's keyring as Serf's key queries see it (SerfLayer's `keyring` hook): the queries of
 * `serf keys` and `swim keys` change the same @swim/encryption keyring that encrypts the agent's
 * traffic, and a change is answered only once it is written to --keyring-file, as a Serf agent
 * writes its keyring file before answering (serf internal_query.go handleInstallKey).
 */
import type { SerfKeyring } from '@swim/adapter-memberlist';
import type { Keyring } from '@swim/encryption';
import { saveKeyring } from './keyring-file.js';

/** The writes of the keyring file, in order; the last one is what a key query waits for. */
export class KeyringWrites {
  #last: Promise<void> | undefined;
  constructor(readonly file: string | undefined) {}

  /** Write `keys` (after the writes before it); a failure rejects this write only. */
  save(keys: readonly string[]): Promise<void> {
    const file = this.file;
    if (file === undefined) return Promise.resolve();
    const previous = this.#last ?? Promise.resolve();
    const write = previous.catch(() => undefined).then(() => saveKeyring(file, keys));
    this.#last = write;
    return write;
  }

  /** The last write, if any. */
  get last(): Promise<void> | undefined {
    return this.#last;
  }
}

/** The keyring hook: each change waits for its keyring file write, whose failure is the member's answer. */
export function serfKeyring(keyring: Keyring, writes: KeyringWrites): SerfKeyring {
  const change = async (apply: () => void) => {
    const before = writes.last;
    apply();
    // A change that changed nothing (a key installed already) wrote nothing.
    const write = writes.last;
    if (write !== undefined && write !== before) await write;
  };
  return {
    list: () => keyring.list(),
    install: (key) => change(() => keyring.install(key)),
    use: (key) => change(() => keyring.use(key)),
    remove: (key) => change(() => keyring.remove(key)),
  };
}
