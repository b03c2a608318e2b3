/** Shorter passwords fall to offline guessing in hours once a hash leaks; length is what counts most. */
export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 256;

/**
 * The stems of the passwords found most often in published breach corpora. A password that is
 * one of these once case, leetspeak, repetition and leading or trailing digits and symbols are
 * taken away ("Password123!", "p@ssw0rd2024", "qwertyqwerty") is among the first any guesser
 * tries, whatever its length.
 */
const COMMON_STEMS = new Set([
  'password',
  'passwort',
  'passwd',
  'pass',
  'qwerty',
  'qwertyuiop',
  'qwertz',
  'azerty',
  'asdf',
  'asdfgh',
  'asdfghjkl',
  'zxcvbn',
  'zxcvbnm',
  'qazwsx',
  'qazwsxedc',
  'zaqxsw',
  'qweasd',
  'qweasdzxc',
  'abc',
  'abcd',
  'abcdef',
  'abcdefg',
  'abcdefgh',
  'letmein',
  'welcome',
  'admin',
  'administrator',
  'root',
  'toor',
  'login',
  'master',
  'secret',
  'changeme',
  'default',
  'guest',
  'test',
  'tester',
  'testing',
  'user',
  'iloveyou',
  'loveyou',
  'love',
  'princess',
  'sunshine',
  'shadow',
  'monkey',
  'dragon',
  'football',
  'baseball',
  'soccer',
  'hockey',
  'basketball',
  'superman',
  'batman',
  'spiderman',
  'starwars',
  'pokemon',
  'trustno',
  'whatever',
  'freedom',
  'hello',
  'helloworld',
  'charlie',
  'michael',
  'jordan',
  'jennifer',
  'hunter',
  'ranger',
  'buster',
  'killer',
  'cheese',
  'cookie',
  'summer',
  'winter',
  'spring',
  'autumn',
  'flower',
  'computer',
  'internet',
  'google',
  'facebook',
  'samsung',
  'apple',
  'microsoft',
  'mustang',
  'ferrari',
  'matrix',
  'access',
  'money',
  'blink',
  'solo',
  'ninja',
  'mypassword',
  'mysecret',
  'adminadmin',
  'passpass',
  'letmeinnow',
  'open',
  'opensesame',
  'nopassword',
  'system',
  'server',
  'manager',
  'support',
  'service',
  'company',
  'business',
  'office',
  'zambia',
  'lusaka',
  'africa',
  'bulk',
  'sms',
]);

const LEET: Record<string, string> = {
  '@': 'a',
  '4': 'a',
  '3': 'e',
  '1': 'i',
  '!': 'i',
  '0': 'o',
  $: 's',
  '5': 's',
  '7': 't',
};

/** The stem of a password: lower case, without leading/trailing digits and symbols, leetspeak undone, repetition folded. */
function stem(password: string): string {
  let s = password.toLowerCase().replace(/^[^a-z]+|[^a-z]+$/g, '');
  s = s.replace(/[@430!$571]/g, (c) => LEET[c] ?? c);
  for (let n = 1; n <= s.length / 2; n++) {
    if (s.length % n === 0 && s.slice(0, n).repeat(s.length / n) === s) return s.slice(0, n);
  }
  return s;
}

/** True for keyboard runs and runs of digits or letters: 1234567890, 9876543210, abcdefghij. */
function isSequence(s: string): boolean {
  if (s.length < 3) return false;
  const step = s.charCodeAt(1) - s.charCodeAt(0);
  if (Math.abs(step) !== 1) return false;
  for (let i = 2; i < s.length; i++) if (s.charCodeAt(i) - s.charCodeAt(i - 1) !== step) return false;
  return true;
}

/** Why a new password is refused, or null when it is acceptable. */
export function passwordProblem(password: string, username?: string): string | null {
  if (password.length < MIN_PASSWORD_LENGTH)
    return `password must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH)
    return `password must be at most ${MAX_PASSWORD_LENGTH} characters`;
  if (/[\u0000-\u001f\u007f]/.test(password)) return 'password must not contain control characters';
  if (new Set(password).size < 4) return 'password is too simple: use at least four different characters';
  const lower = password.toLowerCase();
  if (username && username.length >= 3 && lower.includes(username.toLowerCase()))
    return 'password must not contain the username';
  const s = stem(password);
  if (s === '' || COMMON_STEMS.has(s) || isSequence(lower) || isSequence(s))
    return 'password is too common: choose a longer, less guessable one';
  return null;
}

/**
 * How long an API process may go on trusting a credential it has checked (the API-key cache's
 * TTL): a changed password stops working everywhere within this time.
 */
export const CREDENTIAL_CACHE_TTL_MS = 1000;
