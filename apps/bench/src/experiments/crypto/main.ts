/**
 * `pnpm bench crypto [flags]`: what encryption costs a cluster (issue 11), with a table of figures
 * and the verdict against the targets on stdout, `--json` / `--out` like the other
 * experiments. The verdict is reported, not enforced: the exit code is 0 whenever the runs finished.
 */
import { parseArgs } from 'node:util';
import { numberFlag, runOwnFlagsExperiment, userPath, type OwnFlagsOptions } from '../own-flags.js';
import { cryptoJson, cryptoMarkdown, cryptoSummary } from './report.js';
import { ENGINES, type CryptoParams, type CryptoResult, type Engine } from './result.js';
import { AGENT_ENGINE, CRYPTO_DEFAULTS, ENGINE_LABELS, MAX_CPU_RATIO, MAX_LAG_P99_MS, runCrypto } from './run.js';

/** `--quick`: a small cluster, for a first look in well under a minute. */
export const CRYPTO_QUICK: CryptoParams = { ...CRYPTO_DEFAULTS, members: 100, seconds: 3, settleSeconds: 2, aesSeconds: 1 };

export const CRYPTO_USAGE = `Usage: pnpm bench crypto [flags]

Hosts N LAN-preset members over real UDP + TCP on 127.0.0.1 in one process, plain and then, for
each engine, with every member behind secureTransport (AES-256-GCM, @swim/encryption, through
that engine), each cluster in a child process of its own, one after the other, and measures
packets/s, CPU per member per second and event-loop delay; then raw AES-GCM throughput of
encryptBlob / decryptBlob through each engine. Reports the ratios and the verdict against issue
11's targets (at most ${MAX_CPU_RATIO}x CPU, loop p99 < ${MAX_LAG_P99_MS} ms with encryption), judged for
${ENGINE_LABELS[AGENT_ENGINE]} (what swim agent runs) and stated for every engine measured.

Flags:
  --engine LIST        engines, comma-separated, run in that order: node (node:crypto, from
                       @swim/encryption/node), webcrypto (default ${CRYPTO_DEFAULTS.engines.join(',')})
  --members N          members per cluster (default ${CRYPTO_DEFAULTS.members})
  --seconds S          seconds measured once converged (default ${CRYPTO_DEFAULTS.seconds})
  --settle S           seconds between convergence and the window (default ${CRYPTO_DEFAULTS.settleSeconds})
  --timeout S          bound on growing and converging each cluster (default ${CRYPTO_DEFAULTS.convergeTimeoutSeconds})
  --join-pause MS      pause after each batch of ten joins while growing (default ${CRYPTO_DEFAULTS.joinPauseMs})
  --max-in-flight N    the wrapper's maxInFlight and the raw run's concurrency (default ${CRYPTO_DEFAULTS.maxInFlight})
  --payload-bytes N    plaintext size of the raw AES-GCM run (default ${CRYPTO_DEFAULTS.payloadBytes})
  --aes-seconds S      seconds of each raw AES-GCM run (default ${CRYPTO_DEFAULTS.aesSeconds})
  --cpu-prof DIR       profile growing and each window (V8 sampling profiler) into
                       DIR/crypto-<plain|node|webcrypto>[-growing].cpuprofile and list the
                       hottest functions
  --quick              ${CRYPTO_QUICK.members} members, ${CRYPTO_QUICK.seconds} s measured
  --json PATH          write the results as JSON to PATH
  --out DIR            write crypto.json and crypto.md into DIR
  -h, --help           this text

Example:
  pnpm bench crypto --out apps/bench/results`;

export interface CryptoOptions extends OwnFlagsOptions {
  readonly params: CryptoParams;
}

/** Parse the flags after `crypto`; throws an Error listing every problem, fit for the user. */
export function parseCryptoArgs(argv: readonly string[]): CryptoOptions {
  const { values, positionals } = parseArgs({
    args: argv.filter((a) => a !== '--'),
    options: {
      engine: { type: 'string' },
      members: { type: 'string' },
      seconds: { type: 'string' },
      settle: { type: 'string' },
      timeout: { type: 'string' },
      'join-pause': { type: 'string' },
      'max-in-flight': { type: 'string' },
      'payload-bytes': { type: 'string' },
      'aes-seconds': { type: 'string' },
      'cpu-prof': { type: 'string' },
      quick: { type: 'boolean', default: false },
      json: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  const problems: string[] = [];
  const extra = positionals.filter((p) => p !== 'crypto');
  if (extra.length > 0) problems.push(`unexpected argument "${extra[0]}"`);
  const base = values.quick ? CRYPTO_QUICK : CRYPTO_DEFAULTS;
  const number = (flag: string, raw: string | undefined, fallback: number, min: number, integer: boolean): number => numberFlag(problems, flag, raw, fallback, min, integer);
  const params: CryptoParams = {
    members: number('members', values.members, base.members, 3, true),
    seconds: number('seconds', values.seconds, base.seconds, 0.1, false),
    settleSeconds: number('settle', values.settle, base.settleSeconds, 0, false),
    convergeTimeoutSeconds: number('timeout', values.timeout, base.convergeTimeoutSeconds, 1, false),
    joinPauseMs: number('join-pause', values['join-pause'], base.joinPauseMs, 0, false),
    maxInFlight: number('max-in-flight', values['max-in-flight'], base.maxInFlight, 1, true),
    payloadBytes: number('payload-bytes', values['payload-bytes'], base.payloadBytes, 1, true),
    aesSeconds: number('aes-seconds', values['aes-seconds'], base.aesSeconds, 0.1, false),
    engines: values.engine === undefined ? base.engines : engineList(values.engine, problems),
    ...(values['cpu-prof'] === undefined ? {} : { cpuProfDir: userPath(values['cpu-prof']) }),
  };
  if (problems.length > 0) throw new Error(problems.join('; '));
  return { params, json: values.json, out: values.out, help: values.help };
}

/** `--engine node,webcrypto`: known names, each once, at least one; problems are added to `problems`. */
function engineList(raw: string, problems: string[]): Engine[] {
  const names = raw.split(',').map((name) => name.trim());
  const engines: Engine[] = [];
  for (const name of names) {
    if (!(ENGINES as readonly string[]).includes(name)) problems.push(`--engine: "${name}" is not an engine (${ENGINES.join(', ')})`);
    else if (engines.includes(name as Engine)) problems.push(`--engine: "${name}" is listed twice`);
    else engines.push(name as Engine);
  }
  return engines;
}

export function cryptoMain(argv: readonly string[]): Promise<number> {
  return runOwnFlagsExperiment<CryptoOptions, CryptoResult>(
    {
      name: 'crypto',
      usage: CRYPTO_USAGE,
      parse: parseCryptoArgs,
      run: (options) => runCrypto(options.params, (line) => process.stderr.write(`${line}\n`)),
      summary: cryptoSummary,
      json: cryptoJson,
      markdown: cryptoMarkdown,
    },
    argv,
  );
}
