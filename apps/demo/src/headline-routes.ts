/**
 * The headline run's control API, one run at a time: POST /api/headline/start (JSON body,
 * {@link parseHeadlineParams}), POST /api/headline/stop, GET /api/headline (the run's status, the
 * two explanation sentences and the limits). Bad input gets a 4xx listing every problem.
 */
import type { IncomingMessage } from 'node:http';
import { HEADLINE_DEFAULTS, HEADLINE_EXPLANATION, HEADLINE_LIMITS, parseHeadlineParams } from './headline-api.js';
import { HeadlineRun } from './headline.js';

/** A start request's body is a handful of numbers; anything longer is refused unread. */
const MAX_BODY_BYTES = 4096;

export interface Reply {
  readonly status: number;
  readonly body: unknown;
}

export class HeadlineControl {
  #run: HeadlineRun | undefined;

  /** The reply for a /api/headline request, or undefined when `path` is not one of its routes. */
  async handle(req: IncomingMessage, path: string): Promise<Reply | undefined> {
    if (path === '/api/headline') return req.method === 'GET' ? this.status() : { status: 405, body: { error: 'GET /api/headline' } };
    if (path !== '/api/headline/start' && path !== '/api/headline/stop') return undefined;
    if (req.method !== 'POST') return { status: 405, body: { error: `POST ${path}` } };
    if (path === '/api/headline/stop') return this.stop();
    const body = await readJson(req);
    if ('problem' in body) return { status: body.status, body: { error: body.problem } };
    return this.start(body.value);
  }

  start(input: unknown): Reply {
    const parsed = parseHeadlineParams(input);
    if ('problems' in parsed) return { status: 400, body: { error: parsed.problems.join('; '), problems: parsed.problems } };
    if (this.#run?.running === true) return { status: 409, body: { error: 'a headline run is already going; stop it first (POST /api/headline/stop)' } };
    this.#run = new HeadlineRun(parsed.params).start();
    return { status: 200, body: { ok: true, params: parsed.params, cut: this.#run.cut } };
  }

  stop(): Reply {
    const run = this.#run;
    const stopping = run?.running === true;
    run?.stop();
    return { status: 200, body: { ok: true, stopped: stopping } };
  }

  status(): Reply {
    return {
      status: 200,
      body: {
        running: this.#run?.running === true,
        explanation: HEADLINE_EXPLANATION,
        limits: HEADLINE_LIMITS,
        defaults: HEADLINE_DEFAULTS,
        run: this.#run?.status() ?? null,
      },
    };
  }

  /** Stop the current run and wait for it to end. */
  async close(): Promise<void> {
    this.#run?.stop();
    await this.#run?.done;
  }
}

async function readJson(req: IncomingMessage): Promise<{ value: unknown } | { status: number; problem: string }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return { status: 413, problem: `the body is over ${MAX_BODY_BYTES} bytes` };
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return { value: undefined };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (error) {
    return { status: 400, problem: `the body is not JSON: ${(error as Error).message}` };
  }
}
