/**
 * The bodies the server writes, as Go structs encoded by go-msgpack: maps keyed by field name in
 * sorted order (ipc.go's structs; serf-protocol §6.4, §6.5). Byte fields are Uint8Array (bin),
 * absent ones nil, Go maps plain objects.
 */
import type { RpcCoordinate, RpcKeyResult, RpcMember, RpcMemberEvent, RpcQueryReply, RpcUserEvent } from './backend.js';

export type Seq = number | bigint;

export function responseHeader(seq: Seq, error: string): object {
  return { Error: error, Seq: seq };
}

export function memberRecord(m: RpcMember): object {
  return {
    Addr: m.addr,
    DelegateCur: m.delegate[2],
    DelegateMax: m.delegate[1],
    DelegateMin: m.delegate[0],
    Name: m.name,
    Port: m.port,
    ProtocolCur: m.protocol[2],
    ProtocolMax: m.protocol[1],
    ProtocolMin: m.protocol[0],
    Status: m.status,
    Tags: { ...m.tags },
  };
}

export function membersBody(members: readonly RpcMember[]): object {
  return { Members: members.map(memberRecord) };
}

export function memberEventRecord(event: RpcMemberEvent): object {
  return { Event: event.event, Members: event.members.map(memberRecord) };
}

export function userEventRecord(event: RpcUserEvent): object {
  return { Coalesce: event.coalesce, Event: 'user', LTime: event.ltime, Name: event.name, Payload: event.payload };
}

/** A received query, streamed with this connection's ID for it (ipc_event_stream.go sendQuery). */
export function queryEventRecord(id: number, name: string, payload: Uint8Array, ltime: number): object {
  return { Event: 'query', ID: id, LTime: ltime, Name: name, Payload: payload };
}

export function queryReplyRecord(reply: RpcQueryReply): object {
  return reply.type === 'ack' ? { From: reply.from, Payload: null, Type: 'ack' } : { From: reply.from, Payload: reply.payload, Type: 'response' };
}

export const QUERY_DONE_RECORD = Object.freeze({ From: '', Payload: null, Type: 'done' });

export function logRecord(line: string): object {
  return { Log: line };
}

/** ipc.go keyResponse; Keys is nil except for list-keys. */
export function keyBody(result: RpcKeyResult): object {
  return { Keys: result.keys === undefined ? null : { ...result.keys }, Messages: { ...result.messages }, NumErr: result.numErr, NumNodes: result.numNodes, NumResp: result.numResp };
}

/** ipc.go coordinateResponse: an unknown node is Ok false with a zero coordinate whose Vec is nil. */
export function coordinateBody(coordinate: RpcCoordinate | undefined): object {
  const coord = coordinate === undefined ? { Adjustment: 0, Error: 0, Height: 0, Vec: null } : { Adjustment: coordinate.adjustment, Error: coordinate.error, Height: coordinate.height, Vec: [...coordinate.vec] };
  return { Coord: coord, Ok: coordinate !== undefined };
}
