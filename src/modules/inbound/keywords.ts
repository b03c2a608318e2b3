/** The standard opt-out and opt-in words (any case); the inbound record names the group's first. */
const OPT_WORDS: Readonly<Record<string, OptKeyword>> = {
  STOP: 'STOP',
  STOPALL: 'STOP',
  UNSUBSCRIBE: 'STOP',
  CANCEL: 'STOP',
  END: 'STOP',
  QUIT: 'STOP',
  START: 'START',
  UNSTOP: 'START',
  YES: 'START',
  HELP: 'HELP',
};

export type OptKeyword = 'STOP' | 'START' | 'HELP';

/** The words of a text, upper-cased, with the punctuation around each one dropped ("Stop!" → STOP). */
export function words(text: string, count = 2): string[] {
  return text
    .trim()
    .split(/\s+/u)
    .slice(0, count)
    .map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '').toUpperCase())
    .filter((w) => w !== '');
}

/** STOP, START or HELP when the word is one of theirs, else null. */
export function optKeyword(word: string | undefined): OptKeyword | null {
  return word ? (OPT_WORDS[word] ?? null) : null;
}

/** A short-code keyword as stored: letters and digits, upper case. */
export function normaliseKeyword(raw: string): string | null {
  const k = raw.trim().toUpperCase();
  return /^[\p{L}\p{N}]{1,32}$/u.test(k) ? k : null;
}
