/** Poll `check` every 50 ms until it holds; how long that took, or an error naming `what` after `limitMs`. */
export async function until(what: string, limitMs: number, check: () => boolean): Promise<number> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > limitMs) throw new Error(`timed out after ${limitMs} ms waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return Date.now() - start;
}
