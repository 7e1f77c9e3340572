/**
 * A minimal well-formedness check for the SVG we write (no XML parser in Node): balanced tags,
 * quoted attributes without duplicates, no raw `<` or stray `&` in text or attribute values.
 * Returns the problems found (empty = well-formed) and the element names seen.
 */
export function checkXml(text: string): { problems: string[]; elements: string[] } {
  const problems: string[] = [];
  const elements: string[] = [];
  const stack: string[] = [];
  const badAmp = /&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/;
  let pos = 0;
  const tag = /<(\/?)([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>/y;
  while (pos < text.length) {
    const lt = text.indexOf('<', pos);
    const chunk = lt === -1 ? text.slice(pos) : text.slice(pos, lt);
    if (badAmp.test(chunk)) problems.push(`stray & in text near ${JSON.stringify(chunk.slice(0, 40))}`);
    if (lt === -1) break;
    if (text.startsWith('<?', lt)) {
      pos = text.indexOf('?>', lt) + 2;
      continue;
    }
    tag.lastIndex = lt;
    const m = tag.exec(text);
    if (m === null) {
      problems.push(`malformed tag at ${lt}: ${JSON.stringify(text.slice(lt, lt + 60))}`);
      break;
    }
    const [, closing, name, attrs, selfClosing] = m as unknown as [string, string, string, string, string];
    const names = [...attrs.matchAll(/([\w:.-]+)="([^"]*)"/g)].map((a) => {
      if (badAmp.test(a[2]!)) problems.push(`stray & in attribute ${a[1]} of <${name}>`);
      return a[1]!;
    });
    if (new Set(names).size !== names.length) problems.push(`duplicate attribute in <${name}>`);
    if (closing) {
      const open = stack.pop();
      if (open !== name) problems.push(`</${name}> closes <${open ?? 'nothing'}>`);
    } else {
      elements.push(name);
      if (!selfClosing) stack.push(name);
    }
    pos = tag.lastIndex;
  }
  if (stack.length > 0) problems.push(`unclosed: ${stack.join(', ')}`);
  if (elements[0] !== 'svg') problems.push('the root element is not <svg>');
  return { problems, elements };
}
