/** Building SVG on the page: an element with its attributes, or a text element. */
const SVG = 'http://www.w3.org/2000/svg';

export function svgElement(tag: string, attributes: Record<string, string | number>): SVGElement {
  const node = document.createElementNS(SVG, tag) as SVGElement;
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  return node;
}

export function svgText(content: string, attributes: Record<string, string | number>): SVGElement {
  const node = svgElement('text', attributes);
  node.textContent = content;
  return node;
}
