import { methodNotAllowedMessage } from '../errors/method-not-allowed-message.js';
import type express from 'express';
import type { RequestHandler } from 'express';
import { sendError } from '../errors/error-body.js';

/** The part of an Express (router 2.x) layer this reads: its route and its own path matchers. */
interface RouteLayer {
  route?: { path: unknown; methods: Record<string, boolean | undefined> };
  matchers?: Array<(path: string) => unknown>;
}

interface PatternRoutes {
  /** The route's path up to its first parameter, lower case: a path not starting so cannot match. */
  prefix: string;
  matches: (path: string) => boolean;
  methods: Set<string>;
}

interface RouteTable {
  /** Literal paths (lower case, no trailing slash) and the methods they answer. */
  literal: Map<string, Set<string>>;
  patterns: PatternRoutes[];
}

const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** The methods as the `Allow` header lists them, reads first; HEAD goes with GET, as Express serves it. */
export function allowHeader(methods: Iterable<string>): string {
  const list = new Set([...methods].map((m) => m.toUpperCase()));
  if (list.has('GET')) list.add('HEAD');
  const rank = (m: string) => (ORDER.includes(m) ? ORDER.indexOf(m) : ORDER.length);
  return [...list].sort((a, b) => rank(a) - rank(b)).join(', ');
}

function literalKey(path: string): string {
  const lower = path.toLowerCase();
  return lower.length > 1 && lower.endsWith('/') ? lower.slice(0, -1) : lower;
}

/** Every route of the app's router, read once (the routes are all mounted by then). */
function routeTable(app: express.Express): RouteTable {
  const stack = (app as unknown as { router: { stack: RouteLayer[] } }).router.stack;
  const literal = new Map<string, Set<string>>();
  const patterns = new Map<string, PatternRoutes>();
  for (const layer of stack) {
    const route = layer.route;
    if (!route || typeof route.path !== 'string' || !layer.matchers?.length) continue;
    const methods = Object.keys(route.methods).filter((m) => route.methods[m] && m !== '_all');
    if (route.methods._all) continue; // answers every method: never a 405
    if (!/[:*({]/.test(route.path)) {
      const key = literalKey(route.path);
      const set = literal.get(key) ?? new Set<string>();
      for (const m of methods) set.add(m);
      literal.set(key, set);
      continue;
    }
    const matchers = layer.matchers;
    const entry = patterns.get(route.path) ?? {
      prefix: route.path.slice(0, route.path.search(/[:*({]/)).toLowerCase(),
      matches: (path: string) => {
        // A matcher decodes the path's parameters: a malformed escape (`%`) throws. Such a path
        // is left to the router, which answers it 400.
        try {
          return matchers.some((match) => match(path) !== false);
        } catch {
          return false;
        }
      },
      methods: new Set<string>(),
    };
    for (const m of methods) entry.methods.add(m);
    patterns.set(route.path, entry);
  }
  return { literal, patterns: [...patterns.values()] };
}

/**
 * A method a known path does not serve answers 405 with `Allow`, for every route the app has,
 * not 404 as if the path were unknown. The routes are read from the router itself the first
 * time a request comes (every module has mounted its routes by then), so a new route is covered
 * without a word here. A literal path belongs to its own routes even where a parameter route
 * would also take it: `GET /api/v1/json/bulk/sms` is the send route asked with the wrong
 * method, not a request summary of the reference "sms". A CORS preflight is answered before
 * this (security.ts); any other OPTIONS of a known path is answered 204 with the same `Allow`.
 */
export function methodNotAllowed(app: express.Express): RequestHandler {
  let table: RouteTable | undefined;
  return (req, res, next) => {
    table ??= routeTable(app);
    const method = req.method === 'HEAD' ? 'get' : req.method.toLowerCase();
    let allowed = table.literal.get(literalKey(req.path));
    if (!allowed) {
      // The prefix first: each matcher is a regular expression that decodes what it captures.
      // A route of the method that matches leaves the request to the router, as most do.
      const lower = req.path.toLowerCase();
      const near = table.patterns.filter((p) => lower.startsWith(p.prefix));
      if (near.some((p) => p.methods.has(method) && p.matches(req.path))) return next();
      const matching = near.filter((p) => p.matches(req.path));
      if (matching.length === 0) return next();
      allowed = new Set(matching.flatMap((p) => [...p.methods]));
    }
    if (allowed.has(method) || (req.method === 'HEAD' && allowed.has('head'))) return next();
    const allow = allowHeader(allowed);
    if (req.method === 'OPTIONS') {
      res.status(204).setHeader('Allow', allow);
      res.end();
      return;
    }
    sendError(req, res, 405, 'METHOD_NOT_ALLOWED', methodNotAllowedMessage(req.method, allow), [], {
      Allow: allow,
    });
  };
}
