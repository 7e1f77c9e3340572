/**
 * `POST /coordinate {"node": "NAME"}`: a member's Vivaldi coordinate as the agent holds it (its
 * own, or the last one that member acked us with), as the Serf agent's RPC `get-coordinate`
 * answers {Coord, Ok}; `swim rtt` asks for two and computes the distance itself, as `serf rtt` does.
 */
import type { Coordinate } from '@swim/core';
import type { Member } from '@swim/runtime';
import type { ControlAnswer } from '../server.js';

export const COORDINATE_ROUTE = 'POST /coordinate';

/** Longest node name asked for: memberlist's names are short, and the answer echoes it. */
const MAX_NODE_LENGTH = 512;

/** The answer: the agent's own name (`swim rtt A` measures from it), and the coordinate, if any. */
export interface CoordinateReply {
  readonly self: string;
  readonly node: string;
  /** False when the agent holds no coordinate for the node (Serf: Ok false), or coordinates are off. */
  readonly ok: boolean;
  readonly coordinate: Coordinate | null;
}

export function coordinateRoute(member: Member, body: unknown): ControlAnswer {
  const node = (body as { node?: unknown } | undefined)?.node;
  if (typeof node !== 'string' || node === '' || node.length > MAX_NODE_LENGTH) {
    return { status: 400, body: { error: `expected {"node": "NAME"} with a name of 1 to ${MAX_NODE_LENGTH} characters` } };
  }
  const coordinate = member.coordinateOf(node);
  const reply: CoordinateReply = { self: member.name, node, ok: coordinate !== undefined, coordinate: coordinate ?? null };
  return { status: 200, body: reply };
}
