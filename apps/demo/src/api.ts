/**
 * What the demo's server and page say to each other (/api/config, /api/state, /api/events): plain
 * data types only, so the page can share them without pulling in Node code.
 */
import type { MemberCounts, MemberState, PresetName, SwimConfig } from '@swim/core';
import type { ViewMatrix } from './matrix-api.js';

export type ProcessState = 'running' | 'paused' | 'crashed';

export interface DemoMemberSnapshot {
  readonly name: string;
  readonly address: string;
  readonly process: ProcessState;
  readonly blackout: boolean;
  /** Partition side (0 or 1), null when not partitioned. */
  readonly group: number | null;
  readonly incarnation: number;
  readonly healthScore: number;
  /** How this member sees the cluster: members per state, itself included. */
  readonly view: MemberCounts;
}

export interface DemoEvent {
  /** Wall-clock ms. */
  readonly time: number;
  readonly kind: 'action' | 'change';
  readonly text: string;
  readonly subject?: string;
  readonly event?: string;
  readonly observer?: string;
  readonly incarnation?: number;
}

export interface GatewaySnapshot {
  /** Its member's name, e.g. gateway-a. */
  readonly name: string;
  /** Its WebSocket URL (the same after a restart). */
  readonly url: string;
  readonly process: 'running' | 'killed';
  /** Its member's address in the cluster. */
  readonly address: string;
  readonly incarnation: number;
  readonly healthScore: number;
  /** The browser members it relays: name, relay address, connected now. */
  readonly browsers: ReadonlyArray<{ readonly name: string; readonly address: string; readonly connected: boolean }>;
}

export interface ClusterState {
  readonly time: number;
  readonly members: readonly DemoMemberSnapshot[];
  /** The WebSocket gateways, in the page's order (a killed one has no member and no browsers). */
  readonly gateways: readonly GatewaySnapshot[];
  readonly partitioned: boolean;
  /**
   * The partition in force (its halves by member name; the gateways and the browsers are on
   * `gatewaySide`), or null; `healedAt` (wall-clock ms) since the last heal, while the reconnect
   * (every `reconnectIntervalMs`, Serf reconnect) brings the halves back.
   */
  readonly partition?: {
    readonly halves: readonly [readonly string[], readonly string[]] | null;
    readonly gatewaySide: 0 | null;
    readonly healedAt: number | null;
    readonly reconnectIntervalMs: number;
    /**
     * The soonest reconnect tick among the members that hold some member failed (the demo members
     * and the gateway): who ticks, in how many ms, and how many failed members it may try; null
     * when no member holds another failed.
     */
    readonly nextReconnect: { readonly member: string; readonly inMs: number; readonly candidates: number } | null;
  };
  /** Per member name (demo members, gateways, browsers): the majority state among running demo members. */
  readonly consensus: Readonly<Record<string, { readonly state: MemberState; readonly incarnation: number }>>;
  /** Who sees whom: every demo member's (crashed ones have no view) and every running gateway's. */
  readonly matrix: ViewMatrix;
}

/** What the page needs to join: served as /api/config. */
export interface PageConfig {
  /** The gateways the page connects through, tried in this order; it moves to another when its own dies. */
  readonly gateways: ReadonlyArray<{ readonly name: string; readonly url: string }>;
  readonly token: string;
  readonly preset: PresetName;
  readonly config: Partial<SwimConfig>;
  /** failureDetectionBoundMs for the cluster at start, gateways and one page included. */
  readonly detectionBoundMs: number;
}
