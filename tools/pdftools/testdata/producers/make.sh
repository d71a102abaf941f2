#!/usr/bin/env bash
# Rebuilds the producer PDFs from source.txt (see README.md). Needs
# texlive-latex-base, libreoffice-writer-nogui, fop, python3-reportlab,
# groff, ghostscript and chromium. The committed PDFs are what the tests
# read; this script records how they were made.
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SOURCE_DATE_EPOCH=1700000000

# Paragraphs of source.txt: the first line is the title.
title=$(head -1 source.txt)
paras() { tail -n +3 source.txt | awk 'BEGIN{RS=""} {gsub(/\n/," "); print}'; }

# HTML for Chromium and LibreOffice: justified, hyphenated.
{
  echo "<!doctype html><html lang=en><head><meta charset=utf-8><title>$title</title>"
  echo "<style>body{font-family:'DejaVu Serif',serif;font-size:15pt;text-align:justify;hyphens:auto;margin:2cm}</style></head><body>"
  echo "<h1>$title</h1>"
  paras | sed 's/&/\&amp;/g; s/</\&lt;/g; s/^/<p>/; s/$/<\/p>/'
  echo "</body></html>"
} > "$tmp/doc.html"

# pdfTeX: justified two-column LaTeX with ligatures and hyphenation.
{
  echo '\documentclass[11pt]{article}\usepackage[a5paper,margin=15mm]{geometry}'
  echo '\begin{document}\section*{'"$title"'}'
  paras | sed 's/_/\\_/g; s/"\([^"]*\)"/``\1'"''"'/g; s/$/\n/'
  echo '\end{document}'
} > "$tmp/doc.tex"
(cd "$tmp" && pdflatex -interaction=batchmode doc.tex >/dev/null)
cp "$tmp/doc.pdf" pdftex.pdf

# Chromium (Skia) print to PDF.
chromium --headless --no-sandbox --disable-gpu --no-pdf-header-footer \
  --print-to-pdf="$tmp/chromium.pdf" "file://$tmp/doc.html" 2>/dev/null
cp "$tmp/chromium.pdf" chromium.pdf

# LibreOffice Writer from the same HTML.
(cd "$tmp" && soffice --headless --convert-to pdf:writer_web_pdf_Export doc.html >/dev/null 2>&1)
cp "$tmp/doc.pdf" libreoffice.pdf

# Apache FOP: XSL-FO with justified blocks in the standard Times font.
{
  echo '<?xml version="1.0" encoding="UTF-8"?>'
  echo '<fo:root xmlns:fo="http://www.w3.org/1999/XSL/Format"><fo:layout-master-set>'
  echo '<fo:simple-page-master master-name="p" page-width="148mm" page-height="210mm" margin="15mm"><fo:region-body/></fo:simple-page-master>'
  echo '</fo:layout-master-set><fo:page-sequence master-reference="p"><fo:flow flow-name="xsl-region-body" font-family="Times" font-size="11pt" text-align="justify" hyphenate="false">'
  echo "<fo:block font-family=\"Helvetica\" font-weight=\"bold\" font-size=\"16pt\" space-after=\"6pt\">$title</fo:block>"
  paras | sed 's/&/\&amp;/g; s/</\&lt;/g; s/^/<fo:block space-after="6pt">/; s/$/<\/fo:block>/'
  echo '</fo:flow></fo:page-sequence></fo:root>'
} > "$tmp/doc.fo"
fop -fo "$tmp/doc.fo" -pdf "$tmp/fop.pdf" >/dev/null 2>&1
cp "$tmp/fop.pdf" fop.pdf

# ReportLab: justified paragraphs in standard Helvetica (word spacing by Tw).
paras > "$tmp/paras.txt"
/usr/bin/python3 - "$tmp/paras.txt" "$title" reportlab.pdf <<'PY'
import sys
from reportlab.lib.pagesizes import A5
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.lib.enums import TA_JUSTIFY
from reportlab.platypus import SimpleDocTemplate, Paragraph
from xml.sax.saxutils import escape
styles = getSampleStyleSheet()
body = styles["BodyText"]
body.alignment = TA_JUSTIFY
body.fontName = "Helvetica"
doc = SimpleDocTemplate(sys.argv[3], pagesize=A5, invariant=1)
story = [Paragraph(escape(sys.argv[2]), styles["Title"])]
story += [Paragraph(escape(p), body) for p in open(sys.argv[1]).read().split("\n") if p]
doc.build(story)
PY

# Ghostscript: groff's PostScript (man macros, in groff-base) through
# ps2pdf, justified and hyphenated.
{
  echo ".TH SPEC 7"; echo ".SH NAME"; echo "$title"
  paras | sed 's/^/.PP\n/'
} > "$tmp/doc.man"
groff -man -Tps "$tmp/doc.man" > "$tmp/doc.ps"
ps2pdf "$tmp/doc.ps" ghostscript.pdf
