// The API's entry point. V8's garbage-collection settings are set first and the app is loaded
// only then (a dynamic import): every module a static import names is compiled before any
// module runs, and code compiled before the settings did not follow all of them.
import './platform/startup/gc-settings.js';

await import('./api.js');
