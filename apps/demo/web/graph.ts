/**
 * The members as a ring, coloured by the state this tab's member holds about each; members with
 * a process fault (paused, crashed, cut off) get a dashed outline. During a partition the ring
 * opens into two arcs, the gateway's half (with the gateway and the tabs) on the left and the
 * other half on the right, with the cut drawn between them.
 */
import type { ClusterState } from '../src/api.js';
import { byName } from '../src/matrix-api.js';
import { svgElement as element, svgText } from './svg.js';

export interface GraphNode {
  readonly name: string;
  /** As this tab's member sees it; 'unknown' when it has not heard of it. */
  readonly state: string;
  readonly incarnation: number | undefined;
  readonly healthScore: number | undefined;
  readonly self: boolean;
  readonly fault: string | undefined;
  readonly group: number | null;
}

const RADIUS = 250;
/** The gap (radians) left at each end of an arc while partitioned. */
const ARC_GAP = 0.22;

export function graphNodes(state: ClusterState | undefined, view: ReadonlyMap<string, { state: string; incarnation: number }>, selfName: string, selfHealth: number): GraphNode[] {
  const names = new Set<string>(view.keys());
  for (const member of state?.members ?? []) names.add(member.name);
  for (const gateway of state?.gateways ?? []) names.add(gateway.name);
  const snapshots = new Map((state?.members ?? []).map((m) => [m.name, m]));
  const gateways = new Map((state?.gateways ?? []).map((g) => [g.name, g]));
  return [...names]
    .sort(byName)
    .map((name) => {
      const held = view.get(name);
      const snapshot = snapshots.get(name);
      const gateway = gateways.get(name);
      const fault = gateway?.process === 'killed' ? 'killed' : snapshot === undefined ? undefined : snapshot.process !== 'running' ? snapshot.process : snapshot.blackout ? 'cut off' : undefined;
      const healthScore = name === selfName ? selfHealth : gateway !== undefined ? (gateway.process === 'killed' ? undefined : gateway.healthScore) : snapshot?.process === 'crashed' ? undefined : snapshot?.healthScore;
      return {
        name,
        state: held?.state ?? 'unknown',
        incarnation: held?.incarnation,
        healthScore,
        self: name === selfName,
        fault,
        // The gateways and the browsers side with the gateways' half of a partition.
        group: snapshot === undefined ? (state?.partition?.gatewaySide ?? null) : snapshot.group,
      };
    });
}

/** Where each node goes: a ring, or two facing arcs while partitioned. */
function layout(nodes: readonly GraphNode[]): Array<{ x: number; y: number }> {
  const place = (angle: number) => ({ x: RADIUS * Math.cos(angle), y: RADIUS * Math.sin(angle) });
  if (nodes.every((node) => node.group === null)) return nodes.map((_, i) => place((2 * Math.PI * i) / Math.max(1, nodes.length) - Math.PI / 2));
  const positions: Array<{ x: number; y: number }> = [];
  for (const side of [0, 1] as const) {
    // Members added since the cut and the outsiders have no group: they are on the gateway's side.
    const members = nodes.map((node, i) => ({ node, i })).filter(({ node }) => (node.group === 1 ? 1 : 0) === side);
    for (const [j, { i }] of members.entries()) {
      // From the top down each arc, leaving a gap at the top and the bottom for the cut.
      const along = ARC_GAP + ((j + 0.5) / members.length) * (Math.PI - 2 * ARC_GAP);
      positions[i] = place(side === 0 ? -Math.PI / 2 - along : -Math.PI / 2 + along);
    }
  }
  return positions;
}

export function renderGraph(svg: SVGSVGElement, nodes: readonly GraphNode[]): void {
  svg.replaceChildren();
  const positions = layout(nodes);
  if (nodes.some((node) => node.group !== null)) {
    svg.append(element('line', { x1: 0, y1: -300, x2: 0, y2: 300, class: 'cut' }));
    svg.append(svgText('✂ partition', { x: 0, y: -292, class: 'cut-label' }));
  }
  for (const [i, node] of nodes.entries()) {
    const { x, y } = positions[i]!;
    const link = element('line', { x1: 0, y1: 0, x2: x, y2: y, class: 'link' });
    if (node.state === 'alive' || node.state === 'suspect') svg.append(link);
  }
  for (const [i, node] of nodes.entries()) {
    const { x, y } = positions[i]!;
    const group = element('g', { class: 'node', 'data-member': node.name, 'data-state': node.state, transform: `translate(${x.toFixed(1)} ${y.toFixed(1)})` });
    const classes = [node.state, node.self ? 'self' : '', node.fault !== undefined ? 'faulty' : ''].filter(Boolean).join(' ');
    group.append(element('circle', { r: node.self ? 26 : 22, class: classes }));
    group.append(text(node.name, 0, 40));
    const details = [`inc ${node.incarnation ?? '?'}`, node.healthScore === undefined ? '' : `health ${node.healthScore}`].filter(Boolean).join(' · ');
    group.append(text(details, 0, 53, 'small'));
    if (node.fault !== undefined) group.append(text(node.fault, 0, node.self ? -32 : -28, 'small'));
    const title = element('title', {});
    title.textContent = `${node.name}: ${node.state}${node.fault === undefined ? '' : ` (${node.fault})`}`;
    group.append(title);
    svg.append(group);
  }
}

function text(content: string, x: number, y: number, cls?: string): SVGElement {
  return svgText(content, { x, y, ...(cls === undefined ? {} : { class: cls }) });
}
