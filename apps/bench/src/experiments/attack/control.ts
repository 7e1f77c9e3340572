/**
 * Finding 6: the control endpoint (`swim agent --rpc`) took browser-shaped requests. A page on
 * evil.example can POST to 127.0.0.1 with `Content-Type: text/plain` and no preflight (the request
 * carries `Origin`), or rebind its own name to 127.0.0.1 (the request carries `Host: evil.example`).
 * And one POST /join dialled every one of 3,000 seeds. Done when each is refused and nothing is dialled.
 */
import { request } from 'node:http';
import { getJson, killEach, startAgent, type AgentProcess } from './processes.js';
import { check, LIMITS, type Check, type ScenarioResult } from './result.js';
import type { AttackSizes } from './sizes.js';

interface Answer {
  readonly status: number | undefined;
  readonly error?: string;
}

function send(agent: AgentProcess, method: string, path: string, headers: Record<string, string>, body?: string, timeoutMs = 60_000): Promise<Answer> {
  const colon = agent.rpc.lastIndexOf(':');
  return new Promise((resolve) => {
    const req = request(
      { host: agent.rpc.slice(0, colon), port: Number(agent.rpc.slice(colon + 1)), method, path, headers: { ...headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) }, timeout: timeoutMs },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode }));
        res.on('error', (error) => resolve({ status: res.statusCode, error: error.message }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (error) => resolve({ status: undefined, error: error.message }));
    req.end(body);
  });
}

/** Whether the agent started leaving: it logged `leave` or exited. Asked after a round trip, so its log has caught up. */
async function left(agent: AgentProcess): Promise<boolean> {
  await getJson(agent, '/stats', 5000);
  return agent.exit !== undefined || agent.log.some(({ text }) => text.includes('"event":"leave"'));
}

const refused = (a: Answer) => a.status !== undefined && a.status >= 400 && a.status < 500;
const text = (a: Answer) => (a.status === undefined ? `no answer (${a.error})` : String(a.status));

export async function runControl(sizes: AttackSizes): Promise<ScenarioResult> {
  const started = performance.now();
  const agents = await Promise.all(['ctl-origin', 'ctl-host', 'ctl-join'].map((name) => startAgent(name)));
  const [byOrigin, byHost, joiner] = agents as [AgentProcess, AgentProcess, AgentProcess];
  try {
    const rows: Array<[string, string]> = [];
    const checks: Check[] = [];
    const evilHost = `evil.example:${byHost.rpc.slice(byHost.rpc.lastIndexOf(':') + 1)}`;

    const rebound = await send(byHost, 'GET', '/members', { host: evilHost });
    rows.push([`GET /members, Host: ${evilHost}`, text(rebound)]);
    checks.push(check('GET /members with a foreign Host refused', text(rebound), '4xx', refused(rebound)));

    const reboundLeave = await send(byHost, 'POST', '/leave', { host: evilHost, 'content-type': 'application/json' }, '{}');
    const hostLeft = await left(byHost);
    rows.push([`POST /leave, Host: ${evilHost}`, `${text(reboundLeave)}; agent ${hostLeft ? 'LEFT' : 'stayed'}`]);
    checks.push(check('POST /leave with a foreign Host refused, agent stays', `${text(reboundLeave)}, ${hostLeft ? 'left' : 'stayed'}`, '4xx, stayed', refused(reboundLeave) && !hostLeft));

    const crossSite = await send(byOrigin, 'POST', '/leave', { origin: 'http://evil.example', 'content-type': 'text/plain' }, '{}');
    const originLeft = await left(byOrigin);
    rows.push(['POST /leave, Origin: http://evil.example, Content-Type: text/plain', `${text(crossSite)}; agent ${originLeft ? 'LEFT' : 'stayed'}`]);
    checks.push(check('cross-site POST /leave refused, agent stays', `${text(crossSite)}, ${originLeft ? 'left' : 'stayed'}`, '4xx, stayed', refused(crossSite) && !originLeft));

    const opened = async () => (await getJson<{ transport: { streamsOpened: number } }>(joiner, '/stats'))?.transport.streamsOpened ?? NaN;
    const before = await opened();
    const seeds = Array.from({ length: sizes.joinSeeds }, (_, i) => `127.0.0.66:${20_000 + i}`);
    const join = await send(joiner, 'POST', '/join', { 'content-type': 'application/json' }, JSON.stringify({ seeds }));
    const dialled = (await opened()) - before;
    rows.push([`POST /join with ${sizes.joinSeeds.toLocaleString('en')} seeds`, `${text(join)}; ${dialled} addresses dialled`]);
    checks.push(check(`POST /join with ${sizes.joinSeeds} seeds dials at most ${LIMITS.joinSeeds}`, `${text(join)}, ${dialled} dialled`, `≤ ${LIMITS.joinSeeds} dialled`, dialled <= LIMITS.joinSeeds));

    return {
      scenario: 'control',
      title: 'Control endpoint from a browser (finding 6)',
      wallMs: performance.now() - started,
      rows,
      figures: { rebound: rebound.status, reboundLeave: reboundLeave.status, hostLeft, crossSite: crossSite.status, originLeft, join: join.status, seeds: sizes.joinSeeds, dialled },
      checks,
    };
  } finally {
    killEach(agents);
  }
}
