/**
 * How many connections a busy Node process accepts per event-loop turn: `--connections` clients
 * connect while the loop is blocked, then every accepted connection costs `--work-ms` of CPU. With
 * libuv 1.45+ (Node 20) a listener accepts one connection per turn (libuv pull request 3696), so
 * the accept rate of a gateway is its turn rate: when turns last 20 ms, 50 upgrades a second at
 * most, whatever the backlog (511 by default, the kernel's somaxconn at most).
 *
 *   npx tsx packages/transport-ws/test/measure/accepts-per-turn.ts [--connections 200] [--work-ms 2]
 */
import { connect, createServer, type Socket } from 'node:net';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { connections: { type: 'string', default: '200' }, 'work-ms': { type: 'string', default: '2' } } });
const CONNECTIONS = Number(values.connections);
const WORK_MS = Number(values['work-ms']);

let turn = 0;
const acceptedInTurn = new Map<number, number>();
const countTurns = (): void => {
  turn++;
  if (turn < 1_000_000) setImmediate(countTurns);
};
const server = createServer((socket) => {
  acceptedInTurn.set(turn, (acceptedInTurn.get(turn) ?? 0) + 1);
  const until = performance.now() + WORK_MS;
  while (performance.now() < until);
  socket.destroy();
  if ([...acceptedInTurn.values()].reduce((a, b) => a + b, 0) === CONNECTIONS) report();
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = (server.address() as { port: number }).port;
const clients: Socket[] = [];
for (let i = 0; i < CONNECTIONS; i++) clients.push(connect(port, '127.0.0.1').on('error', () => {}));
// Let the handshakes complete in the kernel while this process is busy: all of them wait in the backlog.
const until = performance.now() + 200;
while (performance.now() < until);
const started = performance.now();
setImmediate(countTurns);

function report(): void {
  const perTurn = [...acceptedInTurn.values()];
  console.log(
    JSON.stringify({
      node: process.version,
      libuv: process.versions.uv,
      connections: CONNECTIONS,
      turnsWithAccepts: perTurn.length,
      mostAcceptedInOneTurn: Math.max(...perTurn),
      msToAcceptAll: Math.round(performance.now() - started),
    }),
  );
  for (const client of clients) client.destroy();
  server.close();
  process.exit(0);
}
