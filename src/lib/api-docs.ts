import { dirname, join } from 'node:path';
import { openapi } from '@elysiajs/openapi';
import { Elysia } from 'elysia';
import { z } from 'zod';

const SWAGGER_UI_DIR = dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

/** The page's start script is a file of its own: the Content-Security-Policy allows no inline script. */
const START_SCRIPT = `window.addEventListener('load', () => {
  window.ui = SwaggerUIBundle({ url: '/api/docs/json', dom_id: '#swagger-ui', deepLinking: true });
});
`;

function docsPage(title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <meta name="viewport" content="width=device-width, initial-scale=1" />
  <title>${title}</title>
  <link rel="stylesheet" href="/api/docs/assets/swagger-ui.css" />
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/api/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/api/docs/assets/start.js"></script>
</body>
</html>
`;
}

/**
 * The OpenAPI document (`/api/docs/json`) and its browsable page (`/api/docs`), whose Swagger UI is served from
 * the installed `swagger-ui-dist` package (no CDN: the page works offline and loads nothing unpinned).
 * `enabled: false` (API_DOCS=0) leaves both out.
 */
export function apiDocs(options: { enabled: boolean; title: string; version: string }) {
  if (!options.enabled) return new Elysia({ name: 'api-docs' });
  return new Elysia({ name: 'api-docs' })
    .use(
      openapi({
        path: '/api/docs',
        provider: null,
        mapJsonSchema: { zod: (schema: z.ZodType) => z.toJSONSchema(schema, { unrepresentable: 'any', io: 'input' }) },
        documentation: {
          info: { title: options.title, version: options.version },
          components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
        },
      }),
    )
    .get('/api/docs', () => new Response(docsPage(options.title), { headers: { 'content-type': 'text/html; charset=utf-8' } }), {
      detail: { hide: true },
    })
    .get(
      '/api/docs/assets/:file',
      ({ params }) => {
        const headers = { 'cache-control': 'public, max-age=86400' };
        if (params.file === 'start.js') return new Response(START_SCRIPT, { headers: { ...headers, 'content-type': 'text/javascript; charset=utf-8' } });
        const type = ASSETS[params.file];
        if (!type) return new Response('Not found', { status: 404 });
        return new Response(Bun.file(join(SWAGGER_UI_DIR, params.file)), { headers: { ...headers, 'content-type': type } });
      },
      { detail: { hide: true } },
    );
}
