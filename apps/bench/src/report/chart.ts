/**
 * Hand-written SVG charts, no dependencies: line charts in side-by-side panels and grouped bar
 * charts. Values may be drawn on a log1p scale (y ∝ log(1 + v)) so that zero stays visible next
 * to counts in the thousands.
 */

export type YScale = 'linear' | 'log1p';

export interface Series {
  readonly name: string;
  readonly color: string;
  readonly dash?: string;
  readonly points: ReadonlyArray<readonly [x: number, y: number]>;
}

export interface Panel {
  readonly title: string;
  readonly series: readonly Series[];
  /** A dotted vertical marker (e.g. the maximum suspicion timeout). */
  readonly marker?: { readonly x: number; readonly label: string };
}

export interface LineChartSpec {
  readonly title: string;
  readonly subtitle?: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly yScale: YScale;
  readonly panels: readonly Panel[];
}

export interface BarGroup {
  readonly label: string;
  readonly bars: ReadonlyArray<{ readonly series: string; readonly value: number; readonly label?: string }>;
}

export interface BarChartSpec {
  readonly title: string;
  readonly subtitle?: string;
  readonly yLabel: string;
  readonly yScale: YScale;
  readonly series: ReadonlyArray<{ readonly name: string; readonly color: string }>;
  readonly groups: readonly BarGroup[];
  /** A dashed horizontal reference line. */
  readonly reference?: { readonly y: number; readonly label: string };
}

const FONT = 'font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif"';
const PANEL_W = 340;
const PANEL_H = 240;
const MARGIN = { left: 64, right: 16, top: 78, bottom: 84 };
const GAP = 36;

export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);
}

/** Compact number for axis ticks: 1200 → 1.2k. */
function tickText(v: number): string {
  if (v >= 1_000_000) return `${+(v / 1_000_000).toFixed(1)}M`;
  if (v >= 1000) return `${+(v / 1000).toFixed(1)}k`;
  return `${+v.toFixed(2)}`;
}

/** A "nice" step for about `count` ticks over [0, span]. */
function niceStep(span: number, count: number): number {
  if (!(span > 0)) return 1;
  const raw = span / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const f = raw / power;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * power;
}

/** Y axis: maps a value to [0, 1] and lists the ticks. */
export function yAxis(scale: YScale, maxValue: number): { map: (v: number) => number; ticks: number[] } {
  if (scale === 'linear') {
    const step = niceStep(Math.max(maxValue, 1e-9), 5);
    const top = Math.max(step, Math.ceil(maxValue / step) * step);
    const ticks = [];
    for (let t = 0; t <= top + step / 2; t += step) ticks.push(+t.toPrecision(12));
    return { map: (v) => Math.max(0, v) / top, ticks };
  }
  // log1p: ticks 0, 1, 3, 10, 30, 100, … up to the first at or above the maximum.
  const ticks = [0, 1];
  while (ticks[ticks.length - 1]! < maxValue) {
    const last = ticks[ticks.length - 1]!;
    ticks.push(String(last).startsWith('1') ? last * 3 : (last / 3) * 10);
  }
  const top = Math.log1p(ticks[ticks.length - 1]!);
  return { map: (v) => Math.log1p(Math.max(0, v)) / top, ticks };
}

function header(width: number, height: number, title: string, subtitle: string | undefined): string[] {
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ${FONT} font-size="12">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="${MARGIN.left}" y="24" font-size="16" font-weight="600" fill="#222">${escapeXml(title)}</text>`,
  ];
  if (subtitle) out.push(`<text x="${MARGIN.left}" y="42" fill="#555">${escapeXml(subtitle)}</text>`);
  return out;
}

function legend(items: ReadonlyArray<{ name: string; color: string; dash?: string | undefined }>, x: number, y: number, maxWidth: number): string[] {
  const out: string[] = [];
  let cx = x;
  let cy = y;
  for (const item of items) {
    const w = 34 + item.name.length * 7 + 18;
    if (cx + w > x + maxWidth && cx > x) {
      cx = x;
      cy += 18;
    }
    const dash = item.dash ? ` stroke-dasharray="${item.dash}"` : '';
    out.push(`<line x1="${cx}" y1="${cy - 4}" x2="${cx + 26}" y2="${cy - 4}" stroke="${item.color}" stroke-width="3"${dash}/>`);
    out.push(`<text x="${cx + 32}" y="${cy}" fill="#222">${escapeXml(item.name)}</text>`);
    cx += w;
  }
  return out;
}

function yGrid(ticks: number[], map: (v: number) => number, x0: number, y0: number, w: number, h: number, labels: boolean): string[] {
  const out: string[] = [];
  for (const t of ticks) {
    const y = y0 + h - map(t) * h;
    out.push(`<line x1="${x0}" y1="${y.toFixed(1)}" x2="${x0 + w}" y2="${y.toFixed(1)}" stroke="#e4e4e4"/>`);
    if (labels) out.push(`<text x="${x0 - 6}" y="${(y + 4).toFixed(1)}" text-anchor="end" fill="#444">${tickText(t)}</text>`);
  }
  return out;
}

export function lineChart(spec: LineChartSpec): string {
  const n = Math.max(1, spec.panels.length);
  const textW = Math.max(spec.title.length * 9, (spec.subtitle?.length ?? 0) * 6.5);
  const width = Math.max(MARGIN.left + n * PANEL_W + (n - 1) * GAP + MARGIN.right, MARGIN.left + textW);
  const height = MARGIN.top + PANEL_H + MARGIN.bottom;
  const allPoints = spec.panels.flatMap((p) => p.series.flatMap((s) => s.points));
  const maxY = Math.max(0, ...allPoints.map((p) => p[1]));
  const y = yAxis(spec.yScale, maxY);
  const xs = [...allPoints.map((p) => p[0]), ...spec.panels.flatMap((p) => (p.marker ? [p.marker.x] : []))];
  const xMax = Math.max(1, ...xs) * 1.08;
  const xStep = niceStep(xMax, 5);
  const out = header(width, height, spec.title, spec.subtitle);

  spec.panels.forEach((panel, i) => {
    const x0 = MARGIN.left + i * (PANEL_W + GAP);
    const y0 = MARGIN.top;
    const mapX = (v: number) => x0 + (v / xMax) * PANEL_W;
    const mapY = (v: number) => y0 + PANEL_H - y.map(v) * PANEL_H;
    out.push(`<g>`);
    out.push(`<text x="${x0 + PANEL_W / 2}" y="${y0 - 8}" text-anchor="middle" font-weight="600" fill="#222">${escapeXml(panel.title)}</text>`);
    out.push(...yGrid(y.ticks, y.map, x0, y0, PANEL_W, PANEL_H, i === 0));
    out.push(`<rect x="${x0}" y="${y0}" width="${PANEL_W}" height="${PANEL_H}" fill="none" stroke="#999"/>`);
    for (let t = 0; t <= xMax; t += xStep) {
      const x = mapX(t).toFixed(1);
      out.push(`<line x1="${x}" y1="${y0 + PANEL_H}" x2="${x}" y2="${y0 + PANEL_H + 4}" stroke="#999"/>`);
      out.push(`<text x="${x}" y="${y0 + PANEL_H + 17}" text-anchor="middle" fill="#444">${tickText(t)}</text>`);
    }
    if (panel.marker) {
      const x = mapX(panel.marker.x).toFixed(1);
      out.push(`<line x1="${x}" y1="${y0}" x2="${x}" y2="${y0 + PANEL_H}" stroke="#555" stroke-width="1.5" stroke-dasharray="2 4"/>`);
      // Label on the side of the line with more room, so it stays inside the panel.
      const right = panel.marker.x / xMax < 0.6;
      out.push(
        `<text x="${(+x + (right ? 4 : -4)).toFixed(1)}" y="${y0 + 14}" text-anchor="${right ? 'start' : 'end'}" fill="#555" font-size="11">${escapeXml(panel.marker.label)}</text>`,
      );
    }
    for (const s of panel.series) {
      const pts = [...s.points].sort((a, b) => a[0] - b[0]);
      const path = pts.map(([px, py]) => `${mapX(px).toFixed(1)},${mapY(py).toFixed(1)}`).join(' ');
      const dash = s.dash ? ` stroke-dasharray="${s.dash}"` : '';
      if (pts.length > 1) out.push(`<polyline points="${path}" fill="none" stroke="${s.color}" stroke-width="2.5" stroke-linejoin="round"${dash}/>`);
      for (const [px, py] of pts) {
        out.push(`<circle cx="${mapX(px).toFixed(1)}" cy="${mapY(py).toFixed(1)}" r="3.5" fill="${s.color}"><title>${escapeXml(`${s.name}: ${tickText(px)} → ${+py.toFixed(2)}`)}</title></circle>`);
      }
    }
    out.push(`<text x="${x0 + PANEL_W / 2}" y="${y0 + PANEL_H + 36}" text-anchor="middle" fill="#222">${escapeXml(spec.xLabel)}</text>`);
    out.push(`</g>`);
  });
  out.push(`<text transform="translate(16 ${MARGIN.top + PANEL_H / 2}) rotate(-90)" text-anchor="middle" fill="#222">${escapeXml(spec.yLabel)}</text>`);
  const names = new Map<string, { name: string; color: string; dash?: string | undefined }>();
  for (const s of spec.panels.flatMap((p) => p.series)) names.set(s.name, { name: s.name, color: s.color, dash: s.dash });
  out.push(...legend([...names.values()], MARGIN.left, MARGIN.top + PANEL_H + 62, width - MARGIN.left - MARGIN.right));
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

export function barChart(spec: BarChartSpec): string {
  const groups = spec.groups;
  const perGroup = Math.max(1, spec.series.length);
  const barW = 22;
  const groupW = perGroup * barW + 36;
  // Wide enough for the groups, and for the subtitle (about 6.5 px per character at 12 px).
  const textW = Math.max(spec.title.length * 9, (spec.subtitle?.length ?? 0) * 6.5);
  const plotW = Math.max(360, groups.length * groupW, textW - MARGIN.right);
  const width = MARGIN.left + plotW + MARGIN.right;
  const height = MARGIN.top + PANEL_H + MARGIN.bottom;
  const values = groups.flatMap((g) => g.bars.map((b) => b.value)).filter(Number.isFinite);
  const y = yAxis(spec.yScale, Math.max(0, ...values, spec.reference?.y ?? 0));
  const x0 = MARGIN.left;
  const y0 = MARGIN.top;
  const mapY = (v: number) => y0 + PANEL_H - y.map(v) * PANEL_H;
  const out = header(width, height, spec.title, spec.subtitle);
  out.push(...yGrid(y.ticks, y.map, x0, y0, plotW, PANEL_H, true));
  out.push(`<rect x="${x0}" y="${y0}" width="${plotW}" height="${PANEL_H}" fill="none" stroke="#999"/>`);
  const slot = plotW / Math.max(1, groups.length);
  groups.forEach((group, gi) => {
    const gx = x0 + gi * slot + (slot - perGroup * barW) / 2;
    spec.series.forEach((series, si) => {
      const bar = group.bars.find((b) => b.series === series.name);
      if (bar === undefined || !Number.isFinite(bar.value)) return;
      const top = mapY(bar.value);
      const x = gx + si * barW;
      const h = Math.max(1, y0 + PANEL_H - top);
      out.push(
        `<rect x="${x.toFixed(1)}" y="${(y0 + PANEL_H - h).toFixed(1)}" width="${barW - 3}" height="${h.toFixed(1)}" fill="${series.color}"><title>${escapeXml(`${group.label}, ${series.name}: ${bar.label ?? +bar.value.toFixed(3)}`)}</title></rect>`,
      );
      const text = bar.label ?? tickText(bar.value);
      out.push(`<text x="${(x + (barW - 3) / 2).toFixed(1)}" y="${(y0 + PANEL_H - h - 4).toFixed(1)}" text-anchor="middle" font-size="9" fill="#333">${escapeXml(text)}</text>`);
    });
    out.push(`<text x="${(x0 + gi * slot + slot / 2).toFixed(1)}" y="${y0 + PANEL_H + 17}" text-anchor="middle" fill="#222">${escapeXml(group.label)}</text>`);
  });
  if (spec.reference) {
    const ry = mapY(spec.reference.y).toFixed(1);
    out.push(`<line x1="${x0}" y1="${ry}" x2="${x0 + plotW}" y2="${ry}" stroke="#555" stroke-width="1.5" stroke-dasharray="6 4"/>`);
    out.push(`<text x="${x0 + plotW - 4}" y="${+ry - 5}" text-anchor="end" fill="#555" font-size="11">${escapeXml(spec.reference.label)}</text>`);
  }
  out.push(`<text transform="translate(16 ${MARGIN.top + PANEL_H / 2}) rotate(-90)" text-anchor="middle" fill="#222">${escapeXml(spec.yLabel)}</text>`);
  out.push(...legend(spec.series, MARGIN.left, MARGIN.top + PANEL_H + 48, plotW));
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
