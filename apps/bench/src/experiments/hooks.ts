/** What an experiment tells whoever watches it (the Progress display, or nothing in tests). */
export interface ProgressHooks {
  startCell(description: string): void;
  runDone(): void;
  cellDone(result: string): void;
  /** A message that must reach the user even while a live progress line is shown. */
  log?(message: string): void;
}

export const silent: ProgressHooks = {
  startCell() {},
  runDone() {},
  cellDone() {},
};
