/**
 * Line charts on the page, drawn by uPlot (a small, well-kept time-series chart library): a chart
 * fills its container's width and follows it when the layout changes, so it never overflows.
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/** The state colours of the page's stylesheet, for chart lines. */
export const STATE_COLORS = { alive: '#2e9e5b', suspect: '#e0a100', dead: '#d63a3a', falseDeath: '#6b0f1a' } as const;

export interface ChartSeries {
  readonly label: string;
  readonly color: string;
  /** Dash pattern of the line, e.g. [6, 4]. */
  readonly dash?: readonly number[];
}

export interface ChartOptions {
  readonly series: readonly ChartSeries[];
  readonly xLabel: string;
  readonly height: number;
  /** Draw values as steps (a health score changes in steps). */
  readonly stepped?: boolean;
  /** A fixed value range (default: fitted to the data). */
  readonly yRange?: readonly [number, number];
}

export interface LineChart {
  /** Redraw with `xs` and one array of values per series (null: no value there). */
  setData(xs: readonly number[], values: ReadonlyArray<ReadonlyArray<number | null>>): void;
}

export function lineChart(container: HTMLElement, options: ChartOptions): LineChart {
  const width = (): number => Math.max(160, Math.floor(container.clientWidth));
  const paths = options.stepped === true ? uPlot.paths.stepped?.({ align: 1 }) : undefined;
  const plot = new uPlot(
    {
      width: width(),
      height: options.height,
      legend: { show: true, live: false },
      cursor: { show: false },
      scales: { x: { time: false }, ...(options.yRange === undefined ? {} : { y: { range: [...options.yRange] as [number, number] } }) },
      axes: [{ label: options.xLabel, size: 36, labelSize: 18 }, { size: 44 }],
      series: [{}, ...options.series.map((s) => ({ label: s.label, stroke: s.color, width: 2, ...(s.dash === undefined ? {} : { dash: [...s.dash] }), ...(paths === undefined ? {} : { paths }) }))],
    },
    [[], ...options.series.map(() => [])],
    container,
  );
  new ResizeObserver(() => {
    if (width() !== plot.width) plot.setSize({ width: width(), height: options.height });
  }).observe(container);
  return {
    setData(xs, values) {
      plot.setData([xs as number[], ...(values as Array<Array<number | null>>)]);
    },
  };
}
