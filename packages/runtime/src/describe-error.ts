/**
 * One line about any thrown value, for logs and failure reasons: `Name: message` for an Error,
 * whitespace collapsed, at most 500 characters. Never throws itself (a value's toString may).
 */
export function describeError(error: unknown): string {
  let text: string;
  try {
    text = error instanceof Error ? `${error.name}: ${error.message}` : typeof error === 'string' ? error : JSON.stringify(error) ?? String(error);
  } catch {
    text = Object.prototype.toString.call(error);
  }
  const line = text.replace(/\s+/g, ' ');
  return line.length > 500 ? `${line.slice(0, 500)}...` : line;
}
