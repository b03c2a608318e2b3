import { describe, expect, it } from 'vitest';
import { cell } from '../cli/output.js';
import { escapeAllControls, escapeControls } from './control-characters.js';

describe('control characters written out', () => {
  it('escapes NUL, ESC, other C0 controls, DEL and C1 controls, keeping tabs and line breaks', () => {
    expect(escapeControls('26097\u0000123\u001b[2J\u0007\u007f\u009b\tok\r\n')).toBe(
      '26097\\u0000123\\u001b[2J\\u0007\\u007f\\u009b\tok\r\n',
    );
    expect(escapeControls('260971234567 Zoë \\u0000')).toBe('260971234567 Zoë \\u0000');
  });

  it('escapes tabs and line breaks too where the text must stay one line', () => {
    expect(escapeAllControls('a\tb\r\nc\u001b]0;x\u0007')).toBe('a\\u0009b\\u000d\\u000ac\\u001b]0;x\\u0007');
  });

  it('gives the same answer on every call (no regular-expression state kept between calls)', () => {
    for (let i = 0; i < 3; i++) expect(escapeControls('\u001bx')).toBe('\\u001bx');
  });

  it('never lets a CLI table cell carry a terminal escape or a line break', () => {
    expect(cell('\u001b[31m260971234567\u0000\n')).toBe('\\u001b[31m260971234567\\u0000\\u000a');
    expect(cell(['a\u001b', 'b'])).toBe('a\\u001b,b');
  });
});
