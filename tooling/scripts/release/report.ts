/** What the release check found, printed as it goes and kept for the closing count and the JSON report. */
export interface Check {
  readonly step: string;
  readonly name: string;
  readonly ok: boolean;
  readonly detail?: string;
}

export class Report {
  readonly checks: Check[] = [];
  /** Figures worth keeping beside the checks (bundle sizes, timings), by step. */
  readonly figures: Record<string, unknown> = {};
  #step = '';

  step(title: string): void {
    this.#step = title;
    console.log(`\n== ${title}`);
  }

  line(text: string): void {
    console.log(text);
  }

  check(name: string, ok: boolean, detail?: string): boolean {
    this.checks.push({ step: this.#step, name, ok, ...(detail === undefined ? {} : { detail }) });
    const indented = detail === undefined ? '' : `\n${detail.replace(/^/gm, '      ')}`;
    const oneLine = detail !== undefined && !detail.includes('\n');
    console.log(`  ${ok ? 'ok  ' : 'FAIL'} ${name}${oneLine ? `: ${detail}` : indented}`);
    return ok;
  }

  get passed(): number {
    return this.checks.filter((c) => c.ok).length;
  }

  get failed(): number {
    return this.checks.filter((c) => !c.ok).length;
  }
}

/** A Markdown-ish table with aligned columns, for the console. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const format = (cells: readonly string[]) => `  | ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [format(header), `  |${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(format)].join('\n');
}
