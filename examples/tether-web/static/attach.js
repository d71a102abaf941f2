// Files attached to the next prompt: picked, dropped on the prompt form or
// pasted. The page reads each as base64 and says at once what is over a
// limit; the server checks everything again (kind by content, sizes,
// names), since nothing a page sends is trusted.
import { el, button } from "./dom.js";

// The server's limits (attach.go), so a person hears before sending.
export const LIMITS = { files: 20, text: 256 << 10, image: 5 << 20, total: 20 << 20 };
const IMAGE = /^image\/(png|jpeg|gif|webp)$/;

function size(n) {
  if (n < 1024) return `${n} B`;
  return n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : `${Math.ceil(n / 1024)} KiB`;
}

function base64(file) {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(String(r.result).replace(/^data:[^,]*,/, ""));
    r.onerror = () => reject(r.error || new Error("could not read the file"));
    r.readAsDataURL(file);
  });
}

export class Attachments {
  // list is the element the chips go in; onError shows a message.
  constructor(list, onError) {
    this.list = list;
    this.onError = onError;
    this.files = []; // {name, type, size, data}
  }

  // add reads files and keeps those within the limits.
  async add(files) {
    for (const f of files) {
      const image = IMAGE.test(f.type);
      const limit = image ? LIMITS.image : LIMITS.text;
      const total = this.files.reduce((n, a) => n + a.size, 0);
      if (this.files.length >= LIMITS.files) {
        this.onError(`${f.name}: at most ${LIMITS.files} files go with one prompt.`);
        continue;
      }
      if (f.size === 0) {
        this.onError(`${f.name} is empty.`);
        continue;
      }
      if (f.size > limit) {
        this.onError(`${f.name} is ${size(f.size)}; ${image ? "an image" : "a text file"} may be at most ${size(limit)}.`);
        continue;
      }
      if (total + f.size > LIMITS.total) {
        this.onError(`${f.name}: the attached files would come to more than ${size(LIMITS.total)}.`);
        continue;
      }
      try {
        this.files.push({ name: f.name, type: f.type, size: f.size, data: await base64(f) });
      } catch (e) {
        this.onError(`${f.name}: ${e.message}`);
      }
    }
    this.render();
  }

  // payload is what the prompt request carries.
  payload() {
    return this.files.map(({ name, type, data }) => ({ name, type, data }));
  }

  clear() {
    this.files = [];
    this.render();
  }

  render() {
    this.list.replaceChildren(...this.files.map((f, i) => {
      const chip = el("span", "attachment", `${f.name} · ${size(f.size)}`);
      chip.dataset.name = f.name;
      chip.append(button("remove", "×", () => { this.files.splice(i, 1); this.render(); }));
      chip.lastChild.setAttribute("aria-label", `Remove ${f.name}`);
      return chip;
    }));
    this.list.hidden = this.files.length === 0;
  }
}
