// A safe Markdown renderer for model output. It builds DOM nodes and sets
// only textContent, never innerHTML, so nothing the model writes is ever
// parsed as HTML: "<script>" and "onerror=" stay visible text. Links are
// made only for http(s) URLs. It covers what models write: fenced code
// (highlighted), headings, lists, quotes, rules, paragraphs, and inline
// code, bold, italic and links. An unclosed fence (mid-stream) renders as
// code up to the end.
import { highlight } from "./highlight.js";
import { el } from "./dom.js";

const inlineRe = /(`+)([\s\S]*?[^`])\1(?!`)|\*\*(?=\S)([\s\S]*?\S)\*\*|(?<!\w)__(?=\S)([\s\S]*?\S)__(?!\w)|\*(?=[^\s*])([^*]*?[^\s*])\*|\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)/g;

// inline appends text with inline markup to parent.
function inline(parent, text) {
  let last = 0;
  for (const m of text.matchAll(inlineRe)) {
    if (m.index > last) parent.append(text.slice(last, m.index));
    const [all, , code, bold, bold2, em, linkText, href] = m;
    if (code !== undefined) {
      const c = el("code");
      c.textContent = code;
      parent.append(c);
    } else if (bold !== undefined || bold2 !== undefined) {
      const b = el("strong");
      inline(b, bold ?? bold2);
      parent.append(b);
    } else if (em !== undefined) {
      const i = el("em");
      inline(i, em);
      parent.append(i);
    } else if (linkText !== undefined) {
      const a = el("a");
      a.href = href; // the pattern admits only http: and https:
      a.rel = "noopener noreferrer";
      a.target = "_blank";
      a.textContent = linkText;
      parent.append(a);
    }
    last = m.index + all.length;
  }
  if (last < text.length) parent.append(text.slice(last));
}

const fenceRe = /^\s*(`{3,}|~{3,})\s*([\w+#.-]*)/;
const headingRe = /^(#{1,6})\s+(.*)$/;
const ulRe = /^\s*[-*+]\s+(.*)$/;
const olRe = /^\s*\d+[.)]\s+(.*)$/;
const quoteRe = /^\s*>\s?(.*)$/;
const ruleRe = /^\s*([-*_])(\s*\1){2,}\s*$/;

// renderMarkdown returns a fragment for text.
export function renderMarkdown(text) {
  const frag = document.createDocumentFragment();
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  let para = [];
  let list = null; // the open <ul>/<ol>
  const flush = () => {
    if (para.length) {
      const p = el("p");
      inline(p, para.join("\n"));
      frag.append(p);
      para = [];
    }
  };
  const closeList = () => { list = null; };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fence = line.match(fenceRe);
    if (fence) {
      flush(); closeList();
      const body = [];
      for (i++; i < lines.length; i++) {
        const close = lines[i].trim();
        if (close.startsWith(fence[1]) && close.replace(/[`~]/g, "") === "") break;
        body.push(lines[i]);
      }
      const pre = el("pre");
      const code = el("code");
      if (fence[2]) code.dataset.lang = fence[2];
      code.append(highlight(body.join("\n"), fence[2]));
      pre.append(code);
      frag.append(pre);
      continue;
    }
    if (line.trim() === "") { flush(); closeList(); continue; }
    let m;
    if ((m = line.match(headingRe))) {
      flush(); closeList();
      const h = el("h" + Math.min(m[1].length + 2, 6));
      inline(h, m[2]);
      frag.append(h);
    } else if (ruleRe.test(line)) {
      flush(); closeList();
      frag.append(el("hr"));
    } else if ((m = line.match(ulRe)) || (m = line.match(olRe))) {
      flush();
      const tag = ulRe.test(line) ? "ul" : "ol";
      if (!list || list.tagName.toLowerCase() !== tag) {
        list = el(tag);
        frag.append(list);
      }
      const li = el("li");
      inline(li, m[1]);
      list.append(li);
    } else if ((m = line.match(quoteRe))) {
      flush(); closeList();
      const q = el("blockquote");
      inline(q, m[1]);
      frag.append(q);
    } else {
      closeList();
      para.push(line);
    }
  }
  flush();
  return frag;
}
