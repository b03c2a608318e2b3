/**
 * Control characters in text that tenants or recipients wrote (a rejected recipient keeps what
 * was sent, NUL and ESC included), made visible where the text is written out: in a CSV export
 * a NUL cuts the field short for many readers, and on a terminal ESC starts a sequence that can
 * rewrite the screen, the title or the clipboard. Each is written as `\u` and four hex digits,
 * so the value stays readable and tells what was there; a real backslash is left as it is.
 */

/** C0 controls but tab, line feed and carriage return; DEL; C1 controls. */
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;
/** The same, with tab, line feed and carriage return too (one line, one table cell). */
const CONTROLS_AND_BREAKS = /[\u0000-\u001f\u007f-\u009f]/g;

// Without the g flag for `test`, which would otherwise carry lastIndex from one call to the next.
const HAS_CONTROLS = new RegExp(CONTROLS.source);
const HAS_CONTROLS_OR_BREAKS = new RegExp(CONTROLS_AND_BREAKS.source);

const escape = (ch: string) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** `text` with its control characters escaped, keeping tabs and line breaks. */
export function escapeControls(text: string): string {
  return HAS_CONTROLS.test(text) ? text.replace(CONTROLS, escape) : text;
}

/** `text` with every control character escaped, tabs and line breaks included. */
export function escapeAllControls(text: string): string {
  return HAS_CONTROLS_OR_BREAKS.test(text) ? text.replace(CONTROLS_AND_BREAKS, escape) : text;
}
