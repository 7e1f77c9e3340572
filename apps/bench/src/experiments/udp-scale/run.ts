/**
 * `pnpm bench udp-scale`: how many members one process carries over real UDP. Per size, our
 * cluster (LAN preset, each member on its own UDP + TCP transport, in a child process of its own:
 * the crypto bench's plain cluster) and, with --memberlist, a HashiCorp memberlist cluster of the
 * same size in a Go process, one after the other, never two at once.
 */
import { cpus, loadavg } from 'node:os';
import { CRYPTO_DEFAULTS, runChild } from '../crypto/run.js';
import { sourceState } from '../source-state.js';
import { buildMemberlistHost, runMemberlistHost } from './memberlist-go.js';
import type { UdpScaleParams, UdpScaleResult, UdpScaleRow } from './result.js';

export const UDP_SCALE_DEFAULTS: UdpScaleParams = {
  sizes: [1000, 2000, 5000],
  seconds: 10,
  settleSeconds: 30,
  convergeTimeoutSeconds: 600,
  joinPauseMs: 100,
  formation: 'pre-formed',
  memberlistFormation: 'joins',
  memberlist: false,
};


export async function runUdpScale(params: UdpScaleParams, log: (line: string) => void): Promise<UdpScaleResult> {
  const loadStart = loadavg()[0]!;
  // The bench's own sources: src, the transport's bench cluster, the Go host.
  const source = sourceState(/\/(src|bench|go)\//);
  const host = params.memberlist ? await buildMemberlistHost() : undefined;
  if (typeof host === 'string') log(`memberlist: ${host}`);
  const rows: UdpScaleRow[] = [];
  for (const members of params.sizes) {
    log(`swim: ${members} members, ${params.formation}…`);
    const swim = await runChild('plain', { ...CRYPTO_DEFAULTS, members, seconds: params.seconds, settleSeconds: params.settleSeconds, convergeTimeoutSeconds: params.convergeTimeoutSeconds, joinPauseMs: params.joinPauseMs, formation: params.formation, engines: [] });
    let memberlist: UdpScaleRow['memberlist'];
    if (typeof host === 'string') memberlist = host;
    else if (host !== undefined) {
      log(`memberlist: ${members} members…`);
      memberlist = await runMemberlistHost(host.binary, members, params).catch((error: unknown) => `not measured: ${(error as Error).message}`);
    }
    rows.push({ members, swim, ...(memberlist === undefined ? {} : { memberlist }) });
  }
  const cpu = cpus();
  return { experiment: 'udp-scale', params, machine: { cpus: cpu.length, cpuModel: cpu[0]?.model ?? 'unknown', loadAverage: [loadStart, loadavg()[0]!] }, ...(source === undefined ? {} : { source }), rows };
}
