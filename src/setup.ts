import { NestExpressApplication } from '@nestjs/platform-express';
import { negotiateFormat } from './rest/format';

/** HTTP settings shared by the server and the e2e tests, so tests run the app as it ships. */
export function configureApp(app: NestExpressApplication): NestExpressApplication {
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use(negotiateFormat);
  app.enableShutdownHooks();
  return app;
}
