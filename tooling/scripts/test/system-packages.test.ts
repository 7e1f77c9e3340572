// `pnpm test` sees to the system programs its tests drive (tooling/scripts/system-packages.mjs):
// what it installs, skips or stops on, for each state a machine can be in.
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script of the repository, without declarations
import { plan } from '../system-packages.mjs';

type Plan = { action: 'ok' } | { action: 'install'; packages: string[] } | { action: 'stop'; message: string };
const decide = plan as (env: Record<string, string | undefined>, exists: (path: string) => boolean, installer: string[] | undefined) => Plan;

const ALL = ['/usr/bin/chromium', '/usr/bin/serf', '/usr/bin/prometheus', '/usr/bin/promtool'];
const having = (...paths: string[]) => (path: string) => paths.includes(path);
const ROOT: string[] = [];

describe('system packages for the tests', () => {
  it.each([
    ['everything present', {}, having(...ALL), ROOT, { action: 'ok' }],
    ['nothing present, can install', {}, having(), ROOT, { action: 'install', packages: ['chromium', 'serf', 'prometheus'] }],
    ['promtool missing', {}, having('/usr/bin/chromium', '/usr/bin/serf', '/usr/bin/prometheus'), ROOT, { action: 'install', packages: ['prometheus'] }],
    ['serf on PATH, not in /usr/bin', { PATH: '/opt/serf/bin:/usr/bin' }, having('/usr/bin/chromium', '/opt/serf/bin/serf', '/usr/bin/prometheus', '/usr/bin/promtool'), ROOT, { action: 'ok' }],
    ['Chromium elsewhere through CHROMIUM_PATH', { CHROMIUM_PATH: '/opt/chrome/chrome' }, having('/opt/chrome/chrome', '/usr/bin/serf', '/usr/bin/prometheus', '/usr/bin/promtool'), ROOT, { action: 'ok' }],
    ['CHROMIUM_PATH pointing at nothing', { CHROMIUM_PATH: '/nowhere' }, having(...ALL), ROOT, { action: 'install', packages: ['chromium'] }],
    ['Serf and Prometheus skipped', { SWIM_SKIP_SERF: '1', SWIM_SKIP_PROMETHEUS: '1' }, having('/usr/bin/chromium'), ROOT, { action: 'ok' }],
    ['a skip set to something else than 1 does not skip', { SWIM_SKIP_SERF: 'yes' }, having('/usr/bin/chromium', '/usr/bin/prometheus', '/usr/bin/promtool'), ROOT, { action: 'install', packages: ['serf'] }],
  ] as const)('%s', (_case, env, exists, installer, expected) => {
    expect(decide(env, exists, installer as string[] | undefined)).toEqual(expected);
  });

  it('stops at once, naming every missing package and the command, when it cannot install', () => {
    const step = decide({ SWIM_SKIP_PROMETHEUS: '1' }, having(), undefined);
    expect(step.action).toBe('stop');
    const message = step.action === 'stop' ? step.message : '';
    expect(message).toContain('chromium, for the browser tests (or set CHROMIUM_PATH');
    expect(message).toContain('serf, for the Serf interop tests (or set SWIM_SKIP_SERF=1');
    expect(message).not.toContain('prometheus,');
    expect(message).toContain('sudo apt-get install -y chromium serf');
  });
});
