/**
 * Who sees whom, drawn: one row per observer, one column per member, each cell coloured by the
 * state the row holds about the column, with the incarnation it holds written in it. Where the
 * rows disagree about a column (a suspicion spreading, a refutation catching up, a cut), the
 * column is not one colour. SVG with a viewBox, so it scales to any width.
 */
import { LETTER_STATE, type ViewMatrix } from '../src/matrix-api.js';
import { svgElement as element, svgText as text } from './svg.js';

const CELL = 22;
const LABEL = 64;
const HEADER = 58;
/** Room on the right for the last column's slanted label. */
const RIGHT = 36;

export interface MatrixMarks {
  /** Members to mark with ✂ (cut off, or on the far side of a partition). */
  readonly cut?: ReadonlySet<string>;
  /** This tab's name, highlighted. */
  readonly self?: string;
}

export function renderMatrix(svg: SVGSVGElement, matrix: ViewMatrix, marks: MatrixMarks = {}): void {
  const { members, rows } = matrix;
  const width = LABEL + members.length * CELL + RIGHT;
  const height = HEADER + rows.length * CELL;
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.dataset['rows'] = String(rows.length);
  svg.dataset['columns'] = String(members.length);
  const label = (name: string): string => `${marks.cut?.has(name) === true ? '✂ ' : ''}${name}`;
  const parts: SVGElement[] = [];
  for (const [j, name] of members.entries()) {
    const x = LABEL + j * CELL + CELL / 2;
    parts.push(text(label(name), { x, y: HEADER - 4, transform: `rotate(-55 ${x} ${HEADER - 4})`, class: `matrix-label column${name === marks.self ? ' self' : ''}` }));
  }
  for (const [i, row] of rows.entries()) {
    const y = HEADER + i * CELL;
    parts.push(text(label(row.observer), { x: LABEL - 4, y: y + CELL / 2 + 4, class: `matrix-label row${row.observer === marks.self ? ' self' : ''}` }));
    for (const [j, name] of members.entries()) {
      const state = name === row.observer ? 'self' : (LETTER_STATE[row.states[j] ?? '-'] ?? 'unknown');
      const cell = element('g', { 'data-observer': row.observer, 'data-subject': name, 'data-held': state });
      cell.append(element('rect', { x: LABEL + j * CELL + 1, y: y + 1, width: CELL - 2, height: CELL - 2, class: `cell ${state}` }));
      const incarnation = row.incarnations[j] ?? 0;
      if (state !== 'unknown' && state !== 'self') cell.append(text(String(incarnation), { x: LABEL + j * CELL + CELL / 2, y: y + CELL / 2 + 4, class: 'matrix-inc' }));
      const title = element('title', {});
      title.textContent = state === 'self' ? `${name}: itself` : `${row.observer} holds ${name} ${state}${state === 'unknown' ? '' : `, incarnation ${incarnation}`}`;
      cell.append(title);
      parts.push(cell);
    }
  }
  svg.replaceChildren(...parts);
}
