import { escapeXml, yAxis } from '../../report/chart.js';
import type { DetectorsResult } from './run.js';

/**
 * The adaptation chart, hand-written like the charts in src/report: the silence each detector
 * tolerates (its horizon) over the calm → busy → calm trace, one line per detector; left the
 * first trace as it happened, right the median over every trace. The busy hour is shaded.
 */

const FONT = 'font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif"';
const PANEL_W = 460;
const PANEL_H = 260;
const MARGIN = { left: 64, right: 20, top: 84, bottom: 96 };
const GAP = 48;

const STYLE: Readonly<Record<string, { readonly color: string; readonly dash?: string }>> = {
  'fixed-2.5': { color: '#7f7f7f', dash: '7 4' },
  'fixed-5.5': { color: '#bcbd22', dash: '2 3' },
  'phi-8-pause-1': { color: '#1f77b4' },
  'phi-8-pause-1-window-100': { color: '#d62728' },
};

function tick(v: number): string {
  return `${+v.toFixed(2)}`;
}

export function detectorsSvg(result: DetectorsResult): string {
  const { adaptation } = result;
  const rows = adaptation.rows;
  const stepMin = adaptation.sampleMs / 60_000;
  const phaseMin = adaptation.phaseMs / 60_000;
  const totalMin = 3 * phaseMin;
  const panels = [
    { title: 'first trace', pick: (r: (typeof rows)[number]) => r.horizonFirstTraceS },
    { title: `median over ${adaptation.traces} trace${adaptation.traces === 1 ? '' : 's'}`, pick: (r: (typeof rows)[number]) => r.horizonMedianS },
  ];
  const values = rows.flatMap((r) => [...r.horizonFirstTraceS, ...r.horizonMedianS]).filter(Number.isFinite);
  const y = yAxis('linear', Math.max(1, ...values));
  const width = MARGIN.left + panels.length * PANEL_W + (panels.length - 1) * GAP + MARGIN.right;
  const height = MARGIN.top + PANEL_H + MARGIN.bottom;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ${FONT} font-size="12">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="${MARGIN.left}" y="24" font-size="16" font-weight="600" fill="#222">How fast each detector adapts: calm → busy → calm</text>`,
    `<text x="${MARGIN.left}" y="42" fill="#555">${escapeXml(
      `silence tolerated after the latest heartbeat (the horizon), sampled every ${tick(stepMin * 60)} s; one hour per phase; seed ${result.params.seed}`,
    )}</text>`,
  ];
  panels.forEach((panel, p) => {
    const x0 = MARGIN.left + p * (PANEL_W + GAP);
    const y0 = MARGIN.top;
    const mapX = (minutes: number) => x0 + (minutes / totalMin) * PANEL_W;
    const mapY = (v: number) => y0 + PANEL_H - y.map(v) * PANEL_H;
    out.push('<g>');
    out.push(`<text x="${x0 + PANEL_W / 2}" y="${y0 - 22}" text-anchor="middle" font-weight="600" fill="#222">${escapeXml(panel.title)}</text>`);
    out.push(`<rect x="${mapX(phaseMin).toFixed(1)}" y="${y0}" width="${(mapX(2 * phaseMin) - mapX(phaseMin)).toFixed(1)}" height="${PANEL_H}" fill="#fdebd3"/>`);
    ['calm', 'busy', 'calm'].forEach((name, i) => {
      out.push(`<text x="${mapX((i + 0.5) * phaseMin).toFixed(1)}" y="${y0 - 6}" text-anchor="middle" fill="#666" font-size="11">${name}</text>`);
    });
    for (const t of y.ticks) {
      const yy = mapY(t).toFixed(1);
      out.push(`<line x1="${x0}" y1="${yy}" x2="${x0 + PANEL_W}" y2="${yy}" stroke="#e4e4e4"/>`);
      if (p === 0) out.push(`<text x="${x0 - 6}" y="${(+yy + 4).toFixed(1)}" text-anchor="end" fill="#444">${tick(t)}</text>`);
    }
    out.push(`<rect x="${x0}" y="${y0}" width="${PANEL_W}" height="${PANEL_H}" fill="none" stroke="#999"/>`);
    for (let m = 0; m <= totalMin; m += 30) {
      const x = mapX(m).toFixed(1);
      out.push(`<line x1="${x}" y1="${y0 + PANEL_H}" x2="${x}" y2="${y0 + PANEL_H + 4}" stroke="#999"/>`);
      out.push(`<text x="${x}" y="${y0 + PANEL_H + 17}" text-anchor="middle" fill="#444">${m}</text>`);
    }
    out.push(`<text x="${x0 + PANEL_W / 2}" y="${y0 + PANEL_H + 36}" text-anchor="middle" fill="#222">minutes</text>`);
    for (const row of rows) {
      const style = STYLE[row.key] ?? { color: '#000' };
      const series = panel.pick(row);
      // Flat stretches need only their two ends.
      const xy = series.flatMap((v, i) => (Number.isFinite(v) ? [[mapX(i * stepMin).toFixed(1), mapY(v).toFixed(1)] as const] : []));
      const points = xy.filter((p, i) => i === 0 || i === xy.length - 1 || p[1] !== xy[i - 1]![1] || p[1] !== xy[i + 1]![1]).map(([px, py]) => `${px},${py}`);
      const dash = style.dash ? ` stroke-dasharray="${style.dash}"` : '';
      if (points.length > 1) out.push(`<polyline points="${points.join(' ')}" fill="none" stroke="${style.color}" stroke-width="2" stroke-linejoin="round"${dash}><title>${escapeXml(row.label)}</title></polyline>`);
    }
    out.push('</g>');
  });
  out.push(`<text transform="translate(18 ${MARGIN.top + PANEL_H / 2}) rotate(-90)" text-anchor="middle" fill="#222">tolerated silence (s)</text>`);
  let lx = MARGIN.left;
  const ly = MARGIN.top + PANEL_H + 66;
  for (const row of rows) {
    const style = STYLE[row.key] ?? { color: '#000' };
    const dash = style.dash ? ` stroke-dasharray="${style.dash}"` : '';
    out.push(`<line x1="${lx}" y1="${ly - 4}" x2="${lx + 26}" y2="${ly - 4}" stroke="${style.color}" stroke-width="3"${dash}/>`);
    out.push(`<text x="${lx + 32}" y="${ly}" fill="#222">${escapeXml(row.label)}</text>`);
    lx += 32 + row.label.length * 6.6 + 24;
  }
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
