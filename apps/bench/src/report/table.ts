/** A Markdown table; cells are escaped for pipes. */
export function table(head: readonly string[], rows: ReadonlyArray<readonly string[]>, align?: readonly ('l' | 'r')[]): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  const rule = head.map((_, i) => ((align?.[i] ?? (i === 0 ? 'l' : 'r')) === 'r' ? '---:' : '---'));
  return [head, rule, ...rows].map((r) => `| ${r.map(esc).join(' | ')} |`).join('\n');
}
