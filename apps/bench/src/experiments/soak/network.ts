/**
 * Where the agents run: three network namespaces, each joined to a bridge in the root namespace by
 * a veth pair (as apps/cli/test/partition.test.ts, with a bridge so that three can meet), when this
 * process is root and `ip netns add` works; 127.0.0.1 otherwise. Cutting a group off takes its veth
 * end down; healing brings it up. The last group is sized to the nemesis's cap (a quarter of the
 * agents), so that cutting or restarting it never affects more than the cap.
 */
import { execFileSync } from 'node:child_process';

export interface Group {
  readonly name: string;
  /** The namespace the group's agents run in; undefined on loopback. */
  readonly netns: string | undefined;
  /** The address the group's agents bind (their own namespace's veth address, or 127.0.0.1). */
  readonly host: string;
  /** Agent indexes in this group. */
  readonly members: readonly number[];
}

export interface Network {
  readonly mode: 'namespaces' | 'loopback';
  /** Why namespaces were not used (loopback only). */
  readonly why: string | undefined;
  readonly groups: readonly Group[];
  /** An address of the root namespace that reaches every group (the forger binds it). */
  readonly outsideHost: string;
  /** Whether a group can be cut off (namespaces only). */
  readonly canCut: boolean;
  cut(group: Group): void;
  heal(group: Group): void;
  close(): void;
}

const tag = `${process.pid % 10_000}`;
const SUBNET = `10.${150 + (process.pid % 100)}.${(process.pid >> 7) % 250}`;

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Why network namespaces cannot be used here, or undefined when they can. */
export function namespacesUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'not root';
  const probe = `swim-soak-probe-${tag}`;
  try {
    ip('netns', 'add', probe);
    ip('netns', 'del', probe);
    return undefined;
  } catch (error) {
    return `ip netns add failed: ${String((error as { stderr?: unknown }).stderr ?? error).trim()}`;
  }
}

/** Agent indexes split in three: the last group holds a quarter (the nemesis's cap), the others the rest. */
export function splitGroups(agents: number): number[][] {
  const small = Math.max(1, Math.floor(agents / 4));
  const rest = agents - small;
  const first = Math.ceil(rest / 2);
  const all = Array.from({ length: agents }, (_, i) => i);
  return [all.slice(0, first), all.slice(first, rest), all.slice(rest)];
}

export function setUpNetwork(agents: number, want: 'auto' | 'loopback'): Network {
  const split = splitGroups(agents);
  const why = want === 'loopback' ? '--loopback given' : namespacesUnavailable();
  if (why !== undefined) {
    const groups = split.map((members, i) => ({ name: `g${i}`, netns: undefined, host: '127.0.0.1', members }));
    return { mode: 'loopback', why, groups, outsideHost: '127.0.0.66', canCut: false, cut: () => {}, heal: () => {}, close: () => {} };
  }
  const bridge = `ssbr${tag}`;
  const created: string[] = [];
  const close = () => {
    for (const ns of created) {
      try {
        ip('netns', 'del', ns);
      } catch {
        // Already gone.
      }
    }
    try {
      ip('link', 'del', bridge);
    } catch {
      // Not created or already gone.
    }
  };
  try {
    ip('link', 'add', bridge, 'type', 'bridge');
    ip('addr', 'add', `${SUBNET}.254/24`, 'dev', bridge);
    ip('link', 'set', bridge, 'up');
    const groups = split.map((members, i) => {
      const netns = `swim-soak-${tag}-g${i}`;
      const inside = `ss${tag}g${i}`;
      const outside = `ss${tag}p${i}`;
      ip('netns', 'add', netns);
      created.push(netns);
      ip('link', 'add', inside, 'netns', netns, 'type', 'veth', 'peer', 'name', outside);
      ip('link', 'set', outside, 'master', bridge);
      ip('link', 'set', outside, 'up');
      const host = `${SUBNET}.${i + 1}`;
      ip('-n', netns, 'addr', 'add', `${host}/24`, 'dev', inside);
      ip('-n', netns, 'link', 'set', 'lo', 'up');
      ip('-n', netns, 'link', 'set', inside, 'up');
      return { name: `g${i}`, netns, host, members, inside };
    });
    const device = (group: Group) => groups.find((g) => g.name === group.name)!.inside;
    return {
      mode: 'namespaces',
      why: undefined,
      groups: groups.map(({ inside: _inside, ...g }) => g),
      outsideHost: `${SUBNET}.254`,
      canCut: true,
      cut: (group) => ip('-n', group.netns!, 'link', 'set', device(group), 'down'),
      heal: (group) => ip('-n', group.netns!, 'link', 'set', device(group), 'up'),
      close,
    };
  } catch (error) {
    close();
    throw error;
  }
}

/** `nsenter` prefix for a command run inside the group's namespace (nothing on loopback). */
export function inGroup(group: Group, command: string, args: readonly string[]): [string, string[]] {
  return group.netns === undefined ? [command, [...args]] : ['nsenter', [`--net=/run/netns/${group.netns}`, command, ...args]];
}
