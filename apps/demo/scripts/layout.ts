/**
 * Measuring the page's layout in a real browser, for the layout tests and the README's
 * screenshots: horizontal overflow as the page itself reports it, and where the buttons are.
 */
import type { Page } from 'playwright-core';

/** The widths the page is checked and shown at: a phone, a small laptop, a laptop, a desktop. */
export const WIDTHS = [
  { width: 390, height: 800 },
  { width: 1024, height: 700 },
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
] as const;

export interface Overflow {
  /** document scrollWidth − clientWidth: > 0 means the page scrolls sideways. */
  readonly excess: number;
  /** Visible elements whose right edge passes the viewport's (tag#id.class, right edge), the first ten. */
  readonly offenders: readonly string[];
}

export async function measureOverflow(page: Page): Promise<Overflow> {
  return page.evaluate(() => {
    const root = document.documentElement;
    const offenders: string[] = [];
    for (const element of document.querySelectorAll('body *')) {
      const box = element.getBoundingClientRect();
      if (box.width === 0 || box.right <= root.clientWidth + 0.5) continue;
      // Content scrolled or clipped inside a container does not widen the page. (No named
      // functions in here: tsx's keepNames would wrap them in a helper the page does not have.)
      let clipped = false;
      for (let parent = element.parentElement; parent !== null && parent !== document.body && !clipped; parent = parent.parentElement) {
        clipped = getComputedStyle(parent).overflowX !== 'visible';
      }
      if (clipped) continue;
      const classes = typeof element.className === 'string' && element.className !== '' ? `.${element.className.split(' ').join('.')}` : '';
      if (offenders.length < 10) offenders.push(`${element.tagName.toLowerCase()}${element.id === '' ? '' : `#${element.id}`}${classes} right ${Math.round(box.right)}`);
    }
    return { excess: root.scrollWidth - root.clientWidth, offenders };
  });
}

/** The page-relative box of every button matching `selector`, keyed by a stable name. */
export async function buttonBoxes(page: Page, selector: string): Promise<Record<string, { x: number; y: number; width: number; height: number }>> {
  return page.$$eval(selector, (buttons) =>
    Object.fromEntries(
      buttons.map((button, i) => {
        const box = button.getBoundingClientRect();
        const key = `${(button as HTMLElement).dataset['member'] ?? button.id}#${[...(button.parentElement?.children ?? [])].indexOf(button)}:${i}`;
        return [key, { x: Math.round(box.x + window.scrollX), y: Math.round(box.y + window.scrollY), width: Math.round(box.width), height: Math.round(box.height) }];
      }),
    ),
  );
}

/**
 * Buttons cut off: one that passes the viewport, or that sits in a container that clips (a table
 * cell with `overflow: hidden`) while that container's content is wider than it (the cell then
 * draws an ellipsis in place of the last button). "name: label", the first ten.
 */
export async function clippedButtons(page: Page): Promise<string[]> {
  return page.$$eval('button', (buttons) =>
    buttons
      .filter((button) => {
        const box = button.getBoundingClientRect();
        if (box.width === 0) return false;
        if (box.right > document.documentElement.clientWidth + 0.5 || box.left < -0.5) return true;
        for (let parent = button.parentElement; parent !== null && parent !== document.body; parent = parent.parentElement) {
          if (getComputedStyle(parent).overflowX !== 'visible') return parent.scrollWidth > parent.clientWidth;
        }
        return false;
      })
      .slice(0, 10)
      .map((button) => `${(button as HTMLElement).dataset['member'] ?? button.id}: ${button.textContent}`),
  );
}
