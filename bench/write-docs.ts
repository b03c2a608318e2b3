/** `npm run docs:bench`: rewrites the figures the docs quote from bench/results/latest.json. */
import { writeBenchDocs } from './docs.js';

console.log(`rewrote the figures of ${(await writeBenchDocs()).join(' and ')}`);
