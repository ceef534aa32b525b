import { NestApplicationOptions } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { ApiDocs } from './rest/api-docs';
import { bodyParsers } from './rest/body';
import { negotiateFormat } from './rest/format';

/** Options for creating the application: bodies are parsed by `bodyParsers`, not Nest's parser. */
export const APP_OPTIONS: NestApplicationOptions = { bodyParser: false };

/** HTTP settings shared by the server and the e2e tests, so tests run the app as it ships. */
export function configureApp(app: NestExpressApplication): NestExpressApplication {
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use(negotiateFormat);
  app.use(...bodyParsers());
  app.enableShutdownHooks();
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Record collections')
      .setDescription(
        'E-mails, marbles and phone numbers under /api/demo, movies under /api/plain. ' +
          'Every route answers in JSON or XML (suffix .json/.xml, ?format=, or Accept).',
      )
      .setVersion('1')
      .build(),
  );
  app.get(ApiDocs).use(document);
  return app;
}
