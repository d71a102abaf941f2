// DOM helpers shared by the page's modules. Text is only ever set with
// textContent, so no string from the model or a tool is parsed as HTML.

export function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

export function button(cls, text, onclick) {
  const b = el("button", cls, text);
  b.type = "button";
  b.onclick = onclick;
  return b;
}
