/**
 * `pnpm demo [--members N] [--port P] [--host H] [--profile lan|local] [--tls-cert FILE --tls-key FILE] [--quiet]`:
 * start the demo cluster, print the page's URL and a compact live view; Ctrl-C stops everything.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { PresetName } from '@swim/core';
import { describeError, installProcessGuards } from '@swim/cli/contained-errors';
import { startDemo } from './demo.js';
import { clusterState } from './state.js';
import { terminalView } from './terminal.js';

const USAGE = `usage: pnpm demo [--members N] [--port P] [--host H] [--profile lan|local] [--tls-cert FILE --tls-key FILE] [--quiet]

  --members N     UDP members to start with (default 12)
  --port P        web page port (default 8080; 0 = any free port)
  --host H        loopback address for everything (default 127.0.0.1)
  --profile P     config preset, lan (default) or local
  --tls-cert FILE PEM certificate: serve the page over https and the gateway over wss
  --tls-key FILE  PEM private key of --tls-cert (both or neither)
  --quiet         no live view, only the URL`;

function fail(message: string): never {
  process.stderr.write(`demo: ${message}\n\n${USAGE}\n`);
  process.exit(2);
}

let values;
try {
  ({ values } = parseArgs({
    options: {
      members: { type: 'string', default: '12' },
      port: { type: 'string', default: '8080' },
      host: { type: 'string', default: '127.0.0.1' },
      profile: { type: 'string', default: 'lan' },
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
      quiet: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  }));
} catch (error) {
  fail((error as Error).message);
}
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const members = Number(values.members);
const port = Number(values.port);
if (!Number.isInteger(members) || members < 1 || members > 200) fail(`--members must be an integer from 1 to 200, got ${values.members}`);
if (!Number.isInteger(port) || port < 0 || port > 65_535) fail(`--port must be a port number, got ${values.port}`);
if (values.profile !== 'lan' && values.profile !== 'local') fail(`--profile must be lan or local, got ${values.profile}`);
const tls = readTls(values['tls-cert'], values['tls-key']);

/** The certificate and key files, both or neither; the gateway checks that they are PEM and belong together. */
function readTls(certFile: string | undefined, keyFile: string | undefined): { cert: Buffer; key: Buffer } | undefined {
  if (certFile === undefined && keyFile === undefined) return undefined;
  if (certFile === undefined || keyFile === undefined) fail('--tls-cert and --tls-key go together');
  const read = (flag: string, file: string): Buffer => {
    try {
      return readFileSync(file);
    } catch (error) {
      return fail(`${flag}: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  };
  return { cert: read('--tls-cert', certFile), key: read('--tls-key', keyFile) };
}

let demo;
try {
  demo = await startDemo({ members, port, host: values.host, preset: values.profile as PresetName, ...(tls === undefined ? {} : { tls }) });
} catch (error) {
  const code = (error as NodeJS.ErrnoException).code;
  process.stderr.write(`demo: cannot start: ${code === 'EADDRINUSE' ? `port ${port} is in use (try --port 0)` : (error as Error).message}\n`);
  process.exit(1);
}
const running = demo;
// From here on nothing uncaught ends the demo (a failed start above still exits 1 or 2).
installProcessGuards((kind, error) => running.cluster.reportError('demo', kind, error));
process.stdout.write(`@swim demo: ${members} UDP members, WebSocket gateways ${running.gateways.map((g) => `${g.name} at ${g.url}`).join(' and ')}\n`);
process.stdout.write(`open ${running.url} : the page joins the cluster as a member; Ctrl-C stops the demo\n\n`);

if (!values.quiet) {
  const view = terminalView(process.stdout);
  running.cluster.onEvent((event) => view.event(event));
  const timer = setInterval(() => view.update(clusterState(running.cluster, running.gateways)), 1000);
  process.once('exit', () => clearInterval(timer));
}

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(1);
    stopping = true;
    process.stdout.write('\nstopping the demo...\n');
    void running.close().then(() => process.exit(0));
  });
}
