#!/usr/bin/env node
// The first step of `pnpm test`: the system programs the tests drive, Debian's packages
//   chromium    the browser tests (apps/demo, transport-ws; through playwright-core)   CHROMIUM_PATH to use another
//   serf        real Serf agents for @swim/adapter-memberlist and the cli               SWIM_SKIP_SERF=1 to skip those tests
//   prometheus  a real Prometheus server and promtool for the metrics tests            SWIM_SKIP_PROMETHEUS=1 to skip those tests
// Whatever is missing is installed with apt-get when this machine can (Debian or Ubuntu, as root or
// with password-less sudo), and the services the packages start are stopped again (the tests run
// their own on free ports). Otherwise it stops at once with one message naming what to install,
// instead of a test run that fails its browser, Serf and Prometheus tests one by one minutes later.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What the tests need, how to tell it is there, and how to do without it. */
export const REQUIREMENTS = [
  {
    debianPackage: 'chromium',
    purpose: 'the browser tests',
    present: (env, exists) => exists(env.CHROMIUM_PATH ?? '/usr/bin/chromium'),
    skip: () => false,
    instead: 'or set CHROMIUM_PATH to a Chromium binary',
  },
  {
    debianPackage: 'serf',
    purpose: 'the Serf interop tests',
    present: (env, exists) => exists('/usr/bin/serf') || (env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && exists(join(dir, 'serf'))),
    skip: (env) => env.SWIM_SKIP_SERF === '1',
    instead: 'or set SWIM_SKIP_SERF=1 to skip those tests',
  },
  {
    debianPackage: 'prometheus',
    purpose: 'the Prometheus tests',
    present: (_env, exists) => exists('/usr/bin/prometheus') && exists('/usr/bin/promtool'),
    skip: (env) => env.SWIM_SKIP_PROMETHEUS === '1',
    instead: 'or set SWIM_SKIP_PROMETHEUS=1 to skip those tests',
  },
];

/** Services the packages start on install (Prometheus on :9090, its node exporter on :9100, a Serf agent on :7946). */
const SERVICES = ['prometheus', 'prometheus-node-exporter', 'serf'];

/**
 * What to do: `ok` (everything is there or skipped), `install` these Debian packages, or `stop`
 * with a message. Pure, for the tests: `exists` tells whether a path exists, `installer` is how
 * packages can be installed here (undefined when they cannot).
 */
export function plan(env, exists, installer) {
  const missing = REQUIREMENTS.filter((r) => !r.skip(env) && !r.present(env, exists));
  if (missing.length === 0) return { action: 'ok' };
  const names = missing.map((r) => r.debianPackage);
  if (installer !== undefined) return { action: 'install', packages: names };
  const lines = missing.map((r) => `  - ${r.debianPackage}, for ${r.purpose} (${r.instead})`);
  return {
    action: 'stop',
    message:
      `pnpm test needs programs this machine does not have and cannot install by itself (it needs apt-get as root or with password-less sudo):\n${lines.join('\n')}\n` +
      `On Debian or Ubuntu: sudo apt-get install -y ${names.join(' ')}`,
  };
}

/** How this machine installs Debian packages: a command prefix, or undefined when it cannot. */
function findInstaller() {
  if (process.platform !== 'linux' || !existsSync('/usr/bin/apt-get')) return undefined;
  if (process.getuid?.() === 0) return [];
  const sudo = spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' });
  return sudo.status === 0 ? ['sudo', '-n'] : undefined;
}

function install(prefix, packages) {
  console.log(`system packages: installing Debian's ${packages.join(' ')} for the tests (apt-get)`);
  const run = (args, env = {}) => {
    const [command, ...rest] = [...prefix, ...args];
    const result = spawnSync(command, rest, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, ...env } });
    return result.status === 0;
  };
  if (!run(['apt-get', 'update', '-qq']) || !run(['apt-get', 'install', '-y', '-qq', ...packages], { DEBIAN_FRONTEND: 'noninteractive' })) {
    console.error(`system packages: apt-get could not install ${packages.join(' ')}; install them by hand (sudo apt-get install -y ${packages.join(' ')})`);
    process.exit(1);
  }
  // The tests run their own Prometheus and Serf agents on free loopback ports: stop the machine's.
  for (const service of SERVICES) {
    if (existsSync('/run/systemd/system')) run(['systemctl', 'disable', '--now', `${service}.service`]);
    else if (existsSync(`/etc/init.d/${service}`)) run([`/etc/init.d/${service}`, 'stop']);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const installer = findInstaller();
  const step = plan(process.env, existsSync, installer);
  if (step.action === 'stop') {
    console.error(step.message);
    process.exit(1);
  }
  if (step.action === 'install') {
    install(installer, step.packages);
    const after = plan(process.env, existsSync, undefined);
    if (after.action !== 'ok') {
      console.error(`system packages: installed, yet still missing:\n${after.message}`);
      process.exit(1);
    }
  }
  const skipped = REQUIREMENTS.filter((r) => r.skip(process.env) && !r.present(process.env, existsSync)).map((r) => r.debianPackage);
  console.log(`system packages: chromium, serf and prometheus ready${skipped.length > 0 ? ` (skipping the tests of ${skipped.join(', ')})` : ''}`);
}
