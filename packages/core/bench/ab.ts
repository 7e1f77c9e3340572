/**
 * Two builds of the core side by side on the receive path (the throughput.ts workloads), in one
 * process: short bursts of each in turn, so both meet the same load on a shared host (a single
 * 2 s run swings by 10 % or more there, which hides the change being measured). Reports msg per
 * CPU second, median and best of the bursts, per build.
 *
 * Run: cd packages/core && npx tsx bench/ab.ts --a <core package dir> --b <core package dir>
 *      e.g. an older commit's: git archive <commit> packages/core | tar -x -C /tmp/old
 *      then --a /tmp/old/packages/core --b . (each dir's src/index.ts is loaded)
 *      --case applied|known (default applied), --bursts N (default 24), --burst-ms M (default 150)
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { addressOf, buildCore, knownPacket, NOW, UpdateStream, type SwimModule } from './receive-cases.js';
import { interleavedBursts, printRates, type Build } from './interleaved.js';

const { values: flags } = parseArgs({
  options: {
    a: { type: 'string' },
    b: { type: 'string' },
    case: { type: 'string', default: 'applied' },
    bursts: { type: 'string', default: '24' },
    'burst-ms': { type: 'string', default: '150' },
  },
});
const problems: string[] = [];
if (flags.a === undefined) problems.push('--a <core package dir> is required');
if (flags.b === undefined) problems.push('--b <core package dir> is required');
if (flags.case !== 'applied' && flags.case !== 'known') problems.push(`--case takes applied or known; got ${flags.case}`);
const bursts = Number(flags.bursts);
const burstMs = Number(flags['burst-ms']);
if (!Number.isInteger(bursts) || bursts < 2) problems.push(`--bursts takes an integer >= 2; got ${flags.bursts}`);
if (!(burstMs >= 10)) problems.push(`--burst-ms takes a number >= 10; got ${flags['burst-ms']}`);
if (problems.length > 0) throw new Error(problems.join('; '));

async function load(label: string, dir: string): Promise<Build> {
  const swim = (await import(pathToFileURL(resolve(dir, 'src/index.ts')).href)) as SwimModule;
  const core = buildCore(swim);
  const from = addressOf(1);
  let run: (packets: number) => number;
  if (flags.case === 'known') {
    const packet = knownPacket(swim, 1);
    run = (packets) => {
      let effects = 0;
      for (let i = 0; i < packets; i++) effects += core.receivePacket(from, packet, NOW).length;
      return effects;
    };
  } else {
    const stream = new UpdateStream(swim, 1);
    run = (packets) => {
      let effects = 0;
      for (let i = 0; i < packets; i++) effects += core.receivePacket(from, stream.next(), NOW).length;
      return effects;
    };
  }
  return { label: `${label} (${dir})`, run };
}

const builds = [await load('a', flags.a as string), await load('b', flags.b as string)];
const rates = interleavedBursts(builds, { bursts, burstMs, perPacket: 1 });
console.log(`${flags.case}: ${bursts} bursts of ${burstMs} ms each, msg per CPU second`);
printRates(builds, rates);
