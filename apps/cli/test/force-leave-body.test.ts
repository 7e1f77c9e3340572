import { describe, expect, it } from 'vitest';
import { forceLeaveFromBody } from '../src/control/routes/force-leave.js';

describe('POST /force-leave body', () => {
  it.each([
    [{ name: 'n3' }, { name: 'n3', prune: false }],
    [{ name: 'n3', prune: true }, { name: 'n3', prune: true }],
    [{}, { error: 'name must be a non-empty string (expected {"name": "NODE", "prune": false})' }],
    [{ name: '' }, { error: 'name must be a non-empty string (expected {"name": "NODE", "prune": false})' }],
    [{ name: 'x'.repeat(129) }, { error: 'name must be at most 128 bytes of UTF-8 (expected {"name": "NODE", "prune": false})' }],
    [{ name: 'n3', prune: 'yes' }, { error: 'prune must be a boolean (expected {"name": "NODE", "prune": false})' }],
    [{ name: 'n3', force: true }, { error: "unknown field 'force' (expected {\"name\": \"NODE\", \"prune\": false})" }],
    [['n3'], { error: 'expected {"name": "NODE", "prune": false}' }],
    [null, { error: 'expected {"name": "NODE", "prune": false}' }],
  ])('%j -> %j', (body, expected) => {
    expect(forceLeaveFromBody(body)).toEqual(expected);
  });
});
