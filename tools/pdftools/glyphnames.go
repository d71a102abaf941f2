package pdftools

// glyphNames maps the glyph names of Latin text fonts (TeX's among them)
// that do not carry their character in the name itself, following the
// Adobe Glyph List. A name missing here reads as nothing rather than as
// a wrong letter.
var glyphNames = map[string]string{
	"space": " ", "exclam": "!", "quotedbl": "\"", "numbersign": "#", "dollar": "$", "percent": "%",
	"ampersand": "&", "quotesingle": "'", "quoteright": "’", "quoteleft": "‘", "parenleft": "(",
	"parenright": ")", "asterisk": "*", "plus": "+", "comma": ",", "hyphen": "-", "period": ".",
	"slash": "/", "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5",
	"six": "6", "seven": "7", "eight": "8", "nine": "9", "colon": ":", "semicolon": ";", "less": "<",
	"equal": "=", "greater": ">", "question": "?", "at": "@", "bracketleft": "[", "backslash": "\\",
	"bracketright": "]", "asciicircum": "^", "underscore": "_", "grave": "`", "braceleft": "{",
	"bar": "|", "braceright": "}", "asciitilde": "~", "exclamdown": "¡", "questiondown": "¿",
	"quotedblleft": "“", "quotedblright": "”", "quotedblbase": "„", "quotesinglbase": "‚",
	"endash": "–", "emdash": "—", "bullet": "•", "ellipsis": "…", "dagger": "†", "daggerdbl": "‡",
	"section": "§", "paragraph": "¶", "copyright": "©", "registered": "®", "trademark": "™",
	"degree": "°", "guillemotleft": "«", "guillemotright": "»", "guilsinglleft": "‹",
	"guilsinglright": "›", "sterling": "£", "yen": "¥", "Euro": "€", "cent": "¢",
	"ff": "ff", "fi": "fi", "fl": "fl", "ffi": "ffi", "ffl": "ffl",
	"dotlessi": "ı", "dotlessj": "ȷ", "germandbls": "ß", "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ",
	"oslash": "ø", "Oslash": "Ø", "lslash": "ł", "Lslash": "Ł", "aring": "å", "Aring": "Å",
	"acute": "´", "circumflex": "ˆ", "tilde": "˜", "dieresis": "¨", "macron": "¯", "breve": "˘",
	"dotaccent": "˙", "ring": "˚", "cedilla": "¸", "hungarumlaut": "˝", "ogonek": "˛", "caron": "ˇ",
	"minus": "−", "multiply": "×", "divide": "÷", "plusminus": "±", "periodcentered": "·",
	"eacute": "é", "egrave": "è", "ecircumflex": "ê", "edieresis": "ë", "aacute": "á", "agrave": "à",
	"acircumflex": "â", "adieresis": "ä", "atilde": "ã", "ccedilla": "ç", "iacute": "í", "igrave": "ì",
	"icircumflex": "î", "idieresis": "ï", "ntilde": "ñ", "oacute": "ó", "ograve": "ò",
	"ocircumflex": "ô", "odieresis": "ö", "otilde": "õ", "uacute": "ú", "ugrave": "ù",
	"ucircumflex": "û", "udieresis": "ü", "yacute": "ý", "ydieresis": "ÿ", "Eacute": "É",
	"Egrave": "È", "Adieresis": "Ä", "Odieresis": "Ö", "Udieresis": "Ü", "Ccedilla": "Ç",
	"visiblespace": "␣", "nbspace": "\u00a0",
}
