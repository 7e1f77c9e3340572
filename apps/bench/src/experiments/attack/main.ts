/**
 * `pnpm bench attack [flags]`: the attack suite at full size (the test runs it small), with a table
 * of figures and checks on stdout, `--json` / `--out` like the other experiments.
 */
import { parseArgs } from 'node:util';
import { formatDuration } from '../../stats.js';
import { runOwnFlagsExperiment, type OwnFlagsOptions } from '../own-flags.js';
import { killAll } from './processes.js';
import { attackJson, attackMarkdown, attackSummary, failedChecks, type AttackResult } from './report.js';
import { check, SCENARIOS, type ScenarioName, type ScenarioResult } from './result.js';
import { FULL, QUICK } from './sizes.js';
import { RUNNERS } from './suite.js';

export const ATTACK_USAGE = `Usage: pnpm bench attack [flags]

Attacks real \`swim agent\` processes and a real WebSocket gateway on 127.0.0.1 from a process that
is not a member, and reports what each attack cost them (issue 10). Exit code 1 when a check fails.

Scenarios: ${SCENARIOS.join(', ')}

Flags:
  --scenario NAME[,NAME...]  run only these (default: all, in that order)
  --quick                    the sizes \`pnpm test\` uses (apps/bench/test/attack.test.ts)
  --json PATH                write the results as JSON to PATH
  --out DIR                  write attack.json and attack.md into DIR
  -h, --help                 this text

Example:
  pnpm bench attack --out apps/bench/results`;

export interface AttackOptions extends OwnFlagsOptions {
  readonly scenarios: readonly ScenarioName[];
  readonly quick: boolean;
}

/** Parse the flags after `attack`; throws an Error whose message is fit for the user. */
export function parseAttackArgs(argv: readonly string[]): AttackOptions {
  const { values, positionals } = parseArgs({
    args: argv.filter((a) => a !== '--'),
    options: {
      scenario: { type: 'string' },
      quick: { type: 'boolean', default: false },
      json: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  const extra = positionals.filter((p) => p !== 'attack');
  if (extra.length > 0) throw new Error(`unexpected argument "${extra[0]}"`);
  let scenarios: ScenarioName[] = [...SCENARIOS];
  if (values.scenario !== undefined) {
    scenarios = values.scenario.split(',').map((s) => s.trim()) as ScenarioName[];
    const unknown = scenarios.find((s) => !(SCENARIOS as readonly string[]).includes(s));
    if (unknown !== undefined) throw new Error(`--scenario: unknown scenario "${unknown}"; one of: ${SCENARIOS.join(', ')}`);
  }
  return { scenarios, quick: values.quick, json: values.json, out: values.out, help: values.help };
}

/** A scenario that threw (a precondition it waits for never came): one failed check saying why. */
function aborted(scenario: ScenarioName, error: unknown, wallMs: number): ScenarioResult {
  const message = error instanceof Error ? error.message : String(error);
  return { scenario, title: `${scenario} (aborted)`, wallMs, rows: [['error', message]], figures: { error: message }, checks: [check('the scenario ran to its end', message, 'no error', false)] };
}

export function attackMain(argv: readonly string[]): Promise<number> {
  return runOwnFlagsExperiment<AttackOptions, AttackResult>(
    {
      name: 'attack',
      usage: ATTACK_USAGE,
      parse: parseAttackArgs,
      run: async (options) => {
        const sizes = options.quick ? QUICK : FULL;
        const results: ScenarioResult[] = [];
        try {
          for (const name of options.scenarios) {
            process.stderr.write(`attack: ${name}...\n`);
            const t0 = performance.now();
            const result = await RUNNERS[name](sizes).catch((error: unknown) => aborted(name, error, performance.now() - t0));
            process.stderr.write(`attack: ${name} done in ${formatDuration(performance.now() - t0)}\n`);
            results.push(result);
          }
        } finally {
          killAll();
        }
        return { experiment: 'attack', params: { scenarios: options.scenarios, quick: options.quick, sizes }, scenarios: results };
      },
      summary: attackSummary,
      json: attackJson,
      markdown: attackMarkdown,
      exitCode: (result) => (failedChecks(result) > 0 ? 1 : 0),
    },
    argv,
  );
}
