import type { AppViewRoute } from '@bull-board/api/typings/app';
import { ExpressAdapter } from '@bull-board/express';
import type { NextFunction, Request, Response } from 'express';

/** A stylesheet or script the page would fetch from another origin (Bull Board's page asks for web fonts). */
const EXTERNAL_ASSET =
  /<link\b[^>]*\bhref="https?:\/\/[^"]*"[^>]*>|<script\b[^>]*\bsrc="https?:\/\/[^"]*"[^>]*><\/script>/gi;

/** Bull Board's page without anything from another origin: the browser of an operator fetches only from the service. */
export function withoutExternalAssets(html: string): string {
  return html.replace(EXTERNAL_ASSET, '');
}

/**
 * Bull Board's Express adapter, its page rendered without external assets: the page falls back
 * to local fonts, and works where the service cannot reach the internet. (The pages' security
 * policy refuses other origins too.)
 */
export class LocalAssetsExpressAdapter extends ExpressAdapter {
  override setEntryRoute(routeDef: AppViewRoute): ExpressAdapter {
    const viewHandler = (_req: Request, res: Response, next: NextFunction) => {
      const { name, params } = routeDef.handler({ basePath: this.basePath, uiConfig: this.uiConfig });
      res.render(name, params, (err: Error | null, html?: string) =>
        err ? next(err) : res.send(withoutExternalAssets(html ?? '')),
      );
    };
    this.app[routeDef.method](routeDef.route, viewHandler);
    return this;
  }
}
