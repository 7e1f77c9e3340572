/**
 * `swim agent`: one member on a UDP/TCP transport, its membership changes on stdout, and the
 * control endpoint (HTTP/1.1 + JSON on loopback) that `swim members|join|leave|stats` talk to.
 */
import { decodeTags, encodeTags, memberlistCodec, memberlistMetrics, memberlistStreamFraming, SerfLayer, type MemberlistCodec } from '@swim/adapter-memberlist';
import type { SecureTransport } from '@swim/encryption';
import { JoinError, Member, NameConflictError, swimQueryWire, type JoinOptions, type JoinResult, type Transport } from '@swim/runtime';
import { createUdpTransport, formatAddress, type UdpTransport } from '@swim/transport-udp';
import type { AgentArgs } from '../commands/agent/flags.js';
import { describeError, ERROR_LINES_PER_SECOND, LogBudget, type UncaughtKind } from './contained-errors.js';
import { CONTROL_ROUTES, controlHandler } from '../control/handler.js';
import { startControlServer, type ControlServer } from '../control/server.js';
import { changeJson, changeLine } from '../output/changes.js';
import { tagsText } from '../output/members.js';
import { describeSecureLayer, secureLayer } from './encryption.js';
import { logConflicts, startJoins } from './join.js';
import { KeyringFileError, loadKeyring, type LoadedKeyring } from './keyring-file.js';
import { KeyringWrites, serfKeyring } from './serf-keyring.js';
import { startProcessMonitor } from './process-stats.js';
import { startMetricsEndpoint } from './metrics-endpoint.js';
import type { MetricsServer } from '@swim/adapter-prometheus';
import { MonitorHub, MONITOR_ROUTE } from '../control/routes/monitor.js';
import { QueryStreams, QUERY_ROUTE } from '../control/routes/query.js';
import { installQueryHandlers, MAX_HANDLER_PROCESSES, type HandlerOutcome } from './query-handlers.js';
import type { MonitorKind } from '../control/monitor-kinds.js';
import { planRestore, SnapshotOwnerError, startRecording, type SnapshotRecorder, type SnapshotRestore } from './snapshot.js';
import { SnapshotFileError } from '../snapshot/log.js';
import { describeSocketError } from './socket-errors.js';

/** A runtime failure (exit code 1). */
export class AgentError extends Error {
  override name = 'AgentError';
}

export interface AgentIo {
  readonly out: (line: string) => void;
  readonly now?: () => Date;
}

export interface RunningAgent {
  readonly member: Member;
  readonly address: string;
  readonly rpcAddress: string;
  /** Resolves with the exit code once the agent has stopped. */
  readonly stopped: Promise<number>;
  /** Leave (bounded wait), close, resolve `stopped`. Idempotent. */
  shutdown(reason: string): Promise<number>;
  /** Count and log an exception nothing else caught (the process guards call it); the agent goes on. */
  reportUncaught(kind: UncaughtKind, error: unknown): void;
  /** The encryption/label layer, when the agent runs with one. */
  readonly secure: SecureTransport | undefined;
}

export async function startAgent(args: AgentArgs, io: AgentIo): Promise<RunningAgent> {
  const now = io.now ?? (() => new Date());
  // Every line goes to stdout (--log) and to the monitors that asked for its kind (swim monitor).
  const monitors = new MonitorHub({ onDrop: () => log('monitor-dropped', 'dropped a monitor that fell behind (swim monitor reading too slowly)') });
  const emit = (kind: MonitorKind, json: Record<string, unknown>, text: string) => {
    io.out(args.log === 'json' ? JSON.stringify(json) : text);
    monitors.publish(kind, json, text);
  };
  const log = (event: string, text: string, fields: Record<string, unknown> = {}) => {
    const time = now().toISOString();
    emit('log', { time, self: args.name, event, ...fields }, `${time} ${args.name} ${text}`);
  };

  let loaded: LoadedKeyring | undefined;
  try {
    loaded = await loadKeyring(args.encryption);
  } catch (error) {
    if (error instanceof KeyringFileError) throw new AgentError(error.message);
    throw error;
  }

  const codec: MemberlistCodec | undefined = args.wire === 'memberlist' ? memberlistCodec() : undefined;
  // An unreadable snapshot, or another agent's, stops the start before anything is bound.
  let restored: SnapshotRestore | undefined;
  if (args.snapshot !== undefined) {
    try {
      restored = planRestore(args.snapshot, { name: args.name, config: args.config, codec, rejoinAfterLeave: args.rejoinAfterLeave });
    } catch (error) {
      if (error instanceof SnapshotFileError || error instanceof SnapshotOwnerError) throw new AgentError(error.message);
      throw error;
    }
  }

  let udp: UdpTransport;
  const bindText = formatAddress(args.bind.host, args.bind.port);
  try {
    udp = await createUdpTransport({
      bind: args.bind,
      ...(args.advertise === undefined ? {} : { advertise: args.advertise }),
      streamTimeoutMs: args.config.streamTimeoutMs,
      maxPacketBytes: args.config.maxPacketBytes,
      ...args.transport,
      // memberlist's streams have no length prefix: one message, read as it is parsed.
      ...(args.wire === 'memberlist' ? { streamFraming: memberlistStreamFraming } : {}),
    });
  } catch (error) {
    throw new AgentError(`cannot bind ${bindText}: ${describeSocketError(error)}`);
  }

  const keyring = loaded?.keyring;
  const secure = secureLayer(udp, keyring, { wire: args.wire, encryption: args.encryption, onError: (error, where) => logContained(`encryption ${where}`, error) });
  const transport: Transport = secure ?? udp;

  let member: Member;
  try {
    // Packets as large as the transport carries: the socket's size less the encryption envelope.
    member = new Member({
      name: args.name,
      transport,
      meta: encodeTags(args.tags),
      config: { ...args.config, maxPacketBytes: transport.maxPacketBytes },
      ...(codec === undefined ? {} : { codec }),
      // Above the last incarnation of the previous run, holding the members it knew (Serf's snapshot).
      ...(restored?.restore === undefined ? {} : { restore: restored.restore }),
      // Queries: on swim's wire with the tags read as Serf's (filters); with memberlist's, the Serf layer brings its wire.
      queries: { maxConcurrentHandlers: MAX_HANDLER_PROCESSES, ...(codec === undefined ? { wire: swimQueryWire({ tagsOf: decodeTags }) } : {}) },
    });
  } catch (error) {
    await transport.close();
    throw new AgentError(`cannot start member: ${(error as Error).message}`);
  }
  const keyringWrites = new KeyringWrites(args.encryption.keyringFile);
  // In a Serf cluster: Serf's Lamport clocks (from the snapshot), join and leave intents (a leave
  // Serf lists as "left"), Serf's queries and its key queries on the agent's keyring.
  const serf =
    codec === undefined
      ? undefined
      : new SerfLayer(member, {
          ...(restored?.clocks === undefined ? {} : { clocks: restored.clocks }),
          ...(keyring === undefined ? {} : { keyring: serfKeyring(keyring, keyringWrites) }),
          onKeyWarning: (message) => log('keyring', `a member warned: ${message}`, { warning: message }),
        });
  let snapshot: SnapshotRecorder | undefined;
  if (args.snapshot !== undefined && restored !== undefined) {
    try {
      snapshot = startRecording(args.snapshot, restored.state, member, serf === undefined ? undefined : () => serf.clocks, (event, text, fields) => log(event, text, fields));
    } catch (error) {
      await member.close();
      throw new AgentError((error as Error).message);
    }
  }
  if (codec !== undefined) member.addMetricsSource(memberlistMetrics(codec, serf));
  const join = (seeds: readonly string[], options: JoinOptions = {}) => (serf === undefined ? member.join(seeds, options) : serf.join(seeds, options));
  /** Aborted when the agent stops: ends a retry-join in progress. */
  const stopJoining = new AbortController();

  let rpc: ControlServer;
  /** With `failure`: stop without leaving and exit 1 (a refused or abandoned join). */
  let shutdown!: (reason: string, failure?: string) => Promise<number>;
  const monitor = startProcessMonitor();
  const queryStreams = new QueryStreams();
  // What the control routes answer from; read at each request.
  const handle = controlHandler({
    member,
    wire: args.wire,
    secure,
    ...(serf === undefined ? {} : { serfKeys: (op, key) => serf.keyCommand(op, key) }),
    stats: () => ({
      name: member.name,
      address: member.address,
      incarnation: member.incarnation,
      healthScore: member.healthScore,
      counters: member.counters,
      transport: udp.counters,
      ...(codec === undefined ? {} : { wire: { name: codec.name, counters: codec.counters }, serf: serf === undefined ? undefined : { ...serf.counters, clocks: serf.clocks } }),
      ...(snapshot === undefined ? {} : { snapshot: { file: args.snapshot, ...snapshot.stats } }),
      ...(secure === undefined ? {} : { encryption: secure.counters }),
      process: monitor.snapshot(),
      errors: { member: member.errors, uncaught },
      monitor: monitors.stats,
      queries: { ...member.queries.counters, pending: member.queries.pending, handlersRunning: member.queries.handlersRunning, streams: queryStreams.stats },
    }),
    get stopping() {
      return stopping;
    },
    join: (seeds) => join(seeds),
    logJoin,
    logTags: (tags) => log('tags', `tags set: ${tagsText(tags) || '(none)'}`, { tags }),
    leave: () => {
      void shutdown('leave requested');
      return leaving;
    },
  });
  try {
    rpc = await startControlServer({ host: args.rpc.host, port: args.rpc.port, token: args.rpcToken, routes: CONTROL_ROUTES, handle, streams: { [MONITOR_ROUTE]: (query, res) => monitors.serve(query, res), [QUERY_ROUTE]: (_query, res, req) => queryStreams.serve(req, res, member, stopping) } });
  } catch (error) {
    monitor.stop();
    await member.close();
    snapshot?.close();
    throw new AgentError(`cannot listen for control requests on ${formatAddress(args.rpc.host, args.rpc.port)}: ${describeSocketError(error)}`);
  }
  const rpcAddress = formatAddress(rpc.address.address, rpc.port);
  // Prometheus scrapes a server of its own (read-only, no token), never the control endpoint.
  let metricsServer: MetricsServer | undefined;
  if (args.metrics !== undefined) {
    try {
      metricsServer = await startMetricsEndpoint({ member, udp, secure, address: args.metrics });
    } catch (error) {
      monitor.stop();
      await member.close();
      snapshot?.close();
      await rpc.close();
      throw new AgentError(`cannot serve metrics on ${formatAddress(args.metrics.host, args.metrics.port)}: ${describeSocketError(error)}`);
    }
  }

  member.on('change', (change) => {
    const at = now();
    emit(change.event, changeJson(at, args.name, change), changeLine(at, args.name, change));
  });
  logConflicts(member, log);
  const stopQueryHandlers = installQueryHandlers(member, args.queryHandlers, { report: (outcome) => logHandler(outcome) });

  // The member survives what its core, listeners or transport throw; so does the agent, and says so.
  const errorLines = new LogBudget(ERROR_LINES_PER_SECOND);
  let uncaught = 0;
  const logContained = (where: string, error: unknown) => {
    const { allowed, suppressed } = errorLines.take();
    if (!allowed) return;
    const message = describeError(error);
    const more = suppressed === 0 ? '' : ` (${suppressed} more not logged)`;
    log('error', `contained an exception in ${where}, still running: ${message}${more}`, { where, error: message, ...(suppressed === 0 ? {} : { suppressed }) });
  };
  member.on('error', ({ error, where }) => logContained(where, error));
  const reportUncaught = (kind: UncaughtKind, error: unknown) => {
    uncaught++;
    logContained(kind, error);
  };

  /** A query handler that did not answer: logged within the error budget (a flood of queries must not flood the log). */
  function logHandler(outcome: HandlerOutcome): void {
    if (outcome.result === 'answered' || outcome.result === 'silent') return;
    const { allowed, suppressed } = errorLines.take();
    if (!allowed) return;
    const more = suppressed === 0 ? '' : ` (${suppressed} more not logged)`;
    log('query-handler', `query handler for '${outcome.query}' ${outcome.result}: ${outcome.detail ?? ''}${more}`, { ...outcome, ...(suppressed === 0 ? {} : { suppressed }) });
  }

  function logJoin(result: JoinResult): void {
    for (const failed of result.failed) log('join-failed', `could not join through ${failed.address}: ${failed.reason}`, failed);
    if (result.contacted.length > 0) log('joined', `joined through ${result.contacted.join(', ')}`, { contacted: result.contacted });
  }

  const wireNote = args.wire === 'memberlist' ? ", memberlist's wire format" : '';
  if (metricsServer !== undefined) log('metrics', `serving Prometheus metrics at ${metricsServer.url}`, { url: metricsServer.url });
  log('start', `listening on ${transport.address} (bind ${formatAddress(args.bind.host, udp.port)})${wireNote}, control endpoint http://${rpcAddress}`, {
    address: transport.address,
    port: udp.port,
    rpc: rpcAddress,
    profile: args.profile,
    wire: args.wire,
  });
  if (secure !== undefined) {
    const { text, fields } = describeSecureLayer(secure, keyring);
    log('encryption', text, fields);
  }
  for (const note of loaded?.notes ?? []) log('keyring', note, { note });
  for (const note of restored?.notes ?? []) log('snapshot', note, { note });
  if (restored?.restore !== undefined) {
    const last = restored.restore.incarnation;
    log('snapshot', `restored from ${args.snapshot}: incarnation ${member.incarnation} (the last run's was ${last}), ${restored.rejoin.length} known members${restored.clocks === undefined || serf === undefined ? '' : `, Serf clocks ${restored.clocks.clock}/${restored.clocks.eventClock}/${restored.clocks.queryClock}`}`, {
      file: args.snapshot,
      incarnation: member.incarnation,
      lastIncarnation: last,
      members: restored.rejoin.length,
      ...(serf === undefined ? {} : { clocks: restored.clocks }),
    });
  }
  // Key material never reaches the log: only how many keys there are.
  keyring?.onChange((keys) => {
    log('keyring', `keyring changed: ${keys.length} key${keys.length === 1 ? '' : 's'}`, { keys: keys.length });
    keyringWrites.save(keys).catch((error: unknown) => log('error', (error as Error).message));
  });

  let stopping = false;
  let leaving: Promise<{ spread: boolean } | undefined> | undefined;
  let resolveStopped!: (code: number) => void;
  const stopped = new Promise<number>((resolve) => {
    resolveStopped = resolve;
  });
  shutdown = (reason, failure) => {
    if (stopping) return stopped;
    stopping = true;
    stopJoining.abort();
    if (failure === undefined) {
      // Recorded and synced before the leave goes out: a restart after it does not rejoin (serf Leave).
      snapshot?.leave();
      log('leave', `leaving (${reason}), waiting up to ${args.leaveTimeoutMs} ms for the leave to spread`, { reason });
      leaving = (serf ?? member).leave({ timeoutMs: args.leaveTimeoutMs }).catch((error: unknown) => {
        log('error', `leave failed: ${(error as Error).message}`);
        return undefined;
      });
    } else {
      // Not in a cluster, or in one under a name another member holds: nothing to leave.
      log('error', failure, { reason, error: failure });
      leaving = Promise.resolve(undefined);
    }
    void leaving.then(async (result) => {
      if (failure === undefined) log('stop', `left (spread: ${result?.spread ?? false}), closing`, { spread: result?.spread ?? false });
      else log('stop', 'closing without a leave, exit code 1', { spread: false, exitCode: 1 });
      // Give the POST /leave reply a moment to be written before the server closes.
      await new Promise((resolve) => setTimeout(resolve, 50));
      queryStreams.close();
      stopQueryHandlers();
      await member.close();
      snapshot?.close();
      monitors.close();
      await rpc.close();
      await metricsServer?.close();
      monitor.stop();
      resolveStopped(failure === undefined ? 0 : 1);
    });
    return stopped;
  };

  startJoins(args, { join, log, logJoin, fail: (message) => void shutdown('join failed', message), signal: stopJoining.signal });
  if (restored !== undefined && restored.rejoin.length > 0) rejoin(restored.rejoin);

  /** serf handleRejoin: join the members the snapshot knew; none answering is logged, the agent keeps running. */
  function rejoin(seeds: readonly string[]): void {
    log('rejoin', `rejoining ${seeds.length} previously known member${seeds.length === 1 ? '' : 's'}`, { seeds });
    join(seeds, { signal: stopJoining.signal }).then(logJoin, (error: unknown) => {
      if (stopJoining.signal.aborted) return;
      if (error instanceof JoinError) logJoin(error.result);
      if (error instanceof NameConflictError) return void shutdown('join failed', error.message);
      log('rejoin-failed', `could not rejoin any previously known member: ${(error as Error).message}`, { error: (error as Error).message });
    });
  }

  return { member, address: transport.address, rpcAddress, stopped, shutdown: (reason) => shutdown(reason), reportUncaught, secure };
}
