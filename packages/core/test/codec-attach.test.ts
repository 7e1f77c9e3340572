import { describe, expect, it } from 'vitest';
import { ConfigError, swimCodec, SwimCore, type Message, type WireCodec } from '../src/index.js';

/** The native codec with an attach that records its calls and the encodes made before it. */
function recordingCodec(log: string[]): WireCodec {
  return {
    ...swimCodec,
    encodeMessage(message: Message) {
      log.push(`encode ${message.type}`);
      return swimCodec.encodeMessage(message);
    },
    attach(self) {
      log.push(`attach ${self.name}`);
    },
  };
}

describe('WireCodec.attach', () => {
  it('is called once, with the member name, at construction and before anything is encoded', () => {
    const log: string[] = [];
    const core = new SwimCore({ name: 'a', address: '10.0.0.1:7946', now: 0, seed: 1, codec: recordingCodec(log) });
    // Our own alive is queued (encoded) at construction: attach came first.
    expect(log.slice(0, 2)).toEqual(['attach a', 'encode alive']);
    expect(log.filter((entry) => entry.startsWith('attach'))).toEqual(['attach a']);
    core.tick(10_000);
    expect(log.filter((entry) => entry.startsWith('attach'))).toEqual(['attach a']);
  });

  it('is not called when the options are refused', () => {
    const log: string[] = [];
    expect(() => new SwimCore({ name: '', address: '10.0.0.1:7946', now: 0, seed: 1, codec: recordingCodec(log) })).toThrow(ConfigError);
    expect(log).toEqual([]);
  });

  it('a codec refusing to be attached fails the construction with its error', () => {
    const codec: WireCodec = {
      ...swimCodec,
      attach() {
        throw new Error('already attached');
      },
    };
    expect(() => new SwimCore({ name: 'a', address: '10.0.0.1:7946', now: 0, seed: 1, codec })).toThrow('already attached');
  });
});
