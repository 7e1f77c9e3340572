/**
 * `pnpm bench gateway [flags]`: browser members through one WebSocket gateway (issue 31), size
 * after size with fresh processes, then real Chromium pages beside them. The target's verdict is
 * reported, not enforced: the exit code is 0 whenever the runs finished.
 */
import { cpus, loadavg } from 'node:os';
import { runOwnFlagsExperiment } from '../own-flags.js';
import { sourceState } from '../source-state.js';
import { runChromium } from './chromium.js';
import { GATEWAY_USAGE, parseGatewayArgs, type GatewayOptions } from './flags.js';
import { gatewayJson, gatewayMarkdown, gatewaySummary, gatewaySvg } from './report.js';
import type { GatewayResult, GatewaySizeRun } from './result.js';
import { runGatewaySize } from './run.js';

async function runGateway(options: GatewayOptions): Promise<GatewayResult> {
  const { params } = options;
  const log = (line: string) => process.stderr.write(`gateway: ${line}\n`);
  const loadStart = loadavg()[0]!;
  // The code that ran: the bench's sources and the packages it drives.
  const source = sourceState(/(apps\/bench\/src|packages\/(transport-ws|runtime|core|transport-udp)\/src)\//);
  const runs: GatewaySizeRun[] = [];
  for (const size of params.sizes) runs.push(await runGatewaySize(params, size, log));
  const chromium = params.chromiumTabs === 0 ? undefined : await runChromium(params, log).catch((error: unknown) => `failed: ${(error as Error).message}`);
  const cpu = cpus();
  return {
    experiment: 'gateway',
    params,
    machine: { cpus: cpu.length, cpuModel: cpu[0]?.model ?? 'unknown', loadAverage: [loadStart, loadavg()[0]!] },
    ...(source === undefined ? {} : { source }),
    runs,
    chromium,
  };
}

export function gatewayMain(argv: readonly string[]): Promise<number> {
  return runOwnFlagsExperiment<GatewayOptions, GatewayResult>(
    { name: 'gateway', usage: GATEWAY_USAGE, parse: parseGatewayArgs, run: runGateway, summary: gatewaySummary, json: gatewayJson, markdown: gatewayMarkdown, svg: gatewaySvg },
    argv,
  );
}
