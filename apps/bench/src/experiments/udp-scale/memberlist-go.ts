/**
 * The memberlist side of `pnpm bench udp-scale --memberlist`: build apps/bench/go/memberlist-host
 * with Debian's Go and golang-github-hashicorp-memberlist-dev (GOPATH mode, offline), run it once
 * per size, and read its one JSON line.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { GoRun, UdpScaleParams } from './result.js';

const run = promisify(execFile);
const SOURCE = fileURLToPath(new URL('../../../go/memberlist-host/', import.meta.url));
/** Where Debian installs Go libraries' sources (GOPATH mode). */
const DEBIAN_GOPATH = '/usr/share/gocode';
const MEMBERLIST = `${DEBIAN_GOPATH}/src/github.com/hashicorp/memberlist`;
export const GO_INSTALL_HINT = 'apt-get install golang-go golang-github-hashicorp-memberlist-dev';

/** Build the host; a string says why it cannot be (no Go, no memberlist sources, a build error). */
export async function buildMemberlistHost(): Promise<{ readonly binary: string } | string> {
  if (!existsSync(MEMBERLIST)) return `not measured: Debian's memberlist sources are not installed (${GO_INSTALL_HINT})`;
  const dir = mkdtempSync(join(tmpdir(), 'swim-memberlist-host-'));
  const binary = join(dir, 'memberlist-host');
  const env = { ...process.env, GO111MODULE: 'off', GOPATH: DEBIAN_GOPATH, GOCACHE: join(dir, 'cache'), GOFLAGS: '' };
  try {
    await run('go', ['build', '-o', binary, '.'], { cwd: SOURCE, env });
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stderr?: string };
    if (failure.code === 'ENOENT') return `not measured: no go command (${GO_INSTALL_HINT})`;
    return `not measured: the memberlist host did not build: ${(failure.stderr ?? failure.message).trim().split('\n').slice(0, 3).join(' ')}`;
  }
  return { binary };
}

/** Read the host's output: its last line is the result. */
export function parseGoRun(stdout: string): GoRun {
  const line = stdout.trim().split('\n').at(-1) ?? '';
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new Error(`the memberlist host printed no result: ${JSON.stringify(line.slice(0, 200))}`);
  }
  const run = value as GoRun;
  if (typeof run !== 'object' || run === null || typeof run.members !== 'number' || typeof run.converged !== 'boolean') {
    throw new Error(`the memberlist host's result is not one: ${line.slice(0, 200)}`);
  }
  return run;
}

export async function runMemberlistHost(binary: string, members: number, params: UdpScaleParams): Promise<GoRun> {
  const args = ['-members', String(members), '-seconds', String(params.seconds), '-settle', String(params.settleSeconds), '-timeout', String(params.convergeTimeoutSeconds), '-join-pause', String(params.joinPauseMs)];
  if (params.memberlistFormation === 'paced') args.push('-paced');
  // Bounded: growing, settling and the window, plus room to exit.
  const timeout = (params.convergeTimeoutSeconds + params.settleSeconds + params.seconds + 120) * 1000;
  const child = run(binary, args, { timeout, maxBuffer: 1 << 20 });
  // Its progress lines (stderr) as they come.
  child.child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  const { stdout } = await child;
  return parseGoRun(stdout);
}
