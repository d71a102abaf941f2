// A small syntax highlighter. It never produces markup from the input:
// every token becomes a text node, wrapped in a <span> with a class, so
// highlighted model output is as inert as plain text.
import { el } from "./dom.js";

const keywords = {
  go: "break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var nil true false iota",
  js: "async await break case catch class const continue default delete do else export extends finally for from function if import in instanceof let new null of return static super switch this throw true false try typeof undefined var void while yield",
  py: "and as assert async await break class continue def del elif else except False finally for from global if import in is lambda None nonlocal not or pass raise return True try while with yield",
  sh: "if then else elif fi for while until do done case esac function in return export local echo cd set unset",
  rust: "as async await break const continue crate else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while",
  json: "true false null",
};
const aliases = { golang: "go", javascript: "js", ts: "js", typescript: "js", jsx: "js", tsx: "js", mjs: "js",
  python: "py", bash: "sh", shell: "sh", zsh: "sh", console: "sh", rs: "rust" };
// Which languages write comments with # rather than //.
const hashComments = new Set(["py", "sh"]);

// One pattern per token class, tried in this order at each position.
const tokenRe = /(\/\/[^\n]*|\/\*[\s\S]*?\*\/)|(#[^\n]*)|("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`[^`]*`)|(\b\d[\d_.xXa-fA-F]*\b)|([A-Za-z_$][\w$]*)(?=\s*\()|([A-Za-z_$][\w$]*)/g;

// highlight returns a fragment showing code in lang ("" for none).
export function highlight(code, lang) {
  lang = (lang || "").toLowerCase();
  lang = aliases[lang] || lang;
  if (lang === "diff" || lang === "patch") return highlightDiff(code);
  const frag = document.createDocumentFragment();
  const kws = keywords[lang];
  if (!kws) {
    frag.append(code);
    return frag;
  }
  const kw = new Set(kws.split(" "));
  let last = 0;
  for (const m of code.matchAll(tokenRe)) {
    const [text, slashCom, hashCom, str, num, fn, ident] = m;
    let cls = "";
    if (slashCom !== undefined && !hashComments.has(lang)) cls = "t-com";
    else if (hashCom !== undefined && hashComments.has(lang)) cls = "t-com";
    else if (str !== undefined) cls = "t-str";
    else if (num !== undefined) cls = "t-num";
    else if (fn !== undefined) cls = kw.has(fn) ? "t-kw" : "t-fn";
    else if (ident !== undefined && kw.has(ident)) cls = "t-kw";
    if (!cls) continue;
    if (m.index > last) frag.append(code.slice(last, m.index));
    frag.append(el("span", cls, text));
    last = m.index + text.length;
  }
  if (last < code.length) frag.append(code.slice(last));
  return frag;
}

// highlightDiff colours a unified diff line by line.
export function highlightDiff(diff) {
  const frag = document.createDocumentFragment();
  const lines = diff.split("\n");
  if (lines.length && lines[lines.length - 1] === "") lines.pop();
  for (const line of lines) {
    let cls = "d-ctx";
    if (line.startsWith("+++") || line.startsWith("---") || line.startsWith("\\")) cls = "d-meta";
    else if (line.startsWith("@@")) cls = "d-hunk";
    else if (line.startsWith("+")) cls = "d-add";
    else if (line.startsWith("-")) cls = "d-del";
    frag.append(el("span", cls, line + "\n"));
  }
  return frag;
}
